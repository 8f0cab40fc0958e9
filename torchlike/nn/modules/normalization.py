"""torch.nn modules: normalization (being filled in)."""
__all__ = []
