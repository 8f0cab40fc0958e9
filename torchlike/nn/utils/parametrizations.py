"""Mirrors `torch.nn.utils.parametrizations`: `weight_norm` (orthogonal and spectral_norm are
not there yet)."""
from ..modules.module import Module
from . import parametrize
from .weight_norm import norm_except_dim, weight_norm_interface

__all__ = ["weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_norm_interface(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Mirrors `torch.nn.utils.parametrizations.weight_norm`: `name` becomes
    `parametrizations.<name>.original0` (magnitude) and `original1` (direction)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module
