"""Mirrors `torch.nn.modules.lazy.LazyModuleMixin`: modules whose parameter shapes are inferred
from the first input."""
import itertools

from ..parameter import is_lazy

__all__ = []


class LazyModuleMixin:
    """Mirrors `torch.nn.modules.lazy.LazyModuleMixin`.

    Until the first forward the module holds `UninitializedParameter` / `UninitializedBuffer`
    placeholders. A forward pre-hook calls `initialize_parameters(*args, **kwargs)` on the first
    call, removes itself and the load hook, and switches the instance's class to
    `cls_to_become` (e.g. `LazyConv2d` becomes `Conv2d`). A state dict holding initialized
    tensors can be loaded into a lazy module (the placeholders are materialised to the loaded
    shapes first)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                if not (is_lazy(param) or keep_vars):
                    param = param.detach()
                destination[prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                if not (is_lazy(buf) or keep_vars):
                    buf = buf.detach()
                destination[prefix + name] = buf

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        from ...autograd.grad_mode import no_grad
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # PyTorch skips the shape checks (and copies nothing) where both the module's entry
        # and the loaded one are still placeholders; hide those entries from the generic loader
        self._lazy_load_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                             unexpected_keys, error_msgs)
        skip = {name for name, t in itertools.chain(self._parameters.items(),
                                                    self._buffers.items())
                if is_lazy(t) and is_lazy(state_dict.get(prefix + name))}
        if not skip:
            return super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                                 missing_keys, unexpected_keys, error_msgs)
        saved = {"_parameters": dict(self._parameters), "_buffers": dict(self._buffers)}
        for d in saved:
            for name in skip:
                self.__dict__[d].pop(name, None)
        try:
            super()._load_from_state_dict(
                {k: v for k, v in state_dict.items() if k[len(prefix):] not in skip
                 or not k.startswith(prefix)}, prefix, local_metadata, strict, missing_keys,
                unexpected_keys, error_msgs)
        finally:
            for d, old in saved.items():
                cur = self.__dict__[d]
                merged = {k: (old[k] if k in skip else cur.get(k, old[k])) for k in old}
                cur.clear()
                cur.update(merged)

    def _apply(self, fn, recurse=True):
        # placeholders keep being placeholders under .to()/.double()/...: only their dtype and
        # device change (PyTorch keeps the subclass through its __torch_function__)
        lazy = {k: b for k, b in self._buffers.items() if is_lazy(b)}
        out = super()._apply(fn, recurse)
        for k, b in lazy.items():
            new = self._buffers[k]
            if new is not b and not is_lazy(new):
                b.data = new
                self._buffers[k] = b
        return out

    def initialize_parameters(self, *args, **kwargs):
        """Initialize parameters according to the input batch properties."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Check if a module has parameters that are not initialized."""
        for param in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(param):
                return True
        return False

    def _infer_parameters(self, module, args, kwargs=None):
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize the "
                           "modules")
