"""Mirrors `torch.overrides`: the `__torch_function__` protocol. A call of a torch function,
Tensor method or operator with an argument whose class is a Tensor subclass (other than
`nn.Parameter`-like ones that disable it) goes to that class's `__torch_function__` (subclasses
before their bases, then left to right), after any active `TorchFunctionMode`.

How it costs nothing for plain tensors: the protocol switches on (`ACTIVE`) when the first such
subclass is defined or a mode is entered. The op table's generated functions test it after their
cached path (which never takes a subclass that uses the protocol, and is switched off while a
mode is entered: see `_cached_paths`); the other public functions and methods are wrapped once
at import (`dispatching`) and test it first. Factory functions (`torch.zeros`, `torch.tensor`,
...), which take no tensor, only ever reach a mode: they are wrapped when the first mode is
entered.

What a handler sees is PyTorch's: `func` is the public function PyTorch names (`Tensor.add` for
`x + y`, `Tensor.__rsub__` for `1 - x`, `torch.absolute` apart from `torch.abs`), `types` also
holds plain `Tensor` for the functions PyTorch writes in Python (most of `nn.functional`,
`torch.einsum`, `Tensor.split`, ...) and for the methods it gives `self` alone (`x.neg()`,
`-x`: what a mode sees), a binary operator no handler implements returns NotImplemented, and
the TypeError when none did is PyTorch's.

Divergences: Tensor properties other than `T`/`mT`/`H`/`mH`/`real`/`imag`/`data` and the
metadata methods `size`, `dim`, `numel`, `stride`, `storage_offset`, `is_contiguous`,
`element_size`, `data_ptr`, `__len__`, `__bool__`, `__int__`, `__float__`, `__index__`, `item`
do not dispatch (their results are not tensors); arguments reach `__torch_function__` as the
call gave them (those of the op table's generated functions with their defaults filled in:
`torch.sum(x)` hands on `(x, None, False)`, `{'dtype': None}`), not always in the form
PyTorch's own functions pass them on; an object that is not a Tensor but has a
`__torch_function__` takes part only through `handle_torch_function` / `has_torch_function`
(torch's own functions do not dispatch on it)."""
import contextlib
import functools

from ._core import frames

__all__ = ["get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
           "get_default_nowrap_functions", "handle_torch_function", "has_torch_function",
           "resolve_name", "is_tensor_like", "is_tensor_method_or_property",
           "wrap_torch_function", "enable_reentrant_dispatch", "TorchFunctionMode",
           "BaseTorchFunctionMode"]

ACTIVE = [False]          # a protocol subclass exists, or a mode was entered
_SUBCLASS_OFF = [0]       # DisableTorchFunctionSubclass depth
_ALL_OFF = [0]            # DisableTorchFunction depth
_MODES = []               # the TorchFunctionMode stack
_TENSOR = []              # [torchlike.Tensor], once `install` ran


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
    """The arguments of protocol subclasses (top level, or in a list/tuple argument)."""
    for a in args:
        if getattr(a, "_tf", False) is True and not isinstance(a, type):
            out.append(a)
        elif type(a) in (list, tuple):
            for b in a:
                if getattr(b, "_tf", False) is True and not isinstance(b, type):
                    out.append(b)


def _collect_py(args, out):
    """As `_collect`, plain tensors too: what PyTorch's Python-level functions pass on."""
    plain = _TENSOR[0]
    for a in args:
        if type(a) is plain or getattr(a, "_tf", False) is True and not isinstance(a, type):
            out.append(a)
        elif type(a) in (list, tuple):
            for b in a:
                if type(b) is plain or \
                        getattr(b, "_tf", False) is True and not isinstance(b, type):
                    out.append(b)


def _torch_function_of(t):
    tf = getattr(t, "__torch_function__", None)
    if tf is None:
        return None
    return getattr(tf, "__func__", tf)


