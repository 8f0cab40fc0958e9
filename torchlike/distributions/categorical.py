"""Categorical(probs=None, logits=None): an index in [0, K) per batch element, K the size of
the last dim. Probabilities are normalised and logits are shifted to log-probabilities; the
other parameterisation is derived on first use."""
import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.size()[-1]
        batch = self._param.size()[:-1] if self._param.dim() > 1 else _t.Size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        full = batch_shape + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(full)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(full)
            new._param = new.logits
        new._num_events = self._num_events
        return self._finish_expand(new, batch_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    def _nan(self):
        return _t.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype,
                       device=self.probs.device)

    @property
    def mean(self):
        return self._nan()

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return self._nan()

    def sample(self, sample_shape=_t.Size()):
        sample_shape = _t.Size(sample_shape)
        n = sample_shape.numel()
        with _t.no_grad():
            flat = self.probs.reshape(-1, self._num_events)
            draws = _t.multinomial(flat, n, replacement=True)  # (rows, n)
            return draws.t().reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        self._maybe_validate(value)
        index = value.long().unsqueeze(-1)
        index, log_pmf = _t.broadcast_tensors(index, self.logits)
        return log_pmf.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=_t.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = _t.arange(self._num_events, dtype=_t.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
