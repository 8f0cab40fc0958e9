"""Autograd methods of `Tensor`: `backward`, `register_hook`, `retain_grad`, `retains_grad`,
`register_post_accumulate_grad_hook`, `output_nr`, and the `.grad` checks."""
import warnings

from .._core.tensor import Tensor
from .graph import RemovableHandle, TensorMeta, _HookDict, accumulate_node


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Mirrors `Tensor.backward`."""
    from . import backward as _backward
    _backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _meta(t):
    if t._meta is None:
        t._meta = TensorMeta()
    return t._meta


def register_hook(self, hook):
    """Mirrors `Tensor.register_hook`: `hook(grad)` may return a replacement gradient."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        return self.grad_fn._register_tensor_prehook(_meta(self).output_nr, hook)
    meta = _meta(self)
    accumulate_node(self)
    if meta.hooks is None:
        meta.hooks = _HookDict()
    h = RemovableHandle(meta.hooks)
    meta.hooks[h.id] = hook
    return h


def register_post_accumulate_grad_hook(self, hook):
    """Mirrors `Tensor.register_post_accumulate_grad_hook` (leaves only)."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    meta = _meta(self)
    if meta.post_acc_hooks is None:
        meta.post_acc_hooks = _HookDict()
    h = RemovableHandle(meta.post_acc_hooks)
    meta.post_acc_hooks[h.id] = hook
    return h


def retain_grad(self):
    """Mirrors `Tensor.retain_grad`: a non-leaf keeps its `.grad` after backward."""
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.grad_fn is None:
        return
    meta = _meta(self)
    if meta.retains_grad:
        return
    meta.retains_grad = True

    def keep(grad):
        if self._grad is None:
            self._grad = grad.detach().clone() if not grad.requires_grad else grad
        else:
            self._grad = self._grad + grad
        return None
    self.grad_fn._register_tensor_prehook(meta.output_nr, keep)


def retains_grad(self):
    meta = self._meta
    return bool(meta is not None and meta.retains_grad)


def output_nr(self):
    meta = self._meta
    return meta.output_nr if meta is not None else 0


def _get_grad(self):
    if self.grad_fn is not None and not retains_grad(self):
        warnings.warn(
            "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
            ".grad attribute won't be populated during autograd.backward(). If you indeed want "
            "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
            "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
            "the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
            "informations. (Triggered internally at "
            "/pytorch/build/aten/src/ATen/core/TensorBody.h:489.)", UserWarning, stacklevel=2)
    return self._grad


def _set_grad(self, g):
    if g is not None:
        if not isinstance(g, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(g).__name__}")
        if g.dtype is not self.dtype:
            raise RuntimeError("assigned grad has data of a different type")
        if g.device != self.device:
            raise RuntimeError("assigned grad has data located on a different device")
        if g._size != self._size:
            raise RuntimeError("assigned grad has data of a different size")
    self._grad = g


def install():
    Tensor.backward = backward
    Tensor.register_hook = register_hook
    Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
    Tensor.retain_grad = retain_grad
    Tensor.retains_grad = property(retains_grad)
    Tensor.output_nr = property(output_nr)
    Tensor.grad = property(_get_grad, _set_grad)
