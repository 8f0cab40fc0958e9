"""Gumbel(loc, scale): the law of maxima; loc - scale log(-log u) for u uniform."""
import math
import numbers

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.transformed_distribution import TransformedDistribution
from torchlike.distributions.transforms import AffineTransform, ExpTransform
from torchlike.distributions.uniform import Uniform
from torchlike.distributions.utils import broadcast_all

__all__ = ["Gumbel"]

_EULER = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """Mirrors `torch.distributions.Gumbel` (samples are PyTorch's: transformed uniforms)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = _t.finfo(self.loc.dtype)
        low, high = info.tiny, 1 - info.eps
        if not (isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)):
            low, high = _t.full_like(self.loc, low), _t.full_like(self.loc, high)
        base = Uniform(low, high, validate_args=validate_args)
        log = ExpTransform().inv
        steps = [log, AffineTransform(0, -_t.ones_like(self.scale)), log,
                 AffineTransform(self.loc, -self.scale)]
        super().__init__(base, steps, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        self._maybe_validate(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER)
