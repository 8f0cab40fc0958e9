"""Mirrors `torch.masked`: reductions and normalizations that see only the elements a boolean
`mask` selects (the mask broadcasts to the input). Masked-out elements count as the operation's
identity (0 for sums, 1 for products, -inf for maxima, ...), so a fully masked-out slice gives
what the plain operation gives on identities alone (0, -inf, nan for means...).

Everything is built on torchlike's public ops, so autograd comes with them; masked-out elements
get a zero gradient. `MaskedTensor` and its constructors are not provided (the missing-name
mechanism reports them)."""
import builtins
import math

import torchlike as _t

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp",
           "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin",
           "std", "sum", "var"]

# sum/prod with no dtype given accumulate these in int64, as torch.sum does.
_SMALL_INTS = ("bool", "uint8", "int8", "int16", "int32")
_REDUCTIONS = frozenset({"sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median",
                         "norm", "var", "std", "logsumexp"})
_NORMALIZATIONS = frozenset({"softmax", "log_softmax", "softmin", "normalize", "cumsum",
                             "cumprod"})


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _is_inexact(dtype):
    return dtype.is_floating_point or dtype.is_complex


# ---------------------------------------------------------------------------------------------
# helpers (PyTorch's private names: OpInfo's gradcheck wrappers call `_output_mask`/`_input_mask`)
# ---------------------------------------------------------------------------------------------

def _canonical_dim(dim, ndim):
    """The sorted tuple of non-negative dims `dim` names (`None` or `()`: every dim)."""
    if isinstance(dim, tuple) and len(dim) == 0:
        dim = None
    if dim is None:
        return tuple(range(ndim))
    ndim = builtins.max(ndim, 1)
    dims = (dim,) if isinstance(dim, int) else dim
    seen = []
    for d in dims:
        if d in seen:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-ndim}, {ndim - 1}], but got {d})")
        seen.append(d % ndim)
    return tuple(sorted(seen))


def _input_mask(input, *args, **kwargs):
    """The boolean mask of `input`'s shape that `kwargs['mask']` gives (all True when absent)."""
    mask = kwargs.get("mask")
    if mask is None:
        return _t.ones(input.shape, dtype=_t.bool, device=input.device)
    if tuple(mask.shape) != tuple(input.shape):
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        mask = _t.broadcast_to(mask, input.shape)
    return mask.to(dtype=_t.bool)


def _reduction_identity(op_name, input, *args):
    """The value masked-out elements of `input` take for operation `op_name`, as a 0-d tensor
    of `input`'s dtype (None for var/std, which never fill)."""
    dtype, device = input.dtype, input.device

    def full(v, dt=dtype):
        return _t.full((), v, dtype=dt, device=device)

    if op_name in ("sum", "cumsum", "mean"):
        return full(0)
    if op_name in ("prod", "cumprod"):
        return full(1)
    if op_name in ("amax", "argmax", "logsumexp", "amin", "argmin"):
        low = op_name in ("amax", "argmax", "logsumexp")
        if _is_inexact(dtype) and not (dtype.is_complex and op_name != "logsumexp"):
            return full(-math.inf if low else math.inf)
        if dtype.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        if dtype != _t.bool:
            info = _t.iinfo(dtype)
            return full(info.min if low else info.max)
    elif op_name == "median":
        dt = dtype if dtype.is_floating_point else _t.float32
        return full(math.nan, dt)
    elif op_name == "norm":
        ord = args[0] if args else 2
        if ord == -math.inf:
            if not dtype.is_floating_point:
                raise AssertionError(f"input must be floating point, got {dtype}")
            return full(math.inf)
        return full(0)
    elif op_name in ("var", "std"):
        return None
    raise NotImplementedError(f"identity of {op_name} on {dtype} input")


def _combine_input_and_mask(op_name, input, mask, *args):
    """`input` with its masked-out elements replaced by `op_name`'s identity."""
    if mask is None:
        return input
    inmask = _input_mask(input, mask=mask)
    return _t.where(inmask, input, _reduction_identity(op_name, input, *args))


def _any(mask, dims, keepdim):
    for d in reversed(dims):
        mask = _t.any(mask, d, keepdim)
    return mask


def _output_mask(op, input, *args, **kwargs):
    """Which elements of masked operation `op`'s output had at least one unmasked input."""
    if not callable(op):
        raise ValueError(f"_output_mask expected masked operation (got {type(op).__name__} "
                         "object)")
    name = op.__name__
    if name in _REDUCTIONS:
        if name == "norm" and args:
            args = args[1:]
        dim = args[0] if args else kwargs.get("dim")
        mask = _input_mask(input, *args, **kwargs)
        return _any(mask, _canonical_dim(dim, input.ndim), bool(kwargs.get("keepdim", False)))
    if name in _NORMALIZATIONS:
        return _input_mask(input, *args, **kwargs)
    module = op.__module__ or "torch"  # torchlike's ops are PyTorch's `torch.X` builtins
    if module.startswith("torchlike"):
        module = "torch" + module[len("torchlike"):]
    raise ValueError(f"_output_mask expected masked operation (got callable {module}.{name})")


def _in_dtype(fn, x, dtype, *args, **kwargs):
    """`fn(x, *args, dtype=dtype)`. A floating `dtype` is applied by casting `x` first (what
    PyTorch's `dtype=` means): torchlike's sum/cumsum given an explicit half-precision `dtype`
    accumulate in it, where PyTorch (and torchlike without `dtype=`) accumulate in float32."""
    if _is_inexact(dtype):
        return fn(x if x.dtype == dtype else x.to(dtype=dtype), *args, **kwargs)
    return fn(x, *args, dtype=dtype, **kwargs)


