"""`torch.special` functions that are kernels of their own in PyTorch (`special_*` rows); the
rest of `torch.special` are other rows under new names (see `torchlike/special.py`).

Pure `jax.scipy.special` kernels with PyTorch's values where they differ (poles, infinities) and
its per-dtype support: an unsupported dtype raises PyTorch's NotImplementedError naming its CPU
kernel. Bessel functions of the second kind, the Airy function and the orthogonal polynomials
are not here yet.
"""
import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
from jax import lax

from .._core import dtype as dt
from .._core.tensor import Tensor
from .registry import FUNCTIONS, op, short_name

F = "special"
_HALF = ("Half", "BFloat16")


def _promote(kernel, bad=()):
    """PyTorch's int-to-float promotion, then its not-implemented dtypes for `kernel`."""
    def promote(r):
        r = dt.get_default_dtype() if r.category < 2 else r
        name = short_name(r)
        if r.is_complex or name in bad:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
        return r
    return promote


def _spherical_bessel_j0(x):
    """sin(x)/x, by PyTorch's series near 0 and 0 at +-inf."""
    x2 = x * x
    series = 1 + x2 * (-1 / 6 + x2 * (1 / 120 + x2 * (-1 / 5040 + x2 * (
        1 / 362880 + x2 * (-1 / 39916800 + x2 * (1 / 6227020800))))))
    safe = jnp.where(jnp.abs(x) < 0.5, jnp.ones_like(x), x)
    out = jnp.where(jnp.abs(x) < 0.5, series, jnp.sin(safe) / safe)
    return jnp.where(jnp.isinf(x), jnp.zeros_like(x), out).astype(x.dtype)


@jax.custom_jvp
def _ndtri(p):
    return jsp.ndtri(p)


@_ndtri.defjvp
def _ndtri_jvp(primals, tangents):
    """PyTorch's derivative, sqrt(2 pi) exp(ndtri(p)^2 / 2): inf (not 0) at p = 0 and 1."""
    (p,), (dp,) = primals, tangents
    y = jsp.ndtri(p)
    return y, dp * np.sqrt(2 * np.pi).astype(p.dtype) * jnp.exp(y * y / 2)


@jax.custom_jvp
def _log_ndtr(x):
    """PyTorch's formula: log(erfcx(-t) / 2) - t^2 below x = -1, else log1p(-erfc(t) / 2)."""
    t = x * np.sqrt(0.5).astype(x.dtype)
    low = jnp.log(jsp.erfcx(-t) / 2) - t * t
    return jnp.where(x < -1, low, jnp.log1p(-lax.erfc(t) / 2))


@_log_ndtr.defjvp
def _log_ndtr_jvp(primals, tangents):
    """PyTorch's derivative, exp(-(log_ndtr(x) + x^2 / 2)) / sqrt(2 pi)."""
    (x,), (dx,) = primals, tangents
    y = _log_ndtr(x)
    return y, dx / np.sqrt(2 * np.pi).astype(x.dtype) * jnp.exp(-(y + x * x / 2))


def _zeta(x, q):
    """Hurwitz zeta with PyTorch's (Cephes') poles and domain: inf at x == 1 and at integer
    q <= 0, nan for x < 1 and for non-integer q <= 0 with non-integer x."""
    x, q = jnp.broadcast_arrays(x, q)
    out = jsp.zeta(x, q)
    q_pole = (q <= 0) & (q == jnp.floor(q))
    out = jnp.where((q <= 0) & ~q_pole & (x != jnp.floor(x)), jnp.nan, out)
    out = jnp.where(q_pole, jnp.inf, out)
    return jnp.where(x < 1, jnp.nan, jnp.where(x == 1, jnp.inf, out)).astype(x.dtype)


def _xlog1py(x, y):
    """x * log1p(y); 0 where x == 0 unless y is nan."""
    x, y = jnp.broadcast_arrays(x, y)
    out = jnp.where(x == 0, jnp.zeros_like(x), x * jnp.log1p(y))
    return jnp.where(jnp.isnan(y), y, out).astype(x.dtype)


