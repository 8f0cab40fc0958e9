"""Beta(concentration1, concentration0): the first coordinate of a two-way Dirichlet."""
import numbers

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.dirichlet import Dirichlet
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.utils import broadcast_all

__all__ = ["Beta"]


class Beta(Distribution):
    """Mirrors `torch.distributions.Beta` (parameters validated, and samples drawn, by the
    wrapped `Dirichlet`)."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Real) and isinstance(concentration0,
                                                                   numbers.Real):
            both = _t.tensor([float(concentration1), float(concentration0)])
        else:
            both = _t.stack(broadcast_all(concentration1, concentration0), -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        self._maybe_validate(value)
        return self._dirichlet.log_prob(_t.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()
