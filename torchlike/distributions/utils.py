"""Helpers shared by the distributions (torchlike's own code, written from PyTorch's documented
behaviour): turning parameters into broadcast tensors, probability/logit conversions, and a
per-instance cached property for parameters derived on first use."""
import numbers

import torchlike as _t

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property"]


def broadcast_all(*values):
    """Numbers become tensors of the tensors' dtype (else the default dtype); then all are
    broadcast to one shape."""
    tensors = [v for v in values if isinstance(v, _t.Tensor)]
    for v in values:
        if not isinstance(v, (_t.Tensor, numbers.Number)):
            raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                             "objects implementing __torch_function__.")
    if len(tensors) == len(values):
        return _t.broadcast_tensors(*values)
    dtype = tensors[0].dtype if tensors else _t.get_default_dtype()
    device = tensors[0].device if tensors else None
    as_tensors = [v if isinstance(v, _t.Tensor) else _t.tensor(v, dtype=dtype, device=device)
                  for v in values]
    return _t.broadcast_tensors(*as_tensors)


def clamp_probs(probs):
    eps = _t.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    p = clamp_probs(probs)
    if is_binary:
        return _t.log(p) - _t.log1p(-p)
    return _t.log(p)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return _t.sigmoid(logits)
    return _t.softmax(logits, dim=-1)


class lazy_property:
    """Computed on first access and then stored on the instance (so it shows in `__dict__`,
    which is what a distribution's repr lists)."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        with _t.enable_grad():
            value = self.fn(obj)
        obj.__dict__[self.__name__] = value
        return value
