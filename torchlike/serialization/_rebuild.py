"""Rebuilding tensors from a checkpoint: the `torch._utils._rebuild_*` functions a pickle calls,
and `StorageRecord`, one per `data/<key>` record, which builds the one torchlike `Storage` that
every tensor of that record shares (same storage, offsets and strides as when saved).
"""
import math

import jax
import numpy as np

from .._core import layout
from .._core.device import jax_device
from .._core.storage import Storage
from .._core.tensor import Tensor, _new


def aligned_empty(nbytes, align=64):
    """A writable uint8 NumPy buffer whose data starts on an `align`-byte boundary (so that
    `jax.device_put` can adopt it on CPU without copying)."""
    raw = np.empty(nbytes + align, np.uint8)
    start = (-raw.ctypes.data) % align
    return raw[start:start + nbytes]


class StorageRecord:
    """The bytes of one storage record and the device they go to; `storage(...)` builds the
    shared `Storage` (once per dtype) the first time a tensor asks for it. Legacy checkpoints
    give the bytes after the tensors are built: `fill` then writes them into the storages."""

    __slots__ = ("raw", "device", "_storages")

    def __init__(self, raw, device):
        self.raw = raw
        self.device = device
        self._storages = {}

    def _array(self, dtype, shape):
        raw = self.raw
        if raw is None:
            n = math.prod(shape)
            a = np.zeros(n, dtype.np)
        else:
            if raw.nbytes % dtype.itemsize:
                raise RuntimeError(f"storage record of {raw.nbytes} bytes does not hold whole "
                                   f"elements of {dtype}")
            a = raw.view(dtype.np)
        return jax.device_put(a.reshape(shape), jax_device(self.device))

    def storage(self, dtype, size, stride, offset, numel):
        st = self._storages.get(dtype)
        if st is None:
            natural = (offset == 0 and math.prod(size) == numel
                       and stride == layout.contiguous_strides(size))
            st = Storage(self._array(dtype, size if natural else (numel,)), dtype, self.device)
            self._storages[dtype] = st
        return st

    def fill(self, raw):
        self.raw = raw
        for dtype, st in self._storages.items():
            st._data = self._array(dtype, st.shape)


class TypedRef:
    """What `persistent_load` gives the pickle: a record seen with a dtype and element count
    (torch's `TypedStorage` in that place); `base` is where an old-style storage view starts."""

    __slots__ = ("record", "dtype", "numel", "base")

    def __init__(self, record, dtype, numel, base=0):
        self.record = record
        self.dtype = dtype
        self.numel = numel
        self.base = base


def _tensor(ref, dtype, storage_offset, size, stride, requires_grad):
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    numel = ref.numel * ref.dtype.itemsize // dtype.itemsize
    offset = int(storage_offset) + ref.base
    st = ref.record.storage(dtype, size, stride, offset, numel)
    t = _new(Tensor, st, size, stride, offset, [0], None)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _set_state(obj, state):
    """Apply pickled object state: a dict of attributes, or (dict, slots)."""
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    for source in (state, slots):
        for k, v in (source or {}).items():
            setattr(obj, k, v)
    return obj


# ---- the torch._utils functions a checkpoint calls (names as in torch) --------------------------

def _rebuild_tensor(storage, storage_offset, size, stride):
    return _tensor(storage, storage.dtype, storage_offset, size, stride, False)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    return _tensor(storage, storage.dtype, storage_offset, size, stride, requires_grad)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                       metadata=None):
    return _tensor(storage, dtype, storage_offset, size, stride, requires_grad)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from ..nn import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    ret = func(*args)
    if type(ret) is not new_type:
        ret = ret.as_subclass(new_type)
    setstate = getattr(type(ret), "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None):
        ret.__setstate__(state)
        return ret
    return _set_state(ret, state)


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    t = data.to(dtype=dtype, device=device)
    t.requires_grad = requires_grad
    return t


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    import torchlike
    return _rebuild_device_tensor_from_cpu_tensor(torchlike.from_numpy(data), dtype, device,
                                                  requires_grad)


def _unsupported(name, kind):
    def rebuild(*args, **kwargs):
        raise RuntimeError(f"torchlike cannot load {kind} (the checkpoint calls "
                           f"torch._utils.{name})")
    rebuild.__name__ = rebuild.__qualname__ = name
    return rebuild


UTILS = (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter,
         _rebuild_parameter_with_state, _rebuild_device_tensor_from_cpu_tensor,
         _rebuild_device_tensor_from_numpy,
         _unsupported("_rebuild_sparse_tensor", "sparse tensors"),
         _unsupported("_rebuild_qtensor", "quantized tensors"),
         _unsupported("_rebuild_nested_tensor", "nested tensors"),
         _unsupported("_rebuild_wrapper_subclass", "wrapper-subclass tensors"),
         _unsupported("_rebuild_meta_tensor_no_storage", "meta tensors"))
