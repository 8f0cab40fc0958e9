"""Creation ops: `tensor`, `as_tensor`, `from_numpy`, `zeros`/`ones`/`full`/`empty` (+ `_like`,
`new_*`), `arange`, `linspace`, `logspace`, `eye`, `tril_indices`/`triu_indices`, and the
legacy constructors (`torch.Tensor(2, 3)`, `torch.FloatTensor`, ...).

Constant data is built with NumPy and placed on the device, so a new shape compiles nothing.
"""
import builtins
import functools
import math
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import device as dev
from .._core import dtype as dt
from .._core import formats as fmt
from .._core import frames
from .._core.device import CPU
from .._core.grad_state import ENABLED as _GRAD
from .._core.size import Size
from .._core.storage import Storage, TypedStorage, UntypedStorage
from .._core import buckets, programs
from .._core.tensor import Tensor, _new, wrap
from .registry import publish, takes_dtype


def _register(fn, name=None, method=False, function=True):
    return publish(fn, name, method=method, function=function, dtype_arg=True)


def place(np_array, device=None):
    """A JAX array on the torch `device` holding `np_array`'s values (always a copy)."""
    d = dev.canonical(device) or CPU
    # device_put compiles nothing (jnp.array(..., copy=True) compiles a copy kernel per shape);
    # the NumPy copy keeps the new tensor from aliasing a caller's array
    return dev.transfer(np.array(np_array, copy=True), dev.jax_device(d)), d


def finish(array, dtype, device, requires_grad):
    """Wrap a placed array as a new tensor with PyTorch's creation keywords applied."""
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    t = wrap(array, device, dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def from_np(a, dtype=None, device=None, requires_grad=False):
    """A new tensor holding NumPy array `a` (cast to `dtype`)."""
    dtype = dtype or _np_dtype(a.dtype)
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    a = np.asarray(a, dtype=dtype.np)
    if requires_grad or not a.ndim:
        arr, d = place(a, device)
        return finish(arr, dtype, d, requires_grad)
    d = dev.canonical(device) or CPU
    return buckets.settle_host(a, lambda h: place(h, d)[0], d)


def _size_args(size, name="empty", varargs=True):
    """PyTorch's parsing of a `*size` (or `size`) argument, with its error messages."""
    if varargs and not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
        varargs = False
    elif len(size) == 1 and not isinstance(size[0], (int, np.integer, Tensor)):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size[0]).__name__}")
    out = []
    for s in size:
        if isinstance(s, Tensor) and s.numel() == 1 and not s.is_floating_point():
            s = s.item()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            if varargs or name != "full":
                raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                                f"{len(out) + 1} with error \"type must be tuple of ints,but got "
                                f"{type(s).__name__}\"")
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, but "
                            f"found element of type {type(s).__name__} at pos {len(out)}")
        out.append(int(s))
    for s in out:
        if s < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {out}")
    return tuple(out)


# ---- data → tensor -------------------------------------------------------------------------

def _scalar_type(x):
    """PyTorch's `infer_scalar_type` for one Python/NumPy/Tensor object (sequences promote)."""
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, (np.ndarray, np.generic)):
        return _np_dtype(x.dtype)
    if isinstance(x, bool):
        return dt.bool_
    if isinstance(x, numbers.Integral):
        return dt.int64
    if isinstance(x, numbers.Real):
        return dt.get_default_dtype()
    if isinstance(x, numbers.Complex):
        return dt.default_complex()
    if isinstance(x, str):
        raise TypeError("new(): invalid data type 'str'")
    if _is_seq(x):
        r = None
        for y in x:
            d = _scalar_type(y)
            r = d if r is None else dt.promote_types(r, d)
            if r is dt.complex128:
                break
        return dt.get_default_dtype() if r is None else r
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _infer_dtype(data):
    """PyTorch's dtype inference for nested Python data."""
    return _scalar_type(data)


def _is_seq(x):
    return isinstance(x, (list, tuple, builtins.range)) or (isinstance(x, np.ndarray) and x.ndim > 0)


def _np_dtype(npd):
    d = dt._BY_NP.get(np.dtype(npd))
    if d is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(npd).type.__name__}. The only "
            "supported types are: float64, float32, float16, complex64, complex128, int64, "
            "int32, int16, int8, uint64, uint32, uint16, uint8, and bool.")
    return d


