"""Mirrors `torch.multiprocessing`: a drop-in for Python's `multiprocessing` (same objects,
same default start method) whose queues and pipes carry torchlike tensors.

Tensors cross processes by pickling their elements as a NumPy array (`Tensor.__reduce_ex__`), so
the receiver gets a copy, not shared memory: in-place writes in one process are not seen in the
other (PyTorch moves tensors to shared memory instead). The sharing-strategy functions are
accepted for compatibility. JAX is multithreaded, so after JAX has run, prefer the `spawn` or
`forkserver` start method over `fork` (JAX warns on fork); `DataLoader` workers do so by
default."""
import multiprocessing
import sys
from multiprocessing import *  # noqa: F401,F403

from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,  # noqa: F401
                    SpawnContext, start_processes, spawn)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           "spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
           "ProcessExitedException", "SpawnContext"] + list(multiprocessing.__all__)

_all_sharing_strategies = {"file_descriptor", "file_system"} if sys.platform != "darwin" \
    else {"file_system"}
_sharing_strategy = "file_descriptor" if sys.platform != "darwin" else "file_system"


def set_sharing_strategy(new_strategy):
    """Mirrors `torch.multiprocessing.set_sharing_strategy` (recorded only: tensors are copied
    through pickling, whatever the strategy)."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """Mirrors `torch.multiprocessing.get_sharing_strategy`."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """Mirrors `torch.multiprocessing.get_all_sharing_strategies`."""
    return _all_sharing_strategies


def init_reductions():
    """Mirrors `torch.multiprocessing.init_reductions` (tensors pickle by themselves)."""
