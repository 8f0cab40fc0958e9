"""Gamma(concentration, rate): density rate^c x^(c-1) exp(-rate x) / Gamma(c) on x > 0."""
import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions._sampling import standard_gamma
from torchlike.distributions.elementwise import Elementwise

__all__ = ["Gamma"]


class Gamma(Elementwise):
    """Mirrors `torch.distributions.Gamma`. Samples come from a JAX gamma sampler keyed from
    torchlike's generator (PyTorch's C++ sampler draws other numbers); `rsample`'s gradient
    is the implicit reparameterization one, as PyTorch's."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _params = ("concentration", "rate")

    def __init__(self, concentration, rate, validate_args=None):
        self._set_params((concentration, rate), validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=_t.finfo(value.dtype).tiny)  # in place, not recorded
        return value

    def _as_value(self, value):
        value = _t.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        self._maybe_validate(value)
        return value

    def log_prob(self, value):
        value = self._as_value(value)
        c, r = self.concentration, self.rate
        return _t.xlogy(c, r) + _t.xlogy(c - 1, value) - r * value - _t.lgamma(c)

    def cdf(self, value):
        value = self._as_value(value)
        return _t.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        c = self.concentration
        return c - self.rate.log() + _t.lgamma(c) + (1.0 - c) * _t.digamma(c)
