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


_CPP_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
             "bool": "bool", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>", "uint16": "unsigned short",
             "uint32": "unsigned int", "uint64": "unsigned long"}
_SCALAR_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32",
                "uint64": "UInt64"}

_NONLEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If "
    "you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. "
    "See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")


def _get_grad(self):
    if self.grad_fn is not None and not retains_grad(self):
        warnings.warn(_NONLEAF_GRAD, UserWarning, stacklevel=2)
    return self._grad


def _set_grad(self, g):
    if g is not None:
        if not isinstance(g, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(g).__name__}")
        if g.dtype is not self.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{_CPP_TYPE.get(g.dtype.name)}' to "
                f"a tensor with grad_dtype '{_SCALAR_TYPE.get(self.dtype.name)}'. The gradient "
                "must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set "
                "the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                "gradient may break downstream systems that assume they match.")
        if g.device.type != self.device.type:
            raise RuntimeError(
                f"attempting to assign a gradient with device type '{g.device.type}' to a tensor "
                f"with device type '{self.device.type}'. Please ensure that the gradient and the "
                "tensor are on the same device")
        if g._size != self._size:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(g._size)}' to a tensor of size "
                f"'{list(self._size)}'. Please ensure that the gradient and the tensor are the "
                "same size")
    self._grad = g


def _leaf_error(requires_grad):
    msg = "you can only change requires_grad flags of leaf variables."
    if not requires_grad:
        msg += (" If you want to use a computed variable in a subgraph that doesn't require "
                "differentiation use var_no_grad = var.detach().")
    return RuntimeError(msg)


def _get_requires_grad(self):
    return self._requires_grad


def _set_requires_grad(self, flag):
    """The `requires_grad` setter (PyTorch's messages differ from `requires_grad_`'s)."""
    if not isinstance(flag, bool):
        raise TypeError("requires_grad must be a bool")
    if self.grad_fn is not None:
        raise _leaf_error(flag)
    if flag and not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError("only Tensors of floating point and complex dtype can require "
                           "gradients")
    if flag:
        self._st.unpad()   # a leaf's gradient is accumulated in its real shape
    self._requires_grad = flag


def requires_grad_(self, requires_grad=True):
    """Mirrors `Tensor.requires_grad_`."""
    requires_grad = bool(requires_grad)
    if self.grad_fn is not None:
        if not requires_grad:
            raise _leaf_error(False)
        return self
    if requires_grad and not self.dtype.is_floating_point and not self.dtype.is_complex:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if requires_grad:
        self._st.unpad()
    self._requires_grad = requires_grad
    return self


_DETACH_VIEW = ("Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the Optimizer."
                "zero_grad() function in torch/optim/optimizer.py as the solution.")


def detach_(self):
    """Mirrors `Tensor.detach_`: views cannot be detached in place."""
    if self._base is not None:
        raise RuntimeError(_DETACH_VIEW)
    self.grad_fn = None
    self._requires_grad = False
    return self


def _get_volatile(self):
    """The pre-0.4 `volatile` flag: always False now, with PyTorch's warning."""
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


def _set_volatile(self, value):
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                  "instead.", UserWarning, stacklevel=2)


def install():
    Tensor.backward = backward
    Tensor.register_hook = register_hook
    Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
    Tensor.retain_grad = retain_grad
    Tensor.retains_grad = property(retains_grad)
    Tensor.output_nr = property(output_nr)
    Tensor.grad = property(_get_grad, _set_grad)
    Tensor.requires_grad = property(_get_requires_grad, _set_requires_grad)
    Tensor.volatile = property(_get_volatile, _set_volatile)
    Tensor.requires_grad_ = requires_grad_
    Tensor.detach_ = detach_
