"""Mirrors `torch.cuda.Stream`, `Event`, `stream()` and `synchronize()` on JAX's devices.

JAX runs a device's kernels in the order they were dispatched, on one compute stream; there is
one stream per device here. `Stream` objects are handles on it: `wait_stream`/`wait_event`
order nothing that is not already ordered, and `stream(s)` changes nothing but what
`current_stream()` answers. Waiting is real: `synchronize()` (and `Stream.synchronize`,
`Event.synchronize`) returns only when every kernel dispatched to the device before it has
finished. An `Event` is recorded by waiting for the device's work so far and reading the host
clock, so `elapsed_time` measures the device work between two records (in milliseconds);
recording therefore synchronizes, which PyTorch's does not.
"""
import functools
import time

import jax

from .._core import device as _dev, device_asserts, lazy as _lazy


def _jax_device(index):
    from . import _check_index, _lazy_init
    _lazy_init()
    _check_index(index)
    return _dev.gpus()[index]


@functools.lru_cache(maxsize=None)
def _probe(index):
    """A tiny kernel and its operand on device `index`: dispatched after everything queued
    there, so waiting for its result waits for that work (device transfers use other queues)."""
    x = jax.device_put(0, _jax_device(index))
    return jax.jit(lambda a: a + 1), x


def wait(index):
    """Block until the work dispatched to accelerator `index` so far has finished (under fused
    eager, this thread's recorded calls are dispatched first)."""
    _lazy.flush()
    fn, x = _probe(index)
    fn(x).block_until_ready()
    device_asserts.check()


def _index_of(device):
    from . import _index
    return _index(device)


def synchronize(device=None):
    """Mirrors `torch.cuda.synchronize`: waits for all kernels queued on the device."""
    from . import _lazy_init
    _lazy_init()
    wait(_index_of(device))


class Stream:
    """Mirrors `torch.cuda.Stream` (a handle on the device's one stream; see the module)."""

    def __init__(self, device=None, priority=0, **kwargs):
        from . import _lazy_init
        _lazy_init()
        self.device = _dev.device("cuda", _index_of(device))
        self.priority = priority

    def synchronize(self):
        wait(self.device.index)

    def wait_stream(self, stream):
        """Work queued later runs after `stream`'s: always so with one stream."""

    def wait_event(self, event):
        """Work queued later runs after `event`: always so with one stream."""

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def query(self):
        wait(self.device.index)
        return True

    def __eq__(self, other):
        return isinstance(other, Stream) and other.device == self.device

    def __hash__(self):
        return hash(("stream", self.device))

    def __repr__(self):
        return f"<torch.cuda.Stream device={self.device} cuda_stream=0x0>"


_CURRENT = {}   # device index -> the Stream set by `stream()` / `set_stream`


def current_stream(device=None):
    """Mirrors `torch.cuda.current_stream`."""
    from . import _lazy_init
    _lazy_init()
    i = _index_of(device)
    s = _CURRENT.get(i)
    return s if s is not None else Stream(i)


def default_stream(device=None):
    """Mirrors `torch.cuda.default_stream`."""
    from . import _lazy_init
    _lazy_init()
    return Stream(_index_of(device))


def set_stream(s):
    """Mirrors `torch.cuda.set_stream`."""
    if s is not None:
        _CURRENT[s.device.index] = s


class StreamContext:
    """Mirrors `torch.cuda.StreamContext`: `current_stream()` answers the stream inside the
    block (None: no change)."""

    def __init__(self, stream):
        self.stream = stream
        self._prev = None

    def __enter__(self):
        s = self.stream
        if s is not None:
            self._prev = _CURRENT.get(s.device.index)
            _CURRENT[s.device.index] = s
        return s

    def __exit__(self, *exc):
        s = self.stream
        if s is not None:
            if self._prev is None:
                _CURRENT.pop(s.device.index, None)
            else:
                _CURRENT[s.device.index] = self._prev
        return False


def stream(s):
    """Mirrors `torch.cuda.stream`: a `StreamContext`."""
    return StreamContext(s)


class Event:
    """Mirrors `torch.cuda.Event` (see the module docstring for what recording does)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self.blocking = blocking
        self.interprocess = interprocess
        self._time = None
        self._device = None

    def record(self, stream=None):
        """Mirrors `Event.record`: on `stream` (default: the current one)."""
        if stream is None:
            stream = current_stream()
        if self._device is not None and self._device != stream.device:
            raise RuntimeError(f"Event device {self._device} does not match recording stream's "
                               f"device {stream.device}.")
        self._device = stream.device
        wait(stream.device.index)
        self._time = time.perf_counter()

    def wait(self, stream=None):
        """Mirrors `Event.wait`: later work on `stream` runs after the event (one stream)."""

    def query(self):
        return True

    def synchronize(self):
        """Mirrors `Event.synchronize` (the work before `record` is done when it returns)."""

    def elapsed_time(self, end_event):
        """Mirrors `Event.elapsed_time`: milliseconds between this event and `end_event`."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0

    def __repr__(self):
        return "<torch.cuda.Event uninitialized>" if self._time is None else \
            "<torch.cuda.Event 0x0>"
