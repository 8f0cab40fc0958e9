"""The samplers PyTorch's distributions call as `torch._standard_gamma` and
`torch._sample_dirichlet`, drawn from torchlike's generator. Each is one jitted JAX kernel whose
gradient is JAX's: implicit reparameterisation for the gamma draw (d sample / d concentration,
as PyTorch's `_standard_gamma_grad`), and through it for the Dirichlet draw (as PyTorch's
`_dirichlet_grad`)."""
import jax
import jax.numpy as jnp
import numpy as np

from .._core import device as _dev
from .._ops import random as _r
from ..autograd.function import apply_jax


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


def _key_for(t, generator):
    g = _r._gen(generator, t.device)
    return jax.device_put(g._next_key(), _dev.jax_device(t.device))


def standard_gamma(concentration, generator=None):
    """Mirrors `torch._standard_gamma`: Gamma(concentration, 1) draws, differentiable in
    `concentration`."""
    k4 = _key_for(concentration, generator)
    return apply_jax(_gamma, [concentration, k4], name="StandardGammaBackward0")[0]


def sample_dirichlet(concentration, generator=None):
    """Mirrors `torch._sample_dirichlet` (differentiable here: `Dirichlet.rsample`'s gradient)."""
    k4 = _key_for(concentration, generator)
    return apply_jax(_dirichlet, [concentration, k4], name="_DirichletBackward")[0]


@jax.jit
def _binomial(count, prob, k4):
    w = _work(count.dtype)
    x = jax.random.binomial(_r._key(k4), count.astype(w), prob.astype(w), dtype=w)
    return x.astype(count.dtype)


def binomial(count, prob, generator=None):
    """Mirrors `torch.binomial(count, prob)`: draws with `count` trials of probability `prob`
    (float, `count`'s dtype; no gradient)."""
    k4 = _key_for(count, generator)
    from .._core.tensor import wrap
    return wrap(_binomial(count._value(), prob._value(), k4), count.device)
