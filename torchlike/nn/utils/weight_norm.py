"""Mirrors `torch.nn.utils.weight_norm` / `remove_weight_norm` (the deprecated hook form):
parameter `name` is replaced by a magnitude `name_g` and a direction `name_v`, and a forward
pre-hook recomputes `name = name_v * (name_g / ||name_v||)` before every forward."""
import warnings

import jax.numpy as jnp

from ..._core.tensor import wrap
from ..parameter import Parameter, UninitializedParameter
from ..._core import programs

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _keep_axes(ndim, dim):
    """The axes a norm "except `dim`" reduces (all of them for dim -1, PyTorch's whole-tensor
    norm)."""
    return tuple(range(ndim)) if dim == -1 else tuple(a for a in range(ndim) if a != dim)


@programs.factory
def _norm_fn(ndim, dim):
    axes = _keep_axes(ndim, dim)
    return lambda v: jnp.sqrt(jnp.sum(v * v, axis=axes, keepdims=dim != -1))


@programs.factory
def _weight_fn(ndim, dim):
    norm = _norm_fn(ndim, dim).__wrapped__
    return lambda v, g: v * (g / norm(v))


def norm_except_dim(v, dim):
    """The 2-norm of `v` over every dim but `dim` (kept, size 1 elsewhere), or of all of `v`
    for dim -1: the initial magnitude `name_g`."""
    return wrap(_norm_fn(v.dim(), dim)(v.detach()._value()), v.device)


def weight_norm_interface(v, g, dim):
    """`v * (g / ||v||)`, the norm taken over every dim but `dim` (PyTorch's `_weight_norm`;
    its fused kernel, and so its node name, serves the first and last dim)."""
    from ...autograd.function import apply_jax
    fused = dim in (0, v.dim() - 1)
    return apply_jax(_weight_fn(v.dim(), dim), [v, g],
                     "WeightNormInterfaceBackward0" if fused else "MulBackward0")[0]


class WeightNorm:
    """Mirrors `torch.nn.utils.weight_norm.WeightNorm` (the forward pre-hook)."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return weight_norm_interface(getattr(module, self.name + "_v"),
                                     getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter "
                                   f"{name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, fn.dim)))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Mirrors `torch.nn.utils.weight_norm` (deprecated in PyTorch, with its warning)."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Mirrors `torch.nn.utils.remove_weight_norm`."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
