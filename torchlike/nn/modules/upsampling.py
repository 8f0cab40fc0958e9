"""torch.nn modules: upsampling (being filled in)."""
__all__ = []
