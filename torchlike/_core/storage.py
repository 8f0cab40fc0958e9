"""`Storage`: one buffer shared by every tensor that aliases it.

The buffer is a JAX array kept in the shape of the tensor that created it (its *natural* shape,
so the common whole-tensor read is free), or a flat NumPy array once the storage is shared with
NumPy (`from_numpy`, `Tensor.numpy()`), so writes on either side are seen on the other, or a
*padded* JAX array (`_phys`: the dims `_pdims` at their size classes, the extra elements
unspecified) made by a kernel compiled for a size class (see `_core/buckets.py`); code that
does not handle padding calls `unpad()` first.
Mirrors `torch.UntypedStorage` / `torch.TypedStorage` as far as users see them.
"""
import collections
import math
import sys
import warnings
import weakref

import numpy as np

from .lazy import Pending as _Pending, force as _force, own as _own

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

    __slots__ = ("_raw", "_np", "_phys", "_pdims", "dtype", "device", "numel", "shape", "_ptr",
                 "_hold", "resizable", "shared", "__weakref__")

    def __init__(self, data, dtype, device, ptr=None):
        shape = tuple(data.shape)
        fill(self, data, dtype, device, shape, math.prod(shape), ptr)

    @classmethod
    def from_numpy_flat(cls, flat, dtype, device, resizable=True):
        """A storage over a flat, writable NumPy buffer, shared with it (memory NumPy owns, as
        `torch.from_numpy`'s, cannot grow: `resizable=False`)."""
        st = cls.__new__(cls)
        st._raw = None
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
        st._hold = None
        return st

    @property
    def _data(self):
        """The JAX buffer (None when NumPy-shared or padded). Under fused eager `_raw` may hold
        a `lazy.Pending`: reading `_data` runs its segment first (the op table reads `_raw`)."""
        d = self._raw
        if type(d) is _Pending:
            d = self._raw = _force(d)
        return d

    @_data.setter
    def _data(self, v):
        self._raw = v if type(v) is not _Pending else _held(v, self)

    @property
    def ptr(self):
        """The address `data_ptr` gives. On the CPU a real one that C code may read and write
        (safetensors, ctypes, the buffer protocol): the buffer moves to host memory shared with
        NumPy, and that memory is kept for the storage's life (`_hold`), so the address stays
        the same and never dangles; the next op takes the contents back (`reclaim`), and the
        next `data_ptr` copies them there again. Elsewhere a stable stand-in address."""
        if self.device.type == "cpu" and self.numel:
            if self._np is None:
                self.share_with_numpy(hold=True)
            return self._np.ctypes.data
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

    def share_with_numpy(self, hold=False):
        """Move the buffer to a writable flat NumPy array and return it (the memory of an
        address `data_ptr` handed out, when there is one; with `hold`, this memory is the one
        kept). The storage keeps its natural shape, so that `reclaim` can move the buffer
        back."""
        self.unpad()
        if self._np is None:
            data = np.asarray(self._data).reshape(-1)
            kept = self._hold
            if kept is not None and kept.dtype == data.dtype and kept.shape == data.shape:
                np.copyto(kept, data)
                self._np = kept
            else:
                self._np = np.array(data)
                if hold:
                    self._hold = self._np
                    weakref.finalize(self, _retire, self._np)
            self._data = None
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
        # `a` is held by the storage, the name `a` and getrefcount's argument (and, for a
        # buffer whose address was handed out, by `_hold` and its finalizer); its base (the
        # memory's owner, which every NumPy view of it holds) by `a`, `base` and the argument
        if _refs(a) > 3 + 2 * (self._hold is a) or (base is not None and _refs(base) > 3):
            return False
        from .device import put
        self._data = put(a.reshape(self.shape))   # (jnp.asarray compiles a program per shape)
        self._np = None
        return True