def _data_shape(data):
    """PyTorch's `compute_sizes`: follow the first element down."""
    shape = []
    x = data
    while _is_seq(x):
        n = len(x)
        shape.append(n)
        if n == 0:
            break
        x = x[0]
        if isinstance(x, str):
            raise ValueError("too many dimensions 'str'")
    return shape


def _leaf(x, target):
    if isinstance(x, Tensor):
        if x.numel() != 1:
            if target.category <= 1 and not x.dtype.is_floating_point:
                raise TypeError("only integer tensors of a single element can be converted to "
                                "an index")
            raise ValueError("only one element tensors can be converted to Python scalars")
        return x.item()
    if _is_seq(x):
        if isinstance(x, np.ndarray) and x.size == 1:
            return x.item()
        if target.category == 1 or target is dt.bool_:
            raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer")
        raise TypeError(f"must be real number, not {type(x).__name__}")
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, builtins.complex) and target.category < 3:
        raise TypeError("must be real number, not complex")
    return x


def _flatten(data, shape, target):
    """Leaves of `data` in order, checking every level against `shape`."""
    out = []
    ndim = len(shape)

    def store(x, d):
        if d == ndim:
            out.append(_leaf(x, target))
            return
        if not _is_seq(x):
            raise TypeError("not a sequence")
        if d and type(x) is np.ndarray:
            frames.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. "
                        "Please consider converting the list to a single numpy.ndarray with "
                        "numpy.array() before converting to a tensor. (Triggered internally "
                        "at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)",
                        once=True)
        if len(x) != shape[d]:
            raise ValueError(f"expected sequence of length {shape[d]} at dim {d} "
                             f"(got {len(x)})")
        for y in x:
            store(y, d + 1)
    store(data, 0)
    return out


