"""`Storage`: one buffer shared by every tensor that aliases it.

The buffer is a JAX array kept in the shape of the tensor that created it (its *natural* shape,
so the common whole-tensor read is free), or a flat NumPy array once the storage is shared with
NumPy (`from_numpy`, `Tensor.numpy()`), so writes on either side are seen on the other, or a
*padded* JAX array (`_phys`: the dims `_pdims` at their size classes, the extra elements
unspecified) made by a kernel compiled for a size class (see `_core/buckets.py`); code that
does not handle padding calls `unpad()` first.
Mirrors `torch.UntypedStorage` / `torch.TypedStorage` as far as users see them.
"""
import math
import sys
import warnings

import numpy as np

_refs = sys.getrefcount
_ALIGN = 64
_next_ptr = [0x5A000000 * _ALIGN]


def _fake_ptr(nbytes):
    """A stable, aligned, non-overlapping fake address for a storage (for `data_ptr`)."""
    p = _next_ptr[0]
    _next_ptr[0] = p + (-(-max(nbytes, 1) // _ALIGN) + 1) * _ALIGN
    return p


class Storage:
    """The shared buffer: `_data` (JAX array) or `_np` (flat NumPy array), dtype, device."""

    __slots__ = ("_data", "_np", "_phys", "_pdims", "dtype", "device", "numel", "shape", "_ptr",
                 "resizable", "shared", "__weakref__")

    def __init__(self, data, dtype, device, ptr=None):
        shape = tuple(data.shape)
        fill(self, data, dtype, device, shape, math.prod(shape), ptr)

    @classmethod
    def from_numpy_flat(cls, flat, dtype, device, resizable=True):
        """A storage over a flat, writable NumPy buffer, shared with it (memory NumPy owns, as
        `torch.from_numpy`'s, cannot grow: `resizable=False`)."""
        st = cls.__new__(cls)
        st._data = None
        st._np = flat
        st._phys = None
        st._pdims = ()
        st.resizable = resizable
        st.shared = False
        st.dtype = dtype
        st.device = device
        st.shape = (flat.shape[0],)
        st.numel = flat.shape[0]
        st._ptr = flat.ctypes.data if flat.size else 0
        return st

    @property
    def ptr(self):
        """A stable address for `data_ptr` (a real one when shared with NumPy, else assigned on
        first use so that creating a storage costs nothing)."""
        if self._ptr is None:
            self._ptr = _fake_ptr(self.nbytes)
        return self._ptr

    @property
    def nbytes(self):
        return self.numel * self.dtype.itemsize

    def array(self):
        """The whole buffer as a JAX array in the storage's natural shape (a copy when shared
        with NumPy)."""
        if self._data is not None:
            return self._data
        if self._phys is not None:
            return self.unpad()
        from .device import put
        return put(self._np.reshape(self.shape))

    def unpad(self):
        """Drop a padded buffer's extra elements (one slicing kernel per shape): the buffer is
        then a JAX array in the natural shape, which it returns (None for NumPy-shared)."""
        p = self._phys
        if p is not None:
            from .buckets import unpadded
            self._data = unpadded(p, self.shape)
            self._phys = None
            self._pdims = ()
        return self._data

    def share_with_numpy(self):
        """Move the buffer to a writable flat NumPy array and return it. The storage keeps its
        natural shape, so that `reclaim` can move the buffer back."""
        self.unpad()
        if self._np is None:
            self._np = np.array(self._data).reshape(-1)
            self._data = None
            if self._ptr is None and self._np.size:
                # data_ptr() is the NumPy buffer's address, as in PyTorch (unless an address
                # was handed out already: a storage's address never changes)
                self._ptr = self._np.ctypes.data
        return self._np

    def reclaim(self):
        """Move a NumPy-shared buffer back to a JAX array when nothing outside the storage holds
        the NumPy memory any more (the arrays `numpy()` returned are gone: no one can see the
        difference), so that later ops cost what they cost before it was shared. O(1) when it
        cannot; True when the buffer is a JAX array now."""
        a = self._np
        if a is None:
            return True
        if self.shared:
            return False
        base = a.base
        if base is not None and (type(base) is not np.ndarray or base.base is not None or
                                 not base.flags.owndata):
            return False   # memory owned by something else (DLPack, a buffer, a mmap)
        # `a` is held by the storage, the name `a` and getrefcount's argument; its base (the
        # memory's owner, which every NumPy view of it holds) by `a`, `base` and the argument
        if _refs(a) > 3 or (base is not None and _refs(base) > 3):
            return False
        from .device import put
        self._data = put(a.reshape(self.shape))   # (jnp.asarray compiles a program per shape)
        self._np = None
        return True


def fill(st, data, dtype, device, shape, numel, ptr=None):
    """Initialise storage `st` to hold `data` (of shape `shape`, `numel` elements):
    `Storage.__init__`, also used directly where the shape is known (no array reads)."""
    st._data = data
    st._np = None
    st._phys = None
    st._pdims = ()
    st.resizable = True
    st.shared = False  # set by `share_memory_` (read by `is_shared`)
    st.dtype = dtype
    st.device = device
    st.shape = shape
    st.numel = numel
    st._ptr = ptr


class UntypedStorage:
    """Mirrors `torch.UntypedStorage` as returned by `Tensor.untyped_storage()`."""

    __slots__ = ("_st",)

    def __init__(self, st):
        self._st = st

    def nbytes(self):
        return self._st.nbytes

    def size(self):
        return self._st.nbytes

    __len__ = size

    def data_ptr(self):
        return self._st.ptr

    def element_size(self):
        return 1

    @property
    def device(self):
        return self._st.device

    def __eq__(self, other):
        return isinstance(other, UntypedStorage) and other._st is self._st

    def __hash__(self):
        return id(self._st)

    def tolist(self):
        return list(np.asarray(self._st.array()).reshape(-1).view(np.uint8))

    def __repr__(self):
        data = "\n".join(f" {b}" for b in self.tolist())
        return f"{data}\n[torch.storage.UntypedStorage(device={self._st.device}) of size {self.nbytes()}]"


class TypedStorage:
    """Mirrors `torch.TypedStorage` (deprecated in PyTorch, returned by `Tensor.storage()`)."""

    __slots__ = ("_st",)

    _warned = False  # PyTorch warns of the deprecation once per process

    def __init__(self, st):
        if not TypedStorage._warned:
            TypedStorage._warned = True
            warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                          "UntypedStorage will be the only storage class. This should only "
                          "matter to you if you are using storages directly.  To access "
                          "UntypedStorage directly, use tensor.untyped_storage() instead of "
                          "tensor.storage()", UserWarning, stacklevel=3)
        self._st = st

    def __sizeof__(self):
        return super().__sizeof__() + self.nbytes()

    def size(self):
        return self._st.numel

    __len__ = size

    def nbytes(self):
        return self._st.nbytes

    def element_size(self):
        return self._st.dtype.itemsize

    def data_ptr(self):
        return self._st.ptr

    @property
    def dtype(self):
        return self._st.dtype

    @property
    def device(self):
        return self._st.device

    def untyped(self):
        return UntypedStorage(self._st)

    def tolist(self):
        return np.asarray(self._st.array()).reshape(-1).tolist()

    def __getitem__(self, i):
        return self.tolist()[i]

    def __eq__(self, other):
        return isinstance(other, TypedStorage) and other._st is self._st

    def __hash__(self):
        return id(self._st)

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return (f"{body}\n[torch.storage.TypedStorage(dtype={self._st.dtype}, "
                f"device={self._st.device}) of size {self._st.numel}]")
