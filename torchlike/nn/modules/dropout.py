"""torch.nn modules: dropout (being filled in)."""
__all__ = []