def _to_array(data, target):
    """A NumPy array of `target`'s dtype holding nested `data`, with PyTorch's errors."""
    shape = _data_shape(data)
    flat = _flatten(data, shape, target)
    if target.is_complex:
        return np.array(flat, dtype=target.np).reshape(shape)
    if target.category == 2:
        with np.errstate(over="ignore"):  # out-of-range values become inf, silently as in torch
            return np.array(flat, dtype=np.float64).astype(target.np).reshape(shape)
    if target is dt.bool_:
        return np.array([bool(v) for v in flat], dtype=np.bool_).reshape(shape)
    vals = []
    info = np.iinfo(target.np)
    for v in flat:
        if isinstance(v, int):
            if not -(1 << 63) <= v < (1 << 63):
                raise ValueError("Overflow when unpacking long long")
            if v > info.max or (target.is_signed and v < info.min):
                raise RuntimeError(f"value cannot be converted to type {target.name} without "
                                   "overflow")
        else:
            f = float(v)
            if math.isnan(f) or not info.min <= math.trunc(f) <= info.max and target.is_signed:
                raise RuntimeError(f"value cannot be converted to type {target.name} without "
                                   "overflow")
            v = math.trunc(f)
        vals.append(v)
    a = np.array(vals, dtype=np.int64 if target is not dt.uint64 else np.uint64)
    return a.astype(target.np).reshape(shape)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Mirrors `torch.tensor`: always copies `data`."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=3)
        out = data.detach().to(dtype=dtype or data.dtype,
                               device=device if device is not None else data.device, copy=True)
        if requires_grad:
            out.requires_grad_(True)
        return out
    if isinstance(data, np.ndarray):
        return from_np(data, dtype, device, requires_grad)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    _data_shape(data)
    target = dtype or _infer_dtype(data)
    return from_np(_to_array(data, target), target, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Mirrors `torch.as_tensor`: reuses `data` when no conversion is needed."""
    if isinstance(data, Tensor):
        if (dtype is None or dtype is data.dtype) and (device is None or
                                                       dev.canonical(device) == data.device):
            return data
        return data.to(dtype=dtype or data.dtype, device=device or data.device)
    if isinstance(data, np.ndarray) and (device is None or dev.canonical(device).type == "cpu"):
        t = from_numpy(data)
        return t if dtype is None or dtype is t.dtype else t.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def _over_bytes(flat, dtype, device):
    """A 1-D tensor of `dtype` over the flat uint8 NumPy buffer `flat` (shared)."""
    n = flat.size // dtype.itemsize
    arr = flat[:n * dtype.itemsize].view(dtype.np)
    st = Storage.from_numpy_flat(arr, dtype, device, resizable=False)
    return _wrap_storage(st, (n,))


def _wrap_storage(st, size):
    return _new(Tensor, st, size, (1,), 0, [0], None)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Mirrors `torch.asarray` (a storage is read as a buffer: its bytes as `dtype`, int64 for
    an untyped storage without one, sharing memory)."""
    if isinstance(obj, (UntypedStorage, TypedStorage)):
        d = dtype if dtype is not None else (
            obj.dtype if isinstance(obj, TypedStorage) else dt.int64)
        t = _over_bytes(UntypedStorage(obj._st)._bytes(), d, obj.device)
        if device is not None and t.device != dev.canonical(device):
            t = t.to(device)
        return t.requires_grad_(True) if requires_grad else t
    if copy:
        t = tensor(obj, dtype=dtype, device=device) if not isinstance(obj, Tensor) else \
            obj.to(dtype=dtype or obj.dtype, device=device or obj.device, copy=True)
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """Mirrors `torch.frombuffer`: a 1-D tensor sharing the memory of an object with the
    buffer protocol."""
    view = memoryview(buffer).cast("B")
    length = view.nbytes
    item = dtype.itemsize
    if length == 0 and count == -1 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < max(length, 1) and not (length == 0 and offset == 0):
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % item:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({item})")
        count = (length - offset) // item
    elif offset + count * item > length:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    if view.readonly:
        frames.warn("The given buffer is not writable, and PyTorch does not support "
                    "non-writable tensors. This means you can write to the underlying "
                    "(supposedly non-writable) buffer using the tensor. You may want to copy "
                    "the buffer to protect its data or make it writable before converting it "
                    "to a tensor. This type of warning will be suppressed for the rest of this "
                    "program.", once=True)
    flat = np.frombuffer(view, np.uint8, count * item, offset)
    t = _over_bytes(flat, dtype, CPU)
    return t.requires_grad_(True) if requires_grad else t


def from_numpy(ndarray):
    """Mirrors `torch.from_numpy`: the tensor and the array share memory."""
    if not isinstance(ndarray, np.ndarray):
        t = type(ndarray)
        name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
        raise TypeError(f"expected np.ndarray (got {name})")
    d = _np_dtype(ndarray.dtype)
    item = ndarray.itemsize
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")
    if any(s % item for s in ndarray.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    if not ndarray.flags.writeable:
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support "
                      "non-writable tensors. This means writing to this tensor will result in "
                      "undefined behavior. You may want to copy the array to protect its data or "
                      "make it writable before converting it to a tensor. This type of warning "
                      "will be suppressed for the rest of this program.", UserWarning,
                      stacklevel=2)
    stride = tuple(s // item for s in ndarray.strides)
    span = 1 + sum((n - 1) * s for n, s in zip(ndarray.shape, stride)) if ndarray.size else 0
    flat = np.lib.stride_tricks.as_strided(ndarray, (span,), (item,))
    st = Storage.from_numpy_flat(flat, d, CPU, resizable=False)
    return _new(Tensor, st, tuple(ndarray.shape), stride, 0, [0], None)


def tensor_from_numpy_copy(a, dtype_name, requires_grad):
    """Unpickling helper for `Tensor.__reduce_ex__`."""
    return from_np(np.asarray(a), dt._BY_NAME[dtype_name], None, requires_grad)


# ---- filled tensors ----------------------------------------------------------------------------

def _filled(size, value, dtype, device, requires_grad):
    dt.check_scalar_fits(value, dtype, math.prod(size))
    if isinstance(value, int) and dtype is not dt.bool_:
        value = np.array(value).astype(dtype.np)  # a negative fill wraps into an unsigned dtype
    elif not isinstance(value, numbers.Real) and not dtype.is_complex:  # a complex number
        value = value.real
    d = dev.canonical(device) or CPU
    with np.errstate(over="ignore"):  # float16/bfloat16 one-element fills may become inf
        if d is not CPU and d.type != "meta" and math.prod(size) * dtype.itemsize >= _ON_DEVICE:
            v = dev.transfer(np.array(value, dtype=dtype.np), dev.jax_device(d))
            return finish(_broadcast_kernel(tuple(size))(v), dtype, d, requires_grad)
        a = np.full(size, value, dtype=dtype.np)
    arr, d = place(a, device)
    return finish(arr, dtype, d, requires_grad)


_ON_DEVICE = 1 << 16   # bytes from which an accelerator fills a tensor itself


@functools.lru_cache(maxsize=None)
def _broadcast_kernel(size):
    """A 0-d value broadcast to `size` on the value's device: a fill on an accelerator costs a
    kernel, not a host-to-device copy of every element."""
    return programs.jit(lambda v: jnp.broadcast_to(v, size), ("creation.fill", size))


def _out_or(t, out):
    if out is None:
        return t
    out.resize_(t._size)
    out.copy_(t)
    return out


def _fill_dtype(value):
    if isinstance(value, bool):
        return dt.bool_
    if isinstance(value, numbers.Integral):
        return dt.int64
    if isinstance(value, builtins.complex):
        return dt.default_complex()
    return dt.get_default_dtype()


def relayout(t, stride):
    """A new tensor holding `t`'s values laid out with the dense strides `stride`
    (channels-last and preserve-format copies): its own storage, or, where `t` needs a
    gradient, a view of a differentiable copy in that order."""
    order = fmt.order_of(stride)
    if t._requires_grad and _GRAD[0]:
        inverse = tuple(sorted(builtins.range(len(order)), key=order.__getitem__))
        return t.permute(order).contiguous().permute(inverse)
    arr = jnp.transpose(t._value(), order)
    return _new(Tensor, Storage(arr, t.dtype, t.device), t._size, tuple(stride), 0, [0], None)


def _like(input, value, dtype, device, requires_grad, memory_format):
    """The `*_like` creators: same size; strides kept for dense inputs (preserve_format)."""
    dtype = dtype or input.dtype
    device = device if device is not None else input.device
    if memory_format is None or memory_format is fmt.preserve_format:
        keep = fmt.dense_strides(input._size, input._stride)
    else:
        order = fmt.dim_order(memory_format, len(input._size))
        keep = order and fmt.strides_for(input._size, order)
    if keep is None:
        return _filled(input._size, value, dtype, device, requires_grad)
    order = fmt.order_of(keep)
    base = _filled(tuple(input._size[i] for i in order), value, dtype, device, False)
    t = base.as_strided(input._size, keep)
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    if requires_grad:
        t.requires_grad_(True)
    return t


def _make_filled(name, value):
    def creator(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=False, memory_format=None, **kw):
        if "size" in kw and not size:
            size = (kw.pop("size"),)
        if kw:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
        size = _size_args(size, name)
        t = _filled(size, value, dtype or dt.get_default_dtype(), device, requires_grad)
        if memory_format is not None:
            if name != "empty":  # only `torch.empty` takes a memory format
                raise TypeError(f"{name}() got an unexpected keyword argument 'memory_format'")
            order = fmt.dim_order(memory_format, len(size))
            t = relayout(t, fmt.strides_for(size, order)) if order else t
        return _out_or(t, out)
    creator.__name__ = creator.__qualname__ = name
    creator.__doc__ = f"Mirrors `torch.{name}`."

    def like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None, pin_memory=False):
        return _like(input, value, dtype, device, requires_grad, memory_format)
    like.__name__ = like.__qualname__ = name + "_like"
    like.__doc__ = f"Mirrors `torch.{name}_like`."

    def new(self, *size, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False):
        return _filled(_size_args(size, "new_" + name), value, dtype or self.dtype,
                       device if device is not None else self.device, requires_grad)
    new.__name__ = new.__qualname__ = "new_" + name
    new.__doc__ = f"Mirrors `Tensor.new_{name}`."
    _register(creator)
    _register(like)
    _register(new, method=True, function=False)


_make_filled("zeros", 0)
_make_filled("ones", 1)
_make_filled("empty", 0)


@_register
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Mirrors `torch.full`: the dtype follows `fill_value` when not given."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    return _out_or(_filled(_size_args((size,), "full", False), fill_value,
                           dtype or _fill_dtype(fill_value),
                           device, requires_grad), out)


