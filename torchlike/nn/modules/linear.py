"""torch.nn modules: Identity, Linear, Bilinear, LazyLinear."""
import math

from .. import functional as F
from ..parameter import Parameter, UninitializedParameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear"]


def _uniform_(t, bound):
    from ...autograd.grad_mode import no_grad
    with no_grad():
        t.uniform_(-bound, bound)


def _kaiming_uniform_a_sqrt5(w):
    """PyTorch's default Linear/Conv weight init: kaiming_uniform_(w, a=sqrt(5)), i.e.
    U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    from .. import init
    if hasattr(init, "kaiming_uniform_"):
        return init.kaiming_uniform_(w, a=math.sqrt(5))
    if w.numel() == 0:
        return w
    fan_in = w.shape[1] if w.dim() > 1 else w.shape[0]
    for s in w.shape[2:]:
        fan_in *= s
    gain = math.sqrt(2.0 / (1 + 5))
    _uniform_(w, math.sqrt(3.0) * gain / math.sqrt(fan_in))
    return w


class Identity(Module):
    """Mirrors `torch.nn.Identity` (arguments are accepted and ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """Mirrors `torch.nn.Linear`: y = x W^T + b, W ~ U(-1/sqrt(in), 1/sqrt(in)) and the same
    bound for b."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        from ... import empty
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        _kaiming_uniform_a_sqrt5(self.weight)
        if self.bias is not None:
            fan_in = self.weight.shape[1]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            _uniform_(self.bias, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """Mirrors `torch.nn.Bilinear`: y = x1^T A x2 + b, A and b ~ U(-1/sqrt(in1), 1/sqrt(in1))."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        from ... import empty
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), device=device,
                                      dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        _uniform_(self.weight, bound)
        if self.bias is not None:
            _uniform_(self.bias, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(Linear):
    """Mirrors `torch.nn.LazyLinear`: `in_features` is inferred from the first input, after
    which the module becomes a `Linear`."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self._factory = {"device": device, "dtype": dtype}
        self.weight = UninitializedParameter()
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def has_uninitialized_params(self):
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def initialize_parameters(self, input):
        from ... import empty
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight = Parameter(empty((self.out_features, self.in_features),
                                          **self._factory))
            if self.bias is not None:
                self.bias = Parameter(empty(self.out_features, **self._factory))
            self.reset_parameters()

    def forward(self, input):
        self.initialize_parameters(input)
        del self._factory
        self.__class__ = self.cls_to_become
        return F.linear(input, self.weight, self.bias)
