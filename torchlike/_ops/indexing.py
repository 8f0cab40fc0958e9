"""Indexing: `Tensor.__getitem__` / `__setitem__` and the gather/scatter family.

Basic indexing (ints, slices, None, Ellipsis, 0-dim integer tensors) computes the view's
(size, stride, offset) in one Python pass: no kernel. Advanced indexing (integer / bool tensors,
lists) first applies the basic part as a view, then gathers (or scatters, for `__setitem__`)
through a jitted kernel cached per (indexed dims, accumulate); index arrays are traced arguments,
so new index values reuse the compiled kernel. Bool masks go through a host-side `nonzero`
because the result shape depends on their values. Index bounds are checked on the host (PyTorch
raises for out-of-range indices; a jitted kernel cannot).
"""
import functools
import math
import numbers
import operator
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .._core import buckets, device_asserts, device_rules
from .._core import dtype as dt
from .._core import frames, layout, programs
from .._core.device import put as _to_device, transfer as _transfer
from .._core.grad_state import ENABLED as _GRAD, differentiable
from .._core.layout import has_internal_overlap
from .._core.tensor import Tensor, _wrap_dim, make_view, wrap
from .._core.tracing import tracing
from ..autograd import graph as _graph
from ..autograd.graph import JaxNode
from .registry import FUNCTIONS, METHODS, OPS, _check_broadcast, _write_one_out, short_name
from .registry import numpy_names
from ..amp.dispatch import autocast_op as _autocast_op

_INT_KINDS = ("i", "u")


def _register(fn, name, method=True, function=True):
    OPS.setdefault(name, None)
    if function:
        FUNCTIONS[name] = fn
    if method:
        METHODS[name] = fn


def _legacy_name(d):
    return f"torch.{short_name(d)}Tensor"


# ---- index parsing ------------------------------------------------------------------------------

def _treat_as_tuple(index):
    """PyTorch's `treatSequenceAsTuple` for a non-tuple index."""
    if not isinstance(index, list) or len(index) >= 32:
        return False
    for o in index:
        if isinstance(o, (Tensor, list, tuple, slice)) or o is None or o is Ellipsis:
            return True
    return False


def _bad_index(o):
    return IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                      f"Variables are valid indices (got {type(o).__name__})")


def _index_to_tensor(o):
    """A list / NumPy array index as a tensor-like (dtype, host array)."""
    a = np.asarray(o)
    if a.dtype == object:
        raise _bad_index(o)
    if a.size == 0 and a.dtype.kind == "f":
        a = a.astype(np.int64)
    return a


def _count_specified(items):
    n = 0
    for o in items:
        if o is None or o is Ellipsis or isinstance(o, bool):
            continue
        if isinstance(o, Tensor):
            n += o.dim() if o.dtype in (dt.bool_, dt.uint8) else 1
        elif isinstance(o, np.ndarray):
            n += o.ndim if o.dtype in (np.bool_, np.uint8) else 1
        else:
            n += 1
    return n


def _basic(self, index):
    """Apply the basic part of `index`; returns (size, stride, offset, advanced) where
    `advanced` lists (dim, index) pairs for tensor indices (None when there are none)."""
    if type(index) is tuple:
        items = index
    elif _treat_as_tuple(index):
        items = tuple(index)
        frames.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will "
              "be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 "
              "this will be interpreted as tensor index, x[torch.tensor(seq)], which will "
              "result either in an error or a different result (Triggered internally at "
              "/__w/pytorch/pytorch/torch/csrc/autograd/python_variable_indexing.cpp:"
              f"{349 if any(isinstance(o, (Tensor, list, tuple, slice)) for o in items) else 359}"
              ".)")
    else:
        items = (index,)
    size = list(self._size)
    stride = list(self._stride)
    offset = self._offset
    ndim = len(size)
    # normalise non-int index objects before counting
    norm = []
    has_ell = False
    for o in items:
        t = type(o)
        if t is int or t is slice or o is None:
            norm.append(o)
        elif o is Ellipsis:
            norm.append(o)
            has_ell = True
        elif t is bool:
            norm.append(o)
        elif isinstance(o, Tensor):
            norm.append(o)
        elif isinstance(o, (list, tuple, np.ndarray)):
            norm.append(_index_to_tensor(o))
        elif isinstance(o, (np.integer, numbers.Integral)) and not isinstance(o, (np.bool_,)):
            norm.append(operator.index(o))
        elif isinstance(o, np.bool_):
            norm.append(bool(o))
        elif hasattr(o, "__index__") and not isinstance(o, (float, complex)):
            norm.append(operator.index(o))
        else:
            raise _bad_index(o)
    specified = _count_specified(norm)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    advanced = None
    d = 0
    for pos, o in enumerate(norm):  # PyTorch's bounds errors name the position in the index
        t = type(o)
        if t is int:
            if not size:
                raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python "
                                 "or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a "
                                 "number")
            n = size[d]
            if o < -n or o >= n:
                raise IndexError(f"index {o} is out of bounds for dimension {pos} with size "
                                 f"{n}")
            if o < 0:
                o += n
            offset += o * stride[d]
            del size[d]
            del stride[d]
        elif t is slice:
            start, stop, step = o.start, o.stop, o.step
            if step is None:
                step = 1
            else:
                step = operator.index(step)
                if step == 0:
                    raise ValueError("slice step cannot be zero")
                if step < 0:
                    raise ValueError("step must be greater than zero")
            n = size[d]
            start = 0 if start is None else operator.index(start)
            stop = n if stop is None else operator.index(stop)
            if start < 0:
                start += n
            if stop < 0:
                stop += n
            if start < 0:
                start = 0
            elif start > n:
                start = n
            if stop < start:
                stop = start
            elif stop > n:
                stop = n
            offset += start * stride[d]
            size[d] = (stop - start + step - 1) // step
            stride[d] *= step
            d += 1
        elif o is None:
            stride.insert(d, size[d] * stride[d] if d < len(size) else 1)
            size.insert(d, 1)
            d += 1
        elif o is Ellipsis:
            d += ndim - specified
            ndim = specified  # a second Ellipsis skips nothing
        elif t is bool:
            stride.insert(d, size[d] * stride[d] if d < len(size) else 1)
            size.insert(d, 1)
            advanced = advanced or []
            advanced.append((d, np.arange(1 if o else 0, dtype=np.int64), False))
            d += 1
        else:  # Tensor or host array
            if isinstance(o, Tensor):
                kind = o.dtype.np.kind
                if o.dtype is dt.uint8:
                    frames.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                          "dtype torch.bool instead. (Triggered internally at /__w/pytorch/"
                          "pytorch/aten/src/ATen/native/IndexingUtils.h:37.)")
                if o.dtype is dt.bool_ or o.dtype is dt.uint8:
                    mask = True
                elif kind in _INT_KINDS:
                    mask = False
                    if not o._size:
                        # a 0-dim integer tensor is an int (a view)
                        i = int(o.item())
                        n = size[d]
                        if i < -n or i >= n:
                            raise IndexError(f"index {i} is out of bounds for dimension {pos} with "
                                             f"size {n}")
                        offset += (i + n if i < 0 else i) * stride[d]
                        del size[d]
                        del stride[d]
                        continue
                else:
                    raise IndexError("tensors used as indices must be long, int, byte or bool "
                                     "tensors")
                shape = o._size
            else:
                kind = o.dtype.kind
                if kind == "b" or o.dtype == np.uint8:
                    mask = True
                elif kind in _INT_KINDS:
                    mask = False
                else:
                    raise IndexError("tensors used as indices must be long, int, byte or bool "
                                     "tensors")
                shape = o.shape
            advanced = advanced or []
            if mask:
                if not shape:  # 0-dim bool: like a Python bool
                    stride.insert(d, size[d] * stride[d] if d < len(size) else 1)
                    size.insert(d, 1)
                    v = bool(o.item()) if isinstance(o, Tensor) else bool(o)
                    advanced.append((d, np.arange(1 if v else 0, dtype=np.int64), False))
                    d += 1
                    continue
                for j, s in enumerate(shape):
                    if size[d + j] != s:
                        raise IndexError(
                            f"The shape of the mask {list(shape)} at index {j} does not match "
                            f"the shape of the indexed tensor {list(size)} at index {d + j}")
                advanced.append((d, o, True))
                d += len(shape)
            else:
                advanced.append((d, o, False))
                d += 1
    return size, stride, offset, advanced


