"""Mirrors the few names of `torch._C` (PyTorch's C++ extension module) that libraries read
from Python: dispatch keys and key sets, the guards around them, tracing state and
`DisableTorchFunctionSubclass`. torchlike has no C++ dispatcher; these keep PyTorch's Python
behaviour where it is observable (tracing is never active, guards are context managers)."""
import enum

from . import library as _library


_BACKENDS = ("CPU CUDA HIP XLA MPS IPU XPU HPU VE Lazy MTIA MAIA PrivateUse1 PrivateUse2 "
             "PrivateUse3 Meta").split()
_KEYS = ("Undefined CompositeExplicitAutogradNonFunctional CompositeExplicitAutograd "
         "CompositeImplicitAutogradNestedTensor CompositeImplicitAutograd AutogradNestedTensor "
         "AutogradOther Autograd Conjugate ZeroTensor Negative BackendSelect ADInplaceOrView "
         "PythonTLSSnapshot Python FuncTorchDynamicLayerFrontMode FuncTorchDynamicLayerBackMode "
         "FuncTorchBatchedDecomposition FuncTorchBatched FuncTorchVmapMode FuncTorchGradWrapper "
         "PythonDispatcher PreDispatch Functionalize AutocastCPU AutocastMPS AutocastXPU "
         "AutocastHPU AutocastIPU AutocastCUDA AutocastPrivateUse1").split()
for _kind in ("Dense", "Quantized", "Sparse", "SparseCsr", "NestedTensor",
              "AutogradFunctionality"):
    _prefix = {"Dense": "", "AutogradFunctionality": "Autograd"}.get(_kind, _kind)
    _KEYS += [_kind, f"StartOf{_kind}Backends"] + [_prefix + b for b in _BACKENDS] + [
        f"EndOf{_kind}Backends"]
DispatchKey = enum.Enum("DispatchKey", _KEYS, start=0)
DispatchKey.__doc__ = "Mirrors `torch._C.DispatchKey` (PyTorch's key names)."
DispatchKey.__module__ = "torch._C"


class DispatchKeySet:
    """Mirrors `torch._C.DispatchKeySet`: a set of dispatch keys."""

    def __init__(self, *keys):
        self._keys = frozenset(k for k in keys if k is not None and k != DispatchKey.Undefined)

    def __or__(self, other):
        return DispatchKeySet(*(self._keys | other._keys))

    def __sub__(self, other):
        return DispatchKeySet(*(self._keys - other._keys))

    def __and__(self, other):
        return DispatchKeySet(*(self._keys & other._keys))

    def __eq__(self, other):
        return isinstance(other, DispatchKeySet) and self._keys == other._keys

    def __hash__(self):
        return hash(self._keys)

    def has(self, key):
        return key in self._keys

    def add(self, key):
        return DispatchKeySet(*(self._keys | {key}))

    def remove(self, key):
        return DispatchKeySet(*(self._keys - {key}))

    def highestPriorityTypeId(self):  # noqa: N802 - PyTorch's name
        return max(self._keys, key=lambda k: k.value, default=DispatchKey.Undefined)

    def __repr__(self):
        return "DispatchKeySet(" + ", ".join(sorted(k.name for k in self._keys)) + ")"


_after_autograd_keyset = DispatchKeySet()
_after_ADInplaceOrView_keyset = DispatchKeySet()


class _Guard:
    """A context manager that changes nothing (torchlike has no dispatch keys to exclude)."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_ExcludeDispatchKeyGuard = _IncludeDispatchKeyGuard = _Guard
_AutoDispatchBelowAutograd = _AutoDispatchBelowADInplaceOrView = _library._BelowAutograd
_DisableTorchDispatch = _DisableFuncTorch = _Guard


from .overrides import (  # noqa: E402,F401 - the protocol's switches live there
    DisableTorchFunction, DisableTorchFunctionSubclass, _disabled_torch_function_impl,
    _get_function_stack_at, _is_torch_function_mode_enabled, _len_torch_function_stack,
    _pop_torch_function_stack, _push_on_torch_function_stack)


def _has_torch_function(args):
    from .overrides import has_torch_function
    return has_torch_function(args)


class _TracingState:
    """What `_get_tracing_state()` gives while a `torch.jit.trace`d callable runs."""


def _get_tracing_state():
    """Mirrors `torch._C._get_tracing_state`: None, except while a `torch.jit.trace`d callable
    runs (see torchlike/jit)."""
    from .jit import is_tracing
    return _TracingState() if is_tracing() else None


def _is_tracing():
    """Mirrors `torch._C._is_tracing`."""
    from .jit import is_tracing
    return is_tracing()


def _dispatch_has_kernel_for_dispatch_key(name, dispatch):
    """Mirrors `torch._C._dispatch_has_kernel_for_dispatch_key` for operators defined through
    `torch.library`."""
    ns, _, rest = name.partition("::")
    op_name, _, overload = rest.partition(".")
    op = _library._OPS.get((ns, op_name, overload or "default"))
    if op is None:
        return False
    key = dispatch.name if isinstance(dispatch, DispatchKey) else str(dispatch)
    return key in op.keys()


def _dispatch_has_kernel(name):
    """Mirrors `torch._C._dispatch_has_kernel`."""
    ns, _, rest = name.partition("::")
    op_name, _, overload = rest.partition(".")
    return (ns, op_name, overload or "default") in _library._OPS


def _get_cudnn_enabled():
    from .backends import cudnn
    return cudnn.enabled


def _is_torch_function_enabled():
    from .overrides import _ALL_OFF
    return not _ALL_OFF[0]


def _log_api_usage_once(event):
    """Mirrors `torch._C._log_api_usage_once` (PyTorch's usage logging, off by default)."""


class _autograd:  # noqa: N801 - PyTorch's submodule name
    """Mirrors `torch._C._autograd`: `SavedTensor` (what `grad_fn._raw_saved_<name>` gives)."""
    from .autograd.saved_tensors import SavedTensor
