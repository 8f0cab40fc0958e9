"""`Tensor`: a mutable PyTorch-style shell over a shared `Storage`.

A tensor is storage + size + stride + storage_offset (+ autograd fields). Its value is read out
of the storage through a cached jitted layout kernel (free when the tensor covers its storage in
the storage's own shape) and written back the same way, so every alias sees every write.
Op methods (`add`, `add_`, `__add__`, ...) are attached by `torchlike._ops.registry`.
"""
import math

import numpy as np

from . import dtype as dt
from . import device_asserts, formats, layout, lazy as _lazy
from .device import CPU
from .grad_state import ENABLED as _GRAD, FORWARD_AD as _FWAD
from .size import Size
from .storage import Storage, TypedStorage, UntypedStorage, fill

_object_new = object.__new__

_DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
    "the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")


class _TensorMeta(type):
    """Tensor classes print under PyTorch's names: `<class 'torch.Tensor'>`,
    `<class 'torch.nn.parameter.Parameter'>` (a user subclass keeps its own module)."""

    def __init__(cls, name, bases, ns, **kwargs):
        super().__init__(name, bases, ns, **kwargs)
        if bases:
            from .. import overrides
            overrides.register_subclass(cls)

    def __repr__(cls):
        mod = "torch" if cls is Tensor else cls.__module__
        if mod == "torchlike" or mod.startswith("torchlike."):
            mod = "torch" + mod[len("torchlike"):]
        return f"<class '{mod}.{cls.__qualname__}'>"


