"""Mirrors `torch.mps` on a build without Apple GPU support (see `_absent_backend`)."""
from ._absent_backend import make as _make

globals().update(_make("mps", "MPS"))