def _expand_advanced(advanced, device):
    """(dims, index arrays) with bool masks replaced by their host-side `nonzero`. Index tensors
    on the CPU go to the indexed tensor's `device`, as in PyTorch; an index on an accelerator
    for a CPU tensor raises PyTorch's error."""
    dims, idxs = [], []
    for d, o, mask in advanced:
        if isinstance(o, Tensor) and o._st.device != device:
            if o._st.device.type != "cpu":
                raise RuntimeError(f"indices should be either on cpu or on the same device as "
                                   f"the indexed tensor ({device})")
            o = o.to(device)
        if mask:
            m = np.asarray(o._value()) if isinstance(o, Tensor) else o
            nz = np.nonzero(m)
            for j, a in enumerate(nz):
                dims.append(d + j)
                idxs.append(a.astype(np.int64))
        else:
            dims.append(d)
            idxs.append(o._value() if isinstance(o, Tensor) else o)
    return tuple(dims), idxs


def _check_bounds(size, dims, idxs, device=None):
    """Host-side bounds check with PyTorch's index-kernel message; returns the broadcast shape.
    On an accelerator (`device`) the indices are checked on the device and a bad one reported
    later, as CUDA's index kernel does (see `device_asserts`)."""
    shapes = [tuple(i.shape) for i in idxs]
    try:
        bshape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(str(list(s)) for s in shapes)) from None
    if 0 not in bshape:
        for k, (d, i) in enumerate(zip(dims, idxs)):
            n = size[d]
            if device is not None and device.type == "cuda" and not tracing() and \
                    isinstance(i, jax.Array):
                device_asserts.defer_range_check_array(i, -n, n)
                continue
            a = np.asarray(i)
            if a.size:
                lo, hi = a.min(), a.max()
                if lo < -n or hi >= n:
                    bad = a[(a < -n) | (a >= n)].reshape(-1)[0]
                    raise IndexError(f"index {bad} is out of bounds for dimension {k} with "
                                     f"size {n}")
    return bshape


def _adv_key(ndim, dims, idxs):
    key = [slice(None)] * ndim
    for d, i in zip(dims, idxs):
        key[d] = i
    return tuple(key)


def _at_add(a, key, v):
    """`a.at[key].add(v)`; on bool an accumulation is a logical or, as in PyTorch."""
    if a.dtype == jnp.bool_:
        return a.at[key].max(v.astype(jnp.bool_))
    return a.at[key].add(v)


def _at_mul(a, key, v):
    """`a.at[key].multiply(v)`; on bool a logical and."""
    if a.dtype == jnp.bool_:
        return a.at[key].min(v.astype(jnp.bool_))
    return a.at[key].multiply(v)


@functools.lru_cache(maxsize=None)
def _gather_kernel(dims):
    def f(a, *idxs):
        return a[_adv_key(a.ndim, dims, idxs)]
    return programs.jit(f, ("index.gather", dims))


@functools.lru_cache(maxsize=None)
def _put_kernel(dims, accumulate):
    def f(a, v, *idxs):
        v = jnp.asarray(v)
        v = v.reshape(_strip_leading_ones(v.shape))
        if accumulate:
            return _at_add(a, _adv_key(a.ndim, dims, idxs), v.astype(a.dtype))
        return _set_rule(("adv", dims))(a, v, idxs)
    return programs.jit(f, ("index.put", dims, accumulate))


def _zero_dim_check(index):
    if type(index) is int:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    if type(index) is slice:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")


def _view_name(index):
    """The node PyTorch's `__getitem__` gives a basic-indexing view: that of its last step."""
    items = index if type(index) is tuple else (index,)
    name = "AliasBackward0"
    for o in items:
        if o is Ellipsis or isinstance(o, (Tensor, list, np.ndarray)) and not (
                isinstance(o, Tensor) and not o._size and o.dtype.np.kind in _INT_KINDS):
            continue
        if o is None or isinstance(o, (bool, np.bool_)):
            name = "UnsqueezeBackward0"
        elif type(o) is slice:
            name = "SliceBackward0"
        else:
            name = "SelectBackward0"
    return name


def _same_layout(t, size, stride, offset):
    return offset == t._offset and tuple(size) == t._size and tuple(stride) == t._stride


def _index_tensors(advanced):
    return [o for _, o, _ in advanced if isinstance(o, Tensor)]


def getitem(self, index):
    """Mirrors `Tensor.__getitem__`: a view for basic indices, a copy for advanced ones."""
    if not self._size:
        _zero_dim_check(index)
    size, stride, offset, advanced = _basic(self, index)
    if not differentiable(self):
        if advanced is None:
            view = make_view(self, size, stride, offset)
            return buckets.window(view) if size != self._size else view
        picked = _mask_select(self, size, stride, offset, advanced)
        if picked is not None:
            return picked
        dims, idxs = _expand_advanced(advanced, self._st.device)
        bshape = _check_bounds(size, dims, idxs, self._st.device)
        if self._st._phys is not None:
            from .bucketed import gather
            picked = gather(make_view(self, size, stride, offset), dims, idxs,
                            _index_result_shape(size, dims, bshape))
            if picked is not None:
                return picked
        return wrap(_gather_kernel(dims)(_host_view(self, size, stride, offset), *idxs),
                    self.device)
    if advanced is None:
        return make_view(self, size, stride, offset, _view_name(index))
    if _same_layout(self, size, stride, offset):
        base = self
    else:
        base = make_view(self, size, stride, offset, _view_name(index))
    dims, idxs = _expand_advanced(advanced, self._st.device)
    _check_bounds(size, dims, idxs, self._st.device)
    from ..autograd.function import apply_jax
    out = apply_jax(_gather_kernel(dims), [base, *idxs], "IndexBackward0")[0]
    if out.grad_fn is not None:   # (a dual tensor's index records no node)
        from ..autograd.inplace import save_for_check
        save_for_check(out.grad_fn, _index_tensors(advanced))
    return out


def _mask_select(self, size, stride, offset, advanced):
    """`x[mask]` (one bool tensor over dims d..d+k) as one gather of the mask's flat positions
    from those dims merged: one host pass over the mask and no bounds check (its positions are
    in range by construction), instead of an index array per mask dim; None where that does
    not apply."""
    if len(advanced) != 1:
        return None
    d, mask, is_mask = advanced[0]
    if not (is_mask and isinstance(mask, Tensor) and mask.dtype is dt.bool_ and mask._size and
            mask.device == self.device):
        return None
    flat = np.flatnonzero(_host(mask))
    src = _host_view(self, size, stride, offset)
    return wrap(_merged_take(d, len(mask._size))(src, flat), self.device)


@functools.lru_cache(maxsize=None)
def _merged_take(d, k):
    def f(a, flat):
        merged = a.reshape(a.shape[:d] + (-1,) + a.shape[d + k:])
        return jnp.take(merged, flat, axis=d)
    return programs.jit(f, ("index.merged_take", d, k))


def _host_view(self, size, stride, offset):
    return make_view(self, size, stride, offset)._value()


def _strip_leading_ones(shape):
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return shape[i:]


def _value_arg(self, value):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        dt.check_scalar_fits(value, self.dtype, 1)
        return None
    raise TypeError(f"can't assign a {type(value).__name__} to a {_legacy_name(self.dtype)}")


