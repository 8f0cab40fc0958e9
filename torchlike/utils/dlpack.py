"""Mirrors `torch.utils.dlpack`."""
from .._ops.interop import DLDeviceType, from_dlpack  # noqa: F401


def to_dlpack(tensor):
    """Mirrors `torch.utils.dlpack.to_dlpack`: the tensor's DLPack capsule (a tensor that
    requires grad is exported as its detached values, as PyTorch does)."""
    return tensor.detach().__dlpack__()


__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
