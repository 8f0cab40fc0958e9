"""Mirrors `torch.cuda`, mapped onto JAX's GPU devices ('cuda:N' is the N-th JAX GPU).

With no GPU visible to JAX, everything behaves as in a CPU-only PyTorch build: queries answer
False/0, and anything that needs a device raises "Torch not compiled with CUDA enabled".
"""
from .._core import device as _dev
from .._ops import random as _random
from .._ops.creation import CUDA_LEGACY_TYPES as _LEGACY

globals().update(_LEGACY)

_initialized = [False]
_peak = {}


def is_available():
    """Mirrors `torch.cuda.is_available`: True only when JAX sees a GPU."""
    return bool(_dev.gpus())


def device_count():
    return len(_dev.gpus())


def _lazy_init():
    if not _dev.gpus():
        raise _dev.no_cuda_error()
    _initialized[0] = True


def init():
    """Mirrors `torch.cuda.init`."""
    _lazy_init()


def is_initialized():
    return _initialized[0]


def _index(device, optional=True):
    """A device index from an int / str / torch.device / None (None → current)."""
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    d = _dev.device(device)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return current_device() if d.index is None else d.index


def current_device():
    """Mirrors `torch.cuda.current_device`."""
    _lazy_init()
    return _dev.current_cuda_index()


def _check_index(i):
    if not 0 <= i < device_count():
        raise _dev.invalid_ordinal_error()


def set_device(device):
    """Mirrors `torch.cuda.set_device` (a negative index is ignored, as in PyTorch)."""
    if device is None:
        raise ValueError("Expected a torch.device with a specified index or an integer, but "
                         "got:None")
    i = _index(device) if not isinstance(device, int) else device
    if i < 0:
        return
    if not _dev.gpus():
        raise AttributeError("module 'torch._C' has no attribute '_cuda_setDevice'")
    _check_index(i)
    _dev.set_current_cuda_index(i)


def _exchange(i):
    if i < 0:
        return -1
    if not _dev.gpus():
        raise RuntimeError("PyTorch was compiled without CUDA support")
    prev = _dev.current_cuda_index()
    _check_index(i)
    _dev.set_current_cuda_index(i)
    return prev


class device:
    """Mirrors `torch.cuda.device`: a context manager that sets the current device."""

    def __init__(self, device):
        if device is None or isinstance(device, int):
            self.idx = device
        else:
            d = _dev.device(device)
            if d.type != "cuda":
                raise ValueError(f"Expected a cuda device, but got: {d}")
            self.idx = d.index if d.index is not None or not is_available() \
                else current_device()
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _exchange(-1 if self.idx is None else self.idx)

    def __exit__(self, *exc):
        if self.prev_idx >= 0:
            _dev.set_current_cuda_index(self.prev_idx)
        return False


class device_of(device):
    """Mirrors `torch.cuda.device_of`: the device of a tensor (a no-op for CPU tensors)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


def _jax_device(d):
    i = _index(d)
    _check_index(i)
    return _dev.gpus()[i]


def get_device_name(device=None):
    """Mirrors `torch.cuda.get_device_name`."""
    _lazy_init()
    return _name(_jax_device(device))


def _name(jd):
    from .._core import simulated
    return simulated.NAME if simulated.COUNT else jd.device_kind


class _CudaDeviceProperties:
    def __init__(self, jd):
        self.name = _name(jd)
        try:
            stats = jd.memory_stats() or {}
        except Exception:  # noqa: BLE001 - backends without memory stats
            stats = {}
        self.total_memory = int(stats.get("bytes_limit", 0))
        cc = getattr(jd, "compute_capability", None)
        major, minor = (cc.split(".") + ["0"])[:2] if isinstance(cc, str) else (0, 0)
        self.major, self.minor = int(major), int(minor)
        self.multi_processor_count = int(getattr(jd, "core_count", 0) or 0)

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    """Mirrors `torch.cuda.get_device_properties` (name, capability, memory, SM count)."""
    _lazy_init()
    return _CudaDeviceProperties(_jax_device(device))


def get_device_capability(device=None):
    p = get_device_properties(device)
    return (p.major, p.minor)


def get_arch_list():
    return [] if not is_available() else [f"sm_{m}{n}" for m, n in
                                          {get_device_capability(i)
                                           for i in range(device_count())}]


def is_bf16_supported(including_emulation=True):
    return is_available()


# ---- random ------------------------------------------------------------------------------------

def manual_seed(seed):
    """Mirrors `torch.cuda.manual_seed` (seeds the current device; silently a no-op without)."""
    if is_available():
        _random._cuda_gen(_dev.current_cuda_index()).manual_seed(seed)


def manual_seed_all(seed):
    for i in range(device_count()):
        _random._cuda_gen(i).manual_seed(seed)


def seed():
    if is_available():
        _random._cuda_gen(_dev.current_cuda_index()).seed()


def seed_all():
    for i in range(device_count()):
        _random._cuda_gen(i).seed()


def initial_seed():
    _lazy_init()
    return _random._cuda_gen(_dev.current_cuda_index()).initial_seed()


def get_rng_state(device="cuda"):
    _lazy_init()
    return _random._cuda_gen(_index(device)).get_state()


def set_rng_state(new_state, device="cuda"):
    _lazy_init()
    _random._cuda_gen(_index(device)).set_state(new_state)


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    for i, s in enumerate(new_states):
        set_rng_state(s, i)


from .streams import (Event, Stream, StreamContext, current_stream, default_stream, set_stream,  # noqa
                      stream, synchronize)
from .memory import (empty_cache, max_memory_allocated, max_memory_reserved,  # noqa: E402,F401
                     mem_get_info, memory_allocated, memory_cached, memory_reserved,
                     memory_stats, reset_accumulated_memory_stats, reset_peak_memory_stats)
from . import nvtx  # noqa: E402,F401
from .graphs import (CUDAGraph, graph, graph_pool_handle,  # noqa: E402,F401
                     is_current_stream_capturing, make_graphed_callables)
from .._errors import OutOfMemoryError  # noqa: E402,F401
