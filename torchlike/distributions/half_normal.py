"""HalfNormal(scale): |x| for x ~ Normal(0, scale)."""
import math

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.normal import Normal
from torchlike.distributions.transformed_distribution import TransformedDistribution
from torchlike.distributions.transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """Mirrors `torch.distributions.HalfNormal` (samples are PyTorch's)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base = Normal(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._new_instance(_instance))

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return _t.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        self._maybe_validate(value)
        folded = self.base_dist.log_prob(value) + math.log(2)
        return _t.where(value >= 0, folded, -math.inf)

    def cdf(self, value):
        self._maybe_validate(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
