"""Bucket rules: how an op-table row runs on operands whose storages are padded to a size
class (see `_core/buckets.py`). A row names its rule with `op(..., bucket=...)`:

* "pointwise" (the default of pointwise rows): elementwise with broadcasting. The sizes are
  checked as PyTorch checks them; every operand is brought to the padded extents (an exact
  operand of a padded dimension's size is padded too), the row's own kernel runs on the padded
  buffers and the result keeps the padding.
* "sum" / "prod" / "max" / "min": a reduction, which the padding of the reduced dims is set
  to the neutral element of (0, 1, the lowest or the highest value) for; the result is padded
  along the dims it keeps.
* "matmul": matrix products (batch dims broadcast; a padded contraction is zero-filled).
* "softmax": free along every dim but `dim`, whose padding is set to the lowest value.
* "leading" (one padded operand, the first tensor parameter): the row maps over every dim but
  the last (`linear`), and the result's leading dimensions are the operand's, so the result is
  padded where the operand is. `apply_jax(..., bucket=)` runs functions outside the op table
  (`layer_norm`, `embedding`) the same way.
* "cat": concatenation; along a padded dim the pieces are written at their real offsets.

A rule returns None where it does not apply (a padded view, a padded dimension the row reduces,
an error): the caller then drops the padding and dispatches exactly, which raises PyTorch's
error with the real sizes.
"""
import functools

from .._core import buckets
from .._core.grad_state import ENABLED as _GRAD
from .._core.tensor import Tensor, wrap


def call(row, args):
    """`row` on `args` (some padded), or None where its rule does not apply."""
    rule = RULES.get(row.bucket)
    if rule is None or _GRAD[0] and _requires_grad(args):
        return None
    try:
        return rule(row, args)
    except Exception:  # noqa: BLE001 - the exact path raises PyTorch's error
        return None


def _requires_grad(args):
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
        if isinstance(a, (list, tuple)) and any(isinstance(t, Tensor) and t._requires_grad
                                                for t in a):
            return True
    return False


def _stand_in(array, like):
    """A plain tensor over `array` standing in for `like` in the row's dispatcher."""
    return wrap(array, like._st.device)


def _read(t):
    """(array, padded dims) of tensor `t`: padded when it is, else its exact value and ()."""
    r = buckets.read(t)
    return r if r is not None else (t._value(), ())


def aligned(args):
    """For elementwise work with broadcasting on `args`, some padded: the result's size, its
    padded dims, and `args` with every tensor replaced by an array brought to the padded
    extents. Raises PyTorch's error for sizes that do not broadcast."""
    from .registry import _check_broadcast
    tensors = [(i, a) for i, a in enumerate(args) if isinstance(a, Tensor)]
    out = _check_broadcast([a._size for _, a in tensors])
    reads = [_read(a) for _, a in tensors]
    nd = len(out)
    dims = set()
    for (_, a), (_, adims) in zip(tensors, reads):
        off = nd - len(a._size)
        dims.update(off + d for d in adims)
    ext = buckets.classes(out, dims)
    new = list(args)
    for (i, a), (arr, _) in zip(tensors, reads):
        off = nd - len(a._size)
        target = tuple(ext[off + j] if n > 1 else 1 for j, n in enumerate(a._size))
        new[i] = buckets.pad_to(arr, target)
    return out, tuple(sorted(dims)), new


def elementwise(fn, args, device):
    """`fn` (elementwise, broadcasting) on `args`, some padded, as a padded tensor; None
    where it cannot (the exact path then raises PyTorch's error)."""
    try:
        out, dims, arrays = aligned(args)
        return buckets.padded_tensor(fn(*arrays), out, device, dims)
    except Exception:  # noqa: BLE001
        return None


