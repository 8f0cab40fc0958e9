"""Multinomial(total_count=1, probs=None, logits=None): counts of `total_count` categorical
draws over the last dim's categories."""
import math

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.binomial import Binomial
from torchlike.distributions.categorical import Categorical
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Mirrors `torch.distributions.Multinomial` (samples by counting `Categorical` draws,
    so they follow PyTorch's numbers)."""

    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=_t.Size()):
        sample_shape = _t.Size(sample_shape)
        draws = self._categorical.sample(_t.Size((self.total_count,)) + sample_shape)
        draws = draws.permute(*range(1, draws.dim()), 0)  # the draws' axis last
        counts = _t.zeros(self._extended_shape(sample_shape), dtype=draws.dtype,
                          device=draws.device)
        counts.scatter_add_(-1, draws, _t.ones_like(draws))
        return counts.type_as(self.probs)

    def log_prob(self, value):
        self._maybe_validate(value)
        logits, value = broadcast_all(self.logits, value)
        # a category with no mass and no count contributes nothing (not 0 * -inf)
        logits = _t.where((value == 0) & (logits == -math.inf), _t.zeros_like(logits), logits)
        return (_t.lgamma(value.sum(-1) + 1) - _t.lgamma(value + 1).sum(-1)
                + (logits * value).sum(-1))

    def entropy(self):
        n = _t.tensor(self.total_count)
        # H = n H(categorical) - log n! + sum_i E[log x_i!], x_i ~ Binomial(n, p_i)
        counts = Binomial(self.total_count, probs=self.probs)
        support = counts.enumerate_support(expand=False)[1:]
        expected_log_fact = (counts.log_prob(support).exp() * _t.lgamma(support + 1)).sum(
            [0, -1])
        return n * self._categorical.entropy() - _t.lgamma(n + 1) + expected_log_fact
