"""Reductions, scans, sorting and selection ops.

Rows are pure JAX functions (`family="reduction"`); `dim`, `keepdim`, `dtype`, ... are static, so
all validation (dimension wrapping, duplicate dims, empty-reduction errors, dtype errors) runs at
trace time. Ops whose result shape depends on the values (`unique`, `unique_consecutive`,
`bincount`) are computed with NumPy on the host.
"""
import builtins
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import gradfix as _gf
from .. import return_types as rt
from .._core import dtype as dt
from .._core.tensor import Tensor, _wrap_dim, wrap
from .registry import FUNCTIONS, OPS, _TensorStatic, call, function, numpy_names, op, short_name
from ..amp.dispatch import autocast_op as _autocast_op

F = "reduction"
_bmax = builtins.max


class _Required:
    """Default marking a parameter PyTorch requires (so the error message can match its)."""

    def __repr__(self):
        return "<required>"


_REQ = _Required()


def _missing(name, what="dim"):
    return TypeError(f'{name}() missing 1 required positional arguments: "{what}"')


# ---- helpers -----------------------------------------------------------------------------------

def _tdt(x):
    return dt._BY_NP[np.dtype(x.dtype)]


def _cat(x):
    """0 bool, 1 integral, 2 floating, 3 complex."""
    return _tdt(x).category


def _int(d):
    if isinstance(d, _TensorStatic):
        d = d.v
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
        raise TypeError(f"dim must be int, not {type(d).__name__}")
    return int(d)


def _axes(dim, ndim):
    """Reduced axes (sorted) for dim None / int / sequence; () and None mean all dims."""
    if isinstance(dim, _TensorStatic):
        dim = dim.v
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        if len(dim) == 0:
            return tuple(range(ndim))
        seen = []
        for d in dim:
            w = _wrap_dim(_int(d), ndim) if ndim else (_wrap_dim(_int(d), 0) and 0)
            if w in seen:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.append(w)
        return tuple(sorted(seen)) if ndim else ()
    w = _wrap_dim(_int(dim), ndim)
    return (w,) if ndim else ()


def _one_dim(dim, ndim):
    """A single wrapped dim (None for a 0-dim input)."""
    w = _wrap_dim(_int(dim), ndim)
    return w if ndim else None


def _int64(x):
    return x.astype(jnp.int64)


def _acc(x, dtype):
    """Cast for sum/prod-like ops: an explicit dtype, else integral/bool to int64."""
    if dtype is not None:
        return x.astype(dtype.np)
    if _cat(x) < 2:
        return x.astype(jnp.int64)
    return x


def _not_impl(kernel, x):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(_tdt(x))}'")


def _nonempty(x, axes, name, dim_given, *, all_exc=RuntimeError, all_msg=None, sep="()"):
    if x.size != 0:
        return
    if not dim_given:
        raise all_exc(all_msg or f"{name}(): Expected reduction dim to be specified for "
                      "input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
    for a in axes:
        if x.shape[a] == 0:
            pre = f"{name}()" if sep == "()" else name
            raise IndexError(f"{pre}: Expected reduction dim {a} to have non-zero size.")


def _sort(x, axis, descending=False):
    """Stable sort along `axis` with PyTorch's order (NaN greatest, -0.0 == 0.0)."""
    iota = lax.broadcasted_iota(jnp.int64, x.shape, axis)
    k = x.astype(jnp.uint8) if x.dtype == jnp.bool_ else x
    if jnp.issubdtype(k.dtype, jnp.floating):
        nan = jnp.isnan(k)
        k = jnp.where((k == 0) | nan, jnp.zeros_like(k), k)
        if descending:
            keys = ((~nan).astype(jnp.int8), -k)
        else:
            keys = (nan.astype(jnp.int8), k)
    else:
        keys = (~k,) if descending else (k,)
    out = lax.sort(keys + (iota, x), dimension=axis, is_stable=True, num_keys=len(keys) + 1)
    return out[-1], out[-2]


def _take(x, idx, axis, keepdim):
    """Gather `idx` (keepdims shape) along axis; squeeze unless keepdim."""
    v = jnp.take_along_axis(x, idx, axis=axis)
    return v if keepdim else jnp.squeeze(v, axis)


def _arg_ext(x, axis, largest, keepdims=True):
    """First index of the max/min along axis, NaN counting as the extreme."""
    k = x.astype(jnp.uint8) if x.dtype == jnp.bool_ else x
    f = jnp.argmax if largest else jnp.argmin
    return _int64(f(k, axis=axis, keepdims=keepdims))


# ---- sums, means, products ---------------------------------------------------------------------

def _sum(x, axes, keepdim):
    """A sum in `x`'s dtype; a float16/bfloat16 one accumulates in float32 (PyTorch's CPU
    kernels do, an explicit `dtype=` included) and rounds once."""
    if x.dtype in (jnp.float16, jnp.bfloat16):
        return jnp.sum(x.astype(jnp.float32), axis=axes, keepdims=keepdim).astype(x.dtype)
    return jnp.sum(x, axis=axes, keepdims=keepdim, dtype=x.dtype)


@op(promote=None, family=F, bucket="sum")
def sum(input, dim=None, keepdim=False, *, dtype=None):
    axes = _axes(dim, input.ndim)
    x = _acc(input, dtype)
    if x.dtype == jnp.bool_:
        return jnp.any(x, axis=axes, keepdims=keepdim)
    return _sum(x, axes, keepdim)


@op(promote=None, family=F, bucket="sum")
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    if _cat(input) == 3:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    axes = _axes(dim, input.ndim)
    x = _acc(input, dtype)
    if jnp.issubdtype(x.dtype, jnp.inexact):
        x = jnp.where(jnp.isnan(x), jnp.zeros_like(x), x)
    if x.dtype == jnp.bool_:
        return jnp.any(x, axis=axes, keepdims=keepdim)
    return _sum(x, axes, keepdim)


def _mean_dtype(input, dtype):
    if dtype is None:
        if _cat(input) < 2:
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                               f"a floating point or complex dtype. Got: {short_name(_tdt(input))}")
        return input
    if dtype.category < 2:
        raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either "
                           f"a floating point or complex dtype. Got: {short_name(dtype)}")
    return input.astype(dtype.np)