def setitem(self, index, value):
    """Mirrors `Tensor.__setitem__`: writes through `self`'s storage."""
    vt = _value_arg(self, value)
    if not self._size:
        _zero_dim_check(index)
    size, stride, offset, advanced = _basic(self, index)
    if differentiable(self, vt):
        _setitem_grad(self, size, stride, offset, advanced, value, vt)
        return
    dst = make_view(self, size, stride, offset)
    if advanced is None:
        _copy_to(dst, value, vt)
        return
    for _, o, _ in advanced:
        if isinstance(o, Tensor) and o.dtype is dt.uint8:
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with "
                               "dtype unsigned char")
    if vt is None and _mask_fill(dst, advanced, value):
        return
    dims, idxs = _expand_advanced(advanced, dst._st.device)
    bshape = _check_bounds(size, dims, idxs, dst._st.device)
    res_shape = _index_result_shape(size, dims, bshape)
    _index_put(dst, dims, idxs, value, vt, res_shape, False)


def _mask_fill(dst, advanced, value):
    """`y[mask] = number` as one masked write on the device (what it writes is `masked_fill_`'s:
    the number wherever the mask is true), instead of the mask's nonzero on the host; False
    where that does not apply (several indices, a 0-dim or non-tensor mask, aliased elements)."""
    if len(advanced) != 1:
        return False
    d, mask, is_mask = advanced[0]
    if not (is_mask and isinstance(mask, Tensor) and mask.dtype is dt.bool_ and mask._size and
            mask.device == dst.device) or layout.has_internal_overlap(dst._size, dst._stride):
        return False
    k = len(mask._size)
    shaped = mask.reshape((1,) * d + mask._size + (1,) * (len(dst._size) - d - k))
    _masked_fill(dst, shaped, value, True)
    return True


def _setitem_grad(self, size, stride, offset, advanced, value, vt):
    """`__setitem__` recording autograd history: a write into `self` itself is its own node
    (FillBackward3 / CopyBackwards / IndexPutBackward0), a write into a view of it rebases
    `self` through CopySlices, as PyTorch does."""
    dst = self if _same_layout(self, size, stride, offset) else make_view(self, size, stride,
                                                                          offset)
    if advanced is None:
        if dst is self and (vt is None or not vt._size):
            from ..autograd.inplace import inplace_apply
            from .conversion import _fill_fn
            if vt is None:
                value = value.item() if isinstance(value, (np.number, np.bool_)) else value
                if isinstance(value, complex) and not self.dtype.is_complex:
                    value = value.real
            inplace_apply(self, "FillBackward3", _fill_fn(self._size, self.dtype.np), [value])
            return
        _copy_to(dst, value, vt)
        return
    for _, o, _ in advanced:
        if isinstance(o, Tensor) and o.dtype is dt.uint8:
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with "
                               "dtype unsigned char")
    dims, idxs = _expand_advanced(advanced, dst._st.device)
    bshape = _check_bounds(size, dims, idxs, dst._st.device)
    res_shape = _index_result_shape(size, dims, bshape)
    _index_put(dst, dims, idxs, value, vt, res_shape, False, _index_tensors(advanced))


def _copy_to(dst, value, vt):
    from .conversion import copy_, fill_, fill_unchecked
    if vt is None:
        fill_unchecked(dst, value)
        return
    if vt._size == dst._size:
        copy_(dst, vt)
    elif not vt._size:
        fill_(dst, vt)
    else:
        from .views import VIEW_OPS
        src = _strip_leading_ones(vt._size)
        src_t = make_view(vt, src, vt._stride[len(vt._size) - len(src):], vt._offset)
        if len(src) > len(dst._size):
            raise RuntimeError(f"expand({_legacy_name(vt.dtype)}{{{list(src)}}}, size="
                               f"{list(dst._size)}): the number of sizes provided "
                               f"({len(dst._size)}) must be greater or equal to the number of "
                               f"dimensions in the tensor ({len(src)})")
        VIEW_OPS["expand"](src_t, dst._size)
        copy_(dst, src_t)


def _index_result_shape(size, dims, bshape):
    """The shape of `v[adv]` (PyTorch/NumPy rule: separated advanced dims go to the front)."""
    adjacent = all(b - a == 1 for a, b in zip(dims, dims[1:]))
    rest = [s for i, s in enumerate(size) if i not in dims]
    if adjacent:
        first = dims[0]
        before = [s for i, s in enumerate(size) if i < first and i not in dims]
        after = [s for i, s in enumerate(size) if i > first and i not in dims]
        return tuple(before) + tuple(bshape) + tuple(after)
    return tuple(bshape) + tuple(rest)


def _index_put(dst, dims, idxs, value, vt, res_shape, accumulate, saved=(), inplace=True):
    """`dst[idxs] = value` (or `+=`); a new tensor when not `inplace`."""
    if vt is None:
        v = value.item() if isinstance(value, (np.number, np.bool_)) else value
        if isinstance(v, complex) and not dst.dtype.is_complex:
            v = v.real
    else:
        if vt.dtype is not dst.dtype:
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{short_name(dst.dtype)} for the destination and "
                               f"{short_name(vt.dtype)} for the source.")
        src = _strip_leading_ones(vt._size)
        ok = len(src) <= len(res_shape) and all(
            a == b or a == 1 for a, b in zip(src[::-1], res_shape[::-1]))
        if not ok:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(vt._size)} cannot be "
                               f"broadcast to indexing result of shape {list(res_shape)}")
        v = vt
    if 0 in res_shape and not (vt is not None and _wants_grad(dst, [vt])):
        return dst if inplace else dst.clone()  # (with grad: `values` still gets a zero grad)
    return _run("IndexPutBackward0", _put_kernel(dims, accumulate), dst, [v, *idxs], inplace,
                saved=saved)


METHODS["__getitem__"] = getitem
METHODS["__setitem__"] = setitem


# ---- shared helpers for the op family ------------------------------------------------------------

def _finish(self, res, inplace, out=None):
    if inplace:
        self._assign(res)
        return self
    if out is not None:
        _write_one_out(res, out)
        return out
    return wrap(res, self.device)


def _int_index_dtype(index, msg, allow_int32=False):
    if not isinstance(index, Tensor):
        raise TypeError(msg)
    if index.dtype is dt.int64 or (allow_int32 and index.dtype is dt.int32):
        return
    raise RuntimeError(msg)


def _host(t):
    return np.asarray(t._value())


def _oob(a, n):
    bad = (a < -n) | (a >= n)
    if bad.any():
        return a[bad].reshape(-1)[0]
    return None


_KERNELS = {}


def _kernel(key, build):
    k = _KERNELS.get(key)
    if k is None:
        k = _KERNELS[key] = programs.jit(build(), ("index",) + key)
    return k


_SCALAR_ARRAYS = {}   # (value's bytes in dtype d, d) -> 0-d device array


def _scalar_array(value, d, device):
    """A fill value as a 0-d array of dtype `d`. A Python number is cast by NumPy (as JAX casts)
    and cached on torch device `device` per value: building it with JAX's eager ops costs three
    dispatches per call (`masked_fill(mask, -inf)` in every attention layer)."""
    if isinstance(value, Tensor):
        value = value._value()
        return value.astype(d.np) if not (jnp.iscomplexobj(value) and not d.is_complex) else \
            jnp.real(value).astype(d.np)
    dt.check_scalar_fits(value, d)
    if isinstance(value, (complex, np.complexfloating)) and not d.is_complex:
        value = value.real
    a = np.asarray(value).astype(d.np)
    if tracing():          # a NumPy constant, never a cached device array, inside a trace
        return a
    key = (a.tobytes(), d, device)
    cached = _SCALAR_ARRAYS.get(key)
    if cached is None:
        if len(_SCALAR_ARRAYS) > 4096:
            _SCALAR_ARRAYS.clear()
        from .._core.device import jax_device
        cached = _SCALAR_ARRAYS[key] = _transfer(a, jax_device(device))
    return cached


# ---- autograd ----------------------------------------------------------------------------------
#
# Every op below is one cached pure-JAX kernel `fn(self, *operands)`; with autograd on it is
# recorded through `apply_jax` (out of place) or `inplace_apply` (in place), so its backward is
# the kernel's vjp. Where PyTorch's formula differs from the plain vjp (writes with duplicate
# indices, the scatter/index reductions) the kernel uses a `jax.custom_vjp` rule written after
# PyTorch's formula.

