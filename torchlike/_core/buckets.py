"""Size classes for dimensions that keep changing (a growing sequence, a varying batch).

PyTorch compiles nothing; torchlike compiles a kernel per operand shape, so a loop whose shapes
change compiles every op again at every new size. Here, once a kernel's result has come out at
a second distinct size along a dimension, its later results are *padded* along that dimension:
the storage holds a buffer of the dimension's size class (the power of two at or above it, at
least `MIN_CLASS`), the extra elements unspecified (`Storage._phys`; `Storage._pdims` names the
padded dims, which stay padded at a size equal to its class). Ops that know how to work on
padded operands (their `bucket` rule in the op table: elementwise ops, ops that map over the
padded dimensions, ...) run once per size class rather than once per size, and their results
stay padded. Any other reader drops the padding first (`Storage.unpad`), which is exactly the
unbucketed computation.

Nothing of it is visible to the program: sizes, strides, values, errors and storages are
PyTorch's. A dimension of size 0 or 1 is never padded (it broadcasts), and neither is a leaf
that requires grad; results of ops recorded by autograd are padded when their rule ran on padded
operands (see `_ops/bucketed.py`). Off with `TORCHLIKE_BUCKETS=0`.
"""
import functools
import os

import jax
import jax.numpy as jnp
import numpy as np

from . import programs
from .device import transfer as _transfer
from .layout import contiguous_strides
from .layout import host_strided as _host_strided

ENABLED = [os.environ.get("TORCHLIKE_BUCKETS", "1").strip().lower() not in ("0", "off", "false",
                                                                           "no")]
MIN_CLASS = int(os.environ.get("TORCHLIKE_BUCKET_MIN", "32"))

_FIRST = {}      # (kernel identity, site) -> the shape of its first result there
_CHANGING = {}   # (kernel identity, site) -> the dims whose size has changed there
_SEEN = {}       # kernel identity -> result shapes it has made (the fast "nothing new" check)
_MOVED = set()   # kernel identities with a site whose sizes have changed
_WINDOWS = ({}, {})  # views by (storage, strides, offset): first size, changed dims
_LIMIT = 1 << 16


def size_class(n):
    """The padded size for a dimension of size `n` (>= 2)."""
    return max(MIN_CLASS, 1 << (n - 1).bit_length())


@functools.lru_cache(maxsize=None)
def _slicer(shape):
    return programs.jit(lambda a: a[tuple(slice(0, n) for n in shape)],
                        ("buckets.slice", shape))


_HOST_BYTES = 1 << 24


def unpadded(phys, shape):
    """`phys` without its padding: the leading `shape` block. A CPU buffer of up to 16 MB is
    sliced by a host copy (no kernel to compile per shape); others by a slicing kernel."""
    shape = tuple(shape)
    if tuple(phys.shape) == shape:
        return phys
    if phys.nbytes <= _HOST_BYTES and _on_cpu(phys):
        import numpy as np
        block = np.asarray(phys)[tuple(slice(0, n) for n in shape)]
        return _transfer(np.ascontiguousarray(block), next(iter(phys.devices())))
    return _slicer(shape)(phys)


def _on_cpu(a):
    try:
        return next(iter(a.devices())).platform == "cpu"
    except Exception:  # noqa: BLE001 - a tracer or a sharded array: the kernel path
        return False


_CONSTS = {}


def consts(values):
    """The int64 vector `values` (a tuple of ints) on the device, cached: the traced sizes and
    strides of bucketed kernels repeat from layer to layer, and a cached array is passed
    without a host transfer."""
    a = _CONSTS.get(values)
    if a is None:
        import numpy as np
        if len(_CONSTS) > 4096:
            _CONSTS.clear()
        a = _CONSTS[values] = _transfer(np.asarray(values, np.int64))
    return a


@functools.lru_cache(maxsize=None)
def _padder(shape):
    def f(a):
        a = a[tuple(slice(0, n) for n in shape)]
        return jnp.pad(a, [(0, n - m) for n, m in zip(shape, a.shape)])
    return programs.jit(f, ("buckets.pad", shape))


def pad_to(a, shape):
    """`a` brought to `shape` along its trailing ends: grown with zeros, or cut where it has
    more padding than `shape` (callers keep `shape` at least the real sizes). A CPU buffer of
    up to 16 MB is copied on the host (no kernel to compile per shape); inside a trace, static
    slicing and padding."""
    shape = tuple(shape)
    if tuple(a.shape) == shape:
        return a
    if not isinstance(a, jax.core.Tracer) and a.nbytes <= _HOST_BYTES and _on_cpu(a):
        import numpy as np
        h = np.asarray(a)[tuple(slice(0, n) for n in shape)]
        h = np.pad(h, [(0, n - m) for n, m in zip(shape, h.shape)])
        return _transfer(h, next(iter(a.devices())))
    return _padder(shape)(a)


