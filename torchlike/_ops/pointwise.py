"""Pointwise ops: unary math, binary arithmetic, comparisons, logical and bitwise ops.

Each row is a pure JAX function; the registry broadcasts, promotes (PyTorch's rules) and casts
the operands to the compute dtype before the function sees them.
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy import special as jsp

from .._core import dtype as dt
from . import gradfix as _gf
from .. import return_types as rt
import builtins
import functools
import math

import numpy as np

from .._core.tensor import Tensor
from .registry import FUNCTIONS, METHODS, OPS, op, function, short_name

_NUM = (builtins.bool, builtins.int, builtins.float, builtins.complex, np.number, np.bool_)


def _tname(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _combo_msg(name, args, kwargs=None):
    got = ", ".join([_tname(a) for a in args] +
                    [f"{k}={_tname(v)}" for k, v in (kwargs or {}).items()])
    return (f"{name}() received an invalid combination of arguments - got ({got}), but expected "
            f"one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n")


def _bool_sub_check(a, b):
    if a is dt.bool_ and b is dt.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a is dt.bool_ or b is dt.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def _exact_div(a, b):
    """`a / b`, correctly rounded like PyTorch's. XLA rewrites a division by a broadcast operand
    into a multiplication by its reciprocal (off by an ulp: `arange(10.) / 3`); an optimization
    barrier on the materialised divisor keeps the true division."""
    shape = jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b))
    if jnp.shape(b) != shape:
        b = lax.optimization_barrier(jnp.broadcast_to(b, shape))
    return a / b


# ---- arithmetic ------------------------------------------------------------------------------

@op(pointwise=True, tensors=("input", "other"), scalars=("alpha",), inplace=True,
    dunders={"__add__": "fwd", "__radd__": "rev", "__iadd__": "inplace"}, family="pointwise")
def add(input, other, *, alpha=1):
    return input + other * alpha


@op(pointwise=True, tensors=("input", "other"), scalars=("alpha",), inplace=True,
    aliases=("subtract",), dunders={"__sub__": "fwd", "__rsub__": "rev", "__isub__": "inplace"},
    family="pointwise", check=_bool_sub_check)
def sub(input, other, *, alpha=1):
    return input - other * alpha


@function(method=False)
def rsub(input, other, *, alpha=1):
    """Mirrors `torch.rsub`: `other - alpha * input`."""
    if not isinstance(input, Tensor):
        raise TypeError(_combo_msg("rsub", (input, other)))
    return FUNCTIONS["sub"](other, input, alpha=alpha)


@op(pointwise=True, tensors=("input", "other"), inplace=True, aliases=("multiply",),
    dunders={"__mul__": "fwd", "__rmul__": "rev", "__imul__": "inplace"}, family="pointwise")
def mul(input, other):
    return input * other


@op(pointwise=True, tensors=("input", "other"), inplace=True, aliases=("divide",),
    family="pointwise", divisor="other", divisor_when=lambda a: a[2] is not None)
def div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        if not jnp.issubdtype(input.dtype, jnp.inexact):
            f = dt.get_default_dtype().np
            input, other = input.astype(f), other.astype(f)
        return _exact_div(input, other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    if input.dtype == jnp.bool_:
        raise RuntimeError(f'"div_{rounding_mode}_cpu" not implemented for \'Bool\'')
    if jnp.issubdtype(input.dtype, jnp.integer):
        if rounding_mode == "trunc":
            return lax.div(*jnp.broadcast_arrays(input, other))
        return jnp.floor_divide(input, other)
    own = input.dtype  # the row computes float16/bfloat16 itself (opmath off), in float32
    if own in (jnp.float16, jnp.bfloat16):
        input, other = input.astype(jnp.float32), other.astype(jnp.float32)
    if rounding_mode == "trunc":
        # PyTorch rounds a reduced-precision quotient to its dtype before truncating it
        return jnp.trunc(_exact_div(input, other).astype(own))
    return _floor_div_float(input, other).astype(own)


OPS["div"].opmath = False


def _to_float(x, f):
    # bool → float through a select: XLA's CPU backend folds a broadcast bool→float division
    # of False by False to 0 instead of nan
    if x.dtype == jnp.bool_:
        return jnp.where(x, jnp.ones((), f), jnp.zeros((), f))
    return x.astype(f)


def _floor_div_float(a, b):
    """PyTorch's float floor division (div_floor_floating): matches Python's `//` on floats."""
    mod = jnp.fmod(a, b)
    div = _exact_div(a - mod, b)
    div = jnp.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    floordiv = jnp.floor(div)
    floordiv = jnp.where(div - floordiv > 0.5, floordiv + 1, floordiv)
    q = _exact_div(a, b)
    floordiv = jnp.where(div != 0, floordiv, jnp.copysign(jnp.zeros_like(div), q))
    return jnp.where(b == 0, q, floordiv)  # x // 0.0 is ±inf or nan, as a / b


@op(pointwise=True, tensors=("input", "other"), inplace=True, method=True, family="pointwise",
    promote="int_to_float",
    dunders={"__truediv__": "fwd", "__rtruediv__": "rev_div", "__itruediv__": "inplace",
             "__div__": "fwd", "__rdiv__": "rev_div", "__idiv__": "inplace"})
def true_divide(input, other):
    return _exact_div(input, other)


@op(pointwise=True, tensors=("input", "other"), inplace=True, family="pointwise",
    dunders={"__floordiv__": "fwd", "__rfloordiv__": "rev", "__ifloordiv__": "inplace"},
    divisor="other")
def floor_divide(input, other):
    if input.dtype == jnp.bool_:
        raise RuntimeError("\"div_floor_cpu\" not implemented for 'Bool'")
    if jnp.issubdtype(input.dtype, jnp.integer):
        return jnp.floor_divide(input, other)
    return _floor_div_float(input, other)


@op(pointwise=True, tensors=("input", "other"), inplace=True, family="pointwise",
    dunders={"__mod__": "fwd", "__rmod__": "rev", "__imod__": "inplace"}, divisor="other")
def remainder(input, other):
    if input.dtype == jnp.bool_:
        raise RuntimeError("\"remainder_cpu\" not implemented for 'Bool'")
    if jnp.issubdtype(input.dtype, jnp.integer):
        return jnp.remainder(input, other)
    mod = jnp.fmod(input, other)
    return jnp.where((mod != 0) & ((other < 0) != (mod < 0)), mod + other, mod)


@op(pointwise=True, tensors=("input", "other"), inplace=True, family="pointwise",
    divisor="other")
def fmod(input, other):
    if input.dtype == jnp.bool_:
        raise RuntimeError("\"fmod_cpu\" not implemented for 'Bool'")
    return jnp.fmod(input, other)


def _pow_impl(input, exponent):
    if jnp.issubdtype(input.dtype, jnp.integer):
        return _int_pow(input, exponent)
    if jnp.issubdtype(input.dtype, jnp.complexfloating) and jnp.ndim(exponent) == 0:
        return _complex_pow_scalar(input, exponent)
    return _gf.pow(input, exponent)


def _complex_pow_scalar(z, e):
    """Complex `z ** e` for one exponent as PyTorch's CPU kernel computes it: exponents 1, 2, 3,
    -1 and -2 by multiplication and reciprocal, ±0.5 through sqrt, the rest through exp/log
    (`(1j) ** 2` is exactly -1). The exponent stays traced: one kernel whatever its value."""
    sq, root = z * z, jnp.sqrt(z)
    special = ((1, z), (2, sq), (3, sq * z), (-1, 1 / z), (-2, 1 / sq), (0.5, root),
               (-0.5, 1 / root))
    out = _gf.pow(z, e)
    for value, result in special:
        out = jnp.where(e == value, result, out)
    return out


def _lgamma(x):
    """`jsp.gammaln` exactly 0 at 1 and 2, as C's lgamma (XLA's float32 approximation gives
    4.8e-7 at 1, which also turns the whole tensor's printing scientific); the gradient
    stays digamma."""
    r = jsp.gammaln(x)
    return r - lax.stop_gradient(jnp.where((x == 1) | (x == 2), r, jnp.zeros((), r.dtype)))


@jax.custom_jvp
def _i0(x):
    return jsp.i0(x)


@_i0.defjvp
def _i0_jvp(primals, tangents):
    """i0' = i1 (jsp.i0's own derivative goes through |x|, 1 rather than 0 at x = 0)."""
    (x,), (dx,) = primals, tangents
    return jsp.i0(x), dx * jsp.i1(x)


def _int_pow(base, exp):
    """Integer power by squaring (wrapping like PyTorch); negative exponents give 0 or ±1."""
    exp = jnp.broadcast_to(exp, jnp.broadcast_shapes(base.shape, exp.shape)).astype(base.dtype)
    base = jnp.broadcast_to(base, exp.shape)
    result = jnp.ones_like(base)
    b, e = base, exp

    def body(_, carry):
        r, b, e = carry
        r = jnp.where((e & 1) == 1, r * b, r)
        return r, b * b, e >> 1
    bits = base.dtype.itemsize * 8
    pos_e = jnp.where(e < 0, 0, e)
    r, _, _ = lax.fori_loop(0, bits, body, (result, b, pos_e))
    neg = jnp.where(base == 1, 1, jnp.where(base == -1, jnp.where((e & 1) == 1, -1, 1), 0))
    return jnp.where(e < 0, neg.astype(base.dtype), r)


@op(pointwise=True, tensors=("input", "exponent"), inplace=True, family="pointwise",
    dunders={"__pow__": "fwd", "__rpow__": "rev", "__ipow__": "inplace"})
def pow(input, exponent):
    return _pow_impl(input, exponent)


@op(pointwise=True, tensors=("input", "exponent"), inplace=True, family="pointwise",
    promote=lambda r: dt.complex128 if r.is_complex else dt.float64)
def float_power(input, exponent):
    return _gf.pow(input, exponent)


@op(pointwise=True, tensors=("input", "end", "weight"), inplace=True, family="pointwise")
def lerp(input, end, weight):
    return jnp.where(jnp.abs(weight) < 0.5, input + weight * (end - input),
                     end - (end - input) * (1 - weight))


@op(pointwise=True, tensors=("input", "tensor1", "tensor2"), scalars=("value",), inplace=True,
    family="pointwise")
def addcmul(input, tensor1, tensor2, *, value=1):
    return input + value * tensor1 * tensor2


def _addcdiv_check(input, tensor1, tensor2, value=None):
    if tensor1.category < 2 and tensor2.category < 2:
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future "
                           " release addcdiv will perform a true division of tensor1 and tensor2. "
                           "The historic addcdiv behavior can be implemented as (input + value * "
                           "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs "
                           "and as (input + value * tensor1 / tensor2) for float inputs. The "
                           "future addcdiv behavior is just the latter implementation: (input + "
                           "value * tensor1 / tensor2), for all dtypes.")


@op(pointwise=True, tensors=("input", "tensor1", "tensor2"), scalars=("value",), inplace=True,
    family="pointwise", check=_addcdiv_check)
def addcdiv(input, tensor1, tensor2, *, value=1):
    return input + value * _exact_div(tensor1, tensor2)


# ---- binary math (same dtype in and out, floats for ints where PyTorch does) -----------------

def _ldexp(x, e):
    """x * 2**e (a float exponent: the gradients of x * 2**e)."""
    return x * jnp.power(jnp.asarray(2, x.dtype), e)


@op("_ldexp_int_exponent", pointwise=True, tensors=("input", "other"), promoted=("input",),
    promote="int_to_float", function=False, method=False, out=False, family="internal")
def _ldexp_int(input, other):
    """ldexp with an integer exponent tensor (kept integral): PyTorch's gradient for x is 2**e
    taken in integer arithmetic, 0 for e < 0."""
    c = jnp.power(jnp.asarray(2, input.dtype), other.astype(input.dtype))
    return jnp.where(other < 0, lax.stop_gradient(input * c), input * c)


def _binary(name, fn, *, promote="default", inplace=True, aliases=(), dunders=None):
    op(name, pointwise=True, tensors=("input", "other"), promote=promote, inplace=inplace,
       aliases=aliases, dunders=dunders, family="pointwise")(
        lambda input, other: fn(input, other))


_binary("atan2", jnp.arctan2, promote="int_to_float", aliases=("arctan2",))
_binary("hypot", jnp.hypot)
_binary("copysign", jnp.copysign, promote="int_to_float")
_binary("maximum", jnp.maximum, inplace=False)
_binary("minimum", jnp.minimum, inplace=False)
_binary("fmax", jnp.fmax, inplace=False)
_binary("fmin", jnp.fmin, inplace=False)
def _logaddexp(x, y):
    """log(exp(x) + exp(y)); for complex operands PyTorch's form, the operand with the larger
    real part plus log1p(exp(other - it)), whose imaginary part is not reduced to (-pi, pi]."""
    if not jnp.iscomplexobj(x):
        return jnp.logaddexp(x, y)
    x, y = jnp.broadcast_arrays(x, y)
    swap = jnp.real(x) < jnp.real(y)
    hi, lo = jnp.where(swap, y, x), jnp.where(swap, x, y)
    return hi + jnp.log1p(jnp.exp(lo - hi))


_binary("logaddexp", _logaddexp, inplace=False)
_binary("logaddexp2", jnp.logaddexp2, inplace=False)
@jax.custom_jvp
def _nextafter(x, y):
    return jnp.nextafter(x, y)


@_nextafter.defjvp
def _nextafter_jvp(primals, tangents):
    """PyTorch's derivative: the incoming gradient for `input`, none for `other`."""
    (x, y), (dx, _) = primals, tangents
    out = jnp.nextafter(x, y)
    return out, jnp.broadcast_to(dx, out.shape)


