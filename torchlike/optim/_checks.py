"""Constructor argument checks shared by the algorithms (PyTorch's messages)."""
from .._core.tensor import Tensor


def check(*rules):
    """Raise PyTorch's `ValueError` for the first `(is_bad, message)` rule that holds."""
    for bad, msg in rules:
        if bad:
            raise ValueError(msg)


def check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_betas(betas):
    check((not 0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}"),
          (not 0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}"))


def check_fused(fused, foreach, differentiable, opt):
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        opt._step_supports_amp_scaling = True
