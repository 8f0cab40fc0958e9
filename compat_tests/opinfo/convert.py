"""Real-torch values (sample inputs) to torchlike values, and callables from one to the other."""
import functools
import importlib
import types

import torch as real_torch

import torchlike


def tensor(t):
    """A torchlike tensor with `t`'s values, dtype, shape, strides, offset and requires_grad."""
    requires_grad = t.requires_grad
    t = t.detach().resolve_conj().resolve_neg()
    if t._is_zerotensor():  # PyTorch's efficient zeros: no storage to read
        t = real_torch.zeros(t.shape, dtype=t.dtype)
    dtype = getattr(torchlike, str(t.dtype).replace("torch.", ""))
    itemsize = t.element_size()
    storage_numel = t.untyped_storage().nbytes() // itemsize if itemsize else 0
    flat = real_torch.as_strided(t, (storage_numel,), (1,), 0) if storage_numel else t.reshape(0)
    if t.dtype == real_torch.bfloat16:
        base = torchlike.tensor(flat.float().numpy()).to(dtype)
    else:
        base = torchlike.tensor(flat.numpy().copy(), dtype=dtype)
    out = base.as_strided(tuple(t.shape), tuple(t.stride()), t.storage_offset()).detach()
    return out.requires_grad_(True) if requires_grad else out


