"""Mirrors `torch.ops`: `torch.ops.<namespace>.<op>[.<overload>]` for operators defined with
`torch.library` (see `torchlike/library.py` for how a call runs), and `torch.ops.aten.<op>` for
torchlike's own functions. A PyTorch C++ extension is compiled against libtorch and cannot run
under torchlike: `load_library` registers torchlike's own kernels for the extensions it knows
(torchvision's `_C`, see `torchlike/_extensions`) and raises `OSError`, as PyTorch does for a
library it cannot load, for any other, so libraries fall back to their Python paths.

Divergence: torchlike has no table of aten's overloads, so `torch.ops.aten.<op>` is the
torchlike function (or Tensor method) of that name for every overload name asked for, and its
`overloads()` is `['default']`."""
import importlib

from . import library as _library

loaded_libraries = set()


def load_library(path):
    """Mirrors `torch.ops.load_library` (see the module docstring)."""
    from ._extensions import stand_in
    register = stand_in(path)
    if register is None:
        raise OSError(f"Could not load this library: {path}")
    register()
    loaded_libraries.add(path)


def import_module(module):
    """Mirrors `torch.ops.import_module`."""
    importlib.import_module(module)


class OpOverload:
    """Mirrors `torch._ops.OpOverload`: one overload of an operator."""

    def __init__(self, packet, overload, opdef=None, fn=None):
        self.overloadpacket, self._overloadname = packet, overload
        self._opdef, self._fn = opdef, fn
        self.__name__ = f"{packet.__name__}.{overload}"
        self.__qualname__ = packet._qualified_op_name
        self.namespace = packet._ns
        self.__module__ = f"torch._ops.{packet._ns}"

    def __repr__(self):
        return (f"<OpOverload(op='{self.namespace}.{self.overloadpacket.__name__}', "
                f"overload='{self._overloadname}')>")

    def __str__(self):
        return f"{self.namespace}.{self.overloadpacket.__name__}.{self._overloadname}"

    def name(self):
        ov = "" if self._overloadname == "default" else f".{self._overloadname}"
        return f"{self.namespace}::{self.overloadpacket.__name__}{ov}"

    @property
    def _schema(self):
        if self._opdef is None:
            raise AttributeError("torchlike has no schemas for aten operators")
        return self._opdef.schema

    def _opdef_key(self):
        return (self.namespace, self.overloadpacket.__name__, self._overloadname)

    def __call__(self, *args, **kwargs):
        if self._opdef is None:
            return self._fn(*args, **kwargs)
        return self._opdef(*args, **kwargs)

    def redispatch(self, keyset, *args, **kwargs):
        """Mirrors `OpOverload.redispatch` from an autograd kernel: the call below autograd."""
        with _library._BelowAutograd():
            return self(*args, **kwargs)

    def __hash__(self):
        return id(self)


class OpOverloadPacket:
    """Mirrors `torch._ops.OpOverloadPacket`: an operator with its overloads."""

    def __init__(self, ns, name, fn=None):
        self._ns, self.__name__, self._qualified_op_name = ns, name, f"{ns}::{name}"
        self.__qualname__ = name
        self.__module__ = f"torch._ops.{ns}"
        self._fn = fn     # an aten op: torchlike's function
        self._overloads = {}

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self.__name__}')>"

    def __str__(self):
        return f"{self._ns}.{self.__name__}"

    def _defs(self):
        return [op for key, op in _library._OPS.items() if key[:2] == (self._ns, self.__name__)]

    def overloads(self):
        if self._fn is not None:
            return ["default"]
        return [op.overload for op in self._defs()]

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        cached = self._overloads.get(overload)
        if self._fn is not None:
            if cached is None:
                cached = self._overloads[overload] = OpOverload(self, overload, fn=self._fn)
            return cached
        opdef = _library._OPS.get((self._ns, self.__name__, overload))
        if opdef is None:
            raise AttributeError(f"The underlying op of '{self._ns}.{self.__name__}' has no "
                                 f"overload name '{overload}'")
        if cached is None or cached._opdef is not opdef:
            cached = self._overloads[overload] = OpOverload(self, overload, opdef)
        return cached

    def __call__(self, *args, **kwargs):
        if self._fn is not None:
            return self._fn(*args, **kwargs)
        defs = self._defs()
        if not defs:
            raise RuntimeError(f"operator {self._qualified_op_name} was destroyed")
        errors = []
        for op in defs:
            try:
                bound = _library._bind(op.schema, args, kwargs, self._qualified_op_name)
            except _library._BindError as e:
                errors.append(e)
                continue
            return _library._dispatch(op, bound)
        if len(defs) == 1:
            raise RuntimeError(str(errors[0]))
        raise RuntimeError("Overloaded torch operator invoked from Python failed to match any "
                           "schema:\n" + "".join(f"{e}\n\n" for e in errors))


def _aten(name):
    """torchlike's function for aten op `name` (an in-place `name_` as the Tensor method)."""
    import torchlike
    for owner in (torchlike, torchlike.nn.functional, torchlike.Tensor):
        try:
            fn = getattr(owner, name, None)
        except NotImplementedError:     # a name torchlike lacks (NotAvailable)
            fn = None
        if callable(fn):
            return fn
    return None


class _OpNamespace:
    """Mirrors `torch._ops._OpNamespace`."""

    def __init__(self, name):
        self.name = name
        self._packets = {}

    def __repr__(self):
        return f"<module 'torch.ops.{self.name}' from 'torch.ops'>"

    def __getattr__(self, op):
        if op.startswith("__"):
            raise AttributeError(op)
        ns = self.name
        packet = self._packets.get(op)
        defined = any(k[:2] == (ns, op) for k in _library._OPS)
        if packet is not None and (defined or packet._fn is not None):
            return packet
        if defined:
            packet = OpOverloadPacket(ns, op)
        elif ns == "aten" and _aten(op) is not None:
            packet = OpOverloadPacket(ns, op, _aten(op))
        else:
            self._packets.pop(op, None)
            raise AttributeError(f"'_OpNamespace' '{ns}' object has no attribute '{op}'")
        self._packets[op] = packet
        return packet


for _cls in (OpOverload, OpOverloadPacket, _OpNamespace):
    _cls.__module__ = "torch._ops"    # where PyTorch's live (error messages name the type)

_NAMESPACES = {}


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module 'torch.ops' has no attribute '{name}'")
    ns = _NAMESPACES.get(name)
    if ns is None:
        ns = _NAMESPACES[name] = _OpNamespace(name)
    return ns
