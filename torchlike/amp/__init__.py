"""Mirrors `torch.amp`: automatic mixed precision.

    autocast_mode.py  `autocast` (context manager / decorator), `custom_fwd`, `custom_bwd`
    grad_scaler.py    `GradScaler`
    state.py          the torch-level switches (`torch.is_autocast_enabled`, ...)
    policy.py         which ops run in the lower-precision dtype, in float32, or promoted
    dispatch.py       casting an op's operands by that policy (the op dispatcher's hook)
    scaling.py        GradScaler's unscale / scale-update kernels
"""
from . import dispatch as _dispatch  # noqa: F401  (installs the op dispatcher's hook)
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
