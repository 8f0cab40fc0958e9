"""Mirrors `torch.library`: operators defined from Python (`Library.define`/`impl`,
`custom_op`, `register_fake`, `register_autograd`, `register_kernel`), reachable as
`torch.ops.<namespace>.<name>`. Divergence: no dispatcher below them. A call runs the kernel
registered for the device of its first tensor argument (`CPU`, `CUDA`), else the composite one;
fake/meta kernels are kept (libraries register them at import) but never run, and a schema is
parsed only for its name, overload and argument names."""
import inspect
import re
import traceback
import weakref

__all__ = ["Library", "define", "impl", "impl_abstract", "register_fake", "register_autograd",
           "register_kernel", "custom_op", "get_ctx", "fallthrough_kernel", "infer_schema",
           "register_torch_dispatch", "register_vmap"]

_SCHEMA = re.compile(r"^\s*(?:(?P<ns>\w+)::)?(?P<name>\w+)(?:\.(?P<overload>\w+))?\s*"
                     r"\((?P<args>.*)\)\s*->\s*(?P<ret>.*)$", re.S)
_COMPOSITE = ("CompositeExplicitAutograd", "CompositeImplicitAutograd", "Autograd",
              "AutogradCPU", "AutogradCUDA", "")
_FAKE = ("Meta", "Fake", "AbstractImpl")
_NAMESPACES = {}    # namespace -> the DEF/FRAGMENT Library that owns it
_OPS = {}           # (namespace, name, overload) -> OpDef


class OpDef:
    """One operator overload: its schema and the kernels registered for it."""

    def __init__(self, ns, name, overload, schema, where):
        self.ns, self.name, self.overload = ns, name, overload
        self.schema, self.where = schema, where
        self.kernels = {}
        self.fake = None
        self.autograd = None     # (backward, setup_context)

    def qualname(self):
        return f"{self.ns}::{self.name}"

    def kernel_for(self, args, kwargs):
        from ._core.tensor import Tensor
        device = next((a.device.type for a in list(args) + list(kwargs.values())
                       if isinstance(a, Tensor)), "cpu")
        for key in (device.upper(), "CompositeExplicitAutograd", "CompositeImplicitAutograd",
                    ""):
            if key in self.kernels:
                return self.kernels[key]
        raise NotImplementedError(
            f"Could not run '{self.ns}::{self.name}' with arguments from the "
            f"'{device.upper()}' backend. This could be because the operator doesn't exist for "
            "this backend, or was omitted during the selective/custom build process (if using "
            f"custom build).")

    def __call__(self, *args, **kwargs):
        fn = self.kernel_for(args, kwargs)
        if self.autograd is not None:
            return _with_autograd(self, fn, args, kwargs)
        return fn(*args, **kwargs)


def _with_autograd(op, fn, args, kwargs):
    """Runs kernel `fn` as a custom autograd Function whose backward is the registered one."""
    from .autograd.function import Function
    backward, setup_context = op.autograd
    bound = (args, kwargs)

    class _Op(Function):
        @staticmethod
        def forward(ctx, *tensors):
            out = fn(*bound[0], **bound[1])
            if setup_context is not None:
                setup_context(ctx, bound[0], out)
            return out

        @staticmethod
        def backward(ctx, *grads):
            g = backward(ctx, *grads)
            return tuple(g) if isinstance(g, (tuple, list)) else (g,)
    _Op.__name__ = f"{op.name}Backward"
    return _Op.apply(*args)


def _parse(schema, ns=None):
    """(namespace, name, overload) of `schema`."""
    m = _SCHEMA.match(schema)
    if m is None:
        raise RuntimeError(f"Expected a schema like 'name(Tensor x) -> Tensor', got {schema!r}")
    return m.group("ns") or ns, m.group("name"), m.group("overload") or "default"


def _where():
    frame = traceback.extract_stack(limit=4)[0]
    return f"{frame.filename}:{frame.lineno}"


def _op(qualname, ns=None):
    """The OpDef named by `qualname` ('ns::name[.overload]' or 'name' within namespace `ns`)."""
    if "::" in qualname:
        ns, rest = qualname.split("::", 1)
    else:
        rest = qualname
    name, _, overload = rest.partition(".")
    op = _OPS.get((ns, name, overload or "default"))
    if op is None:
        raise ValueError(f"could not find the operator {ns}::{rest}")
    return op