@op(promote=None, family=F, bucket="mean")
def mean(input, dim=None, keepdim=False, *, dtype=None):
    axes = _axes(dim, input.ndim)
    x = _mean_dtype(input, dtype)
    return jnp.mean(x, axis=axes, keepdims=keepdim).astype(x.dtype)


@op(promote=None, family=F)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if _cat(input) < 2:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {short_name(_tdt(input))}")
    if _cat(input) == 3:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    axes = _axes(dim, input.ndim)
    x = input if dtype is None else input.astype(dtype.np)
    keep = ~jnp.isnan(x)
    s = jnp.sum(jnp.where(keep, x, jnp.zeros_like(x)), axis=axes, keepdims=keepdim)
    n = jnp.sum(keep, axis=axes, keepdims=keepdim)
    return (s / n).astype(x.dtype)


@op(promote=None, family=F, bucket="prod")
def prod(input, dim=None, keepdim=False, *, dtype=None):
    if isinstance(dim, (tuple, list)):
        raise TypeError("prod(): argument 'dim' must be int, not " + type(dim).__name__)
    axes = _axes(dim, input.ndim)
    x = _acc(input, dtype)
    if x.dtype == jnp.bool_:
        return jnp.all(x, axis=axes, keepdims=keepdim)
    return jnp.prod(x, axis=axes, keepdims=keepdim, dtype=x.dtype)


# ---- variance / standard deviation -------------------------------------------------------------

def _var(x, dim, unbiased, keepdim, correction, name="std and var"):
    if _cat(x) < 2:
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    axes = _axes(dim, x.ndim)
    n = math.prod(x.shape[a] for a in axes)
    m = jnp.mean(x, axis=axes, keepdims=True)
    d = x - m
    sq = (d.real * d.real + d.imag * d.imag) if jnp.iscomplexobj(d) else d * d
    s = jnp.sum(sq, axis=axes, keepdims=keepdim)
    den = _bmax(n - correction, 0)
    v = s / jnp.asarray(den, s.dtype)
    mean_ = m if keepdim else jnp.squeeze(m, axes) if axes else m
    return v, mean_.astype(x.dtype)


# The rows take `dim` already separated from a positional `unbiased` (x.std(True)): the front
# functions do that, since a static `False` and `0` would share one cached kernel.
_HIDDEN = dict(promote=None, family=F, function=False, method=False)