_binary("nextafter", _nextafter)
OPS["nextafter"].opmath = False  # the next representable value of the dtype itself
_binary("xlogy", lambda x, y: _gf.xlogy(*jnp.broadcast_arrays(x, y)).astype(x.dtype),
        promote="int_to_float")


@op(pointwise=True, tensors=("input", "values"), inplace=True, family="pointwise")
def heaviside(input, values):
    return jnp.where(input == 0, values, (input > 0).astype(input.dtype))
_binary("gcd", jnp.gcd)
_binary("lcm", jnp.lcm)
_binary("ldexp", lambda x, e: _ldexp(x, e),
        promote="int_to_float")


# ---- comparisons and logical ops (bool results) ---------------------------------------------

def _compare(name, fn, aliases=(), dunder=None, mode="fwd"):
    op(name, pointwise=True, tensors=("input", "other"), inplace=True, aliases=aliases,
       dunders={dunder: mode} if dunder else None, family="pointwise")(
        lambda input, other: fn(input, other))


_compare("eq", jnp.equal, dunder="__eq__", mode="fwd_ndarray")
_compare("ne", jnp.not_equal, aliases=("not_equal",), dunder="__ne__")
_compare("lt", jnp.less, aliases=("less",), dunder="__lt__")
_compare("le", jnp.less_equal, aliases=("less_equal",), dunder="__le__")
_compare("gt", jnp.greater, aliases=("greater",), dunder="__gt__")
_compare("ge", jnp.greater_equal, aliases=("greater_equal",), dunder="__ge__")
for _n, _f in (("logical_and", jnp.logical_and), ("logical_or", jnp.logical_or),
               ("logical_xor", jnp.logical_xor)):
    op(_n, pointwise=True, tensors=("input", "other"), promote=None, inplace=True,
       family="pointwise")(lambda input, other, _f=_f: _f(input, other))


