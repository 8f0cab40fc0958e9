"""Mirrors `torch.jit` as it behaves for eager code. `script` and `trace` give back callables
that run the Python code: a scripted or traced function is a `ScriptFunction` calling it, a
module is copied into a `RecursiveScriptModule`/`TopLevelTracedModule` of its own (its
submodules too) sharing the original's parameters and buffers. While they run,
`torch.jit.is_scripting()` (respectively `is_tracing()` and `torch._C._get_tracing_state()`)
answers as inside PyTorch's compiled code, so code that branches on it takes the branch PyTorch
compiled; an `@torch.jit.ignore`d or `@unused` method of a scripted module runs as plain Python
(is_scripting() is False inside it), as in PyTorch. The decorators and queries libraries put on
scriptable code (`ignore`, `unused`, `export`, `Final`, `annotate`, `isinstance`...) are
PyTorch's eager behaviour.

Divergences: no TorchScript IR. A traced callable runs the Python code on every call rather than
replaying the operations recorded at trace time (so data-dependent branches are taken afresh,
and `trace` does not run the function at trace time); an ignored free function called from a
scripted function still sees is_scripting() True; a scripted function's `BroadcastingListN`
argument is not expanded from a single number (the annotation is None at run time, as in eager
PyTorch); `save`/`load` of TorchScript archives, `.code` and `.graph` are not available."""
import builtins
import collections
import functools
import threading
import typing
import warnings

from ..nn.modules.module import Module
from .._missing import NotAvailable
from . import annotations  # noqa: F401
from .annotations import BroadcastingList1, BroadcastingList2, BroadcastingList3  # noqa: F401

Final = typing.Final
Iterator = typing.Iterator
_STATE = threading.local()


def _depth(kind):
    return getattr(_STATE, kind, 0)


class _Mode:
    """Sets `is_scripting()`/`is_tracing()` for a call (`value` True) or clears it (False)."""

    def __init__(self, kind, value):
        self.kind, self.value = kind, value

    def __enter__(self):
        self.prev = _depth(self.kind)
        setattr(_STATE, self.kind, self.prev + 1 if self.value else 0)

    def __exit__(self, *exc):
        setattr(_STATE, self.kind, self.prev)
        return False


class Error(RuntimeError):
    """Mirrors `torch.jit.Error`."""


class TracerWarning(Warning):
    """Mirrors `torch.jit.TracerWarning`."""

    @staticmethod
    def ignore_lib_warnings():
        warnings.filterwarnings("ignore", category=TracerWarning, module="torch.(?!jit)")


class ScriptWarning(Warning):
    """Mirrors `torch.jit.ScriptWarning`."""


def is_scripting():
    """Mirrors `torch.jit.is_scripting`: True while a scripted function or module runs."""
    return _depth("scripting") > 0


def is_tracing():
    """Mirrors `torch.jit.is_tracing`: True while a traced function or module runs."""
    return _depth("tracing") > 0


class Attribute(collections.namedtuple("Attribute", ["value", "type"])):
    """Mirrors `torch.jit.Attribute(value, type)` (a ScriptModule stores the value)."""
    __slots__ = ()


def _unavailable(what):
    raise NotAvailable(f"torch.jit {what} is not available in torchlike (no TorchScript IR)")


class ScriptModule(Module):
    """Mirrors `torch.jit.ScriptModule`: the base of scripted and traced modules (subclassed
    directly, it is a Module whose `torch.jit.Attribute`s are stored as their values)."""

    def __setattr__(self, name, value):
        if builtins.isinstance(value, Attribute):
            value = value.value
        super().__setattr__(name, value)

    @property
    def code(self):
        _unavailable("ScriptModule.code")

    @property
    def graph(self):
        _unavailable("ScriptModule.graph")

    def save(self, *args, **kwargs):
        _unavailable("ScriptModule.save")


class RecursiveScriptModule(ScriptModule):
    """Mirrors `torch.jit.RecursiveScriptModule`: what `script` makes of a module."""
    _jit_mode = "scripting"

    @property
    def original_name(self):
        return self._original_name

    def __call__(self, *args, **kwargs):
        with _Mode(self._jit_mode, True):
            return super().__call__(*args, **kwargs)


class TracedModule(RecursiveScriptModule):
    """Mirrors `torch.jit.TracedModule`."""
    _jit_mode = "tracing"


class TopLevelTracedModule(TracedModule):
    """Mirrors `torch.jit._trace.TopLevelTracedModule`: what `trace` makes of a module."""


_CLASSES = {}


def _in_mode(fn, kind, value):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with _Mode(kind, value):
            return fn(*args, **kwargs)
    return run


