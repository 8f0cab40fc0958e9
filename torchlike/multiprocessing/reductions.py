"""Tensors across processes through shared memory, as `torch.multiprocessing` moves them.

`Tensor.share_memory_()` moves a CPU storage into shared memory: a file in `/dev/shm`, removed
at once and held by an open descriptor, mapped with MAP_SHARED. The storage then lives in that
memory (reads take the current contents, in-place ops write there), so the processes that map it
see each other's writes (the Hogwild pattern). A tensor pickled by `multiprocessing`'s pickler
(queues, pipes, the arguments of a spawned or forkserver process) is moved to shared memory
first and travels as a duplicate of that descriptor (PyTorch's "file_descriptor" strategy) with
its layout; the receiver maps the same memory, once per storage (so views stay views of one
storage), and rebuilds the tensor (its class and `requires_grad`; its `.grad` stays behind, as in
PyTorch 2). The memory is
freed when the last process holding it lets it go. Other devices' tensors travel by value (XLA
device buffers cannot be mapped by another process).
"""
import itertools
import mmap
import os
import tempfile
import weakref
from multiprocessing.reduction import DupFd, ForkingPickler

import numpy as np

from .._core import dtype as dt
from .._core.device import CPU
from .._core.storage import Storage
from .._core.tensor import Tensor, _new

_SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else None
# shared storages by key ("<creator pid>:<n>"), so that a storage received again (or sent back
# to its creator) is the same storage, and tensors of one storage stay views of one
_BY_KEY = weakref.WeakValueDictionary()
_KEYS = itertools.count()

_NON_LEAF = ("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
             "does not support crossing process boundaries.  If you just want to transfer the "
             "data, call detach() on the tensor before serializing (e.g., putting it on the "
             "queue).")


def _map(fd, nbytes, np_dtype, numel):
    """The first `numel` elements of the memory behind `fd`, mapped shared, as a flat array."""
    m = mmap.mmap(fd, max(nbytes, 1), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    return np.frombuffer(m, dtype=np_dtype, count=numel)


def _adopt(st, fd, flat, key):
    """Make `st` live in the shared memory `flat` (behind `fd`, closed when `st` dies)."""
    weakref.finalize(st, os.close, fd)
    st._np = flat
    st._data = None
    st._hold = None
    st._ptr = flat.ctypes.data if st.numel else 0
    st.resizable = False
    st.shared = (key, fd)
    _BY_KEY[key] = st


def share_storage(st):
    """Move CPU storage `st` into new shared memory (once); its (key, descriptor), or None for
    another device's storage (marked shared: nothing moves)."""
    if st.shared:
        return st.shared if st.shared is not True else None
    if st.device.type != "cpu" or _SHM_DIR is None:
        st.shared = True
        return None
    st.unpad()
    src = st._np if st._np is not None else np.asarray(st._data).reshape(-1)
    nbytes = st.numel * st.dtype.itemsize
    fd, path = tempfile.mkstemp(prefix="torchlike_", dir=_SHM_DIR)
    os.unlink(path)
    os.ftruncate(fd, max(nbytes, 1))
    flat = _map(fd, nbytes, src.dtype, st.numel)
    np.copyto(flat, src)
    _adopt(st, fd, flat, f"{os.getpid()}:{next(_KEYS)}")
    return st.shared


def _attached(key, dupfd, dtype_name, numel):
    st = _BY_KEY.get(key)
    fd = dupfd.detach()
    if st is not None:
        os.close(fd)
        return st
    dtype = dt._dtype_by_name(dtype_name)
    flat = _map(fd, numel * dtype.itemsize, dtype.np, numel)
    st = Storage.from_numpy_flat(flat, dtype, CPU, resizable=False)
    _adopt(st, fd, flat, key)
    return st


def rebuild_tensor(cls, key, dupfd, dtype_name, numel, size, stride, offset, requires_grad,
                   attrs):
    """A tensor over the shared storage `key` (what `reduce_tensor` sent)."""
    st = _attached(key, dupfd, dtype_name, numel)
    t = _new(Tensor, st, size, stride, offset, [0], None)
    if cls is not Tensor:
        t = cls(t, requires_grad) if _takes_requires_grad(cls) else t.as_subclass(cls)
        if attrs:
            t.__dict__.update(attrs)
    t._requires_grad = bool(requires_grad)
    return t


def _takes_requires_grad(cls):
    from ..nn.parameter import Parameter
    return issubclass(cls, Parameter)


def reduce_tensor(t):
    """`multiprocessing`'s pickling of a tensor: CPU storages by shared memory."""
    if t._requires_grad and t.grad_fn is not None:
        raise RuntimeError(_NON_LEAF)
    st = t._st
    if st.device.type != "cpu" or _SHM_DIR is None:
        return t.__reduce_ex__(2)
    key, fd = share_storage(st)
    attrs = dict(t.__dict__) if type(t) is not Tensor and hasattr(t, "__dict__") else None
    return (rebuild_tensor, (type(t), key, DupFd(fd), st.dtype.name, st.numel, t._size,
                             t._stride, t._offset, t._requires_grad, attrs))


def init_reductions():
    """Register the reductions with `multiprocessing`'s pickler (Tensor and Parameter)."""
    from ..nn.parameter import Parameter
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