@op("var", **_HIDDEN)
def _var_row(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var(input, dim, unbiased, keepdim, correction)[0]


@op("std", **_HIDDEN)
def _std_row(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _gf.sqrt0(_var(input, dim, unbiased, keepdim, correction)[0])


@op("var_mean", **_HIDDEN)
def _var_mean_row(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var(input, dim, unbiased, keepdim, correction, "var_mean")


@op("std_mean", **_HIDDEN)
def _std_mean_row(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    v, m = _var(input, dim, unbiased, keepdim, correction, "std_mean")
    return _gf.sqrt0(v), m


def _no_degrees_of_freedom(input, dim, unbiased, correction):
    """Whether the reduced count minus the correction is <= 0 (PyTorch warns, the result is
    nan or inf); False where the arguments are bad (the kernel raises PyTorch's error)."""
    if not isinstance(input, Tensor):
        return False
    c = correction if correction is not None else (0 if unbiased is False else 1)
    size = input._size
    try:
        dims = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
        n = math.prod(size[_wrap_dim(d, len(size))] for d in dims) if dims and size else \
            math.prod(size)
        return n - c <= 0
    except (TypeError, IndexError, RuntimeError):
        return False


def _var_front(name, method):
    row = OPS[name]

    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        if isinstance(dim, (bool, np.bool_)):
            unbiased, dim = bool(dim), None
        if _no_degrees_of_freedom(input, dim, unbiased, correction):
            import warnings
            warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                          f"less than the reduction factor (input numel divided by output "
                          f"numel). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
                          f"native/ReduceOps.cpp:1861.)", UserWarning, stacklevel=2)
        return call(row, (input, dim, unbiased, keepdim, correction), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Mirrors `torch.{name}` (dim, unbiased / correction, keepdim)."
    fn = numpy_names(fn)
    function(name, method=method, family=F)(fn)
    return fn


var = _var_front("var", True)
std = _var_front("std", True)
var_mean = _var_front("var_mean", False)
std_mean = _var_front("std_mean", False)


# ---- max / min and friends ---------------------------------------------------------------------

def _minmax_row(name, largest):
    def impl(input, dim=None, keepdim=False):
        if dim is None:
            if _cat(input) == 3:
                raise _not_impl(f"{name}_all", input)
            _nonempty(input, (), name, False)
            return jnp.max(input) if largest else jnp.min(input)
        if _cat(input) == 3:
            raise RuntimeError(f"{name}(): does not support complex input")
        if isinstance(dim, (tuple, list)):
            raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
        d = _one_dim(dim, input.ndim)
        if d is None:
            return input, jnp.zeros((), jnp.int64)
        _nonempty(input, (d,), name, True)
        idx = _arg_ext(input, d, largest)
        return _take(input, idx, d, keepdim), (idx if keepdim else jnp.squeeze(idx, d))
    impl.__name__ = name
    return op(name, promote=None, family=F, returns=getattr(rt, name), function=False,
              method=False, bucket="max" if largest else "min")(impl)


_minmax_row("max", True)
_minmax_row("min", False)


def _minmax_front(name, binary):
    row = OPS[name]

    def fn(input, dim=None, keepdim=False, *, other=None, out=None):
        if not isinstance(input, Tensor) and dim is None and other is None:
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        if not isinstance(input, Tensor):   # (PyTorch's parser also names keywords given)
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got "
                f"({', '.join(type(a).__name__ for a in (input, dim) if a is not None)}), but "
                f"expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, "
                f"Tensor other, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim "
                f"= False, *, tuple of Tensors out = None)\n")
        if isinstance(dim, Tensor) or other is not None:
            o = dim if isinstance(dim, Tensor) else other
            return FUNCTIONS[binary](input, o, out=out)
        return call(row, (input, dim, keepdim), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Mirrors `torch.{name}` (full, along a dim, or elementwise with a tensor)."
    fn = numpy_names(fn)
    function(name, family=F)(fn)
    return fn


max = _minmax_front("max", "maximum")
min = _minmax_front("min", "minimum")


def _amax_row(name, largest):
    def impl(input, dim=(), keepdim=False):
        _max_dims(input)
        axes = _axes(dim, input.ndim)
        if _cat(input) == 3:
            raise _not_impl(f"{name[1:]}_values_cpu", input)
        given = dim is not None and not (isinstance(dim, (tuple, list)) and len(dim) == 0)
        _nonempty(input, axes, name, given)
        f = jnp.max if largest else jnp.min
        return f(input, axis=axes, keepdims=keepdim)
    impl.__name__ = name
    return op(name, promote=None, family=F, bucket="max" if largest else "min",
              out=_out_same_dtype)(impl)


def _out_same_dtype(args, res, out):
    """`amax`/`amin`'s `out=`: exactly the input's dtype (no cast), with PyTorch's message."""
    d = args[0].dtype
    if out.dtype is not d:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got "
                           f"{short_name(d)} for input's dtype and {short_name(out.dtype)} for "
                           f"out's dtype.")


def _out_input_dtype(args, res, out):
    """`aminmax`'s `out=` tensors: exactly the input's dtype, with PyTorch's message."""
    d = args[0].dtype
    for o in out if isinstance(out, (tuple, list)) else ():
        if isinstance(o, Tensor) and o.dtype is not d:
            raise RuntimeError(f"Expected out tensor to have dtype {dt.c_type_name(d)}, but got "
                               f"{dt.c_type_name(o.dtype)} instead")


_amax_row("amax", True)
_amax_row("amin", False)


def _max_dims(input):
    """PyTorch's CPU reduction kernels take at most 64 dims."""
    if input.ndim > 64:
        raise RuntimeError("only tensors with up to 64 dims are supported")


@op(promote=None, family=F, returns=rt.aminmax, ints=("dim",), out=_out_input_dtype)
def aminmax(input, *, dim=None, keepdim=False):
    _max_dims(input)
    if _cat(input) == 3:
        raise _not_impl("aminmax_cpu", input)
    if dim is None:
        _nonempty(input, (), "aminmax", False,
                  all_msg="aminmax(): cannot compute aminmax over an empty dimension as the "
                          "operation has no identity.")
        return (jnp.min(input, keepdims=keepdim), jnp.max(input, keepdims=keepdim))
    axes = _axes(_int(dim), input.ndim)
    _nonempty(input, axes, "aminmax", True, sep="")
    return (jnp.min(input, axis=axes, keepdims=keepdim),
            jnp.max(input, axis=axes, keepdims=keepdim))


def _argmax_row(name, largest):
    def impl(input, dim=None, keepdim=False):
        if isinstance(dim, (tuple, list)):
            raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not "
                            f"{type(dim).__name__}")
        if input.dtype == jnp.bool_:
            raise RuntimeError(f"{name}(): does not support bool input")
        if _cat(input) == 3:
            raise RuntimeError(f"{name}(): does not support complex input")
        if dim is None:
            if input.size == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                                 "input.numel() == 0.")
            r = _arg_ext(input.reshape(-1), 0, largest, keepdims=False)
            return r.reshape((1,) * input.ndim) if keepdim else r
        if isinstance(dim, (tuple, list)):
            raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not "
                            f"{type(dim).__name__}")
        d = _one_dim(dim, input.ndim)
        if d is None:
            return jnp.zeros((), jnp.int64)
        _nonempty(input, (d,), name, True)
        return _arg_ext(input, d, largest, keepdims=keepdim)
    impl.__name__ = name
    return op(name, promote=None, family=F, bucket="argmax" if largest else "argmin",
              ints=("dim",))(impl)


_argmax_row("argmax", True)
_argmax_row("argmin", False)


def _allany_row(name, f):
    def impl(input, dim=None, keepdim=False):
        axes = _axes(dim, input.ndim)
        r = f(input, axis=axes, keepdims=keepdim)
        return r.astype(jnp.uint8) if input.dtype == jnp.uint8 else r
    impl.__name__ = name
    return op(name, promote=None, family=F, bucket="prod" if name == "all" else "sum")(impl)


_allany_row("all", jnp.all)
_allany_row("any", jnp.any)


@op(promote=None, family=F, bucket="sum")
def count_nonzero(input, dim=None):
    axes = _axes(dim, input.ndim)
    return jnp.sum(input != 0, axis=axes, dtype=jnp.int64)


# ---- norms, logsumexp, softmax -----------------------------------------------------------------

@op(promote=None, family=F)
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    # as PyTorch's `torch.norm`: an order that is a string is a matrix norm (over `dim`, else
    # every dim), except "fro" over at most two dims, which is the vector 2-norm
    if isinstance(p, str) and not (p == "fro" and (dim is None or isinstance(dim, int) or
                                                   len(dim) <= 2)):
        from .linalg import _matrix_norm
        return _matrix_norm(input, p, tuple(range(input.ndim)) if dim is None else dim,
                            keepdim, dtype)
    if _cat(input) < 2:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {short_name(_tdt(input))}")
    if dtype is not None and _cat(input) == 3 and not dtype.is_complex:
        raise RuntimeError("linalg.vector_norm: dtype should be complex for complex inputs, but "
                           f"got {short_name(dtype)}")
    x = input if dtype is None else input.astype(dtype.np)
    if isinstance(p, str) or p is None:
        p = 2
    axes = _axes(dim, x.ndim)
    a = _gf.abs(x)
    return p_norm(opmath(a), p, axes, keepdim).astype(a.dtype)


