"""Mirrors `torch.nn.init` (being filled in)."""
