"""torch.nn.functional: misc (being filled in)."""
__all__ = []
