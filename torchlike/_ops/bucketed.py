"""Bucket rules: how an op-table row runs on operands whose storages are padded to a size
class (see `_core/buckets.py`). A row names its rule with `op(..., bucket=...)`:

* "pointwise" (the default of pointwise rows): elementwise with broadcasting. The sizes are
  checked as PyTorch checks them; every operand is brought to the padded extents (an exact
  operand of a padded dimension's size is padded too), the row's own kernel runs on the padded
  buffers and the result keeps the padding.
* "sum" / "prod" / "max" / "min": a reduction, which the padding of the reduced dims is set
  to the neutral element of (0, 1, the lowest or the highest value) for; the result is padded
  along the dims it keeps. "mean": a sum's padding, the mean brought to the real count.
* "matmul": matrix products (batch dims broadcast; a padded contraction is zero-filled).
* "softmax": free along every dim but `dim`, whose padding is set to the lowest value.
* "leading" (one padded operand, the first tensor parameter): the row maps over every dim but
  the last (`linear`), and the result's leading dimensions are the operand's, so the result is
  padded where the operand is. `apply_jax(..., bucket=)` runs functions outside the op table
  (`layer_norm`, `embedding`) the same way.
* "cat": concatenation; along a padded dim the pieces are written at their real offsets.
* "exact": no rule (padded operands are dropped), but the results are kept padded where their
  sizes keep changing, as every bucketed row's are (`stack`: a collate function's batches).

Class-index losses (`cross_entropy`, `nll_loss`) run on padded batches with the target's padding
ignored (`class_loss`). Under autograd a rule's whole program is what the node records (see
`composed`), so training with changing sizes compiles per size class too.

A rule returns None where it does not apply (a padded view, a padded dimension the row reduces,
an error): the caller then drops the padding and dispatches exactly, which raises PyTorch's
error with the real sizes.
"""
import functools

from .._core import buckets, programs
from .._core.grad_state import ENABLED as _GRAD
from .._core.tensor import Tensor, wrap
from . import bucket_plans
from . import registry as _registry   # (mid-import when it imports this module: used at calls)


def call(row, args):
    """`row` on `args` (some padded), or None where its rule does not apply. A signature seen
    before runs its plan (see `bucket_plans`)."""
    rule = RULES.get(row.bucket)
    if rule is None:
        return None
    key = bucket_plans.signature(row, args) if row.bucket in bucket_plans.PLANNED and \
        row.divisor is None else None
    if key is not None:
        plan = bucket_plans.lookup(key)
        if plan is not None:
            return plan.run(args)
        bucket_plans.capture(key)
    try:
        result = rule(row, args)
        if key is not None:
            bucket_plans.commit(result)
        return result
    except Exception:  # noqa: BLE001 - the exact path raises PyTorch's error
        return None
    finally:
        if key is not None:
            bucket_plans.stop()


def _tracking(operands):
    """True when autograd records a call on `operands` (a tensor among them requires grad)."""
    if not _GRAD[0]:
        return False
    for a in operands:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
        if isinstance(a, (list, tuple)) and any(isinstance(t, Tensor) and t._requires_grad
                                                for t in a):
            return True
    return False


def _stand_in(array, like, tracked=False):
    """A plain tensor over `array` standing in for `like` in the row's dispatcher (requiring
    grad when `like` is tracked, so that the dispatcher lists it)."""
    s = wrap(array, like._st.device)
    if tracked:
        s._requires_grad = True
    return s


def _read(t):
    """(array, padded dims) of tensor `t`: padded when it is, else its exact value and ()."""
    r = buckets.read(t)
    return r if r is not None else (t._value(), ())


# ---- running a kernel on padded operands -------------------------------------------------------
# A rule decides on the host how each operand is brought to the padded extents (`targets`) and
# what its padding holds (`fills`: the neutral element of a reduction, ...); the kernel then
# runs inside one program that does both, with the real sizes traced (`composed`), so that it
# is compiled once per size class. Under autograd that program is what the node records: its
# padding is zero-filled on the way in and its results' padding is masked to zero on the way
# out, so a gradient's padding is zero and nothing from the padding reaches a real element.

def _fill_value(value, dtype):
    if value == "lowest":
        return _lowest(dtype)
    if value == "highest":
        return _highest(dtype)
    return value


def _masked(a, spec, sizes):
    """`a` with its elements beyond the real sizes set to zero (`spec`: (dim, index into
    `sizes`) per padded dim)."""
    return _filled(a, [(d, 0, j) for d, j in spec], sizes)


