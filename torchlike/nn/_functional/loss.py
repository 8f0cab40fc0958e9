"""torch.nn.functional: loss (being filled in)."""
__all__ = []
