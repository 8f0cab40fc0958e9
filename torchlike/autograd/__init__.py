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
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs")
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _tensors(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Mirrors `torch.autograd.grad`."""
    outputs = _tensors(outputs)
    single = isinstance(inputs, Tensor)
    inputs = _tensors(inputs)
    grads = _tensors(grad_outputs) if grad_outputs is not None else [None] * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output (got {len(grads)} and "
                           f"{len(outputs)})")
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    res = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs,
                       accumulate=False, allow_unused=allow_unused)
    if materialize_grads:
        from .. import zeros_like
        res = [zeros_like(t) if g is None else g for g, t in zip(res, inputs)]
    return tuple(res)


class Variable:
    """Mirrors the legacy `torch.autograd.Variable(t, requires_grad=False, volatile=False)`:
    returns a Tensor (Variables and Tensors merged in PyTorch 0.4)."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        import warnings
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():`"
                          " instead.", UserWarning, stacklevel=2)
        if data is None:
            from .. import tensor
            return tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        t = data.detach()
        if requires_grad:
            t.requires_grad_(True)
        return t


_tensor_methods.install()
