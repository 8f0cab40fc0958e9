"""torch.nn modules: fold (being filled in)."""
__all__ = []