@op(pointwise=True, promote=None, inplace=True, family="pointwise")
def logical_not(input):
    return jnp.logical_not(input)


def _bitwise(name, fn, dunders):
    def impl(input, other):
        if jnp.issubdtype(input.dtype, jnp.inexact):
            raise RuntimeError(f"\"{name}_cpu\" not implemented for "
                               f"'{short_name(dt._BY_NP[input.dtype])}'")
        return fn(input, other)
    op(name, pointwise=True, tensors=("input", "other"), inplace=True, dunders=dunders,
       family="pointwise")(impl)


_bitwise("bitwise_and", jnp.bitwise_and,
         {"__and__": "fwd", "__rand__": "rev", "__iand__": "inplace"})
_bitwise("bitwise_or", jnp.bitwise_or, {"__or__": "fwd", "__ror__": "rev", "__ior__": "inplace"})
_bitwise("bitwise_xor", jnp.bitwise_xor,
         {"__xor__": "fwd", "__rxor__": "rev", "__ixor__": "inplace"})
_bitwise("bitwise_left_shift", jnp.left_shift,
         {"__lshift__": "fwd", "__rlshift__": "rev", "__ilshift__": "inplace"})
_bitwise("bitwise_right_shift", jnp.right_shift,
         {"__rshift__": "fwd", "__rrshift__": "rev", "__irshift__": "inplace"})


@op(pointwise=True, inplace=True, family="pointwise")
def bitwise_not(input):
    if jnp.issubdtype(input.dtype, jnp.inexact):
        raise RuntimeError(f"\"bitwise_not_cpu\" not implemented for "
                           f"'{short_name(dt._BY_NP[input.dtype])}'")
    return jnp.logical_not(input) if input.dtype == jnp.bool_ else jnp.invert(input)


# ---- unary math ------------------------------------------------------------------------------

def _unary(name, fn, *, promote="default", aliases=(), inplace=True, dunders=None, out=True):
    op(name, pointwise=True, promote=promote, inplace=inplace, aliases=aliases, dunders=dunders,
       family="pointwise", out=out)(lambda input: fn(input))


_FLOAT_UNARY = {
    "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan, "asin": jnp.arcsin, "acos": jnp.arccos,
    "atan": jnp.arctan, "sinh": jnp.sinh, "cosh": jnp.cosh, "tanh": jnp.tanh,
    "asinh": jnp.arcsinh, "acosh": jnp.arccosh, "atanh": jnp.arctanh, "exp": jnp.exp,
    "exp2": jnp.exp2, "expm1": jnp.expm1, "log": jnp.log, "log2": jnp.log2, "log10": jnp.log10,
    "log1p": jnp.log1p, "sqrt": jnp.sqrt, "rsqrt": lax.rsqrt, "sigmoid": jax.nn.sigmoid,
    "erf": jsp.erf, "erfc": jsp.erfc, "erfinv": jsp.erfinv, "lgamma": _lgamma,
    "digamma": lambda x: _polygamma_impl(0, x), "i0": lambda x: _i0(x), "sinc": jnp.sinc, "reciprocal": lambda x: 1 / x,
    "deg2rad": jnp.deg2rad, "rad2deg": jnp.rad2deg,
}
_ALIASES = {"asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",),
            "asinh": ("arcsinh",), "acosh": ("arccosh",), "atanh": ("arctanh",),
            "erfinv": (), "i0": (), "sigmoid": ()}
