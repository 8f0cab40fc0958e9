"""Shared shells of the scalar families whose parameters broadcast together elementwise
(Gamma, Poisson, StudentT...), and of the discrete ones parameterised by `probs` or `logits`
(Geometric, Binomial): setting the parameters, the batch shape, `expand`."""
import numbers

import torchlike as _t
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.utils import (broadcast_all, lazy_property, logits_to_probs,
                                           probs_to_logits)

__all__ = ["Elementwise", "ProbsOrLogits"]


def _numbers_only(values):
    return all(isinstance(v, numbers.Number) for v in values)


class Elementwise(Distribution):
    """Parameters named in `_params`, broadcast to one shape: the batch shape (empty when
    all were Python numbers)."""

    _params = ()

    def _set_params(self, values, validate_args, event_shape=_t.Size()):
        tensors = broadcast_all(*values)
        for name, value in zip(self._params, tensors):
            setattr(self, name, value)
        batch = _t.Size() if _numbers_only(values) else tensors[0].size()
        Distribution.__init__(self, batch, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        for name in self._params:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        return self._finish_expand(new, batch_shape)


class ProbsOrLogits(Distribution):
    """One of `probs` or `logits` given (possibly with other parameters broadcast to it); the
    other derived on first use (binary: log-odds)."""

    _others = ()

    def _set_probs_or_logits(self, probs, logits, others=()):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        *rest, param = broadcast_all(*others, given)
        for name, value in zip(self._others, rest):
            setattr(self, name, value.type_as(param))
        setattr(self, "probs" if probs is not None else "logits", param)
        self._param = param
        return _t.Size() if _numbers_only((*others, given)) else param.size()

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        for name in self._others + ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        return self._finish_expand(new, batch_shape)
