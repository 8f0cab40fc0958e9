"""Mirrors `torch.nn.Parameter` and `torch.nn.Buffer`."""
from .._core import grad_state
from .._core.tensor import Tensor, _copy_fields
from ..overrides import _disabled_torch_function_impl


class Parameter(Tensor):
    """Mirrors `torch.nn.Parameter`: a Tensor subclass that requires grad by default and is
    registered by `Module.__setattr__`. Shares storage with `data`."""

    __torch_function__ = _disabled_torch_function_impl

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


class UninitializedTensorMixin:
    """Mirrors `torch.nn.parameter.UninitializedTensorMixin`: a tensor whose shape is not known
    yet (lazy modules); `materialize(shape)` gives it storage and turns it into
    `cls_to_become`."""

    __torch_function__ = _disabled_torch_function_impl

    def materialize(self, shape, device=None, dtype=None):
        from .. import empty
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. "
            "This error usually happens in `load_state_dict` when trying to load "
            "an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. "
            "Call `forward` to initialize the parameters before calling "
            "`module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """Mirrors `torch.nn.parameter.is_lazy`."""
    return isinstance(param, UninitializedTensorMixin)


def _empty0(device, dtype):
    from .. import empty
    return empty(0, device=device, dtype=dtype)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """Mirrors `torch.nn.UninitializedParameter`: a Parameter with no data yet (lazy modules);
    becomes a `Parameter` when materialised."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        t = object.__new__(cls)
        _copy_fields(t, _empty0(device, dtype))
        t._base = None
        t._vc = [0]
        if requires_grad:
            t.requires_grad_(True)
        return t

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class _BufferMeta(type(Tensor)):
    """`isinstance(t, Buffer)` holds for tensors made by `Buffer(...)` (which are plain
    Tensors marked `_is_buffer`, as in PyTorch)."""

    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Mirrors `torch.nn.Buffer`: marks a tensor to be registered as a module buffer (returns a
    plain detached Tensor carrying `persistent`)."""

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from .. import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """Mirrors `torch.nn.UninitializedBuffer`: a buffer with no data yet (lazy modules);
    becomes a plain Tensor when materialised."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = object.__new__(cls)
        _copy_fields(t, _empty0(device, dtype))
        t._base = None
        t._vc = [0]
        if requires_grad:
            t.requires_grad_(True)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result