def _filled(a, fills, sizes):
    """`a` with its padding along each dim of `fills` ((dim, value, index of the real size in
    `sizes`)) set to `value` (a number, "lowest" or "highest")."""
    import jax
    import jax.numpy as jnp
    i = 0
    while i < len(fills):
        value = fills[i][1]
        keep = None   # consecutive dims with one value: one select, its mask built from 1-D
        while i < len(fills) and fills[i][1] == value:   # iotas broadcast (a small program)
            d, _, j = fills[i]
            line = jax.lax.broadcasted_iota(jnp.int64, (a.shape[d],), 0) < sizes[j]
            line = jax.lax.broadcast_in_dim(line, a.shape, (d,))
            keep = line if keep is None else keep & line
            i += 1
        a = jnp.where(keep, a, jnp.asarray(_fill_value(value, a.dtype), a.dtype))
    return a


@functools.lru_cache(maxsize=None)
def composed(k, slots, masks, post):
    """`k(*dyn)` as one jitted program of `(*dyn, sizes)`: the operands at `slots` (position,
    target shape or None, fills) brought to their targets and filled, `post` applied to the
    result, and the results' padding (`masks`, per output) set to zero."""

    def f(*args):
        dyn, sizes = list(args[:-1]), args[-1]
        for pos, target, fills in slots:
            a = dyn[pos] if target is None else buckets.pad_to(dyn[pos], target)
            dyn[pos] = _filled(a, fills, sizes)
        out = getattr(k, "__wrapped__", k)(*dyn)   # inlined: no nested program to trace
        if post is not None:
            out = _rescale(out, post, sizes)
        if masks is None:
            return out
        if isinstance(out, (tuple, list)):
            return tuple(_masked(o, m, sizes) for o, m in zip(out, masks * len(out)
                                                            if len(masks) == 1 else masks))
        return _masked(out, masks[0], sizes)
    f.__name__ = getattr(k, "__name__", "kernel")
    return programs.jit(f, ("composed", k, slots, masks, post))


def _rescale(out, post, sizes):
    """A mean over padded dims computed as one over their size classes (`n_padded` elements),
    brought to the real count (the product of `sizes` at `js`)."""
    import jax.numpy as jnp
    n_padded, js = post
    real = sizes[js[0]]
    for j in js[1:]:
        real = real * sizes[j]
    work = jnp.promote_types(out.dtype, jnp.float32)
    return (out.astype(work) * n_padded / real.astype(work)).astype(out.dtype)


class _Launch:
    """A kernel `k` on dispatcher operands `dyn`, some of which (`operands`: (array as read,
    real size, target shape, fills by dim)) are padded or brought to padded extents. `outs`
    lists each result's padded dims with their real sizes ((dim, size), ...); `post` is a
    mean's (padded count, real sizes) rescaling."""

    def __init__(self, k, dyn, operands, outs, tracking, post=None):
        sizes = []

        def index(n):
            sizes.append(int(n))
            return len(sizes) - 1
        specs = {}   # dyn position -> (target, {dim: (value, index)})
        for arr, size, target, fills in operands:
            want = {}
            for d, (n, e) in enumerate(zip(size, target)):
                if e > n:
                    v = fills.get(d, 0 if tracking else None)
                    if v is not None:
                        want[d] = (v, n)
            for p, dv in enumerate(dyn):
                if dv is not arr:
                    continue
                # an array passed twice (x @ x) gets both uses' fills: they must agree
                t, have = specs.setdefault(p, (tuple(target), {}))
                if t != tuple(target) or any(have.get(d, w) != w for d, w in want.items()):
                    raise ValueError("one operand brought to two different layouts")
                have.update(want)
        slots = []
        for p, (target, want) in sorted(specs.items()):
            fl = tuple((d, v, index(n)) for d, (v, n) in sorted(want.items()))
            if fl or tuple(dyn[p].shape) != target:
                slots.append((p, None if tuple(dyn[p].shape) == target else target, fl))
        masks = None
        if tracking:
            masks = tuple(tuple((d, index(n)) for d, n in out) for out in outs)
        if post is not None:
            post = (post[0], tuple(index(n) for n in post[1]))
        self.fn = composed(k, tuple(slots), masks, post)
        self.dyn = list(dyn) + [buckets.consts(tuple(sizes))]
        self.outs = outs

    def run(self):
        return self.fn(*self.dyn)

    def tensors(self, res, device, logical=None):
        return make_tensors(res, self.outs, device, logical)