class Tensor(metaclass=_TensorMeta):
    """Mirrors `torch.Tensor`."""

    __slots__ = ("_st", "_size", "_stride", "_offset", "_natural", "dtype", "_vc", "_base",
                 "_requires_grad", "_grad", "grad_fn", "_cache", "_cache_src", "_meta",
                 "__dict__", "__weakref__")

    # A view marked as a window on a changing size (see `_core/buckets.py`): set per instance
    # (in its __dict__) only there; the class default keeps the read from `__getattr__`
    _window = None

    # NumPy scalars and arrays defer binary operators to the tensor (`np.float32(2) * t` is a
    # Tensor), as PyTorch's own `Tensor.__array_priority__` makes them do
    __array_priority__ = 1000

    # whether this class's instances take part in the `__torch_function__` protocol (set per
    # subclass by the metaclass, see `torchlike/overrides.py`)
    _tf = False

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Mirrors `Tensor.__torch_function__`: runs `func` with the protocol off for
        subclasses, then makes its tensor results instances of `cls`."""
        from ..overrides import DisableTorchFunctionSubclass, get_default_nowrap_functions
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            ret = func(*args, **kwargs)
            if func in get_default_nowrap_functions():
                return ret
            return _convert(ret, cls)

    # ---- construction (internal) -------------------------------------------------------------

    def __new__(cls, *args, **kwargs):
        """`torch.Tensor(2, 3)` / `torch.Tensor([1, 2])`: PyTorch's legacy constructor (tensors
        made internally bypass this with `object.__new__`)."""
        from .._ops.creation import legacy_constructor
        return legacy_constructor(cls, args, kwargs)

    def __init__(self, *args, **kwargs):
        pass

    # ---- layout ------------------------------------------------------------------------------

    def size(self, dim=None):
        """Mirrors `Tensor.size`."""
        if dim is None:
            return Size(self._size)
        return self._size[_wrap_dim(dim, len(self._size))]

    @property
    def shape(self):
        return Size(self._size)

    def stride(self, dim=None):
        """Mirrors `Tensor.stride`."""
        if dim is None:
            return self._stride
        return self._stride[_wrap_dim(dim, len(self._size))]

    def storage_offset(self):
        return self._offset

    def dim(self):
        return len(self._size)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._size)

    def numel(self):
        return layout.numel(self._size)

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def is_contiguous(self, memory_format=None):
        if memory_format is None or memory_format is formats.contiguous_format or \
                memory_format is formats.preserve_format:
            return layout.is_contiguous(self._size, self._stride)
        try:
            order = formats.dim_order(memory_format, len(self._size))
        except RuntimeError:  # a channels-last format of another rank
            return False
        return formats.is_dense_in(self._size, self._stride, order)

    def data_ptr(self):
        """Mirrors `Tensor.data_ptr` (0 for a tensor with no elements, as PyTorch)."""
        if 0 in self._size:
            return 0
        return self._st.ptr + self._offset * self.dtype.itemsize

    def untyped_storage(self):
        return UntypedStorage(self._st)

    def storage(self):
        return TypedStorage(self._st)

    @property
    def _version(self):
        return self._vc[0]

    @property
    def device(self):
        return self._st.device

    @property
    def is_cuda(self):
        return self._st.device.type == "cuda"

    @property
    def is_cpu(self):
        return self._st.device.type == "cpu"

    @property
    def is_meta(self):
        return self._st.device.type == "meta"

    # devices torchlike never places a tensor on (PyTorch's answers on a CPU/CUDA build)
    is_mps = is_xpu = is_ipu = is_maia = is_mtia = is_xla = is_vulkan = property(
        lambda self: False)
    is_nested = is_sparse_csr = property(lambda self: False)

    def is_set_to(self, tensor):
        """Mirrors `Tensor.is_set_to`: the same storage, offset, sizes and strides."""
        return (self._st is tensor._st and self._offset == tensor._offset and
                self._size == tensor._size and self._stride == tensor._stride)

    @property
    def is_sparse(self):
        return False

    @property
    def is_quantized(self):
        return False

    @property
    def is_mkldnn(self):
        return False

    @property
    def layout(self):
        return formats.strided

    def get_device(self):
        d = self._st.device
        return d.index if d.type == "cuda" else -1

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_signed(self):
        return self.dtype.is_signed

    def _is_view(self):
        return self._base is not None

    # ---- value -------------------------------------------------------------------------------

    def _value(self):
        """This tensor's elements as a JAX array of shape `size()`."""
        if self._natural:
            d = self._st._raw
            if d is not None:
                return d if type(d) is not _lazy.Pending else self._st._data
        return _read(self)

    def _assign(self, v, uniform=False):
        """Write the array `v` (broadcastable to size, any dtype) into this tensor's region.
        `uniform`: every element gets the same value (`fill_`, `zero_`), which PyTorch also
        writes through a layout whose elements share memory (`t.expand(3).fill_(1)`)."""
        st = self._st
        if self._natural and (st._raw is not None or st._phys is not None) and \
                v.shape == self._size:
            if v.dtype != self.dtype.np:
                cast = _cast_jit(self.dtype.np)
                v = _lazy.launch(cast, (v,)) if _lazy.ON[0] else cast(_lazy.force(v))
            st._data = v
            st._phys = None
            st._pdims = ()
        else:
            _write(self, _lazy.force(v), uniform)
        self._vc[0] += 1

    # ---- NumPy and Python conversions -------------------------------------------------------

    def numpy(self, *, force=False):
        """Mirrors `Tensor.numpy`: shares memory with the returned array on CPU."""
        if force:
            return np.array(self.detach().cpu()._value())
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._st.device.type != "cpu":
            raise TypeError(f"can't convert {self._st.device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        if self.dtype is dt.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        flat = self._st.share_with_numpy()
        self._cache = None
        item = self.dtype.itemsize
        return layout.host_strided(
            flat[self._offset:], self._size, tuple(s * item for s in self._stride))

    def __array__(self, dtype=None, copy=None):
        a = np.asarray(self._value())
        return a if dtype is None else a.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """NumPy ufuncs on a tensor (`np.sin(t)`, `t + ndarray`) give a tensor back, as in
        PyTorch, which also returns bool results as uint8."""
        from .._ops.creation import from_numpy
        array = np.asarray(array)
        return from_numpy(array.astype(np.uint8) if array.dtype == np.bool_ else array)

    def item(self):
        """Mirrors `Tensor.item`."""
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        if device_asserts.PENDING:
            device_asserts.check()
        return np.asarray(self._value()).reshape(()).item()

    def tolist(self):
        """Mirrors `Tensor.tolist`."""
        if device_asserts.PENDING:
            device_asserts.check()
        a = np.asarray(self._value())
        if self.dtype is dt.bfloat16 or self.dtype is dt.float16:
            a = a.astype(np.float64)
        return a.tolist()

    def __len__(self):
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def __iter__(self):
        if not self._size:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        """Mirrors `Tensor.__reversed__`: `reversed(t)` is `t.flip(0)` (a 0-d tensor itself)."""
        return self if not self._size else self.flip(0)

    def _scalar_check(self, what):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")

    def __bool__(self):
        n = self.numel()
        if n != 1:
            if n == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        self._scalar_check("float")
        return float(self.item())

    def __int__(self):
        self._scalar_check("int")
        return int(self.item())

    def __complex__(self):
        self._scalar_check("complex")
        return complex(self.item())

    def __index__(self):
        if self.dtype.category > 1 or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __getattr__(self, name):
        # Only reached when normal lookup fails: name PyTorch's Tensor attributes we lack.
        from .._missing import tensor_missing
        raise tensor_missing(type(self).__name__, name)

    def __hash__(self):
        return id(self)

    def __repr__(self, *, tensor_contents=None):
        from .printing import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec):
        if self.dim() == 0 and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, proto):
        from .._ops.creation import tensor_from_numpy_copy
        args = (np.asarray(self._value()), self.dtype.name, self._requires_grad)
        if type(self) is not Tensor:   # a subclass: rebuilt as one, its attributes restored
            from ..serialization._rebuild import _rebuild_from_type_v2
            return (_rebuild_from_type_v2, (tensor_from_numpy_copy, type(self), args,
                                            dict(self.__dict__)))
        return (tensor_from_numpy_copy, args)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        if not self.is_leaf:
            raise RuntimeError(_DEEPCOPY_NON_LEAF)
        new = self.clone().detach() if type(self) is Tensor else self._deepcopy_subclass(memo)
        if self._requires_grad:
            new.requires_grad_(True)
        new.__dict__.update({k: __import__("copy").deepcopy(v, memo)
                             for k, v in self.__dict__.items()})
        memo[id(self)] = new
        return new

    def _deepcopy_subclass(self, memo):
        # PyTorch's default: only a graph leaf, into what `new_empty` gives (dispatched), which
        # must be of this subclass
        if not self.is_leaf:
            raise RuntimeError(_DEEPCOPY_NON_LEAF)
        new = self.new_empty([])
        if type(new) is not type(self):
            raise RuntimeError(
                "The default implementation of __deepcopy__() for non-wrapper subclasses only "
                "works for subclass types that implement new_empty() and for which that "
                "function returns another instance of the same subclass. You should either "
                "properly implement new_empty() for your subclass or override __deepcopy__() if "
                "it is intended behavior for new_empty() to return an instance of a different "
                "type.")
        from ..overrides import DisableTorchFunction
        with DisableTorchFunction():
            _copy_fields(new, self.clone().detach())
        return new

    # ---- autograd fields (the engine lives in torchlike.autograd) ----------------------------

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        """Mirrors `Tensor.requires_grad_`."""
        if self.grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, g):
        self._grad = g

    @property
    def data(self):
        """Mirrors `Tensor.data`: same storage, no autograd history, its own version counter."""
        t = _alias(self, self._size, self._stride, self._offset)
        t._vc = [0]
        t._base = None
        return t

    @data.setter
    def data(self, other):
        self._st, self._size, self._stride, self._offset = (
            other._st, other._size, other._stride, other._offset)
        self._natural = other._natural
        self.dtype = other.dtype
        self._cache = None

    def detach(self):
        """Mirrors `Tensor.detach`: shares storage and version counter, no history."""
        t = _alias(self, self._size, self._stride, self._offset)
        return t

    def detach_(self):
        """Mirrors `Tensor.detach_`."""
        if self._base is not None and self.grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are "
                               "using DistributedDataParallel (DDP) for training, and "
                               "gradient_as_bucket_view is set as True, gradients are views of "
                               "DDP buckets, and hence detach_() cannot be called on these "
                               "gradients. To fix this error, please refer to the Optimizer."
                               "zero_grad() function in torch/optim/optimizer.py as the "
                               "solution.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    def as_subclass(self, cls):
        """Mirrors `Tensor.as_subclass`: a `cls` alias of this tensor (a view of it, which stays
        attached to the autograd graph: `AliasBackward0`)."""
        t = object.__new__(cls)
        _copy_fields(t, self)
        t._base = self._base if self._base is not None else self
        t._grad = t.grad_fn = None
        if self._requires_grad and _GRAD[0]:
            from ..autograd.function import record_view
            t._requires_grad = False
            record_view(self, t, "AliasBackward0")
        return t

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, *args, **kwargs):
        """Mirrors `Tensor._make_subclass`: a `cls` instance sharing `data`'s storage and
        version counter, detached from its history, requiring grad when `require_grad`."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                            "Tensor is not possible. Make sure your class inherits from Tensor.")
        if require_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t = object.__new__(cls)
        _copy_fields(t, _alias(data, data._size, data._stride, data._offset))
        t._requires_grad = bool(require_grad)
        return t


def _wrap_dim(dim, ndim):
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim + ndim if dim < 0 else dim


def _convert(ret, cls):
    """Tensor results as instances of `cls` (the default `__torch_function__`'s wrapping)."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        return type(ret)(*items) if hasattr(ret, "_fields") else type(ret)(items)
    return ret


_DTYPE_SLOT = Tensor.__dict__["dtype"]   # set through the slot: a subclass may make `dtype` a
# read-only property (torchvision's tv_tensors do)


def _copy_fields(t, src):
    t._st, t._size, t._stride, t._offset = src._st, src._size, src._stride, src._offset
    _DTYPE_SLOT.__set__(t, src.dtype)
    t._natural, t._vc, t._base = src._natural, src._vc, src._base
    t._requires_grad, t._grad, t.grad_fn = src._requires_grad, src._grad, src.grad_fn
    t._cache = t._cache_src = None
    t._meta = None


def _new(cls, st, size, stride, offset, vc, base):
    t = object.__new__(cls)
    t._st = st
    t._size = size
    t._stride = stride
    t._offset = offset
    t._natural = offset == 0 and size == st.shape and stride == layout.contiguous_strides(size)
    t.dtype = st.dtype
    t._vc = vc
    t._base = base
    t._requires_grad = False
    t._grad = None
    t.grad_fn = None
    t._cache = None
    t._cache_src = None
    t._meta = None
    return t


def wrap(array, device=CPU, dtype=None):
    """A new tensor owning a new storage holding `array` (its natural shape)."""
    if dtype is None:
        dtype = dt._BY_NP[array.dtype]
    size = tuple(array.shape)
    return fresh(array, device, dtype, size, layout.contiguous_strides(size), math.prod(size))


def fresh(array, device, dtype, size, stride, numel):
    """`wrap` for an `array` whose dtype, size, (contiguous) strides and element count are
    known."""
    st = _object_new(Storage)
    fill(st, array, dtype, device, size, numel)
    t = _object_new(Tensor)
    t._st = st
    t._size = size
    t._stride = stride
    t._offset = 0
    t._natural = True
    t.dtype = dtype
    t._vc = [0]
    t._base = None
    t._requires_grad = False
    t._grad = None
    t.grad_fn = None
    t._cache = None
    t._cache_src = None
    t._meta = None
    return t


def _alias(src, size, stride, offset):
    """A tensor sharing `src`'s storage and version counter with a new layout (no history)."""
    return _new(Tensor, src._st, tuple(size), tuple(stride), offset, src._vc,
                src._base if src._base is not None else src)


def make_view(src, size, stride, offset, name="AsStridedBackward0"):
    """A view of `src` (its `_base` is the root base), as PyTorch's view ops return; when `src`
    requires grad (and grad mode is on) the view gets node `name` of the autograd graph."""
    t = _alias(src, size, stride, offset)
    if src._requires_grad and _GRAD[0]:
        from ..autograd.function import record_view
        record_view(src, t, name)
    if _FWAD[0] and "_fw_tangent" in src.__dict__:
        from ..autograd.forward_ad import view_of
        view_of(src, t)
    return t


def _read(t):
    st = t._st
    if st._phys is not None:
        data = st.unpad()
        if t._natural:
            return data
    if st._np is not None and not st.reclaim():
        item = t.dtype.itemsize
        from .device import put
        return put(layout.host_strided(
            st._np[t._offset:], t._size, tuple(s * item for s in t._stride)))
    data = st._data
    if t._cache_src is data:
        return t._cache
    v = layout.reader(t._size, t._stride)(data, t._offset)
    t._cache = v
    t._cache_src = data
    return v


_CASTS = {}


def _cast_jit(npd):
    """A cached jitted PyTorch-semantics cast to NumPy dtype `npd`."""
    f = _CASTS.get(npd)
    if f is None:
        from .casting import cast
        from . import programs
        f = _CASTS[npd] = programs.jit(lambda a: cast(a, npd), ("tensor.cast", npd))
    return f


def _write(t, v, uniform=False):
    if not uniform and layout.has_internal_overlap(t._size, t._stride):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    st = t._st
    if st._phys is not None:
        st.unpad()
    if st._np is not None and not st.reclaim():
        item = t.dtype.itemsize
        dst = layout.host_strided(st._np[t._offset:], t._size,
                                              tuple(s * item for s in t._stride))
        np.copyto(dst, np.broadcast_to(np.asarray(_cast_jit(t.dtype.np)(v)), t._size))
        return
    st._data = layout.writer(t._size, t._stride)(st._data, t._offset, v)
