"""torch.nn modules: distance (being filled in)."""
__all__ = []
