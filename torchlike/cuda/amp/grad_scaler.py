"""Mirrors `torch.cuda.amp.grad_scaler` (a deprecated alias of `torch.amp.GradScaler`)."""
from ...amp import deprecated as _dep
from ...amp.grad_scaler import GradScaler as _GradScaler, OptState  # noqa: F401

GradScaler = _dep.grad_scaler_alias(_GradScaler, "cuda", __name__)