@_register
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """Mirrors `torch.full_like`."""
    return _like(input, fill_value, dtype, device, requires_grad, memory_format)


@_register
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """Mirrors `torch.empty_strided` (zero-filled)."""
    size, stride = tuple(size), tuple(stride)
    n = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = _filled((n,), 0, dtype or dt.get_default_dtype(), device, requires_grad)
    return base.as_strided(size, stride)


def new_full(self, size, fill_value, *, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """Mirrors `Tensor.new_full`."""
    return _filled(_size_args((size,), "new_full", False), fill_value, dtype or self.dtype,
                   device if device is not None else self.device, requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """Mirrors `Tensor.new_tensor`."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=3)
        return data.detach().to(dtype=dtype or self.dtype, device=device or self.device,
                                copy=True).requires_grad_(requires_grad)
    return tensor(data, dtype=dtype or self.dtype,
                  device=device if device is not None else self.device,
                  requires_grad=requires_grad)


def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad=False, pin_memory=False):
    return empty_strided(size, stride, dtype=dtype or self.dtype,
                         device=device if device is not None else self.device,
                         requires_grad=requires_grad)


@_register
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """Mirrors `torch.scalar_tensor`: a 0-dim tensor (default float dtype)."""
    return _filled((), _num(s), dtype or dt.get_default_dtype(), device, requires_grad)


_FLOATS = ("float16", "float32", "float64")


def _complex_check(real, imag):
    if real.name not in _FLOATS or imag.name not in _FLOATS:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_short(real)} and {_short(imag)}")
    if real is not imag:
        raise RuntimeError(f"Expected object of scalar type {_short(real)} but got scalar "
                           f"type {_short(imag)} for second argument")


def _out_complex(args, res, out):
    """`complex`/`polar`'s `out=`: exactly the result's dtype, with PyTorch's message."""
    want = dt._BY_NP[res.dtype]
    if isinstance(out, Tensor) and out.dtype is not want:
        raise RuntimeError(f"Expected object of scalar type {_short(want)} but got scalar type "
                           f"{_short(out.dtype)} for argument 'out'")


def _short(d):
    from .registry import short_name
    return short_name(d)


def _parts(a, b):
    """Both operands broadcast, in float32 or float64 (a float16 pair makes complex64 here:
    torchlike has no complex32)."""
    a, b = jnp.broadcast_arrays(a, b)
    f = jnp.float64 if a.dtype == jnp.float64 else jnp.float32
    return a.astype(f), b.astype(f)


def _complex_rows():
    from .registry import op
    from .pointwise import _strict

    @op(tensors=("real", "imag"), promote=None, method=False, pointwise=True,
        check=_complex_check, family="creation", out=_out_complex)
    def complex(real, imag):
        """Mirrors `torch.complex`."""
        return jax.lax.complex(*_parts(real, imag))

    @op(tensors=("abs", "angle"), promote=None, method=False, pointwise=True,
        check=_complex_check, family="creation", out=_out_complex)
    def polar(abs, angle):
        """Mirrors `torch.polar`."""
        r, th = _parts(abs, angle)
        return jax.lax.complex(r * jnp.cos(th), r * jnp.sin(th))

    _strict("complex", bad=("real", "imag"))
    _strict("polar", bad=("abs", "angle"))


_complex_rows()


for _f in (new_full, new_tensor, new_empty_strided):
    _register(_f, method=True, function=False)
for _f in (tensor, as_tensor, asarray, from_numpy, frombuffer):
    _register(_f)


# ---- ranges --------------------------------------------------------------------------------------

def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def _gfmt(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


@_register
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """Mirrors `torch.arange`: int64 for integer arguments, else the default float dtype."""
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not all(math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {_gfmt(start)} -> {_gfmt(end)}")
    if dtype is None:
        floaty = any(isinstance(v, float) for v in (start, end, step))
        dtype = dt.get_default_dtype() if floaty else dt.int64
        if isinstance(out, Tensor) and out.dtype.category == 1:
            dtype = out.dtype  # the range is computed in the integer type written
    if dtype is dt.bool_ or dtype.is_complex:
        raise NotImplementedError(f'"arange_cpu" not implemented for \'{_short(dtype)}\'')
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = math.ceil((end - start) / step)
    if dtype.category == 1 and any(isinstance(v, float) for v in (start, end, step)):
        # an integer range takes start and step truncated to integers (int64: end too, and
        # its length from them)
        start, step = int(start), int(step)
        if dtype is dt.int64:
            end = int(end)
            if step == 0:
                raise ValueError("step must be nonzero")
            sgn = (step > 0) - (step < 0)
            num = end - start + step - sgn  # divided with C's truncation
            q = builtins.abs(num) // builtins.abs(step)
            n = builtins.max(0, q if (num >= 0) == (step > 0) else -q)
    a = (start + np.arange(n, dtype=np.float64 if dtype.category >= 2 or
                           any(isinstance(v, float) for v in (start, end, step)) else np.int64)
         * step)
    return _out_or(from_np(a.astype(dtype.np), dtype, device, requires_grad), out)


@_register
def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Mirrors the deprecated `torch.range` (end inclusive, default float dtype)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=3)
    dtype = dtype or dt.get_default_dtype()
    n = int(math.floor((end - start) / step)) + 1
    a = start + np.arange(n, dtype=np.float64) * step
    return _out_or(from_np(a.astype(dtype.np), dtype, device, requires_grad), out)


def _linspace_np(start, end, steps, npdt):
    """PyTorch's CPU linspace: from both ends toward the middle, in the output dtype."""
    if steps == 1:
        return np.array([start], dtype=npdt)
    work = npdt if np.issubdtype(npdt, np.inexact) else np.float64
    s, e = np.array(start, work), np.array(end, work)
    step = (e - s) / np.array(steps - 1, work)
    i = np.arange(steps)
    half = steps // 2
    lo = s + step * i.astype(work)
    hi = e - step * (steps - i - 1).astype(work)
    out = np.where(i < half, lo, hi)
    return out.astype(npdt)


# ---- PyTorch's argument parser on linspace/logspace: their overloads (Tensor or Number start
# and end, an int `steps`), and the TypeError a call matching none raises

_SPACE_KWONLY = ("out", "dtype", "layout", "device", "pin_memory", "requires_grad")


def _parser_name(v):
    """The type name PyTorch's argument parser prints for `v`."""
    if isinstance(v, Tensor):
        return "Tensor"
    t = type(v)
    root = t.__module__.split(".")[0]
    if root in ("torch", "torchlike"):
        return "torch." + t.__name__
    return f"numpy.{t.__name__}" if root == "numpy" else t.__name__


def _space_arg_ok(name, v):
    if name in ("start", "end"):
        return isinstance(v, (Tensor, builtins.bool, int, float, builtins.complex, np.number,
                              np.bool_))
    if name == "steps":   # an int, or a 0-dim integer tensor
        if isinstance(v, Tensor):
            return v.dim() == 0 and v.dtype.category == 1
        return isinstance(v, (int, np.integer)) and not isinstance(v, builtins.bool)
    if name == "base":    # a real number
        return isinstance(v, (Tensor, builtins.bool, int, float, np.integer, np.floating,
                              np.bool_))
    if name == "out":
        return v is None or isinstance(v, Tensor)
    if name == "dtype":   # (as `takes_dtype`: Python's number types stand for dtypes)
        return v is None or isinstance(v, dt.dtype) or \
            v in (builtins.bool, int, float, builtins.complex)
    return True


def _scalar_ends(name, start, end):
    """PyTorch's check that tensor `start`/`end` are 0-dim."""
    bad = [f"{n} with {v.dim()} dimension(s)" for n, v in (("start", start), ("end", end))
           if isinstance(v, Tensor) and v.dim() != 0]
    if bad:
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got "
                           + " and ".join(bad) + ".")


def _space_checked(impl, params, forms):
    """`impl` (linspace or logspace, positional `params`) taking what PyTorch's parser takes,
    else raising its TypeError. (Its keywords are listed in the reverse of the call's order,
    which is PyTorch's for most calls: its order comes from a C++ hash map.)"""
    name = impl.__name__
    known = set(params) | set(_SPACE_KWONLY)

    def bad(args, kwargs):
        if len(args) > len(params) or not known.issuperset(kwargs):
            return True
        given = dict(zip(params, args))
        for k, v in kwargs.items():
            if k in given:
                return True
            given[k] = v
        if any(p not in given for p in params[:3]):
            return True
        return not all(_space_arg_ok(k, v) for k, v in given.items())

    @functools.wraps(impl)
    def checked(*args, **kwargs):
        if bad(args, kwargs):
            pos = ", ".join(_parser_name(a) for a in args)
            kw = [f"{k}={_parser_name(v)}" for k, v in reversed(kwargs.items())]
            got = pos + "".join(", " + k for k in kw) if args else "".join(k + ", " for k in kw)
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({got}), but expected one of:\n{forms}")
        return impl(*args, **kwargs)
    return checked


def _space_forms(extra):
    return "".join(
        f" * ({s} start, {e} end, int steps, {extra}*, Tensor out = None, torch.dtype dtype = "
        "None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
        "bool requires_grad = False)\n"
        for s, e in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                     ("Number", "Number")))


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """Mirrors `torch.linspace`."""
    _scalar_ends("linspace", start, end)
    start, end = _num(start), _num(end)
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = dtype or (dt.default_complex() if isinstance(start, builtins.complex) or
                      isinstance(end, builtins.complex) else dt.get_default_dtype())
    if dtype is dt.bool_:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    a = _linspace_np(start, end, steps, dtype.np) if steps else np.zeros(0, dtype.np)
    return _out_or(from_np(a, dtype, device, requires_grad), out)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """Mirrors `torch.logspace`."""
    _scalar_ends("logspace", start, end)
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = dtype or dt.get_default_dtype()
    if dtype is dt.bool_:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    exps = _linspace_np(_num(start), _num(end), steps, np.float64) if steps else np.zeros(0)
    a = np.power(_num(base), exps).astype(dtype.np)
    return _out_or(from_np(a, dtype, device, requires_grad), out)


# the parser's check comes first, then the dtype normalised (see `takes_dtype`)
linspace = publish(_space_checked(takes_dtype(linspace), ("start", "end", "steps"),
                                  _space_forms("")), method=False)
logspace = publish(_space_checked(takes_dtype(logspace), ("start", "end", "steps", "base"),
                                  _space_forms("float base = 10.0, ")), method=False)


@_register
def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    """Mirrors `torch.eye`."""
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dtype = dtype or dt.get_default_dtype()
    a = np.eye(n, n if m is None else m, dtype=dtype.np)
    return _out_or(from_np(a, dtype, device, requires_grad), out)


def _tri_indices(np_fn, name):
    def f(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
        dtype = dtype or dt.int64
        if dtype not in (dt.int32, dt.int64):
            raise NotImplementedError(f'"{name}" not implemented for \'{_short(dtype)}\'')
        r, c = np_fn(row, offset, col)
        return from_np(np.stack([r, c]).astype(dtype.np).reshape(2, -1), dtype, device)
    return f


_register(_tri_indices(np.tril_indices, "tril_indices"), "tril_indices")
_register(_tri_indices(np.triu_indices, "triu_indices"), "triu_indices")


# ---- legacy constructors ------------------------------------------------------------------------

def legacy_constructor(cls, args, kwargs, dtype=None):
    """`torch.Tensor(...)`, `torch.FloatTensor(...)`: sizes → uninitialised (zeros), data → copy."""
    explicit = dtype
    dtype = dtype or dt.get_default_dtype()
    device = kwargs.pop("device", None)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if explicit is None:
            return args[0]
        return args[0].to(dtype) if args[0].dtype is not dtype else args[0]
    if len(args) == 1 and isinstance(args[0], (float, bool, builtins.complex)):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)) and \
            not isinstance(args[0], Size) or (args and isinstance(args[0], (list, np.ndarray))):
        data = args[0]
        if hasattr(data, "__len__") or isinstance(data, np.ndarray):
            t = tensor(data, dtype=dtype, device=device)
            return t if cls is Tensor else t.as_subclass(cls)
    if args and isinstance(args[0], float):
        raise TypeError("new(): argument 'size' must be tuple of ints, but found element of "
                        "type float at pos 0")
    size = _size_args(args) if args else (0,)
    t = _filled(size, 0, dtype, device, False)
    return t if cls is Tensor else t.as_subclass(cls)


class _LegacyMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls._dtype and \
            obj.device.type == cls._device

    def __call__(cls, *args, **kwargs):
        if cls._device == "cuda":
            if not dev.gpus():
                raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not "
                                f"compiled with CUDA enabled.")
            kwargs.setdefault("device", "cuda")
        return legacy_constructor(Tensor, args, kwargs, cls._dtype)

    @property
    def dtype(cls):
        return cls._dtype

    @property
    def is_cuda(cls):
        return cls._device == "cuda"


def legacy_type(name, d, device="cpu"):
    """A class like `torch.FloatTensor` (isinstance checks dtype and device)."""
    return _LegacyMeta(name, (), {"_dtype": d, "_device": device,
                                  "__module__": "torch.cuda" if device == "cuda" else "torch"})


LEGACY_TYPES = {d._tensor_type: legacy_type(d._tensor_type, d) for d in dt.ALL
                if d._tensor_type}
CUDA_LEGACY_TYPES = {d._tensor_type: legacy_type(d._tensor_type, d, "cuda") for d in dt.ALL
                     if d._tensor_type}
