"""Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale)."""
import math
import numbers

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        both_numbers = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(_t.Size() if both_numbers else self.loc.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        dtype = self.loc.dtype
        # u uniform on (-1, 1): the inverse CDF of a symmetric exponential
        eps = _t.finfo(dtype).eps
        u = _t.rand(shape, dtype=dtype, device=self.loc.device) * (2 - eps) - (1 - eps)
        return self.loc - self.scale * u.sign() * _t.log1p(-u.abs())

    def log_prob(self, value):
        self._maybe_validate(value)
        return -_t.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        self._maybe_validate(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * _t.expm1(-d.abs() / self.scale)

    def icdf(self, value):
        t = value - 0.5
        return self.loc - self.scale * t.sign() * _t.log1p(-2 * t.abs())

    def entropy(self):
        return 1 + _t.log(2 * self.scale)