def add_buffers(a, b):
    """The sum of two gradient buffers of one tensor, one of them padded (each brought to the
    larger extents first)."""
    if a.shape != b.shape:
        shape = tuple(max(m, n) for m, n in zip(a.shape, b.shape))
        a, b = pad_to(a, shape), pad_to(b, shape)
    return a + b


def buffer_as(t, shape):
    """Tensor `t`'s elements in a buffer of `shape`: its padded buffer or its value, cut or
    zero-padded at the trailing ends."""
    r = read(t)
    return pad_to(r[0] if r is not None else t._value(), shape)


def read(t):
    """(array, padded dims) for tensor `t` when its storage is padded or it is a window (see
    `window`), else None: `t`'s elements in the leading block of an array whose padded dims are
    at their size classes. A view is gathered by a kernel compiled per size class: the index
    arithmetic (the view's strides and offset, the storage's real shape) is traced, and a view
    dim that walks a padded storage dim keeps that dim's padded extent."""
    st = t._st
    p = st._phys
    natural = st.shape
    if p is None:
        win = t._window
        p = st._data
        if p is None and st._np is not None:
            return _from_host(t)
        if win is None or p is None:
            return None
        ext, dims = win
    elif t._natural:
        return p, st._pdims
    else:
        nstride = contiguous_strides(natural)
        ext, dims = [], []
        for d, (n, s) in enumerate(zip(t._size, t._stride)):
            e = n
            if n > 1:
                for k, (m, q) in enumerate(zip(natural, nstride)):
                    if q == s and k in st._pdims and n <= m:
                        e = p.shape[k]
                        dims.append(d)
                        break
            ext.append(e)
        ext, dims = tuple(ext), tuple(dims)
    c = consts((t._offset,) + tuple(t._stride) + contiguous_strides(natural) + tuple(natural))
    return _gatherer(ext, len(natural))(p, c), dims


def host_changing(t):
    """The dims in which NumPy-shared tensors like `t` (its dtype, at this line: data from
    `torch.from_numpy`) have changed size; () for one that requires grad."""
    if t._requires_grad or not t._size or t._st._np is None or t._st._data is not None:
        return ()
    return changing_dims(("host", t.dtype.np), t._size)


def _from_host(t):
    """A NumPy-shared tensor read padded along its `host_changing` dims (on the host, in the
    copy to the device that reading it makes anyway), or None."""
    dims = host_changing(t)
    if not dims:
        return None
    import numpy as np
    target = classes(t._size, dims)
    from .device import put
    return put(np.pad(_host_view(t), [(0, n - m) for n, m in zip(target, t._size)])), dims


def _host_view(t):
    """A NumPy view of a NumPy-shared tensor's elements."""
    st = t._st
    item = st._np.itemsize
    return _host_strided(st._np[t._offset:], t._size,
                                           tuple(s * item for s in t._stride))


def host_value(t):
    """Tensor `t`'s elements as a NumPy array, read without dropping a padded storage's
    padding (for host-side checks)."""
    import numpy as np
    if t._st._np is not None and t._st._data is None:
        return np.array(_host_view(t))
    r = read(t)
    if r is None:
        return np.asarray(t._value())
    return np.asarray(r[0])[tuple(slice(0, n) for n in t._size)]


@functools.lru_cache(maxsize=None)
def _gatherer(ext, rank):
    """Reads a strided view (extents `ext`) of a padded buffer whose real shape has `rank`
    dims; `consts` = (offset, view strides, real strides, real shape)."""
    nd = len(ext)
    lax = jax.lax
    one = np.int64(1)   # (not a device array: made on every process's first use)

    def f(p, consts):
        # lax ops, not jnp indexing: this program is traced and lowered per size class, and
        # also when it is loaded from the persistent cache (jnp's indexing traced 2-3x slower)
        c = [lax.index_in_dim(consts, i, keepdims=False) for i in range(1 + nd + 2 * rank)]
        vstride, rstride, rshape = c[1:1 + nd], c[1 + nd:1 + nd + rank], c[1 + nd + rank:]
        a = lax.broadcast(c[0], ext)
        for d in range(nd):
            a = a + lax.broadcasted_iota(jnp.int64, ext, d) * vstride[d]
        pstride = contiguous_strides(p.shape)
        idx = None
        for k in range(rank):
            term = lax.rem(lax.div(a, lax.max(rstride[k], one)), lax.max(rshape[k], one)) * \
                pstride[k]
            idx = term if idx is None else idx + term
        if idx is None:
            idx = jnp.zeros(ext, jnp.int64)
        return jnp.take(p.reshape(-1), idx, mode="clip")   # (in bounds by construction)
    return programs.jit(f, ("buckets.gather", ext, rank))


