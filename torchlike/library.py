"""Mirrors `torch.library`: operators defined from Python (`Library.define`/`impl`,
`custom_op`, `register_fake`, `register_autograd`, `register_kernel`), reachable as
`torch.ops.<namespace>.<name>`.

A call binds its arguments to the operator's schema (PyTorch's errors for a missing, extra or
ill-typed argument; the first matching overload for a call through the packet) and runs, as
PyTorch's dispatcher would: an `Autograd`/`Autograd<Device>` kernel or the formula given to
`register_autograd` when a tensor argument requires grad (a kernel redispatches below it inside
`torch._C._AutoDispatchBelowAutograd()`), else the kernel for the device of the tensor
arguments (`CPU`, `CUDA`), else the `CompositeExplicitAutograd`/`CompositeImplicitAutograd` one.
Registrations belong to the `Library` that made them and go with it (`_destroy()`, or when it is
garbage collected). Divergences: no dispatcher below this, so fake/meta kernels are kept
(libraries register them at import) but never run, and `register_torch_dispatch`/`register_vmap`
are accepted without effect."""
import inspect
import re
import sys
import types
import typing
import weakref

__all__ = ["Library", "define", "impl", "impl_abstract", "register_fake", "register_autograd",
           "register_kernel", "custom_op", "get_ctx", "fallthrough_kernel", "infer_schema",
           "register_torch_dispatch", "register_vmap"]

_FAKE = ("Meta", "Fake", "AbstractImpl")
_NAMESPACES = {}    # namespace -> weakref to the DEF Library that owns it
_OPS = {}           # (namespace, name, overload) -> OpDef, in definition order
_IMPLS = {}         # (namespace, name, overload) -> {dispatch key: [(kernel, registration)]}
_BELOW_AUTOGRAD = [0]   # depth of torch._C._AutoDispatchBelowAutograd guards
_NO_DEFAULT = object()


# ---- schemas -----------------------------------------------------------------------------------

