"""Mirrors `torch.version`: the PyTorch release torchlike follows (2.13's CPU build)."""
__version__ = "2.13.0+cpu"
cuda = None
hip = None
xpu = None
debug = False
