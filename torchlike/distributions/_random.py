"""The samplers PyTorch's distributions call as `torch._standard_gamma`, `torch._sample_dirichlet`
and `torch.binomial`, drawn from torchlike's generator. Each is one jitted JAX kernel; the
gradients are JAX's implicit reparameterisation gradients (d sample / d concentration, what
PyTorch's `_standard_gamma_grad` and `_dirichlet_grad` compute).

The autograd nodes are PyTorch's: `StandardGammaBackward0` keeps the concentration and the draw;
the Dirichlet draw is PyTorch's `_Dirichlet` Function (node `_DirichletBackward`, keeping the
draw and the concentration), whose backward replays the draw's key through JAX's vjp.
"""
import jax
import jax.numpy as jnp
import numpy as np

from .._core import device as _dev
from .._core import grad_state as _grad
from .._core.tensor import wrap
from .._ops import random as _r
from ..autograd.function import Function, once_differentiable, record


def _work(dtype):
    """The dtype the draw is made in: float32/float64 as given, float32 for half types."""
    return dtype if np.dtype(dtype).itemsize >= 4 else np.dtype(np.float32)


@jax.jit
def _gamma(alpha, k4):
    a = alpha.astype(_work(alpha.dtype))
    x = jax.random.gamma(_r._key(k4), a, dtype=a.dtype)
    return jnp.maximum(x, jnp.finfo(a.dtype).tiny).astype(alpha.dtype)


@jax.jit
def _dirichlet(alpha, k4):
    a = alpha.astype(_work(alpha.dtype))
    x = jax.random.dirichlet(_r._key(k4), a, dtype=a.dtype)
    return x.astype(alpha.dtype)


@jax.jit
def _dirichlet_vjp(alpha, k4, g):
    return jax.vjp(lambda a: _dirichlet(a, k4), alpha)[1](g)[0]


@jax.jit
def _binomial(count, prob, k4):
    w = _work(count.dtype)
    x = jax.random.binomial(_r._key(k4), count.astype(w), prob.astype(w), dtype=w)
    return x.astype(count.dtype)


def _key_for(t, generator):
    g = _r._gen(generator, t.device)
    return jax.device_put(g._next_key(), _dev.jax_device(t.device))


def standard_gamma(concentration, generator=None):
    """Mirrors `torch._standard_gamma`: Gamma(concentration, 1) draws, differentiable in
    `concentration`."""
    k4 = _key_for(concentration, generator)
    dyn = [concentration._value(), k4]
    out = wrap(_gamma(*dyn), concentration.device)
    if _grad.ENABLED[0] and concentration.requires_grad:
        record("StandardGammaBackward0", _gamma, dyn, [(0, concentration)], [out], True,
               "both", [concentration])
    return out


class _Dirichlet(Function):
    """PyTorch's `torch.distributions.dirichlet._Dirichlet`: a Dirichlet draw whose backward is
    the implicit reparameterisation gradient."""

    @staticmethod
    def forward(ctx, concentration):
        ctx.k4 = _key_for(concentration, None)
        x = wrap(_dirichlet(concentration._value(), ctx.k4), concentration.device)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        g = _dirichlet_vjp(concentration._value(), ctx.k4, grad_output._value())
        return wrap(g, concentration.device)


def sample_dirichlet(concentration):
    """`Dirichlet.rsample`'s draw (PyTorch's `_Dirichlet.apply`)."""
    return _Dirichlet.apply(concentration)


def binomial(count, prob, generator=None):
    """Mirrors `torch.binomial(count, prob)`: draws with `count` trials of probability `prob`
    (float, `count`'s dtype; no gradient)."""
    k4 = _key_for(count, generator)
    return wrap(_binomial(count._value(), prob._value(), k4), count.device)