def _get_overloaded_args(relevant_args, get_type_fn=None):
    """Mirrors `torch.overrides._get_overloaded_args`: one argument per type, subclasses before
    their bases, otherwise left to right."""
    get_type_fn = get_type_fn or type
    types, args = [], []
    for a in relevant_args:
        t = get_type_fn(a)
        if t in types:
            continue
        tf = _torch_function_of(t)
        if tf is None or tf is _disabled_torch_function_impl:
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
    """Mirrors `torch.overrides.handle_torch_function` (as PyTorch's Python-level functions
    call it: `types` holds plain `Tensor` too)."""
    overloaded = [] if _SUBCLASS_OFF[0] else _get_overloaded_args(relevant_args)
    return _handle(public_api, overloaded, args, kwargs, True)


def _handle(public_api, overloaded, args, kwargs, py):
    """Calls the active mode's, then each overloaded argument's `__torch_function__` until one
    does not return NotImplemented; PyTorch's TypeError when none did."""
    types = tuple(type(a) for a in overloaded)
    mode = None
    if _MODES and not _ALL_OFF[0]:
        with _pop_mode_temporarily() as mode:
            ret = mode.__torch_function__(public_api, types, args, kwargs)
        if ret is not NotImplemented:
            return ret
    for a in overloaded:
        ret = a.__torch_function__(public_api, types, args, kwargs)
        if ret is not NotImplemented:
            return ret
    if py:
        module = getattr(public_api, "_tf_module", None) or getattr(public_api, "__module__", "")
        name = f"{module}.{getattr(public_api, '__name__', public_api)}"
        msg = (f"no implementation found for '{name}' on types that implement "
               f"__torch_function__: {[type(a) for a in overloaded]}")
        if mode is not None:
            msg += f" nor in mode {mode!r}"
        raise TypeError(msg)
    name = getattr(public_api, "_tf_cname", None) or resolve_name(public_api) or \
        getattr(public_api, "__name__", str(public_api))
    lines = ([f"  - mode object {mode!r}\n"] if mode is not None else []) + \
        [f"  - tensor subclass {t!r}\n" for t in types]
    raise TypeError(f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers "
                    f"returned NotImplemented:\n\n{''.join(lines)}\nFor more information, try "
                    f"re-running with TORCH_LOGS=not_implemented")


def dispatch(public_api, args, kwargs):
    """The protocol for one call of `public_api` (an op-table function, or a function PyTorch
    implements in C++), or `_NOT_HANDLED` when no argument or mode takes part."""
    if _ALL_OFF[0]:
        return _NOT_HANDLED
    found = []
    if not _SUBCLASS_OFF[0]:
        _collect(args, found)
        if kwargs:
            _collect(kwargs.values(), found)
    if not found and not _MODES:
        return _NOT_HANDLED
    if public_api in _PY_LEVEL_FUNCS:
        return dispatch_py(public_api, args, kwargs)
    if public_api in _SELF_FUNCS:
        return dispatch_py(public_api, args, kwargs, False)
    return _handle(public_api, _get_overloaded_args(found) if found else found, args,
                   kwargs or None, False)


def dispatch_py(public_api, args, kwargs, python_error=True):
    """`dispatch` for a function PyTorch writes in Python: plain tensors are among the
    overloaded arguments (their `Tensor` in `types`); `python_error`: a failed dispatch raises
    the error of PyTorch's Python-level `handle_torch_function` (a property's getter raises
    that of C++)."""
    if _ALL_OFF[0]:
        return _NOT_HANDLED
    found = []
    if not _SUBCLASS_OFF[0]:
        _collect_py(args, found)
        if kwargs:
            _collect_py(kwargs.values(), found)
    if not _MODES and not any(a._tf for a in found):
        return _NOT_HANDLED
    return _handle(public_api, _get_overloaded_args(found) if found else found, args,
                   kwargs if python_error else kwargs or None, python_error)


def dispatch_self(public_api, args, kwargs):
    """`dispatch` for a Tensor method PyTorch's C++ gives no argument but `self`: `types` holds
    its plain `Tensor` too (a mode sees it)."""
    return dispatch_py(public_api, args, kwargs, False)


