"""torch.nn modules: container (being filled in)."""
__all__ = []
