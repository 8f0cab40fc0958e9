"""torch.nn modules: batchnorm (being filled in)."""
__all__ = []
