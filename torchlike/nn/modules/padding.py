"""torch.nn modules: padding layers (Zero/Constant/Reflection/Replication/Circular, 1d-3d)."""

from .. import functional as F
from .module import Module
from .utils import _expand

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
    "ZeroPad3d",
]


_ntuple = _expand


class _CircularPadNd(Module):
    __constants__ = ["padding"]

    def _check_input_dim(self, input):
        n = self._n
        if input.dim() != n + 1 and input.dim() != n + 2:
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")

    def extra_repr(self):
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    """Mirrors `torch.nn.CircularPad1d`."""
    _n = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2)


class CircularPad2d(_CircularPadNd):
    """Mirrors `torch.nn.CircularPad2d`."""
    _n = 2

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 4)


class CircularPad3d(_CircularPadNd):
    """Mirrors `torch.nn.CircularPad3d`."""
    _n = 3

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 6)


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Mirrors `torch.nn.ConstantPad1d`."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _ntuple(padding, 2)


class ConstantPad2d(_ConstantPadNd):
    """Mirrors `torch.nn.ConstantPad2d`."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _ntuple(padding, 4)


class ConstantPad3d(_ConstantPadNd):
    """Mirrors `torch.nn.ConstantPad3d`."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _ntuple(padding, 6)


class _ReflectionPadNd(Module):
    __constants__ = ["padding"]

    def forward(self, input):
        return F.pad(input, self.padding, "reflect")

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_ReflectionPadNd):
    """Mirrors `torch.nn.ReflectionPad1d`."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2)


class ReflectionPad2d(_ReflectionPadNd):
    """Mirrors `torch.nn.ReflectionPad2d`."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 4)


class ReflectionPad3d(_ReflectionPadNd):
    """Mirrors `torch.nn.ReflectionPad3d`."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 6)


class _ReplicationPadNd(Module):
    __constants__ = ["padding"]

    def forward(self, input):
        return F.pad(input, self.padding, "replicate")

    def extra_repr(self):
        return f"{self.padding}"


class ReplicationPad1d(_ReplicationPadNd):
    """Mirrors `torch.nn.ReplicationPad1d`."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2)


class ReplicationPad2d(_ReplicationPadNd):
    """Mirrors `torch.nn.ReplicationPad2d`."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 4)


class ReplicationPad3d(_ReplicationPadNd):
    """Mirrors `torch.nn.ReplicationPad3d`."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 6)


class ZeroPad1d(ConstantPad1d):
    """Mirrors `torch.nn.ZeroPad1d`."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Mirrors `torch.nn.ZeroPad2d`."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Mirrors `torch.nn.ZeroPad3d`."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