for _n, _f in _FLOAT_UNARY.items():
    _unary(_n, _f, promote="int_to_float", aliases=_ALIASES.get(_n, ()))


def _keep_int(fn):
    return lambda x: x if not jnp.issubdtype(x.dtype, jnp.inexact) else fn(x)


_unary("ceil", _keep_int(jnp.ceil))
_unary("floor", _keep_int(jnp.floor))
_unary("trunc", _keep_int(jnp.trunc), aliases=("fix",))
_unary("frac", lambda x: x - jnp.trunc(x))
_unary("square", lambda x: x * x if x.dtype != jnp.bool_ else x.astype(jnp.int64))
def _sign(x):
    """PyTorch's sign: 0 for NaN and for -0.0 (jnp.sign keeps both)."""
    if x.dtype == jnp.bool_:
        return x
    if jnp.issubdtype(x.dtype, jnp.floating):
        return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)
    return jnp.sign(x)


_unary("sign", _sign)
_unary("sgn", lambda x: jnp.sign(x) if jnp.iscomplexobj(x) else _sign(x))
_unary("signbit", jnp.signbit, inplace=False)
_unary("positive", lambda x: x, inplace=False, dunders={"__pos__": "unary"}, out=False)
_unary("isnan", jnp.isnan, inplace=False, out=False)
_unary("isinf", jnp.isinf, inplace=False, out=False)
_unary("isfinite", jnp.isfinite, inplace=False, out=False)
_unary("isposinf", jnp.isposinf, inplace=False)
_unary("isneginf", jnp.isneginf, inplace=False)
_unary("isreal", lambda x: jnp.imag(x) == 0 if jnp.iscomplexobj(x) else jnp.ones(x.shape, bool),
       inplace=False, out=False)
_unary("conj", jnp.conj, inplace=False, out=False)
_unary("conj_physical", jnp.conj)
_unary("angle", lambda x: jnp.arctan2(jnp.imag(x), jnp.real(x)) if jnp.iscomplexobj(x) else
       jnp.where(jnp.isnan(x), x, jnp.where(x < 0, jnp.pi, 0).astype(x.dtype)),
       promote="int_to_float", inplace=False)
_unary("relu", lambda x: jnp.where(x > 0, x, jnp.zeros((), x.dtype)) if jnp.issubdtype(
    x.dtype, jnp.floating) else jnp.maximum(x, 0), out=False)


@op(pointwise=True, inplace=True, aliases=("negative",), family="pointwise",
    dunders={"__neg__": "unary"})
def neg(input):
    if input.dtype == jnp.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return -input


@op(pointwise=True, inplace=True, aliases=("absolute",), family="pointwise",
    dunders={"__abs__": "unary"})
def abs(input):
    if input.dtype == jnp.bool_:
        raise RuntimeError("\"abs_cpu\" not implemented for 'Bool'")
    return _gf.abs(input)


@op(pointwise=True, inplace=True, family="pointwise")
def round(input, *, decimals=0):
    if not jnp.issubdtype(input.dtype, jnp.inexact):
        return input
    if decimals == 0:
        return jnp.round(input)
    scale = jnp.power(jnp.asarray(10.0, input.dtype), decimals)
    return jnp.round(input * scale) / scale


@op(pointwise=True, scalars=("eps",), promote="int_to_float", inplace=True, family="pointwise")
def logit(input, eps=None):
    x = input if eps is None else jnp.clip(input, eps, 1 - eps)
    return jnp.log(x / (1 - x))


@op(pointwise=True, scalars=("nan", "posinf", "neginf"), inplace=True, family="pointwise")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if not jnp.issubdtype(input.dtype, jnp.inexact):
        return input
    return jnp.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf)


OPS["nan_to_num"].opmath = False  # posinf/neginf default to the dtype's own extremes


@op(pointwise=True, tensors=("input", "min", "max"), inplace=True, aliases=("clip",),
    family="pointwise")
def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if jnp.issubdtype(input.dtype, jnp.floating):
        # selections, not max/min: the gradient goes to `input` on [min, max] (boundaries
        # included) and to min/max where they are the result, as PyTorch's formulas
        out = input
        if min is not None:
            out = _clamp_lo(out, min)
        if max is not None:
            out = _clamp_hi(out, max)
        return out
    out = input
    if min is not None:
        out = jnp.where(jnp.isnan(out), out, jnp.maximum(out, min)) if jnp.issubdtype(
            out.dtype, jnp.inexact) else jnp.maximum(out, min)
    if max is not None:
        out = jnp.minimum(out, max)
    if min is not None and max is not None:
        out = jnp.where(jnp.asarray(min) > jnp.asarray(max),
                        jnp.broadcast_to(max, out.shape).astype(out.dtype), out)
    return out


def _clamp_lo(x, lo):
    x, lo = jnp.broadcast_arrays(x, lo)
    return jnp.where(jnp.isnan(lo) | (x < lo), lo, x)


def _clamp_hi(x, hi):
    x, hi = jnp.broadcast_arrays(x, hi)
    return jnp.where(jnp.isnan(hi) | (x > hi), hi, x)


@op(pointwise=True, tensors=("input", "min"), inplace=True, family="pointwise")
def clamp_min(input, min):
    if jnp.issubdtype(input.dtype, jnp.floating):
        return _clamp_lo(input, min)
    return jnp.maximum(input, min)


@op(pointwise=True, tensors=("input", "max"), inplace=True, family="pointwise")
def clamp_max(input, max):
    if jnp.issubdtype(input.dtype, jnp.floating):
        return _clamp_hi(input, max)
    return jnp.minimum(input, max)


@op(pointwise=True, tensors=("condition", "input", "other"), promoted=("input", "other"),
    method=False, family="pointwise")
def where(condition, input, other):
    if condition.dtype == jnp.uint8:
        condition = condition.astype(jnp.bool_)
    if condition.dtype != jnp.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {short_name(dt._BY_NP[condition.dtype])}")
    return jnp.where(condition, input, other)


def _isclose_check(a, b):
    if a is not b:
        raise RuntimeError(f"{short_name(a)} did not match {short_name(b)}")


