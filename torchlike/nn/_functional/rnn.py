"""torch.nn.functional: rnn (being filled in)."""
__all__ = []
