"""torch.nn.utils.rnn (being filled in)."""
