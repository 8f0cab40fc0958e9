"""Shape ops: joining, tiling, flipping, triangles/diagonals, searching and friends.

Rows whose result shape depends only on shapes and static arguments are jitted op-table rows;
the few whose shape depends on values (`repeat_interleave` with a tensor of repeats) read those
values in Python first and pass the result size as a static argument.
"""
import itertools
import math
import operator
import warnings

import jax.numpy as jnp
import numpy as np

from . import gradfix as _gf
from .._core import dtype as dt
from .._core.size import Size
from .._core.tensor import Tensor, _wrap_dim
from .registry import publish, METHODS, OPS, broadcast_shapes_checked, call, op, short_name
from .registry import numpy_names

F = "shape"


def _name(a):
    return short_name(dt._BY_NP[np.dtype(a.dtype)])


def _register(name, fn, method=True, function=True, aliases=()):
    fn.__name__ = name
    publish(fn, name, method=method, function=function, aliases=aliases)


def _seq(name, tensors, pos=1):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position {pos}) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    return tuple(tensors)


# ---- joining ---------------------------------------------------------------------------------

def _cat_arrays(arrs, dim):
    if not arrs:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, a in enumerate(arrs):
        if a.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               f"concatenated")
    keep = [(i, a) for i, a in enumerate(arrs) if not (a.ndim == 1 and a.shape[0] == 0)]
    if not keep:
        return jnp.zeros((0,), arrs[0].dtype)
    ref = keep[0][1]
    d = _wrap_dim(dim, ref.ndim)
    for i, a in keep[1:]:
        if a.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and "
                               f"{a.ndim}")
        for k in range(ref.ndim):
            if k != d and a.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref.shape[k]} but got size {a.shape[k]} for "
                                   f"tensor number {i} in the list.")
    if len(keep) == 1:
        return ref
    return jnp.concatenate([a for _, a in keep], axis=d)


_CAT_DEVICES = ("wrapper_CUDA_cat", {"tensors": "tensors"})


@op(tensors=(), lists=("tensors",), method=False, function=False, family=F, bucket="cat",
    devices=_CAT_DEVICES)
def cat(tensors, dim=0):
    return _cat_arrays(tensors, dim)


def _cat_out_check(tensors, out):
    if out is not None and isinstance(out, Tensor) and isinstance(tensors, (list, tuple)) and \
            all(isinstance(t, Tensor) for t in tensors) and tensors:
        r = dt.result_type_of([t.dtype for t in tensors], [], [])
        if not dt.can_cast(r, out.dtype):
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                            f"{short_name(out.dtype)}")


def _cat(tensors, dim=0, *, out=None):
    """Mirrors `torch.cat`."""
    _cat_out_check(tensors, out)
    return call(OPS["cat"], (tensors, dim), out)


@op(tensors=(), lists=("tensors",), method=False, function=False, family=F, bucket="exact",
    devices=_CAT_DEVICES)   # PyTorch stacks with cat
def stack(tensors, dim=0):
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]
    for i, a in enumerate(tensors[1:], 1):
        if a.shape != ref.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(ref.shape)} at entry 0 and {list(a.shape)} at entry {i}")
    d = _wrap_dim(dim, ref.ndim + 1)
    return jnp.stack(tensors, axis=d)


def _stack(tensors, dim=0, *, out=None):
    """Mirrors `torch.stack`."""
    _cat_out_check(tensors, out)
    return call(OPS["stack"], (tensors, dim), out)


_register("stack", numpy_names(_stack, "stack"), method=False)


def _stack_family(name, prep, dim_of):
    def f(tensors, *, out=None):
        tensors = _seq(name, tensors)
        if not tensors:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        ts = [prep(t) for t in tensors]
        _cat_out_check(ts, out)
        return call(OPS["cat"], (ts, dim_of(ts)), out)
    return f


_register("cat", numpy_names(_cat, "cat"), method=False, aliases=("concat", "concatenate"))


def _col(t):
    return t.reshape(t.numel(), 1) if t.dim() <= 1 else t