def padded_tensor(phys, size, device, dims):
    """A new tensor of `size` whose storage holds buffer `phys`, padded along `dims` (a plain
    tensor when no dim is)."""
    size = tuple(size)
    dims = tuple(d for d in dims if phys.shape[d] > size[d])
    if not dims:
        return wrap(unpadded(phys, size), device)
    n = 1
    for s in size:
        n *= s
    t = fresh(None, device, _dt._BY_NP[phys.dtype], size, contiguous_strides(size), n)
    t._st._phys = phys
    t._st._pdims = dims
    return t


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _site():
    """Where in the user's program an op runs: the innermost `forward` on the stack (its module
    and line: each layer of a `Sequential` is a site of its own), else the first line of the
    user's code."""
    import sys
    f = sys._getframe(3)
    user = None
    while f is not None:
        code = f.f_code
        if code.co_name == "forward":
            return id(f.f_locals.get("self")), code, f.f_lineno
        if user is None and not _internal(f):
            user = (code, f.f_lineno)
        f = f.f_back
    return user


def _internal(frame):
    """A frame of torchlike's own code (its modules, and the op functions it generates)."""
    name = frame.f_globals.get("__name__")
    return name is None or name == "torchlike" or name.startswith("torchlike.") or \
        frame.f_code.co_filename.startswith(_PACKAGE) or \
        frame.f_code.co_filename == _GENERATED


from .frames import _FILENAME as _GENERATED  # noqa: E402


def changing_dims(owner, shape):
    """The dims (of size above 1) in which the results of `owner` at the user's current line
    have changed size (() while none has). Only asked where the shape was not cached, so
    fixed-shape loops pay nothing and are never padded."""
    if not ENABLED[0]:
        return ()
    seen = _SEEN.get(owner)
    if seen is not None and shape in seen and owner not in _MOVED:
        return ()   # a shape this kernel made before, and none of its sites has moved
    if seen is None:
        if len(_SEEN) > _LIMIT:
            _SEEN.clear()
        seen = _SEEN[owner] = set()
    if len(seen) < 64:
        seen.add(shape)
    key = (owner, _site())
    dims = _history(key, shape)
    if dims or key in _CHANGING:   # (a size at its class is not padded, yet it has moved)
        _MOVED.add(owner)
    return dims


def _history(key, shape, table=None):
    """Record `shape` under `key` in `table` (first shapes, changed dims); the dims in which
    the shapes seen under it have differed from the first, where the size is above 1 and below
    its class (a size at its class, 64 say, runs exact: the same kernels, none of the rules)."""
    firsts, changing = table or (_FIRST, _CHANGING)
    first = firsts.get(key)
    if first is None:
        if len(firsts) > _LIMIT:
            firsts.clear()
            changing.clear()
        firsts[key] = shape
        return ()
    if len(first) != len(shape):
        return ()
    dims = changing.get(key, frozenset())
    new = frozenset(d for d, (a, b) in enumerate(zip(first, shape)) if a != b)
    if not new <= dims:
        dims = changing[key] = dims | new
    return tuple(sorted(d for d in dims if shape[d] > 1 and size_class(shape[d]) > shape[d]))


def classes(shape, dims):
    """`shape` with `dims` at their size classes."""
    return tuple(size_class(n) if d in dims else n for d, n in enumerate(shape))


def window(t):
    """Mark view `t` (not under autograd) as a *window* when views with its storage, strides
    and offset keep changing size (`bias[:, :, :T, :T]` for a growing T): ops on padded
    operands then read it with its changing dims at their size classes (the extra elements are
    whatever the storage holds there), so that it costs no kernel per size."""
    if not ENABLED[0]:
        return t
    dims = _history((id(t._st), t._stride, t._offset), t._size, _WINDOWS)
    if dims:
        t._window = classes(t._size, dims), dims
    return t


def settle(owner, res, device):
    """Wrap the exact result `res` of kernel `owner` (not under autograd) as a tensor, padded
    along its `changing_dims`."""
    shape = tuple(res.shape)
    dims = changing_dims(owner, shape)
    if not dims:
        return wrap(res, device)
    return padded_tensor(pad_to(res, classes(shape, dims)), shape, device, dims)


def settle_host(a, place, device):
    """A tensor holding host array `a` (placed on the device by `place(array)`), padded on
    the host along the `changing_dims` of host-made tensors of its dtype at this line."""
    shape = tuple(a.shape)
    dims = changing_dims(("host", a.dtype), shape)
    if not dims:
        return wrap(place(a), device)
    import numpy as np
    target = classes(shape, dims)
    return padded_tensor(place(np.pad(a, [(0, n - m) for n, m in zip(target, shape)])), shape,
                         device, dims)


def any_padded(args):
    """True when a tensor in `args` (or in a list among them) has a padded storage or is a
    window."""
    for a in args:
        if isinstance(a, Tensor):
            if a._st._phys is not None or a._window is not None or \
                    (a._st._np is not None and host_changing(a)):
                return True
        elif isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, Tensor) and t._st._phys is not None:
                    return True
    return False


def unpad_all(args):
    """Drop the padding of every tensor in `args` (the exact path follows)."""
    for a in args:
        if isinstance(a, Tensor):
            a._st.unpad()
        elif isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, Tensor):
                    t._st.unpad()


# imported last: the tensor module's own imports reach this one
from . import dtype as _dt  # noqa: E402
from .tensor import Tensor, fresh, wrap  # noqa: E402