_UNARY = {  # name: (kernel, PyTorch's CPU kernel name, extra unsupported dtypes, has a grad)
    "entr": (jsp.entr, "entr_cpu", (), True),
    "erfcx": (jsp.erfcx, "erfcx_cpu", _HALF, True),
    "i0e": (jsp.i0e, "i0e_cpu", (), True),
    "i1": (jsp.i1, "i1_cpu", (), True),
    "i1e": (jsp.i1e, "i1e_cpu", (), True),
    "ndtri": (_ndtri, "ndtri_cpu", _HALF, True),
    "log_ndtr": (_log_ndtr, "log_ndtr_cpu", _HALF, True),
    # PyTorch's formula (not jsp.ndtr's): its rounding in the far left tail
    "ndtr": (lambda x: (1 + lax.erf(x * np.sqrt(0.5).astype(x.dtype))) * 0.5, "erf_vml_cpu", (),
             True),
    "spherical_bessel_j0": (_spherical_bessel_j0, "spherical_bessel_j0_cpu", _HALF, False),
    "modified_bessel_i0": (jsp.i0, "modified_bessel_i0_cpu", _HALF, False),
    "modified_bessel_i1": (jsp.i1, "modified_bessel_i1_cpu", _HALF, False),
}
_BINARY = {"xlog1py": (_xlog1py, "xlog1py_cpu", ()), "zeta": (_zeta, "zeta_cpu", _HALF)}


def _unary(name, fn, kernel, bad, grad):
    op("special_" + name, pointwise=True, promote=_promote(kernel, bad), method=False,
       differentiable=grad, family=F)(lambda input: fn(input))


def _binary(name, fn, kernel, bad):
    op("special_" + name, pointwise=True, tensors=("input", "other"),
       promote=_promote(kernel, bad), method=False, family=F)(
        lambda input, other: fn(input, other))


for _n, (_f, _k, _bad, _grad) in _UNARY.items():
    _unary(_n, _f, _k, _bad, _grad)
for _n, (_f, _k, _bad) in _BINARY.items():
    _binary(_n, _f, _k, _bad)


# ---- orthogonal polynomials: p_n(x) with a per-element degree n ------------------------------
#
# Each is its three-term recurrence run to the largest degree present (one traced loop; an
# element stops once its own degree is reached), with PyTorch's values outside it: 0 for a
# negative degree (a NaN or out-of-range float degree converts to a negative integer there) and,
# for the Chebyshev kinds, the closed trigonometric form inside (-1, 1) above degree 6.

def _degree(n):
    """The integer degree of each element (-1 where PyTorch's conversion gives a negative one)."""
    if jnp.issubdtype(n.dtype, jnp.floating):
        bad = jnp.isnan(n) | (n >= 2.0 ** 63) | (n < -(2.0 ** 63))
        n = jnp.where(bad, -1, jnp.trunc(jnp.where(bad, 0, n)))
    return n.astype(jnp.int64)


def _recurrence(x, n, first, step):
    """p_n(x) from p_0 = 1, p_1 = first(x) and p_{k+1} = step(k, x, p_k, p_{k-1})."""
    x, n = jnp.broadcast_arrays(x, _degree(n))
    p0, p1 = jnp.ones_like(x), first(x)
    top = jnp.max(n, initial=1) if n.size else jnp.asarray(1, n.dtype)

    def body(carry):
        k, prev, cur = carry
        nxt = step(k.astype(x.dtype), x, cur, prev)
        live = k < n
        return k + 1, jnp.where(live, cur, prev), jnp.where(live, nxt, cur)
    _, _, pn = lax.while_loop(lambda c: c[0] < top, body, (jnp.asarray(1, n.dtype), p0, p1))
    out = jnp.where(n == 0, p0, pn)
    return jnp.where(n < 0, jnp.zeros_like(x), out), x, n


