"""torch.nn.functional: attention (being filled in)."""
__all__ = []
