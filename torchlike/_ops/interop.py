"""JAX interop: `torchlike.from_jax(array)` and `Tensor.jax()`, both without copies.

The same Tensor code runs when storages hold JAX tracers, so a function written against
torchlike can be wrapped in `jax.jit` by going through these two."""
import ctypes
import enum
import functools

import jax
import jax.dlpack
import numpy as np

from .._core import dtype as dt
from .._core.device import CPU
from .._core.tensor import Tensor, wrap
from .registry import function


def _torch_device(array):
    try:
        (d,) = array.devices()
    except (AttributeError, ValueError, jax.errors.ConcretizationTypeError):
        return CPU
    from .._core.device import of_jax_device
    return of_jax_device(d)


@function(method=False)
def from_jax(array):
    """A tensor over a JAX array (or tracer), sharing it: no copy."""
    return wrap(array, _torch_device(array) if isinstance(array, jax.Array) and
                not isinstance(array, jax.core.Tracer) else CPU, dt._BY_NP[array.dtype])


def jax_(self):
    """This tensor's elements as a JAX array (the storage buffer itself when it covers it)."""
    return self._value()


Tensor.jax = jax_


# ---- DLPack -----------------------------------------------------------------------------------

class DLDeviceType(enum.IntEnum):
    """Mirrors `torch.utils.dlpack.DLDeviceType`."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def _export(t, kwargs):
    """The DLPack capsule of tensor `t`. A CPU tensor is exported through its storage shared
    with NumPy, so the consumer sees later in-place writes (as with PyTorch)."""
    if t._st.device.type == "cpu" and t.dtype is not dt.bfloat16:
        return t.detach().numpy().__dlpack__(**kwargs)
    return t._value().__dlpack__(**kwargs)


def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
    """Mirrors `Tensor.__dlpack__`."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    kwargs = {} if max_version is None else {"max_version": max_version}
    if copy is not None:
        kwargs["copy"] = copy
    return _export(self, kwargs)


def __dlpack_device__(self):
    """Mirrors `Tensor.__dlpack_device__`: `(DLDeviceType, index)`."""
    d = self._st.device
    if d.type == "cpu":
        return DLDeviceType.kDLCPU, 0
    return DLDeviceType.kDLCUDA, d.index or 0


Tensor.__dlpack__ = __dlpack__
Tensor.__dlpack_device__ = __dlpack_device__

_INVALID_CAPSULE = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
                    "consumed only once, so you might have already constructed a tensor from it "
                    "once.")


class _Capsule:
    """A DLPack capsule dressed as a producer (what NumPy's and JAX's `from_dlpack` take)."""

    def __init__(self, capsule):
        api = ctypes.pythonapi
        api.PyCapsule_IsValid.restype = ctypes.c_int
        api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
        api.PyCapsule_GetPointer.restype = ctypes.c_void_p
        api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        for name, offset in ((b"dltensor", 8), (b"dltensor_versioned", 40)):
            if api.PyCapsule_IsValid(capsule, name):
                # DLManagedTensor starts with its DLTensor {void *data; DLDevice device; ...};
                # the versioned one has version, manager_ctx, deleter and flags before it
                ptr = api.PyCapsule_GetPointer(capsule, name)
                kind, index = (ctypes.c_int32 * 2).from_address(ptr + offset)
                self.device = (kind, index)
                self.capsule = capsule
                return
        raise RuntimeError(_INVALID_CAPSULE)

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


class _Writable:
    """A writable view of a NumPy array over a legacy capsule (NumPy marks those read-only;
    PyTorch shares them writable). Holds the array, which holds the capsule."""

    def __init__(self, a):
        iface = dict(a.__array_interface__)
        iface["data"] = (iface["data"][0], False)
        self.__array_interface__ = iface
        self._base = a


@function(method=False)
def from_dlpack(ext_tensor, *, device=None, copy=None):
    """Mirrors `torch.from_dlpack`: a tensor sharing the producer's memory. A CPU producer is
    taken through NumPy, so writes on either side are seen on the other, as in PyTorch; other
    devices (and bfloat16) go through `jax.dlpack.from_dlpack`."""
    if type(ext_tensor).__name__ == "PyCapsule":
        ext_tensor = _Capsule(ext_tensor)
    elif not hasattr(ext_tensor, "__dlpack__"):
        raise RuntimeError(_INVALID_CAPSULE)
    kind, _ = ext_tensor.__dlpack_device__()
    t = None
    if int(kind) == DLDeviceType.kDLCPU:
        try:
            a = np.from_dlpack(ext_tensor)
        except (BufferError, TypeError, RuntimeError):
            a = None
        if a is not None:
            if copy:
                a = np.array(a)
            elif not a.flags.writeable:
                a = np.asarray(_Writable(a))
            from .creation import from_numpy
            t = from_numpy(a)
    if t is None:
        t = from_jax(jax.dlpack.from_dlpack(ext_tensor))
    if device is not None:
        t = t.to(device)
    return t


# ---- JAX functions inside torchlike's autograd ------------------------------------------------

class JaxFunction:
    """A JAX function applied to tensors: one autograd node whose backward is `jax.vjp` of the
    function (jitted once per shapes), so it composes with `.backward()` and, through the
    recorded backward, with `create_graph=True`."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self._jit = jax.jit(fn)
        self._single = True

    def _call(self, *arrays):
        out = self._jit(*arrays)
        self._single = not isinstance(out, (tuple, list))
        return out

    def __call__(self, *args):
        from ..autograd.function import apply_jax
        outs = apply_jax(self._call, list(args), name="JaxFunctionBackward0")
        return outs[0] if self._single else outs


@function(method=False)
def from_jax_function(fn):
    """A callable on tensors running JAX function `fn` (arrays in, an array or a tuple of
    arrays out) as one differentiable op. torchlike-only (no PyTorch counterpart)."""
    return JaxFunction(fn)