def dispatch_binary(public_api, args, kwargs, py=False):
    """`dispatch` for a binary operator dunder: when every handler returned NotImplemented
    (PyTorch's TypeError), the operator returns NotImplemented, as PyTorch's do."""
    try:
        return (dispatch_py if py else dispatch)(public_api, args, kwargs)
    except TypeError:
        return NotImplemented


def dispatch_binary_py(public_api, args, kwargs):
    return dispatch_binary(public_api, args, kwargs, True)


_NOT_HANDLED = object()
_PY_LEVEL_FUNCS = set()   # the op-table functions PyTorch writes in Python (filled by `install`)
_SELF_FUNCS = set()       # the op-table methods of `_SELF_ONLY` (filled by `install`)


# the wrapper's code is compiled under `frames`' file name, which `warnings` does not count as
# a frame: a warning raised by the wrapped function still names the user's line
_WRAPPER = """
def wrapped(*args, **kwargs):
    if ACTIVE[0]:
        ret = how(public[0], args, kwargs)
        if ret is not NOT_HANDLED:
            return ret
    return fn(*args, **kwargs)
"""


def dispatching(fn, public=None, py=False, binary=False, self_only=False):
    """`fn` (a public function or method) taking part in the protocol; `py`: PyTorch writes it
    in Python (see `dispatch_py`); `binary`: an operator that returns NotImplemented when no
    handler implements it; `self_only`: see `dispatch_self`."""
    how = (dispatch_binary_py if py else dispatch_binary) if binary else \
        dispatch_py if py else dispatch_self if self_only else dispatch

    cell = [public]
    wrapped = frames.define(_WRAPPER, {"ACTIVE": ACTIVE, "how": how, "fn": fn, "public": cell,
                                       "NOT_HANDLED": _NOT_HANDLED}, "wrapped")
    functools.update_wrapper(wrapped, fn)
    if public is None:
        cell[0] = wrapped
    wrapped._tf_wrapped = fn
    return wrapped


def _is_overloaded(a):
    """Whether `a` takes part in the protocol: a protocol subclass instance, or any other object
    whose type has a `__torch_function__` (a plain Tensor and `nn.Parameter` do not)."""
    if getattr(a, "_tf", None) is not None:
        return a._tf is True and not isinstance(a, type)
    t = type(a)
    tf = _torch_function_of(t)
    return tf is not None and tf is not _disabled_torch_function_impl and t is not type


def has_torch_function(relevant_args):
    """Mirrors `torch.overrides.has_torch_function`."""
    if _ALL_OFF[0]:
        return False
    if _MODES:
        return True
    return not _SUBCLASS_OFF[0] and any(_is_overloaded(a) for a in relevant_args)


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
    """Mirrors `torch.overrides.resolve_name`: 'torch.add', 'torch.Tensor.add',
    'torch.nn.functional.relu', 'torch.Tensor.T.__get__'."""
    name = getattr(f, "_tf_name", None)
    if name is not None:
        return name
    from ._core.tensor import Tensor
    if getattr(f, "__name__", None) == "__get__":
        prop = getattr(f, "__self__", None)
        for n, v in vars(Tensor).items():
            if v is prop and prop is not None:
                return f"torch.Tensor.{n}.__get__"
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


def get_testing_overrides():
    """Mirrors `torch.overrides.get_testing_overrides`: {overridable function: a dummy of the
    same signature that returns -1}."""
    def dummy(func):
        @functools.wraps(func)
        def returns_minus_one(*args, **kwargs):
            return -1
        return returns_minus_one
    return {f: dummy(f) for fns in get_overridable_functions().values() for f in fns}


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
    if not _FACTORIES_WRAPPED[0]:
        _wrap_factories()
    if not _ENTERED[0]:
        _cached_paths(False)
    _ENTERED[0] += 1
    _MODES.append(mode)
    ACTIVE[0] = True


def _pop_mode():
    mode = _MODES.pop()
    _ENTERED[0] -= 1
    if not _ENTERED[0]:
        _cached_paths(True)
    return mode


