"""torch.nn modules: activations (each a thin wrapper over `nn.functional`)."""
import warnings

from .. import functional as F
from ..parameter import Parameter
from .module import Module

__all__ = [
    "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU",
    "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU",
    "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin",
    "Softmax", "Softmax2d", "LogSoftmax",
]


def _ip(inplace):
    return ", inplace=True" if inplace else ""


class _Inplace(Module):
    """An activation whose only option is `inplace` (repr `Name(inplace=True)` or `Name()`)."""

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Threshold(Module):
    """Mirrors `torch.nn.Threshold`."""

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_ip(self.inplace)}"


class ReLU(_Inplace):
    """Mirrors `torch.nn.ReLU`."""

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class RReLU(Module):
    """Mirrors `torch.nn.RReLU`."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_ip(self.inplace)}"


class Hardtanh(Module):
    """Mirrors `torch.nn.Hardtanh`."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val "
                                 f"({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_ip(self.inplace)}"


class ReLU6(Hardtanh):
    """Mirrors `torch.nn.ReLU6`."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """Mirrors `torch.nn.Sigmoid`."""

    def forward(self, input):
        return input.sigmoid()


class Hardsigmoid(Module):
    """Mirrors `torch.nn.Hardsigmoid`."""

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    """Mirrors `torch.nn.Tanh`."""

    def forward(self, input):
        return input.tanh()


class SiLU(_Inplace):
    """Mirrors `torch.nn.SiLU`."""

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_Inplace):
    """Mirrors `torch.nn.Mish`."""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardswish(Module):
    """Mirrors `torch.nn.Hardswish`."""

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class ELU(Module):
    """Mirrors `torch.nn.ELU`."""

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_ip(self.inplace)}"


class CELU(ELU):
    """Mirrors `torch.nn.CELU`."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(_Inplace):
    """Mirrors `torch.nn.SELU`."""

    def forward(self, input):
        return F.selu(input, self.inplace)


class GLU(Module):
    """Mirrors `torch.nn.GLU`."""

    __constants__ = ["dim"]

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """Mirrors `torch.nn.GELU`."""

    __constants__ = ["approximate"]

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """Mirrors `torch.nn.Hardshrink`."""

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class LeakyReLU(Module):
    """Mirrors `torch.nn.LeakyReLU`."""

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_ip(self.inplace)}"


class LogSigmoid(Module):
    """Mirrors `torch.nn.LogSigmoid`."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """Mirrors `torch.nn.Softplus`."""

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(Module):
    """Mirrors `torch.nn.Softshrink`."""

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class PReLU(Module):
    """Mirrors `torch.nn.PReLU`: a learnable negative slope (one, or one per channel)."""

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        from ... import empty
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        from ...autograd.grad_mode import no_grad
        with no_grad():
            self.weight.fill_(self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """Mirrors `torch.nn.Softsign`."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """Mirrors `torch.nn.Tanhshrink`."""

    def forward(self, input):
        return F.tanhshrink(input)


class _DimModule(Module):
    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(_DimModule):
    """Mirrors `torch.nn.Softmin`."""

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax(_DimModule):
    """Mirrors `torch.nn.Softmax`."""

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Mirrors `torch.nn.Softmax2d`: softmax over the channel dim of (N)CHW input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             f"instead")
        return F.softmax(input, -3, _stacklevel=5)


class LogSoftmax(_DimModule):
    """Mirrors `torch.nn.LogSoftmax`."""

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)
