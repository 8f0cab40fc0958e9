"""Mirrors `torch.distributions.utils`: parameter broadcasting, logits/probs conversion,
`lazy_property` and the triangular-matrix <-> vector helpers."""
from functools import update_wrapper

import torchlike
from torchlike import Tensor
import torchlike.nn.functional as F

euler_constant = 0.57721566490153286060  # Euler Mascheroni Constant

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix"]

_Number = (int, float, bool)


class TorchNamed(type):
    """Metaclass: torchlike's distribution and transform classes print under PyTorch's module
    names (`<class 'torch.distributions.normal.Normal'>`), as PyTorch's messages embed them; a
    user subclass keeps its own module."""

    def __repr__(cls):
        mod = cls.__module__
        if mod == "torchlike" or mod.startswith("torchlike."):
            mod = "torch" + mod[len("torchlike"):]
        return f"<class '{mod}.{cls.__qualname__}'>"


def broadcast_all(*values):
    """Mirrors `torch.distributions.utils.broadcast_all`: numbers become tensors of the first
    tensor's dtype/device (the default dtype if none), then everything is broadcast."""
    if not all(isinstance(v, Tensor) or isinstance(v, _Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        options = dict(dtype=torchlike.get_default_dtype())
        for value in values:
            if isinstance(value, Tensor):
                options = dict(dtype=value.dtype, device=value.device)
                break
        new_values = [v if isinstance(v, Tensor) else torchlike.tensor(v, **options)
                      for v in values]
        return torchlike.broadcast_tensors(*new_values)
    return torchlike.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return torchlike.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum out the `dim` rightmost dimensions of `value`."""
    if dim == 0:
        return value
    required_shape = value.shape[:-dim] + (-1,)
    return value.reshape(required_shape).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Mirrors `torch.distributions.utils.logits_to_probs`."""
    if is_binary:
        return torchlike.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Mirrors `torch.distributions.utils.clamp_probs`: clamped to [eps, 1 - eps]."""
    eps = torchlike.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Mirrors `torch.distributions.utils.probs_to_logits`."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return torchlike.log(ps_clamped) - torchlike.log1p(-ps_clamped)
    return torchlike.log(ps_clamped)


class lazy_property:
    """Mirrors `torch.distributions.utils.lazy_property`: computed (with grad enabled) on first
    access, then stored as an instance attribute."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torchlike.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """Looks like a property to documentation tools and like a lazy_property to validation."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """Mirrors `torch.distributions.utils.tril_matrix_to_vec`."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    arange = torchlike.arange(n, device=mat.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    return mat[..., tril_mask]


def vec_to_tril_matrix(vec, diag=0):
    """Mirrors `torch.distributions.utils.vec_to_tril_matrix`."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1]
                            + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = torchlike.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         f"expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + torchlike.Size((n, n)))
    arange = torchlike.arange(n, device=vec.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    mat[..., tril_mask] = vec
    return mat
