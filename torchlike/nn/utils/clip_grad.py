"""Mirrors torch.nn.utils clip_grad_norm_ / clip_grad_value_ (and the deprecated
clip_grad_norm)."""
import functools
import types
import warnings

from ..._core import grad_state

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _lib():
    import torchlike
    return torchlike


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        prev = grad_state.ENABLED[0]
        grad_state.ENABLED[0] = False
        try:
            return func(*args, **kwargs)
        finally:
            grad_state.ENABLED[0] = prev
    return wrapper


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Mirrors `torch.nn.utils.get_total_norm`: the norm of the per-tensor norms."""
    torch = _lib()
    if isinstance(tensors, torch.Tensor):
        tensors = [tensors]
    else:
        tensors = list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return torch.tensor(0.0)
    first_device = tensors[0].device
    norms = [torch.linalg.vector_norm(g, norm_type) for g in tensors]
    total_norm = torch.linalg.vector_norm(
        torch.stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and bool(torch.logical_or(total_norm.isnan(), total_norm.isinf())):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Mirrors `torch.nn.utils.clip_grads_with_norm_`."""
    torch = _lib()
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped.to(g.device))


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Mirrors `torch.nn.utils.clip_grad_norm_`: scales the gradients in place so that their
    total norm is at most `max_norm`; returns the total norm (before clipping)."""
    torch = _lib()
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Mirrors the deprecated `torch.nn.utils.clip_grad_norm`."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Mirrors `torch.nn.utils.clip_grad_value_`: clamps every gradient to
    [-clip_value, clip_value] in place."""
    torch = _lib()
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
