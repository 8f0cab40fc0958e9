"""torch.nn modules: convolutions (Conv1d/2d/3d, ConvTranspose1d/2d/3d)."""
import math
import warnings

from .._functional import conv as F
from ..parameter import Parameter
from .module import Module
from .utils import _expand

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]


_ntuple = _expand


def _tl():
    import torchlike
    return torchlike


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
                     "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        n = len(kernel_size)
        if isinstance(padding, str):
            rp = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    rp[2 * i] = total // 2
                    rp[2 * i + 1] = total - total // 2
            self._reversed_padding_repeated_twice = rp
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding) for _ in (0, 1)]
        tl = _tl()
        kw = {"device": device, "dtype": dtype}
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(tl.empty(shape, **kw))
        if bias:
            self.bias = Parameter(tl.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """kaiming_uniform_(a=sqrt(5)) for the weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) bias."""
        tl = _tl()
        w = self.weight
        if 0 in w.shape:  # kaiming_uniform_'s warning
            warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        fan_in = w.shape[1] * math.prod(w.shape[2:])
        gain = math.sqrt(2.0 / (1 + 5))
        std = gain / math.sqrt(fan_in) if fan_in else 0.0
        bound = math.sqrt(3.0) * std
        with tl.no_grad():
            w.uniform_(-bound, bound)
            if self.bias is not None:
                b = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                self.bias.uniform_(-b, b)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"

    def _conv_forward(self, input, weight, bias):
        nd = len(self.kernel_size)
        if self.padding_mode != "zeros":
            rp = self._reversed_padding_repeated_twice
            mode_pad = tuple((rp[2 * i], rp[2 * i + 1]) for i in range(nd - 1, -1, -1))
            return F._conv(nd, f"conv{nd}d", input, weight, bias, self.stride, 0,
                           self.dilation, self.groups, self.padding_mode, mode_pad)
        return F._conv(nd, f"conv{nd}d", input, weight, bias, self.stride, self.padding,
                       self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class _ConvN(_ConvNd):
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        n = self._nd
        padding_ = padding if isinstance(padding, str) else _ntuple(padding, n)
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                         padding_, _ntuple(dilation, n), False, _ntuple(0, n), groups, bias,
                         padding_mode, device, dtype)


class Conv1d(_ConvN):
    """Mirrors `torch.nn.Conv1d`."""
    _nd = 1


class Conv2d(_ConvN):
    """Mirrors `torch.nn.Conv2d`."""
    _nd = 2


class Conv3d(_ConvN):
    """Mirrors `torch.nn.Conv3d`."""
    _nd = 3


class _ConvTransposeNd(_ConvNd):
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        n = self._nd
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                         _ntuple(padding, n), _ntuple(dilation, n), True,
                         _ntuple(output_padding, n), groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        if output_size is None:
            return tuple(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        nn_ = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == nn_ + num_spatial_dims:
            output_size = output_size[nn_:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, "
                             f"output_size must have {num_spatial_dims} or "
                             f"{nn_ + num_spatial_dims} elements (got {len(output_size)})")
        mins, maxs = [], []
        for d in range(num_spatial_dims):
            size = ((input.size(d + nn_) - 1) * stride[d] - 2 * padding[d]
                    + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            mins.append(size)
            maxs.append(size + stride[d] - 1)
        for i, size in enumerate(output_size):
            if size < mins[i] or size > maxs[i]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {mins} to {maxs} (for an input of "
                                 f"{input.size()[2:]})")
        return tuple(output_size[d] - mins[d] for d in range(num_spatial_dims))

    def forward(self, input, output_size=None):
        n = self._nd
        if self.padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        op = self._output_padding(input, output_size, self.stride, self.padding,
                                  self.kernel_size, n, self.dilation)
        return F._conv_transpose(n, f"conv_transpose{n}d", input, self.weight, self.bias,
                                 self.stride, self.padding, op, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Mirrors `torch.nn.ConvTranspose1d`."""
    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Mirrors `torch.nn.ConvTranspose2d`."""
    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Mirrors `torch.nn.ConvTranspose3d`."""
    _nd = 3


# ---- lazy convolutions ------------------------------------------------------------------------

from ..parameter import UninitializedParameter  # noqa: E402
from .lazy import LazyModuleMixin  # noqa: E402


class _LazyConvXdMixin(LazyModuleMixin):
    """Mirrors torch's `_LazyConvXdMixin`: `in_channels` comes from the first input, then the
    weight/bias are materialised and initialised as in the regular class."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if not isinstance(self.weight, UninitializedParameter):
                raise AssertionError("self.weight must be an UninitializedParameter")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups,
                                         *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups,
                                         *self.kernel_size))
            if self.bias is not None:
                if not isinstance(self.bias, UninitializedParameter):
                    raise AssertionError("self.bias must be an UninitializedParameter")
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        num_spatial_dims = self._get_num_spatial_dims()
        num_dims_no_batch = num_spatial_dims + 1
        num_dims_batch = num_dims_no_batch + 1
        if input.dim() not in (num_dims_no_batch, num_dims_batch):
            raise RuntimeError(f"Expected {num_dims_no_batch}D (unbatched) or {num_dims_batch}D "
                               f"(batched) input to {self.__class__.__name__}, but got input of "
                               f"size: {input.shape}")
        return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]

    def _get_num_spatial_dims(self):
        return self._nd


def _lazy_conv_init(self, out_channels, factory_kwargs, bias):
    self.weight = UninitializedParameter(**factory_kwargs)
    self.out_channels = out_channels
    if bias:
        self.bias = UninitializedParameter(**factory_kwargs)


class _LazyConvN(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        # bias is False here so no tensor is made that would be replaced right away
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        _lazy_conv_init(self, out_channels, {"device": device, "dtype": dtype}, bias)


class _LazyConvTransposeN(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        _lazy_conv_init(self, out_channels, {"device": device, "dtype": dtype}, bias)


class LazyConv1d(_LazyConvN, Conv1d):
    """Mirrors `torch.nn.LazyConv1d` (becomes a `Conv1d` on the first forward)."""
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvN, Conv2d):
    """Mirrors `torch.nn.LazyConv2d` (becomes a `Conv2d` on the first forward)."""
    cls_to_become = Conv2d


class LazyConv3d(_LazyConvN, Conv3d):
    """Mirrors `torch.nn.LazyConv3d` (becomes a `Conv3d` on the first forward)."""
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTransposeN, ConvTranspose1d):
    """Mirrors `torch.nn.LazyConvTranspose1d` (becomes a `ConvTranspose1d`)."""
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeN, ConvTranspose2d):
    """Mirrors `torch.nn.LazyConvTranspose2d` (becomes a `ConvTranspose2d`)."""
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeN, ConvTranspose3d):
    """Mirrors `torch.nn.LazyConvTranspose3d` (becomes a `ConvTranspose3d`)."""
    cls_to_become = ConvTranspose3d
