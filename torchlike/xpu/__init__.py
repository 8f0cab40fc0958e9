"""Mirrors `torch.xpu` on a build without Intel GPU support (see `_absent_backend`)."""
from .._absent_backend import make as _make

globals().update(_make("xpu", "XPU"))