# Host buffers whose address `data_ptr` handed out outlive their storage for a while, so that a
# storage given an address later does not get the one a recently freed storage had (PyTorch's
# storages have their address from birth: `x.reshape(n).data_ptr() == x.data_ptr()` is False
# when the reshape copies, even though the copy is freed before `x.data_ptr()` runs).
_RETIRED = collections.deque()
_RETIRED_BYTES = [0]
_RETIRED_CAP = (256, 256 << 20)   # buffers, bytes


def _retire(buf):
    _RETIRED.append(buf)
    _RETIRED_BYTES[0] += buf.nbytes
    while len(_RETIRED) > _RETIRED_CAP[0] or _RETIRED_BYTES[0] > _RETIRED_CAP[1]:
        _RETIRED_BYTES[0] -= _RETIRED.popleft().nbytes


def _held(p, st):
    """What storage `st` keeps of Pending `p`: its value once its segment has run, else `p`,
    noted as held by `st` (whose buffer becomes the value when the segment runs)."""
    if p.value is not None:
        return p.value
    _own(p, st)
    return p


def fill(st, data, dtype, device, shape, numel, ptr=None):
    """Initialise storage `st` to hold `data` (of shape `shape`, `numel` elements):
    `Storage.__init__`, also used directly where the shape is known (no array reads)."""
    st._raw = data if type(data) is not _Pending else _held(data, st)
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
    st._hold = None


class UntypedStorage:
    """Mirrors `torch.UntypedStorage` (`Tensor.untyped_storage()`, `UntypedStorage(nbytes)`,
    `UntypedStorage.from_file`): bytes, sliced into storages that share them."""

    __slots__ = ("_st",)

    def __init__(self, st=0, *, device=None):
        if isinstance(st, Storage):
            self._st = st
            return
        from . import dtype as dt
        from .device import CPU
        n = int(st) if not isinstance(st, (list, tuple, bytes, bytearray)) else None
        flat = np.zeros(n, np.uint8) if n is not None else np.array(bytearray(st), np.uint8)
        self._st = Storage.from_numpy_flat(flat, dt.uint8, CPU)
        if device is not None and str(device) != "cpu":
            from .device import device as as_device, transfer
            d = as_device(device)
            self._st = Storage(transfer(self._st.array(), d), dt.uint8, d)

    def _bytes(self):
        """The storage's memory as a flat uint8 NumPy array (it moves to host memory shared
        with NumPy)."""
        if self._st.device.type != "cpu":
            raise RuntimeError("torchlike: byte access to a storage is only available on CPU")
        return self._st.share_with_numpy().view(np.uint8)

    def __getitem__(self, index):
        """Mirrors `UntypedStorage.__getitem__`: a byte, or a storage sharing the sliced bytes."""
        if isinstance(index, slice):
            from . import dtype as dt
            start, stop, step = index.indices(self.nbytes())
            if step != 1:
                raise RuntimeError("slices with step other than 1 are not supported")
            view = self._bytes()[start:max(start, stop)]
            return UntypedStorage(Storage.from_numpy_flat(view, dt.uint8, self._st.device,
                                                          resizable=False))
        n = self.nbytes()
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError(f"index {index} out of range for storage of size {n}")
        return int(self._bytes()[i])

    def __setitem__(self, index, value):
        self._bytes()[index] = value

    def untyped(self):
        """Mirrors `UntypedStorage.untyped`: itself."""
        return self

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        """Mirrors `UntypedStorage.from_file`: the file's first `nbytes` bytes, memory-mapped
        (written back to the file when `shared`, private copies of changed pages otherwise)."""
        import os
        from . import dtype as dt
        from .device import CPU
        size = os.path.getsize(filename)
        if nbytes > size:
            raise RuntimeError(f"file <{filename}> size <{size}> is smaller than the required "
                               f"mapping size <{nbytes}>")
        if nbytes == 0:
            flat = np.zeros(0, np.uint8)
        else:
            flat = np.memmap(filename, np.uint8, "r+" if shared else "c", shape=(nbytes,))
        return cls(Storage.from_numpy_flat(flat, dt.uint8, CPU, resizable=False))

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
