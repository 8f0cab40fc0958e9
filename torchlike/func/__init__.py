"""Mirrors `torch.func` — being built (issue 9)."""
