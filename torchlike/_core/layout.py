"""Strided layouts: stride arithmetic, and the cached JAX kernels that read a layout out of a
storage buffer or write values back into it.

A layout is (size, stride, offset) over a storage whose buffer is a JAX array of some natural
shape. Only the storage shape, size and stride are static; the offset is a traced argument, so
`x[i]` for a changing `i` reuses one compiled kernel.
"""
import functools
import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from . import programs
from .casting import cast


def host_strided(base, shape, strides):
    """`np.lib.stride_tricks.as_strided`, also for dtypes NumPy cannot describe in an array
    interface (the 8-bit floats: done on their bits)."""
    if base.dtype.itemsize == 1 and base.dtype.kind not in "biu":
        return np.lib.stride_tricks.as_strided(base.view(np.uint8), shape, strides).view(
            base.dtype)
    return np.lib.stride_tricks.as_strided(base, shape, strides)


@functools.lru_cache(maxsize=4096)
def contiguous_strides(size):
    """Row-major strides for `size` (PyTorch's: size-1 dims still get the running product)."""
    strides = []
    acc = 1
    for n in reversed(size):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def numel(size):
    return math.prod(size)


def is_contiguous(size, stride):
    """Mirrors `Tensor.is_contiguous`: size-1 dims may have any stride."""
    if 0 in size:
        return True
    expected = 1
    for n, s in zip(reversed(size), reversed(stride)):
        if n != 1:
            if s != expected:
                return False
            expected *= n
    return True


def has_internal_overlap(size, stride):
    """True when two elements of the layout alias one memory location (an expanded dim)."""
    return any(s == 0 and n > 1 for n, s in zip(size, stride))


def compute_view_stride(old_size, old_stride, new_size):
    """PyTorch's `computeStride`: strides for viewing (old_size, old_stride) as new_size, or None."""
    if not old_size:
        return tuple(1 for _ in new_size)
    n = numel(old_size)
    if n == 0:
        if tuple(old_size) == tuple(new_size):
            return tuple(old_stride)
        return contiguous_strides(tuple(new_size))
    new_stride = [0] * len(new_size)
    view_d = len(new_size) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_size) - 1, -1, -1):
        tensor_numel *= old_size[tensor_d]
        if tensor_d == 0 or (old_size[tensor_d - 1] != 1 and
                             old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_size[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_size[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def _plan(size, stride):
    """How to read a layout: ('block',) for a contiguous run, ('perm', shape, perm) for a
    permuted contiguous run, or ('gather',); stride-0 dims are broadcast afterwards."""
    keep = [i for i, (n, s) in enumerate(zip(size, stride)) if not (s == 0 and n != 1)]
    ksize = tuple(size[i] for i in keep)
    kstride = tuple(stride[i] for i in keep)
    if is_contiguous(ksize, kstride):
        return keep, ksize, ("block",)
    order = sorted(range(len(ksize)), key=lambda i: -kstride[i])
    psize = tuple(ksize[i] for i in order)
    pstride = tuple(kstride[i] for i in order)
    if is_contiguous(psize, pstride):
        inverse = tuple(np.argsort(order))
        return keep, ksize, ("perm", psize, inverse)
    return keep, ksize, ("gather",)


def _flat_index(size, stride, offset):
    idx = offset
    for d, (n, s) in enumerate(zip(size, stride)):
        if n != 1:
            idx = idx + lax.broadcasted_iota(jnp.int64, size, d) * s
    return jnp.broadcast_to(idx, size)


def read_impl(data, offset, size, stride):
    """Pure function: the (size, stride, offset) view of `data` as an array of shape `size`."""
    flat = data.reshape(-1)
    keep, ksize, plan = _plan(size, stride)
    n = numel(ksize)
    if plan[0] == "block":
        out = lax.dynamic_slice(flat, (offset,), (n,)).reshape(ksize) if n else \
            jnp.zeros(ksize, data.dtype)
    elif plan[0] == "perm":
        out = lax.dynamic_slice(flat, (offset,), (n,)).reshape(plan[1]).transpose(plan[2])
    else:
        kstride = tuple(stride[i] for i in keep)
        out = flat[_flat_index(ksize, kstride, offset)]
    if len(keep) != len(size):
        shape = [1] * len(size)
        for j, i in enumerate(keep):
            shape[i] = ksize[j]
        out = jnp.broadcast_to(out.reshape(shape), size)
    return out


def write_impl(data, offset, values, size, stride):
    """Pure function: `data` with the (size, stride, offset) region replaced by `values`."""
    values = jnp.broadcast_to(cast(values, data.dtype), size)
    flat = data.reshape(-1)
    keep, ksize, plan = _plan(size, stride)
    if len(keep) != len(size):
        # dropped: size-1 dims, and stride-0 dims, which only a uniform fill writes through
        # (any other write to overlapping elements was rejected earlier)
        values = values[tuple(slice(None) if i in keep else 0 for i in range(len(size)))]
    if numel(ksize) == 0:
        return data
    if plan[0] == "block":
        flat = lax.dynamic_update_slice(flat, values.reshape(-1), (offset,))
    elif plan[0] == "perm":
        order = tuple(np.argsort(plan[2]))
        flat = lax.dynamic_update_slice(flat, values.transpose(order).reshape(-1), (offset,))
    else:
        kstride = tuple(stride[i] for i in keep)
        flat = flat.at[_flat_index(ksize, kstride, offset)].set(values)
    return flat.reshape(data.shape)


@functools.lru_cache(maxsize=None)
def reader(size, stride):
    """Cached jitted reader for one (size, stride); storage shape and dtype come from JAX's cache."""
    return programs.jit(functools.partial(read_impl, size=size, stride=stride),
                        ("layout.read", size, stride))


@functools.lru_cache(maxsize=None)
def writer(size, stride):
    """Cached jitted writer for one (size, stride)."""
    return programs.jit(functools.partial(write_impl, size=size, stride=stride),
                        ("layout.write", size, stride))
