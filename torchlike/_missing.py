"""What torchlike lacks, said plainly: `torch.X` that real PyTorch has and torchlike does not
raises `NotAvailable` ("torch.fft.rfft2 is not available in torchlike yet"), a typo raises
PyTorch's own AttributeError. The table of PyTorch's public names (`_torch_names.json`) is data
generated from real PyTorch by `compat_tests/torch_names.py`; torchlike never imports torch."""
import functools
import importlib
import json
import os
import sys
import types


class NotAvailable(NotImplementedError, AttributeError):
    """A PyTorch feature torchlike does not have yet. Also an AttributeError, so `hasattr(torch,
    name)` and `getattr(torch, name, default)` degrade as if the name were absent."""


@functools.lru_cache(maxsize=None)
def torch_table():
    """{torch module name: its public names}, as real PyTorch 2.13 has them."""
    with open(os.path.join(os.path.dirname(__file__), "_torch_names.json")) as f:
        return {k: frozenset(v) for k, v in json.load(f).items()}


def torchlike_name(torch_name):
    return "torchlike" + torch_name[len("torch"):]


def torch_name(module_name):
    return "torch" + module_name[len("torchlike"):]


def missing(owner, name):
    """The exception for attribute `name` of the torch module `owner` (e.g. 'torch.fft')."""
    if name in torch_table().get(owner, ()) or f"{owner}.{name}" in torch_table():
        return NotAvailable(f"{owner}.{name} is not available in torchlike yet")
    return AttributeError(f"module '{owner}' has no attribute '{name}'")


def tensor_missing(cls_name, name):
    """The exception for a missing attribute `name` of a tensor of class `cls_name`."""
    if name in torch_table().get("torch.Tensor", ()):
        return NotAvailable(f"torch.Tensor.{name} is not available in torchlike yet")
    return AttributeError(f"'{cls_name}' object has no attribute '{name}'")


class _StubModule(types.ModuleType):
    """Calling it raises `NotAvailable` too: some torch names are both a module and the function
    that shadows it as an attribute (`torch.nn.utils.weight_norm`)."""

    def __call__(self, *args, **kwargs):
        raise NotAvailable(f"{torch_name(self.__name__)} is not available in torchlike yet")


def stub_module(torch_mod):
    """A stand-in for a torch module torchlike lacks: any attribute raises `NotAvailable`. It is
    registered under its torchlike name, so `from torch.x import name` (which imports
    `<module __name__>.name` when the attribute is missing) ends in the ImportError Python gives
    for a missing name rather than a ModuleNotFoundError for the stub itself."""
    mod = sys.modules.get(torchlike_name(torch_mod))
    if isinstance(mod, _StubModule):
        return mod
    mod = _StubModule(torchlike_name(torch_mod))
    mod.__path__ = []

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotAvailable(f"{torch_mod}.{name} is not available in torchlike yet")
    mod.__getattr__ = __getattr__
    sys.modules[mod.__name__] = mod
    return mod


def import_torchlike(torch_mod):
    """Import the torchlike module mirroring `torch_mod`, with `install` on it (and on the
    torchlike modules it imported) since it may be imported after `import torchlike`."""
    mod = importlib.import_module(torchlike_name(torch_mod))
    install_all()
    return mod


def install(module):
    """Gives torchlike module `module` a PEP 562 `__getattr__` that explains missing torch names
    and resolves torch submodules (importing the torchlike one, else a stub)."""
    if "__getattr__" in module.__dict__:
        return
    owner = torch_name(module.__name__)

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(f"module '{owner}' has no attribute '{name}'")
        sub = f"{owner}.{name}"
        if sub in torch_table():
            try:
                mod = import_torchlike(sub)
            except ModuleNotFoundError:
                mod = stub_module(sub)
            setattr(module, name, mod)
            return mod
        raise missing(owner, name)
    module.__getattr__ = __getattr__


def install_all():
    """`install` on every imported torchlike module that mirrors a torch module."""
    table = torch_table()
    for name, mod in list(sys.modules.items()):
        if name.startswith("torchlike") and mod is not None and torch_name(name) in table:
            install(mod)
