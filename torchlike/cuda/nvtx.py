"""Mirrors `torch.cuda.nvtx`: ranges and marks become JAX profiler trace annotations, which
show in a `jax.profiler` trace (and cost nothing when no trace is taken)."""
import contextlib

import jax

_STACK = []


def range_push(msg):
    """Mirrors `nvtx.range_push`: returns the depth of the range started (0-based)."""
    a = jax.profiler.TraceAnnotation(str(msg))
    a.__enter__()
    _STACK.append(a)
    return len(_STACK) - 1


def range_pop():
    """Mirrors `nvtx.range_pop`: the depth of the range ended, -1 with none open."""
    if not _STACK:
        return -1
    _STACK.pop().__exit__(None, None, None)
    return len(_STACK)


def range_start(msg):
    """Mirrors `nvtx.range_start`: a handle for `range_end`."""
    a = jax.profiler.TraceAnnotation(str(msg))
    a.__enter__()
    return a


def range_end(range_id):
    range_id.__exit__(None, None, None)


def mark(msg):
    """Mirrors `nvtx.mark`: an instant annotation."""
    with jax.profiler.TraceAnnotation(str(msg)):
        pass


@contextlib.contextmanager
def range(msg, *args, **kwargs):  # noqa: A001 - PyTorch's name
    """Mirrors `nvtx.range`: a context manager (the message formatted with args, as PyTorch)."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