_ENTERED = [0]     # modes entered (those popped while their handler runs still count)
_MISS = {}.get     # the cached path's lookup while a mode is entered: never an answer
_SWAPPED = {}      # id(globals of a generated function) -> (its globals, its cached lookup)


def _cached_paths(on):
    """Turns the cached path of the op table's generated functions (see `_ops/fastpath.py`)
    off while a mode is entered, so that the mode sees their calls on plain tensors too, and
    back on when the last mode exits: the functions read the lookup from their globals."""
    if on:
        for ns, get in _SWAPPED.values():
            if ns.get("_fast_get") is _MISS:
                ns["_fast_get"] = get
        _SWAPPED.clear()
        return
    for fn in list(_GENERATED[0]) if _GENERATED else ():
        ns = fn.__globals__
        get = ns.get("_fast_get")
        if get is not None and get is not _MISS:
            _SWAPPED[id(ns)] = (ns, get)
            ns["_fast_get"] = _MISS


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

# Tensor methods whose results are not tensors: they do not dispatch (see the module docstring);
# `__iter__` does not either (in PyTorch neither: the `unbind` it calls does)
_METADATA = frozenset((
    "size", "dim", "numel", "stride", "storage_offset", "is_contiguous", "element_size",
    "data_ptr", "nelement", "ndimension", "__len__", "__bool__", "__int__", "__float__",
    "__index__", "__complex__", "item", "__hash__", "__init__", "__new__", "__getattr__",
    "__setattr__", "__delattr__", "__getattribute__", "__iter__", "__setstate__",
    "__getstate__", "__init_subclass__", "__subclasshook__", "__sizeof__", "__reduce__",
    "__class_getitem__", "__torch_function__", "as_subclass", "_value", "__array_priority__",
    "__weakref__", "__dict__", "__module__", "__doc__", "__slots__", "__qualname__"))
_PROPERTIES = ("T", "mT", "H", "mH", "real", "imag", "data")
# functions that take no tensors: they reach a mode only (wrapped when the first one is entered)
_FACTORIES = frozenset((
    "tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye", "rand",
    "randn", "randint", "randperm", "as_tensor", "asarray", "empty_strided", "tril_indices",
    "triu_indices", "hann_window", "hamming_window", "bartlett_window", "blackman_window",
    "kaiser_window", "promote_types", "can_cast", "scalar_tensor"))
# functions that never dispatch (PyTorch's do not either)
_NEVER = frozenset((
    "range", "manual_seed", "seed", "initial_seed", "is_tensor", "is_storage",
    "set_default_dtype", "get_default_dtype", "set_printoptions", "get_printoptions",
    "from_numpy", "compile", "set_default_device", "get_default_device",
    "set_default_tensor_type", "get_rng_state", "set_rng_state", "frombuffer", "load", "save",
    "is_grad_enabled", "set_grad_enabled", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "get_num_threads", "set_num_threads", "vmap",
    "typename", "numel", "broadcast_shapes"))
_FACTORIES_WRAPPED = [False]

