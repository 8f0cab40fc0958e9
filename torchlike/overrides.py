"""Mirrors `torch.overrides`: the `__torch_function__` protocol. A call of a torch function,
Tensor method or operator with an argument whose class is a Tensor subclass (other than
`nn.Parameter`-like ones that disable it) goes to that class's `__torch_function__` (subclasses
before their bases, then left to right), after any active `TorchFunctionMode`.

How it costs nothing for plain tensors: the protocol switches on (`ACTIVE`) when the first such
subclass is defined or a mode is entered. The op table's generated functions test it after their
cached path (which never takes a subclass that uses the protocol); the other public functions
and methods are wrapped once at import (`dispatching`) and test it first. Divergences: Tensor
properties other than `T`/`mT`/`H`/`mH`/`real`/`imag`/`data` and the metadata methods `size`,
`dim`, `numel`, `stride`, `storage_offset`, `is_contiguous`, `element_size`, `data_ptr`,
`__len__`, `__bool__`, `__int__`, `__float__`, `__index__`, `item` do not dispatch (their results
are not tensors); arguments reach `__torch_function__` as the op table's generated functions
received them, their defaults filled in."""
import contextlib
import functools

__all__ = ["get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
           "get_default_nowrap_functions", "handle_torch_function", "has_torch_function",
           "resolve_name", "is_tensor_like", "is_tensor_method_or_property",
           "wrap_torch_function", "enable_reentrant_dispatch", "TorchFunctionMode",
           "BaseTorchFunctionMode"]

ACTIVE = [False]          # a protocol subclass exists, or a mode was entered
_SUBCLASS_OFF = [0]       # DisableTorchFunctionSubclass depth
_ALL_OFF = [0]            # DisableTorchFunction depth
_MODES = []               # the TorchFunctionMode stack


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """`__torch_function__ = _disabled_torch_function_impl` opts a subclass out of the
    protocol (as `nn.Parameter` does): its instances act as plain tensors."""
    if kwargs is None:
        kwargs = {}
    with DisableTorchFunctionSubclass():
        return func(*args, **kwargs)


def _uses_protocol(cls):
    """Whether instances of Tensor subclass `cls` dispatch to its `__torch_function__`."""
    tf = None
    for klass in cls.__mro__:
        tf = klass.__dict__.get("__torch_function__")
        if tf is not None:
            break
    tf = getattr(tf, "__func__", tf)
    return tf is not _disabled_torch_function_impl


def register_subclass(cls):
    """Called for each new Tensor subclass (by the Tensor metaclass)."""
    cls._tf = _uses_protocol(cls)
    if cls._tf:
        ACTIVE[0] = True


def _collect(args, out):
    for a in args:
        if getattr(a, "_tf", False) is True and type(a) is not type:
            out.append(a)
        elif type(a) in (list, tuple):
            for b in a:
                if getattr(b, "_tf", False) is True and type(b) is not type:
                    out.append(b)


def _get_overloaded_args(relevant_args, get_type_fn=None):
    """Mirrors `torch.overrides._get_overloaded_args`: one argument per type, subclasses before
    their bases, otherwise left to right."""
    get_type_fn = get_type_fn or type
    types, args = [], []
    for a in relevant_args:
        t = get_type_fn(a)
        if t in types or not hasattr(t, "__torch_function__"):
            continue
        tf = getattr(t.__torch_function__, "__func__", t.__torch_function__)
        if tf is _disabled_torch_function_impl:
            continue
        index = len(args)
        for i, old in enumerate(args):
            if issubclass(t, get_type_fn(old)):
                index = i
                break
        types.append(t)
        args.insert(index, a)
    return args


def _overloaded(args, kwargs):
    """The arguments of a call that take part in the protocol, in dispatch order."""
    found = []
    _collect(args, found)
    if kwargs:
        _collect(kwargs.values(), found)
    return _get_overloaded_args(found) if found else found


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Mirrors `torch.overrides.handle_torch_function`."""
    overloaded = _get_overloaded_args(
        [a for a in relevant_args if getattr(a, "_tf", False) is True])
    types = tuple(type(a) for a in overloaded)
    if _MODES and not _ALL_OFF[0]:
        with _pop_mode_temporarily() as mode:
            ret = mode.__torch_function__(public_api, types, args, kwargs)
        if ret is not NotImplemented:
            return ret
    for a in overloaded:
        ret = type(a).__torch_function__(public_api, types, args, kwargs)
        if ret is not NotImplemented:
            return ret
    name = resolve_name(public_api) or getattr(public_api, "__name__", str(public_api))
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: {[type(a) for a in overloaded]}")


def dispatch(public_api, args, kwargs):
    """The protocol for one call, or `_NOT_HANDLED` when no argument or mode takes part."""
    if _ALL_OFF[0]:
        return _NOT_HANDLED
    overloaded = [] if _SUBCLASS_OFF[0] else _overloaded(args, kwargs)
    if not overloaded and not _MODES:
        return _NOT_HANDLED
    return handle_torch_function(public_api, overloaded, *args, **(kwargs or {}))


_NOT_HANDLED = object()


def dispatching(fn, public=None):
    """`fn` (a public function or method) taking part in the protocol."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if ACTIVE[0]:
            ret = dispatch(wrapped if public is None else public, args, kwargs)
            if ret is not _NOT_HANDLED:
                return ret
        return fn(*args, **kwargs)
    wrapped._tf_wrapped = fn
    return wrapped