_register("hstack", _stack_family("hstack", lambda t: atleast_1d(t),
                                  lambda ts: 0 if ts[0].dim() == 1 else 1), method=False)
_register("vstack", _stack_family("vstack", lambda t: atleast_2d(t), lambda ts: 0),
          method=False, aliases=("row_stack",))
_register("dstack", _stack_family("dstack", lambda t: atleast_3d(t), lambda ts: 2), method=False)
_register("column_stack", _stack_family("column_stack", _col, lambda ts: 1), method=False)


def _atleast(n):
    def one(t):
        d = t.dim()
        if d >= n:
            return t
        if n == 1:
            return t.reshape(1)
        if n == 2:
            return t.reshape(1, 1) if d == 0 else t.unsqueeze(0)
        if d == 0:
            return t.reshape(1, 1, 1)
        if d == 1:
            return t.unsqueeze(0).unsqueeze(-1)
        return t.unsqueeze(-1)

    def f(*tensors):
        if len(tensors) == 1:
            x = tensors[0]
            if isinstance(x, Tensor):
                return one(x)
            return tuple(one(t) for t in x)
        return tuple(one(t) for t in tensors)
    return f


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)
for _n, _f in (("atleast_1d", atleast_1d), ("atleast_2d", atleast_2d),
               ("atleast_3d", atleast_3d)):
    _register(_n, _f, method=False)


# ---- flips, rolls, rotations -------------------------------------------------------------------

@op(promote=None, method=False, family=F, int_lists={"dims": 0})
def flip(input, dims):
    if isinstance(dims, int):
        raise TypeError("flip(): argument 'dims' (position 2) must be tuple of ints, not int")
    n = input.ndim
    wd = [_wrap_dim(d, n) for d in dims]
    seen = set()
    for d in wd:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    if n == 0 or not wd:
        return input
    return jnp.flip(input, axis=tuple(wd))


def _flip_method(self, *dims, **kwargs):
    if "dims" in kwargs and not dims:
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    return call(OPS["flip"], (self, tuple(dims)))


METHODS["flip"] = _flip_method


@op(promote=None, family=F)
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return jnp.flip(input, axis=1)


@op(promote=None, family=F)
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return jnp.flip(input, axis=0)


@op(promote=None, family=F, int_lists={"shifts": 1, "dims": 1})
def roll(input, shifts, dims=None):
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if input.ndim == 0 and dims is not None and (isinstance(dims, int) or len(dims)):
        d = dims if isinstance(dims, int) else dims[0]
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if dims is None or (not isinstance(dims, int) and len(dims) == 0):
        if dims is not None and not shifts:
            return input
        if len(shifts) != 1 and dims is None:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               f"dims:0")
        if dims is not None:
            if len(shifts) != 1:
                raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                                   f"dims:0")
        return jnp.roll(input.reshape(-1), shifts[0]).reshape(input.shape)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    wd = tuple(_wrap_dim(d, input.ndim) for d in dims)
    if input.ndim == 0:
        return input
    return jnp.roll(input, shifts, axis=wd)


@op(promote=None, family=F, ints=("k",), int_lists={"dims": 0})
def rot90(input, k=1, dims=(0, 1)):
    dims = tuple(dims)
    n = input.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = _wrap_dim(dims[0], n), _wrap_dim(dims[1], n)
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == n:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    return jnp.rot90(input, k % 4, axes=(d0, d1))


# ---- repetition --------------------------------------------------------------------------------

@op(promote=None, method=False, function=False, out=False, family=F)
def repeat(input, repeats):
    n = input.ndim
    if len(repeats) < n:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = (1,) * (len(repeats) - n) + tuple(input.shape)
    target = [s * r for s, r in zip(padded, repeats)]
    for s in target:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {target}")
    return jnp.tile(input.reshape(padded), repeats)


def _sizes(args, name):
    if len(args) == 1 and isinstance(args[0], (list, tuple, Size)):
        args = args[0]
    return tuple(operator.index(a) for a in args)


def _repeat_method(self, *repeats):
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    return call(OPS["repeat"], (self, _sizes(repeats, "repeat")))


