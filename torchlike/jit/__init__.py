"""Mirrors `torch.jit` as it behaves for eager code: `script` and `trace` give back callables
that run the Python code (a scripted module is the module), and the decorators and queries
libraries put on code meant to be scriptable (`ignore`, `unused`, `export`, `is_scripting`,
`is_tracing`, `Final`, `annotations`...) are PyTorch's eager no-ops. Divergence: no TorchScript
IR, so `save`/`load` of TorchScript archives are not available."""
import typing
import warnings

from . import annotations  # noqa: F401
from .annotations import BroadcastingList1, BroadcastingList2, BroadcastingList3  # noqa: F401

Final = typing.Final
Iterator = typing.Iterator


class Error(RuntimeError):
    """Mirrors `torch.jit.Error`."""


class TracerWarning(Warning):
    """Mirrors `torch.jit.TracerWarning`."""

    @staticmethod
    def ignore_lib_warnings():
        warnings.filterwarnings("ignore", category=TracerWarning, module="torch.(?!jit)")


class ScriptWarning(Warning):
    """Mirrors `torch.jit.ScriptWarning`."""


class ScriptModule:
    """Mirrors `torch.jit.ScriptModule` (nothing is a ScriptModule in torchlike)."""


class ScriptFunction:
    """Mirrors `torch.jit.ScriptFunction` (nothing is a ScriptFunction in torchlike)."""


RecursiveScriptModule = ScriptModule


def is_scripting():
    """Mirrors `torch.jit.is_scripting`: False, as in eager PyTorch."""
    return False


def is_tracing():
    """Mirrors `torch.jit.is_tracing`: False, as in eager PyTorch."""
    return False


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Mirrors `torch.jit.script`: the function or module itself, which runs as Python."""
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect. Use `with "
                      "torch.jit.optimized_execution()` instead", FutureWarning, stacklevel=2)
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Mirrors `torch.jit.trace`: the function or module itself, which runs as Python."""
    return func


def trace_module(mod, inputs, *args, **kwargs):
    """Mirrors `torch.jit.trace_module`."""
    return mod


def _decorator(drop_default=False):
    def make(fn=None, **kwargs):
        if fn is None or isinstance(fn, bool):
            return lambda f: f
        return fn
    return make


ignore = _decorator()
unused = _decorator()
export = _decorator()
interface = _decorator()
script_method = _decorator()
_overload = _decorator()
_overload_method = _decorator()
script_if_tracing = _decorator()
_script_if_tracing = script_if_tracing


def annotate(the_type, the_value):
    """Mirrors `torch.jit.annotate`: the value."""
    return the_value


def Attribute(value, type):  # noqa: N802,A002
    """Mirrors `torch.jit.Attribute` in eager mode: the value."""
    return value


def _unwrap_optional(x):
    assert x is not None, "Unwrapping null optional"
    return x


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Mirrors `torch.jit.freeze` (a module in torchlike is never scripted, so it is itself)."""
    return mod


def optimize_for_inference(mod, other_methods=None):
    """Mirrors `torch.jit.optimize_for_inference`."""
    return mod


class Future:
    """Mirrors `torch.jit.Future` for `fork`: the result of a call made at once."""

    def __init__(self, value=None, exc=None):
        self._value, self._exc = value, exc

    def wait(self):
        if self._exc is not None:
            raise self._exc
        return self._value

    def value(self):
        return self.wait()

    def done(self):
        return True


def fork(func, *args, **kwargs):
    """Mirrors `torch.jit.fork`: runs `func` now (as eager PyTorch does) and returns a Future."""
    try:
        return Future(func(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 - raised again by wait(), as PyTorch does
        return Future(exc=e)


def wait(future):
    """Mirrors `torch.jit.wait`."""
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


def isinstance(obj, target_type):  # noqa: A001
    """Mirrors `torch.jit.isinstance`: checks containers' element types too
    (`List[int]`, `Dict[str, Tensor]`, `Optional[...]`, `Tuple[...]`)."""
    import builtins
    origin = typing.get_origin(target_type)
    args = typing.get_args(target_type)
    if origin is None:
        return builtins.isinstance(obj, target_type)
    if origin is typing.Union:
        return any(isinstance(obj, a) for a in args)
    if origin in (list, typing.List):
        return builtins.isinstance(obj, list) and all(isinstance(x, args[0]) for x in obj)
    if origin in (dict, typing.Dict):
        return builtins.isinstance(obj, dict) and all(
            isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    if origin in (tuple, typing.Tuple):
        return builtins.isinstance(obj, tuple) and len(obj) == len(args) and all(
            isinstance(x, a) for x, a in zip(obj, args))
    return builtins.isinstance(obj, origin)