def has_torch_function(relevant_args):
    """Mirrors `torch.overrides.has_torch_function`."""
    if _ALL_OFF[0]:
        return False
    if _MODES:
        return True
    return not _SUBCLASS_OFF[0] and any(getattr(a, "_tf", False) is True
                                        for a in relevant_args)


def has_torch_function_unary(a):
    """Mirrors `torch.overrides.has_torch_function_unary`."""
    return has_torch_function((a,))


def has_torch_function_variadic(*args):
    """Mirrors `torch.overrides.has_torch_function_variadic`."""
    return has_torch_function(args)


_has_torch_function = has_torch_function
_has_torch_function_unary = has_torch_function_unary
_has_torch_function_variadic = has_torch_function_variadic


def is_tensor_like(inp):
    """Mirrors `torch.overrides.is_tensor_like`."""
    from ._core.tensor import Tensor
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def is_tensor_method_or_property(func):
    """Mirrors `torch.overrides.is_tensor_method_or_property`."""
    from ._core.tensor import Tensor
    name = getattr(func, "__name__", None)
    return name is not None and Tensor.__dict__.get(name) is not None and (
        Tensor.__dict__.get(name) is func or name == "__get__")


def resolve_name(f):
    """Mirrors `torch.overrides.resolve_name`: 'torch.add', 'torch.Tensor.add'."""
    from ._core.tensor import Tensor
    name = getattr(f, "__name__", None)
    if name is None:
        return None
    if Tensor.__dict__.get(name) is f:
        return f"torch.Tensor.{name}"
    module = getattr(f, "__module__", None) or ""
    if module.startswith("torchlike"):
        module = "torch" + module[len("torchlike"):]
    return f"{module}.{name}" if module else name


def get_default_nowrap_functions():
    """Mirrors `torch.overrides.get_default_nowrap_functions`."""
    from ._core.tensor import Tensor
    return {Tensor._base.__get__, Tensor.grad.__get__, Tensor._grad.__get__} \
        if isinstance(Tensor.__dict__.get("_base"), property) else set()


def get_ignored_functions():
    """Mirrors `torch.overrides.get_ignored_functions`: functions without tensor arguments."""
    import torchlike
    names = ("tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace",
             "eye", "rand", "randn", "randint", "randperm", "manual_seed", "seed",
             "is_tensor", "is_storage", "set_default_dtype", "get_default_dtype",
             "set_printoptions", "from_numpy", "as_tensor", "compile", "no_grad",
             "enable_grad", "set_grad_enabled", "is_grad_enabled")
    return {getattr(torchlike, n) for n in names if hasattr(torchlike, n)}


def get_overridable_functions():
    """Mirrors `torch.overrides.get_overridable_functions`: {namespace: functions}."""
    import torchlike
    from ._core.tensor import Tensor
    ignored = get_ignored_functions()
    out = {}
    for ns in (torchlike, torchlike.nn.functional, torchlike.linalg, torchlike.special,
               torchlike.fft):
        out[ns] = [f for n, f in vars(ns).items() if not n.startswith("_") and callable(f)
                   and not isinstance(f, type) and f not in ignored]
    out[Tensor] = [f for n, f in vars(Tensor).items() if callable(f) and not n.startswith("_")]
    return out


