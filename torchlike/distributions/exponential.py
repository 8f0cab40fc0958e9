"""Exponential(rate): density rate * exp(-rate x) on x >= 0."""
import numbers

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(Distribution):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        shape = _t.Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return _t.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        return _t.empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_() \
            / self.rate

    def log_prob(self, value):
        self._maybe_validate(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        self._maybe_validate(value)
        return 1 - _t.exp(-self.rate * value)

    def icdf(self, value):
        return -_t.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()
