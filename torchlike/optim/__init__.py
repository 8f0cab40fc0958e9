"""Mirrors `torch.optim` (optimizers on optax) — being built (issue 5)."""
