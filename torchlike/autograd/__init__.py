"""Mirrors `torch.autograd`: a dynamic graph recorded by the dispatcher, backward on cached
jitted JAX vjps."""
from .._core.tensor import Tensor
from . import graph  # noqa: F401
from . import tensor_methods as _tensor_methods
from .engine import run_backward
from .function import Function, FunctionCtx, InplaceFunction, NestedIOFunction, once_differentiable  # noqa: F401
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                        is_inference_mode_enabled, no_grad, set_grad_enabled)


def _tensors(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Mirrors `torch.autograd.backward`."""
    tensors = _tensors(tensors)
    if grad_variables is not None:
        grad_tensors = grad_variables
    grads = _tensors(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _tensors(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Mirrors `torch.autograd.grad`."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads="
                         "True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _tensors(outputs)
    inputs = _tensors(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _tensors(grad_outputs) if grad_outputs is not None else [None] * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grads, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    res = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs,
                       accumulate=False, allow_unused=True)
    for j, g in enumerate(res):
        if g is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {j} appears to not have been "
                               "used in the graph. Set allow_unused=True if this is the desired "
                               "behavior.")
    if materialize_grads:
        from .. import zeros_like
        res = [zeros_like(t) if g is None else g for g, t in zip(res, inputs)]
    return tuple(res)


def _batched_grad(outputs, inputs, grads, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """`is_grads_batched=True`: one backward per slice of the grad_outputs' first dimension."""
    from .. import stack, zeros_like
    n = None
    for g in grads:
        if g is not None:
            n = g.shape[0]
    per = []
    for b in range(n):
        gs = [None if g is None else g[b] for g in grads]
        per.append(grad(outputs, inputs, gs, retain_graph=True if b < n - 1 else retain_graph,
                        create_graph=create_graph, allow_unused=allow_unused,
                        materialize_grads=materialize_grads))
    out = []
    for j, t in enumerate(inputs):
        col = [p[j] for p in per]
        if all(c is None for c in col):
            out.append(None)
        else:
            out.append(stack([zeros_like(t) if c is None else c for c in col]))
    return tuple(out)


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Mirrors the legacy `torch.autograd.Variable(data, requires_grad=False, volatile=False)`:
    returns a Tensor (Variables and Tensors merged in PyTorch 0.4) sharing `data`'s storage,
    detached from its history."""

    def __new__(cls, data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None):
        import warnings
        if volatile and requires_grad:
            raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():`"
                          " instead.", UserWarning, stacklevel=2)
        if data is None:
            from .. import empty
            t = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        else:
            t = data.detach()
        if requires_grad:
            if not (t.dtype.is_floating_point or t.dtype.is_complex):
                raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                                   "gradients")
            t._requires_grad = True
        return t


Variable.__module__ = "torch.autograd.variable"

from . import functional  # noqa: E402,F401
from . import forward_ad  # noqa: E402,F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402,F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: E402,F401
from .grad_mode import (is_multithreading_enabled, set_multithreading_enabled,  # noqa: E402,F401
                        _force_original_view_tracking, _unsafe_preserve_version_counter)
from . import variable  # noqa: E402,F401
from . import function  # noqa: E402,F401
from . import grad_mode  # noqa: E402,F401


def is_view_replay_enabled():
    return False


_tensor_methods.install()