OPS["norm"].opmath = False   # its matrix norms see float16/bfloat16 (see `linalg._matrix_norm`)


def opmath(a):
    """float16/bfloat16 values in float32, as PyTorch's CPU reductions accumulate them (a sum
    of squares of 10s overflows float16); the caller rounds the result back once."""
    return a.astype(jnp.float32) if a.dtype in (jnp.float16, jnp.bfloat16) else a


def p_norm(a, p, axes, keepdim):
    """The `p`-norm of magnitudes `a` over `axes` (PyTorch's error for an inf norm of nothing)."""
    if p == math.inf or p == -math.inf:
        if a.size == 0 and any(a.shape[i] == 0 for i in axes) or a.size == 0 and not axes:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {'' if p > 0 else '-'}inf "
                               "norm on an empty tensor because the operation does not have an "
                               "identity")
        return (jnp.max if p > 0 else jnp.min)(a, axis=axes, keepdims=keepdim)
    if p == 0:   # a count: its gradient is zero (as PyTorch's), not absent
        return jnp.sum(jnp.where(a != 0, jnp.ones_like(a), a * 0), axis=axes,
                       keepdims=keepdim)
    if p == 1:
        return jnp.sum(a, axis=axes, keepdims=keepdim)
    if p == 2:
        return _gf.sqrt0(jnp.sum(a * a, axis=axes, keepdims=keepdim))
    if p < 0:   # |0| ** p is inf, and the norm 0
        powered = a ** p
    else:   # |0| ** p: PyTorch's subgradient there is 0 (p * 0 ** (p - 1) is inf for p < 1)
        zero = a == 0
        powered = jnp.where(zero, jnp.zeros_like(a), jnp.where(zero, jnp.ones_like(a), a) ** p)
    s = jnp.sum(powered, axis=axes, keepdims=keepdim)
    return _gf.root0(s, 1.0 / p)


@op(promote="int_to_float", family=F, bucket="max")
def logsumexp(input, dim=_REQ, keepdim=False):
    if dim is _REQ:
        raise _missing("logsumexp")
    axes = _axes(dim, input.ndim)
    if input.size == 0:
        return jnp.full(jnp.sum(input, axis=axes, keepdims=keepdim).shape, -jnp.inf, input.dtype)
    return _gf.logsumexp(input, axes, keepdim).astype(input.dtype)


def _softmax_row(name, log):
    def impl(input, dim=_REQ, dtype=None):
        if dim is _REQ:
            raise _missing(name)
        d = _one_dim(dim, input.ndim)
        if dtype is not None:
            x = input.astype(dtype.np)
        elif _cat(input) != 2:
            last = d is None or d == input.ndim - 1
            raise _not_impl(f"{name}_{'lastdim_' if last else ''}kernel_impl", input)
        else:
            x = input
        if d is None:
            r = (jax.nn.log_softmax if log else jax.nn.softmax)(x.reshape(1), axis=0)
            return r.reshape(())
        return (jax.nn.log_softmax if log else jax.nn.softmax)(x, axis=d)
    impl.__name__ = name
    return op(name, promote=None, family=F, bucket="softmax", ints=("dim",))(impl)


_softmax_row("softmax", False)
_softmax_row("log_softmax", True)


# ---- scans -------------------------------------------------------------------------------------

def _cum_row(name, f):
    def impl(input, dim=_REQ, *, dtype=None):
        if dim is _REQ:
            raise _missing(name)
        d = _one_dim(dim, input.ndim)
        x = _acc(input, dtype)
        if d is None:
            return x
        if x.dtype == jnp.bool_:
            return (lax.cummax if name == "cumsum" else lax.cummin)(x.astype(jnp.uint8),
                                                                    axis=d).astype(jnp.bool_)
        return f(x, axis=d, dtype=x.dtype)
    impl.__name__ = name
    return op(name, promote=None, family=F, inplace=True, ints=("dim",))(impl)


_cum_row("cumsum", jnp.cumsum)
_cum_row("cumprod", jnp.cumprod)


def _cumext_row(name, largest):
    def impl(input, dim):
        d = _one_dim(dim, input.ndim)
        if d is None:
            return input, jnp.zeros((), jnp.int64)
        if _cat(input) == 3:
            raise _not_impl(f"{name}_cpu", input)
        k = input.astype(jnp.uint8) if input.dtype == jnp.bool_ else input
        idx = lax.broadcasted_iota(jnp.int64, k.shape, d)
        isf = jnp.issubdtype(k.dtype, jnp.floating)

        def comb(a, b):
            av, ai = a
            bv, bi = b
            better = (bv >= av) if largest else (bv <= av)
            if isf:
                better = jnp.isnan(bv) | (~jnp.isnan(av) & better)
            return jnp.where(better, bv, av), jnp.where(better, bi, ai)
        v, i = lax.associative_scan(comb, (k, idx), axis=d)
        return v.astype(input.dtype), i
    impl.__name__ = name
    return op(name, promote=None, family=F, returns=getattr(rt, name), ints=("dim",))(impl)


_cumext_row("cummax", True)
_cumext_row("cummin", False)


@op(promote=None, family=F, ints=("dim",))
def logcumsumexp(input, dim):
    if _cat(input) < 2:
        raise _not_impl("logcumsumexp_out_cpu", input)
    d = _one_dim(dim, input.ndim)
    if d is None or input.size == 0:
        return input
    if jnp.iscomplexobj(input):
        return lax.associative_scan(_complex_logaddexp, input, axis=d)
    return lax.cumlogsumexp(input, axis=d)


