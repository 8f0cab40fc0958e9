"""torch.nn modules: rnn (being filled in)."""
__all__ = []
