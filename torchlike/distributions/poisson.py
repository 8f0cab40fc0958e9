"""Poisson(rate): counts with mean `rate`."""
import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions._sampling import poisson
from torchlike.distributions.elementwise import Elementwise
from torchlike.distributions.utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(Elementwise):
    """Mirrors `torch.distributions.Poisson` (samples from torchlike's `torch.poisson`, whose
    numbers are not PyTorch's)."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer
    _params = ("rate",)

    def __init__(self, rate, validate_args=None):
        self._set_params((rate,), validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value):
        self._maybe_validate(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()
