"""Mirrors torch.nn LocalResponseNorm, CrossMapLRN2d, LayerNorm, GroupNorm and RMSNorm."""
import numbers

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from ..._core import programs

__all__ = ["LocalResponseNorm", "CrossMapLRN2d", "LayerNorm", "GroupNorm", "RMSNorm"]


def _lib():
    import torchlike
    return torchlike


class LocalResponseNorm(Module):
    """Mirrors `torch.nn.LocalResponseNorm`."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class CrossMapLRN2d(Module):
    """Mirrors `torch.nn.CrossMapLRN2d` (4-D input, LRN across channels)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             f"instead.")
        from ...autograd.function import apply_jax
        return apply_jax(_cross_map_fn(int(self.size), float(self.alpha), float(self.beta),
                                       float(self.k)), [input], "CrossMapLRN2dBackward")[0]

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


@programs.factory
def _cross_map_fn(size, alpha, beta, k):
    """PyTorch's legacy CrossMapLRN2d forward: a running window sum over channels (with its
    exact boundary handling)."""
    import jax.numpy as jnp

    def f(x):
        sq = jnp.square(x)
        channels = x.shape[1]
        pre_pad = int((size - 1) / 2 + 1)
        first = sum(sq[:, c] for c in range(min(pre_pad, channels)))
        scales = [first]
        for c in range(1, channels):
            cur = scales[-1]
            if c < channels - pre_pad + 1:
                cur = cur + sq[:, c + pre_pad - 1]
            if c > pre_pad:
                cur = cur - sq[:, c - pre_pad]
            scales.append(cur)
        scale = jnp.stack(scales, axis=1) * (alpha / size) + k
        return jnp.power(scale, -beta) * x
    return f


def _affine_params(module, affine, shape, bias, device, dtype):
    """`weight` (and `bias`, unless `bias` is False) of `shape`, or both None: the affine
    parameters LayerNorm and GroupNorm register."""
    if affine:
        torch = _lib()
        module.weight = Parameter(torch.empty(shape, device=device, dtype=dtype))
        if bias:
            module.bias = Parameter(torch.empty(shape, device=device, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module, affine):
    if affine:
        init.ones_(module.weight)
        if module.bias is not None:
            init.zeros_(module.bias)


class LayerNorm(Module):
    """Mirrors `torch.nn.LayerNorm`."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_params(self, elementwise_affine, self.normalized_shape, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self, self.elementwise_affine)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class GroupNorm(Module):
    """Mirrors `torch.nn.GroupNorm`."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_params(self, affine, num_channels, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self, self.affine)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{num_groups}, {num_channels}, eps={eps}, affine={affine}, bias={use_bias}"
                .format(**self.__dict__, use_bias=self.bias is not None))


class RMSNorm(Module):
    """Mirrors `torch.nn.RMSNorm`."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        torch = _lib()
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(torch.empty(self.normalized_shape, **factory_kwargs))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}"
                .format(**self.__dict__))
