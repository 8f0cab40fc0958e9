"""torch.nn modules: hooks (being filled in)."""
__all__ = []
