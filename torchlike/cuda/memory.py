"""Mirrors `torch.cuda`'s memory statistics, read from JAX's device memory statistics.

XLA's allocator reports bytes in use, their peak, its pool size and the device's limit; those
become PyTorch's allocated/reserved figures. XLA cannot reset its peak, so
`reset_peak_memory_stats` keeps a floor here: the peak it reports afterwards is the largest
of the current use at the reset and the current uses seen by later queries (XLA's own peak is
used until the first reset). Without an accelerator the queries answer 0, as a CPU-only
PyTorch's do.
"""
import warnings

from .._core import device as _dev

_RESET = {}   # device index -> the highest use seen since the last reset


def _stats(index):
    try:
        return _dev.gpus()[index].memory_stats() or {}
    except Exception:  # noqa: BLE001 - backends without memory stats (XLA:CPU)
        return {}


def _index(device):
    from . import _check_index, _index as index_of
    i = index_of(device)
    _check_index(i)
    return i


def _figures(device):
    """(allocated, peak allocated, reserved, peak reserved, limit) in bytes."""
    from . import is_available
    if not is_available():
        return 0, 0, 0, 0, 0
    i = _index(device)
    st = _stats(i)
    used = int(st.get("bytes_in_use", 0))
    peak = int(st.get("peak_bytes_in_use", used))
    reserved = int(st.get("pool_bytes", st.get("bytes_reserved", 0)) or used)
    peak_reserved = int(st.get("peak_pool_bytes", st.get("peak_bytes_reserved", 0)) or peak)
    if i in _RESET:
        _RESET[i] = max(_RESET[i], used)
        peak = peak_reserved = _RESET[i]
    return used, peak, reserved, peak_reserved, int(st.get("bytes_limit", 0))


def memory_allocated(device=None):
    """Mirrors `torch.cuda.memory_allocated` (0 without a GPU)."""
    return _figures(device)[0]


def max_memory_allocated(device=None):
    """Mirrors `torch.cuda.max_memory_allocated`."""
    return _figures(device)[1]


def memory_reserved(device=None):
    """Mirrors `torch.cuda.memory_reserved`."""
    return _figures(device)[2]


def max_memory_reserved(device=None):
    """Mirrors `torch.cuda.max_memory_reserved`."""
    return _figures(device)[3]


def memory_cached(device=None):
    """Mirrors the deprecated `torch.cuda.memory_cached`."""
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def memory_stats(device=None):
    """Mirrors `torch.cuda.memory_stats` (the keys that JAX's statistics can fill)."""
    from . import is_available
    if not is_available():
        return {}
    used, peak, reserved, peak_reserved, _ = _figures(device)
    st = _stats(_index(device))
    out = {}
    for pool in ("all", "large_pool", "small_pool"):
        scale = 1 if pool != "small_pool" else 0
        out[f"allocated_bytes.{pool}.current"] = used * scale
        out[f"allocated_bytes.{pool}.peak"] = peak * scale
        out[f"reserved_bytes.{pool}.current"] = reserved * scale
        out[f"reserved_bytes.{pool}.peak"] = peak_reserved * scale
        out[f"active_bytes.{pool}.current"] = used * scale
        out[f"active_bytes.{pool}.peak"] = peak * scale
    out["allocation.all.current"] = int(st.get("num_allocs", 0))
    out["num_alloc_retries"] = 0
    out["num_ooms"] = 0
    return dict(sorted(out.items()))


def mem_get_info(device=None):
    """Mirrors `torch.cuda.mem_get_info`: (free, total) bytes of the device."""
    from . import _lazy_init
    _lazy_init()
    used, _, reserved, _, limit = _figures(device)
    return max(limit - max(used, reserved), 0), limit


def reset_peak_memory_stats(device=None):
    """Mirrors `torch.cuda.reset_peak_memory_stats` (see the module docstring)."""
    from . import is_available
    if not is_available():
        raise AttributeError("module 'torch._C' has no attribute '_cuda_resetPeakMemoryStats'")
    i = _index(device)
    _RESET[i] = int(_stats(i).get("bytes_in_use", 0))


def reset_accumulated_memory_stats(device=None):
    """Mirrors `torch.cuda.reset_accumulated_memory_stats` (no accumulated counters here)."""
    from . import is_available
    if not is_available():
        raise AttributeError("module 'torch._C' has no attribute "
                             "'_cuda_resetAccumulatedMemoryStats'")


def empty_cache():
    """Mirrors `torch.cuda.empty_cache` (XLA manages its own pool: nothing to release)."""
