"""Moving objects between the main process and DataLoader workers.

Tensors travel as NumPy arrays (cheap to pickle, no JAX needed in a worker that only gathers
rows). Sending a dataset to the workers, large tensors go through files in `/dev/shm` that each
worker maps copy-on-write, instead of being pickled once per worker (PyTorch's fork start method
shares them for free; torchlike starts workers without fork, see `context.py`)."""
import atexit
import importlib
import io
import os
import pickle
import tempfile
import types
import weakref

import jax.numpy as jnp
import numpy as np

from ...._core import dtype as dt
from ...._core.tensor import Tensor, wrap
from . import functions
from ...._core.layout import host_strided as _host_strided

SHARE_MIN_BYTES = 1 << 20
_SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else None
_NUMPY_BACKED = [False]     # set in workers: rebuilt tensors keep NumPy storage (no JAX copy)
_cached_files = {}          # id(jax array) -> path, for arrays shared with earlier workers


def _array_of(t):
    """The tensor's elements as a NumPy array (a view where possible)."""
    st = t._st
    if st._np is not None:
        item = t.dtype.itemsize
        return _host_strided(st._np[t._offset:], t._size,
                                               tuple(s * item for s in t._stride))
    return np.asarray(t._value())


def _rebuild(arr, dtype_name, requires_grad):
    """A tensor holding `arr` (NumPy-backed in a worker, a JAX array in the main process)."""
    d = dt._BY_NAME[dtype_name]
    if _NUMPY_BACKED[0] and d is not dt.bfloat16:
        from ...._ops.creation import from_numpy
        if not arr.flags.writeable:
            arr = arr.copy()
        t = from_numpy(arr)
    else:
        t = wrap(jnp.asarray(arr), dtype=d)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_mapped(path, np_dtype, shape, dtype_name, requires_grad):
    arr = np.memmap(path, dtype=np.dtype(np_dtype), mode="c", shape=tuple(shape))
    return _rebuild(arr if arr.size else np.zeros(shape, np_dtype), dtype_name, requires_grad)


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _write_file(arr):
    fd, path = tempfile.mkstemp(prefix="torchlike_dl_", dir=_SHM_DIR)
    with os.fdopen(fd, "wb") as f:
        f.write(memoryview(np.ascontiguousarray(arr)).cast("B"))
    return path


def _shared_path(t, arr, owned):
    """A /dev/shm file holding `arr`; reused while the tensor's JAX buffer lives (JAX arrays are
    immutable, so equal identity means equal contents)."""
    data = t._st._data
    if data is None:
        path = _write_file(arr)
        owned.append(path)
        return path
    key = id(data)
    path = _cached_files.get(key)
    if path is None:
        path = _cached_files[key] = _write_file(arr)
        weakref.finalize(data, _forget, key, path)
    return path


def _forget(key, path):
    _cached_files.pop(key, None)
    _unlink(path)


@atexit.register
def _cleanup():
    for path in list(_cached_files.values()):
        _unlink(path)
    _cached_files.clear()


class _Pickler(pickle.Pickler):
    def __init__(self, file, share, owned):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._share = share and _SHM_DIR is not None
        self._owned = owned

    def reducer_override(self, obj):
        if type(obj) is types.FunctionType:
            return functions.reduce(obj)
        if type(obj) is types.ModuleType:  # in a closure sent by value
            return importlib.import_module, (obj.__name__,)
        if type(obj) is not Tensor or obj.device.type != "cpu":
            return NotImplemented
        arr = _array_of(obj)
        meta = (obj.dtype.name, obj.requires_grad)
        if self._share and arr.nbytes >= SHARE_MIN_BYTES and obj.dtype is not dt.bfloat16:
            path = _shared_path(obj, arr, self._owned)
            return _rebuild_mapped, (path, arr.dtype.str, arr.shape) + meta
        return _rebuild, (arr,) + meta


def dumps(obj, share=False):
    """Pickle `obj`, tensors as arrays. Returns (bytes, files to unlink once loaded)."""
    buf, owned = io.BytesIO(), []
    _Pickler(buf, share, owned).dump(obj)
    return buf.getvalue(), owned


def loads(data):
    return pickle.loads(data)


def cleanup(paths):
    for p in paths:
        _unlink(p)
