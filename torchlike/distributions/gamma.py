"""Mirrors `torch.distributions.gamma`."""
import torchlike
from . import constraints
from ._random import standard_gamma
from .exp_family import ExponentialFamily
from .utils import _Number, broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Mirrors `torch.distributions.Gamma(concentration, rate)`. `rsample` is reparameterised:
    the draw's gradient in `concentration` is JAX's implicit one."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, _Number) and isinstance(rate, _Number):
            batch_shape = torchlike.Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=torchlike.Size()):
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=torchlike.finfo(value.dtype).tiny)  # do not record in graph
        return value

    def log_prob(self, value):
        value = torchlike.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (torchlike.xlogy(self.concentration, self.rate)
                + torchlike.xlogy(self.concentration - 1, value)
                - self.rate * value - torchlike.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - torchlike.log(self.rate)
                + torchlike.lgamma(self.concentration)
                + (1.0 - self.concentration) * torchlike.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return torchlike.lgamma(x + 1) + (x + 1) * torchlike.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlike.igamma(self.concentration, self.rate * value)  # special.gammainc