def _split_top(text, sep=","):
    """`text` split at the `sep`s outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def _literal(text):
    """The Python value of a default in a schema (`3`, `2.5`, `True`, `None`, `"a"`, `[1, 2]`)."""
    text = text.strip()
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    if text[:1] in "\"'":
        return text[1:-1]
    if text.startswith("["):
        return [_literal(t) for t in _split_top(text[1:-1])]
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text     # an enum name (`contiguous_format`, `strided`...)


def _float_text(v):
    """A float default as PyTorch's schema printer writes it (`2.`, `0.5`, 17 significant
    digits)."""
    if v == int(v) and abs(v) < 1e16:
        return f"{int(v)}."
    return f"{v:.17g}"


class Argument:
    """Mirrors `torch._C.Argument`: one argument (or return) of a schema."""

    def __init__(self, type_text, name, default=_NO_DEFAULT, default_text=None,
                 kwarg_only=False):
        self.type_text, self.name, self.kwarg_only = type_text, name, kwarg_only
        self._default, self._default_text = default, default_text
        m = re.search(r"\((\w+)(!?)", type_text)
        self.alias_info = (m.group(1), bool(m.group(2))) if m else None
        self.type = re.sub(r"\([^)]*\)", "", type_text)

    @property
    def default_value(self):
        return None if self._default is _NO_DEFAULT else self._default

    def has_default_value(self):
        return self._default is not _NO_DEFAULT

    @property
    def is_write(self):
        return bool(self.alias_info and self.alias_info[1])

    def __str__(self):
        text = f"{self.type_text} {self.name}" if self.name else self.type_text
        if self._default is not _NO_DEFAULT:
            if isinstance(self._default, float) and self.type.startswith("float"):
                text += "=" + _float_text(self._default)
            elif isinstance(self._default, str) and self._default_text[:1] in "\"'":
                text += f'="{self._default}"'
            else:
                text += "=" + self._default_text
        return text

    __repr__ = __str__


class FunctionSchema:
    """Mirrors `torch._C.FunctionSchema`, parsed from `ns::name.overload(args) -> returns`."""

    def __init__(self, ns, name, overload, arguments, returns, returns_text):
        self.ns, self._name, self.overload_name = ns, name, overload
        self.arguments, self.returns, self._returns_text = arguments, returns, returns_text

    @property
    def name(self):
        return f"{self.ns}::{self._name}"

    def __str__(self):
        args, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                args.append("*")
                star = True
            args.append(str(a))
        ov = "" if self.overload_name in ("", "default") else f".{self.overload_name}"
        return f"{self.name}{ov}({', '.join(args)}) -> {self._returns_text}"

    __repr__ = __str__


_SCHEMA = re.compile(r"^\s*(?:(?P<ns>\w+)::)?(?P<name>\w+)(?:\.(?P<overload>\w+))?\s*"
                     r"\((?P<args>.*)\)\s*->\s*(?P<ret>.*?)\s*$", re.S)


def _parse_schema(schema, ns):
    """The FunctionSchema of `schema` (its namespace defaulting to `ns`)."""
    m = _SCHEMA.match(schema)
    if m is None:
        raise RuntimeError(f"expected a schema like 'name(Tensor x) -> Tensor' but found "
                           f"{schema.strip()!r}")
    arguments, kwarg_only = [], False
    for part in _split_top(m.group("args")):
        if part == "*":
            kwarg_only = True
            continue
        decl, eq, default = part.partition("=")
        type_text, _, name = decl.strip().rpartition(" ")
        if not type_text:
            raise RuntimeError(f"expected an argument like 'Tensor x' in schema {schema!r}, "
                               f"found {part!r}")
        arguments.append(Argument(type_text.strip(), name,
                                  _literal(default) if eq else _NO_DEFAULT,
                                  default.strip() if eq else None, kwarg_only))
    ret = m.group("ret")
    inner = ret[1:-1] if ret.startswith("(") and ret.endswith(")") else ret
    returns = []
    for part in _split_top(inner):
        type_text, _, name = part.rpartition(" ")
        returns.append(Argument(type_text or part, name if type_text else ""))
    if not (ret.startswith("(") and ret.endswith(")")) and not returns:
        returns = [Argument(ret, "")]
    return FunctionSchema(m.group("ns") or ns, m.group("name"), m.group("overload") or "",
                          arguments, returns, ret)


def _convert_base(base, v):
    """`v` as a kernel receives it for schema type `base`, or _NO_DEFAULT where it does not
    fit."""
    from ._core.tensor import Tensor
    from ._core.dtype import dtype
    from ._core.device import device
    if base == "Tensor":
        return v if isinstance(v, Tensor) else _NO_DEFAULT
    if isinstance(v, Tensor):
        if base in ("int", "SymInt", "float", "SymFloat") and v.dim() == 0 and (
                base.endswith("Float") or base == "float" or not v.dtype.is_floating_point):
            return float(v.item()) if "loat" in base else int(v.item())
        return _NO_DEFAULT
    if base in ("int", "SymInt"):
        return int(v) if hasattr(v, "__index__") else _NO_DEFAULT
    if base in ("float", "SymFloat"):
        return float(v) if hasattr(v, "__float__") and not isinstance(v, complex) \
            else _NO_DEFAULT
    if base in ("bool", "SymBool"):
        return bool(v) if hasattr(v, "__index__") else _NO_DEFAULT
    if base == "str":
        return v if isinstance(v, str) else _NO_DEFAULT
    if base == "Scalar":
        return v if isinstance(v, (int, float, complex)) or hasattr(v, "__float__") \
            else _NO_DEFAULT
    if base == "ScalarType":
        return v if isinstance(v, dtype) else _NO_DEFAULT
    if base == "Device":
        return v if isinstance(v, (device, str, int)) else _NO_DEFAULT
    return v     # Generator, Layout, MemoryFormat, Any...


def _convert(type_, v):
    """`v` converted for schema type `type_` (`Tensor`, `int[]`, `int[2]`, `Tensor?[]`,
    `float?`): a sequence becomes a list, numbers take the schema's type; _NO_DEFAULT where it
    does not fit."""
    if type_.endswith("?"):
        return None if v is None else _convert(type_[:-1], v)
    m = re.match(r"^(.*)\[(\d*)\]$", type_)
    if m:
        from ._core.tensor import Tensor
        if m.group(2) and not isinstance(v, (list, tuple, Tensor)):
            one = _convert(m.group(1), v)
            return _NO_DEFAULT if one is _NO_DEFAULT else [one] * int(m.group(2))
        if not isinstance(v, (list, tuple)):
            return _NO_DEFAULT
        out = [_convert(m.group(1), x) for x in v]
        return _NO_DEFAULT if any(x is _NO_DEFAULT for x in out) else out
    return _convert_base(type_, v)


def _type_name(type_):
    """A schema type as PyTorch names it in an argument error (`List[int]`, `Optional[Tensor]`,
    `number`)."""
    if type_.endswith("?"):
        return f"Optional[{_type_name(type_[:-1])}]"
    m = re.match(r"^(.*)\[(\d*)\]$", type_)
    if m:
        return f"List[{_type_name(m.group(1))}]"
    return {"SymInt": "int", "SymFloat": "float", "SymBool": "bool",
            "Scalar": "number"}.get(type_, type_)


def _describe(v):
    from ._core.tensor import Tensor
    if isinstance(v, Tensor):
        return "Tensor"
    return type(v).__name__


class _BindError(RuntimeError):
    """Why a call does not fit a schema."""


class _Bound:
    """A call bound to a schema: the converted arguments as passed (`args`, `kwargs`) and the
    inputs an autograd formula sees (`positional`, with defaults; `kwonly`)."""

    def __init__(self, args, kwargs, positional, kwonly):
        self.args, self.kwargs, self.positional, self.kwonly = args, kwargs, positional, kwonly


def _bind(schema, args, kwargs, opname):
    """The _Bound call, or _BindError with PyTorch's message (as the only overload, and as one
    of several)."""
    decl = str(schema)
    params = [a for a in schema.arguments if not a.kwarg_only]
    if len(args) > len(schema.arguments):
        msg = (f"{opname}() expected at most {len(schema.arguments)} argument(s) but received "
               f"{len(args) + len(kwargs)} argument(s). Declaration: {decl}")
        raise _BindError(msg)
    if len(args) > len(params):
        msg = (f"{opname}() takes {len(params)} positional argument(s) but {len(args)} "
               f"was/were given.  Declaration: {decl}")
        raise _BindError(msg)
    names = {a.name for a in schema.arguments}
    for k in kwargs:
        if k not in names:
            msg = f"Unknown keyword argument '{k}' for operator '{opname}'. Schema: {decl}"
            raise _BindError(msg)
    values, new_args, new_kwargs = {}, [], {}
    for i, a in enumerate(schema.arguments):
        if i < len(args) and not a.kwarg_only:
            v = args[i]
        elif a.name in kwargs:
            v = kwargs[a.name]
        elif a.has_default_value():
            values[a.name] = a.default_value
            continue
        else:
            msg = f"{opname}() is missing value for argument '{a.name}'. Declaration: {decl}"
            raise _BindError(msg)
        c = _convert(a.type, v)
        if c is _NO_DEFAULT:
            detail = (f"Unable to cast {v!s} to Tensor" if a.type == "Tensor" else
                      f"Unable to cast Python instance of type {type(v)} to C++ type '?' "
                      "(#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for "
                      "details)")
            msg = (f"{opname}() Expected a value of type '{_type_name(a.type)}' for argument "
                   f"'{a.name}' but instead found type '{_describe(v)}'.\nPosition: {i}\n"
                   f"Value: {v!s}\nDeclaration: {decl}\nCast error details: {detail}")
            raise _BindError(msg)
        values[a.name] = c
        if i < len(args) and not a.kwarg_only:
            new_args.append(c)
        else:
            new_kwargs[a.name] = c
    positional = tuple(values[a.name] for a in params)
    kwonly = {a.name: values[a.name] for a in schema.arguments if a.kwarg_only}
    return _Bound(tuple(new_args), new_kwargs, positional, kwonly)


# ---- operators and their kernels ---------------------------------------------------------------

def _tensors(values):
    from ._core.tensor import Tensor
    out = []
    for v in values:
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out.extend(x for x in v if isinstance(x, Tensor))
    return out


class OpDef:
    """One operator overload: its schema, where its Library was made (for PyTorch's
    registration errors), the CustomOpDef when `custom_op` made it."""

    def __init__(self, schema, lib):
        self.schema, self.where = schema, lib._where
        self.ns, self.name = schema.ns, schema._name
        self.overload = schema.overload_name or "default"
        self.custom = None      # the CustomOpDef of an operator made by custom_op

    @property
    def key(self):
        return (self.ns, self.name, self.overload)

    def qualname(self):
        ov = "" if self.overload == "default" else f".{self.overload}"
        return f"{self.ns}::{self.name}{ov}"

    def kernel(self, key):
        regs = _IMPLS.get(self.key, {}).get(key)
        return regs[-1][0] if regs else None

    def keys(self):
        return [k for k, regs in _IMPLS.get(self.key, {}).items() if regs]

    def __call__(self, *args, **kwargs):
        try:
            bound = _bind(self.schema, args, kwargs, f"{self.ns}::{self.name}")
        except _BindError as e:
            raise RuntimeError(str(e)) from None
        return _dispatch(self, bound)


def _device_key(tensors):
    return tensors[0].device.type.upper() if tensors else "CPU"


def _dispatch(op, bound):
    import torchlike
    args, kwargs = bound.args, bound.kwargs
    tensors = _tensors(list(args) + list(kwargs.values()))
    dev = _device_key(tensors)
    if not _BELOW_AUTOGRAD[0]:
        for key in (f"Autograd{dev}", "Autograd"):
            fn = op.kernel(key)
            if fn is None:
                continue
            if isinstance(fn, _AutogradFormula):
                if torchlike.is_grad_enabled() and any(t.requires_grad for t in tensors):
                    return fn.run(op, bound)
                break
            return fn(*args, **kwargs)
        else:
            if (op.custom is not None and torchlike.is_grad_enabled()
                    and any(t.requires_grad for t in tensors)):
                return _AutogradFormula(None, None).run(op, bound)
    return _backend(op, args, kwargs, tensors, dev)


def _backend(op, args, kwargs, tensors=None, dev=None):
    """The result of the backend (or composite) kernel of `op`."""
    if tensors is None:
        tensors = _tensors(list(args) + list(kwargs.values()))
        dev = _device_key(tensors)
    keys = ((dev,) if tensors else ()) + ("CompositeExplicitAutograd",
                                           "CompositeImplicitAutograd")
    fn = next((f for f in map(op.kernel, keys) if f is not None), None)
    if fn is None:
        available = ", ".join(op.keys())
        if not tensors:
            raise NotImplementedError(
                "There were no tensor arguments to this function (e.g., you passed an empty "
                "list of Tensors), but no fallback function is registered for schema "
                f"{op.ns}::{op.name}.  This usually means that this function requires a "
                "non-empty list of Tensors, or that you (the operator writer) forgot to "
                f"register a fallback function.  Available functions are [{available}].")
        raise NotImplementedError(
            f"Could not run '{op.qualname()}' with arguments from the '{dev}' backend. This "
            "could be because the operator doesn't exist for this backend, or was omitted "
            "during the selective/custom build process (if using custom build). If you are a "
            "Facebook employee using PyTorch on mobile, please visit "
            "https://fburl.com/ptmfixes for possible resolutions. "
            f"'{op.qualname()}' is only available for these backends: [{available}].")
    out = fn(*args, **kwargs)
    if op.schema._returns_text.strip() == "()" and out is not None:
        raise RuntimeError(f"Expected PythonKernelHolder for {op.qualname()} to return None "
                           "but it returned something else instead.")
    if op.custom is not None:
        _check_no_alias(op, fn, args, kwargs, out)
    return out


def _check_no_alias(op, fn, args, kwargs, out):
    from ._core.tensor import Tensor
    outs = out if isinstance(out, (tuple, list)) else (out,)
    ins = {id(t) for t in _tensors(list(args) + list(kwargs.values()))}
    if any(isinstance(o, Tensor) and id(o) in ins for o in outs):
        raise RuntimeError(
            f"{op.name} (with implementation in {inspect.getmodule(op.custom._init_fn)!r}): "
            "The output of this custom operator (1) must not also be an input to this custom "
            "operator and (2) may not alias any inputs to this custom operator or other "
            "returns. The most common way to trigger this error is if we have y = "
            "custom_op(x) and y and x are the same Tensor. Please instead return a clone of the "
            "offending output tensor(s) (e.g. return x.clone()) or refactor the custom "
            "operator to not return y.")


class _AutogradFormula:
    """What `register_autograd` registers: the op's call becomes an autograd Function whose
    backward is `backward` (None: backward raises, as for a custom op without a formula)."""

    def __init__(self, backward, setup_context):
        self.backward, self.setup_context = backward, setup_context

    def run(self, op, bound):
        from .autograd.function import Function
        args, kwargs, positional, kwonly = bound.args, bound.kwargs, bound.positional, \
            bound.kwonly
        backward, setup_context = self.backward, self.setup_context
        label = f"{op.ns}.{op.name}.{op.overload}"

        def forward(ctx, *inputs):
            with _BelowAutograd():
                out = _backend(op, args, kwargs)
            if setup_context is not None:
                if kwonly:
                    setup_context(ctx, positional, out, keyword_only_inputs=kwonly)
                else:
                    setup_context(ctx, positional, out)
            return out

        def backward_(ctx, *grads):
            if backward is None:
                raise RuntimeError(f"Trying to backward through {label} but no autograd "
                                   "formula was registered. Please use register_autograd to "
                                   "add one.")
            g = backward(ctx, *grads)
            return (tuple(g) if isinstance(g, (tuple, list)) else (g,)) + (None,)

        cls = type(f"GeneratedBackwardFor_{op.ns}_{op.name}_{op.overload}", (Function,),
                   {"forward": staticmethod(forward), "backward": staticmethod(backward_)})
        # as in PyTorch, the Function's inputs are the arguments passed positionally and one
        # more (its keyword arguments), whose gradient is None
        return cls.apply(*args, kwargs)


class _BelowAutograd:
    """`torch._C._AutoDispatchBelowAutograd`: operator calls inside skip autograd kernels."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        _BELOW_AUTOGRAD[0] += 1
        return self

    def __exit__(self, *exc):
        _BELOW_AUTOGRAD[0] -= 1
        return False