@op(pointwise=True, tensors=("input", "other"), family="pointwise", out=False,
    promote=lambda r: dt.get_default_dtype() if r.category == 1 else r, check=_isclose_check)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Integer operands are compared as the default float dtype (PyTorch's closeness error);
    the tolerances are kernel constants (they rarely change within a program)."""
    for name, v in (("rtol", rtol), ("atol", atol)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {v:g}")
    if input.dtype == jnp.bool_:
        return input == other
    return jnp.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _where_method(self, condition, y):
    """Mirrors `Tensor.where(condition, y)`: `torch.where(condition, self, y)`."""
    return FUNCTIONS["where"](condition, self, y)


# ---- special functions -----------------------------------------------------------------------

@op(pointwise=True, tensors=("input", "other"), inplace=True, family="pointwise")
def igamma(input, other):
    return jsp.gammainc(input, other)


@op(pointwise=True, tensors=("input", "other"), inplace=True, family="pointwise")
def igammac(input, other):
    return jsp.gammaincc(input, other)


def _trigamma(x):
    """psi'(x), reflected below 1/2 as PyTorch's kernel: pi^2 / sin^2(pi x) - psi'(1 - x) with
    sin(pi x) in the dtype itself (so a negative integer gives a huge finite value where the
    rounded sine is not 0, and +inf at 0)."""
    low = x < 0.5
    pi = jnp.asarray(np.pi, x.dtype)
    s = jnp.sin(pi * x)
    y = jnp.where(low, 1 - x, x)
    r = jsp.polygamma(1, y)
    return jnp.where(low, pi * pi / (s * s) - r, r)


@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def _polygamma_impl(n, x):
    if n == 0:
        return jnp.where(x == 0, jnp.copysign(jnp.inf, -x), jsp.digamma(x))
    if n == 1:
        return _trigamma(x).astype(x.dtype)
    # below 0, psi^(n)(x) = psi^(n)(x + k) - (-1)^n n! sum_{j<k} (x + j)^-(n+1), k steps
    # up to the positive axis (one traced loop to the largest k present)
    steps = jnp.where(x < 0, jnp.ceil(-x), 0)
    top = jnp.max(steps, initial=0) if x.size else jnp.zeros((), x.dtype)

    def body(c):
        j, acc = c
        live = j < steps
        return j + 1, acc + jnp.where(live, (x + j) ** -(n + 1), 0)
    _, acc = lax.while_loop(lambda c: c[0] < top, body,
                            (jnp.zeros((), x.dtype), jnp.zeros_like(x)))
    sign_fact = (-1) ** n * math.factorial(n)
    r = jsp.polygamma(n, x + steps) - sign_fact * acc
    # poles at non-positive integers: (-1)^(n+1) n! zeta(n+1, x) with zeta's +inf there
    pole = (x <= 0) & (x == jnp.floor(x))
    return jnp.where(pole, jnp.inf if n % 2 == 1 else -jnp.inf, r).astype(x.dtype)


@_polygamma_impl.defjvp
def _polygamma_jvp(n, primals, tangents):
    (x,), (dx,) = primals, tangents
    return _polygamma_impl(n, x), dx * _polygamma_impl(n + 1, x)


@op(pointwise=True, tensors=("input",), promote="int_to_float", method=False, inplace=False,
    family="pointwise")
def polygamma(n, input):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _polygamma_impl(n, input)


@op("_polygamma_method", pointwise=True, promote="int_to_float", function=False, method=False,
    inplace=True, out=False, family="internal")
def _polygamma_m(input, n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _polygamma_impl(n, input)


def _polygamma_method(self, n):
    return FUNCTIONS["polygamma"](n, self)


@op(pointwise=True, promote="int_to_float", inplace=True, family="pointwise")
def mvlgamma(input, p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    j = jnp.arange(p, dtype=input.dtype)
    x = input[..., None] - j / 2
    return (p * (p - 1) / 4 * math.log(math.pi) + jnp.sum(_lgamma(x), axis=-1)
            ).astype(input.dtype)


def _mvlgamma_check(d):
    if d is dt.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")


OPS["mvlgamma"].check = _mvlgamma_check

frexp_result = rt.make("frexp", ("mantissa", "exponent"))


def _frexp_check(d):
    if d.category != 2:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")


@op(pointwise=True, promote=None, inplace=False, family="pointwise", returns=frexp_result,
    check=_frexp_check)
def frexp(input):
    m, e = jnp.frexp(input)
    return m, e.astype(jnp.int32)


@op(pointwise=True, scalars=("threshold", "value"), inplace=False, family="pointwise")
def threshold(input, threshold, value):
    return jnp.where(input <= threshold, jnp.asarray(value).astype(input.dtype), input)


@op(tensors=("elements", "test_elements"), promote="default", family="pointwise_isin")
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    e = jnp.asarray(elements)
    t = jnp.ravel(jnp.asarray(test_elements))
    r = jnp.any(e[..., None] == t, axis=-1) if t.size else jnp.zeros(e.shape, bool)
    return ~r if invert else r


# ---- result_type ---------------------------------------------------------------------------

@function(method=False)
def result_type(tensor1, tensor2):
    """Mirrors `torch.result_type`."""
    dims, zeros, scalars = [], [], []
    for v in (tensor1, tensor2):
        if isinstance(v, Tensor):
            (dims if v.dim() else zeros).append(v.dtype)
        elif isinstance(v, _NUM):
            scalars.append(dt.scalar_dtype(v.item() if isinstance(v, (np.number, np.bool_))
                                           else v))
        else:
            raise TypeError(_combo_msg("result_type", (tensor1, tensor2)))
    return dt.result_type_of(dims, zeros, scalars)


# ---- dtype support (PyTorch's per-kernel dispatch lists) -----------------------------------

_C = "ComplexFloat,ComplexDouble"
_I = "Bool,Byte,Char,Short,Int,Long"
_F = "Half,BFloat16,Float,Double"
_NOT_IMPL = {
    "abs": ("abs_cpu", "Bool"), "addcmul": ("addcmul_cpu_out", "Bool"),
    "atan2": ("atan2_cpu", _C), "bitwise_and": ("bitwise_and_cpu", _F + "," + _C),
    "bitwise_or": ("bitwise_or_cpu", _F + "," + _C),
    "bitwise_xor": ("bitwise_xor_cpu", _F + "," + _C),
    "bitwise_not": ("bitwise_not_cpu", _F + "," + _C),
    "bitwise_left_shift": ("lshift_cpu", "Bool," + _F + "," + _C),
    "bitwise_right_shift": ("rshift_cpu", "Bool," + _F + "," + _C),
    "ceil": ("ceil_vml_cpu", "Bool"), "floor": ("floor_vml_cpu", "Bool"),
    "trunc": ("trunc_vml_cpu", "Bool"), "round": ("round_vml_cpu", "Bool," + _C),
    "clamp_max": ("minimum_cpu", _C), "clamp_min": ("maximum_cpu", _C),
    "copysign": ("copysign_cpu", _C), "digamma": ("digamma", _C), "erf": ("erf_vml_cpu", _C),
    "erfc": ("erfc_vml_cpu", _C), "erfinv": ("erfinv_vml_cpu", _C),
    "floor_divide": ("div_floor_cpu", "Bool," + _C), "fmod": ("fmod_cpu", "Bool," + _C),
    "frac": ("frac_cpu", _I + "," + _C), "gcd": ("gcd_cpu", "Bool," + _F + "," + _C),
    "lcm": ("lcm_cpu", "Bool," + _F + "," + _C), "ge": ("ge_cpu", _C), "gt": ("gt_cpu", _C),
    "le": ("le_cpu", _C), "lt": ("lt_cpu", _C), "hypot": ("hypot_cpu", _I + "," + _C),
    "i0": ("i0_vml_cpu", _C), "lerp": ("lerp_kernel_tensor", _I),
    "lgamma": ("lgamma_vml_cpu", _C), "logaddexp": ("logaddexp_cpu", _I),
    "logaddexp2": ("logaddexp2_cpu", _I + "," + _C), "logit": ("logit_cpu", _C),
    "nextafter": ("nextafter_cpu", _I + "," + _C), "pow": ("pow", "Bool"),
    "remainder": ("remainder_cpu", "Bool," + _C), "xlogy": ("xlogy_cpu", _C),
    "igamma": ("igamma_cpu", _I + "," + _C), "igammac": ("igammac_cpu", _I + "," + _C),
    "polygamma": ("trigamma", _C), "_polygamma_method": ("trigamma", _C),
    "mvlgamma": ("arange_cpu", _C), "threshold": ("threshold_cpu", "Bool," + _C),
    "clamp": ("clamp_cpu", "Bool")
}
_OTHER_ERR = {
    "ceil": (_C, NotImplementedError, "ceil is not supported for complex inputs"),
    "floor": (_C, NotImplementedError, "floor is not supported for complex inputs"),
    "trunc": (_C, NotImplementedError, "trunc is not supported for complex inputs"),
    "deg2rad": (_C, RuntimeError, "deg2rad is not supported for complex tensors."),
    "rad2deg": (_C, RuntimeError, "rad2deg is not supported for complex tensors."),
    "fmax": (_C, RuntimeError, "fmax not implemented for complex tensors."),
    "fmin": (_C, RuntimeError, "fmin not implemented for complex tensors."),
    "maximum": (_C, RuntimeError, "maximum not implemented for complex tensors."),
    "minimum": (_C, RuntimeError, "minimum not implemented for complex tensors."),
    "heaviside": (_C, RuntimeError, "heaviside is not yet implemented for complex tensors."),
    "isneginf": (_C, RuntimeError, "isneginf does not support complex inputs."),
    "isposinf": (_C, RuntimeError, "isposinf does not support complex inputs."),
    "positive": ("Bool", RuntimeError, "The `+` operator, on a bool tensor is not supported."),
    "relu": ("Bool", RuntimeError, "Boolean inputs not supported for relu"),
    "sign": (_C, NotImplementedError, "Unlike NumPy, torch.sign is not intended to support "
             "complex numbers. Please use torch.sgn instead."),
    "signbit": (_C, NotImplementedError, "signbit is not implemented for complex tensors."),
}
_OTHER_ERR2 = {"relu": (_C, NotImplementedError, "clamp is not supported for complex types"),
               "clamp": (_C, NotImplementedError, "clamp is not supported for complex types")}


def _guard(name, bad, exc, msg):
    row = OPS[name]
    first = next(p for p in row.names if p in row.tensors)
    bad = frozenset(bad.split(","))
    if "Half" in bad or "BFloat16" in bad:
        row.opmath = False  # the guard must see the reduced dtype itself
    inner = row.impl

    def impl(**kw):
        v = kw[first]
        if hasattr(v, "dtype"):
            s = short_name(dt._BY_NP[np.dtype(v.dtype)])
            if s in bad:
                raise exc(msg.format(s))
        return inner(**kw)
    row.impl = impl


for _n, (_k, _bad) in _NOT_IMPL.items():
    if _bad:
        _guard(_n, _bad, NotImplementedError, f"\"{_k}\" not implemented for '{{}}'")
for _d in (_OTHER_ERR, _OTHER_ERR2):
    for _n, (_bad, _exc, _msg) in _d.items():
        _guard(_n, _bad, _exc, _msg.replace("{", "{{").replace("}", "}}"))


# ---- argument-type strictness (PyTorch's Tensor-only parameters) ----------------------------

def _strict(name, bad=(), combo=()):
    row = OPS[name]
    names = row.names

    checked = tuple((i, n) for i, n in enumerate(names) if n in combo or n in bad)

    def make(fn, fname, method):
        def w(*args, **kw):
            for i, n in checked:   # only the checked positions: this runs on every call
                if i < len(args) and isinstance(args[i], _NUM):
                    if n in combo:
                        raise TypeError(_combo_msg(fname, args, kw))
                    raise TypeError(f"{fname}(): argument '{n}' (position "
                                    f"{i if method else i + 1}) must be Tensor, not "
                                    f"{type(args[i]).__name__}")
            for n, v in kw.items():
                if isinstance(v, _NUM):
                    if n in combo:
                        raise TypeError(_combo_msg(fname, args, kw))
                    if n in bad:
                        raise TypeError(f"{fname}(): argument '{n}' must be Tensor, not "
                                        f"{type(v).__name__}")
            return fn(*args, **kw)
        return w
    _rewrap(name, make)


def _rewrap(name, make):
    """Replace the function, method and in-place method of row `name` (under every alias)
    with the wrapper `make(f, alias, is_method)` (named and documented as `f`)."""
    def wrapped(f, k, method):
        w = make(f, k, method)
        w.__name__, w.__doc__ = k, f.__doc__
        return w
    names = (name,) + tuple(OPS[name].aliases)   # each alias is its own function
    for table, method in ((FUNCTIONS, False), (METHODS, True)):
        for k in names:
            if k in table:
                table[k] = wrapped(table[k], k, method)
            if method and k + "_" in METHODS:
                METHODS[k + "_"] = wrapped(METHODS[k + "_"], k + "_", True)


def _scalars_fit(name, tensor, params):
    """Row `name` with PyTorch's checked conversion of Python-number `params` into the dtype
    of its tensor parameter `tensor`, where the number does not change the result dtype
    (`int8_tensor.clamp(max=1000)` raises instead of wrapping)."""
    names = OPS[name].names
    at = names.index(tensor)
    checked = tuple((n, names.index(n)) for n in params)

    def make(fn, fname, method):
        inplace = fname.endswith("_")

        def w(*args, **kw):
            t = args[at] if at < len(args) else kw.get(tensor)
            if isinstance(t, Tensor):
                for n, i in checked:
                    v = args[i] if i < len(args) else kw.get(n)
                    if v is not None and isinstance(v, _NUM):
                        _check_fit(t, v, inplace)
            return fn(*args, **kw)
        return w
    _rewrap(name, make)


_FITS = {}   # (dtype, one element, type, value key, in place) of numbers known to fit


def _check_fit(t, v, inplace):
    """`_scalars_fit`'s check of number `v` against tensor `t` (a passing one is remembered:
    the check costs a dict lookup in a loop)."""
    key = (t.dtype, math.prod(t._size) == 1, type(v),
           v if v == v else repr(v), inplace)
    if key in _FITS:
        return
    r = dt.result_type_of([t.dtype], [], [
        dt.scalar_dtype(v.item() if isinstance(v, np.generic) else v)])
    if r is t.dtype:
        dt.check_scalar_fits(v, t.dtype, t.numel())
    elif inplace and not dt.can_cast(r, t.dtype):  # (a scalar's message)
        raise RuntimeError(f"result type {short_name(r)} can't be cast to the desired output "
                           f"type {dt.CPP_TYPE_NAMES.get(t.dtype.name, t.dtype.name)}")
    if len(_FITS) > 4096:
        _FITS.clear()
    _FITS[key] = True


_BOTH = ("input", "other")
for _n in ("atan2", "fmax", "fmin", "gcd", "lcm", "hypot", "isclose", "ldexp", "logaddexp",
           "logaddexp2", "logical_and", "logical_or", "logical_xor", "maximum", "minimum",
           "nextafter", "igamma", "igammac"):
    _strict(_n, bad=_BOTH)
_strict("heaviside", bad=("input", "values"))
_strict("addcmul", bad=("input", "tensor1", "tensor2"))
_strict("addcdiv", bad=("input", "tensor1", "tensor2"))
for _n in ("eq", "ne", "lt", "le", "gt", "ge", "copysign", "fmod", "lerp", "clamp_min",
           "clamp_max"):
    _strict(_n, combo=("input",))
_strict("where", combo=("condition",))
for _n, _params in (("clamp", ("min", "max")), ("clamp_min", ("min",)), ("clamp_max", ("max",))):
    _scalars_fit(_n, "input", _params)
_scalars_fit("where", "input", ("other",))
_scalars_fit("where", "other", ("input",))


# ---- variants with their own checks ---------------------------------------------------------

def _wrap_method(name, make):
    for table in (METHODS, FUNCTIONS):
        if name in table:
            table[name] = make(table[name])


def _pow_check(fn):
    def pow(input, exponent, *args, **kw):
        if (isinstance(exponent, (builtins.int, np.integer)) and not isinstance(
                exponent, (builtins.bool, np.bool_)) and exponent < 0
                and isinstance(input, Tensor) and input.dtype.category == 1):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return fn(input, exponent, *args, **kw)
    pow.__doc__ = fn.__doc__
    return pow


for _n in ("pow", "pow_", "__pow__", "__ipow__"):
    _wrap_method(_n, _pow_check)


def _float_power_(fn):
    def float_power_(self, exponent):
        other = exponent.dtype if isinstance(exponent, Tensor) else (
            dt.complex128 if isinstance(exponent, builtins.complex) else dt.float64)
        want = dt.complex128 if (self.dtype.is_complex or other.is_complex) else dt.float64
        if self.dtype is not want:
            raise RuntimeError(f"the base given to float_power_ has dtype {short_name(self.dtype)}"
                               f" but the operation's result requires dtype {short_name(want)}")
        return fn(self, exponent)
    return float_power_


def _ldexp_(fn):
    def ldexp_(self, other):
        if self.dtype.category < 2:
            raise RuntimeError(f"ldexp can't be cast to the desired output type "
                               f"{short_name(self.dtype)}")
        return fn(self, other)
    return ldexp_


def _abs_(fn):
    def abs_(self):
        if self.dtype.is_complex:
            raise RuntimeError("In-place abs is not supported for complex tensors.")
        return fn(self)
    return abs_


def _mvlgamma_(fn):
    def mvlgamma_(self, p):
        if (self.dtype.category < 2 and self.dtype is not dt.bool_ and isinstance(p, int)
                and p >= 1):
            raise RuntimeError(f"mvlgamma: result type {short_name(self.dtype)} can't be cast "
                               f"to the desired output type {short_name(dt.get_default_dtype())}")
        return fn(self, p)
    return mvlgamma_


_wrap_method("mvlgamma_", _mvlgamma_)
_wrap_method("float_power_", _float_power_)
_wrap_method("ldexp_", _ldexp_)
for _n in ("abs_", "absolute_"):
    _wrap_method(_n, _abs_)
METHODS["where"] = _where_method
METHODS["polygamma"] = _polygamma_method
METHODS["polygamma_"] = METHODS.pop("_polygamma_method_")


def _where_out(fn):
    def where(condition, input=None, other=None, *, out=None):
        if input is None and other is None:
            return FUNCTIONS["nonzero"](condition, as_tuple=True)
        if out is not None and isinstance(out, Tensor):
            r = fn(condition, input, other)
            if r.dtype is not out.dtype:
                raise RuntimeError(f"Expected out type to be {short_name(r.dtype)} but got "
                                   f"{short_name(out.dtype)}")
            return fn(condition, input, other, out=out)
        return fn(condition, input, other)
    where.__doc__ = "Mirrors `torch.where`."
    return where


FUNCTIONS["where"] = _where_out(FUNCTIONS["where"])


def _clamp_args(fn):
    def clamp(input, min=None, max=None, **kw):
        if (min is not None and max is not None
                and isinstance(min, _NUM) != isinstance(max, _NUM)):
            raise TypeError(_combo_msg(fn.__name__, (input, min, max)))
        return fn(input, min, max, **kw)
    clamp.__name__ = fn.__name__
    clamp.__doc__ = fn.__doc__
    return clamp


for _n in ("clamp", "clip", "clamp_", "clip_"):
    _wrap_method(_n, _clamp_args)


def _bool_out(name):
    def make(fn):
        def f(input, *, out=None):
            if (out is not None and isinstance(out, Tensor) and out.dtype is not dt.bool_
                    and not (isinstance(input, Tensor) and input.dtype.is_complex)):
                raise RuntimeError(f"{name} does not support non-boolean outputs.")
            return fn(input, out=out)
        f.__doc__ = fn.__doc__
        return f
    FUNCTIONS[name] = make(FUNCTIONS[name])


for _n in ("isposinf", "isneginf", "signbit"):
    _bool_out(_n)


def _exact_out(name, msg):
    fn = FUNCTIONS[name]

    def f(input, other, *, out=None):
        if out is not None and isinstance(out, Tensor):
            want = fn(input, other).dtype
            if out.dtype is not want and (name == "float_power" or out.dtype.category < 2):
                raise RuntimeError(msg.format(short_name(out.dtype), short_name(want)))
        return fn(input, other, out=out)
    f.__doc__ = fn.__doc__
    FUNCTIONS[name] = f


_exact_out("float_power", "the output given to float_power has dtype {} but the operation's "
           "result requires dtype {}")
_exact_out("ldexp", "ldexp can't be cast to the desired output type {}")


def _ldexp_int_dispatch(fn):
    """An integer exponent tensor goes to its own row (its gradient differs)."""
    from .registry import call

    def ldexp(input, other, *args, **kw):
        if (isinstance(input, Tensor) and isinstance(other, Tensor) and not args and
                kw.get("out") is None and other.dtype.category == 1):
            return call(OPS["_ldexp_int_exponent"], (input, other))
        return fn(input, other, *args, **kw)
    ldexp.__doc__ = fn.__doc__
    return ldexp


_wrap_method("ldexp", _ldexp_int_dispatch)


def _name_ldexp_int_node():
    from ..autograd import names
    names._NAMES["_ldexp_int_exponent"] = "LdexpBackward0"  # PyTorch's one node for both


_name_ldexp_int_node()


def _div_dispatch(fn, td):
    def div(input, other, *, rounding_mode=None, **kw):
        if rounding_mode is None:
            return td(input, other, **kw)
        return fn(input, other, rounding_mode=rounding_mode, **kw)
    div.__doc__ = fn.__doc__
    return div


for _t in (FUNCTIONS, METHODS):
    for _n in ("div", "divide"):
        if _n in _t:
            _t[_n] = _div_dispatch(_t[_n], _t["true_divide"])
        if _n + "_" in METHODS and _t is METHODS:
            _t[_n + "_"] = _div_dispatch(_t[_n + "_"], _t["true_divide_"])


def _invert(self):
    """Mirrors `Tensor.__invert__` (`~x`): PyTorch's TypeError for float/complex tensors."""
    if self.dtype.category > 1:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return METHODS["bitwise_not"](self)


