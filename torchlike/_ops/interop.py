"""JAX interop: `torchlike.from_jax(array)` and `Tensor.jax()`, both without copies.

The same Tensor code runs when storages hold JAX tracers, so a function written against
torchlike can be wrapped in `jax.jit` by going through these two."""
import jax

from .._core import dtype as dt
from .._core.device import CPU, device as _device
from .._core.tensor import Tensor, wrap
from .registry import function


def _torch_device(array):
    try:
        (d,) = array.devices()
    except (AttributeError, ValueError, jax.errors.ConcretizationTypeError):
        return CPU
    if d.platform == "cpu":
        return CPU
    from .._core.device import gpus
    return _device("cuda", gpus().index(d))


@function(method=False)
def from_jax(array):
    """A tensor over a JAX array (or tracer), sharing it: no copy."""
    return wrap(array, _torch_device(array) if isinstance(array, jax.Array) and
                not isinstance(array, jax.core.Tracer) else CPU, dt._BY_NP[array.dtype])


def jax_(self):
    """This tensor's elements as a JAX array (the storage buffer itself when it covers it)."""
    return self._value()


Tensor.jax = jax_
