"""Mirrors `torch.distributions.continuous_bernoulli`."""
from __future__ import annotations

import math

import torchlike
from torchlike import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .utils import (
    _Number,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from torchlike.nn.functional import binary_cross_entropy_with_logits


__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """Mirrors `torch.distributions.ContinuousBernoulli`: Creates a continuous Bernoulli
    distribution parameterized by :attr:`probs` or :attr:`logits` (but not both)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(
        self,
        probs: Tensor | Number | None = None,
        logits: Tensor | Number | None = None,
        lims: tuple[float, float] = (0.499, 0.501),
        validate_args: bool | None = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError(
                "Either `probs` or `logits` must be specified, but not both."
            )
        if probs is not None:
            is_scalar = isinstance(probs, _Number)
            (self.probs,) = broadcast_all(probs)
            # validate 'probs' here if necessary as it is later clamped for numerical stability
            # close to 0 and 1, later on; otherwise the clamped 'probs' would always pass
            if validate_args is not None:
                if not self.arg_constraints["probs"].check(self.probs).all():
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            if logits is None:
                raise AssertionError("logits is unexpectedly None")
            is_scalar = isinstance(logits, _Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        if is_scalar:
            batch_shape = torchlike.Size()
        else:
            batch_shape = self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = torchlike.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return torchlike.max(
            torchlike.le(self.probs, self._lims[0]), torchlike.gt(self.probs, self._lims[1])
        )

    def _cut_probs(self):
        return torchlike.where(
            self._outside_unstable_region(),
            self.probs,
            self._lims[0] * torchlike.ones_like(self.probs),
        )

    def _cont_bern_log_norm(self):
        """computes the log normalizing constant as a function of the 'probs' parameter"""
        cut_probs = self._cut_probs()
        cut_probs_below_half = torchlike.where(
            torchlike.le(cut_probs, 0.5), cut_probs, torchlike.zeros_like(cut_probs)
        )
        cut_probs_above_half = torchlike.where(
            torchlike.ge(cut_probs, 0.5), cut_probs, torchlike.ones_like(cut_probs)
        )
        log_norm = torchlike.log(
            torchlike.abs(torchlike.log1p(-cut_probs) - torchlike.log(cut_probs))
        ) - torchlike.where(
            torchlike.le(cut_probs, 0.5),
            torchlike.log1p(-2.0 * cut_probs_below_half),
            torchlike.log(2.0 * cut_probs_above_half - 1.0),
        )
        x = torchlike.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torchlike.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (
            torchlike.log1p(-cut_probs) - torchlike.log(cut_probs)
        )
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * torchlike.pow(x, 2)) * x
        return torchlike.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self) -> Tensor:
        return torchlike.sqrt(self.variance)

    @property
    def variance(self) -> Tensor:
        cut_probs = self._cut_probs()
        vars = cut_probs * (cut_probs - 1.0) / torchlike.pow(
            1.0 - 2.0 * cut_probs, 2
        ) + 1.0 / torchlike.pow(torchlike.log1p(-cut_probs) - torchlike.log(cut_probs), 2)
        x = torchlike.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return torchlike.where(self._outside_unstable_region(), vars, taylor)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> torchlike.Size:
        return self._param.size()

    def sample(self, sample_shape=torchlike.Size()):
        shape = self._extended_shape(sample_shape)
        u = torchlike.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with torchlike.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: _size = torchlike.Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = torchlike.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (
            -binary_cross_entropy_with_logits(logits, value, reduction="none")
            + self._cont_bern_log_norm()
        )

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (
            torchlike.pow(cut_probs, value) * torchlike.pow(1.0 - cut_probs, 1.0 - value)
            + cut_probs
            - 1.0
        ) / (2.0 * cut_probs - 1.0)
        unbounded_cdfs = torchlike.where(self._outside_unstable_region(), cdfs, value)
        return torchlike.where(
            torchlike.le(value, 0.0),
            torchlike.zeros_like(value),
            torchlike.where(torchlike.ge(value, 1.0), torchlike.ones_like(value), unbounded_cdfs),
        )

    def icdf(self, value):
        cut_probs = self._cut_probs()
        return torchlike.where(
            self._outside_unstable_region(),
            (
                torchlike.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0))
                - torchlike.log1p(-cut_probs)
            )
            / (torchlike.log(cut_probs) - torchlike.log1p(-cut_probs)),
            value,
        )

    def entropy(self):
        log_probs0 = torchlike.log1p(-self.probs)
        log_probs1 = torchlike.log(self.probs)
        return (
            self.mean * (log_probs0 - log_probs1)
            - self._cont_bern_log_norm()
            - log_probs0
        )

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.logits,)

    def _log_normalizer(self, x):
        """computes the log normalizing constant as a function of the natural parameter"""
        out_unst_reg = torchlike.max(
            torchlike.le(x, self._lims[0] - 0.5), torchlike.gt(x, self._lims[1] - 0.5)
        )
        cut_nat_params = torchlike.where(
            out_unst_reg, x, (self._lims[0] - 0.5) * torchlike.ones_like(x)
        )
        log_norm = torchlike.log(
            torchlike.abs(torchlike.expm1(cut_nat_params))
        ) - torchlike.log(torchlike.abs(cut_nat_params))
        taylor = 0.5 * x + torchlike.pow(x, 2) / 24.0 - torchlike.pow(x, 4) / 2880.0
        return torchlike.where(out_unst_reg, log_norm, taylor)