METHODS["__invert__"] = _invert


def _identity_on_real(name):
    """`positive`, `conj` and `conj_physical` of a real tensor return the tensor itself in
    PyTorch (no copy, no autograd node)."""
    def make(fn):
        def f(input, *args, **kw):
            if isinstance(input, Tensor) and not args and kw.get("out") is None and \
                    not input.dtype.is_complex and not (name == "positive" and
                                                        input.dtype.name == "bool"):
                return input
            return fn(input, *args, **kw)
        f.__name__ = f.__qualname__ = name
        f.__doc__ = fn.__doc__
        return f
    for table in (FUNCTIONS, METHODS):
        if name in table:
            table[name] = make(table[name])
    if name == "positive":
        METHODS["__pos__"] = make(METHODS["__pos__"])


for _n in ("positive", "conj", "conj_physical"):
    _identity_on_real(_n)


# ---- PyTorch's argument parser: a binary function needs at least one tensor operand ---------

def _one_tensor(name, second, number_out):
    """`torch.<name>(number, number)` raises the parser's TypeError; its `(Number self, Tensor
    <second>)` overload takes no `out` for some ops (`number_out` False), and the parser then
    says which argument types did not match it."""
    fn = FUNCTIONS[name]

    def f(*args, **kw):
        if not any(isinstance(v, Tensor) for v in args) and not any(
                isinstance(v, Tensor) for k, v in kw.items() if k != "out"):
            got = [_tname(a) for a in args] + [f"{k}={_tname(v)}" for k, v in kw.items()]
            lines = f" * (Tensor input, Tensor {second}, *, Tensor out = None)\n"
            if number_out:
                lines += f" * (Number self, Tensor {second}, *, Tensor out = None)\n"
            else:
                lines += f" * (Number self, Tensor {second})\n"
                if len(args) == 2 and not kw:
                    lines += ("      didn't match because some of the arguments have invalid "
                              "types: (" + ", ".join(f"!{g}!" for g in got) + ")\n")
            lines += f" * (Tensor input, Number {second}, *, Tensor out = None)\n"
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({', '.join(got)}), but expected one of:\n{lines}")
        return fn(*args, **kw)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = fn.__doc__
    FUNCTIONS[name] = f


for _n in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
           "bitwise_right_shift", "remainder"):
    _one_tensor(_n, "other", False)
_one_tensor("xlogy", "other", True)
_one_tensor("pow", "exponent", True)
_one_tensor("float_power", "exponent", True)


def _self_tensor(name, reflected_div):
    """`Tensor.__radd__(number, ...)` called unbound: PyTorch's descriptor TypeError (its
    Python-level reflected division fails on `self.reciprocal` instead)."""
    fn = METHODS[name]

    def f(self, *args, **kw):
        if not isinstance(self, Tensor):
            if reflected_div:
                raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                     f"'reciprocal'")
            raise TypeError(f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't "
                            f"apply to a '{type(self).__name__}' object")
        return fn(self, *args, **kw)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = fn.__doc__
    METHODS[name] = f


for _n in ("__radd__", "__rmul__", "__rand__", "__ror__", "__rxor__"):
    _self_tensor(_n, False)
for _n in ("__rdiv__", "__rtruediv__"):
    _self_tensor(_n, True)
