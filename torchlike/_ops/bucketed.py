"""Bucket rules: how an op-table row runs on operands whose storages are padded to a size
class (see `_core/buckets.py`). A row names its rule with `op(..., bucket=...)`:

* "pointwise" (the default of pointwise rows): elementwise with broadcasting. The sizes are
  checked as PyTorch checks them; every operand is brought to the padded extents (an exact
  operand of a padded dimension's size is padded too), the row's own kernel runs on the padded
  buffers and the result keeps the padding.
* "sum" / "prod" / "max" / "min": a reduction, which the padding of the reduced dims is set
  to the neutral element of (0, 1, the lowest or the highest value) for; the result is padded
  along the dims it keeps.
* "leading" / "not_dim" / "all" (one padded operand, the first tensor parameter): the row maps
  over the padded dimensions (`linear` over all but the last, `softmax` over all but `dim`,
  `embedding` over every index dimension), and the result's leading dimensions are the
  operand's, so the result is padded where the operand is.

A rule returns None where it does not apply (a padded view, a padded dimension the row reduces,
an error): the caller then drops the padding and dispatches exactly, which raises PyTorch's
error with the real sizes.
"""
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


def _pointwise(row, args):
    from .registry import _check_broadcast, _check_integer_divisor, prepare
    tensors = [(i, a) for i, a in enumerate(args) if isinstance(a, Tensor)]
    out = _check_broadcast([a._size for _, a in tensors])
    nd = len(out)
    ext = list(out)
    for _, a in tensors:
        off = nd - len(a._size)
        for j, (n, p) in enumerate(zip(a._size, buckets.extents(a))):
            if n > 1 and p > ext[off + j]:
                ext[off + j] = p
    if tuple(ext) == out:
        return None
    new = list(args)
    for i, a in tensors:
        p = buckets.physical(a)
        arr = p if p is not None else a._value()
        off = nd - len(a._size)
        target = tuple(ext[off + j] if n > 1 else 1 for j, n in enumerate(a._size))
        new[i] = _stand_in(buckets.pad_to(arr, target), a)
    k, dyn, device, _ = prepare(row, tuple(new))
    res = k(*dyn)
    if row.divisor is not None:
        _check_integer_divisor(row, args)
    return buckets.padded_tensor(res, out, device)


def mapped(fn, operands, index, allowed, device):
    """`fn(*operands)` where `operands[index]` is a padded tensor that `fn` maps over along
    the dims in `allowed(ndim)` (and the result's leading dims are the operand's): the padded
    result(s) as tensors, or None when the padding is elsewhere or another operand is padded."""
    x = operands[index]
    p = buckets.physical(x)
    if p is None:
        return None
    dims = [d for d, (n, e) in enumerate(zip(x._size, p.shape)) if n != e]
    if not set(dims) <= set(allowed(len(x._size))):
        return None
    dyn = []
    for i, a in enumerate(operands):
        if isinstance(a, Tensor):
            if i != index and a._st._phys is not None:
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
        return buckets.padded_tensor(r, logical, device)
    if isinstance(res, (tuple, list)):
        return tuple(one(r) for r in res)
    return one(res)


def _first_tensor(row):
    for i, (name, kind) in enumerate(zip(row.names, row.plan)):
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


def _not_dim(row, args):
    d = args[row.names.index("dim")]

    def allowed(ndim):
        if not isinstance(d, int) or isinstance(d, bool):
            return ()
        dd = d + ndim if d < 0 else d
        return tuple(j for j in range(ndim) if j != dd)
    return allowed


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
    import numpy as np
    if dtype == np.bool_:
        return False
    return -np.inf if np.issubdtype(dtype, np.inexact) else np.iinfo(dtype).min


def _highest(dtype):
    import numpy as np
    if dtype == np.bool_:
        return True
    return np.inf if np.issubdtype(dtype, np.inexact) else np.iinfo(dtype).max


def _reducing(neutral):
    """A reduction whose result is unchanged by elements equal to `neutral(dtype)`: the padding
    of the reduced dims is set to it, then the row's own kernel runs on the padded buffer."""
    def rule(row, args):
        from .registry import prepare
        x = args[0]
        p = buckets.physical(x)
        nd = len(x._size)
        if p is None or not nd:
            return None
        names = row.names
        red = _dims(args[names.index("dim")] if "dim" in names else None, nd)
        if red is None:
            return None
        keep = bool(args[names.index("keepdim")]) if "keepdim" in names else False
        padded = tuple(d for d, (n, e) in enumerate(zip(x._size, p.shape)) if n != e)
        filled = [d for d in padded if d in red]
        if filled:
            p = buckets.fill_padding(p, x._size, filled, neutral(p.dtype))
        new = list(args)
        new[0] = _stand_in(p, x)
        k, dyn, device, _ = prepare(row, tuple(new))
        res = k(*dyn)
        logical = [1 if d in red else n for d, n in enumerate(x._size)
                   if keep or d not in red]

        def one(r):
            if len(r.shape) != len(logical):
                raise ValueError("unexpected result rank")
            return buckets.padded_tensor(r, logical, device)
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


RULES = {
    "sum": _reducing(lambda dtype: 0),
    "prod": _reducing(lambda dtype: 1),
    "max": _reducing(_lowest),
    "min": _reducing(_highest),
    "argmax": _dim_given(_reducing(_lowest)),
    "argmin": _dim_given(_reducing(_highest)),
    "pointwise": _pointwise,
    "leading": _mapping(lambda row, args: lambda ndim: range(ndim - 1)),
    "not_dim": _mapping(_not_dim),
    "all": _mapping(lambda row, args: lambda ndim: range(ndim)),
}