def _wants_grad(self, operands):
    if not _GRAD[0]:
        return False
    if self._requires_grad:
        return True
    for o in operands:
        if isinstance(o, Tensor) and o._requires_grad:
            return True
    return False


def _wrapper_devices(op, overload, inplace, source="src"):
    """The device-check spec (see `device_rules.check_operands`) of PyTorch's generated wrapper
    for `op` with operands (self, index, source): `wrapper_CUDA_scatter_src`,
    `wrapper_CUDA_scatter__value` (in place), `wrapper_CUDA_index_add`..."""
    name = op + ("_" if inplace else "") + (f"_{overload}" if overload else "")
    return f"wrapper_CUDA_{name}", ("self", "index", source if overload != "value" else None)


def _run(name, fn, self, operands, inplace=False, out=None, saved=(), save_result=False,
         op=None, elementwise=False, devices=None, saved_names=None):
    """`fn(self, *operands)` as a new tensor, into `out`, or written into `self` (`inplace`),
    recording node `name` when autograd needs it; `saved` are the tensors PyTorch's backward
    formula keeps (for the version-counter check; `saved_names`: PyTorch's names for them),
    `save_result` adds the result.
    `elementwise`: `fn` works element by element (with broadcasting), so it may run on
    operands padded to a size class (see `_core/buckets.py`). Operands on other devices than
    `self` follow PyTorch's rules (`devices`: its wrapper's check, else its TensorIterator's)."""
    if not device_rules.agree([self, *operands]):
        moved = device_rules.check_operands([self, *operands], devices,
                                            written=self if inplace else None)
        operands = moved[1:]
    if out is not None and _GRAD[0] and out._requires_grad:
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if _wants_grad(self, operands):
        if out is not None:
            raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        if inplace:
            from ..autograd.inplace import inplace_apply
            return inplace_apply(self, name, fn, operands,
                                 saved=[t for t in saved if t is not self],
                                 save_result=save_result)
        from ..autograd.function import apply_jax
        res = apply_jax(fn, [self, *operands], name)[0]
        if (saved or save_result) and res.grad_fn is not None:
            from ..autograd.inplace import save_for_check
            save_for_check(res.grad_fn, saved, res if save_result else None, saved_names)
        return res
    if elementwise and not inplace and out is None and buckets.any_padded([self, *operands]):
        from .bucketed import elementwise as run_elementwise
        res = run_elementwise(fn, [self, *operands], self.device)
        if res is not None:
            return res
    res = fn(self._value(), *[o._value() if isinstance(o, Tensor) else o for o in operands])
    return _finish(self, res, inplace, out)


def _key_of(spec, ndim, idxs):
    """The JAX index for a write/read of the kind `spec`: ("adv", dims) advanced indices at
    `dims`, ("along", d) one index vector along `d`, ("coords", d) scatter/gather coordinates."""
    kind = spec[0]
    if kind == "adv":
        return _adv_key(ndim, spec[1], idxs)
    if kind == "along":
        return _along(spec[1], ndim, idxs[0])
    return _coords(idxs[0].shape, spec[1], idxs[0])


def _sum_to(g, shape):
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if axes:
        g = g.sum(axes, keepdims=True)
    return g.reshape(shape)


def _inexact(x):
    return jnp.issubdtype(x.dtype, jnp.inexact)


@functools.lru_cache(maxsize=None)
def _set_rule(spec):
    """`a.at[key].set(v)` with PyTorch's backward: the gradient of `a` is zero where written,
    and every element of `v` (duplicate targets included) gets the gradient at its target."""
    @jax.custom_vjp
    def f(a, v, idxs):
        return a.at[_key_of(spec, a.ndim, idxs)].set(v.astype(a.dtype))

    def fwd(a, v, idxs):
        return f(a, v, idxs), (jnp.zeros((0,) + v.shape, v.dtype), idxs)

    def bwd(res, ct):
        vz, idxs = res
        key = _key_of(spec, ct.ndim, idxs)
        gv = _sum_to(ct[key], vz.shape[1:]).astype(vz.dtype) if _inexact(vz) else None
        return ct.at[key].set(0), gv, None
    f.defvjp(fwd, bwd)
    return f


def _reduce_value(spec, mode, include_self, a, v, idxs):
    """`a` with `v` reduced into the positions `key` (scatter_reduce / index_reduce)."""
    key = _key_of(spec, a.ndim, idxs)
    if mode == "sum":
        return _at_add(a if include_self else a.at[key].set(0), key, v)
    if mode == "prod":
        return _at_mul(a if include_self else a.at[key].set(1), key, v)
    if mode == "amax":
        return (a if include_self else a.at[key].set(_lowest(a.dtype))).at[key].max(v)
    if mode == "amin":
        return (a if include_self else a.at[key].set(_highest(a.dtype))).at[key].min(v)
    # mean
    cnt = jnp.zeros(a.shape, jnp.int64).at[key].add(jnp.ones(v.shape, jnp.int64))
    s = (a if include_self else a.at[key].set(0)).at[key].add(v)
    cnt = jnp.maximum(cnt + (1 if include_self else 0), 1)
    if jnp.issubdtype(a.dtype, jnp.integer):
        return jnp.floor_divide(s, cnt.astype(a.dtype))
    return (s / cnt.astype(a.dtype)).astype(a.dtype)


@functools.lru_cache(maxsize=None)
def _reduce_rule(spec, mode, include_self):
    """The scatter/index reduction with PyTorch's backward (`scatter_reduce_backward`: prod
    handles zeros exactly, amax/amin share the gradient evenly between ties)."""
    @jax.custom_vjp
    def f(a, v, idxs):
        return _reduce_value(spec, mode, include_self, a, v, idxs)

    def fwd(a, v, idxs):
        r = f(a, v, idxs)
        return r, (a, v, idxs, r)

    def bwd(res, g):
        a, v, idxs, r = res
        key = _key_of(spec, a.ndim, idxs)
        if mode == "sum":
            ga, gv = g, g[key]
        elif mode == "prod":
            ms = jnp.where(a == 0, jnp.ones((), a.dtype), a)
            ga = g * f(ms, v, idxs) / ms  # (f, not a plain scatter: differentiable again)
            vz = v == 0
            nz = jnp.zeros(a.shape, a.dtype).at[key].add(vz.astype(a.dtype))[key]
            single = vz & (nz == 1)
            mv = jnp.where(single, jnp.ones((), v.dtype), v)
            mvr = f(a, mv, idxs)
            gv = jnp.where(single, (g * mvr)[key],
                           (g * r)[key] / jnp.where(vz, jnp.ones((), v.dtype), v))
        elif mode == "mean":
            n = (jnp.ones if include_self else jnp.zeros)(g.shape, g.dtype)
            n = n.at[key].add(jnp.ones(v.shape, g.dtype))
            n = jnp.where(n == 0, jnp.ones((), g.dtype), n)
            ga, gv = g / n, g[key] / n[key]
        else:  # amax / amin: the gradient is shared evenly between the elements equal to it
            a_is = (a == r).astype(g.dtype)
            v_is = (v == r[key]).astype(g.dtype)
            gd = g / a_is.at[key].add(v_is)
            ga, gv = a_is * gd, v_is * gd[key]
        if not include_self:
            ga = ga.at[key].set(0)
        return ga.astype(a.dtype), gv.astype(v.dtype), None
    f.defvjp(fwd, bwd)
    return f


class _NotImplementedNode(JaxNode):
    """PyTorch's `NotImplemented` node (scatter with `reduce=`): backward raises."""

    __slots__ = ()

    def apply(self, grads, create_graph):
        raise RuntimeError("derivative for aten::scatter is not implemented")


class _BadSrcGrad(JaxNode):
    """A scatter node whose `src` is larger than `index`: PyTorch's backward returns an
    index-shaped gradient for it, which its engine rejects."""

    __slots__ = ()

    def apply(self, grads, create_graph):
        pos, got, want = _BAD_SRC[self]
        raise RuntimeError(f"Function {self.name()} returned an invalid gradient at index {pos} - "
                           f"got {list(got)} but expected shape compatible with {list(want)}")