def _pointwise(row, args):
    from .registry import _check_integer_divisor, prepare
    out, dims, arrays = aligned(args)
    new = [_stand_in(b, a) if isinstance(a, Tensor) else a for a, b in zip(args, arrays)]
    k, dyn, device, _ = prepare(row, tuple(new))
    res = k(*dyn)
    if row.divisor is not None:
        _check_integer_divisor(row, args)
    return buckets.padded_tensor(res, out, device, dims)


def mapped(fn, operands, index, allowed, device):
    """`fn(*operands)` where `operands[index]` is a padded tensor that `fn` maps over along
    the dims in `allowed(ndim)` (and the result's leading dims are the operand's): the padded
    result(s) as tensors, or None when the padding is elsewhere or another operand is padded."""
    x = operands[index]
    r = buckets.read(x)
    if r is None:
        return None
    p, dims = r
    if not set(dims) <= set(allowed(len(x._size))):
        return None
    dyn = []
    for i, a in enumerate(operands):
        if isinstance(a, Tensor):
            if i != index and buckets.read(a) is not None:
                return None
            a = p if i == index else a._value()
        dyn.append(a)
    res = fn(*dyn)
    return relabel(res, x._size, dims, device)


def relabel(res, size, dims, device):
    """Tensors over the result array(s) `res`, whose dims `dims` are padded and really of the
    operand's sizes `size`."""
    def one(r):
        logical = list(r.shape)
        for d in dims:
            if d >= len(logical):
                raise ValueError("the result lost a padded dimension")
            logical[d] = size[d]
        return buckets.padded_tensor(r, logical, device, dims)
    if isinstance(res, (tuple, list)):
        return tuple(one(r) for r in res)
    return one(res)


def _first_tensor(row):
    for i, name in enumerate(row.names):
        if name in row.tensors:
            return i
    return 0


def _mapping(allowed):
    def rule(row, args):
        from .registry import prepare
        index = _first_tensor(row)
        x = args[index]
        ok = allowed(row, args)

        def fn(*dyn):
            new = list(args)
            new[index] = _stand_in(dyn[index], x)
            k, kdyn, _, _ = prepare(row, tuple(new))
            return k(*kdyn)
        res = mapped(fn, args, index, ok, x._st.device)
        if isinstance(res, tuple):
            return row.returns(*res) if row.returns is not None else res
        return res
    return rule


def _dims(dim, ndim):
    """The wrapped dims reduced by a `dim` argument (None / () / int / sequence of ints), or
    None for anything else."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = (dim,)
    if not isinstance(dim, (tuple, list)) or not all(isinstance(d, int) and
                                                      not isinstance(d, bool) for d in dim):
        return None
    return tuple(sorted({d + ndim if d < 0 else d for d in dim}))


def _lowest(dtype):
    # imported lazily: indexing imports the registry, which imports this module
    from .indexing import _lowest as lowest
    return lowest(dtype)


def _highest(dtype):
    from .indexing import _highest as highest
    return highest(dtype)


def _reducing(neutral):
    """A reduction whose result is unchanged by elements equal to `neutral(dtype)`: the padding
    of the reduced dims is set to it, then the row's own kernel runs on the padded buffer."""
    def rule(row, args):
        from .registry import prepare
        x = args[0]
        nd = len(x._size)
        r = buckets.read(x) if nd else None
        if r is None:
            return None
        p, padded = r
        names = row.names
        red = _dims(args[names.index("dim")] if "dim" in names else None, nd)
        if red is None:
            return None
        keep = bool(args[names.index("keepdim")]) if "keepdim" in names else False
        filled = [d for d in padded if d in red]
        if filled:
            p = buckets.fill_padding(p, x._size, filled, neutral(p.dtype))
        new = list(args)
        new[0] = _stand_in(p, x)
        k, dyn, device, _ = prepare(row, tuple(new))
        res = k(*dyn)
        kept = [d for d in range(nd) if keep or d not in red]
        logical = [1 if d in red else x._size[d] for d in kept]
        dims = [j for j, d in enumerate(kept) if d in padded and d not in red]

        def one(r):
            if len(r.shape) != len(logical):
                raise ValueError("unexpected result rank")
            return buckets.padded_tensor(r, logical, device, dims)
        if isinstance(res, (tuple, list)):
            out = tuple(one(r) for r in res)
            return row.returns(*out) if row.returns is not None else out
        return one(res)
    return rule