def make_tensors(res, outs, device, logical=None):
    """Tensors over the result array(s) `res` of a launch with `outs` (see `_Launch`):
    `logical` gives each one's size (default: the array's shape with the padded dims at their
    real sizes). Returns (tensors, whether `res` is one array)."""
    single = not isinstance(res, (tuple, list))
    arrays = (res,) if single else tuple(res)
    outs = outs * len(arrays) if len(outs) == 1 else outs
    if logical is not None and len(logical) == 1:
        logical = logical * len(arrays)
    tensors = []
    for i, (r, out) in enumerate(zip(arrays, outs)):
        if logical is not None:
            size = logical[i]
        else:
            size = list(r.shape)
            for d, n in out:
                size[d] = n
        tensors.append(buckets.padded_tensor(r, size, device, tuple(d for d, _ in out)))
    return tensors, single


def run_row(row, args, reads, targets, fills=None, outs=(), post=None, logical=None):
    """Row `row` on `args` whose tensors (arg index -> array as read, in `reads`) are brought to
    `targets` (arg index -> shape) with `fills` (arg index -> {dim: value}) in their padding;
    `outs`: each result's padded dims with real sizes (one entry: the same for all).
    Returns the result as the row's dispatcher would, recording its node under autograd."""
    fills = fills or {}
    tracking = _tracking(args)
    new = list(args)
    originals = {}
    for i, arr in reads.items():
        a = args[i]
        if tracking and a._requires_grad and a._st._phys is not None and not a._natural:
            raise ValueError("a tracked view of a padded storage")   # read by a gather
        s = new[i] = _stand_in(arr, a, tracking and a._requires_grad)
        originals[id(s)] = a
    k, dyn, device, tracked = _registry.prepare(row, tuple(new))
    operands = [(arr, args[i]._size, targets.get(i, arr.shape), fills.get(i, {}))
                for i, arr in reads.items()]
    launch = _Launch(k, dyn, operands, list(outs), bool(tracked), post)
    res = launch.run()
    if row.divisor is not None:
        _registry._check_integer_divisor(row, args)
    tensors, single = launch.tensors(res, device, logical)
    if tracked:
        entries = [(i, originals[id(s)], slot) for i, s, slot in tracked[:-1]]
        _registry._record(row, launch.fn, launch.dyn, entries + [tracked[-1]], tensors, single,
                          args)
    out = tensors[0] if single else tuple(tensors)
    if not single and row.returns is not None:
        out = row.returns(*out)
    if not tracked and bucket_plans._CAPTURE[0] is not None:
        bucket_plans.record(launch, args, reads, device, logical, single, row.returns, out)
    return out


def run_fn(fn, operands, reads, targets, fills, outs, name, device, logical=None):
    """`apply_jax` for function `fn` of `operands` (tensors read as `reads`: operand index ->
    array) on padded extents (see `run_row`): a tuple of tensors, the node recorded under
    autograd."""
    from ..autograd import residuals
    from ..autograd.function import record
    tracking = _tracking(operands)
    dyn, tracked = [], []
    for i, o in enumerate(operands):
        if isinstance(o, Tensor):
            if tracking and o._requires_grad:
                if o._st._phys is not None and not o._natural:
                    raise ValueError("a tracked view of a padded storage")
                tracked.append((i, o))
            dyn.append(reads[i] if i in reads else o._value())
        else:
            dyn.append(o)
    specs = [(dyn[i], operands[i]._size, targets.get(i, dyn[i].shape), fills.get(i, {}))
             for i in reads]
    launch = _Launch(fn, dyn, specs, list(outs), bool(tracked))
    res, saved = residuals.run(launch.fn, launch.dyn, tracked)
    tensors, single = launch.tensors(res, device, logical)
    if tracked:
        record(name or "JaxFunctionBackward0", launch.fn, launch.dyn, tracked, tensors, single,
               "none", res=saved)
    return tuple(tensors)


