"""Mirrors `torch.nn.Parameter` and `torch.nn.Buffer`."""
from .._core import grad_state
from .._core.tensor import Tensor, _copy_fields


class Parameter(Tensor):
    """Mirrors `torch.nn.Parameter`: a Tensor subclass that requires grad by default and is
    registered by `Module.__setattr__`. Shares storage with `data`."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .. import empty
            data = empty(0)
        if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t = object.__new__(cls)
        _copy_fields(t, data.detach())
        t._base = None
        t._vc = data._vc
        t.requires_grad_(requires_grad) if requires_grad else None
        return t

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.detach().clone(), self.requires_grad, type(self)))


def _rebuild_parameter(data, requires_grad, cls=Parameter):
    return cls(data, requires_grad)


class UninitializedParameter(Parameter):
    """Placeholder for lazy modules (not materialised by torchlike yet)."""


class _BufferMeta(type):
    """`isinstance(t, Buffer)` holds for tensors made by `Buffer(...)` (which are plain
    Tensors marked `_is_buffer`, as in PyTorch)."""

    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Mirrors `torch.nn.Buffer`: marks a tensor to be registered as a module buffer (returns a
    plain detached Tensor carrying `persistent`)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from .. import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
