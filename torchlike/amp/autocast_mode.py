"""Mirrors `torch.amp.autocast_mode`: the `autocast` context manager / decorator and the
`custom_fwd` / `custom_bwd` helpers for custom autograd functions."""
import collections.abc
import functools
import warnings

import numpy as np

from .._core import dtype as _dt
from . import state as _state
from .state import is_autocast_available

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd",
           "custom_bwd"]


def _cuda_unavailable():
    from ..cuda.amp.common import amp_definitely_not_available
    return amp_definitely_not_available()


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """Mirrors `torch.autocast` / `torch.amp.autocast`: inside the region, ops on autocast's
    lists run in the lower-precision dtype (CPU: bfloat16 by default; float16 allowed) or in
    float32; everything else runs as usual. Usable as a context manager or a decorator."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = _state.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{self.device}'")
        self._cache_enabled = (_state.is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        if enabled:
            if self.device == "cuda":
                if _cuda_unavailable():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                                  "autocast.", stacklevel=2)
                    enabled = False
                elif self.fast_dtype == _dt.bfloat16:
                    from .. import cuda
                    if not cuda.is_bf16_supported():
                        raise RuntimeError("Current CUDA Device does not support bfloat16. "
                                           "Please switch dtype to float16.")
            elif self.fast_dtype not in (_dt.bfloat16, _dt.float16):
                name = self.device.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              f"torch.bfloat16, torch.float16 currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _state.is_autocast_cache_enabled()
        self.prev = _state.is_autocast_enabled(self.device)
        self.prev_fastdtype = _state.get_autocast_dtype(self.device)
        _state.set_autocast_enabled(self.device, self._enabled)
        _state.set_autocast_dtype(self.device, self.fast_dtype)
        _state.autocast_increment_nesting()
        _state.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        # drop the cast cache when leaving the outermost autocast region
        if _state.autocast_decrement_nesting() == 0:
            _state.clear_autocast_cache()
        _state.set_autocast_enabled(self.device, self.prev)
        _state.set_autocast_dtype(self.device, self.prev_fastdtype)
        _state.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")
        return autocast_decorator(self, func)


def _cast(value, device_type, dtype):
    """Casts the eligible floating tensors in `value` (recursing into containers)."""
    from .._core.tensor import Tensor
    if isinstance(value, Tensor):
        eligible = (value.is_floating_point() and value.device.type == device_type
                    and value.dtype is not _dt.float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Mirrors `torch.amp.custom_fwd`: decorates a custom autograd Function's `forward`; with
    `cast_inputs`, inside an autocast region its floating inputs are cast to that dtype and it
    runs with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = _state.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = _state.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = _state.is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Mirrors `torch.amp.custom_bwd`: `backward` runs under the autocast state `forward` saw."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