METHODS["repeat"] = _repeat_method


def tile(input, dims):
    dims = _sizes((dims,), "tile") if not isinstance(dims, int) else (dims,)
    n = input.dim()
    if len(dims) < n:
        dims = (1,) * (n - len(dims)) + dims
    return call(OPS["repeat"], (input, dims))


def _tile_method(self, *dims):
    return tile(self, _sizes(dims, "tile"))


_register("tile", tile, method=False)
METHODS["tile"] = _tile_method


@op(promote=None, method=False, function=False, out=False, family=F)
def _repeat_interleave_int(input, repeats, dim, total):
    if dim is None:
        input = input.reshape(-1)
        d = 0
    else:
        d = _wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        input = input.reshape(1)
    return jnp.repeat(input, repeats, axis=d, total_repeat_length=total)


@op(tensors=("input", "repeats"), promote=None, method=False, function=False, out=False,
    family=F)
def _repeat_interleave_tensor(input, repeats, dim, total):
    if dim is None:
        input = input.reshape(-1)
        d = 0
    else:
        d = _wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        input = input.reshape(1)
    return jnp.repeat(input, repeats, axis=d, total_repeat_length=total)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Mirrors `torch.repeat_interleave`."""
    from .. import arange
    if repeats is None:
        reps = input
        if reps.dtype.category != 1:
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                      f"'{short_name(reps.dtype)}'")
        if reps.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        idx = arange(reps.numel(), dtype=reps.dtype)
        return repeat_interleave(idx, reps.reshape(-1), 0, output_size=output_size)
    n = input.dim()
    if dim is not None:
        d = _wrap_dim(dim, max(n, 1))
    length = input.numel() if dim is None else (input.shape[d] if n else 1)
    if isinstance(repeats, Tensor):
        if repeats.dtype.category != 1:
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                      f"'{short_name(repeats.dtype)}'")
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.numel() == 1:
            repeats = int(repeats.item())
        else:
            if repeats.shape[0] != length:
                raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                                   f"repeats.size(0) = {repeats.shape[0]} and input.size(0) = "
                                   f"{length}")
            r = np.asarray(repeats._value())
            if (r < 0).any():
                raise RuntimeError("repeats can not be negative")
            total = int(r.sum())
            if output_size is not None and output_size != total:
                raise RuntimeError("allocated size does not match required size")
            return call(OPS["_repeat_interleave_tensor"], (input, repeats, dim, total))
    repeats = operator.index(repeats)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    total = repeats * length
    if output_size is not None and output_size != total:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but got "
                           f"{output_size}")
    return call(OPS["_repeat_interleave_int"], (input, repeats, dim, total))


_register("repeat_interleave", numpy_names(repeat_interleave))


# ---- grids and broadcasting ------------------------------------------------------------------

def meshgrid(*tensors, indexing=None):
    """Mirrors `torch.meshgrid` (expanded views, like PyTorch)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    return _meshgrid(tensors, indexing)


