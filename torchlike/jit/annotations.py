"""Mirrors `torch.jit.annotations`: the annotation helpers scriptable code imports."""
from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: F401


class _BroadcastingList:
    """`BroadcastingList2[int]`: in eager Python an annotation for `List[int]`."""

    def __getitem__(self, types):
        return List[types]


BroadcastingList1 = _BroadcastingList()
BroadcastingList2 = _BroadcastingList()
BroadcastingList3 = _BroadcastingList()