def walk(x, leaf):
    """`x` with `leaf` applied to each value inside its (named) tuples, lists and dicts."""
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(walk(v, leaf) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(walk(v, leaf) for v in x)
    if isinstance(x, dict):
        return {k: walk(v, leaf) for k, v in x.items()}
    return leaf(x)


def value(x):
    """Convert a sample-input value (tensors, dtypes, devices, containers...) to torchlike's."""
    if isinstance(x, real_torch.Tensor):
        return tensor(x)
    if isinstance(x, real_torch.Size):
        return torchlike.Size(x)
    if isinstance(x, real_torch.dtype):
        return getattr(torchlike, str(x).replace("torch.", ""))
    if isinstance(x, real_torch.device):
        return torchlike.device(str(x))
    if isinstance(x, real_torch.memory_format):
        return getattr(torchlike, str(x).replace("torch.", ""))
    if isinstance(x, real_torch.layout):
        return getattr(torchlike, str(x).replace("torch.", ""))
    if isinstance(x, real_torch.Generator):
        return torchlike.Generator().manual_seed(x.initial_seed())
    if isinstance(x, (list, tuple, dict)):
        return walk(x, value)
    if isinstance(x, (types.FunctionType, types.BuiltinFunctionType, functools.partial)):
        return callable_(x)
    if isinstance(x, real_torch.nn.Module):
        return module(x)
    return x


def module(m):
    """torchlike's module of `m`'s class, with `m`'s attributes, parameters and buffers."""
    cls = _attr_path(_torchlike_module(type(m).__module__), type(m).__qualname__)
    new = cls.__new__(cls)
    torchlike.nn.Module.__init__(new)
    for k, v in vars(m).items():
        if k in ("_parameters", "_buffers", "_modules"):
            continue
        if not k.startswith("_") or k in ("_reversed_padding_repeated_twice",):
            object.__setattr__(new, k, value(v))
    for k, p in m._parameters.items():
        new.register_parameter(k, None if p is None else torchlike.nn.Parameter(
            tensor(p), requires_grad=p.requires_grad))
    for k, b in m._buffers.items():
        new.register_buffer(k, None if b is None else tensor(b))
    for k, sub in m._modules.items():
        new.add_module(k, None if sub is None else module(sub))
    new.train(m.training)
    return new


class Missing(Exception):
    """torchlike has no counterpart of a torch callable or attribute."""


def _torchlike_module(name):
    """`torch.X.Y` -> `torchlike.X.Y` (PyTorch's private extension modules by their public name)."""
    public = {"torch._C._linalg": "torch.linalg", "torch._C._special": "torch.special",
              "torch._C._fft": "torch.fft", "torch._C._nn": "torch.nn.functional",
              "torch._C._VariableFunctions": "torch", "torch.functional": "torch",
              "torch._tensor": "torch", "torch.signal.windows.windows": "torch.signal.windows",
              "torch.masked._ops": "torch.masked", "torch._refs": "torch"}
    name = public.get(name, name)
    try:
        return importlib.import_module("torchlike" + name[len("torch"):])
    except ImportError as e:
        raise Missing(name) from e


def _attr_path(root, path):
    obj = root
    for part in path.split("."):
        if not hasattr(obj, part):
            raise Missing(f"{getattr(root, '__name__', root)}.{path}")
        obj = getattr(obj, part)
    return obj


_TESTING_PREFIX = "torch.testing"
# PyTorch's C functions by module, and the prefix their names carry there (`linalg_cross`).
_BUILTIN_PREFIX = {"torch": "", "torch._C._linalg": "linalg_", "torch._C._special": "special_",
                   "torch._C._fft": "fft_", "torch._C._nn": "", "torch._C._VariableFunctions": ""}
_rebound = {}


def _rebind(fn):
    """A copy of a function defined in PyTorch's test modules, its globals mapped to torchlike."""
    if fn in _rebound:
        return _rebound[fn]
    names = set()

    def collect(code):
        names.update(code.co_names)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                collect(c)
    collect(fn.__code__)
    glb = dict(fn.__globals__)
    for n in names & set(glb):
        glb[n] = _global(glb[n])
    closure = None
    if fn.__closure__:
        closure = tuple(types.CellType(_global(c.cell_contents)) for c in fn.__closure__)
    new = types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    _rebound[fn] = new
    return new


def _global(v):
    """A module-level value seen by a rebound function: torch modules/callables are mapped."""
    if isinstance(v, types.ModuleType):
        if v.__name__ == "torch" or v.__name__.startswith("torch."):
            try:
                return _torchlike_module(v.__name__)
            except Missing:
                return v
        return v
    if v is real_torch.Tensor:
        return torchlike.Tensor
    if isinstance(v, (real_torch.dtype, real_torch.device, real_torch.memory_format)):
        return value(v)
    if callable(v) and not isinstance(v, type):
        try:
            return callable_(v)
        except Missing:
            return v
    return v


def _set_seed_wrapper(op, *args, **kwargs):
    """torchlike's `torch.testing._utils.wrapper_set_seed`: seed 42, the stream restored after."""
    state = torchlike.get_rng_state()
    try:
        torchlike.manual_seed(42)
        return op(*args, **kwargs)
    finally:
        torchlike.set_rng_state(state)


# Helpers of PyTorch's test modules that reach into its internals, by (module, name).
_SUBSTITUTES = {("torch.testing._utils", "wrapper_set_seed"): _set_seed_wrapper}


def callable_(fn):
    """torchlike's counterpart of a real-torch callable (raises Missing when there is none)."""
    key = (getattr(fn, "__module__", None), getattr(fn, "__name__", None))
    if key in _SUBSTITUTES:
        return _SUBSTITUTES[key]
    if isinstance(fn, functools.partial):
        return functools.partial(callable_(fn.func), *value(fn.args), **value(fn.keywords))
    module = getattr(fn, "__module__", None) or ""
    if isinstance(fn, types.FunctionType) and (module.startswith(_TESTING_PREFIX)
                                               or not module.startswith("torch")):
        return _rebind(fn)
    qualname = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "")
    objclass = getattr(fn, "__objclass__", None)
    if objclass is not None and issubclass(objclass, real_torch._C.TensorBase):
        return _attr_path(torchlike.Tensor, fn.__name__)
    if qualname.startswith(("Tensor.", "TensorBase.")):
        return _attr_path(torchlike.Tensor, qualname.split(".", 1)[1])
    if isinstance(fn, types.BuiltinFunctionType) and module in _BUILTIN_PREFIX:
        return _attr_path(_torchlike_module(module),
                          fn.__name__.removeprefix(_BUILTIN_PREFIX[module]))
    if module.startswith("torch"):
        owner = _torchlike_module(module)
        return _attr_path(owner, qualname if "<" not in qualname else fn.__name__)
    return fn  # Python's own callables (operator.add...) work on both libraries' tensors
