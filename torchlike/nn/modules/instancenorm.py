"""torch.nn modules: instancenorm (being filled in)."""
__all__ = []
