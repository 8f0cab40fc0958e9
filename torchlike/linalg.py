"""Mirrors `torch.linalg` (being filled in)."""
