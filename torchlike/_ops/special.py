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
from .registry import op, short_name

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
