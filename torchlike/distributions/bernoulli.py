"""Bernoulli(probs=None, logits=None): one coin per batch element, values 0.0 / 1.0."""
import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.elementwise import ProbsOrLogits

__all__ = ["Bernoulli"]


def _bce_with_logits(logits, target):
    return _t.nn.functional.binary_cross_entropy_with_logits(logits, target, reduction="none")


class Bernoulli(ProbsOrLogits):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        shape = self._set_probs_or_logits(probs, logits)
        super().__init__(shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        p = self.probs
        m = (p >= 0.5).to(p.dtype)
        return _t.where(p == 0.5, _t.full_like(m, float("nan")), m)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _t.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        self._maybe_validate(value)
        logits, value = _t.broadcast_tensors(self.logits, value)
        return -_bce_with_logits(logits, value)

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        values = _t.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
