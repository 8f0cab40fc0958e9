"""torch.nn modules: activation (being filled in)."""
__all__ = []
