"""OneHotCategorical(probs=None, logits=None): a Categorical whose values are one-hot vectors
(event shape (K,))."""
import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.categorical import Categorical
from torchlike.distributions.distribution import Distribution

__all__ = ["OneHotCategorical"]


class OneHotCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape,
                         self._categorical.param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    # parameters live on the wrapped Categorical (so the repr lists none, as PyTorch's)
    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def _param(self):
        return self._categorical._param

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def _k(self):
        return self._event_shape[-1]

    def _one_hot(self, index):
        return _t.nn.functional.one_hot(index, self._k).to(self.probs.dtype)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        return self._one_hot(self.probs.argmax(-1))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=_t.Size()):
        return self._one_hot(self._categorical.sample(sample_shape))

    def log_prob(self, value):
        self._maybe_validate(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        k = self._k
        values = _t.eye(k, dtype=self._param.dtype, device=self._param.device)
        values = values.view((k,) + (1,) * len(self._batch_shape) + (k,))
        if expand:
            values = values.expand((k,) + tuple(self._batch_shape) + (k,))
        return values
