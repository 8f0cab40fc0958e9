"""Binomial(total_count=1, probs=None, logits=None): successes in `total_count` trials."""
import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions._sampling import binomial
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.elementwise import ProbsOrLogits

__all__ = ["Binomial"]


class Binomial(ProbsOrLogits):
    """Mirrors `torch.distributions.Binomial` (samples from a JAX sampler keyed from
    torchlike's generator; PyTorch's `torch.binomial` draws other numbers)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True
    _others = ("total_count",)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self._set_probs_or_logits(probs, logits, (total_count,))
        Distribution.__init__(self, self._param.size(), validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        self._maybe_validate(value)
        n, logits = self.total_count, self.logits
        log_binom = _t.lgamma(n + 1) - _t.lgamma(value + 1) - _t.lgamma(n - value + 1)
        # log p^k (1-p)^(n-k) = k logits - n softplus(logits)
        return log_binom + value * logits - n * _t.nn.functional.softplus(logits)

    def _homogeneous_count(self, what):
        n = int(self.total_count.max())
        if not bool(self.total_count.min() == n):
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return n

    def entropy(self):
        self._homogeneous_count("entropy")
        log_pmf = self.log_prob(self.enumerate_support(False))
        return -(log_pmf.exp() * log_pmf).sum(0)

    def enumerate_support(self, expand=True):
        n = self._homogeneous_count("enumerate_support")
        values = _t.arange(1 + n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