def _dim_given(rule):
    """`rule` for a reduction whose `dim=None` flattens (an index into the flattened tensor
    would count the padding): only with a dim, or on one dimension."""
    def guarded(row, args):
        if args[row.names.index("dim")] is None and len(args[0]._size) > 1:
            return None
        return rule(row, args)
    return guarded


def _matmul(row, args):
    """Matrix products of operands with at least 2 dims: batch dims broadcast as pointwise ones,
    the rows of the first and the columns of the second are free, and a padded contraction dim
    has its padding set to zero in both operands."""
    from .registry import _check_broadcast, prepare
    x, y = args[0], args[1]
    if not (isinstance(x, Tensor) and isinstance(y, Tensor)) or x.dim() < 2 or y.dim() < 2 or \
            x._size[-1] != y._size[-2]:
        return None
    batch = _check_broadcast([x._size[:-2], y._size[:-2]])
    (a, adims), (b, bdims) = _read(x), _read(y)
    k = x._size[-1]
    ka, kb = x.dim() - 1, y.dim() - 2
    if ka in adims or kb in bdims:
        if ka in adims:
            a = buckets.fill_padding(a, x._size, (ka,), 0)
        if kb in bdims:
            b = buckets.fill_padding(b, y._size, (kb,), 0)
        ke = buckets.size_class(k)
    else:
        ke = k
    nb = len(batch)
    dims = set()
    for t, tdims in ((x, adims), (y, bdims)):
        off = nb - (t.dim() - 2)
        dims.update(off + d for d in tdims if d < t.dim() - 2)
    ext = buckets.classes(batch, dims)

    def target(t, tail):
        off = nb - (t.dim() - 2)
        return tuple(ext[off + j] if n > 1 else 1 for j, n in enumerate(t._size[:-2])) + tail
    m = buckets.size_class(x._size[-2]) if x.dim() - 2 in adims else x._size[-2]
    n = buckets.size_class(y._size[-1]) if y.dim() - 1 in bdims else y._size[-1]
    a = buckets.pad_to(a, target(x, (m, ke)))
    b = buckets.pad_to(b, target(y, (ke, n)))
    if x.dim() - 2 in adims:
        dims.add(nb)
    if y.dim() - 1 in bdims:
        dims.add(nb + 1)
    kk, dyn, device, _ = prepare(row, (_stand_in(a, x), _stand_in(b, y)) + tuple(args[2:]))
    res = kk(*dyn)
    return buckets.padded_tensor(res, batch + (x._size[-2], y._size[-1]), device,
                                 tuple(sorted(dims)))


def _softmax(row, args):
    """softmax / log_softmax: free along every dim but `dim`; a padded `dim` has its padding
    set to the lowest value, which gets no weight."""
    from .registry import prepare
    x = args[0]
    r = buckets.read(x)
    d = args[row.names.index("dim")]
    nd = len(x._size)
    if r is None or not nd or not isinstance(d, int) or isinstance(d, bool) or \
            not -nd <= d < nd or r[0].dtype.kind != "f":
        return None
    p, dims = r
    d = d + nd if d < 0 else d
    if d in dims:
        p = buckets.fill_padding(p, x._size, (d,), _lowest(p.dtype))
    new = list(args)
    new[0] = _stand_in(p, x)
    k, dyn, device, _ = prepare(row, tuple(new))
    return buckets.padded_tensor(k(*dyn), x._size, device, dims)


