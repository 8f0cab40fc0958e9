"""Mirrors `torch.cpu.amp.grad_scaler` (a deprecated alias of `torch.amp.GradScaler`)."""
from ...amp import deprecated as _dep
from ...amp.grad_scaler import GradScaler as _GradScaler

GradScaler = _dep.grad_scaler_alias(_GradScaler, "cpu", __name__)