def _alignment(args):
    """For elementwise work with broadcasting on `args`, some padded: the result's size, its
    padded dims, and per tensor argument (index, array as read, target extents). Raises
    PyTorch's error for sizes that do not broadcast."""
    tensors = [(i, a) for i, a in enumerate(args) if isinstance(a, Tensor)]
    out = _registry._check_broadcast([a._size for _, a in tensors])
    reads = [_read(a) for _, a in tensors]
    nd = len(out)
    dims = set()
    for (_, a), (_, adims) in zip(tensors, reads):
        off = nd - len(a._size)
        dims.update(off + d for d in adims)
    ext = buckets.classes(out, dims)
    ops = []
    for (i, a), (arr, _) in zip(tensors, reads):
        off = nd - len(a._size)
        ops.append((i, arr, tuple(ext[off + j] if n > 1 else n for j, n in enumerate(a._size))))
    return out, tuple(sorted(dims)), ops


def aligned(args):
    """`_alignment`, with every tensor of `args` replaced by its array brought to the padded
    extents: (result size, padded dims, new args)."""
    out, dims, ops = _alignment(args)
    new = list(args)
    for i, arr, target in ops:
        new[i] = buckets.pad_to(arr, target)
    return out, dims, new


def elementwise(fn, args, device):
    """`fn` (elementwise, broadcasting) on `args`, some padded, as a padded tensor; None
    where it cannot (the exact path then raises PyTorch's error)."""
    try:
        out, dims, arrays = aligned(args)
        return buckets.padded_tensor(fn(*arrays), out, device, dims)
    except Exception:  # noqa: BLE001
        return None


def _pointwise(row, args):
    out, dims, ops = _alignment(args)
    return run_row(row, args, {i: arr for i, arr, _ in ops}, {i: t for i, _, t in ops},
                   outs=[tuple((d, out[d]) for d in dims)], logical=[out])


def mapped(fn, operands, index, allowed, device, name=None):
    """`fn(*operands)` where `operands[index]` is a padded tensor that `fn` maps over along
    the dims in `allowed(ndim)` (and the result's leading dims are the operand's): the padded
    result(s) as tensors (the node `name` recorded under autograd), or None when the padding is
    elsewhere or another operand is padded."""
    x = operands[index]
    r = buckets.read(x)
    if r is None:
        return None
    p, dims = r
    if not set(dims) <= set(allowed(len(x._size))):
        return None
    for i, a in enumerate(operands):
        if isinstance(a, Tensor) and i != index and buckets.read(a) is not None:
            return None
    try:
        return run_fn(fn, operands, {index: p}, {index: tuple(p.shape)}, {},
                      [tuple((d, x._size[d]) for d in dims)], name, device)
    except Exception:  # noqa: BLE001 - the exact path raises PyTorch's error
        return None


def class_loss(fn, operands, name, ignore_index, reduction):
    """A class-index loss `fn(input, target[, weight])` (input of N x C x d1..., or C for one
    sample) on operands padded along the batch dims: the padding of the target holds
    `ignore_index`, so it adds nothing to the sums and counts nothing in a mean. None where
    the padding is elsewhere."""
    try:
        x, target = operands[0], operands[1]
        nd = x.dim()
        if nd < 2 or target.dim() != nd - 1 or \
                any(isinstance(w, Tensor) and buckets.read(w) is not None for w in operands[2:]):
            return None
        (a, adims), (t, tdims) = _read(x), _read(target)
        if 1 in adims:
            return None   # the class dim
        batch = [d for d in range(nd) if d != 1]
        dims = set(adims) | {batch[j] for j in tdims}
        ext = buckets.classes(x._size, dims)
        reads = {0: a, 1: t}
        targets = {0: ext, 1: tuple(ext[d] for d in batch)}
        fills = {1: {j: ignore_index for j, d in enumerate(batch) if d in dims}}
        outs = [()] if reduction != "none" else \
            [tuple((j, target._size[j]) for j, d in enumerate(batch) if d in dims)]
        return run_fn(fn, operands, reads, targets, fills, outs, name, x._st.device)[0]
    except Exception:  # noqa: BLE001 - the exact path raises PyTorch's error
        return None


def _first_tensor(row):
    for i, name in enumerate(row.names):
        if name in row.tensors:
            return i
    return 0


def _mapping(allowed):
    """The "leading" rule: the row maps over the dims `allowed(row, args)(ndim)` of its first
    tensor operand, the only padded one, and its results' leading dims are that operand's."""
    def rule(row, args):
        index = _first_tensor(row)
        x = args[index]
        r = buckets.read(x)
        if r is None:
            return None
        p, dims = r
        if not set(dims) <= set(allowed(row, args)(len(x._size))):
            return None
        reads = {index: p}
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and i != index:
                if buckets.read(a) is not None:
                    return None
                reads[i] = a._value()
        return run_row(row, args, reads, {index: tuple(p.shape)},
                       outs=[tuple((d, x._size[d]) for d in dims)])
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


