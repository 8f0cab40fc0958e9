"""Mirrors `torch.multiprocessing` — being built (issue 6)."""
