"""Copies and conversions: `clone`, `copy_`, `to`, `type`, `float()`/`long()`/..., `cpu`/`cuda`,
`fill_`, `zero_`, `resize_`, `type_as`."""
import functools

import jax
import jax.numpy as jnp
import numpy as np

from .._core.tracing import tracing

from .._core import buckets, programs
from .._core import device_asserts as _device_asserts
from .._core import device as dev
from .._core import dtype as dt
from .._core import formats as fmt
from .._core import frames
from .._core import layout
from .._core.casting import cast
from .._core.grad_state import differentiable
from .._core.tensor import Tensor, wrap
from .creation import relayout
from .registry import check_no_partial_overlap, FUNCTIONS, METHODS, OPS, publish, _check_broadcast


def _register(fn, name=None, method=True, function=False):
    return publish(fn, name, method=method, function=function)


def _reshape_copy(input, size):
    return wrap(_reshape_kernel(input._value(), size), input.device, input.dtype)


def _reshape_kernel(a, size):
    return _reshape_jit(size)(a)


_RESHAPES = {}


def _reshape_jit(size):
    f = _RESHAPES.get(size)
    if f is None:
        f = _RESHAPES[size] = programs.jit(lambda a: a.reshape(size), ("reshape", size))
    return f


def _identity(a):
    return a


def clone(input, *, memory_format=None):
    """Mirrors `torch.clone`: a new storage with the same values, laid out as `memory_format`
    asks (by default a dense layout keeps its strides); differentiable (the copy is then
    contiguous)."""
    if differentiable(input):
        from ..autograd.function import apply_jax
        return apply_jax(_identity, [input], "CloneBackward0")[0]
    keep = _format_strides(input, memory_format)
    if keep is not None:
        return relayout(input, keep)
    padded = buckets.read(input)
    if padded is not None:   # a padded storage: the copy keeps the padding
        return buckets.padded_tensor(padded[0], input._size, input.device, padded[1])
    return wrap(input._value(), input.device, input.dtype)


def _format_strides(t, memory_format):
    """The strides a copy of `t` in `memory_format` takes, or None for row-major ones."""
    if memory_format is None or memory_format is fmt.preserve_format:
        if t._natural or layout.is_contiguous(t._size, t._stride):
            return None
        return fmt.dense_strides(t._size, t._stride)
    order = fmt.dim_order(memory_format, len(t._size))
    return order and fmt.strides_for(t._size, order)


def _to_device_array(a, d):
    if isinstance(a, (np.ndarray, np.generic)):
        return dev.transfer(a, dev.jax_device(d))
    return jax.device_put(a, dev.jax_device(d))


def _warn_complex_to_real():
    """PyTorch's warning for a complex-to-real copy: once per process, at the user's line."""
    frames.warn("Casting complex values to real discards the imaginary part (Triggered "
                "internally at /__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)",
                once=True)


def _convert(self, dtype=None, device=None, copy=False):
    """The one conversion path behind `to`, `type`, `float()`, `cpu()`, `cuda()`, ..."""
    d = dev.canonical(device) if device is not None else self.device
    dtype = dtype or self.dtype
    if not copy and dtype is self.dtype and d == self.device:
        return self
    if dtype is not self.dtype and self.dtype.is_complex and not dtype.is_complex:
        _warn_complex_to_real()
    if differentiable(self) and (dtype.is_floating_point or dtype.is_complex):
        from ..autograd.function import apply_jax
        return apply_jax(_to_fn(dtype, d), [self], "ToCopyBackward0", device=d)[0]
    out = wrap(_to_fn(dtype, d)(self._value()), d, dtype)
    keep = _format_strides(self, None)  # a dense layout is kept (preserve_format)
    return out if keep is None else relayout(out, keep)


@functools.lru_cache(maxsize=None)
def _to_fn(dtype, d):
    """The conversion of one array to `dtype` on device `d` (a cast kernel, then a transfer)."""
    def to(a):
        if a.dtype != dtype.np:
            if a.dtype.kind == "c" and dtype.np.kind != "c":
                a = jnp.real(a)
            a = _cast_kernel(dtype)(a)
        if d.type == "cpu" and _on_gpu(a):
            _device_asserts.check()   # a copy to the host waits for the device anyway
            return _to_device_array(a, d)
        return _to_device_array(a, d) if d.type != "cpu" else a
    return to


def _on_gpu(a):
    from .._core.device import gpus
    return bool(gpus()) and a.devices() != {dev.cpu_jax_device()}


_CASTS = {}


def _cast_kernel(d):
    f = _CASTS.get(d)
    if f is None:
        f = _CASTS[d] = programs.jit(lambda a: cast(a, d.np), ("cast", d))
    return f