_BAD_SRC = weakref.WeakKeyDictionary()


def _check_src_grad(res, name, index, src):
    """Mark the node of a scatter whose gradient for `src` PyTorch cannot deliver."""
    node = res.grad_fn
    if (src._requires_grad and index._size != src._size and node is not None
            and type(node).__name__ == name):
        node.__class__ = _graph.node_class(name, _BadSrcGrad)
        _BAD_SRC[node] = (1, index._size, src._size)
    return res


# ops recorded under the name "NotImplemented" get the raising node
_graph._CLASSES[("NotImplemented", JaxNode)] = type(
    "NotImplemented", (_NotImplementedNode,), {"__slots__": (), "__module__": "torch"})


# ---- gather / scatter --------------------------------------------------------------------------

def _coords(index_shape, dim, index):
    """Full coordinates for scatter/gather: iota on every dim but `dim`, where `index` goes."""
    return tuple(index if i == dim else jax.lax.broadcasted_iota(jnp.int64, index_shape, i)
                 for i in range(len(index_shape)))


def gather(input, dim, index, *, sparse_grad=False, out=None, _save_index=True,
           _negative=False):
    """Mirrors `torch.gather` (`_negative`: indices in [-size, 0) count from the end, as
    `take_along_dim` allows)."""
    n = input.dim()
    d = _wrap_dim(dim, n)
    if index.numel() == 0:  # PyTorch returns an empty result of index's shape before any check
        k = _kernel(("gather_empty",), lambda: lambda a, idx: jnp.zeros(idx.shape, a.dtype))
        return _run("GatherBackward0", k, input, [index], out=out, op="gather",
                    devices=("wrapper_CUDA_gather", ("self", "index")),
                    saved=(input, index) if _save_index else (input,),
                    saved_names=("self", "index"))
    if index.dtype not in (dt.int64, dt.int32):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if out is not None and out.dtype is not input.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_c_name(input.dtype)}, but got "
                           f"{_c_name(out.dtype)} instead")
    if max(index.dim(), 1) != max(n, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    isz, ssz = index._size or (1,), input._size or (1,)
    for i in range(len(isz)):
        if i != d and isz[i] > ssz[i]:
            raise RuntimeError(f"Size does not match at dimension {i} expected index "
                               f"{list(index._size)} to be no larger than self "
                               f"{list(input._size)} apart from dimension {d}")
    if index.numel() and not tracing():      # a host check: traced indices have no values
        bad = _oob(_host(index), ssz[d])
        if bad is None and not _negative and (_host(index) < 0).any():
            bad = _host(index)[_host(index) < 0].reshape(-1)[0]
        if bad is not None:
            raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size "
                               f"{ssz[d]}")

    def build():
        def f(a, idx):
            shp = idx.shape
            a2 = a.reshape(ssz)
            i2 = idx.reshape(isz)
            if 0 in isz:
                return jnp.zeros(shp, a.dtype)
            if _negative:
                i2 = jnp.where(i2 < 0, i2 + ssz[d], i2)
            return a2[_coords(isz, d, i2)].reshape(shp)
        return f
    k = _kernel(("gather", d, isz, ssz, _negative), build)
    return _run("GatherBackward0", k, input, [index], out=out, op="gather",
                devices=("wrapper_CUDA_gather", ("self", "index")),
                saved=(input, index) if _save_index else (input,),
                saved_names=("self", "index"))


