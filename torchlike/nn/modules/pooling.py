"""torch.nn modules: pooling."""
from .._functional import conv as F
from .module import Module
from .utils import _expand

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "LPPool1d", "LPPool2d", "LPPool3d"]


_ntuple = _expand


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices",
                     "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}"
                ", dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return F._max_pool(self._nd, input, self.kernel_size, self.stride, self.padding,
                           self.dilation, self.ceil_mode, self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """Mirrors `torch.nn.MaxPool1d`."""
    _nd = 1


class MaxPool2d(_MaxPoolNd):
    """Mirrors `torch.nn.MaxPool2d`."""
    _nd = 2


class MaxPool3d(_MaxPoolNd):
    """Mirrors `torch.nn.MaxPool3d`."""
    _nd = 3


class _MaxUnpoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._nd
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if (stride is not None) else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size=None):
        return F._max_unpool(self._nd, input, indices, self.kernel_size, self.stride,
                             self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """Mirrors `torch.nn.MaxUnpool1d`."""
    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Mirrors `torch.nn.MaxUnpool2d`."""
    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Mirrors `torch.nn.MaxUnpool3d`."""
    _nd = 3


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Mirrors `torch.nn.AvgPool1d`."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolN(_AvgPoolNd):
    __constants__ = _AvgPoolNd.__constants__ + ["divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F._avg_pool(self._nd, input, self.kernel_size, self.stride, self.padding,
                           self.ceil_mode, self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPoolN):
    """Mirrors `torch.nn.AvgPool2d`."""
    _nd = 2


class AvgPool3d(_AvgPoolN):
    """Mirrors `torch.nn.AvgPool3d`."""
    _nd = 3


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return F._lp_pool(self._nd, input, float(self.norm_type), self.kernel_size, self.stride,
                          self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """Mirrors `torch.nn.LPPool1d`."""
    _nd = 1


class LPPool2d(_LPPoolNd):
    """Mirrors `torch.nn.LPPool2d`."""
    _nd = 2


class LPPool3d(_LPPoolNd):
    """Mirrors `torch.nn.LPPool3d`."""
    _nd = 3


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"

    def forward(self, input):
        return F._adaptive_max(self._nd, input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Mirrors `torch.nn.AdaptiveMaxPool1d`."""
    _nd = 1


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Mirrors `torch.nn.AdaptiveMaxPool2d`."""
    _nd = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Mirrors `torch.nn.AdaptiveMaxPool3d`."""
    _nd = 3


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"

    def forward(self, input):
        return F._adaptive_avg(self._nd, input, self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Mirrors `torch.nn.AdaptiveAvgPool1d`."""
    _nd = 1


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Mirrors `torch.nn.AdaptiveAvgPool2d`."""
    _nd = 2


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Mirrors `torch.nn.AdaptiveAvgPool3d`."""
    _nd = 3


# ---- fractional max pooling -------------------------------------------------------------------

__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _iter_ntuple(x, n):
    """torch.nn.modules.utils._ntuple: iterables become tuples, anything else is repeated."""
    if hasattr(x, "__iter__"):
        return tuple(x)
    return (x,) * n


class FractionalMaxPool2d(Module):
    """Mirrors `torch.nn.FractionalMaxPool2d`."""
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        self.kernel_size = _iter_ntuple(kernel_size, 2)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _iter_ntuple(output_size, 2) if output_size is not None else None
        self.output_ratio = _iter_ntuple(output_ratio, 2) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError("FractionalMaxPool2d requires specifying either an output size, or "
                             "a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not (0 < self.output_ratio[0] < 1 and 0 < self.output_ratio[1] < 1):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)


class FractionalMaxPool3d(Module):
    """Mirrors `torch.nn.FractionalMaxPool3d`."""
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        if (isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _iter_ntuple(kernel_size, 3)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _iter_ntuple(output_size, 3) if output_size is not None else None
        self.output_ratio = _iter_ntuple(output_ratio, 3) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError("FractionalMaxPool3d requires specifying either an output size, or "
                             "a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not (0 < self.output_ratio[0] < 1 and 0 < self.output_ratio[1] < 1
                    and 0 < self.output_ratio[2] < 1):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return F.fractional_max_pool3d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)