# The functions PyTorch writes in Python (`types` holds plain `Tensor` too; a failed dispatch
# says "no implementation found for 'module.name'"), per namespace, with that module
_PY_LEVEL = {
    "torch": ("torch.functional", frozenset((
        "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_tensors",
        "cartesian_prod", "cdist", "chain_matmul", "einsum", "meshgrid", "norm", "split",
        "tensordot", "unique", "unique_consecutive"))),
    "nn.functional": ("torch.nn.functional", frozenset((
        "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
        "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
        "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
        "adaptive_max_pool3d_with_indices", "affine_grid", "alpha_dropout", "batch_norm",
        "binary_cross_entropy", "binary_cross_entropy_with_logits", "celu",
        "cosine_embedding_loss", "cross_entropy", "ctc_loss", "dropout", "dropout1d",
        "dropout2d", "dropout3d", "elu", "embedding", "embedding_bag", "feature_alpha_dropout",
        "fold", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
        "fractional_max_pool3d", "fractional_max_pool3d_with_indices", "gaussian_nll_loss",
        "glu", "grid_sample", "group_norm", "gumbel_softmax", "hardsigmoid", "hardswish",
        "hardtanh", "hinge_embedding_loss", "huber_loss", "instance_norm", "interpolate",
        "kl_div", "l1_loss", "layer_norm", "leaky_relu", "local_response_norm", "log_softmax",
        "lp_pool1d", "lp_pool2d", "lp_pool3d", "margin_ranking_loss", "max_pool1d",
        "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices", "max_pool3d",
        "max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d", "mish",
        "mse_loss", "multi_head_attention_forward", "multi_margin_loss",
        "multilabel_margin_loss", "multilabel_soft_margin_loss", "nll_loss", "normalize", "pad",
        "poisson_nll_loss", "relu", "relu6", "rms_norm", "rrelu", "selu", "sigmoid", "silu",
        "smooth_l1_loss", "soft_margin_loss", "softmax", "softmin", "softsign", "tanh",
        "tanhshrink", "threshold", "triplet_margin_loss", "triplet_margin_with_distance_loss",
        "unfold", "upsample", "upsample_bilinear", "upsample_nearest"))),
    "Tensor": ("torch._tensor", frozenset((
        "__array__", "__array_wrap__", "__contains__", "__deepcopy__", "__dir__", "__dlpack__",
        "__dlpack_device__", "__floordiv__", "__format__", "__ipow__", "__len__", "__pow__",
        "__rdiv__", "__reduce_ex__", "__repr__", "__rfloordiv__", "__rlshift__", "__rmatmul__",
        "__rmod__", "__rpow__", "__rrshift__", "__rsub__", "__rtruediv__", "backward",
        "dim_order", "norm", "register_hook", "register_post_accumulate_grad_hook",
        "share_memory_", "split", "storage", "storage_type", "unflatten", "unique",
        "unique_consecutive"))),
}
# Python-level functions of other modules that take part (PyTorch's call handle_torch_function)
_EXTRA = {"autograd": ("torch.autograd", ("grad", "backward")),
          "nn.init": ("torch.nn.init", ("kaiming_uniform_", "normal_", "uniform_"))}
# How PyTorch's C++ names a namespace's functions in its dispatch errors
_C_NAMES = {"torch": "torch.{}", "nn.functional": "torch.nn.{}", "linalg": "torch.linalg.linalg_{}",
            "special": "torch.special.special_{}", "fft": "torch.fft.fft_{}",
            "Tensor": "torch.Tensor.{}"}
_NAMES = {"torch": "torch.{}", "nn.functional": "torch.nn.functional.{}",
          "autograd": "torch.autograd.{}", "nn.init": "torch.nn.init.{}",
          "linalg": "torch.linalg.{}", "special": "torch.special.{}", "fft": "torch.fft.{}",
          "Tensor": "torch.Tensor.{}"}

