"""Mirrors `torch.cuda.amp.common`."""


def amp_definitely_not_available():
    """True when no GPU is visible (CUDA autocast and GradScaler then disable themselves)."""
    from ... import cuda
    return not cuda.is_available()
