"""Mirrors `torch.distributions.generalized_pareto`."""
from __future__ import annotations

import math
from numbers import Number, Real

import torchlike
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


inf = float("inf")
nan = float("nan")

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Mirrors `torch.distributions.GeneralizedPareto`: Creates a Generalized Pareto distribution
    parameterized by :attr:`loc`, :attr:`scale`, and :attr:`concentration`."""
    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(
            loc, scale, concentration
        )
        if (
            isinstance(loc, Number)
            and isinstance(scale, Number)
            and isinstance(concentration, Number)
        ):
            batch_shape = torchlike.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=torchlike.Size()):
        shape = self._extended_shape(sample_shape)
        u = torchlike.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = torchlike.isclose(self.concentration, torchlike.tensor(0.0))
        safe_conc = torchlike.where(
            eq_zero, torchlike.ones_like(self.concentration), self.concentration
        )
        y = 1 / safe_conc + torchlike.ones_like(z)
        where_nonzero = torchlike.where(y == 0, y, y * torchlike.log1p(safe_conc * z))
        log_scale = (
            math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        )
        return -log_scale - torchlike.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = torchlike.isclose(self.concentration, torchlike.tensor(0.0))
        safe_conc = torchlike.where(
            eq_zero, torchlike.ones_like(self.concentration), self.concentration
        )
        where_nonzero = -torchlike.log1p(safe_conc * z) / safe_conc
        return torchlike.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        return torchlike.log1p(-torchlike.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return torchlike.exp(self.log_cdf(value))

    def icdf(self, value):
        loc = self.loc
        scale = self.scale
        concentration = self.concentration
        eq_zero = torchlike.isclose(concentration, torchlike.zeros_like(concentration))
        safe_conc = torchlike.where(eq_zero, torchlike.ones_like(concentration), concentration)
        logu = torchlike.log1p(-value)
        where_nonzero = loc + scale / safe_conc * torchlike.expm1(-safe_conc * logu)
        where_zero = loc - scale * logu
        return torchlike.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        concentration = self.concentration
        valid = concentration < 1
        safe_conc = torchlike.where(valid, concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return torchlike.where(valid, result, nan)

    @property
    def variance(self):
        concentration = self.concentration
        valid = concentration < 0.5
        safe_conc = torchlike.where(valid, concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return torchlike.where(valid, result, nan)

    def entropy(self):
        ans = torchlike.log(self.scale) + self.concentration + 1
        return torchlike.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = torchlike.where(
            self.concentration < 0, lower - self.scale / self.concentration, inf
        )
        return constraints.interval(lower, upper)


