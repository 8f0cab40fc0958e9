"""Mirrors `torch.nn.parallel` (single-process: `DataParallel` is a pass-through)."""
from .data_parallel import DataParallel  # noqa: F401
