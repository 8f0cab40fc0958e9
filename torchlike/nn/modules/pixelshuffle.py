"""torch.nn modules: pixelshuffle (being filled in)."""
__all__ = []
