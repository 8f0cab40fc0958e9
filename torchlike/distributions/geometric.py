"""Geometric(probs=None, logits=None): the number of failures before the first success."""
import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.elementwise import ProbsOrLogits

__all__ = ["Geometric"]


class Geometric(ProbsOrLogits):
    """Mirrors `torch.distributions.Geometric`."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch = self._set_probs_or_logits(probs, logits)
        Distribution.__init__(self, batch, validate_args=validate_args)
        if self._validate_args and probs is not None:
            p = self.probs
            ok = p > 0
            if not bool(ok.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(p).__name__} of shape {tuple(p.shape)}) "
                    f"of distribution {self!r} to be positive but found invalid values:\n"
                    f"{p.detach()[~ok]}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return _t.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        p = self.probs
        with _t.no_grad():
            u = _t.empty(shape, dtype=p.dtype, device=p.device).uniform_(
                _t.finfo(p.dtype).tiny, 1)
            # inverse CDF: floor(log u / log(1 - p))
            return (u.log() / (-p).log1p()).floor()

    def log_prob(self, value):
        self._maybe_validate(value)
        value, p = _t.broadcast_tensors(value, self.probs)
        # p == 1 puts all mass on 0: 0 * log(0) reads as 0 there
        p = _t.where((p == 1) & (value == 0), _t.zeros_like(p), p)
        return value * (-p).log1p() + self.probs.log()

    def entropy(self):
        bce = _t.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                reduction="none")
        return bce / self.probs
