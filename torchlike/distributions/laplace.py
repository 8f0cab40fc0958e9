"""Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale)."""
import math

import torchlike as _t
from torchlike.distributions.loc_scale import LocScale

__all__ = ["Laplace"]


class Laplace(LocScale):
    """Mirrors `torch.distributions.Laplace`."""

    arg_constraints = LocScale.arg_constraints
    support = LocScale.support
    has_rsample = True

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
