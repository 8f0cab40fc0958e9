"""torch.nn modules: loss (being filled in)."""
__all__ = []
