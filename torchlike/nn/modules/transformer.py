"""torch.nn modules: transformer (being filled in)."""
__all__ = []
