"""The torch-level autocast switches: `torch.is_autocast_enabled(device_type)`,
`torch.get_autocast_dtype`, their setters, the weight-cache switches and nesting counter, and the
deprecated per-backend spellings (`torch.is_autocast_cpu_enabled()`, ...)."""
import re
import warnings

from .._core import autocast_state as _st
from .._core import dtype as _dt

# torch.device's known types, in the order of its error message
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")
# the device types autocast knows, with their default lower-precision dtype
_DEFAULT_DTYPE = {"cpu": _dt.bfloat16, "cuda": _dt.float16, "mps": _dt.float16,
                  "xpu": _dt.float16, "hpu": _dt.bfloat16, "mtia": _dt.float16,
                  "maia": _dt.bfloat16, "xla": _dt.bfloat16, "ipu": _dt.float16,
                  "privateuseone": _dt.float16}
_st.DTYPE.update(_DEFAULT_DTYPE)


def parse_device_type(name):
    """The device type of device string `name` ('cuda:0' -> 'cuda'), with torch.device's error
    for a string it does not know."""
    m = re.fullmatch(r"([a-zA-Z_]+)(:(0|[1-9][0-9]*))?", name)
    if m is None:
        raise RuntimeError(f"Invalid device string: '{name}'")
    if m.group(1) not in _DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of "
                           f"device string: {name}")
    return m.group(1)


def _typed(fn, name, value, pos, kind, kind_name):
    if not isinstance(value, kind):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be {kind_name}, not "
                        f"{type(value).__name__}")


def _autocast_type(name, fn, for_dtype):
    _typed(fn, "device_type", name, 1, str, "str")
    t = parse_device_type(name)
    if t not in _DEFAULT_DTYPE:
        raise RuntimeError("unsupported scalarType" if for_dtype else
                           "unknown device type for autocast in "
                           "get_autocast_dispatch_key_from_device_type")
    return t


def is_autocast_available(device_type):
    """Mirrors `torch.amp.is_autocast_available`."""
    _typed("_is_autocast_available", "device_type", device_type, 1, str, "str")
    return parse_device_type(device_type) in _DEFAULT_DTYPE


def is_autocast_enabled(device_type=None):
    """Mirrors `torch.is_autocast_enabled` (no argument: CUDA's state, as in PyTorch)."""
    t = "cuda" if device_type is None else _autocast_type(device_type, "is_autocast_enabled",
                                                           False)
    return bool(_st.ENABLED.get(t, False))


def set_autocast_enabled(device_type, enabled=None):
    """Mirrors `torch.set_autocast_enabled(device_type, enabled)` (and the older
    `set_autocast_enabled(enabled)`, which sets CUDA's state)."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
        _typed("set_autocast_enabled", "enabled", enabled, 1, bool, "bool")
    else:
        device_type = _autocast_type(device_type, "set_autocast_enabled", False)
        _typed("set_autocast_enabled", "enabled", enabled, 2, bool, "bool")
    _st.ENABLED[device_type] = enabled
    _st.refresh()


def get_autocast_dtype(device_type=None):
    """Mirrors `torch.get_autocast_dtype`: the lower-precision dtype autocast uses there."""
    if device_type is None:
        raise TypeError('get_autocast_dtype() missing 1 required positional arguments: '
                        '"device_type"')
    return _st.DTYPE[_autocast_type(device_type, "get_autocast_dtype", True)]


def set_autocast_dtype(device_type, dtype):
    """Mirrors `torch.set_autocast_dtype`."""
    t = _autocast_type(device_type, "set_autocast_dtype", True)
    _typed("set_autocast_dtype", "dtype", dtype, 2, _dt.dtype, "torch.dtype")
    _st.DTYPE[t] = dtype


def is_autocast_cache_enabled():
    return _st.CACHE_ENABLED[0]


def set_autocast_cache_enabled(enabled):
    _typed("set_autocast_cache_enabled", "enabled", enabled, 1, bool, "bool")
    _st.CACHE_ENABLED[0] = enabled


def clear_autocast_cache():
    """Drops the lower-precision copies of weights cached inside autocast regions."""
    _st.CACHE.clear()


def autocast_increment_nesting():
    _st.NESTING[0] += 1
    return _st.NESTING[0]


def autocast_decrement_nesting():
    _st.NESTING[0] -= 1
    return _st.NESTING[0]


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def _per_backend(backend, torch_name):
    """The deprecated `torch.{is,set}_autocast_<backend>_enabled` / `{get,set}_..._dtype`."""
    def is_enabled():
        _deprecated(f"is_autocast_{torch_name}_enabled()", f"is_autocast_enabled('{backend}')")
        return is_autocast_enabled(backend)

    def set_enabled(enabled):
        _deprecated(f"set_autocast_{torch_name}_enabled(enabled)",
                    f"set_autocast_enabled('{backend}', enabled)")
        set_autocast_enabled(backend, enabled)

    def get_dtype():
        _deprecated(f"get_autocast_{torch_name}_dtype()", f"get_autocast_dtype('{backend}')")
        return get_autocast_dtype(backend)

    def set_dtype(dtype):
        _deprecated(f"set_autocast_{torch_name}_dtype(dtype)",
                    f"set_autocast_dtype('{backend}', dtype)")
        set_autocast_dtype(backend, dtype)
    out = {}
    for fn, name in ((is_enabled, f"is_autocast_{torch_name}_enabled"),
                     (set_enabled, f"set_autocast_{torch_name}_enabled"),
                     (get_dtype, f"get_autocast_{torch_name}_dtype"),
                     (set_dtype, f"set_autocast_{torch_name}_dtype")):
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Mirrors `torch.{name}` (deprecated in PyTorch)."
        out[name] = fn
    return out


# PyTorch has the gpu spelling only for the dtype getter/setter
DEPRECATED = {**_per_backend("cpu", "cpu"), **_per_backend("ipu", "ipu"),
              **_per_backend("xla", "xla")}
DEPRECATED.update({k: v for k, v in _per_backend("cuda", "gpu").items() if "dtype" in k})

# the names `import torch` has at top level
TORCH_NAMES = dict(
    DEPRECATED, is_autocast_enabled=is_autocast_enabled,
    set_autocast_enabled=set_autocast_enabled, get_autocast_dtype=get_autocast_dtype,
    set_autocast_dtype=set_autocast_dtype, is_autocast_cache_enabled=is_autocast_cache_enabled,
    set_autocast_cache_enabled=set_autocast_cache_enabled,
    clear_autocast_cache=clear_autocast_cache,
    autocast_increment_nesting=autocast_increment_nesting,
    autocast_decrement_nesting=autocast_decrement_nesting)