# Tensor methods whose only argument is `self` (PyTorch's C++ puts a plain `self` in `types`)
_SELF_ONLY = frozenset((
    "__invert__", "abs", "abs_", "absolute", "absolute_", "acos", "acos_", "acosh", "acosh_",
    "adjoint", "angle", "arccos", "arccos_", "arccosh", "arccosh_", "arcsin", "arcsin_",
    "arcsinh", "arcsinh_", "arctan", "arctan_", "arctanh", "arctanh_", "argwhere", "asin",
    "asin_", "asinh", "asinh_", "atan", "atan_", "atanh", "atanh_", "bitwise_not",
    "bitwise_not_", "ceil", "ceil_", "conj", "conj_physical", "conj_physical_", "corrcoef", "cos",
    "cos_", "cosh", "cosh_", "deg2rad", "deg2rad_", "dense_dim", "dequantize", "det", "detach",
    "detach_", "digamma", "digamma_", "erf", "erf_", "erfc", "erfc_", "erfinv", "erfinv_", "exp",
    "exp2", "exp2_", "exp_", "expm1", "expm1_", "fix", "fix_", "fliplr", "flipud", "floor",
    "floor_", "frac", "frac_", "frexp", "geqrf", "get_device", "i0", "i0_", "is_complex",
    "is_conj", "is_distributed", "is_floating_point", "is_inference", "is_neg", "is_signed",
    "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal", "lgamma", "lgamma_", "log",
    "log10", "log10_", "log1p", "log1p_", "log2", "log2_", "log_", "logdet", "logical_not",
    "logical_not_", "matrix_exp", "msort", "neg", "neg_", "negative", "negative_", "new",
    "positive", "rad2deg", "rad2deg_", "ravel", "reciprocal", "reciprocal_", "relu", "relu_",
    "resolve_conj", "resolve_neg", "rsqrt", "rsqrt_", "sgn", "sgn_", "sigmoid", "sigmoid_",
    "sign", "sign_", "signbit", "sin", "sin_", "sinc", "sinc_", "sinh", "sinh_", "slogdet",
    "sparse_dim", "sqrt", "sqrt_", "square", "square_", "t", "t_", "tan", "tan_", "tanh",
    "tanh_", "tolist", "trace", "trunc", "trunc_", "zero_"))

# Operator dunders: the public function PyTorch hands `__torch_function__` (`x + y` is
# `Tensor.add(x, y)`; the others name themselves)
DUNDER_PUBLIC = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div",
    "__div__": "div", "__itruediv__": "div_", "__idiv__": "div_", "__rtruediv__": "__rdiv__",
    "__ifloordiv__": "floor_divide_", "__mod__": "remainder", "__imod__": "remainder_",
    "__pow__": "pow", "__ipow__": "pow_", "__matmul__": "matmul", "__rand__": "bitwise_and",
    "__ror__": "bitwise_or", "__rxor__": "bitwise_xor", "__ne__": "ne", "__lt__": "lt",
    "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__neg__": "neg", "__pos__": "positive",
    "__abs__": "abs"}
# binary operator dunders: when no handler implements them they return NotImplemented (as
# PyTorch's do), so Python tries the reflected operator and raises its own TypeError
_BINARY = frozenset(
    f"__{p}{stem}__" for stem in ("add", "sub", "mul", "truediv", "div", "floordiv", "mod",
                                  "pow", "matmul", "and", "or", "xor", "lshift", "rshift")
    for p in ("", "r", "i")) | {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}


def is_binary_dunder(name):
    return name in _BINARY


def _wrap_property(prop):
    getter = prop.fget
    public = []

    def fget(self):
        if ACTIVE[0]:
            ret = dispatch_py(public[0], (self,), None, False)
            if ret is not _NOT_HANDLED:
                return ret
        return getter(self)
    new = property(fget, prop.fset, prop.fdel, prop.__doc__)
    public.append(new.__get__)
    return new


_NAMESPACES = []   # (key, module) pairs, once installed
_GENERATED = []