def _complex_logaddexp(a, b):
    """log(exp(a) + exp(b)) as PyTorch's complex kernel: the operand with the larger real
    part plus log1p(exp(difference)), so the imaginary part is not wrapped into (-pi, pi]."""
    first = jnp.real(a) >= jnp.real(b)
    hi, lo = jnp.where(first, a, b), jnp.where(first, b, a)
    r = hi + jnp.log1p(jnp.exp(lo - hi))
    return jnp.where(jnp.isneginf(jnp.real(hi)), hi, r)


# ---- sorting and selection ---------------------------------------------------------------------

def _no_complex_sort(x):
    if _cat(x) == 3:
        raise RuntimeError(" Sort does not support complex dtypes on CPU")


@op(promote=None, family=F, returns=rt.sort)
def sort(input, dim=-1, descending=False, stable=False):
    _no_complex_sort(input)
    d = _one_dim(dim, input.ndim)
    if d is None:
        return input, jnp.zeros((), jnp.int64)
    return _sort(input, d, descending)


@op(promote=None, family=F)
def argsort(input, dim=-1, descending=False, *, stable=False):
    _no_complex_sort(input)
    d = _one_dim(dim, input.ndim)
    if d is None:
        return jnp.zeros((), jnp.int64)
    return _sort(input, d, descending)[1]


@op(promote=None, family=F)
def msort(input):
    _no_complex_sort(input)
    if input.ndim == 0:
        return input
    return _sort(input, 0)[0]


@op(promote=None, family=F, returns=rt.topk, ints=("k", "dim"))
def topk(input, k, dim=-1, largest=True, sorted=True):
    d = _one_dim(dim, input.ndim)
    n = input.shape[d] if d is not None else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if _cat(input) in (0, 3):
        raise RuntimeError(f" topk does not support {'bool' if _cat(input) == 0 else 'complex'} "
                           "dtypes on CPU")
    if d is None:
        return input, jnp.zeros((), jnp.int64)
    v, i = _sort(input, d, largest)
    return lax.slice_in_dim(v, 0, k, axis=d), lax.slice_in_dim(i, 0, k, axis=d)


@op(promote=None, family=F, returns=rt.kthvalue, ints=("k", "dim"))
def kthvalue(input, k, dim=-1, keepdim=False):
    d = _one_dim(dim, input.ndim)
    n = input.shape[d] if d is not None else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension "
                           f"{d if d is not None else 0}")
    if _cat(input) in (0, 3):
        raise _not_impl("kthvalue_cpu", input)
    if d is None:
        return input, jnp.zeros((), jnp.int64)
    v, i = _sort(input, d)
    v = lax.slice_in_dim(v, k - 1, k, axis=d)
    i = lax.slice_in_dim(i, k - 1, k, axis=d)
    return (v, i) if keepdim else (jnp.squeeze(v, d), jnp.squeeze(i, d))


def _median_row(name, ignore_nan):
    def impl(input, dim=None, keepdim=False):
        if _cat(input) in (0, 3):
            raise _not_impl("median_cpu" if dim is None else "median_out", input)
        if dim is None:
            x = input.reshape(-1)
            if x.size == 0:
                return jnp.full((), jnp.nan, x.dtype) if _cat(x) >= 2 else jnp.zeros((), x.dtype)
            v, _ = _pick_median(x, 0, ignore_nan)
            return _evenly(x, v[0])
        d = _one_dim(dim, input.ndim)
        if d is None:
            return input, jnp.zeros((), jnp.int64)
        _nonempty(input, (d,), name, True)
        if input.size == 0:
            shape = jnp.sum(input, axis=d, keepdims=keepdim).shape
            return jnp.zeros(shape, input.dtype), jnp.zeros(shape, jnp.int64)
        v, i = _pick_median(input, d, ignore_nan)
        return (v, i) if keepdim else (jnp.squeeze(v, d), jnp.squeeze(i, d))
    impl.__name__ = name
    return op(name, promote=None, family=F, returns=getattr(rt, name))(impl)


def _evenly(x, v):
    """`v` (a value picked from flat `x`) whose gradient is spread evenly over the elements
    equal to it, as PyTorch's full-reduction median/max/min backward (evenly_distribute)."""
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return v
    v = lax.stop_gradient(v)
    eq = (x == v) | (jnp.isnan(x) & jnp.isnan(v))
    cnt = jnp.maximum(jnp.sum(eq), 1).astype(x.dtype)
    return v + jnp.sum(jnp.where(eq, x - lax.stop_gradient(x), jnp.zeros_like(x))) / cnt


