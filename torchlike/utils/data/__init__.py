"""Mirrors `torch.utils.data` — being built (issue 6)."""
