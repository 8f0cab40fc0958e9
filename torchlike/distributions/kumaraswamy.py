"""Mirrors `torch.distributions.kumaraswamy`."""
from __future__ import annotations

import torchlike
from torchlike import Tensor
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant


nan = float("nan")

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """Computes nth moment of Kumaraswamy using torchlike.lgamma"""
    arg1 = 1 + n / a
    log_value = torchlike.lgamma(arg1) + torchlike.lgamma(b) - torchlike.lgamma(arg1 + b)
    return b * torchlike.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """Mirrors `torch.distributions.Kumaraswamy`: Samples from a Kumaraswamy distribution."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(
        self,
        concentration1: Tensor | float,
        concentration0: Tensor | float,
        validate_args: bool | None = None,
    ) -> None:
        self.concentration1, self.concentration0 = broadcast_all(
            concentration1, concentration0
        )
        base_dist = Uniform(
            torchlike.full_like(self.concentration0, 0),
            torchlike.full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        # Evaluate in log-space for numerical stability.
        log_mode = (
            self.concentration0.reciprocal() * (-self.concentration0).log1p()
            - (-self.concentration0 * self.concentration1).log1p()
        )
        log_mode[(self.concentration0 < 1) | (self.concentration1 < 1)] = nan
        return log_mode.exp()

    @property
    def variance(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 2) - torchlike.pow(
            self.mean, 2
        )

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = torchlike.digamma(self.concentration0 + 1) + euler_constant
        return (
            t0
            + t1 * H0
            - torchlike.log(self.concentration1)
            - torchlike.log(self.concentration0)
        )


