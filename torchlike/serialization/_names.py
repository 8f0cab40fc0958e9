"""The global names torch's pickles use, and the torchlike objects behind them.

A checkpoint names classes and functions as `torch.<module>.<name>`
(`torch._utils._rebuild_tensor_v2`, `torch.FloatStorage`, `torch.nn.modules.linear.Linear`).
`resolve` maps such a name to torchlike's object (fixed objects from a table, everything else by
swapping the `torch` prefix for `torchlike`); `torch_name_of` is the inverse used when saving,
and only answers a name that `resolve` maps back to the same object, so what torchlike writes is
what it would read.
"""
import collections
import functools
import importlib

from .._core import dtype as dt
from .._core.device import device
from .._core.size import Size
from .._core.storage import TypedStorage, UntypedStorage
from .._core.tensor import Tensor
from . import _rebuild

# Public torchlike namespaces that mirror torch's (searched for objects defined in private files).
_PUBLIC = ("torchlike", "torchlike.nn", "torchlike.nn.functional", "torchlike.nn.init",
           "torchlike.linalg", "torchlike.autograd", "torchlike.optim", "torchlike.cuda")


class StorageType:
    """Mirrors `torch.serialization.StorageType`: a legacy storage class name in a checkpoint
    (`torch.FloatStorage`), which stands for its dtype."""

    def __init__(self, name):
        self.name = name
        self._dtype = _STORAGE_DTYPES[name]

    @property
    def dtype(self):
        return self._dtype

    def __str__(self):
        return f"StorageType(dtype={self.dtype})"

    __repr__ = __str__


_STORAGE_DTYPES = {d._tensor_type[:-len("Tensor")] + "Storage": d for d in dt.ALL if d._tensor_type}
STORAGE_TYPES = {name: StorageType(name) for name in _STORAGE_DTYPES}
_STORAGE_OF_DTYPE = {st.dtype: st for st in STORAGE_TYPES.values()}


def storage_type_of(d):
    """The legacy storage type torch writes for dtype `d` (None: uint16/32/64, written untyped)."""
    return _STORAGE_OF_DTYPE.get(d)


def _get_layout(name):
    """Mirrors `torch.serialization._get_layout`."""
    import torchlike
    return getattr(torchlike, name.rpartition(".")[2])


@functools.lru_cache(maxsize=None)
def fixed_globals():
    """`'torch.X.Y'` -> torchlike object, for the objects whose torchlike home differs from
    torch's (the first name listed for an object is the one written when saving)."""
    from .. import nn
    from .._ops.creation import CUDA_LEGACY_TYPES, LEGACY_TYPES
    g = {"torch.Tensor": Tensor, "torch.Size": Size, "torch.device": device,
         "torch.nn.parameter.Parameter": nn.Parameter,
         "torch.serialization._get_layout": _get_layout,
         "torch.storage.UntypedStorage": UntypedStorage,
         "torch.storage.TypedStorage": TypedStorage,
         "torch._tensor._rebuild_from_type_v2": _rebuild._rebuild_from_type_v2}
    g.update({f"torch.{d.name}": d for d in dt.ALL + dt.EXTRA_UNSIGNED})
    g.update({f"torch._utils.{f.__name__}": f for f in _rebuild.UTILS})
    g.update({f"torch.{n}": s for n, s in STORAGE_TYPES.items()})
    g.update({f"torch.cuda.{n}": s for n, s in STORAGE_TYPES.items()})
    g.update({f"torch.{n}": t for n, t in LEGACY_TYPES.items()})
    g.update({f"torch.cuda.{n}": t for n, t in CUDA_LEGACY_TYPES.items()})
    return g


@functools.lru_cache(maxsize=None)
def weights_only_globals():
    """The globals a `weights_only=True` load accepts without `add_safe_globals` (PyTorch's
    default allow-list, as torchlike objects)."""
    import _codecs
    g = {"collections.OrderedDict": collections.OrderedDict,
         "collections.Counter": collections.Counter,
         "_codecs.encode": _codecs.encode, "builtins.bytearray": bytearray,
         "builtins.set": set, "builtins.complex": complex}
    g.update(fixed_globals())
    return g


@functools.lru_cache(maxsize=None)
def _fixed_names():
    out = {}
    for full, obj in fixed_globals().items():
        mod, _, name = full.rpartition(".")
        out.setdefault(id(obj), (mod, name))
    return out


def fixed_name(obj):
    """`(module, name)` for an object of the fixed table (dtypes, storage types, ...)."""
    return _fixed_names().get(id(obj))


def _getattr_path(obj, qualname):
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


_MISSING = object()


def _lookup(torchlike_module, qualname):
    try:
        return _getattr_path(importlib.import_module(torchlike_module), qualname)
    except (ImportError, AttributeError):
        return _MISSING


def resolve(module, name):
    """The torchlike object for the global `module.name` of a torch checkpoint, or None when
    `module` is not torch's. Raises AttributeError when torchlike has no such object."""
    full = f"{module}.{name}"
    obj = fixed_globals().get(full, _MISSING)
    if obj is not _MISSING:
        return obj
    if module != "torch" and not module.startswith("torch."):
        return None
    path = "torchlike" + module[len("torch"):]
    while True:  # the module itself, then its parent packages
        obj = _lookup(path, name)
        if obj is not _MISSING:
            return obj
        if "." not in path:
            break
        path = path.rpartition(".")[0]
    raise AttributeError(f"Can't get attribute '{name}' on <module '{module}'>: torchlike has no "
                         f"equivalent of {full}")


def _resolves_to(module, name, obj):
    try:
        return resolve(module, name) is obj
    except AttributeError:
        return False


def torch_name_of(obj):
    """`(module, name)` under which torch knows torchlike's `obj` (None for other objects)."""
    fixed = fixed_name(obj)
    if fixed is not None:
        return fixed
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    if module == "torch" or module.startswith("torch."):
        return (module, qualname) if _resolves_to(module, qualname, obj) else None
    if module != "torchlike" and not module.startswith("torchlike."):
        return None
    swapped = "torch" + module[len("torchlike"):]
    candidates = [swapped] if not any(p.startswith("_") for p in swapped.split(".")) else []
    candidates += ["torch" + ns[len("torchlike"):] for ns in _PUBLIC]
    for cand in candidates:
        if _lookup("torchlike" + cand[len("torch"):], qualname) is obj:
            return cand, qualname
    return None
