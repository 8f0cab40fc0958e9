"""Mirrors `torch.backends.mps`: torchlike has no MPS device."""


def is_available():
    return False


def is_built():
    return False