def _reducing(neutral, mean=False):
    """A reduction whose result is unchanged by elements equal to `neutral` (0, 1, "lowest",
    "highest"): the padding of the reduced dims is set to it inside the row's kernel; the
    result is padded along the dims it keeps. `mean`: the kernel's mean over the size classes
    is brought to the real count."""
    def rule(row, args):
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
        kept = [d for d in range(nd) if keep or d not in red]
        logical = tuple(1 if d in red else x._size[d] for d in kept)
        out = tuple((j, x._size[d]) for j, d in enumerate(kept) if d in padded and d not in red)
        post = None
        if mean and filled:
            n = 1
            for d in filled:
                n *= p.shape[d]
            post = (n, tuple(x._size[d] for d in filled))
        return run_row(row, args, {0: p}, {0: tuple(p.shape)}, {0: {d: neutral for d in filled}},
                       outs=[out], post=post, logical=[logical])
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
    x, y = args[0], args[1]
    if not (isinstance(x, Tensor) and isinstance(y, Tensor)) or x.dim() < 2 or y.dim() < 2 or \
            x._size[-1] != y._size[-2]:
        return None
    batch = _registry._check_broadcast([x._size[:-2], y._size[:-2]])
    (a, adims), (b, bdims) = _read(x), _read(y)
    k = x._size[-1]
    ka, kb = x.dim() - 1, y.dim() - 2
    ke = buckets.size_class(k) if ka in adims or kb in bdims else k
    nb = len(batch)
    dims = set()
    for t, tdims in ((x, adims), (y, bdims)):
        off = nb - (t.dim() - 2)
        dims.update(off + d for d in tdims if d < t.dim() - 2)
    ext = buckets.classes(batch, dims)

    def target(t, tail):
        off = nb - (t.dim() - 2)
        return tuple(ext[off + j] if n > 1 else n for j, n in enumerate(t._size[:-2])) + tail
    m = buckets.size_class(x._size[-2]) if x.dim() - 2 in adims else x._size[-2]
    n = buckets.size_class(y._size[-1]) if y.dim() - 1 in bdims else y._size[-1]
    if x.dim() - 2 in adims:
        dims.add(nb)
    if y.dim() - 1 in bdims:
        dims.add(nb + 1)
    size = batch + (x._size[-2], y._size[-1])
    return run_row(row, args, {0: a, 1: b}, {0: target(x, (m, ke)), 1: target(y, (ke, n))},
                   {0: {ka: 0}, 1: {kb: 0}}, outs=[tuple((d, size[d]) for d in sorted(dims))])


def _softmax(row, args):
    """softmax / log_softmax: free along every dim but `dim`; a padded `dim` has its padding
    set to the lowest value, which gets no weight."""
    x = args[0]
    r = buckets.read(x)
    d = args[row.names.index("dim")]
    nd = len(x._size)
    if r is None or not nd or not isinstance(d, int) or isinstance(d, bool) or \
            not -nd <= d < nd or r[0].dtype.kind != "f":
        return None
    p, dims = r
    d = d + nd if d < 0 else d
    return run_row(row, args, {0: p}, {0: tuple(p.shape)}, {0: {d: "lowest"}},
                   outs=[tuple((j, x._size[j]) for j in dims)])


def _cat(row, args):
    from .._core import dtype as dt
    tensors, dim = args[0], args[1]
    if _tracking(args):
        return None
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
    return programs.jit(f, ("bucketed.concat", d, extent, dtype))


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
    import jax.numpy as jnp

    def f(a, sizes, *idxs):
        key = [slice(None)] * a.ndim
        for j, (d, i) in enumerate(zip(dims, idxs)):
            i = jnp.asarray(i)
            key[d] = jnp.where(i < 0, i + sizes[j], i)
        return a[tuple(key)]
    return programs.jit(f, ("bucketed.gather", dims))


RULES = {
    "cat": _cat,
    "softmax": _softmax,
    "matmul": _matmul,
    "sum": _reducing(0),
    "mean": _reducing(0, mean=True),
    "prod": _reducing(1),
    "max": _reducing("lowest"),
    "min": _reducing("highest"),
    "argmax": _dim_given(_reducing("lowest")),
    "argmin": _dim_given(_reducing("highest")),
    "pointwise": _pointwise,
    "leading": _mapping(lambda row, args: lambda ndim: range(ndim - 1)),
}
