"""torch.nn modules: linear (being filled in)."""
__all__ = []
