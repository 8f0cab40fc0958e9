"""torch.nn.functional: conv (being filled in)."""
__all__ = []
