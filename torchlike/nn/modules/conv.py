"""torch.nn modules: conv (being filled in)."""
__all__ = []
