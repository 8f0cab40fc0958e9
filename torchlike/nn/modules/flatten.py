"""torch.nn modules: flatten (being filled in)."""
__all__ = []
