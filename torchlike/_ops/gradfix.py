"""JAX functions whose derivatives follow PyTorch's conventions at kinks and singular points.

JAX differentiates `abs` at 0 as 1, `sqrt` at 0 as inf, `x ** 0` at x = 0 as nan; PyTorch's
formulas give 0 (the subgradient it picks). Each function here has the forward of its plain JAX
counterpart and a `custom_jvp` carrying PyTorch's derivative, so ops built on them (norms, std,
cdist, ...) get PyTorch's gradients by construction.
"""
import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero


def _zero(t):
    return type(t) is SymbolicZero


def _sum_tangents(out, *terms):
    acc = None
    for t in terms:
        if t is None:
            continue
        acc = t if acc is None else acc + t
    if acc is None:
        return jnp.zeros_like(out)
    return jnp.broadcast_to(acc, out.shape).astype(out.dtype)


@jax.custom_jvp
def _abs_real(x):
    return jnp.abs(x)


@_abs_real.defjvp
def _abs_real_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return jnp.abs(x), jnp.sign(x) * dx  # PyTorch: grad * sgn(x), 0 at 0


def abs(x):
    """|x|; d|x|/dx = sgn(x) (0 at 0) for real x."""
    if jnp.issubdtype(x.dtype, jnp.floating):
        return _abs_real(x)
    return jnp.abs(x)


@jax.custom_jvp
def sqrt0(x):
    """sqrt(x) whose derivative at 0 is 0 (PyTorch's masked formulas for std, norm, cdist)."""
    return jnp.sqrt(x)


@sqrt0.defjvp
def _sqrt0_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    y = jnp.sqrt(x)
    safe = jnp.where(y == 0, jnp.ones_like(y), y)
    return y, jnp.where(y == 0, jnp.zeros_like(y), dx / (2 * safe))


@jax.custom_jvp
def _pow_real(x, e):
    return jnp.power(x, e)


def _pow_real_jvp(primals, tangents):
    (x, e), (dx, de) = primals, tangents
    r = jnp.power(x, e)
    tx = te = None
    if not _zero(dx):
        # PyTorch: grad * (e * x^(e-1)).masked_fill_(e == 0, 0)
        tx = jnp.where(e == 0, jnp.zeros((), r.dtype), e * jnp.power(x, e - 1)) * dx
    if not _zero(de):
        # PyTorch: grad * (result * log(x)).masked_fill_((x == 0) & (e >= 0), 0)
        te = jnp.where((x == 0) & (e >= 0), jnp.zeros((), r.dtype), r * jnp.log(x)) * de
    return r, _sum_tangents(r, tx, te)


_pow_real.defjvp(_pow_real_jvp, symbolic_zeros=True)


def pow(x, e):
    """x ** e with PyTorch's derivatives for real floats (0 ** 0 and 0 ** e with e >= 0)."""
    if jnp.issubdtype(jnp.result_type(x, e), jnp.floating):
        x, e = jnp.asarray(x), jnp.asarray(e)
        return _pow_real(x, e)
    return jnp.power(x, e)


@jax.custom_jvp
def _xlogy(x, y):
    return jnp.where(jnp.isnan(y), y, jnp.where(x == 0, jnp.zeros((), x.dtype), x * jnp.log(y)))


def _xlogy_jvp(primals, tangents):
    (x, y), (dx, dy) = primals, tangents
    r = _xlogy(x, y)
    # PyTorch: d/dx = log(y) (also where x == 0), d/dy = x / y
    tx = None if _zero(dx) else jnp.log(y) * dx
    ty = None if _zero(dy) else x / y * dy
    return r, _sum_tangents(r, tx, ty)


_xlogy.defjvp(_xlogy_jvp, symbolic_zeros=True)


def xlogy(x, y):
    return _xlogy(x, y)


@jax.custom_jvp
def root0(s, q):
    """s ** q for a sum of powers s >= 0 (p-norms); derivative 0 where s == 0, as PyTorch's
    norm backward masks the zero norm."""
    return s ** q


def _root0_jvp(primals, tangents):
    (s, q), (ds, _) = primals, tangents
    y = s ** q
    if _zero(ds):
        return y, jnp.zeros_like(y)
    safe = jnp.where(s == 0, jnp.ones_like(s), s)
    return y, jnp.where(s == 0, jnp.zeros_like(y), q * safe ** (q - 1) * ds)


root0.defjvp(_root0_jvp, symbolic_zeros=True)


def sym_grad(f):
    """`f` (a function of one square matrix) whose gradient is symmetrized (g + g^H) / 2, as
    PyTorch's backward for ops that read one triangle of a Hermitian input (cholesky)."""
    @jax.custom_vjp
    def g(a):
        return f(a)

    def fwd(a):
        out, pullback = jax.vjp(f, a)
        return out, pullback

    def bwd(pullback, ct):
        (ga,) = pullback(ct)
        return ((ga + jnp.conj(jnp.swapaxes(ga, -1, -2))) / 2,)

    g.defvjp(fwd, bwd)
    return g


def logsumexp(x, axes, keepdims):
    """logsumexp whose derivative is PyTorch's formula exp(x - result) (with the rounded
    result, as PyTorch's backward uses the saved output)."""
    if not jnp.issubdtype(x.dtype, jnp.floating):
        from jax.scipy.special import logsumexp as f
        return f(x, axis=axes, keepdims=keepdims)
    return _LSE(x, tuple(axes), bool(keepdims))


def _lse_impl(x, axes, keepdims):
    from jax.scipy.special import logsumexp as f
    return f(x, axis=axes, keepdims=keepdims).astype(x.dtype)


_LSE = jax.custom_jvp(_lse_impl, nondiff_argnums=(1, 2))


@_LSE.defjvp
def _lse_rule(axes, keepdims, primals, tangents):
    (x,), (dx,) = primals, tangents
    r = _lse_impl(x, axes, True)
    t = jnp.sum(jnp.exp(x - r) * dx, axis=axes, keepdims=keepdims)
    return (r if keepdims else jnp.squeeze(r, axes)), t