def _op_key(qualname, ns=None):
    """(ns, name, overload) named by 'ns::name[.overload]', 'name[.overload]' (within `ns`) or
    an OpOverload."""
    if hasattr(qualname, "_opdef_key"):
        return qualname._opdef_key()
    if isinstance(qualname, CustomOpDef):
        return qualname._op.key
    if not isinstance(qualname, str):
        raise RuntimeError("impl should be passed either a name or an OpOverload object as the "
                           f"first argument, got {type(qualname)}")
    if "::" in qualname:
        ns, qualname = qualname.split("::", 1)
    name, _, overload = qualname.partition(".")
    return (ns, name, overload or "default")


def _register(key3, dispatch_key, fn, owner):
    """Registers kernel `fn` of operator `key3` for `dispatch_key`, owned by Library `owner`."""
    entry = (fn, object())
    _IMPLS.setdefault(key3, {}).setdefault(dispatch_key, []).append(entry)
    owner._registrations.append((key3, dispatch_key, entry))


def _where(depth):
    frame = sys._getframe(depth + 1)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


class Library:
    """Mirrors `torch.library.Library(ns, kind, dispatch_key='')`, kind 'DEF', 'FRAGMENT' or
    'IMPL'."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in ("prim",) and kind in ("DEF", "FRAGMENT"):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with "
                             "another name.")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._where = _where(1)
        self._defined, self._registrations = [], []
        if kind == "DEF":
            owner = _NAMESPACES.get(ns)
            owner = owner() if owner is not None else None
            if owner is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block.  If "
                    "you were trying to specify implementations, consider using "
                    "TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to "
                    "define operators for a single namespace in a distributed way, you can use "
                    "TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration "
                    f"of TORCH_LIBRARY was registered at {owner._where}; latest registration "
                    f"was registered at {self._where}")
            _NAMESPACES[ns] = weakref.ref(self)

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _block(self):
        return {"DEF": "TORCH_LIBRARY", "FRAGMENT": "TORCH_LIBRARY_FRAGMENT",
                "IMPL": "TORCH_LIBRARY_IMPL"}[self.kind]

    def define(self, schema, alias_analysis="", *, tags=()):
        """Mirrors `Library.define`: returns the operator's name."""
        parsed = _parse_schema(schema, self.ns)
        if self.kind == "IMPL":
            raise RuntimeError(
                f'def("{parsed._name}"): Cannot define an operator inside of a '
                "TORCH_LIBRARY_IMPL block.  All def()s should be placed in the (unique) "
                "TORCH_LIBRARY block for their namespace.  (Error occurred while processing "
                f"TORCH_LIBRARY_IMPL block at {self._where})")
        if parsed.ns != self.ns:
            raise RuntimeError(
                f"Explicitly provided namespace ({parsed.ns}) in schema string does not match "
                f"namespace of enclosing {self._block()} block ({self.ns}).  Move this "
                "definition to the (unique) TORCH_LIBRARY block corresponding to this "
                "namespace (and consider deleting the namespace from your schema string.)  "
                f"(Error occurred while processing {self._block()} block at {self._where})")
        op = OpDef(parsed, self)
        old = _OPS.get(op.key)
        if old is not None:
            raise RuntimeError(
                f"Tried to register an operator ({parsed}) with the same name and overload name "
                "multiple times. Each overload's schema should only be registered with a single "
                "call to def(). Duplicate registration: registered at "
                f"{self._where}. Original registration: registered at {old.where}")
        _OPS[op.key] = op
        self._defined.append(op.key)
        return parsed._name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """Mirrors `Library.impl` (the operator may be defined later)."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type "
                            f"{type(fn)}")
        key3 = _op_key(op_name, self.ns)
        if key3[0] != self.ns:
            raise RuntimeError(
                f'impl("{key3[0]}::{key3[1]}", ...): Explicitly provided namespace ({key3[0]}) '
                "in operator name does not match namespace of enclosing "
                f"{self._block()} block ({self.ns}).  Move this definition to the "
                f"{self._block()} block corresponding to this namespace (and consider "
                "deleting the namespace from your schema string.)  (Error occurred while "
                f"processing {self._block()} block at {self._where})")
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        if with_keyset:     # the kernel takes the DispatchKeySet it runs for first
            kernel = fn

            def fn(*args, **kwargs):
                from ._C import DispatchKey, DispatchKeySet
                return kernel(DispatchKeySet(getattr(DispatchKey, key, None)), *args, **kwargs)
        _register(key3, key, fn, self)

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        """Mirrors `Library.fallback` (accepted; nothing dispatches to it)."""

    def _destroy(self):
        for key3, dispatch_key, entry in self._registrations:
            regs = _IMPLS.get(key3, {}).get(dispatch_key, [])
            if entry in regs:
                regs.remove(entry)
        self._registrations = []
        for key in self._defined:
            _OPS.pop(key, None)
        self._defined = []
        owner = _NAMESPACES.get(self.ns)
        if owner is not None and owner() in (self, None):
            del _NAMESPACES[self.ns]

    def __del__(self):
        try:
            self._destroy()
        except Exception:   # noqa: BLE001 - interpreter shutdown
            pass


_KEPT = []   # libraries made by the module-level functions live for the process


def _kept(ns):
    lib = Library(ns, "FRAGMENT")
    _KEPT.append(lib)
    return lib


def define(qualname, schema, *, lib=None, tags=()):
    """Mirrors `torch.library.define('ns::name', '(Tensor x) -> Tensor')`."""
    ns, name = qualname.split("::")
    (lib or _kept(ns)).define(name + schema, tags=tags)


_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "xpu": "XPU", "mps": "MPS", "meta": "Meta",
                "default": "CompositeExplicitAutograd", None: "CompositeExplicitAutograd"}


def impl(qualname, types=None, func=None, *, lib=None):
    """Mirrors `torch.library.impl(qualname, types)` (also as a decorator, and the older
    `@impl(lib, name, dispatch_key)`)."""
    if isinstance(qualname, Library):
        target, name, key = qualname, types, func or ""
        return lambda fn: (target.impl(name, fn, key), fn)[1]
    keys = [types] if isinstance(types, str) or types is None else list(types)
    keys = [_DEVICE_KEYS.get(k, k) for k in keys]
    key3 = _op_key(qualname)

    def register(fn):
        owner = lib or _kept(key3[0])
        for k in keys:
            _register(key3, k, fn, owner)
    if func is None:
        return register     # PyTorch's decorator returns None too
    register(func)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """Mirrors `torch.library.register_fake` (kept; torchlike never runs it)."""
    key3 = _op_key(op)

    def register(fn):
        _register(key3, "Meta", fn, lib or _kept(key3[0]))
        return fn
    return register if func is None else register(func)


impl_abstract = register_fake


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Mirrors `torch.library.register_kernel`."""
    key3 = _op_key(op)
    keys = [device_types] if isinstance(device_types, str) or device_types is None \
        else list(device_types)

    def register(fn):
        owner = lib or _kept(key3[0])
        for k in keys:
            _register(key3, _DEVICE_KEYS.get(k, k), fn, owner)
        return fn
    if func is None:
        return register
    register(func)
    op = _OPS.get(key3)
    if op is not None and op.custom is not None:
        return func     # PyTorch's CustomOpDef.register_kernel returns it


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Mirrors `torch.library.register_autograd`: calls that need grad record `backward`."""
    key3 = _op_key(op)
    _register(key3, "Autograd", _AutogradFormula(backward, setup_context),
              lib or _kept(key3[0]))


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


# ---- infer_schema ------------------------------------------------------------------------------

_VALID_PARAMS = (
    "dict_keys([<class 'torch.Tensor'>, typing.Optional[torch.Tensor], typing.Sequence[torch."
    "Tensor], typing.List[torch.Tensor], collections.abc.Sequence[torch.Tensor], list[torch."
    "Tensor], typing.Sequence[typing.Optional[torch.Tensor]], typing.List[typing.Optional["
    "torch.Tensor]], collections.abc.Sequence[typing.Optional[torch.Tensor]], list[typing."
    "Optional[torch.Tensor]], <class 'int'>, typing.Optional[int], typing.Sequence[int], "
    "typing.List[int], collections.abc.Sequence[int], list[int], typing.Optional[typing."
    "Sequence[int]], typing.Optional[typing.List[int]], typing.Optional[collections.abc."
    "Sequence[int]], typing.Optional[list[int]], <class 'float'>, typing.Optional[float], "
    "typing.Sequence[float], typing.List[float], collections.abc.Sequence[float], list[float], "
    "typing.Optional[typing.Sequence[float]], typing.Optional[typing.List[float]], typing."
    "Optional[collections.abc.Sequence[float]], typing.Optional[list[float]], <class 'bool'>, "
    "typing.Optional[bool], typing.Sequence[bool], typing.List[bool], collections.abc.Sequence"
    "[bool], list[bool], typing.Optional[typing.Sequence[bool]], typing.Optional[typing.List["
    "bool]], typing.Optional[collections.abc.Sequence[bool]], typing.Optional[list[bool]], "
    "<class 'str'>, typing.Optional[str], int | float | bool, typing.Union[int, float, bool, "
    "NoneType], typing.Sequence[int | float | bool], typing.List[int | float | bool], "
    "collections.abc.Sequence[int | float | bool], list[int | float | bool], <class 'torch."
    "dtype'>, typing.Optional[torch.dtype], <class 'torch.device'>, typing.Optional[torch."
    "device], torch.distributed.distributed_c10d.GroupName, typing.Optional[torch.distributed."
    "distributed_c10d.GroupName]])")
_VALID_RETURNS = ("{<class 'torch.Tensor'>: 'Tensor', typing.List[torch.Tensor]: 'Tensor[]', "
                  "list[torch.Tensor]: 'Tensor[]', <class 'int'>: 'SymInt', <class 'float'>: "
                  "'float', <class 'bool'>: 'bool', int | float | bool: 'Scalar'}")
_TORCH_SPELLING = (("torchlike._core.tensor.Tensor", "torch.Tensor"),
                   ("torchlike._core.dtype.dtype", "torch.dtype"),
                   ("torchlike._core.device.device", "torch.device"), ("torchlike", "torch"))


def _spelled(text):
    for a, b in _TORCH_SPELLING:
        text = text.replace(a, b)
    return text


def _scalar_name(ann):
    """The schema name of a non-container annotation, or None."""
    import torchlike
    if ann is torchlike.Tensor:
        return "Tensor"
    if ann is torchlike.dtype:
        return "ScalarType"
    if ann is torchlike.device:
        return "Device"
    if ann in (int, float, bool, str):
        return {int: "SymInt", float: "float", bool: "bool", str: "str"}[ann]
    if set(typing.get_args(ann)) == {int, float, bool} and len(typing.get_args(ann)) == 3:
        return "Scalar"
    return None


def _param_type(ann):
    """The schema type of a parameter annotation, or None where PyTorch refuses it."""
    import collections.abc
    args = typing.get_args(ann)
    origin = typing.get_origin(ann)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        rest = tuple(a for a in args if a is not type(None))
        if set(rest) == {int, float, bool}:
            return "Scalar?"
        inner = _param_type(rest[0]) if len(rest) == 1 else None
        if inner is None or inner.endswith("?") or (inner == "Tensor?[]"):
            return None
        if inner.endswith("[]") and inner.startswith("Tensor"):
            return None
        return inner + "?"
    if origin in (list, typing.List, typing.Sequence, collections.abc.Sequence) \
            and len(args) == 1:
        inner_args = typing.get_args(args[0])
        if typing.get_origin(args[0]) in (typing.Union, types.UnionType) \
                and type(None) in inner_args:
            import torchlike
            rest = [a for a in inner_args if a is not type(None)]
            return "Tensor?[]" if rest == [torchlike.Tensor] else None
        inner = _scalar_name(args[0])
        return f"{inner}[]" if inner in ("Tensor", "SymInt", "float", "bool", "Scalar") \
            else None
    return _scalar_name(ann)


def _return_type(ann):
    if ann in (None, type(None)):
        return "()"
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin in (tuple, typing.Tuple):
        if not args or Ellipsis in args:
            return None
        parts = [_return_type(a) for a in args]
        if any(p is None or p == "()" for p in parts):
            return None
        return "(" + ", ".join(parts) + ")"
    if origin in (list, typing.List) and len(args) == 1:
        import torchlike
        return "Tensor[]" if args[0] is torchlike.Tensor else None
    name = _scalar_name(ann)
    return name if name in ("Tensor", "SymInt", "float", "bool", "Scalar") else None


def _default_text(v):
    import torchlike
    if v is None or isinstance(v, (bool, int)):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, torchlike.dtype):
        return str(v).replace("torch.", "")
    if isinstance(v, torchlike.device):
        return f'"{v}"'
    return None


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """Mirrors `torch.library.infer_schema`: the schema PyTorch infers from the annotations
    (`Tensor`, `Optional[...]`, sequences, `int` as `SymInt`, dtype/device...)."""
    sig = inspect.signature(prototype_function)
    where = f"Got func with signature {_spelled(str(sig))})"

    def error(what):
        raise ValueError(f"infer_schema(func): {what} {where}")

    try:
        hints = typing.get_type_hints(prototype_function)
    except Exception:  # noqa: BLE001 - unresolvable string annotations stay as written
        hints = {}
    if mutates_args != "unknown":
        if isinstance(mutates_args, str) or not isinstance(mutates_args, typing.Iterable):
            raise ValueError("mutates_args must either be a sequence of the names of the "
                             "arguments that are mutated or the string 'unknown'. ")
        mutated = set(mutates_args)
    else:
        mutated = None
    params, seen_kwonly = [], False
    for idx, (name, p) in enumerate(sig.parameters.items()):
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            error("We do not support positional-only args, varargs, or varkwargs.")
        if p.annotation is inspect.Parameter.empty:
            error(f"Parameter {name} must have a type annotation.")
        ann = hints.get(name, p.annotation)
        if isinstance(ann, str):
            ann = {"torch.Tensor": _scalar_tensor(), "Tensor": _scalar_tensor()}.get(ann, ann)
        type_ = _param_type(ann)
        if type_ is None:
            error(f"Parameter {name} has unsupported type {_spelled(_ann_repr(ann))}. The valid "
                  f"types are: {_VALID_PARAMS}.")
        if p.default is not inspect.Parameter.empty:
            default = _default_text(p.default)
            if default is None:
                error(f"Parameter {name} has an unsupported default value type "
                      f"{type(p.default)}. Please file an issue on GitHub so we can prioritize "
                      "this.")
        if mutated is None and type_.startswith("Tensor") or (mutated and name in mutated):
            if not type_.startswith("Tensor"):
                error(f"Parameter {name} is in mutable_args but only Tensors or collections of "
                      "Tensors can be mutated")
            type_ = type_.replace("Tensor", f"Tensor(a{idx}!)", 1)
        text = f"{type_} {name}"
        if p.default is not inspect.Parameter.empty:
            text += f"={default}"
        if p.kind == p.KEYWORD_ONLY and not seen_kwonly:
            params.append("*")
            seen_kwonly = True
        params.append(text)
    if mutated:
        unknown = mutated - set(sig.parameters)
        if unknown:
            error(f"{unknown} in mutates_args were not found in the custom op's signature. "
                  "mutates_args should contain the names of all args that the custom op "
                  "mutates, or just the string 'unknown' if you don't know.")
    if sig.return_annotation is inspect.Signature.empty:
        error("No return type annotation was provided. Please add one.")
    ret_ann = hints.get("return", sig.return_annotation)
    if isinstance(ret_ann, str):
        ret_ann = {"torch.Tensor": _scalar_tensor(), "Tensor": _scalar_tensor(),
                   "None": None}.get(ret_ann, ret_ann)
    ret = _return_type(ret_ann)
    if ret is None:
        error(f"Return has unsupported type {_spelled(_ann_repr(ret_ann))}. The valid types "
              f"are: {_VALID_RETURNS}.")
    if ret.startswith("(") and ret != "()" and "," not in ret:
        ret = f"({ret})"
    return f"{op_name or ''}({', '.join(params)}) -> {ret}"


def _scalar_tensor():
    import torchlike
    return torchlike.Tensor


def _ann_repr(ann):
    return repr(ann) if typing.get_origin(ann) is not None or not isinstance(ann, type) \
        else str(ann)


# ---- custom_op ---------------------------------------------------------------------------------

class CustomOpDef:
    """Mirrors `torch._library.custom_ops.CustomOpDef`: what `custom_op` returns."""

    def __init__(self, namespace, name, schema, fn, device_types=None):
        self._namespace, self._name, self._init_fn = namespace, name, fn
        self._lib = _kept(namespace)
        self._lib.define(name + schema)
        self._op = _OPS[(namespace, name, "default")]
        self._op.custom = self
        self.register_kernel(device_types)(fn)

    @property
    def _qualname(self):
        return f"{self._namespace}::{self._name}"

    @property
    def _opoverload(self):
        from . import ops
        return getattr(getattr(getattr(ops, self._namespace), self._name), "default")

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def register_fake(self, fn=None, /):
        return register_fake(self, fn, lib=self._lib)

    def register_kernel(self, device_types, fn=None, /):
        def register(f):
            keys = [device_types] if isinstance(device_types, str) or device_types is None \
                else list(device_types)
            for k in keys:
                _register(self._op.key, _DEVICE_KEYS.get(k, k), f, self._lib)
            return f
        return register if fn is None else register(fn)

    def register_autograd(self, backward, /, *, setup_context=None):
        register_autograd(self, backward, setup_context=setup_context, lib=self._lib)

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        return (lambda f: f) if fn is None else fn

    def register_vmap(self, fn=None, /):
        return (lambda f: f) if fn is None else fn

    def register_autocast(self, device_type, cast_inputs):
        return self


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Mirrors `torch.library.custom_op('ns::name', mutates_args=...)`."""
    def wrap(f):
        namespace, opname = name.split("::")
        text = schema if schema is not None else infer_schema(f, mutates_args=mutates_args)
        return CustomOpDef(namespace, opname, text, f, device_types)
    return wrap if fn is None else wrap(fn)