def install(torchlike, generated):
    """Wraps the public functions of torch's namespaces and the Tensor methods that the op table
    did not generate (`generated`: those it did) with `dispatching`; names them all as PyTorch
    does (`resolve_name`, dispatch errors)."""
    import types as _types
    from ._core.tensor import Tensor
    _TENSOR[:] = [Tensor]
    _GENERATED[:] = [generated]
    tensor_py = _PY_LEVEL["Tensor"][1]
    for name, value in list(vars(Tensor).items()):
        if name in _METADATA or not isinstance(value, _types.FunctionType) or \
                name.startswith("_") and not name.startswith("__"):
            continue
        if value in generated:
            value = _label(_own(value, name), "Tensor", name)
            setattr(Tensor, name, value)
            if name in _SELF_ONLY:
                _SELF_FUNCS.add(value)
            continue
        public_name = DUNDER_PUBLIC.get(name)
        if public_name is not None:   # its public function is wrapped (below) once all exist
            continue
        setattr(Tensor, name, _label(_named(dispatching(
            value, py=name in tensor_py, binary=is_binary_dunder(name),
            self_only=name in _SELF_ONLY), name, "Tensor." + name), "Tensor", name))
    for name, public_name in DUNDER_PUBLIC.items():
        value = vars(Tensor).get(name)
        if isinstance(value, _types.FunctionType) and value not in generated:
            setattr(Tensor, name, _named(dispatching(
                value, public=getattr(Tensor, public_name), py=name in tensor_py,
                binary=is_binary_dunder(name), self_only=public_name in _SELF_ONLY), name,
                "Tensor." + name))
    for name in _PROPERTIES:
        prop = vars(Tensor).get(name)
        if isinstance(prop, property):
            setattr(Tensor, name, _wrap_property(prop))
    for name in tensor_py:
        value = vars(Tensor).get(name)
        if value in generated and name not in DUNDER_PUBLIC:
            _PY_LEVEL_FUNCS.add(value)
    _NAMESPACES[:] = [("torch", torchlike), ("nn.functional", torchlike.nn.functional),
                      ("linalg", torchlike.linalg), ("special", torchlike.special),
                      ("fft", torchlike.fft)]
    for key, ns in _NAMESPACES:
        py = _PY_LEVEL.get(key, ("", ()))[1]
        for name, value in list(vars(ns).items()):
            if name.startswith("_") or name in _NEVER or name in _FACTORIES and key == "torch":
                continue
            # PyTorch's own name of the function: `special_erf`, `fft_fft`, `linalg_norm`
            own = name if key in ("torch", "nn.functional") else f"{key}_{name}"
            if isinstance(value, _types.FunctionType) and value in generated:
                value = _label(_own(value, own), key, name)
                setattr(ns, name, value)
                if name in py:
                    _PY_LEVEL_FUNCS.add(value)
            elif isinstance(value, _types.FunctionType):
                setattr(ns, name, _label(_named(dispatching(value, py=name in py), own, own),
                                         key, name))
    for key, ns in (("autograd", torchlike.autograd), ("nn.init", torchlike.nn.init)):
        for name in _EXTRA[key][1]:
            value = vars(ns).get(name)
            if isinstance(value, _types.FunctionType):
                setattr(ns, name, _label(_named(dispatching(value, py=True), name, name),
                                         key, name))


def _own(fn, name):
    """Generated function `fn`, or a copy of it named `name` (PyTorch's: `special_erf`,
    `fft_fft`) when another namespace already published it (`torch.erf`, `torch.special.erf`):
    PyTorch's are distinct functions, which handlers tell apart (`func is
    torch.Tensor.clone`)."""
    if getattr(fn, "_tf_name", None) is None:
        return fn
    from ._ops.registry import _renamed
    return _renamed(fn, name)


def _label(fn, key, name):
    """Gives `fn` PyTorch's names for it: `resolve_name`'s, that of a dispatch error (and for a
    function PyTorch writes in Python, its module). An op-table function shared by several
    namespaces keeps the first it got."""
    if getattr(fn, "_tf_name", None) is None:
        fn._tf_name = _NAMES[key].format(name)
        fn._tf_cname = _C_NAMES.get(key, _NAMES[key]).format(name)
        module, py = _PY_LEVEL.get(key) or _EXTRA.get(key) or (None, ())
        if name in py:
            fn._tf_module = module
            if key == "torch":
                fn._tf_name = f"{module}.{name}"
    return fn


def _wrap_factories():
    """Factory functions reaching modes: wrapped when the first mode is entered."""
    _FACTORIES_WRAPPED[0] = True
    for key, ns in _NAMESPACES[:1]:
        for name in _FACTORIES:
            value = vars(ns).get(name)
            if callable(value) and not isinstance(value, type) and \
                    not hasattr(value, "_tf_wrapped") and value not in _GENERATED[0]:
                setattr(ns, name, _label(_named(dispatching(value), name, name), key, name))


def _named(fn, name, qualname):
    fn.__name__, fn.__qualname__ = name, qualname
    return fn
