"""Mirrors `torch.nn.parallel.data_parallel`."""
from ..modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Mirrors `torch.nn.DataParallel` on a single device: holds `module` and calls it."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
