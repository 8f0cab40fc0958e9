"""torch.nn modules: sparse (being filled in)."""
__all__ = []
