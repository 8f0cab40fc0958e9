"""Pointwise ops: unary math, binary arithmetic, comparisons, logical and bitwise ops.

Each row is a pure JAX function; the registry broadcasts, promotes (PyTorch's rules) and casts
the operands to the compute dtype before the function sees them.
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy import special as jsp

from .._core import dtype as dt
from .registry import op, short_name


def _bool_sub_check(a, b):
    if a is dt.bool_ and b is dt.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a is dt.bool_ or b is dt.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


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


@op(pointwise=True, tensors=("input", "other"), scalars=("alpha",), method=False,
    family="pointwise", check=_bool_sub_check)
def rsub(input, other, *, alpha=1):
    return other - input * alpha


@op(pointwise=True, tensors=("input", "other"), inplace=True, aliases=("multiply",),
    dunders={"__mul__": "fwd", "__rmul__": "rev", "__imul__": "inplace"}, family="pointwise")
def mul(input, other):
    return input * other


@op(pointwise=True, tensors=("input", "other"), inplace=True, aliases=("divide",),
    family="pointwise",
    dunders={"__truediv__": "fwd", "__rtruediv__": "rev", "__itruediv__": "inplace",
             "__div__": "fwd", "__rdiv__": "rev", "__idiv__": "inplace"})
def div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        if not jnp.issubdtype(input.dtype, jnp.inexact):
            f = dt.get_default_dtype().np
            input, other = input.astype(f), other.astype(f)
        return input / other
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    if input.dtype == jnp.bool_:
        raise RuntimeError(f'"div_{rounding_mode}_cpu" not implemented for \'Bool\'')
    if jnp.issubdtype(input.dtype, jnp.integer):
        if rounding_mode == "trunc":
            return lax.div(input, other)
        return jnp.floor_divide(input, other)
    q = input / other
    return jnp.trunc(q) if rounding_mode == "trunc" else _floor_div_float(input, other)


def _floor_div_float(a, b):
    """PyTorch's float floor division (div_floor_floating): matches Python's `//` on floats."""
    mod = jnp.fmod(a, b)
    div = (a - mod) / b
    div = jnp.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    floordiv = jnp.floor(div)
    floordiv = jnp.where(div - floordiv > 0.5, floordiv + 1, floordiv)
    return jnp.where(div != 0, floordiv, jnp.copysign(jnp.zeros_like(div), a / b))


@op(pointwise=True, tensors=("input", "other"), inplace=True, method=True, family="pointwise")
def true_divide(input, other):
    if not jnp.issubdtype(input.dtype, jnp.inexact):
        f = dt.get_default_dtype().np
        input, other = input.astype(f), other.astype(f)
    return input / other


@op(pointwise=True, tensors=("input", "other"), inplace=True, family="pointwise",
    dunders={"__floordiv__": "fwd", "__rfloordiv__": "rev", "__ifloordiv__": "inplace"})
def floor_divide(input, other):
    if input.dtype == jnp.bool_:
        raise RuntimeError("\"div_floor_cpu\" not implemented for 'Bool'")
    if jnp.issubdtype(input.dtype, jnp.integer):
        return jnp.floor_divide(input, other)
    return _floor_div_float(input, other)


@op(pointwise=True, tensors=("input", "other"), inplace=True, family="pointwise",
    dunders={"__mod__": "fwd", "__rmod__": "rev", "__imod__": "inplace"})
def remainder(input, other):
    if input.dtype == jnp.bool_:
        raise RuntimeError("\"remainder_cpu\" not implemented for 'Bool'")
    if jnp.issubdtype(input.dtype, jnp.integer):
        return jnp.remainder(input, other)
    return input - other * jnp.floor(input / other)


@op(pointwise=True, tensors=("input", "other"), inplace=True, family="pointwise")
def fmod(input, other):
    if input.dtype == jnp.bool_:
        raise RuntimeError("\"fmod_cpu\" not implemented for 'Bool'")
    return jnp.fmod(input, other)


def _pow_impl(input, exponent):
    if jnp.issubdtype(input.dtype, jnp.integer) or input.dtype == jnp.bool_:
        if input.dtype == jnp.bool_:
            return (input | ~exponent).astype(jnp.bool_) if exponent.dtype == jnp.bool_ else input
        return _int_pow(input, exponent)
    return jnp.power(input, exponent)


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
    return jnp.power(input, exponent)


@op(pointwise=True, tensors=("input", "end", "weight"), inplace=True, family="pointwise")
def lerp(input, end, weight):
    return jnp.where(jnp.abs(weight) < 0.5, input + weight * (end - input),
                     end - (end - input) * (1 - weight))


@op(pointwise=True, tensors=("input", "tensor1", "tensor2"), scalars=("value",), inplace=True,
    family="pointwise")
def addcmul(input, tensor1, tensor2, *, value=1):
    return input + value * tensor1 * tensor2


@op(pointwise=True, tensors=("input", "tensor1", "tensor2"), scalars=("value",), inplace=True,
    family="pointwise")
def addcdiv(input, tensor1, tensor2, *, value=1):
    if jnp.issubdtype(tensor1.dtype, jnp.integer) and jnp.issubdtype(tensor2.dtype, jnp.integer):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future "
                           "release addcdiv will perform a true division of tensor1 and tensor2. "
                           "The historic addcdiv behavior can be implemented as (input + value * "
                           "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs "
                           "and as (input + value * tensor1 / tensor2) for float inputs. The "
                           "future addcdiv behavior is just the latter implementation: (input + "
                           "value * tensor1 / tensor2), for all dtypes.")
    return input + value * (tensor1 / tensor2)


# ---- binary math (same dtype in and out, floats for ints where PyTorch does) -----------------

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
_binary("logaddexp", jnp.logaddexp, inplace=False)
_binary("logaddexp2", jnp.logaddexp2, inplace=False)
_binary("nextafter", jnp.nextafter)
_binary("xlogy", lambda x, y: jsp.xlogy(x, y), promote="int_to_float")
_binary("heaviside", lambda x, v: jnp.where(x == 0, v, (x > 0).astype(x.dtype)))
_binary("gcd", jnp.gcd)
_binary("lcm", jnp.lcm)
_binary("ldexp", lambda x, e: x * jnp.power(jnp.asarray(2, x.dtype), e),
        promote="int_to_float")


# ---- comparisons and logical ops (bool results) ---------------------------------------------

def _compare(name, fn, aliases=(), dunder=None):
    op(name, pointwise=True, tensors=("input", "other"), inplace=True, aliases=aliases,
       dunders={dunder: "fwd"} if dunder else None, family="pointwise")(
        lambda input, other: fn(input, other))


_compare("eq", jnp.equal, dunder="__eq__")
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


@op(pointwise=True, inplace=True, family="pointwise", dunders={"__invert__": "unary"})
def bitwise_not(input):
    if jnp.issubdtype(input.dtype, jnp.inexact):
        raise RuntimeError(f"\"bitwise_not_cpu\" not implemented for "
                           f"'{short_name(dt._BY_NP[input.dtype])}'")
    return jnp.logical_not(input) if input.dtype == jnp.bool_ else jnp.invert(input)


# ---- unary math ------------------------------------------------------------------------------

def _unary(name, fn, *, promote="default", aliases=(), inplace=True, dunders=None):
    op(name, pointwise=True, promote=promote, inplace=inplace, aliases=aliases, dunders=dunders,
       family="pointwise")(lambda input: fn(input))


_FLOAT_UNARY = {
    "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan, "asin": jnp.arcsin, "acos": jnp.arccos,
    "atan": jnp.arctan, "sinh": jnp.sinh, "cosh": jnp.cosh, "tanh": jnp.tanh,
    "asinh": jnp.arcsinh, "acosh": jnp.arccosh, "atanh": jnp.arctanh, "exp": jnp.exp,
    "exp2": jnp.exp2, "expm1": jnp.expm1, "log": jnp.log, "log2": jnp.log2, "log10": jnp.log10,
    "log1p": jnp.log1p, "sqrt": jnp.sqrt, "rsqrt": lax.rsqrt, "sigmoid": jax.nn.sigmoid,
    "erf": jsp.erf, "erfc": jsp.erfc, "erfinv": jsp.erfinv, "lgamma": jsp.gammaln,
    "digamma": jsp.digamma, "i0": jsp.i0, "sinc": jnp.sinc, "reciprocal": lambda x: 1 / x,
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
_unary("sign", lambda x: jnp.sign(x) if x.dtype != jnp.bool_ else x)
_unary("sgn", jnp.sign)
_unary("signbit", jnp.signbit, inplace=False)
_unary("positive", lambda x: x, inplace=False, dunders={"__pos__": "unary"})
_unary("isnan", jnp.isnan, inplace=False)
_unary("isinf", jnp.isinf, inplace=False)
_unary("isfinite", jnp.isfinite, inplace=False)
_unary("isposinf", jnp.isposinf, inplace=False)
_unary("isneginf", jnp.isneginf, inplace=False)
_unary("isreal", lambda x: jnp.imag(x) == 0 if jnp.iscomplexobj(x) else jnp.ones(x.shape, bool),
       inplace=False)
_unary("conj", jnp.conj, inplace=False)
_unary("conj_physical", jnp.conj)
_unary("angle", jnp.angle, promote="int_to_float", inplace=False)
_unary("relu", lambda x: jnp.maximum(x, 0) if x.dtype != jnp.bool_ else x)


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
    return jnp.abs(input)


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


@op(pointwise=True, tensors=("input", "min", "max"), inplace=True, aliases=("clip",),
    family="pointwise")
def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
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


@op(pointwise=True, tensors=("input", "min"), inplace=True, family="pointwise")
def clamp_min(input, min):
    return jnp.maximum(input, min)


@op(pointwise=True, tensors=("input", "max"), inplace=True, family="pointwise")
def clamp_max(input, max):
    return jnp.minimum(input, max)


@op(pointwise=True, tensors=("condition", "input", "other"), promoted=("input", "other"),
    method=False, family="pointwise")
def where(condition, input, other):
    if condition.dtype != jnp.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {short_name(dt._BY_NP[condition.dtype])}")
    return jnp.where(condition, input, other)


@op(pointwise=True, tensors=("input", "other"), scalars=("rtol", "atol"), promote="default",
    family="pointwise")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return jnp.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)
