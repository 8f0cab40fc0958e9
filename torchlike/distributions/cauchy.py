"""Cauchy(loc, scale): density 1 / (pi scale (1 + ((x - loc) / scale)^2)); no mean."""
import math

import torchlike as _t
from torchlike.distributions.loc_scale import LocScale

__all__ = ["Cauchy"]


class Cauchy(LocScale):
    """Mirrors `torch.distributions.Cauchy` (samples through `Tensor.cauchy_`, PyTorch's
    numbers)."""

    arg_constraints = LocScale.arg_constraints
    support = LocScale.support
    has_rsample = True

    def _full(self, fill):
        return _t.full(self._extended_shape(), fill, dtype=self.loc.dtype,
                       device=self.loc.device)

    @property
    def mean(self):
        return self._full(math.nan)

    @property
    def variance(self):
        return self._full(math.inf)

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        eps = _t.empty(shape, dtype=self.loc.dtype, device=self.loc.device).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        self._maybe_validate(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - z.pow(2).log1p()

    def cdf(self, value):
        self._maybe_validate(value)
        return _t.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return _t.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
