"""The samplers PyTorch implements in C++ (`torch._standard_gamma`, `torch.binomial`,
`torch._sample_dirichlet`), as JAX kernels keyed from torchlike's generator the way its own
keyed draws are (`torch.poisson`: `_ops.random`'s `_gen`/`_next_key`/`_key`): reproducible
per seed, but other numbers than PyTorch's. Gamma draws (and the Dirichlet draws normalised
from them) are reparameterized: the gradient with respect to the concentration is JAX's
implicit one, the derivative of the draw at a fixed CDF value, which PyTorch's
`_standard_gamma_grad` approximates. A kernel compiles once per size class: the parameters
are flattened and padded to the power of two `_core.buckets` uses, and the draws cut back."""
import jax
import jax.numpy as jnp

import torchlike as _t
from torchlike._core import buckets as _buckets
from torchlike._core import device as _dev
from torchlike._core import programs
from torchlike._ops import random as _random
from torchlike.autograd.function import apply_jax

__all__ = ["standard_gamma", "binomial", "dirichlet", "poisson"]


def _work(dtype):
    """JAX samples half-precision parameters in float32."""
    return jnp.float32 if dtype.itemsize < 4 else dtype


@programs.factory
def _gamma_kernel():
    def standard_gamma(k4, alpha):
        w = _work(alpha.dtype)
        x = jax.random.gamma(_random._key(k4), alpha.astype(w), dtype=w)
        return jnp.maximum(x, jnp.finfo(w).tiny).astype(alpha.dtype)
    return standard_gamma


@programs.factory
def _binomial_kernel():
    def binomial(k4, count, prob):
        w = _work(prob.dtype)
        return jax.random.binomial(_random._key(k4), count.astype(w), prob.astype(w),
                                   dtype=w).astype(prob.dtype)
    return binomial


def _key_for(t):
    """A fresh key from the default generator of `t`'s device (one draw of it)."""
    g = _random._gen(None, t.device)
    return _dev.transfer(g._next_key(), _dev.jax_device(t.device))


def _padded(x, fill):
    """`x` flattened, padded with `fill` to a size class."""
    flat = x.reshape(-1)
    n = flat.shape[0]
    m = _buckets.size_class(max(n, 1))
    if m == n:
        return flat
    pad = _t.full((m - n,), fill, dtype=x.dtype, device=x.device)
    return _t.cat([flat, pad])


def _draw(kernel, name, params, fills, shape):
    """Run sampling `kernel` on `params` (all of `shape`) padded to a size class; the draws
    of `shape`."""
    padded = [_padded(p, f) for p, f in zip(params, fills)]
    (out,) = apply_jax(kernel, [_key_for(params[0])] + padded, name)
    return out[:shape.numel()].reshape(shape)


def standard_gamma(concentration):
    """Gamma(concentration, 1) draws of `concentration`'s shape; differentiable."""
    return _draw(_gamma_kernel(), "StandardGammaBackward0", [concentration], [1.0],
                 concentration.shape)


def dirichlet(concentration):
    """Dirichlet draws over the last dim of `concentration`: normalised gamma draws, as
    PyTorch's sampler makes them; differentiable through them."""
    g = standard_gamma(concentration)
    return g / g.sum(-1, keepdim=True)


def binomial(count, prob):
    """Binomial(count, prob) draws (floats, `prob`'s dtype); not differentiable."""
    return _draw(_binomial_kernel(), None, [count.detach(), prob.detach()], [0.0, 0.5],
                 prob.shape)


def poisson(rate):
    """`torch.poisson(rate)` (torchlike's), run at a size class."""
    return _t.poisson(_padded(rate, 1.0))[:rate.numel()].reshape(rate.shape)