def _compiled_class(cls, base):
    """`base` mixed into module class `cls`: its calls run in the jit mode, its exported methods
    too, its ignored/unused ones as plain Python."""
    key = (cls, base)
    if key not in _CLASSES:
        attrs = {"__module__": base.__module__}
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                modifier = getattr(value, "_torchscript_modifier", None)
                if callable(value) and modifier in (_EXPORT, _IGNORE, _UNUSED):
                    attrs[name] = _in_mode(value, base._jit_mode, modifier == _EXPORT)
        _CLASSES[key] = type(base.__name__, (base, cls), attrs)
    return _CLASSES[key]


def _compiled_module(mod, base):
    """A copy of module `mod` (and of its submodules) of class `base` mixed into its own,
    sharing its parameters and buffers."""
    if builtins.isinstance(mod, RecursiveScriptModule):
        return mod
    try:
        cls = _compiled_class(type(mod), base)
    except TypeError:   # a class that cannot be mixed into (a metaclass, __slots__...)
        return mod
    new = object.__new__(cls)
    state = {}
    for k, v in vars(mod).items():
        state[k] = v.copy() if type(v) in (dict, set, collections.OrderedDict) else v
    state["_modules"] = {k: None if m is None else _compiled_module(
        m, RecursiveScriptModule if base is RecursiveScriptModule else TracedModule)
        for k, m in mod._modules.items()}
    state["_original_name"] = type(mod).__name__
    object.__setattr__(new, "__dict__", state)
    return new


class ScriptFunction:
    """Mirrors `torch.jit.ScriptFunction`: a scripted or traced function."""

    def __init__(self, fn, mode):
        self._fn, self._mode = fn, mode
        self.__wrapped__ = fn
        self.name = getattr(fn, "__name__", "forward")
        self.__name__ = "ScriptFunction"
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args, **kwargs):
        with _Mode(self._mode, True):
            return self._fn(*args, **kwargs)

    def __repr__(self):
        return f"<torch.jit.ScriptFunction object at {hex(id(self))}>"

    @property
    def code(self):
        _unavailable("ScriptFunction.code")

    @property
    def graph(self):
        _unavailable("ScriptFunction.graph")

    def save(self, *args, **kwargs):
        _unavailable("ScriptFunction.save")


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Mirrors `torch.jit.script` (see the module docstring)."""
    warnings.warn("`torch.jit.script` is deprecated. Please switch to `torch.compile` or "
                  "`torch.export`.", DeprecationWarning, stacklevel=2)
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect. Use `with "
                      "torch.jit.optimized_execution()` instead", FutureWarning, stacklevel=2)
    if builtins.isinstance(obj, (ScriptFunction, ScriptModule)):
        return obj
    if builtins.isinstance(obj, Module):
        return _compiled_module(obj, RecursiveScriptModule)
    if builtins.isinstance(obj, (list, dict, tuple)):
        return obj
    if builtins.isinstance(obj, type):
        if obj.__module__ == "builtins":
            raise TypeError(f"{obj} is a built-in class")
        return obj
    if not callable(obj) or type(obj).__module__ == "builtins" and not hasattr(obj, "__code__"):
        raise TypeError(f"{type(obj)} is a built-in class")
    return ScriptFunction(obj, "scripting")


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Mirrors `torch.jit.trace` (see the module docstring)."""
    warnings.warn("`torch.jit.trace` is deprecated. Please switch to `torch.compile` or "
                  "`torch.export`.", DeprecationWarning, stacklevel=2)
    if not callable(func):
        raise RuntimeError("Could not get name of python class object")
    if example_inputs is None and example_kwarg_inputs is None:
        raise TypeError("'NoneType' object is not iterable")
    if builtins.isinstance(func, ScriptModule):
        return func
    if builtins.isinstance(func, Module):
        return _compiled_module(func, TopLevelTracedModule)
    return ScriptFunction(func, "tracing")


def trace_module(mod, inputs, *args, **kwargs):
    """Mirrors `torch.jit.trace_module`."""
    return _compiled_module(mod, TopLevelTracedModule)


_EXPORT = "export (compile this function even if nothing calls it)"
_IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
_UNUSED = "unused (ignore and replace with raising of an exception)"


def _modify(fn, modifier):
    fn._torchscript_modifier = modifier
    return fn


def export(fn):
    """Mirrors `torch.jit.export`: marks a method to be compiled with its module."""
    return _modify(fn, _EXPORT)


def unused(fn):
    """Mirrors `torch.jit.unused`: marks a function the compiler replaces by a raise."""
    if builtins.isinstance(fn, property):
        for f in (fn.fget, fn.fset):
            if f is not None:
                _modify(f, _UNUSED)
        return fn
    return _modify(fn, _UNUSED)


