"""Creation ops: `tensor`, `as_tensor`, `from_numpy`, `zeros`/`ones`/`full`/`empty` (+ `_like`,
`new_*`), `arange`, `linspace`, `logspace`, `eye`, `tril_indices`/`triu_indices`, and the
legacy constructors (`torch.Tensor(2, 3)`, `torch.FloatTensor`, ...).

Constant data is built with NumPy and placed on the device, so a new shape compiles nothing.
"""
import math
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import device as dev
from .._core import dtype as dt
from .._core.device import CPU
from .._core.storage import Storage
from .._core.tensor import Tensor, _new, wrap
from .registry import FUNCTIONS, METHODS, OPS


def _register(fn, name=None, method=False, function=True):
    n = name or fn.__name__
    OPS.setdefault(n, None)
    if function:
        FUNCTIONS[n] = fn
    if method:
        METHODS[n] = fn
    return fn


def place(np_array, device=None):
    """A JAX array on the torch `device` holding `np_array`'s values (always a copy)."""
    d = dev.canonical(device) or CPU
    if d.type == "cpu":
        return jnp.array(np_array, copy=True), d
    return jax.device_put(np_array, dev.jax_device(d)), d


def finish(array, dtype, device, requires_grad):
    """Wrap a placed array as a new tensor with PyTorch's creation keywords applied."""
    t = wrap(array, device, dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def from_np(a, dtype=None, device=None, requires_grad=False):
    """A new tensor holding NumPy array `a` (cast to `dtype`)."""
    dtype = dtype or dt.from_numpy_dtype(a.dtype)
    a = np.asarray(a, dtype=dtype.np)
    arr, d = place(a, device)
    return finish(arr, dtype, d, requires_grad)


def _size_args(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, (int, np.integer)):
            raise TypeError(f"empty(): argument 'size' (position 1) must be tuple of ints, but "
                            f"found element of type {type(s).__name__} at pos {len(out)}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        out.append(int(s))
    return tuple(out)


# ---- data → tensor -------------------------------------------------------------------------

def _infer_dtype(data):
    """PyTorch's dtype inference for nested Python data."""
    cat = -1
    src = None

    def visit(x):
        nonlocal cat, src
        if isinstance(x, Tensor):
            if src is None or x.dtype.category > src.category:
                src = x.dtype
            cat = max(cat, x.dtype.category)
        elif isinstance(x, np.ndarray) or isinstance(x, np.generic):
            d = dt.from_numpy_dtype(x.dtype)
            if src is None or d.category > src.category or d.itemsize > src.itemsize:
                src = d
            cat = max(cat, d.category)
        elif isinstance(x, bool):
            cat = max(cat, 0)
        elif isinstance(x, numbers.Integral):
            cat = max(cat, 1)
        elif isinstance(x, numbers.Real):
            cat = max(cat, 2)
        elif isinstance(x, numbers.Complex):
            cat = max(cat, 3)
        elif isinstance(x, (list, tuple)):
            for y in x:
                visit(y)
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")
    visit(data)
    if src is not None and src.category == cat and not isinstance(data, (list, tuple)):
        return src
    if cat in (-1, 2):
        if src is not None and src.category == 2 and cat == 2 and not _has_py_float(data):
            return src
        return dt.get_default_dtype()
    if src is not None and src.category == cat:
        return src
    return {0: dt.bool_, 1: dt.int64, 3: dt.default_complex()}[cat]


def _has_py_float(data):
    if isinstance(data, float):
        return True
    if isinstance(data, (list, tuple)):
        return any(_has_py_float(x) for x in data)
    return False


def _to_nested(data):
    """Nested lists with tensors replaced by their Python values; checks raggedness."""
    if isinstance(data, Tensor):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        out = [_to_nested(x) for x in data]
        _check_ragged(out)
        return out
    if isinstance(data, np.generic):
        return data.item()
    return data


def _check_ragged(items, dim=1):
    lens = [len(x) if isinstance(x, list) else None for x in items]
    if lens and lens[0] is not None:
        for ln in lens:
            if ln != lens[0]:
                raise ValueError(f"expected sequence of length {lens[0]} at dim {dim} (got {ln})")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Mirrors `torch.tensor`: always copies `data`."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        out = data.detach().to(dtype=dtype or data.dtype,
                               device=device if device is not None else data.device, copy=True)
        if requires_grad:
            out.requires_grad_(True)
        return out
    if isinstance(data, np.ndarray):
        return from_np(data, dtype, device, requires_grad)
    target = dtype or _infer_dtype(data)
    nested = _to_nested(data)
    if target.is_complex:
        a = np.array(nested, dtype=target.np)
    else:
        a = np.array(nested, dtype=np.float64 if target.category == 2 and target.itemsize < 8
                     else target.np)
        if target.category == 1 and a.dtype != target.np:
            a = a.astype(target.np)
    a = a.astype(target.np)
    return from_np(a, target, device, requires_grad)


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


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Mirrors `torch.asarray`."""
    if copy:
        t = tensor(obj, dtype=dtype, device=device) if not isinstance(obj, Tensor) else \
            obj.to(dtype=dtype or obj.dtype, device=device or obj.device, copy=True)
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def from_numpy(ndarray):
    """Mirrors `torch.from_numpy`: the tensor and the array share memory."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    d = dt.from_numpy_dtype(ndarray.dtype)
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
    st = Storage.from_numpy_flat(flat, d, CPU)
    return _new(Tensor, st, tuple(ndarray.shape), stride, 0, [0], None)


def tensor_from_numpy_copy(a, dtype_name, requires_grad):
    """Unpickling helper for `Tensor.__reduce_ex__`."""
    return from_np(np.asarray(a), dt._BY_NAME[dtype_name], None, requires_grad)


# ---- filled tensors ----------------------------------------------------------------------------

def _filled(size, value, dtype, device, requires_grad):
    a = np.full(size, value, dtype=dtype.np)
    arr, d = place(a, device)
    return finish(arr, dtype, d, requires_grad)


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
    if isinstance(value, complex):
        return dt.default_complex()
    return dt.get_default_dtype()


def _make_filled(name, value):
    def creator(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=False, memory_format=None):
        size = _size_args(size)
        return _out_or(_filled(size, value, dtype or dt.get_default_dtype(), device,
                               requires_grad), out)
    creator.__name__ = creator.__qualname__ = name
    creator.__doc__ = f"Mirrors `torch.{name}`."

    def like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None, pin_memory=False):
        return _filled(input._size, value, dtype or input.dtype,
                       device if device is not None else input.device, requires_grad)
    like.__name__ = like.__qualname__ = name + "_like"
    like.__doc__ = f"Mirrors `torch.{name}_like`."

    def new(self, *size, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False):
        return _filled(_size_args(size), value, dtype or self.dtype,
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
    return _out_or(_filled(_size_args((size,)), fill_value, dtype or _fill_dtype(fill_value),
                           device, requires_grad), out)


@_register
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """Mirrors `torch.full_like`."""
    return _filled(input._size, fill_value, dtype or input.dtype,
                   device if device is not None else input.device, requires_grad)


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
    return _filled(_size_args((size,)), fill_value, dtype or self.dtype,
                   device if device is not None else self.device, requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """Mirrors `Tensor.new_tensor`."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
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


for _f in (new_full, new_tensor, new_empty_strided):
    _register(_f, method=True, function=False)
for _f in (tensor, as_tensor, asarray, from_numpy):
    _register(_f)


# ---- ranges --------------------------------------------------------------------------------------

def _num(x):
    return x.item() if isinstance(x, Tensor) else x


@_register
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """Mirrors `torch.arange`: int64 for integer arguments, else the default float dtype."""
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        floaty = any(isinstance(v, float) for v in (start, end, step))
        dtype = dt.get_default_dtype() if floaty else dt.int64
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = math.ceil((end - start) / step)
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
                  stacklevel=2)
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


@_register
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """Mirrors `torch.linspace`."""
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = dtype or (dt.default_complex() if isinstance(start, complex) or
                      isinstance(end, complex) else dt.get_default_dtype())
    a = _linspace_np(start, end, steps, dtype.np) if steps else np.zeros(0, dtype.np)
    return _out_or(from_np(a, dtype, device, requires_grad), out)


@_register
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """Mirrors `torch.logspace`."""
    dtype = dtype or dt.get_default_dtype()
    exps = _linspace_np(_num(start), _num(end), steps, np.float64) if steps else np.zeros(0)
    a = np.power(base, exps).astype(dtype.np)
    return _out_or(from_np(a, dtype, device, requires_grad), out)


@_register
def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    """Mirrors `torch.eye`."""
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    dtype = dtype or dt.get_default_dtype()
    a = np.eye(n, n if m is None else m, dtype=dtype.np)
    return _out_or(from_np(a, dtype, device, requires_grad), out)


def _tri_indices(np_fn):
    def f(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
        dtype = dtype or dt.int64
        r, c = np_fn(row, offset, col)
        return from_np(np.stack([r, c]).astype(dtype.np).reshape(2, -1), dtype, device)
    return f


_register(_tri_indices(np.tril_indices), "tril_indices")
_register(_tri_indices(np.triu_indices), "triu_indices")


# ---- legacy constructors ------------------------------------------------------------------------

def legacy_constructor(cls, args, kwargs, dtype=None):
    """`torch.Tensor(...)`, `torch.FloatTensor(...)`: sizes → uninitialised (zeros), data → copy."""
    dtype = dtype or dt.get_default_dtype()
    device = kwargs.pop("device", None)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0].to(dtype) if args[0].dtype is not dtype else args[0]
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)) and \
            not isinstance(args[0], (tuple,)) or (args and isinstance(args[0], (list, np.ndarray))):
        data = args[0]
        if hasattr(data, "__len__") or isinstance(data, np.ndarray):
            t = tensor(data, dtype=dtype, device=device)
            return t if cls is Tensor else t.as_subclass(cls)
    if args and isinstance(args[0], float):
        raise TypeError(f"new(): argument 'size' must be tuple of ints, but found element of "
                        f"type float at pos 0")
    size = _size_args(args) if args else (0,)
    t = _filled(size, 0, dtype, device, False)
    return t if cls is Tensor else t.as_subclass(cls)


class _LegacyMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls._dtype and \
            obj.device.type == cls._device

    def __call__(cls, *args, **kwargs):
        if cls._device == "cuda":
            kwargs.setdefault("device", "cuda")
        return legacy_constructor(Tensor, args, kwargs, cls._dtype)


def legacy_type(name, d, device="cpu"):
    """A class like `torch.FloatTensor` (isinstance checks dtype and device)."""
    return _LegacyMeta(name, (), {"_dtype": d, "_device": device, "__module__": "torch"})


LEGACY_TYPES = {d._tensor_type: legacy_type(d._tensor_type, d) for d in dt.ALL
                if d._tensor_type}
CUDA_LEGACY_TYPES = {d._tensor_type: legacy_type(d._tensor_type, d, "cuda") for d in dt.ALL
                     if d._tensor_type}
