"""Mirrors `torch._dynamo._trace_wrapped_higher_order_op.TransformGetItemToIndex`: a
`TorchFunctionMode` that, in PyTorch, rewrites `tensor[index_tensors]` into an indexing op
that `vmap` can trace. torchlike's `vmap` traces indexing as it is, so the mode runs every call
unchanged."""
from ..overrides import TorchFunctionMode


class TransformGetItemToIndex(TorchFunctionMode):
    """Mirrors `TransformGetItemToIndex` (see the module docstring)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
