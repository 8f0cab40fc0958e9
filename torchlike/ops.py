"""Mirrors `torch.ops`: `torch.ops.<namespace>.<op>[.<overload>]` for operators defined with
`torch.library`, and `torch.ops.aten.<op>` for torchlike's own functions. A PyTorch C++
extension is compiled against libtorch and cannot run under torchlike: `load_library` registers
torchlike's own kernels for the extensions it knows (torchvision's `_C`, see
`torchlike/_extensions`) and raises `OSError`, as PyTorch does for a library it cannot load,
for any other, so libraries fall back to their Python paths."""
import importlib

from . import library as _library

loaded_libraries = set()


def load_library(path):
    """Mirrors `torch.ops.load_library` (see the module docstring)."""
    from ._extensions import stand_in
    register = stand_in(path)
    if register is None:
        raise OSError(f"Could not load this library: {path} (a PyTorch C++ extension; "
                      "torchlike runs without libtorch)")
    register()
    loaded_libraries.add(path)


def import_module(module):
    """Mirrors `torch.ops.import_module`."""
    importlib.import_module(module)


class OpOverload:
    """Mirrors `torch._ops.OpOverload`: one overload of an operator."""

    def __init__(self, packet, overload):
        self._packet, self._overloadname = packet, overload
        self.__name__ = f"{packet.__name__}.{overload}"

    def __repr__(self):
        return f"{self._packet._ns}.{self._packet.__name__}.{self._overloadname}"

    def name(self):
        return f"{self._packet._ns}::{self._packet.__name__}.{self._overloadname}"

    def __call__(self, *args, **kwargs):
        return self._packet._target(self._overloadname)(*args, **kwargs)


class OpOverloadPacket:
    """Mirrors `torch._ops.OpOverloadPacket`: an operator with its overloads."""

    def __init__(self, ns, name, target):
        self._ns, self.__name__, self._qualified_op_name = ns, name, f"{ns}::{name}"
        self._targets = target

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self.__name__}')>"

    def _target(self, overload):
        return self._targets(overload)

    def overloads(self):
        return [o for (ns, n, o) in _library._OPS if ns == self._ns and n == self.__name__] \
            or ["default"]

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        if self._ns != "aten" and overload not in self.overloads():
            raise AttributeError(f"The underlying op of '{self._ns}.{self.__name__}' has no "
                                 f"overload name '{overload}'")
        return OpOverload(self, overload)

    def __call__(self, *args, **kwargs):
        return self._target("default")(*args, **kwargs)


def _aten(name):
    """torchlike's function for aten op `name` (an in-place `name_` as the Tensor method)."""
    import torchlike
    fn = getattr(torchlike, name, None)
    if callable(fn):
        return fn
    fn = getattr(torchlike.nn.functional, name, None)
    if callable(fn):
        return fn
    method = getattr(torchlike.Tensor, name, None)
    if callable(method):
        return method
    return None


class _OpNamespace:
    """Mirrors `torch._ops._OpNamespace`."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<module 'torch.ops.{self.name}' from 'torch.ops'>"

    def __getattr__(self, op):
        if op.startswith("__"):
            raise AttributeError(op)
        ns = self.name
        if any(k[0] == ns and k[1] == op for k in _library._OPS):
            packet = OpOverloadPacket(ns, op, lambda o: _library._OPS[(ns, op, o)])
        elif ns == "aten" and _aten(op) is not None:
            fn = _aten(op)
            packet = OpOverloadPacket(ns, op, lambda o: fn)
        else:
            raise AttributeError(f"'_OpNamespace' '{ns}' object has no attribute '{op}'")
        return packet


_NAMESPACES = {}


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module 'torch.ops' has no attribute '{name}'")
    ns = _NAMESPACES.get(name)
    if ns is None:
        ns = _NAMESPACES[name] = _OpNamespace(name)
    return ns