def _cat(row, args):
    from .._core import dtype as dt
    tensors, dim = args[0], args[1]
    if not isinstance(tensors, (list, tuple)) or not tensors or \
            not all(isinstance(t, Tensor) for t in tensors):
        return None
    nd = tensors[0].dim()
    if not nd or any(t.dim() != nd for t in tensors) or not isinstance(dim, int) or \
            isinstance(dim, bool) or not -nd <= dim < nd:
        return None
    d = dim + nd if dim < 0 else dim
    first = tensors[0]._size
    if any(t._size[:d] + t._size[d + 1:] != first[:d] + first[d + 1:] for t in tensors):
        return None
    reads = [_read(t) for t in tensors]
    total = sum(t._size[d] for t in tensors)
    size = first[:d] + (total,) + first[d + 1:]
    dims = set()
    for _, tdims in reads:
        dims.update(tdims)
    dims = tuple(sorted(j for j in dims if size[j] > 1))
    ext = buckets.classes(size, dims)
    result = dt.result_type_of([t.dtype for t in tensors], [], [])
    pieces = tuple(buckets.pad_to(a, tuple(ext[j] if j != d else a.shape[d]
                                            for j in range(nd))) for a, _ in reads)
    offsets, at = [], 0
    for t in tensors:
        offsets.append(at)
        at += t._size[d]
    res = _concat(d, ext[d], result.np)(pieces, buckets.consts(tuple(offsets)))
    return buckets.padded_tensor(res, size, tensors[0]._st.device, dims)


@functools.lru_cache(maxsize=None)
def _concat(d, extent, dtype):
    """Writes each piece at its real offset along `d` into a buffer of `extent` there (its
    padding, written first, is overwritten by the next piece)."""
    import jax
    import jax.numpy as jnp
    from .._core.casting import cast

    def f(pieces, offsets):
        room = extent + max(p.shape[d] for p in pieces)
        shape = list(pieces[0].shape)
        shape[d] = room
        out = jnp.zeros(shape, dtype)
        for i, p in enumerate(pieces):
            start = [0] * len(shape)
            start[d] = offsets[i]
            out = jax.lax.dynamic_update_slice(out, cast(p, dtype), start)
        return jax.lax.slice_in_dim(out, 0, extent, axis=d)
    return jax.jit(f)


def gather(view, dims, idxs, size):
    """`view[idxs at dims]` (advanced indexing, bounds already checked) for a padded view or
    window: negative indices count from the real sizes; the result (of `size`) keeps the
    padding of the dims not indexed. None where the view reads no padding."""
    r = buckets.read(view)
    if r is None:
        return None
    p, vdims = r
    from .indexing import _index_result_shape
    sizes = buckets.consts(tuple(view._size[d] for d in dims))
    res = _gatherer(tuple(dims))(p, sizes, *idxs)
    tags = _index_result_shape(tuple(range(len(view._size))), dims,
                               (-1,) * (len(res.shape) - len(view._size) + len(dims)))
    out_dims = tuple(j for j, t in enumerate(tags) if t >= 0 and t in vdims and t not in dims)
    return buckets.padded_tensor(res, size, view._st.device, out_dims)


@functools.lru_cache(maxsize=None)
def _gatherer(dims):
    import jax
    import jax.numpy as jnp

    def f(a, sizes, *idxs):
        key = [slice(None)] * a.ndim
        for j, (d, i) in enumerate(zip(dims, idxs)):
            i = jnp.asarray(i)
            key[d] = jnp.where(i < 0, i + sizes[j], i)
        return a[tuple(key)]
    return jax.jit(f)


RULES = {
    "cat": _cat,
    "softmax": _softmax,
    "matmul": _matmul,
    "sum": _reducing(lambda dtype: 0),
    "prod": _reducing(lambda dtype: 1),
    "max": _reducing(_lowest),
    "min": _reducing(_highest),
    "argmax": _dim_given(_reducing(_lowest)),
    "argmin": _dim_given(_reducing(_highest)),
    "pointwise": _pointwise,
    "leading": _mapping(lambda row, args: lambda ndim: range(ndim - 1)),
}
