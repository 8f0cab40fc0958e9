"""torch.nn modules: padding (being filled in)."""
__all__ = []
