"""torch.nn modules: channelshuffle (being filled in)."""
__all__ = []