def _meshgrid(tensors, indexing):
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f'{indexing}')
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        out.append(t.reshape(view).expand(shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


_register("meshgrid", meshgrid, method=False)


def broadcast_tensors(*tensors):
    """Mirrors `torch.broadcast_tensors`: expanded views; a tensor already of the broadcast shape
    is returned itself, as in PyTorch."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    shape = broadcast_shapes_checked([t._size for t in tensors])
    return tuple(t if t._size == shape else t.expand(shape) for t in tensors)


def broadcast_shapes(*shapes):
    """Mirrors `torch.broadcast_shapes`."""
    shapes = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    if not shapes:
        return Size(())
    for s in shapes:
        if not isinstance(s, (tuple, list, Size)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {s}")
    common = [1] * max(len(s) for s in shapes)
    for ai, s in enumerate(shapes):
        for idx in range(-1, -1 - len(s), -1):
            if s[idx] == common[idx]:
                continue
            if common[idx] == 1:
                if s[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = s[idx]
            if s[idx] == 1:
                continue
            if common[idx] != s[idx]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[idx]} at "
                                   f"{idx}! Mismatching argument at index {ai} had {s}; but "
                                   f"expected shape should be broadcastable to {common}")
    return Size(tuple(common))


_register("broadcast_tensors", broadcast_tensors, method=False)
_register("broadcast_shapes", broadcast_shapes, method=False)


def cartesian_prod(*tensors):
    """Mirrors `torch.cartesian_prod`."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid(tensors, "ij")
    return call(OPS["stack"], ([g.reshape(-1) for g in grids], 1))


_register("cartesian_prod", cartesian_prod, method=False)


@op(promote=None, family=F, ints=("r",))
def combinations(input, r=2, with_replacement=False):
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return jnp.zeros((0,), input.dtype)
    gen = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.array(list(gen(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return input[idx]


# ---- triangles and diagonals ---------------------------------------------------------------

@op(promote=None, inplace=True, family=F, ints=("diagonal",))
def tril(input, diagonal=0):
    if input.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return jnp.tril(input, diagonal)


@op(promote=None, inplace=True, family=F, ints=("diagonal",))
def triu(input, diagonal=0):
    if input.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return jnp.triu(input, diagonal)


@op(promote=None, family=F, ints=("diagonal",))
def diag(input, diagonal=0):
    if input.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    if input.ndim == 1:
        return jnp.diag(input, diagonal)
    return jnp.diagonal(input, diagonal)


@op(promote=None, family=F, ints=("offset", "dim1", "dim2"))
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    n = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    m = input.shape[-1] + abs(offset) if input.ndim else 1 + abs(offset)
    x = input if input.ndim else input.reshape(1)
    k = jnp.arange(x.shape[-1])
    rows = k + max(-offset, 0)
    cols = k + max(offset, 0)
    out = jnp.zeros(x.shape[:-1] + (m, m), x.dtype)
    out = out.at[..., rows, cols].set(x)
    # out has the two new dims last; move them to (d1, d2)
    rest = [i for i in range(n) if i not in (d1, d2)]
    perm = [0] * n
    for src, dst in enumerate(rest + [d1, d2]):
        perm[dst] = src
    return jnp.transpose(out, perm)


@op(promote=None, family=F, ints=("offset",))
def diagflat(input, offset=0):
    return jnp.diag(input.reshape(-1), offset)


@op(tensors=(), lists=("tensors",), method=False, out=False, function=False, family=F)
def _block_diag(tensors):
    mats = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.ndim} dimensions")
        mats.append(t.reshape(1, -1) if t.ndim == 1 else t.reshape(1, 1) if t.ndim == 0 else t)
    if not mats:
        return jnp.zeros((1, 0), dt.get_default_dtype().np)
    r = sum(m.shape[0] for m in mats)
    c = sum(m.shape[1] for m in mats)
    out = jnp.zeros((r, c), mats[0].dtype)
    i = j = 0
    for m in mats:
        out = out.at[i:i + m.shape[0], j:j + m.shape[1]].set(m.astype(out.dtype))
        i += m.shape[0]
        j += m.shape[1]
    return out


def block_diag(*tensors):
    """Mirrors `torch.block_diag`."""
    return call(OPS["_block_diag"], (tensors,))


_register("block_diag", block_diag, method=False)


@op(family=F, promote=None)
def trace(input):
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input.dtype == jnp.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    d = jnp.diagonal(input)
    if jnp.issubdtype(input.dtype, jnp.integer):
        return jnp.sum(d, dtype=jnp.int64)
    return jnp.sum(d, dtype=input.dtype)


@op(promote=None, family=F, ints=("dim", "start", "length"))
def narrow_copy(input, dim, start, length):
    n = input.ndim
    if n == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= n:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.  (Could this error message be improved?  If so, "
                           "please report an enhancement request to PyTorch.)")
    d = _wrap_dim(dim, n)
    cur = input.shape[d]
    if not -cur <= start <= cur:
        raise IndexError(f"start out of range (expected to be in range of [{-cur}, {cur}], but "
                         f"got {start})")
    if start < 0:
        start += cur
    if start + length > cur or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({cur}).")
    return jnp.take(input, jnp.arange(start, start + length), axis=d)


# ---- differences and searching ---------------------------------------------------------------

@op(tensors=("input", "prepend", "append"), family=F, ints=("n", "dim"))
def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.ndim)
    parts = []
    for p in (prepend, append):
        if p is not None and p.ndim != input.ndim:
            if p.ndim == 0:
                shape = list(input.shape)
                shape[d] = 1
                p = jnp.broadcast_to(p, shape)
            else:
                raise RuntimeError("diff expects prepend or append to be the same dimension as "
                                   "input")
        parts.append(p)
    pre, app = parts
    x = input
    if pre is not None or app is not None:
        x = _cat_arrays(tuple(a for a in (pre, input, app) if a is not None), d)
    for _ in range(n):
        if x.shape[d] == 0:
            break
        a = jnp.take(x, jnp.arange(1, x.shape[d]), axis=d)
        b = jnp.take(x, jnp.arange(0, x.shape[d] - 1), axis=d)
        x = jnp.logical_xor(a, b) if x.dtype == jnp.bool_ else a - b
    return x


def _side(side, right):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                               f"{side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        return side
    return "right" if right else "left"


@op(tensors=("sorted_sequence", "input", "sorter"), promote=None, family=F, method=False)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    side = _side(side, right)
    if sorted_sequence.dtype == jnp.bool_ and input.dtype == jnp.bool_:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    seq = sorted_sequence
    if sorter is not None:
        seq = jnp.take_along_axis(seq, sorter, axis=-1)
    if seq.ndim > 1 and (input.ndim != seq.ndim or input.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           f"first N-1 dimensions of boundaries tensor and input value tensor "
                           f"must match, but we got boundaries tensor {list(seq.shape)} and "
                           f"input value tensor {list(input.shape)}")
    ct = jnp.result_type(seq.dtype, input.dtype)
    seq, vals = seq.astype(ct), input.astype(ct)
    odt = jnp.int32 if out_int32 else jnp.int64
    if seq.ndim <= 1:
        return jnp.searchsorted(seq, vals, side=side).astype(odt)
    b = seq.reshape(-1, seq.shape[-1])
    v = vals.reshape(b.shape[0], -1)
    import jax
    r = jax.vmap(lambda s, x: jnp.searchsorted(s, x, side=side))(b, v)
    return r.reshape(input.shape).astype(odt)


@op(tensors=("input", "boundaries"), promote=None, family=F)
def bucketize(input, boundaries, *, out_int32=False, right=False):
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    if boundaries.dtype == jnp.bool_ and input.dtype == jnp.bool_:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    ct = jnp.result_type(boundaries.dtype, input.dtype)
    odt = jnp.int32 if out_int32 else jnp.int64
    return jnp.searchsorted(boundaries.astype(ct), input.astype(ct),
                            side="right" if right else "left").astype(odt)


# ---- distances ---------------------------------------------------------------------------

@op(tensors=("x1", "x2"), promote=None, method=False, out=False, family=F)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if not jnp.issubdtype(x1.dtype, jnp.floating):
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {_name(x1)}")
    if not jnp.issubdtype(x2.dtype, jnp.floating):
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {_name(x2)}")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {_name(x1)} but found {_name(x2)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = broadcast_shapes_checked([x1.shape[:-2], x2.shape[:-2]])
    a = jnp.broadcast_to(x1, batch + x1.shape[-2:])
    b = jnp.broadcast_to(x2, batch + x2.shape[-2:])
    diff = _gf.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return jnp.sum(diff != 0, axis=-1).astype(x1.dtype)
    if p == 1:
        return jnp.sum(diff, axis=-1)
    if p == 2:
        return _gf.sqrt0(jnp.sum(diff * diff, axis=-1))
    if math.isinf(p):
        return jnp.max(diff, axis=-1, initial=0)
    return _gf.root0(jnp.sum(diff ** p, axis=-1), 1.0 / p)
