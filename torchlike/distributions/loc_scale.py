"""The shared shell of real-valued location-scale families (Normal, Laplace): parameters
`loc` and `scale` broadcast together, batch shape from them, mean and mode at `loc`."""
import numbers

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.utils import broadcast_all


class LocScale(Distribution):
    """Subclasses restate `arg_constraints` and `support` in their own class dict, as
    PyTorch's classes have them."""

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
