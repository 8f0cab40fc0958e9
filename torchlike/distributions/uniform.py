"""Uniform(low, high): constant density on [low, high)."""
import numbers

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        both_numbers = isinstance(low, numbers.Number) and isinstance(high, numbers.Number)
        super().__init__(_t.Size() if both_numbers else self.low.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def _width(self):
        return self.high - self.low

    @property
    def mean(self):
        return (self.low + self.high) / 2

    @property
    def mode(self):
        return self.high * float("nan")

    @property
    def stddev(self):
        return self._width / 12 ** 0.5

    @property
    def variance(self):
        return self._width.pow(2) / 12

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * self._width

    def log_prob(self, value):
        self._maybe_validate(value)
        inside = (value >= self.low) & (value < self.high)
        return _t.log(inside.to(self.low.dtype)) - _t.log(self._width)

    def cdf(self, value):
        self._maybe_validate(value)
        return ((value - self.low) / self._width).clamp(min=0, max=1)

    def icdf(self, value):
        return self.low + value * self._width

    def entropy(self):
        return _t.log(self._width)