def _chebyshev(kind):
    first = {"t": lambda x: x, "u": lambda x: x + x, "v": lambda x: x + x - 1,
             "w": lambda x: x + x + 1}[kind]

    def closed(x, n):
        th = jnp.arccos(jnp.clip(x, -1, 1))
        m = n.astype(x.dtype)
        if kind == "t":
            return jnp.cos(m * th)
        if kind == "u":
            s = jnp.sin(th)
            return jnp.where(s != 0, jnp.sin((m + 1) * th) / jnp.where(s != 0, s, 1), m + 1)
        if kind == "v":
            c = jnp.cos(th / 2)
            return jnp.where(c != 0, jnp.cos((m + 0.5) * th) / jnp.where(c != 0, c, 1),
                             jnp.where(n % 2 == 0, 1, -1) * (2 * m + 1))
        s = jnp.sin(th / 2)
        return jnp.where(s != 0, jnp.sin((m + 0.5) * th) / jnp.where(s != 0, s, 1), 2 * m + 1)

    def fn(x, n):
        out, x, n = _recurrence(x, n, first, lambda k, x, p, q: 2 * x * p - q)
        trig = (n > 6) & (jnp.abs(x) < 1)
        return jnp.where(trig, closed(x, n), out).astype(x.dtype)
    return fn


def _shifted(fn):
    return lambda x, n: fn(x + x - 1, n)


_POLY = {
    "chebyshev_polynomial_t": _chebyshev("t"), "chebyshev_polynomial_u": _chebyshev("u"),
    "chebyshev_polynomial_v": _chebyshev("v"), "chebyshev_polynomial_w": _chebyshev("w"),
    "hermite_polynomial_h": lambda x, n: _recurrence(
        x, n, lambda x: x + x, lambda k, x, p, q: 2 * x * p - 2 * k * q)[0],
    "hermite_polynomial_he": lambda x, n: _recurrence(
        x, n, lambda x: x, lambda k, x, p, q: x * p - k * q)[0],
    "laguerre_polynomial_l": lambda x, n: _recurrence(
        x, n, lambda x: 1 - x, lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1))[0],
    "legendre_polynomial_p": lambda x, n: _recurrence(
        x, n, lambda x: x, lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1))[0],
}
for _k in "tuvw":
    _POLY["shifted_chebyshev_polynomial_" + _k] = _shifted(_POLY["chebyshev_polynomial_" + _k])


def _polynomial(name, fn):
    op("special_" + name, pointwise=True, tensors=("x", "n"),
       promote=_promote(name + "_cpu", _HALF), method=False, differentiable=False, family=F)(
        lambda x, n: fn(x, n))


for _n, _f in _POLY.items():
    _polynomial(_n, _f)


# ---- PyTorch's argument parser: at least one of the two operands must be a tensor ------------

def _tname(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _one_tensor(name, first, second, self_name):
    fn = FUNCTIONS[name]
    sig = (f" * (Tensor {first}, Tensor {second}, *, Tensor out = None)\n"
           f" * (Number {self_name}, Tensor {second}, *, Tensor out = None)\n"
           f" * (Tensor {first}, Number {second}, *, Tensor out = None)\n")

    def f(*args, **kw):
        vals = list(args) + [v for k, v in kw.items() if k != "out"]
        if vals and not any(isinstance(v, Tensor) for v in vals):
            got = ", ".join([_tname(a) for a in args] + [f"{k}={_tname(v)}"
                                                         for k, v in kw.items()])
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({got}), but expected one of:\n{sig}")
        return fn(*args, **kw)
    f.__name__ = f.__qualname__ = fn.__name__
    f.__doc__ = fn.__doc__
    FUNCTIONS[name] = f


for _n in _BINARY:
    _one_tensor("special_" + _n, "input", "other", "self")
for _n in _POLY:
    _one_tensor("special_" + _n, "x", "n", "x")
