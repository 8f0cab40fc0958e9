"""Mirrors `torch.distributions.exp_family`: `ExponentialFamily`, whose entropy (and the
Bregman-divergence KL) come from autograd of the log normaliser."""
import torchlike
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Mirrors `torch.distributions.ExponentialFamily`: densities
    p(x; θ) = exp(<t(x), θ> - F(θ) + k(x)), described by `_natural_params`, `_log_normalizer`
    and `_mean_carrier_measure`."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy from the Bregman divergence of the log normaliser."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = torchlike.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for np, g in zip(nparams, gradients):
            result -= (np * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