class Library:
    """Mirrors `torch.library.Library(ns, kind, dispatch_key='')`, kind 'DEF', 'FRAGMENT' or
    'IMPL'."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError("Unsupported kind: ", kind)
        if ns in ("prim",) and kind != "IMPL":
            raise ValueError(ns, " is a reserved namespace. Please try creating a library with "
                             "another name.")
        if kind == "DEF":
            owner = _NAMESPACES.get(ns)
            if owner is not None and owner() is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block.  If "
                    "you were trying to specify implementations, consider using "
                    "TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to "
                    "define operators for a single namespace in a distributed way, you can use "
                    "TORCH_LIBRARY_FRAGMENT to explicitly indicate this.")
            _NAMESPACES[ns] = weakref.ref(self)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defined = []

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Mirrors `Library.define`: returns the operator's name."""
        ns, name, overload = _parse(schema, self.ns)
        key = (self.ns, name, overload)
        if key in _OPS:
            old = _OPS[key]
            raise RuntimeError(
                f"Tried to register an operator ({self.ns}::{schema.strip()}) with the same name "
                "and overload name multiple times. Each overload's schema should only be "
                "registered with a single call to def(). Duplicate registration: registered at "
                f"{_where()}. Original registration: registered at {old.where}")
        _OPS[key] = OpDef(self.ns, name, overload, schema, _where())
        self._defined.append(key)
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """Mirrors `Library.impl`."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type "
                            f"{type(fn)}")
        name = op_name if isinstance(op_name, str) else op_name.__name__
        op = _op(name, self.ns)
        key = dispatch_key or self.dispatch_key
        if key in _FAKE:
            op.fake = fn
        else:
            op.kernels[key] = fn

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        """Mirrors `Library.fallback` (accepted; nothing dispatches to it)."""

    def _destroy(self):
        for key in self._defined:
            _OPS.pop(key, None)
        self._defined = []
        owner = _NAMESPACES.get(self.ns)
        if owner is not None and owner() is self:
            del _NAMESPACES[self.ns]

    def __del__(self):
        try:
            self._destroy()
        except Exception:   # noqa: BLE001 - interpreter shutdown
            pass


_KEPT = []   # libraries made by the module-level functions live for the process


def define(qualname, schema, *, lib=None, tags=()):
    """Mirrors `torch.library.define('ns::name', '(Tensor x) -> Tensor')`."""
    ns, name = qualname.split("::")
    if lib is None:
        lib = Library(ns, "FRAGMENT")
        _KEPT.append(lib)
    lib.define(name + schema, tags=tags)


def _register(qualname, fn, key):
    op = qualname._op if isinstance(qualname, CustomOpDef) else _op(
        qualname if isinstance(qualname, str) else str(qualname))
    if key in _FAKE:
        op.fake = fn
    else:
        op.kernels[key] = fn
    return fn


def impl(qualname, types=None, func=None, *, lib=None):
    """Mirrors `torch.library.impl(qualname, types)` (also as a decorator)."""
    keys = ["CompositeExplicitAutograd"] if types in (None, "default") else (
        [types] if isinstance(types, str) else list(types))
    keys = [{"cpu": "CPU", "cuda": "CUDA"}.get(k, k) for k in keys]

    def register(fn):
        for k in keys:
            _register(qualname, fn, k)
        return fn
    return register if func is None else register(func)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """Mirrors `torch.library.register_fake` (kept; torchlike runs the real kernel)."""
    def register(fn):
        return _register(op, fn, "Fake")
    return register if func is None else register(func)


impl_abstract = register_fake


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Mirrors `torch.library.register_kernel`."""
    return impl(op, device_types or "default", func)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Mirrors `torch.library.register_autograd`: the op's calls record `backward`."""
    target = op._op if isinstance(op, CustomOpDef) else _op(op if isinstance(op, str)
                                                            else str(op))
    target.autograd = (backward, setup_context)


def register_torch_dispatch(op, torch_dispatch_class, func=None, /, *, lib=None):
    """Mirrors `torch.library.register_torch_dispatch` (accepted; torchlike has no
    `__torch_dispatch__`)."""
    return (lambda f: f) if func is None else func


def register_vmap(op, func=None, /, *, lib=None):
    """Mirrors `torch.library.register_vmap` (accepted; `torch.vmap` traces the kernel)."""
    return (lambda f: f) if func is None else func


def fallthrough_kernel():
    """Mirrors `torch.library.fallthrough_kernel`."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


class _FakeContext:
    def new_dynamic_size(self, *, min=0, max=None):  # noqa: A002
        raise NotImplementedError("torchlike runs real kernels: sizes are always concrete")


def get_ctx():
    """Mirrors `torch.library.get_ctx` (only meaningful inside a fake kernel, which torchlike
    never runs)."""
    return _FakeContext()


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """Mirrors `torch.library.infer_schema` for the common annotations."""
    names = {"Tensor": "Tensor", "int": "SymInt", "float": "float", "bool": "bool",
             "str": "str"}
    sig = inspect.signature(prototype_function)

    def spell(ann):
        if isinstance(ann, str):
            return names.get(ann.replace("torch.", ""), ann)
        n = getattr(ann, "__name__", str(ann))
        return names.get(n, n)
    mut = set(mutates_args) if mutates_args != "unknown" else set(sig.parameters)
    args = ", ".join(f"{spell(p.annotation)}{'(a!)' if p.name in mut else ''} {p.name}"
                     + ("" if p.default is inspect.Parameter.empty else f"={p.default!r}")
                     for p in sig.parameters.values())
    ret = sig.return_annotation
    rets = "()" if ret in (None, inspect.Signature.empty, "None") else spell(ret)
    return f"{op_name or ''}({args}) -> {rets}"


class CustomOpDef:
    """Mirrors `torch._library.custom_ops.CustomOpDef`: what `custom_op` returns."""

    def __init__(self, ns, name, fn, device_types):
        self._namespace, self._name, self._init_fn = ns, name, fn
        lib = Library(ns, "FRAGMENT")
        _KEPT.append(lib)
        lib.define(name + infer_schema(fn, mutates_args=()))
        self._op = _op(f"{ns}::{name}")
        keys = [None] if device_types is None else (
            [device_types] if isinstance(device_types, str) else list(device_types))
        for k in keys:
            self._op.kernels[{"cpu": "CPU", "cuda": "CUDA", None: ""}.get(k, k)] = fn
        self.__name__ = name
        self.__doc__ = fn.__doc__

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def register_fake(self, fn=None, /):
        return register_fake(self, fn)

    def register_kernel(self, device_types, fn=None, /):
        return register_kernel(self, device_types, fn)

    def register_autograd(self, backward, /, *, setup_context=None):
        register_autograd(self, backward, setup_context=setup_context)

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        return (lambda f: f) if fn is None else fn

    def register_vmap(self, fn=None, /):
        return (lambda f: f) if fn is None else fn


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Mirrors `torch.library.custom_op('ns::name', mutates_args=...)`."""
    ns, op_name = name.split("::")

    def wrap(f):
        return CustomOpDef(ns, op_name, f, device_types)
    return wrap if fn is None else wrap(fn)
