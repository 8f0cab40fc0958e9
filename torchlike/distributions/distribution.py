"""The `Distribution` base class: shapes, argument/value validation, the generic parts of the
API (sample via rsample, stddev via variance, perplexity, expand scaffolding) and the repr."""
import warnings

import torchlike as _t
from torchlike.distributions import constraints

__all__ = ["Distribution"]


def _cls_text(cls):
    """`str(cls)` as PyTorch prints it in messages (torchlike's own classes under `torch.`)."""
    module = cls.__module__
    if module == "torchlike" or module.startswith("torchlike."):
        module = "torch" + module[len("torchlike"):]
    return f"<class '{module}.{cls.__qualname__}'>"


def _as_size(shape):
    return shape if isinstance(shape, _t.Size) else _t.Size(shape)


class Distribution:
    """Base of every distribution. Subclasses set `arg_constraints`, `support`, and implement
    what they support; the rest raises NotImplementedError as in PyTorch."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_t.Size(), event_shape=_t.Size(), validate_args=None):
        self._batch_shape = _as_size(batch_shape)
        self._event_shape = _as_size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()
        super().__init__()

    def _check_parameters(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{_cls_text(type(self))} does not define `arg_constraints`. Please set "
                "`arg_constraints = {}` or initialize the distribution with "
                "`validate_args=False` to turn off validation.")
        for name, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            # a parameter derived lazily from another one (logits from probs) is not forced
            if name not in self.__dict__ and isinstance(
                    getattr(type(self), name, None), _lazy_type()):
                continue
            value = getattr(self, name)
            ok = constraint.check(value)
            if not bool(ok.all()):
                raise ValueError(
                    f"Expected parameter {name} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{value}")

    # ---- shapes ------------------------------------------------------------------------
    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=_t.Size()):
        return _as_size(_as_size(sample_shape) + self._batch_shape + self._event_shape)

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    def _new_instance(self, _instance):
        """The empty object `expand` fills in (a subclass instance if one was passed)."""
        if _instance is not None:
            return _instance
        return type(self).__new__(type(self))

    def _finish_expand(self, new, batch_shape, event_shape=None):
        Distribution.__init__(new, batch_shape,
                              self._event_shape if event_shape is None else event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    # ---- the interface -----------------------------------------------------------------
    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{_cls_text(type(self))} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=_t.Size()):
        with _t.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=_t.Size()):
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(_t.Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return _t.exp(self.entropy())

    # ---- validation --------------------------------------------------------------------
    def _validate_sample(self, value):
        if not isinstance(value, _t.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        shape = value.size()
        n_event = len(self._event_shape)
        if shape[len(shape) - n_event:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{shape} vs {self._event_shape}.")
        expected = self._batch_shape + self._event_shape
        for a, b in zip(reversed(shape), reversed(expected)):
            if a != 1 and b != 1 and a != b:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{shape} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{_cls_text(type(self))} does not define `support` to enable sample validation. "
                "Please initialize the distribution with `validate_args=False` to turn off "
                "validation.")
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _maybe_validate(self, value):
        if self._validate_args:
            self._validate_sample(value)

    # ---- repr --------------------------------------------------------------------------
    def __repr__(self):
        shown = []
        for name in self._repr_params():
            value = self.__dict__[name]
            if value.numel() == 1:
                text = f"{value}" if value.dim() == 0 else str(value)
            else:
                text = str(value.size())
            shown.append(f"{name}: {text}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def _repr_params(self):
        try:
            names = list(self.arg_constraints)
        except NotImplementedError:
            return []
        return [n for n in names if n in self.__dict__]


def _lazy_type():
    from torchlike.distributions.utils import lazy_property
    return lazy_property