def _pick_median(x, d, ignore_nan):
    s, idx = _sort(x, d)
    n = x.shape[d]
    if jnp.issubdtype(x.dtype, jnp.floating):
        nanc = jnp.sum(jnp.isnan(x), axis=d, keepdims=True, dtype=jnp.int64)
    else:
        nanc = jnp.zeros(jnp.sum(x, axis=d, keepdims=True).shape, jnp.int64)
    if ignore_nan:
        m = n - nanc
        pos = jnp.where(m > 0, (m - 1) // 2, 0)
    else:
        pos = jnp.where(nanc > 0, n - nanc, (n - 1) // 2)
    return jnp.take_along_axis(s, pos, axis=d), jnp.take_along_axis(idx, pos, axis=d)


_median_row("median", False)
_median_row("nanmedian", True)


@op(promote=None, family=F, returns=rt.mode, ints=("dim",))
def mode(input, dim=-1, keepdim=False):
    if _cat(input) == 3:
        raise _not_impl("mode_cpu", input)
    d = _one_dim(dim, input.ndim)
    if d is None:
        return input, jnp.zeros((), jnp.int64)
    _nonempty(input, (d,), "mode", True)
    if input.size == 0:
        shape = jnp.sum(input, axis=d, keepdims=keepdim).shape
        return jnp.zeros(shape, input.dtype), jnp.zeros(shape, jnp.int64)
    x = jnp.moveaxis(input, d, -1)
    s, idx = _sort(x, x.ndim - 1)

    def same(a, b):
        e = a == b
        if jnp.issubdtype(a.dtype, jnp.floating):
            e = e | (jnp.isnan(a) & jnp.isnan(b))
        return e
    cnt = jnp.sum(same(s[..., :, None], s[..., None, :]), axis=-1)
    best = jnp.argmax(cnt, axis=-1, keepdims=True)
    val = jnp.take_along_axis(s, best, axis=-1)
    where_ = same(s, val)
    ind = jnp.max(jnp.where(where_, idx, -1), axis=-1, keepdims=True)
    val = jnp.take_along_axis(x, ind, axis=-1)  # the gradient goes to the returned index
    val, ind = jnp.moveaxis(val, -1, d), jnp.moveaxis(ind, -1, d)
    return (val, ind) if keepdim else (jnp.squeeze(val, d), jnp.squeeze(ind, d))


# ---- quantiles ---------------------------------------------------------------------------------

_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _lerp(a, b, w):
    return jnp.where(w < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def _quantile_impl(input, q, dim, keepdim, interpolation, ignore_nan, q_is_vector):
    x = input
    if dim is None:
        d = 0
        xs = x.reshape(1, -1) if x.ndim else x.reshape(1, 1)
        xs = xs[0]
    else:
        d = _one_dim(dim, x.ndim)
        xs = x.reshape(1) if d is None else jnp.moveaxis(x, d, -1)
    s, _ = _sort(xs, xs.ndim - 1)
    n = xs.shape[-1]
    nanc = jnp.sum(jnp.isnan(xs), axis=-1, keepdims=True)
    qv = jnp.asarray(q).astype(x.dtype).reshape(-1)
    if ignore_nan:
        last = jnp.maximum(n - nanc - 1, 0).astype(x.dtype)
        rank = qv * last
    else:
        rank = jnp.where(nanc > 0, jnp.asarray(n - 1, x.dtype), qv * (n - 1))
    rank = jnp.broadcast_to(rank, s.shape[:-1] + (qv.shape[0],))
    lo = jnp.floor(rank)
    hi = jnp.ceil(rank)
    if interpolation == "nearest":
        r = jnp.take_along_axis(s, _int64(jnp.round(rank)), axis=-1)
    else:
        vlo = jnp.take_along_axis(s, _int64(lo), axis=-1)
        vhi = jnp.take_along_axis(s, _int64(hi), axis=-1)
        if interpolation == "lower":
            r = vlo
        elif interpolation == "higher":
            r = vhi
        elif interpolation == "midpoint":
            r = _lerp(vlo, vhi, jnp.asarray(0.5, x.dtype))
        else:
            r = _lerp(vlo, vhi, rank - lo)
    # r: (rest..., Q) -> (Q, rest...)
    r = jnp.moveaxis(r, -1, 0)
    if keepdim:
        if dim is None:
            r = r.reshape((r.shape[0],) + (1,) * x.ndim)
        elif d is not None:
            r = jnp.expand_dims(r, d + 1)
    if not q_is_vector:
        r = r[0]
    return r.astype(x.dtype)


@op("_quantile", promote=None, family=F, tensors=("input", "q"), promoted=(),
    function=False, method=False)
def _quantile_row(input, q, dim, keepdim, interpolation, ignore_nan, q_is_vector):
    return _quantile_impl(input, q, dim, keepdim, interpolation, ignore_nan, q_is_vector)


def _quantile_front(name, ignore_nan):
    row = OPS["_quantile"]

    def fn(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
        if input.dtype not in (dt.float32, dt.float64):
            raise RuntimeError("quantile() input tensor must be either float or double dtype")
        if isinstance(q, Tensor):
            if q.dim() > 1:
                raise RuntimeError("quantile() q must be a scalar or 1D tensor")
            if q.dtype is not input.dtype:
                raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if input.numel() == 0:
            raise RuntimeError("quantile() input tensor must be non-empty")
        if interpolation not in _INTERP:
            raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, "
                               f"midpoint or nearest, but got {interpolation}")
        if isinstance(q, Tensor):
            qa = np.asarray(q._value())
            if not np.all((qa >= 0) & (qa <= 1)):
                raise RuntimeError("quantile() q values must be in the range [0, 1]")
            vec = q.dim() == 1
        else:
            if not 0 <= q <= 1:
                raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
            vec = False
        return call(row, (input, q, dim, keepdim, interpolation, ignore_nan, vec), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Mirrors `torch.{name}`."
    fn = _autocast_op("_quantile")(fn)
    function(name, family=F)(fn)
    return fn


quantile = _quantile_front("quantile", False)
nanquantile = _quantile_front("nanquantile", True)


# ---- histograms --------------------------------------------------------------------------------

@op(promote=None, family=F, differentiable=False, ints=("bins",))
def histc(input, bins=100, min=0, max=0):
    if _cat(input) != 2:
        kernel = {0: "linspace_cpu", 3: "aminmax_cpu" if min == max else "histogram_cpu"}
        raise _not_impl(kernel.get(_cat(input), "histogram_cpu"), input)
    if bins <= 0:
        raise RuntimeError("torch.histc: bins must be > 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = input.reshape(-1)
    if min == max:
        if x.size:
            lo, hi = jnp.min(x), jnp.max(x)
        else:
            lo = hi = jnp.asarray(min, x.dtype)
        same = lo == hi
        lo = jnp.where(same, lo - 1, lo)
        hi = jnp.where(same, hi + 1, hi)
    else:
        lo, hi = jnp.asarray(min, x.dtype), jnp.asarray(max, x.dtype)
    pos = jnp.floor((x - lo) * bins / (hi - lo))
    valid = (x >= lo) & (x <= hi)
    pos = jnp.where(x == hi, bins - 1, pos)
    pos = jnp.where(valid, pos, 0).astype(jnp.int64)
    return jnp.zeros((bins,), x.dtype).at[pos].add(valid.astype(x.dtype))


# ---- Tensor.sum_to_size ------------------------------------------------------------------------

@op("_sum_to_size", promote=None, family=F, function=False, method=False, out=False)
def _sum_to_size_row(input, size):
    lead = input.ndim - len(size)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(size) if s == 1 and input.shape[lead + i] != 1)
    if not axes and size:
        return input
    # a sum (PyTorch sums to a 0-d target even from a 0-d input): integers accumulate in int64
    acc = jnp.int64 if _cat(input) < 2 else input.dtype
    return jnp.sum(input, axis=axes, keepdims=True, dtype=acc).reshape(size)


@function("sum_to_size", function=False, family=F)
def sum_to_size(self, *size):
    """Mirrors `Tensor.sum_to_size`."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    size = tuple(int(s) for s in size)
    shape = tuple(self.shape)
    ok = len(size) <= len(shape) and all(
        s == t or s == 1 for s, t in zip(reversed(size), reversed(shape)))
    if not ok:
        raise RuntimeError(f"size {{[{', '.join(map(str, size))}]}} is not expandable to size "
                           f"{{[{', '.join(map(str, shape))}]}}.")
    return call(OPS["_sum_to_size"], (self, size))


# ---- host-computed ops (value-dependent result shapes) -----------------------------------------

def _host(t):
    return np.asarray(t._value())


def _out(a, like):
    return wrap(jnp.asarray(a), like._st.device)


def _as_tensor(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    return x


@function("unique", family=F)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Mirrors `torch.unique` (computed on the host: its size depends on the values)."""
    _as_tensor(input, "unique")
    if input.dtype.is_complex:
        raise NotImplementedError(f"\"{'unique' if dim is None else 'unique_dim'}\" not "
                                  f"implemented for '{short_name(input.dtype)}'")
    a = _host(input)
    if dim is None:
        flat = a.reshape(-1)
        kw = {"equal_nan": False} if flat.dtype.kind in "fc" else {}
        vals, inv, cnt = np.unique(flat, return_inverse=True, return_counts=True, **kw)
        inv = inv.reshape(a.shape)
    else:
        d = _wrap_dim(_int(dim), a.ndim)
        if a.ndim == 0:
            vals, inv, cnt = a, np.zeros((), np.int64), np.ones((), np.int64)
        else:
            vals, inv, cnt = np.unique(a, axis=d, return_inverse=True, return_counts=True)
            inv = inv.reshape(a.shape[d])
    res = [_out(vals.astype(a.dtype), input)]
    if return_inverse:
        res.append(_out(inv.astype(np.int64), input))
    if return_counts:
        res.append(_out(cnt.astype(np.int64), input))
    return res[0] if len(res) == 1 else tuple(res)


@function("unique_consecutive", family=F)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Mirrors `torch.unique_consecutive` (computed on the host)."""
    _as_tensor(input, "unique_consecutive")
    if input.dtype.is_complex:
        raise NotImplementedError(f"\"{'unique' if dim is None else 'unique_dim'}\" not "
                                  f"implemented for '{short_name(input.dtype)}'")
    a = _host(input)
    if dim is None:
        m = a.reshape(-1)
        flat = m.reshape(m.shape[0], 1)
        d = 0
        shape_inv = a.shape
    else:
        d = _wrap_dim(_int(dim), a.ndim)
        m = np.moveaxis(a, d, 0) if a.ndim else a.reshape(1)
        flat = m.reshape(m.shape[0], -1)
        shape_inv = (m.shape[0],)
    n = flat.shape[0]
    start = np.ones(n, bool)
    if n > 1:
        start[1:] = np.any(flat[1:] != flat[:-1], axis=1)
    vals = m[start]
    if dim is not None and a.ndim:
        vals = np.moveaxis(vals, 0, d)
    inv = (np.cumsum(start) - 1).reshape(shape_inv)
    pos = np.flatnonzero(start)
    cnt = np.diff(np.append(pos, n))
    res = [_out(np.ascontiguousarray(vals).astype(a.dtype), input)]
    if return_inverse:
        res.append(_out(inv.astype(np.int64), input))
    if return_counts:
        res.append(_out(cnt.astype(np.int64), input))
    return res[0] if len(res) == 1 else tuple(res)


@function("bincount", family=F)
def bincount(input, weights=None, minlength=0):
    """Mirrors `torch.bincount` (computed on the host: its length depends on the values)."""
    _as_tensor(input, "bincount")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.dtype.category != 1:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for "
                                  f"'{short_name(input.dtype)}'")
    a = _host(input)
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _out(np.bincount(a.astype(np.int64), minlength=minlength).astype(np.int64), input)
    w = _host(weights)
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    odt = np.float32 if weights.dtype is dt.float32 else np.float64
    r = np.bincount(a.astype(np.int64), weights=w.astype(np.float64), minlength=minlength)
    return _out(r.astype(odt), input)


# ---- trapezoid rule ------------------------------------------------------------------------------

def _trapz_terms(y, x, dx, dim, name):
    """The per-interval terms of the trapezoid rule along `dim` (before the sum or cumsum, and
    before halving) and the wrapped dim; PyTorch's argument checks."""
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"Tensor, dx=Number), but expected one of:\n"
                        f" * (Tensor y, Tensor x, *, int dim = -1)\n"
                        f" * (Tensor y, *, Number dx = 1, int dim = -1)\n")
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, y.ndim)
    n = y.shape[d]
    pair = (lax.slice_in_dim(y, 0, builtins.max(n - 1, 0), axis=d) +
            lax.slice_in_dim(y, builtins.min(1, n), n, axis=d))
    if x is None:
        return pair * (1 if dx is None else dx), d
    if x.ndim == 1:
        if x.shape[0] != n:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        x = x.reshape((n,) + (1,) * (y.ndim - 1 - d))  # broadcasts along `dim`
        xd = 0
    else:
        xd = _wrap_dim(dim, x.ndim)
    return jnp.diff(x, axis=xd) * pair, d


def _no_bool(name):
    """The row check: PyTorch's trapezoid rule takes no bool `y` or `x`."""
    def check(*dtypes):  # (y,) or (y, x)
        if dt.bool_ in dtypes:
            arg = "`y`" if len(dtypes) == 1 else "`x` or `y`"
            raise RuntimeError(f"{name}: received a bool input for {arg}, but bool is not "
                               f"supported")
    return check


@op("trapezoid", tensors=("y", "x"), scalars=("dx",), promote="int_to_float", method=False,
    out=False, aliases=("trapz",), family=F, check=_no_bool("trapezoid"))
def trapezoid(y, x=None, *, dx=None, dim=-1):
    terms, d = _trapz_terms(y, x, dx, dim, "trapezoid")
    return (jnp.sum(terms, axis=d) / 2).astype(terms.dtype)


@op("cumulative_trapezoid", tensors=("y", "x"), scalars=("dx",), promote="int_to_float",
    method=False, out=False, family=F, check=_no_bool("cumulative_trapezoid"))
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    terms, d = _trapz_terms(y, x, dx, dim, "cumulative_trapezoid")
    return (jnp.cumsum(terms, axis=d) / 2).astype(terms.dtype)


# ---- histogram -------------------------------------------------------------------------------------

def _hist_fill(x, pos, valid, weight, edges, density):
    """Counts (or summed weights) per bin; with `density`, normalised by total and bin width."""
    nb = edges.shape[0] - 1
    w = valid.astype(x.dtype) if weight is None else jnp.where(valid, weight.reshape(-1), 0)
    hist = jnp.zeros((nb,), x.dtype).at[jnp.where(valid, pos, 0)].add(w.astype(x.dtype))
    if density:
        hist = hist / (jnp.sum(hist) * jnp.diff(edges))
    return hist.astype(x.dtype), edges


def _hist_checks(input, weight):
    if _cat(input) != 2:
        raise _not_impl("histogramdd", input)
    if weight is not None and weight.shape != input.shape:
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the "
                           "same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {list(input.shape)} and weight with shape "
                           f"{list(weight.shape)}")


@op("_histogram_bins", tensors=("input", "weight"), promote=None, family=F, function=False,
    method=False, out=False, differentiable=False)
def _histogram_bins(input, bins, range=None, weight=None, density=False):
    """`bins` equal-width bins over `range` (default: the data's min and max)."""
    _hist_checks(input, weight)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    x = input.reshape(-1)
    if range is not None:
        lo, hi = (float(v) for v in range)
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} "
                               f"max {hi:g} for dimension 0")
        lo, hi = jnp.asarray(lo, jnp.float64), jnp.asarray(hi, jnp.float64)
    elif x.size:
        lo, hi = jnp.min(x).astype(jnp.float64), jnp.max(x).astype(jnp.float64)
    else:
        lo, hi = jnp.asarray(0.0, jnp.float64), jnp.asarray(1.0, jnp.float64)
    same = lo == hi
    lo, hi = jnp.where(same, lo - 0.5, lo), jnp.where(same, hi + 0.5, hi)
    edges = (lo + (hi - lo) * jnp.arange(bins + 1, dtype=jnp.float64) / bins).astype(x.dtype)
    edges = edges.at[-1].set(hi.astype(x.dtype))
    pos = jnp.floor((x - lo) * bins / (hi - lo)).astype(jnp.int64)
    pos = jnp.clip(jnp.where(x == hi, bins - 1, pos), 0, bins - 1)
    # PyTorch's linear binning, corrected against the (rounded) edges
    pos = jnp.where(x < edges[pos], pos - 1, jnp.where(x >= edges[jnp.minimum(pos + 1, bins)],
                                                       jnp.minimum(pos + 1, bins - 1), pos))
    pos = jnp.where(x == edges[-1], bins - 1, jnp.clip(pos, 0, bins - 1))
    valid = (x >= edges[0]) & (x <= edges[-1])
    return _hist_fill(x, pos, valid, weight, edges, density)


