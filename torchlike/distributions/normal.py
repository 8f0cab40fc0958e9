"""Normal(loc, scale): the Gaussian."""
import math

import torchlike as _t
from torchlike.distributions.loc_scale import LocScale

__all__ = ["Normal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class Normal(LocScale):
    """Mirrors `torch.distributions.Normal`."""

    arg_constraints = LocScale.arg_constraints
    support = LocScale.support
    has_rsample = True

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
