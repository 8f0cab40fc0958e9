"""Dirichlet(concentration): distributions over the simplex of the last dim's size."""
import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions._sampling import dirichlet
from torchlike.distributions.distribution import Distribution

__all__ = ["Dirichlet"]


class Dirichlet(Distribution):
    """Mirrors `torch.distributions.Dirichlet`. Samples come from a JAX sampler keyed from
    torchlike's generator (not PyTorch's numbers); `rsample` is reparameterized through the
    underlying gamma draws (an unbiased gradient, but not PyTorch's per-sample value)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self._event_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def _total(self):
        return self.concentration.sum(-1, keepdim=True)

    @property
    def mean(self):
        return self.concentration / self._total

    @property
    def mode(self):
        c = self.concentration
        above = (c - 1).clamp(min=0)
        mode = above / above.sum(-1, keepdim=True)
        # all concentrations below 1: the density peaks at a vertex
        vertex = _t.nn.functional.one_hot(mode.argmax(-1), c.shape[-1]).to(mode.dtype)
        return _t.where((c < 1).all(-1, keepdim=True), vertex, mode)

    @property
    def variance(self):
        c, total = self.concentration, self._total
        return c * (total - c) / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return dirichlet(self.concentration.expand(shape))

    def log_prob(self, value):
        self._maybe_validate(value)
        c = self.concentration
        return (_t.xlogy(c - 1.0, value).sum(-1) + _t.lgamma(c.sum(-1))
                - _t.lgamma(c).sum(-1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        total = c.sum(-1)
        return (_t.lgamma(c).sum(-1) - _t.lgamma(total) - (k - total) * _t.digamma(total)
                - ((c - 1.0) * _t.digamma(c)).sum(-1))