@op("_histogram_edges", tensors=("input", "bins", "weight"), promote=None, family=F,
    function=False, method=False, out=False, differentiable=False)
def _histogram_edges(input, bins, weight=None, density=False):
    """Bins given by their (increasing) edges."""
    _hist_checks(input, weight)
    if bins.dtype != input.dtype:
        raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the "
                           f"same dtype, but got input with dtype {_lower(input)} and bins for "
                           f"dimension 0 with dtype {_lower(bins)}")
    x = input.reshape(-1)
    nb = bins.shape[0] - 1
    pos = jnp.searchsorted(bins, x, side="right") - 1
    pos = jnp.where(x == bins[-1], nb - 1, pos)
    valid = (x >= bins[0]) & (x <= bins[-1]) & (pos >= 0) & (pos < nb)
    return _hist_fill(x, pos, valid, weight, bins, density)


def _lower(a):
    return {"float32": "float", "float64": "double"}.get(a.dtype.name, a.dtype.name)


_histogram_t = rt.make("histogram", ["hist", "bin_edges"])


@function("histogram", family=F)
def histogram(input, bins, *, range=None, weight=None, density=False, out=None):
    """Mirrors `torch.histogram` (`bins` a count or a tensor of edges)."""
    if isinstance(bins, Tensor):
        hist, edges = call(OPS["_histogram_edges"], (input, bins, weight, density))
    else:
        r = None if range is None else tuple(float(v) for v in range)
        hist, edges = call(OPS["_histogram_bins"], (input, int(bins), r, weight, density))
        lo, hi = (float(v) for v in np.asarray(edges._value())[[0, -1]]) if edges.numel() else \
            (0.0, 0.0)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo:g}, {hi:g}] is not "
                               f"finite")
    if out is not None:
        for o, r in zip(out, (hist, edges)):
            o.resize_(r.shape).copy_(r)
        return _histogram_t(*out)
    return _histogram_t(hist, edges)
