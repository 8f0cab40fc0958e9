"""Mirrors `torch.jit.annotations`: the annotation helpers scriptable code imports."""
from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: F401


class _BroadcastingList:
    """`BroadcastingList2[int]`: TorchScript reads it as "an int or a list of 2 ints"; in eager
    Python, as in PyTorch, subscripting it gives None (an annotation nothing checks)."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = _BroadcastingList()
BroadcastingList2 = _BroadcastingList()
BroadcastingList3 = _BroadcastingList()
