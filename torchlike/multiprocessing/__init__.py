"""Mirrors `torch.multiprocessing`: a drop-in for Python's `multiprocessing` (same objects,
same default start method) whose queues and pipes carry torchlike tensors.

CPU tensors cross processes through shared memory (`reductions.py`), as PyTorch's do: the
receiver's tensor is a view of the sender's storage, so in-place writes in one process are seen
in the other. The sharing-strategy functions are accepted for compatibility (the memory always
travels as a file descriptor). JAX is multithreaded, so after JAX has run, prefer the `spawn` or
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


from .reductions import init_reductions  # noqa: E402

init_reductions()


class Process(multiprocessing.Process):
    """Mirrors `torch.multiprocessing.Process` (Python's, of the default context). Divergence:
    where the start method is `fork` and JAX's runtime is running in this process (a forked
    child would deadlock in it), the process starts from torchlike's JAX-safe forkserver
    instead, as under `forkserver`: the target and its arguments are pickled (tensors through
    shared memory) and the main script runs again in the child as `__mp_main__`, so a script
    needs the `if __name__ == "__main__":` guard, as on platforms without `fork`."""

    @staticmethod
    def _Popen(process_obj):
        ctx = multiprocessing.context._default_context.get_context()
        if ctx.get_start_method() == "fork" and _jax_running():
            from ..utils.data._utils.context import worker_context
            ctx = worker_context()
        return ctx.Process._Popen(process_obj)


def _jax_running():
    from jax._src import xla_bridge
    return bool(xla_bridge._backends)


def _shareable(name):
    """The default context's `name` (Lock, Queue...), made so that it also works in a process
    `Process` starts from the forkserver: under `fork`, the forkserver context's (a `fork`
    context's semaphores cannot reach such a process; its objects work in forked ones too)."""
    def make(*args, **kwargs):
        ctx = multiprocessing.context._default_context.get_context()
        if ctx.get_start_method() == "fork" and \
                "forkserver" in multiprocessing.get_all_start_methods():
            ctx = multiprocessing.get_context("forkserver")
        return getattr(ctx, name)(*args, **kwargs)
    make.__name__ = make.__qualname__ = name
    make.__doc__ = f"Mirrors `torch.multiprocessing.{name}` (see `_shareable`)."
    return make


for _name in ("Lock", "RLock", "Semaphore", "BoundedSemaphore", "Condition", "Event", "Barrier",
              "Queue", "JoinableQueue", "SimpleQueue", "Value", "Array"):
    globals()[_name] = _shareable(_name)
del _name