def _scatter_checks(name, self, d, index, src):
    if index.dtype not in (dt.int64, dt.int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if max(index.dim(), 1) != max(self.dim(), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and max(index.dim(), 1) != max(src.dim(), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    isz, ssz = index._size or (1,), self._size or (1,)
    if src is not None:
        if src.dtype is not self.dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        rsz = src._size or (1,)
        if any((i != d and isz[i] > ssz[i]) or isz[i] > rsz[i] for i in range(len(isz))):
            raise RuntimeError(f"Expected index {list(index._size)} to be no larger than self "
                               f"{list(self._size)} apart from dimension {d} and to be no larger "
                               f"size than src {list(src._size)}")
    else:
        if any(i != d and isz[i] > ssz[i] for i in range(len(isz))):
            raise RuntimeError(f"Expected index {list(index._size)} to be no larger than self "
                               f"{list(self._size)} apart from dimension {d}")
    if index.numel():
        a = _host(index)
        bad = _oob(a, ssz[d])
        if bad is None and (a < 0).any():
            bad = a[a < 0].reshape(-1)[0]
        if bad is not None:
            raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size "
                               f"{ssz[d]}")
    return isz, ssz


_IDENT = {"sum": 0, "mean": 0, "prod": 1}


def _scatter_core(mode, d, isz, ssz, include_self=True, src_is_tensor=True):
    """A pure function (self, index, src) -> new self for one scatter flavour: "set" (scatter),
    "add" (scatter_add), "reduce_add"/"reduce_multiply" (scatter's `reduce=`, not
    differentiable in PyTorch) or a scatter_reduce mode."""
    def f(a, idx, src):
        shp = a.shape
        a2 = a.reshape(ssz)
        if 0 in isz:
            return a
        i2 = idx.reshape(isz)
        if src_is_tensor:
            v = src.reshape(src.shape or (1,))[tuple(slice(0, s) for s in isz)]
        else:
            v = jnp.broadcast_to(src.astype(a.dtype), isz)
        c = _coords(isz, d, i2)
        if mode == "set":
            r = _set_rule(("coords", d))(a2, v, (i2,))
        elif mode in ("add", "reduce_add"):
            r = _at_add(a2, c, v)
        elif mode == "reduce_multiply":
            r = _at_mul(a2, c, v)
        else:
            r = _reduce_rule(("coords", d), mode, include_self)(a2, v, (i2,))
        return r.reshape(shp)
    return f


def _lowest(d):
    d = jnp.dtype(d)
    if d == jnp.bool_:
        return False
    return -jnp.inf if jnp.issubdtype(d, jnp.inexact) else jnp.iinfo(d).min


def _highest(d):
    d = jnp.dtype(d)
    if d == jnp.bool_:
        return True
    return jnp.inf if jnp.issubdtype(d, jnp.inexact) else jnp.iinfo(d).max


def _scatter(self, dim, index, src=None, value=None, reduce=None, inplace=False, out=None):
    d = _wrap_dim(dim, self.dim())
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    is_t = isinstance(src, Tensor)
    if not is_t:
        value = src if src is not None else value
    isz, ssz = _scatter_checks("scatter", self, d, index, src if is_t else None)
    mode = "reduce_" + reduce if reduce else "set"
    k = _kernel(("scatter", mode, d, isz, ssz, is_t),
                lambda: _scatter_core(mode, d, isz, ssz, True, is_t))
    if reduce:
        name = "NotImplemented"
    else:
        name = "ScatterBackward0" if is_t else "ScatterBackward1"
    v = src if is_t else _scalar_array(value, self.dtype, self._st.device)
    res = _run(name, k, self, [index, v], inplace, out, saved=(index,), op="scatter",
               devices=_wrapper_devices("scatter", "src" if is_t else "value", inplace))
    return _check_src_grad(res, name, index, src) if is_t else res


def scatter(input, dim, index, src=None, *, value=None, reduce=None, out=None):
    """Mirrors `torch.scatter` (tensor `src` or scalar `value`, optional `reduce`)."""
    return _scatter(input, dim, index, src, value, reduce, False, out)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    """Mirrors `Tensor.scatter_`."""
    return _scatter(self, dim, index, src, value, reduce, True)


def _scatter_add(self, dim, index, src, inplace, out=None):
    d = _wrap_dim(dim, self.dim())
    isz, ssz = _scatter_checks("scatter_add", self, d, index, src)
    k = _kernel(("scatter", "add", d, isz, ssz, True),
                lambda: _scatter_core("add", d, isz, ssz, True, True))
    res = _run("ScatterAddBackward0", k, self, [index, src], inplace, out, saved=(index,),
               op="scatter_add", devices=_wrapper_devices("scatter_add", None, inplace))
    return _check_src_grad(res, "ScatterAddBackward0", index, src)


def scatter_add(input, dim, index, src, *, out=None):
    """Mirrors `torch.scatter_add`."""
    return _scatter_add(input, dim, index, src, False, out)


def scatter_add_(self, dim, index, src):
    """Mirrors `Tensor.scatter_add_`."""
    return _scatter_add(self, dim, index, src, True)


def _scatter_reduce(self, dim, index, src, reduce, include_self, inplace, out=None):
    d = _wrap_dim(dim, self.dim())
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    isz, ssz = _scatter_checks("scatter_reduce", self, d, index, src)
    include_self = bool(include_self)
    k = _kernel(("scatter", reduce, d, isz, ssz, True, include_self),
                lambda: _scatter_core(reduce, d, isz, ssz, include_self, True))
    res = _run("ScatterReduceBackward0", k, self, [index, src], inplace, out,
               saved=(self, index, src), save_result=True, op="scatter_reduce")
    return _check_src_grad(res, "ScatterReduceBackward0", index, src)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Mirrors `torch.scatter_reduce`."""
    return _scatter_reduce(input, dim, index, src, reduce, include_self, False, out)


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """Mirrors `Tensor.scatter_reduce_`."""
    return _scatter_reduce(self, dim, index, src, reduce, include_self, True)


# ---- index_* along one dim ---------------------------------------------------------------------

def _vec_index(index):
    return index._value().reshape(-1)


_INDEX_SELECT_DEVICES = ("wrapper_CUDA__index_select", ("self", "index"))


def index_select(input, dim, index, *, out=None):
    """Mirrors `torch.index_select`."""
    if isinstance(index, Tensor) and not device_rules.agree([input, index]):
        device_rules.check_operands([input, index], _INDEX_SELECT_DEVICES)
    n = input.dim()
    d = _wrap_dim(dim, n)
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if out is not None and has_internal_overlap(out._size, out._stride):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if index.dtype not in (dt.int64, dt.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if not n and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{index.numel()} value(s)")
    size = input._size[d] if n else 1
    if index.numel():
        a = _host(index)
        bad = (a < 0) | (a >= size)
        if bad.any():
            if d != 1:  # PyTorch's CPU kernel has a dim-1 path with its own message
                raise IndexError("index out of range in self")
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={a[bad].reshape(-1)[0]} "
                               f"axis_dim={size}")

    def build():
        def f(a, idx):
            if a.ndim == 0:
                return a.reshape(1)[idx.reshape(-1)].reshape(())
            return jnp.take(a, idx.reshape(-1), axis=d)
        return f
    return _run("IndexSelectBackward0", _kernel(("index_select", d), build), input, [index],
                out=out, saved=(index,), op="index_select")


def _index_dim_checks(name, self, d, index, source, msgs):
    if index.dim() > 1:
        raise IndexError(msgs["vector"].format(dim=index.dim(), type=short_name(index.dtype),
                                               size=list(index._size)))
    if index.dtype not in msgs["dtypes"]:
        raise msgs["dtype_exc"](msgs["dtype"].format(short_name(index.dtype)))
    nidx = index.numel()
    if source is not None:
        if source.dtype is not self.dtype and "same" in msgs:
            raise RuntimeError(msgs["same"].format(short_name(self.dtype),
                                                   short_name(source.dtype)))
        ssz = source._size[d] if source.dim() else 1
        if nidx != ssz:
            raise msgs.get("count_exc", RuntimeError)(msgs["count"].format(nidx, ssz, d))
        if "shape" in msgs and source.dim() and self.dim() and (
                source.dim() != self.dim() or
                any(i != d and a != b for i, (a, b) in enumerate(zip(self._size, source._size)))):
            raise RuntimeError(msgs["shape"].format(list(self._size), list(source._size)))
    size = self._size[d] if self.dim() else 1
    if nidx:
        a = _host(index)
        bad = _oob(a, size)
        if bad is not None:
            raise msgs.get("oob_exc", RuntimeError)(
                msgs.get("oob_prefix", "") +
                f"index {bad} is out of bounds for dimension {d} with size {size}")


_ADD_MSGS = {
    "vector": "index_add_(): Index is supposed to be a vector, but got dim: {dim} with type: "
              "{type} and size: {size}",
    "dtypes": (dt.int64, dt.int32), "dtype_exc": RuntimeError,
    "dtype": "index_add_(): Expected dtype int32/int64 for index but got: {}",
    "same": "index_add_(): self ({}) and source ({}) must have the same scalar type",
    "count": "index_add_(): Number of indices ({}) should be equal to source.size(dim): ({}), "
             "for dim: {}",
    "shape": "source tensor shape must match self tensor shape, excluding the specified "
             "dimension. Got self.shape = {} source.shape = {}",
}
_COPY_MSGS = {
    "vector": "index_copy_(): Index should have dimension 1 or 0 (got {dim})",
    "dtypes": (dt.int64,), "dtype_exc": RuntimeError,
    "dtype": "index_copy_(): Expected a long tensor for index, but got {}",
    "same": "index_copy_(): self and source expected to have the same dtype, but got (self) {} "
            "and (source) {}",
    "count": "index_copy_(): Number of indices ({}) should be equal to source.size(dim) ({})",
    "count_exc": IndexError, "oob_exc": IndexError, "oob_prefix": "index_copy_(): ",
}
_FILL_MSGS = {
    "vector": "Index has to be a vector/scalar",
    "dtypes": (dt.int64,), "dtype_exc": IndexError,
    "dtype": "index_fill_(): Expected dtype int64 for index.",
    "oob_exc": IndexError,
}
_REDUCE_MSGS = {
    "vector": "index_reduce_(): Index is supposed to be a vector, but got dim: {dim} with type: "
              "{type} and size: {size}",
    "dtypes": (dt.int64, dt.int32), "dtype_exc": RuntimeError,
    "dtype": "index_reduce_(): Expected dtype int32/int64 for index but got: {}",
    "same": "index_reduce_(): self ({}) and source ({}) must have the same scalar type",
    "count": "index_reduce_(): Number of indices ({}) should be equal to source.size(dim): ({}), "
             "for dim: {}",
}


def _along(d, ndim, idx):
    return tuple(idx if i == d else slice(None) for i in range(ndim))


def _index_op_kernel(kind, d, include_self=True):
    def build():
        def f(a, idx, v, alpha):
            shp = a.shape
            a2 = a.reshape(shp or (1,))
            i = idx.reshape(-1)
            key = _along(d, a2.ndim, i)
            if kind == "fill":
                mask = jnp.zeros(a2.shape, jnp.bool_).at[key].set(True)
                return jnp.where(mask, v.astype(a.dtype), a2).reshape(shp)
            v2 = v.reshape(tuple(a2.shape[j] if j != d else i.shape[0]
                                 for j in range(a2.ndim)))
            if kind == "add":
                if a.dtype == jnp.bool_:
                    r = a2.at[key].max(v2 & alpha.astype(jnp.bool_))
                else:
                    r = a2.at[key].add(v2 * alpha.astype(a.dtype))
            elif kind == "copy":
                r = _set_rule(("along", d))(a2, v2, (i,))
            else:
                r = _reduce_rule(("along", d), kind, include_self)(a2, v2, (i,))
            return r.reshape(shp)
        return f
    return _kernel(("index_op", kind, d, include_self), build)


def _index_add(self, dim, index, source, alpha, inplace, out=None):
    d = _wrap_dim(dim, self.dim())
    _index_dim_checks("index_add", self, d, index, source, _ADD_MSGS)
    return _run("IndexAddBackward0", _index_op_kernel("add", d), self,
                [index, source, np.asarray(alpha)], inplace, out, saved=(index, source),
                op="index_add", devices=_wrapper_devices("index_add", None, inplace, "source"))


def index_add(input, dim, index, source, *, alpha=1, out=None):
    """Mirrors `torch.index_add`."""
    return _index_add(input, dim, index, source, alpha, False, out)


def index_add_(self, dim, index, source, *, alpha=1):
    """Mirrors `Tensor.index_add_`."""
    return _index_add(self, dim, index, source, alpha, True)


def _index_copy(self, dim, index, source, inplace, out=None):
    d = _wrap_dim(dim, self.dim())
    _index_dim_checks("index_copy", self, d, index, source, _COPY_MSGS)
    return _run("IndexCopyBackward0", _index_op_kernel("copy", d), self,
                [index, source, np.asarray(1)], inplace, out, saved=(index, source),
                op="index_copy")


@_autocast_op("index_copy")
def index_copy(input, dim, index, source, *, out=None):
    """Mirrors `torch.index_copy`."""
    return _index_copy(input, dim, index, source, False, out)


def index_copy_(self, dim, index, source):
    """Mirrors `Tensor.index_copy_`."""
    return _index_copy(self, dim, index, source, True)


def _index_fill(self, dim, index, value, inplace):
    d = _wrap_dim(dim, self.dim())
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    _index_dim_checks("index_fill", self, d, index, None, _FILL_MSGS)
    if isinstance(value, Tensor):
        name = "IndexFillBackward1"
    else:
        name, value = "IndexFillBackward0", _scalar_array(value, self.dtype, self._st.device)
    return _run(name, _index_op_kernel("fill", d), self, [index, value, np.asarray(1)], inplace,
                saved=(index,))


def index_fill(input, dim, index, value):
    """Mirrors `torch.index_fill`."""
    return _index_fill(input, dim, index, value, False)


def index_fill_(self, dim, index, value):
    """Mirrors `Tensor.index_fill_`."""
    return _index_fill(self, dim, index, value, True)


def _index_reduce(self, dim, index, source, reduce, include_self, inplace, out=None):
    d = _wrap_dim(dim, self.dim())
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    _index_dim_checks("index_reduce", self, d, index, source, _REDUCE_MSGS)
    return _run("IndexReduceBackward0", _index_op_kernel(reduce, d, bool(include_self)), self,
                [index, source, np.asarray(1)], inplace, out, saved=(self, index, source),
                save_result=True, op="index_reduce")


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """Mirrors `torch.index_reduce`."""
    return _index_reduce(input, dim, index, source, reduce, include_self, False, out)


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """Mirrors `Tensor.index_reduce_`."""
    return _index_reduce(self, dim, index, source, reduce, include_self, True)


def _index_put_op(self, indices, values, accumulate, inplace):
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put{'_' if inplace else ''}(): argument 'values' (position 2) "
                        f"must be Tensor, not {type(values).__name__}")
    indices = tuple(indices)
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    if len(indices) > self.dim() and not (self.dim() == 0 and len(indices) == 1):
        raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got "
                         f"{len(indices)})")
    size, stride, offset, advanced = _basic(self, tuple(
        slice(None) if i is None else i for i in indices))
    if advanced is None:
        advanced = []
    if not advanced or not _same_layout(self, size, stride, offset):
        # no index tensor (all None), or a bool index that adds a dim: write through a view
        target = self if inplace else wrap(self._value(), self.device)
        dst = make_view(target, size, stride, offset)
        if not advanced:
            from .conversion import copy_
            if accumulate:
                v = values._value().astype(dst.dtype.np)
                dst._assign(dst._value() | v if dst.dtype is dt.bool_ else dst._value() + v)
            else:
                copy_(dst, values)
            return target
    else:
        dst = self
    dims, idxs = _expand_advanced(advanced, dst._st.device)
    bshape = _check_bounds(size, dims, idxs, dst._st.device)
    res = _index_put(dst, dims, idxs, None, values, _index_result_shape(size, dims, bshape),
                     bool(accumulate), _index_tensors(advanced), inplace or dst is not self)
    return res if dst is self else target


def index_put(input, indices, values, accumulate=False):
    """Mirrors `torch.index_put`."""
    return _index_put_op(input, indices, values, accumulate, False)


def index_put_(self, indices, values, accumulate=False):
    """Mirrors `Tensor.index_put_`."""
    return _index_put_op(self, indices, values, accumulate, True)


# ---- masked ------------------------------------------------------------------------------------

def _masked_fill(self, mask, value, inplace):
    if mask._st.device != self._st.device:
        raise RuntimeError(f"expected self and mask to be on the same device, but got mask on "
                           f"{mask._st.device} and self on {self._st.device}")
    if mask.dtype is not dt.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask "
                           f"with dtype {_c_name(mask.dtype)}")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    if isinstance(value, Tensor) and value.dtype.is_complex and not self.dtype.is_complex and \
            self.dtype is not dt.bool_:
        raise RuntimeError(f"value cannot be converted to type "
                           f"{dt.C_SCALAR_NAMES.get(self.dtype.name, self.dtype.name)} without "
                           f"overflow")
    shape = _check_broadcast((mask._size, self._size))
    if inplace and shape != self._size:
        raise RuntimeError(f"output with shape {list(self._size)} doesn't match the broadcast "
                           f"shape {list(shape)}")

    def build():
        def f(a, m, v):
            return jnp.where(m, v.astype(a.dtype), a)
        return f
    if isinstance(value, Tensor):
        name = "MaskedFillBackward1"
    else:
        name, value = "MaskedFillBackward0", _scalar_array(value, self.dtype, self._st.device)
    return _run(name, _kernel(("masked_fill",), build), self, [mask, value], inplace,
                saved=(mask,), elementwise=True)


_c_name = dt.c_type_name


def masked_fill(input, mask, value):
    """Mirrors `torch.masked_fill`."""
    return _masked_fill(input, mask, value, False)


def masked_fill_(self, mask, value):
    """Mirrors `Tensor.masked_fill_`."""
    return _masked_fill(self, mask, value, True)


def _masked_scatter(self, mask, source, inplace):
    if mask.dtype is not dt.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{short_name(mask.dtype)}")
    if source.dtype is not self.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{short_name(self.dtype)} and {short_name(source.dtype)}")
    if inplace and mask.dim() > self.dim():  # PyTorch expands the mask to self's shape
        raise RuntimeError(f"expand(CPUBoolType{{{list(mask._size)}}}, size={list(self._size)}): "
                           f"the number of sizes provided ({self.dim()}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({mask.dim()})")
    shape = _check_broadcast((self._size, mask._size))
    if inplace and shape != self._size:
        raise RuntimeError(f"output with shape {list(self._size)} doesn't match the broadcast "
                           f"shape {list(shape)}")
    m = np.broadcast_to(_host(mask), shape)
    if int(m.sum()) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")

    def build():
        def f(a, mk, s):
            a = jnp.broadcast_to(a, shape)
            mk = jnp.broadcast_to(mk, shape).reshape(-1)
            pos = jnp.cumsum(mk.astype(jnp.int64)) - 1
            flat = s.reshape(-1)
            if flat.shape[0] == 0:
                return a
            vals = flat[jnp.clip(pos, 0, flat.shape[0] - 1)]
            return jnp.where(mk, vals, a.reshape(-1)).reshape(shape)
        return f
    return _run("MaskedScatterBackward0", _kernel(("masked_scatter", shape), build), self,
                [mask, source], inplace, saved=(mask,))


def masked_scatter(input, mask, source):
    """Mirrors `torch.masked_scatter`."""
    return _masked_scatter(input, mask, source, False)


def masked_scatter_(self, mask, source):
    """Mirrors `Tensor.masked_scatter_`."""
    return _masked_scatter(self, mask, source, True)


def masked_select(input, mask, *, out=None):
    """Mirrors `torch.masked_select` (host-side nonzero: the size depends on the mask)."""
    if mask.dtype is not dt.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _check_broadcast((input._size, mask._size))
    m = np.broadcast_to(_host(mask), shape).reshape(-1)
    idx = np.flatnonzero(m)

    def build():
        def f(a, i):
            return jnp.broadcast_to(a, shape).reshape(-1)[i]
        return f
    return _run("MaskedSelectBackward0", _kernel(("masked_select", shape), build), input, [idx],
                out=out, saved=(input, mask), op="masked_select")


# ---- flat take / put ---------------------------------------------------------------------------

def _flat_bounds(index, n):
    if index.numel():
        bad = _oob(_host(index), n)
        if bad is not None:
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                             "elements.")


def take(input, index, *, out=None):
    """Mirrors `torch.take`."""
    if index.dtype is not dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{short_name(index.dtype)}")
    n = input.numel()
    _flat_bounds(index, n)

    def build():
        def f(a, i):
            if a.size == 0:
                return jnp.zeros(i.shape, a.dtype)
            return a.reshape(-1)[i]
        return f
    return _run("TakeBackward0", _kernel(("take",), build), input, [index], out=out,
                saved=(input, index), op="take")


def take_along_dim(input, indices, dim=None, *, out=None):
    """Mirrors `torch.take_along_dim`."""
    if indices.dtype is not dt.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{short_name(indices.dtype)}")
    if dim is None:
        flat_in = input.reshape(-1)
        return gather(flat_in, 0, indices.reshape(-1), out=out, _save_index=False)
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {input.dim()} dimensions for input, and "
                           f"{indices.dim()} dimensions for indices")
    d = _wrap_dim(dim, input.dim())
    isz = list(input._size)
    jsz = list(indices._size)
    isz[d] = 1
    jsz[d] = 1
    b = list(_check_broadcast((tuple(isz), tuple(jsz))))
    bi, bj = list(b), list(b)
    bi[d] = input._size[d]
    bj[d] = indices._size[d]
    return gather(input.expand(*bi), d, indices.expand(*bj), out=out, _save_index=False,
                  _negative=True)


def _put(self, index, source, accumulate, inplace):
    if index.dtype is not dt.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{short_name(index.dtype)}")
    if source.dtype is not self.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {short_name(self.dtype)} and source.dtype = "
                           f"{short_name(source.dtype)}")
    if source.numel() != index.numel():
        raise IndexError("put_(): Expected source and index to have the same number of elements, "
                         f"but got source.numel() = {source.numel()}, index.numel() = "
                         f"{index.numel()}")
    n = self.numel()
    _flat_bounds(index, n)
    acc = bool(accumulate)

    def build():
        def f(a, i, s):
            if i.size == 0:
                return a
            flat, i, s = a.reshape(-1), (i.reshape(-1),), s.reshape(-1)
            r = _at_add(flat, i, s) if acc else _set_rule(("adv", (0,)))(flat, s, i)
            return r.reshape(a.shape)
        return f
    return _run("PutBackward0", _kernel(("put", acc), build), self, [index, source], inplace,
                saved=(index, source))


def put(input, index, source, accumulate=False):
    """Mirrors `torch.put`."""
    return _put(input, index, source, accumulate, False)


def put_(self, index, source, accumulate=False):
    """Mirrors `Tensor.put_`."""
    return _put(self, index, source, accumulate, True)


# ---- nonzero -----------------------------------------------------------------------------------

def nonzero(input, *, out=None, as_tuple=False):
    """Mirrors `torch.nonzero` (host-side: the size depends on the values)."""
    a = _host(input)
    if as_tuple:
        nz = np.nonzero(a.reshape(1) if a.ndim == 0 else a)
        return tuple(wrap(_to_device(i.astype(np.int64), input.device), input.device)
                     for i in nz)
    if a.ndim == 0:
        res = _to_device(np.zeros((int(bool(a)), 0), np.int64), input.device)
    else:
        res = _to_device(np.argwhere(a).astype(np.int64).reshape(-1, a.ndim), input.device)
    return _finish(input, res, False, out)


def argwhere(input):
    """Mirrors `torch.argwhere`."""
    return nonzero(input)


def nonzero_static(input, *, size, fill_value=-1):
    """Mirrors `torch.nonzero_static`: the first `size` coordinates of the nonzeros, padded with
    `fill_value` (a fixed result shape, so it runs as one kernel: no host round trip)."""
    size = operator.index(size)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    fill = operator.index(fill_value)

    def build():
        def f(a):
            if a.ndim == 0:
                return jnp.zeros((size, 0), jnp.int64)
            coords = jnp.nonzero(a, size=size, fill_value=fill)
            return jnp.stack([c.astype(jnp.int64) for c in coords], axis=1)
        return f
    return _run("NonzeroStaticBackward0", _kernel(("nonzero_static", size, fill), build),
                input, [])


def unravel_index(indices, shape):
    """Mirrors `torch.unravel_index`: flat indices into a tuple of coordinate tensors."""
    if isinstance(shape, int):
        shape = (shape,)
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got "
                        f"{type(shape)}")
    for s in shape:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got "
                            f"{type(s)}")
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices.dtype.is_floating_point or indices.dtype.is_complex or \
            indices.dtype is dt.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    strides = tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))

    def build():
        def f(idx):
            idx = idx.astype(jnp.int64)
            return tuple(jnp.remainder(jnp.floor_divide(idx, st), n) if n else
                         jnp.zeros_like(idx) for st, n in zip(strides, shape))
        return f
    k = _kernel(("unravel_index", shape), build)
    return tuple(wrap(r, indices.device) for r in k(indices._value()))


# ---- *_scatter (out-of-place embeds) -----------------------------------------------------------

def _embed(input, src, view_fn, name):
    from .conversion import copy_
    out = wrap(input._value(), input.device)
    with _no_grad():
        v = view_fn(out)
    if v._size != src._size:
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._size)}, slice size = {list(v._size)}")
    if _GRAD[0] and (input._requires_grad or src._requires_grad):
        from ..autograd.function import apply_jax
        return apply_jax(_embed_fn(v._size, v._stride), [input, src, np.int64(v._offset)],
                         name)[0]
    copy_(v, src)
    out._vc[0] = 0
    return out


class _no_grad:
    def __enter__(self):
        self.prev = _GRAD[0]
        _GRAD[0] = False

    def __exit__(self, *a):
        _GRAD[0] = self.prev


@functools.lru_cache(maxsize=None)
def _embed_fn(size, stride):
    """`a` with the (size, stride, offset) region of its contiguous layout replaced by `s`."""
    return programs.jit(lambda a, s, off: layout.write_impl(a, off, s, size, stride),
                        ("index.embed", size, stride))


def select_scatter(input, src, dim, index):
    """Mirrors `torch.select_scatter`."""
    return _embed(input, src, lambda t: t.select(dim, index), "SelectScatterBackward0")


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """Mirrors `torch.slice_scatter`."""
    def view(t):
        d = _wrap_dim(dim, t.dim())
        key = (slice(None),) * d + (slice(start, end, step),)
        return getitem(t, key)
    return _embed(input, src, view, "SliceScatterBackward0")


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """Mirrors `torch.as_strided_scatter`."""
    return _embed(input, src, lambda t: t.as_strided(size, stride, storage_offset),
                  "AsStridedScatterBackward0")


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """Mirrors `torch.diagonal_scatter`."""
    return _embed(input, src, lambda t: t.diagonal(offset, dim1, dim2),
                  "DiagonalScatterBackward0")


for _f in (gather, scatter, scatter_add, scatter_reduce, index_select, index_add, index_copy,
           index_fill, index_put, index_reduce, masked_fill, masked_scatter, masked_select, take,
           take_along_dim, put, nonzero, argwhere, select_scatter, slice_scatter,
           diagonal_scatter, as_strided_scatter, nonzero_static):
    # PyTorch's NumPy spelling `axis=` for `dim` (`x.gather(axis=1, index=i)`)
    _register(numpy_names(_f) if _f in (gather, index_select) else _f, _f.__name__)
for _f in (scatter_, scatter_add_, scatter_reduce_, index_add_, index_copy_, index_fill_,
           index_put_, index_reduce_, masked_fill_, masked_scatter_, put_):
    _register(_f, _f.__name__, function=_f.__name__ in ("index_put_",))
_register(unravel_index, "unravel_index", method=False)
