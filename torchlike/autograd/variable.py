"""Mirrors `torch.autograd.variable`: the legacy `Variable`."""
from . import Variable  # noqa: F401