def _sum_dtype(input, dtype):
    if dtype is not None:
        return dtype
    return _t.int64 if _dtype_name(input.dtype) in _SMALL_INTS else input.dtype


# ---------------------------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------------------------

def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = _sum_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    x = _combine_input_and_mask("sum", input, mask)
    return _in_dtype(_t.sum, x, dtype, dims, bool(keepdim))


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = _sum_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    out = _combine_input_and_mask("prod", input, mask).to(dtype=dtype)
    for d in reversed(dims):  # one dim at a time, as PyTorch does (`prod(dims=[])` is a cast)
        out = _t.prod(out, d, bool(keepdim))
    return out


def cumsum(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    x = _combine_input_and_mask("cumsum", input, mask)
    return _in_dtype(_t.cumsum, x, dtype, d).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    x = _combine_input_and_mask("cumprod", input, mask)
    return _in_dtype(_t.cumprod, x, dtype, d).to(dtype=dtype)


def _extremum(name, fn, input, dim, keepdim, dtype, mask):
    dtype = input.dtype if dtype is None else dtype
    x = _combine_input_and_mask(name, input, mask)
    dims = _canonical_dim(dim, x.ndim)
    return fn(x, dims, bool(keepdim)).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    return _extremum("amax", _t.amax, input, dim, keepdim, dtype, mask)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    return _extremum("amin", _t.amin, input, dim, keepdim, dtype, mask)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    x = _combine_input_and_mask("argmax", input, mask)
    return _t.argmax(x, dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    x = _combine_input_and_mask("argmin", input, mask)
    return _t.argmin(x, dim, bool(keepdim)).to(dtype=dtype)


def _count(input, mask, dims, keepdim):
    """How many unmasked elements each reduced slice has (int64)."""
    if mask is None:
        return _t.sum(_t.ones(input.shape, dtype=_t.int64, device=input.device), dims, keepdim)
    return _t.sum(mask, dims, keepdim)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    which = "Input" if dtype is None else "Optional"
    dtype = input.dtype if dtype is None else dtype
    if not _is_inexact(dtype):
        raise ValueError(f"mean(): Could not infer output dtype. {which} dtype must be either a "
                         f"floating point or complex dtype. Got: {dtype}")
    inmask = None if mask is None else _input_mask(input, mask=mask)
    dims = _canonical_dim(dim, input.ndim)
    count = _count(input, inmask, dims, bool(keepdim))
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return _t.divide(total, count)


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=_t.float32)
    x = _combine_input_and_mask("median", input, mask)
    out = _t.nanmedian(x, d, bool(keepdim)).values
    if is_float:
        return out
    if bool(_t.isnan(out).any()):
        raise ValueError("masked median expects no fully masked out rows if dtype is not "
                         "floating point")
    return out.to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    x = _combine_input_and_mask("norm", input, mask, ord)
    dims = _canonical_dim(dim, input.ndim)
    return _t.linalg.vector_norm(x, ord, dims, bool(keepdim), dtype=dtype)


def _var(input, dim, unbiased, correction, keepdim, dtype, mask, sqrt):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    corr = 1.0
    if unbiased is not None:
        corr = 1.0 if unbiased else 0.0
    if correction is not None:
        corr = float(correction)
    if dtype is None:
        dtype = input.dtype if _is_inexact(input.dtype) else _t.float32
    compute = dtype if _is_inexact(dtype) else _t.float32
    inmask = None if mask is None else _input_mask(input, mask=mask)
    dims = _canonical_dim(dim, input.ndim)
    count = _count(input, inmask, dims, True)
    mu = _t.divide(sum(input, dim, keepdim=True, dtype=dtype, mask=inmask), count)
    dev = _t.subtract(input, mu)
    total = sum(dev * dev.conj(), dim, keepdim=keepdim, dtype=compute, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if corr != 0:
        real = compute.to_real() if compute.is_complex else compute
        count = _t.subtract(count.to(dtype=real), corr)
        count = _t.maximum(count, _t.zeros((), dtype=real, device=count.device))
    out = _t.divide(total, count).to(dtype=dtype)
    return _t.sqrt(out) if sqrt else out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    return _var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    return _var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dim(dim, input.ndim)
    x = _combine_input_and_mask("logsumexp", input, mask)
    return _t.logsumexp(x, dims, keepdim=bool(keepdim)).to(dtype=dtype)


# ---------------------------------------------------------------------------------------------
# normalizations and the pointwise logaddexp
# ---------------------------------------------------------------------------------------------

def softmax(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    x = _combine_input_and_mask("amax", input, mask)
    return _t.nn.functional.softmax(x, d, dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    x = _combine_input_and_mask("amax", input, mask)
    return _t.nn.functional.log_softmax(x, d, dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    x = _combine_input_and_mask("amin", input, mask)
    return _t.nn.functional.softmin(x, d, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    x = _combine_input_and_mask("sum", input, mask)
    d = _canonical_dim(dim, input.ndim)[0]
    nrm = norm(input, ord, d, keepdim=True, dtype=dtype, mask=mask)
    denom = _t.maximum(nrm, _t.full((), eps, dtype=nrm.dtype, device=nrm.device))
    return _t.divide(x, denom)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    dtype = input.dtype if dtype is None else dtype
    a = _combine_input_and_mask("logsumexp", input, input_mask)
    b = _combine_input_and_mask("logsumexp", other, other_mask)
    return _t.logaddexp(a, b).to(dtype=dtype)