def _parse_to(args, kwargs):
    dtype = kwargs.pop("dtype", None)
    if dtype is not None and type(dtype) is not dt.dtype:
        if type(dtype) is not type or dtype not in dt.PY_TYPES:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"(dtype={type(dtype).__name__}, )")
        dtype = dt.PY_TYPES[dtype]
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    memory_format = kwargs.pop("memory_format", None)
    for a in args:
        if isinstance(a, dt.dtype):
            dtype = a
        elif type(a) is type and a in dt.PY_TYPES:  # `t.to(float)`: Python types are dtypes to PyTorch's parser
            dtype = dt.PY_TYPES[a]
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, dev.device, int)) and not isinstance(a, bool):
            device = a
        elif isinstance(a, bool):
            pass
        elif a is None:
            pass
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({type(a).__name__})")
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return dtype, device, copy, memory_format


def to(self, *args, **kwargs):
    """Mirrors `Tensor.to(dtype | device | other, ...)`: `self` when nothing changes."""
    dtype, device, copy, memory_format = _parse_to(args, dict(kwargs))
    out = _convert(self, dtype, device, copy)
    if memory_format is None or memory_format is fmt.preserve_format:
        return out
    keep = _format_strides(out, memory_format)
    if keep is None:  # contiguous_format
        return out.contiguous()
    return out if out._stride == keep else relayout(out, keep)


def cpu(self, memory_format=None):
    return to(self, "cpu", memory_format=memory_format)


def cuda(self, device=None, non_blocking=False, memory_format=None):
    """Mirrors `Tensor.cuda` (an int index means that CUDA device, as `torch.device(int)`)."""
    return to(self, "cuda" if device is None else device, memory_format=memory_format)


_TYPE_NAMES = {d._tensor_type: d for d in dt.ALL if d._tensor_type}


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """Mirrors `Tensor.type`: the type string, or a converted tensor."""
    if dtype is None:
        prefix = "torch.cuda." if self.is_cuda else "torch."
        return prefix + self.dtype._tensor_type
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        cuda = ".cuda." in dtype
        if name not in _TYPE_NAMES:
            raise ValueError(f"invalid type: '{dtype}'")
        target = _TYPE_NAMES[name]
    elif isinstance(dtype, type) and hasattr(dtype, "_dtype"):
        target, cuda = dtype._dtype, dtype._device == "cuda"
    elif isinstance(dtype, type):  # `t.type(float)`: PyTorch takes no Python type here
        raise ValueError(f"invalid type: '{_type_name(dtype)}'")
    elif not isinstance(dtype, dt.dtype):
        raise TypeError("dtype must be a type, str, or dtype object")
    else:
        return _convert(self, dtype)
    if cuda and not dev.gpus():
        raise dev.no_aten_cuda_error()
    return _convert(self, target, "cuda" if cuda else None)


def _type_name(cls):
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


def type_as(self, other):
    return _convert(self, other.dtype, other.device)


def _dtype_method(name, d):
    def m(self, memory_format=None):
        return to(self, d, memory_format=memory_format)
    m.__name__ = name
    m.__doc__ = f"Mirrors `Tensor.{name}`: `self.to(torch.{d.name}, memory_format=...)`."
    return m


for _name, _d in (("float", dt.float32), ("double", dt.float64), ("half", dt.float16),
                  ("bfloat16", dt.bfloat16), ("long", dt.int64), ("int", dt.int32),
                  ("short", dt.int16), ("char", dt.int8), ("byte", dt.uint8), ("bool", dt.bool_),
                  ("cfloat", dt.complex64), ("cdouble", dt.complex128)):
    _register(_dtype_method(_name, _d))

_register(clone, function=True)
_register(to)
_register(cpu)
_register(cuda)
_register(type_, "type")
_register(type_as)


def _needs_autograd(self, src=None):
    return differentiable(self, src if isinstance(src, Tensor) else None)


@functools.lru_cache(maxsize=None)
def _copy_fn(size, npd):
    def copy(dst, src):
        if src.dtype.kind == "c" and npd.kind != "c":
            src = jnp.real(src)
        return jnp.broadcast_to(cast(src, npd), size)
    return copy


@functools.lru_cache(maxsize=None)
def _fill_fn(size, npd):
    return lambda dst, v: jnp.full(size, _convert_scalar(v, npd), npd)