def wrap_torch_function(dispatcher):
    """Mirrors `torch.overrides.wrap_torch_function`: a decorator making a function take part
    in the protocol, `dispatcher(*args, **kwargs)` naming its relevant arguments."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """Mirrors `torch.overrides.enable_reentrant_dispatch` (nothing to re-enable here)."""
    yield


# ---- switching the protocol off --------------------------------------------------------------

class DisableTorchFunctionSubclass:
    """Mirrors `torch._C.DisableTorchFunctionSubclass`: inside it, subclasses'
    `__torch_function__` is not called (modes still are)."""

    def __enter__(self):
        _SUBCLASS_OFF[0] += 1
        return self

    def __exit__(self, *exc):
        _SUBCLASS_OFF[0] -= 1
        return False


class DisableTorchFunction:
    """Mirrors `torch._C.DisableTorchFunction`: no subclass or mode is called inside it."""

    def __enter__(self):
        _ALL_OFF[0] += 1
        _SUBCLASS_OFF[0] += 1
        return self

    def __exit__(self, *exc):
        _ALL_OFF[0] -= 1
        _SUBCLASS_OFF[0] -= 1
        return False


def _is_torch_function_mode_enabled():
    return bool(_MODES) and not _ALL_OFF[0]


# ---- modes --------------------------------------------------------------------------------------

class TorchFunctionMode:
    """Mirrors `torch.overrides.TorchFunctionMode`: `with mode:` sends every torch call to its
    `__torch_function__` (outside the mode's own handler)."""

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """Mirrors `torch.overrides.BaseTorchFunctionMode`: runs the function."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _push_mode(mode):
    _MODES.append(mode)
    ACTIVE[0] = True


def _pop_mode():
    return _MODES.pop()


def _get_current_function_mode():
    return _MODES[-1] if _MODES else None


def _get_current_function_mode_stack():
    return list(_MODES)


def _len_torch_function_stack():
    return len(_MODES)


def _get_function_stack_at(i):
    return _MODES[i]


def _push_on_torch_function_stack(mode):
    _push_mode(mode)


def _pop_torch_function_stack():
    return _pop_mode()


@contextlib.contextmanager
def _pop_mode_temporarily():
    mode = _MODES.pop()
    try:
        yield mode
    finally:
        _MODES.append(mode)


# ---- installation -------------------------------------------------------------------------------

# Tensor methods whose results are not tensors: they do not dispatch (see the module docstring)
_METADATA = frozenset((
    "size", "dim", "numel", "stride", "storage_offset", "is_contiguous", "element_size",
    "data_ptr", "nelement", "ndimension", "__len__", "__bool__", "__int__", "__float__",
    "__index__", "__complex__", "item", "__hash__", "__init__", "__new__", "__getattr__",
    "__setattr__", "__delattr__", "__getattribute__", "__dir__", "__reduce__", "__reduce_ex__",
    "__setstate__", "__getstate__", "__init_subclass__", "__subclasshook__", "__sizeof__",
    "__class_getitem__", "__torch_function__", "as_subclass", "_value", "__array_priority__",
    "__weakref__", "__dict__", "__module__", "__doc__", "__slots__", "__qualname__"))
_PROPERTIES = ("T", "mT", "H", "mH", "real", "imag", "data")
# functions that take no tensors (PyTorch's factory functions do not dispatch)
_FACTORIES = frozenset((
    "tensor", "zeros", "ones", "empty", "full", "arange", "range", "linspace", "logspace",
    "eye", "rand", "randn", "randint", "randperm", "manual_seed", "seed", "initial_seed",
    "is_tensor", "is_storage", "set_default_dtype", "get_default_dtype", "set_printoptions",
    "get_printoptions", "from_numpy", "as_tensor", "asarray", "compile", "empty_strided",
    "set_default_device", "get_default_device", "set_default_tensor_type", "get_rng_state",
    "set_rng_state", "frombuffer", "load", "save", "tril_indices", "triu_indices",
    "hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window",
    "promote_types", "result_type", "can_cast", "is_grad_enabled", "set_grad_enabled",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled", "get_num_threads",
    "set_num_threads", "vmap", "typename", "is_floating_point", "is_complex", "is_nonzero",
    "numel"))


def _wrap_property(prop):
    getter = prop.fget
    public = []

    def fget(self):
        if ACTIVE[0]:
            ret = dispatch(public[0], (self,), None)
            if ret is not _NOT_HANDLED:
                return ret
        return getter(self)
    new = property(fget, prop.fset, prop.fdel, prop.__doc__)
    public.append(new.__get__)
    return new


def install(torchlike, generated):
    """Wraps the public functions of torch's namespaces and the Tensor methods that the op table
    did not generate (`generated`: the ids of those it did) with `dispatching`."""
    import types as _types
    from ._core.tensor import Tensor
    for name, value in list(vars(Tensor).items()):
        if name in _METADATA or id(value) in generated:
            continue
        if isinstance(value, _types.FunctionType) and (
                not name.startswith("_") or name.startswith("__")):
            setattr(Tensor, name, _named(dispatching(value), name, "Tensor." + name))
    for name in _PROPERTIES:
        prop = vars(Tensor).get(name)
        if isinstance(prop, property):
            setattr(Tensor, name, _wrap_property(prop))
    for ns in (torchlike, torchlike.nn.functional, torchlike.linalg, torchlike.special,
               torchlike.fft):
        for name, value in list(vars(ns).items()):
            if name.startswith("_") or name in _FACTORIES or id(value) in generated:
                continue
            if isinstance(value, _types.FunctionType):
                setattr(ns, name, _named(dispatching(value), name, name))


def _named(fn, name, qualname):
    fn.__name__, fn.__qualname__ = name, qualname
    return fn
