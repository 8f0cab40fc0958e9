"""Normal(loc, scale): the Gaussian."""
import math
import numbers

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.utils import broadcast_all

__all__ = ["Normal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class Normal(Distribution):
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
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def sample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _t.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        noise = _t.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + noise * self.scale

    def log_prob(self, value):
        self._maybe_validate(value)
        z = (value - self.loc) / self.scale
        return -0.5 * z.pow(2) - self.scale.log() - _HALF_LOG_2PI

    def cdf(self, value):
        self._maybe_validate(value)
        return 0.5 * (1 + _t.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return self.loc + self.scale * math.sqrt(2) * _t.erfinv(2 * value - 1)

    def entropy(self):
        return 0.5 + _HALF_LOG_2PI + self.scale.log()
