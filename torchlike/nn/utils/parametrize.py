"""Mirrors `torch.nn.utils.parametrize`: a module's parameter (or buffer) replaced by the output
of a chain of parametrization modules applied to stored originals.

Registering the first parametrization swaps the module's class for a subclass named
`Parametrized<Class>` whose property `<name>` computes the chain; the originals live in
`module.parametrizations[<name>]` (`original`, or `original0`, `original1`, ... when the
first parametrization's `right_inverse` returns several tensors)."""
import contextlib

from ..._core.tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = [0]
_cache = {}


@contextlib.contextmanager
def cached():
    """Mirrors `parametrize.cached`: inside, each parametrized tensor is computed once."""
    _cache_enabled[0] += 1
    try:
        yield
    finally:
        _cache_enabled[0] -= 1
        if not _cache_enabled[0]:
            _cache.clear()


class ParametrizationList(ModuleList):
    """Mirrors `parametrize.ParametrizationList`: the chain for one tensor, and its originals."""

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new is not original:
                with no_grad():
                    original.data = new.detach()
            self._register_original("original", original)
        else:
            for i, t in enumerate(new):
                self._register_original(f"original{i}", Parameter(t.detach(),
                                                                  original.requires_grad)
                                        if isinstance(original, Parameter) else t.detach())

    def _register_original(self, name, t):
        if isinstance(t, Parameter):
            self.register_parameter(name, t)
        else:
            self.register_buffer(name, t)

    def right_inverse(self, value):
        """Set the originals from a new value of the parametrized tensor."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
            if self.is_tensor:
                self.original.data = value.detach()
            else:
                for i, t in enumerate(value):
                    getattr(self, f"original{i}").data = t.detach()

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module):
    cls = module.__class__
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})


def _inject_property(module, tensor_name):
    def get_parametrized(self):
        chain = self.parametrizations[tensor_name]
        if not _cache_enabled[0]:
            return chain()
        key = (id(self), tensor_name)
        t = _cache.get(key)
        if t is None:
            t = _cache[key] = chain()
        return t

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Mirrors `parametrize.register_parametrization`."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        module.parametrizations[tensor_name].append(parametrization)
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        module.parametrizations[tensor_name] = chain
        _inject_property(module, tensor_name)
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Mirrors `parametrize.is_parametrized`."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Mirrors `parametrize.remove_parametrizations`."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                original.data = getattr(module, tensor_name).detach()
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        first = chain.original0
        original = Parameter(t.detach(), first.requires_grad) if isinstance(first, Parameter) \
            else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """Mirrors `parametrize.type_before_parametrizations`."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Mirrors `parametrize.transfer_parametrizations_and_params` (a parametrized tensor's
    chain is registered again on `to_module`, with `from_module`'s originals)."""
    names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations)
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name).detach()))
        for p in from_module.parametrizations[name]:
            register_parametrization(to_module, name, p)
        src, dst = from_module.parametrizations[name], to_module.parametrizations[name]
        with no_grad():
            for n, t in list(src.named_parameters(recurse=False)) + \
                    list(src.named_buffers(recurse=False)):
                getattr(dst, n).data = t.detach().clone()
    return to_module
