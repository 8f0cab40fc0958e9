"""The pickler `save` uses: tensors become `torch._utils._rebuild_tensor_v2(<storage>, offset,
size, stride, requires_grad, OrderedDict())` with the storage as a persistent id
`('storage', torch.FloatStorage, key, location, numel)`, as PyTorch writes them, and every
torchlike global is written under the name torch knows it by (`torch.nn.modules.linear.Linear`),
so real PyTorch reads the file.

It is Python's pure-Python pickler (the C one insists that a global's module be importable under
the name written, and `torch` is not torchlike); only metadata goes through it, the storage bytes
are written separately.
"""
import collections
import pickle

import numpy as np

from .._core.storage import Storage, TypedStorage, UntypedStorage
from .._core.tensor import Tensor
from . import _names, _rebuild


class StorageTable:
    """The storages met while pickling, in order, each with its key, dtype and location."""

    def __init__(self, legacy=False):
        self.keys = {}      # id(Storage) -> key
        self.storages = []  # (key, Storage), first-seen order
        self._dtypes = {}
        self._legacy = legacy

    def key(self, st):
        key = self.keys.get(id(st))
        if key is None:
            key = str(id(st)) if self._legacy else str(len(self.keys))
            self.keys[id(st)] = key
            self.storages.append((key, st))
        return key


class _StorageRef:
    """A storage as it appears inside a tensor's reduce tuple (turned into a persistent id)."""

    __slots__ = ("st",)

    def __init__(self, st):
        self.st = st


class Pickler(pickle._Pickler):
    """Mirrors the pickler inside `torch.save`."""

    def __init__(self, file, protocol, table):
        super().__init__(file, protocol)
        self._table = table

    def persistent_id(self, obj):
        if type(obj) is not _StorageRef:
            return None
        st = obj.st
        stype = _names.storage_type_of(st.dtype)
        key = self._table.key(st)
        location = str(st.device)
        if stype is None:  # uint16/32/64: an untyped storage counted in bytes
            pid = ("storage", UntypedStorage, key, location, st.nbytes)
        else:
            pid = ("storage", stype, key, location, st.numel)
        return pid + (None,) if self._table._legacy else pid

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return _reduce_tensor(obj)
        if isinstance(obj, (UntypedStorage, TypedStorage)):
            raise pickle.PicklingError("torchlike.save cannot save a bare storage; save a tensor "
                                       "that uses it instead")
        fixed = _names.fixed_name(obj)  # dtypes, storage types, rebuild functions, ...
        return NotImplemented if fixed is None else fixed[1]

    def save_global(self, obj, name=None):
        found = _names.torch_name_of(obj)
        if found is None:
            return super().save_global(obj, name)
        module, qualname = found
        if self.proto >= 4:
            self.save(module)
            self.save(qualname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + module.encode("utf-8") + b"\n" + qualname.encode("utf-8")
                       + b"\n")
        self.memoize(obj)


def _reduce_tensor(t):
    """The reduce tuple PyTorch writes for tensor `t` (NotImplemented: pickle it normally)."""
    from ..nn.parameter import Parameter, UninitializedTensorMixin
    if isinstance(t, UninitializedTensorMixin):
        return NotImplemented
    state = dict(t.__dict__)
    if type(t) is Parameter:
        data = _plain(t)
        if state:
            return (_rebuild._rebuild_parameter_with_state,
                    (data, t.requires_grad, collections.OrderedDict(), state))
        return (_rebuild._rebuild_parameter, (data, t.requires_grad, collections.OrderedDict()))
    func, args = _storage_args(t)
    if type(t) is Tensor and not state:
        return func, args
    return (_rebuild._rebuild_from_type_v2, (func, type(t), args, state))


def _plain(t):
    """`t` as a plain Tensor over the same storage (PyTorch pickles a Parameter's data so)."""
    from .._core.tensor import _new
    return _new(Tensor, t._st, t._size, t._stride, t._offset, t._vc, None)


def _storage_args(t):
    ref = _StorageRef(t._st)
    size, stride = tuple(t._size), tuple(t._stride)
    if _names.storage_type_of(t.dtype) is None:
        return (_rebuild._rebuild_tensor_v3,
                (ref, t._offset, size, stride, t.requires_grad, collections.OrderedDict(),
                 t.dtype))
    return (_rebuild._rebuild_tensor_v2,
            (ref, t._offset, size, stride, t.requires_grad, collections.OrderedDict()))


def storage_bytes(st: Storage):
    """The storage's whole buffer as a flat uint8 NumPy array (no copy for a CPU storage)."""
    a = st._np if st._np is not None else np.asarray(st.array())
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)