def ignore(drop=False, **kwargs):
    """Mirrors `torch.jit.ignore`: marks a function left to Python (as a decorator, with or
    without arguments)."""
    if callable(drop):
        return _modify(drop, _IGNORE)
    if not builtins.isinstance(drop, bool):
        raise RuntimeError("Argument to @torch.jit.ignore must be a bool or a function but got "
                           f"{drop}")
    if drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", category=FutureWarning,
                      stacklevel=2)
    modifier = _UNUSED if drop else _IGNORE
    return lambda fn: _modify(fn, modifier)


def _passthrough(fn=None, *args, **kwargs):
    if fn is None or builtins.isinstance(fn, bool):
        return lambda f: f
    return fn


interface = _passthrough
script_method = _passthrough
_overload = _passthrough
_overload_method = _passthrough
script_if_tracing = _passthrough
_script_if_tracing = script_if_tracing


def annotate(the_type, the_value):
    """Mirrors `torch.jit.annotate`: the value."""
    return the_value


def _unwrap_optional(x):
    assert x is not None, "Unwrapping null optional"
    return x


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Mirrors `torch.jit.freeze` of a scripted module in eval mode (the same module)."""
    if not builtins.isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use "
                           "torch.jit.script or torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. "
                           "Please call .eval() on your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    """Mirrors `torch.jit.optimize_for_inference` (a scripted copy in eval mode)."""
    if not builtins.isinstance(mod, ScriptModule):
        mod = script(mod)
    return mod.eval()


class Future:
    """Mirrors `torch.jit.Future` for `fork`: the result of a call made at once."""

    def __init__(self, value=None):
        self._value = value

    def wait(self):
        return self._value

    def value(self):
        return self._value

    def done(self):
        return True

    def then(self, callback):
        return Future(callback(self))

    def add_done_callback(self, callback):
        callback(self)


def fork(func, *args, **kwargs):
    """Mirrors `torch.jit.fork` in eager mode: runs `func` now and returns a Future."""
    warnings.warn("`torch.jit.fork` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    return Future(func(*args, **kwargs))


def wait(future):
    """Mirrors `torch.jit.wait`."""
    warnings.warn("`torch.jit.wait` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    return future.wait()


_fork, _wait = fork, wait


class optimized_execution:  # noqa: N801
    """Mirrors `torch.jit.optimized_execution` (a context manager with no effect)."""

    def __init__(self, should_optimize=True):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_EMPTY_WARNING = ("The inner type of a container is lost when calling torch.jit.isinstance in "
                  "eager mode. For example, List[int] would become list and therefore falsely "
                  "return True for List[float] or List[str].")
_BARE = {list: "list", tuple: "tuple", dict: "dict", typing.List: "List", typing.Tuple: "Tuple",
         typing.Dict: "Dict", typing.Optional: "Optional"}


def _matches(obj, target):
    origin, args = typing.get_origin(target), typing.get_args(target)
    if origin is None:
        return builtins.isinstance(obj, target)
    if origin is typing.Union:
        return any(_matches(obj, a) for a in args)
    if origin in (list, tuple, dict) and builtins.isinstance(obj, (list, tuple, dict)) \
            and len(obj) == 0:
        warnings.warn(_EMPTY_WARNING, stacklevel=3)
    if origin is list:
        return builtins.isinstance(obj, list) and all(_matches(x, args[0]) for x in obj)
    if origin is dict:
        return builtins.isinstance(obj, dict) and all(
            _matches(k, args[0]) and _matches(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        if args == ((),):
            args = ()
        return builtins.isinstance(obj, tuple) and len(obj) == len(args) and all(
            _matches(x, a) for x, a in zip(obj, args))
    return builtins.isinstance(obj, origin)


def isinstance(obj, target_type):  # noqa: A001
    """Mirrors `torch.jit.isinstance` in eager mode: checks containers' element types too
    (`List[int]`, `Dict[str, Tensor]`, `Optional[...]`, `Tuple[...]`)."""
    for bare, name in _BARE.items():
        if target_type is bare:
            if name.lower() == "dict":
                raise RuntimeError(f"Attempted to use {name} without contained types. Please "
                                   f"add contained type, e.g. {name}[int, int]")
            raise RuntimeError(f"Attempted to use {name} without a contained type. Please add "
                               f"a contained type, e.g. {name}[int]")
    if not (builtins.isinstance(target_type, (type, tuple))
            or typing.get_origin(target_type) is not None):
        raise RuntimeError("The second argument to `torch.jit.isinstance` must be a type or a "
                           "tuple of types")
    if builtins.isinstance(target_type, tuple):
        return any(_matches(obj, t) for t in target_type)
    return _matches(obj, target_type)