def copy_(self, src, non_blocking=False):
    """Mirrors `Tensor.copy_`: broadcast `src` into `self`, any dtype conversion allowed."""
    if _needs_autograd(self, src) and isinstance(src, Tensor):
        _check_broadcast((self._size, src._size))
        from ..autograd.inplace import inplace_apply
        return inplace_apply(self, "CopyBackwards", _copy_fn(self._size, self.dtype.np), [src])
    if isinstance(src, Tensor):
        _check_broadcast((self._size, src._size))
        check_no_partial_overlap(self, (src,))
        if layout.numel(src._size) and len(src._size) > len(self._size) or any(
                b != 1 and b != a for a, b in zip(self._size[::-1], src._size[::-1])):
            raise RuntimeError(f"output with shape {list(self._size)} doesn't match the "
                               f"broadcast shape {list(_check_broadcast((self._size, src._size)))}")
        a = src._value()
        if src.dtype is not self.dtype:
            if src.dtype.is_complex and not self.dtype.is_complex:
                _warn_complex_to_real()
                a = jnp.real(a)
            a = _cast_kernel(self.dtype)(a)
        if src.device != self.device:
            a = _to_device_array(a, self.device)
        if a.shape != self._size:
            a = _broadcast_kernel(self._size)(a)
    else:
        a = _full_array(self, src)
    self._assign(a)
    return self


_BCAST = {}


def _broadcast_kernel(size):
    f = _BCAST.get(size)
    if f is None:
        f = _BCAST[size] = programs.jit(lambda a: jnp.broadcast_to(a, size),
                                          ("broadcast", size))
    return f


_FILLS = {}


def _full_array(self, value):
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        value = value._value()
    elif not tracing():  # a 0-d array on the tensor's device, cached: no copy per call
        from .registry import _NP_SCALAR, _accelerator_scalar
        v = value.item() if isinstance(value, np.generic) else value
        if type(v) in _NP_SCALAR:
            value = _accelerator_scalar(v, self._st.device)
    key = (self._size, self.dtype)
    f = _FILLS.get(key)
    if f is None:
        size, npd = self._size, self.dtype.np
        f = _FILLS[key] = programs.jit(lambda v: jnp.full(size, _convert_scalar(v, npd), npd),
                                       ("fill", key))
    return f(value)


def _convert_scalar(v, npd):
    return cast(jnp.asarray(v), npd)


def fill_(self, value):
    """Mirrors `Tensor.fill_` (the value is traced: no recompile per value)."""
    if not isinstance(value, Tensor):
        dt.check_scalar_fits(value, self.dtype, self.numel())
    return fill_unchecked(self, value)


def fill_unchecked(self, value):
    """`fill_` for a value already converted as PyTorch does (`t[i] = v` checks it once, as
    the one-element tensor PyTorch makes of it)."""
    if _needs_autograd(self, value):
        from ..autograd.inplace import inplace_apply
        if isinstance(value, Tensor) and value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        return inplace_apply(self, "FillBackward3" if isinstance(value, Tensor) else
                             "FillBackward2", _fill_fn(self._size, self.dtype.np), [value])
    self._assign(_full_array(self, value), uniform=True)
    return self


def zero_(self):
    """Mirrors `Tensor.zero_`."""
    if _needs_autograd(self):
        from ..autograd.inplace import inplace_apply
        return inplace_apply(self, "ZeroBackward0", _fill_fn(self._size, self.dtype.np), [0])
    self._assign(_full_array(self, 0), uniform=True)
    return self


def resize_(self, *size, memory_format=None):
    """Mirrors `Tensor.resize_`: keeps the data prefix, grows the storage when needed."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    size = tuple(int(s) for s in size)
    if size == self._size:
        return self
    n = layout.numel(size)
    st = self._st
    need = self._offset + n
    if need > st.numel:
        if not st.resizable:
            raise RuntimeError("Trying to resize storage that is not resizable")
        old = np.asarray(st.array()).reshape(-1)
        flat = np.zeros(need, dtype=self.dtype.np)
        flat[:old.shape[0]] = old
        if st._np is not None:
            st._np = flat
            st.numel, st.shape = need, (need,)
        else:
            st._data = jnp.asarray(flat)
            st.numel, st.shape = need, (need,)
    from .views import set_layout
    set_layout(self, size, layout.contiguous_strides(size), self._offset)
    self._vc[0] += 1
    return self


def resize_as_(self, other, memory_format=None):
    """Mirrors `Tensor.resize_as_` (also `torch.resize_as_`)."""
    return resize_(self, other._size)


for _f in (copy_, fill_, zero_, resize_):
    _register(_f)
_register(resize_as_, function=True)


def _fill_function(input, value):
    return fill_(input.clone(), value)


FUNCTIONS["fill"] = _fill_function
FUNCTIONS["zero_"] = zero_
FUNCTIONS["fill_"] = fill_
