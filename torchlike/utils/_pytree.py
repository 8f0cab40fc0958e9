"""Mirrors `torch.utils._pytree`: nested containers ("pytrees") flattened to a list of leaves
plus a `TreeSpec`, mapped over and rebuilt.

Containers (nodes) are the registered types: tuple, list, dict, namedtuples, OrderedDict,
defaultdict, deque, `torch.Size` and the `torch.return_types` tuples, plus whatever
`register_pytree_node` / `register_dataclass` / `register_constant` add. Anything else
(tensors, numbers, None, strings) is a leaf. Dicts flatten in insertion order. Specs print,
compare and serialize (`treespec_dumps`, JSON protocol 1) as PyTorch's do, so a dumped spec
loads in either library.

Divergences: torchlike's `torch.return_types` classes are named tuples (PyTorch's are C
structseqs); they are treated as structseqs here (own node type, `is_structseq` true,
`is_namedtuple` false), and ones created after import are registered on first sight. Nothing
is forwarded to a C++ pytree (there is no `torch.utils._cxx_pytree`), and `torch.fx`'s immutable
collections are not registered.
"""
import collections
import dataclasses
import functools
import importlib
import json
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, Generic, Iterable, NamedTuple, Optional, Protocol, TypeVar

from .._core.size import Size as _Size

__all__ = [
    "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
    "FromDumpableContextFn", "PyTreeSpec", "TreeSpec", "LeafSpec", "keystr", "key_get",
    "register_pytree_node", "tree_is_leaf", "tree_flatten", "tree_flatten_with_path",
    "tree_unflatten", "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure",
    "tree_map", "tree_map_with_path", "tree_map_", "tree_map_only", "tree_map_only_", "tree_all",
    "tree_any", "tree_all_only", "tree_any_only", "treespec_dumps", "treespec_loads",
    "treespec_pprint", "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance",
    "is_structseq", "is_structseq_class", "is_structseq_instance",
]

T = TypeVar("T")
S = TypeVar("S")
U = TypeVar("U")
R = TypeVar("R")
K = TypeVar("K")

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"

Context = Any
PyTree = Any
DumpableContext = Any
FlattenFunc = Callable[[PyTree], tuple[list[Any], Context]]
UnflattenFunc = Callable[[Iterable[Any], Context], PyTree]
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
ToStrFunc = Callable[["TreeSpec", list[str]], str]
MaybeFromStrFunc = Callable[[str], Optional[tuple[Any, Context, str]]]
FlattenFn = FlattenFunc
UnflattenFn = UnflattenFunc


class KeyEntry(Protocol):
    """Mirrors `torch.utils._pytree.KeyEntry`: one step of a key path."""

    def __hash__(self) -> int: ...

    def __eq__(self, other: object) -> bool: ...

    def __str__(self) -> str: ...

    def get(self, parent: Any) -> Any: ...


KeyPath = tuple[KeyEntry, ...]
FlattenWithKeysFunc = Callable[[PyTree], tuple[list[tuple[KeyEntry, Any]], Any]]


class NodeDef(NamedTuple):
    """Mirrors `torch.utils._pytree.NodeDef`: how a registered type flattens and unflattens."""
    type: Any
    flatten_fn: FlattenFunc
    unflatten_fn: UnflattenFunc
    flatten_with_keys_fn: Optional[FlattenWithKeysFunc]


class _SerializeNodeDef(NamedTuple):
    typ: Any
    serialized_type_name: str
    to_dumpable_context: Optional[ToDumpableContextFn]
    from_dumpable_context: Optional[FromDumpableContextFn]


_NODE_REGISTRY_LOCK = threading.Lock()
SUPPORTED_NODES: dict = {}
SUPPORTED_SERIALIZED_TYPES: dict = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict = {}
CONSTANT_NODES: set = set()


# ---- key paths --------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SequenceKey(Generic[T]):
    """Mirrors `torch.utils._pytree.SequenceKey`: `[idx]` of a sequence."""
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey(Generic[K, T]):
    """Mirrors `torch.utils._pytree.MappingKey`: `[key]` of a mapping."""
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """Mirrors `torch.utils._pytree.GetAttrKey`: attribute `.name` of an object."""
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp):
    """Mirrors `torch.utils._pytree.keystr`: a key path as a string (`[0]['a'].x`)."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """Mirrors `torch.utils._pytree.key_get`: the part of `obj` that key path `kp` names."""
    for k in kp:
        obj = k.get(obj)
    return obj


@dataclasses.dataclass(frozen=True)
class ConstantNode:
    """Mirrors `torch.utils._pytree.ConstantNode`: the context of a `register_constant` type."""
    value: Any


# ---- namedtuple / structseq detection ---------------------------------------------------------

_Py_TPFLAGS_BASETYPE = 1 << 10
Py_TPFLAGS_BASETYPE = _Py_TPFLAGS_BASETYPE


def _is_return_type(cls):
    """torchlike's `torch.return_types` classes (named tuples standing in for structseqs)."""
    return (issubclass(cls, tuple) and cls.__module__ == "torch.return_types"
            and isinstance(getattr(cls, "_fields", None), tuple))


def is_namedtuple_class(cls):
    """Mirrors `torch.utils._pytree.is_namedtuple_class`."""
    if not (isinstance(cls, type) and issubclass(cls, tuple)) or _is_return_type(cls):
        return False
    fields = getattr(cls, "_fields", None)
    return (isinstance(fields, tuple) and all(isinstance(f, str) for f in fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj):
    """Mirrors `torch.utils._pytree.is_namedtuple_instance`."""
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj):
    """Mirrors `torch.utils._pytree.is_namedtuple`: a namedtuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls):
    """Mirrors `torch.utils._pytree.is_structseq_class` (also true for torchlike's
    `torch.return_types`, which are named tuples underneath)."""
    if not (isinstance(cls, type) and issubclass(cls, tuple)):
        return False
    if _is_return_type(cls):
        return True
    return (cls.__bases__ == (tuple,)
            and all(isinstance(getattr(cls, a, None), int)
                    for a in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))
            and not cls.__flags__ & _Py_TPFLAGS_BASETYPE)


def is_structseq_instance(obj):
    """Mirrors `torch.utils._pytree.is_structseq_instance`."""
    return is_structseq_class(type(obj))


def is_structseq(obj):
    """Mirrors `torch.utils._pytree.is_structseq`: a structseq class or instance."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


# ---- registration -----------------------------------------------------------------------------

def _private_register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                                  to_dumpable_context=None, from_dumpable_context=None,
                                  flatten_with_keys_fn=None):
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(f"{cls} is already registered as pytree node. "
                          "Overwriting the previous registration.", stacklevel=3)
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        if (to_dumpable_context is None) != (from_dumpable_context is None):
            raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} "
                             "must be None or registered.")
        if serialized_type_name is None:
            serialized_type_name = NO_SERIALIZED_TYPE_NAME_FOUND
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
            cls, serialized_type_name, to_dumpable_context, from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[serialized_type_name] = cls


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Mirrors `torch.utils._pytree.register_pytree_node`: make `cls` a container type.
    `flatten_fn(obj) -> (children, context)`, `unflatten_fn(children, context) -> obj`;
    `serialized_type_name` (and the dumpable-context pair) for `treespec_dumps`,
    `flatten_with_keys_fn(obj) -> ([(key, child)], context)` for the `*_with_path` functions."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn)


def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None,
                          maybe_from_str_fn=None, *, serialized_type_name=None,
                          to_dumpable_context=None, from_dumpable_context=None,
                          flatten_with_keys_fn=None):
    """Mirrors `torch.utils._pytree._register_pytree_node` (deprecated: warns, and overwrites
    an existing registration with a warning where `register_pytree_node` raises)."""
    warnings.warn("`torch.utils._pytree._register_pytree_node` is deprecated. "
                  "Please use `torch.utils._pytree.register_pytree_node` instead.",
                  FutureWarning, stacklevel=2)
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn("`to_str_fn` and `maybe_from_str_fn` is deprecated. "
                      "Please use `to_dumpable_context` and `from_dumpable_context` instead.",
                      FutureWarning, stacklevel=2)
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn)


def _deregister_pytree_node(cls):
    """Mirrors `torch.utils._pytree._deregister_pytree_node`: undo a registration."""
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        node = SUPPORTED_SERIALIZED_TYPES.pop(cls, None)
        if node is not None and SERIALIZED_TYPE_TO_PYTHON_TYPE.get(
                node.serialized_type_name) is cls:
            del SERIALIZED_TYPE_TO_PYTHON_TYPE[node.serialized_type_name]
        CONSTANT_NODES.discard(cls)


def register_dataclass(cls, *, field_names=None, drop_field_names=None,
                       serialized_type_name=None):
    """Mirrors `torch.utils._pytree.register_dataclass`: `cls` (a dataclass, or a class built
    from keyword arguments `field_names`) as a node whose children are its non-None fields.
    As in PyTorch, `drop_field_names` does not change what a dataclass flattens to."""
    if field_names is None:
        if not dataclasses.is_dataclass(cls):
            raise ValueError("field_names must be specified with a list of all fields used to "
                             f"initialize {cls}, as it is not a dataclass.")
        field_names = [f.name for f in dataclasses.fields(cls) if f.init]
    field_names = list(field_names)

    def flatten(obj):
        values, names, none_names = [], [], []
        for name in field_names:
            v = getattr(obj, name)
            if v is None:
                none_names.append(name)
            else:
                names.append(name)
                values.append(v)
        return values, [names, none_names]

    def unflatten(values, context):
        names, none_names = context
        return cls(**dict(zip(names, values)), **dict.fromkeys(none_names))

    def flatten_with_keys(obj):
        values, context = flatten(obj)
        return [(GetAttrKey(k), v) for k, v in zip(context[0], values)], context

    _private_register_pytree_node(cls, flatten, unflatten,
                                  serialized_type_name=serialized_type_name,
                                  flatten_with_keys_fn=flatten_with_keys)


def _constant_flatten(obj):
    return [], ConstantNode(obj)


def _constant_flatten_with_keys(obj):
    return [], ConstantNode(obj)


def _constant_unflatten(values, context):
    return context.value


def register_constant(cls):
    """Mirrors `torch.utils._pytree.register_constant`: instances of `cls` (which needs its own
    `__eq__` and `__hash__`) become nodes with no leaves, kept whole in the spec."""
    if cls.__eq__ is object.__eq__:
        raise TypeError("register_constant(cls) expects `cls` to have a non-default `__eq__` "
                        "implementation.")
    if cls.__hash__ is None or cls.__hash__ is object.__hash__:
        raise TypeError("register_constant(cls) expects `cls` to have a non-default "
                        "`__hash__` implementation.")
    _private_register_pytree_node(cls, _constant_flatten, _constant_unflatten,
                                  flatten_with_keys_fn=_constant_flatten_with_keys)
    CONSTANT_NODES.add(cls)


def is_constant_class(cls):
    """Mirrors `torch.utils._pytree.is_constant_class`."""
    return isinstance(cls, type) and cls in CONSTANT_NODES


def _register_namedtuple(cls, *, serialized_type_name):
    """Mirrors `torch.utils._pytree._register_namedtuple`: a serialization name for namedtuple
    class `cls`, so that specs holding it can be dumped."""
    _private_register_pytree_node(
        cls, _namedtuple_flatten, _namedtuple_unflatten,
        serialized_type_name=serialized_type_name, to_dumpable_context=_namedtuple_serialize,
        from_dumpable_context=_namedtuple_deserialize,
        flatten_with_keys_fn=_namedtuple_flatten_with_keys)


# ---- the built-in nodes -----------------------------------------------------------------------

def _seq_keys(children):
    return [(SequenceKey(i), v) for i, v in enumerate(children)]


def _tuple_flatten(d):
    return list(d), None


def _tuple_flatten_with_keys(d):
    return _seq_keys(d), None


def _tuple_unflatten(values, context):
    return tuple(values)


def _list_flatten(d):
    return d, None


def _list_flatten_with_keys(d):
    return _seq_keys(d), None


def _list_unflatten(values, context):
    return list(values)


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


def _dict_unflatten(values, context):
    return dict(zip(context, values))


def _namedtuple_flatten(d):
    return list(d), type(d)


def _namedtuple_flatten_with_keys(d):
    return [(GetAttrKey(f), v) for f, v in zip(d._fields, d)], type(d)


def _namedtuple_unflatten(values, context):
    return context(*values)


def _namedtuple_serialize(context):
    node = SUPPORTED_SERIALIZED_TYPES.get(context)
    if node is None or node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we didn't register "
            "a serializated_type_name. Please register using `_register_namedtuple`.")
    return node.serialized_type_name


def _namedtuple_deserialize(dumpable_context):
    if dumpable_context not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(
            f"Can't deserialize TreeSpec of namedtuple class {dumpable_context} because we "
            "couldn't find a serializated name.")
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable_context]


def _ordereddict_flatten(d):
    return list(d.values()), list(d.keys())


def _ordereddict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


def _ordereddict_unflatten(values, context):
    return OrderedDict(zip(context, values))


def _defaultdict_flatten(d):
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_flatten_with_keys(d):
    return ([(MappingKey(k), v) for k, v in d.items()], [d.default_factory, list(d.keys())])


def _defaultdict_unflatten(values, context):
    factory, keys = context
    return defaultdict(factory, zip(keys, values))


def _defaultdict_serialize(context):
    factory, keys = context
    return {"default_factory_module": factory.__module__,
            "default_factory_name": factory.__qualname__, "dict_context": keys}


def _defaultdict_deserialize(dumpable_context):
    module = importlib.import_module(dumpable_context["default_factory_module"])
    return [getattr(module, dumpable_context["default_factory_name"]),
            dumpable_context["dict_context"]]


def _deque_flatten(d):
    return list(d), d.maxlen


def _deque_flatten_with_keys(d):
    return _seq_keys(d), d.maxlen


def _deque_unflatten(values, context):
    return deque(values, maxlen=context)


def _size_flatten(d):
    return list(d), None


def _size_flatten_with_keys(d):
    return _seq_keys(d), None


def _size_unflatten(values, context):
    return tuple(values)   # as PyTorch: a mapped torch.Size comes back as a plain tuple


def _register_return_type(cls):
    """A `torch.return_types` class as its own node (PyTorch registers each structseq)."""
    if hasattr(cls, "_make"):
        def unflatten(values, context):
            return cls._make(values)
    else:
        def unflatten(values, context):
            return cls(values)
    with _NODE_REGISTRY_LOCK:   # first sight may come from two threads at once
        if cls in SUPPORTED_NODES:
            return
        SUPPORTED_NODES[cls] = NodeDef(cls, _tuple_flatten, unflatten, _tuple_flatten_with_keys)
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
            cls, NO_SERIALIZED_TYPE_NAME_FOUND, None, None)


_private_register_pytree_node(tuple, _tuple_flatten, _tuple_unflatten,
                              serialized_type_name="builtins.tuple",
                              flatten_with_keys_fn=_tuple_flatten_with_keys)
_private_register_pytree_node(list, _list_flatten, _list_unflatten,
                              serialized_type_name="builtins.list",
                              flatten_with_keys_fn=_list_flatten_with_keys)
_private_register_pytree_node(dict, _dict_flatten, _dict_unflatten,
                              serialized_type_name="builtins.dict",
                              flatten_with_keys_fn=_dict_flatten_with_keys)
_private_register_pytree_node(namedtuple, _namedtuple_flatten, _namedtuple_unflatten,
                              serialized_type_name="collections.namedtuple",
                              to_dumpable_context=_namedtuple_serialize,
                              from_dumpable_context=_namedtuple_deserialize,
                              flatten_with_keys_fn=_namedtuple_flatten_with_keys)
_private_register_pytree_node(OrderedDict, _ordereddict_flatten, _ordereddict_unflatten,
                              serialized_type_name="collections.OrderedDict",
                              flatten_with_keys_fn=_ordereddict_flatten_with_keys)
_private_register_pytree_node(defaultdict, _defaultdict_flatten, _defaultdict_unflatten,
                              serialized_type_name="collections.defaultdict",
                              to_dumpable_context=_defaultdict_serialize,
                              from_dumpable_context=_defaultdict_deserialize,
                              flatten_with_keys_fn=_defaultdict_flatten_with_keys)
_private_register_pytree_node(deque, _deque_flatten, _deque_unflatten,
                              serialized_type_name="collections.deque",
                              flatten_with_keys_fn=_deque_flatten_with_keys)


def _register_known_return_types():
    from .. import return_types
    for name in return_types.__all__:
        cls = getattr(return_types, name)
        if cls not in SUPPORTED_NODES:
            _register_return_type(cls)


_register_known_return_types()
_private_register_pytree_node(_Size, _size_flatten, _size_unflatten,
                              serialized_type_name="torch.Size",
                              flatten_with_keys_fn=_size_flatten_with_keys)

STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})


def _get_node_type(tree):
    cls = type(tree)
    if cls is tuple or cls is list or cls is dict:
        return cls
    if issubclass(cls, tuple):
        if is_namedtuple_class(cls):
            return namedtuple
        if cls not in SUPPORTED_NODES and _is_return_type(cls):
            _register_return_type(cls)
    return cls


def _is_leaf(tree, is_leaf=None):
    return (is_leaf is not None and is_leaf(tree)) or _get_node_type(tree) not in SUPPORTED_NODES


def tree_is_leaf(tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_is_leaf`: `tree` is not a registered container (or
    `is_leaf(tree)` says it is a leaf)."""
    return _is_leaf(tree, is_leaf)


# ---- TreeSpec ---------------------------------------------------------------------------------

def _hashable(x):
    if isinstance(x, (list, tuple)):
        return tuple(_hashable(v) for v in x)
    if isinstance(x, dict):
        return tuple((_hashable(k), _hashable(v)) for k, v in x.items())
    if isinstance(x, (set, frozenset)):
        return frozenset(_hashable(v) for v in x)
    try:
        hash(x)
    except TypeError:
        return type(x)
    return x


@dataclasses.dataclass(init=False, repr=False, eq=True, frozen=True, slots=True)
class TreeSpec:
    """Mirrors `torch.utils._pytree.TreeSpec`: the structure of a pytree (node type, context
    and child specs; a leaf has type None). Frozen, compared field by field."""
    type: Any
    _context: Context
    _children: list
    num_nodes: int
    num_leaves: int
    num_children: int

    def __init__(self, type, context, children_specs):
        if type is None:
            if children_specs:
                raise AssertionError("leaf node should not have children")
            nodes, leaves = 1, 1
        else:
            nodes = 1 + sum(c.num_nodes for c in children_specs)
            leaves = sum(c.num_leaves for c in children_specs)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "_context", context)
        object.__setattr__(self, "_children", children_specs)
        object.__setattr__(self, "num_nodes", nodes)
        object.__setattr__(self, "num_leaves", leaves)
        object.__setattr__(self, "num_children", len(children_specs))

    def __hash__(self):
        return hash((TreeSpec, self.type, _hashable(self._context), tuple(self._children)))

    def __repr__(self, indent=0):
        if self.is_leaf():
            return "*"
        indent += 2
        sep = ",\n" + " " * indent
        children = sep.join(c.__repr__(indent) for c in self._children)
        return f"TreeSpec({self.type.__name__}, {self._context}, [{children}])"

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self):
        warnings.warn("`treespec.children_specs` is deprecated. Use `treespec.child(index)` to "
                      "access a single child, or `treespec.children()` to get all children.",
                      FutureWarning, stacklevel=2)
        return self._children

    def is_leaf(self):
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def flatten_up_to(self, tree):
        """The subtrees of `tree` that sit where this spec has leaves (ValueError where
        `tree`'s structure does not have this spec as a prefix)."""
        subtrees = []
        self._flatten_up_to(tree, subtrees)
        return subtrees

    def _flatten_up_to(self, tree, out):
        if self.is_leaf():
            out.append(tree)
            return
        node_type = _get_node_type(tree)
        if self.type not in BUILTIN_TYPES:
            if node_type != self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got "
                                 f"{node_type!r}.")
            children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
            if len(children) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                                 f"{len(children)}.")
            if context != self._context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        else:
            both_dicts = self.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
            if not both_dicts and node_type != self.type:
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got "
                                 f"{node_type!r}.")
            if len(tree) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                                 f"{len(tree)}.")
            if both_dicts:
                keys = self._context[1] if self.type is defaultdict else self._context
                expected, got = set(keys), set(tree)
                if expected != got:
                    raise ValueError(f"Node keys mismatch; missing key(s): {expected - got}; "
                                     f"extra key(s): {got - expected}.")
                children = [tree[k] for k in keys]
            else:
                children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
                if node_type is not deque and context != self._context:
                    raise ValueError(f"Node context mismatch for node type {self.type!r}; "
                                     f"expected {self._context!r}, but got {context!r}.")
        for child, spec in zip(children, self._children):
            spec._flatten_up_to(child, out)

    def unflatten(self, leaves):
        """The pytree of this structure holding `leaves` in order."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             f"but the spec refers to a pytree that holds {self.num_leaves} "
                             f"items ({self}).")
        return self._unflatten(leaves, 0)

    def _unflatten(self, leaves, start):
        if self.is_leaf():
            return leaves[start]
        children = []
        for spec in self._children:
            children.append(spec._unflatten(leaves, start))
            start += spec.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)


class LeafSpec(TreeSpec):
    """Mirrors `torch.utils._pytree.LeafSpec` (deprecated in PyTorch: constructing one warns;
    use `treespec_leaf()`)."""
    __slots__ = ()

    def __init__(self):
        warnings.warn("`isinstance(treespec, LeafSpec)` is deprecated, use "
                      "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
                      FutureWarning, stacklevel=2)
        TreeSpec.__init__(self, None, None, [])


_LEAF_SPEC = object.__new__(LeafSpec)
TreeSpec.__init__(_LEAF_SPEC, None, None, [])
PyTreeSpec = TreeSpec


def treespec_leaf():
    """Mirrors `torch.utils._pytree.treespec_leaf`."""
    return _LEAF_SPEC


def treespec_tuple(iterable=(), /):
    """Mirrors `torch.utils._pytree.treespec_tuple`: a tuple spec with these child specs."""
    return TreeSpec(tuple, None, list(iterable))


def treespec_dict(mapping=(), /, **kwargs):
    """Mirrors `torch.utils._pytree.treespec_dict`: a dict spec with these child specs."""
    d = dict(mapping, **kwargs)
    return TreeSpec(dict, list(d.keys()), list(d.values()))


# ---- flatten / unflatten ----------------------------------------------------------------------

def _flatten(tree, leaves, is_leaf):
    if is_leaf is not None and is_leaf(tree):
        leaves.append(tree)
        return _LEAF_SPEC
    node_type = _get_node_type(tree)
    node = SUPPORTED_NODES.get(node_type)
    if node is None:
        leaves.append(tree)
        return _LEAF_SPEC
    children, context = node.flatten_fn(tree)
    return TreeSpec(node_type, context, [_flatten(c, leaves, is_leaf) for c in children])


def tree_flatten(tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_flatten`: (leaves, spec)."""
    leaves = []
    spec = _flatten(tree, leaves, is_leaf)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """Mirrors `torch.utils._pytree.tree_unflatten`: rebuild a pytree from leaves and spec."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError("Expected `treespec` to be an instance of PyTreeSpec but got item of "
                        f"type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_iter`: a generator of the leaves, in order."""
    if is_leaf is not None and is_leaf(tree):
        yield tree
        return
    node = SUPPORTED_NODES.get(_get_node_type(tree))
    if node is None:
        yield tree
        return
    for child in node.flatten_fn(tree)[0]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_leaves`."""
    leaves = []
    _flatten(tree, leaves, is_leaf)
    return leaves


def tree_structure(tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_structure`."""
    return _flatten(tree, [], is_leaf)


def arg_tree_leaves(*args, **kwargs):
    """Mirrors `torch.utils._pytree.arg_tree_leaves`: leaves of `args`, then of `kwargs`."""
    leaves = []
    for a in args:
        _flatten(a, leaves, None)
    for a in kwargs.values():
        _flatten(a, leaves, None)
    return leaves


def tree_map(func, tree, *rests, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_map`: `func` over the leaves (of `tree` and, leaf by
    leaf, of `rests`, which must have `tree`'s structure as a prefix)."""
    leaves, treespec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [treespec.flatten_up_to(r) for r in rests]
    return treespec.unflatten(map(func, *flat))


def tree_map_(func, tree, *rests, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_map_`: `func` over the leaves for its side effects;
    returns `tree`."""
    leaves, treespec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [treespec.flatten_up_to(r) for r in rests]
    collections.deque(map(func, *flat), maxlen=0)
    return tree


def map_only(type_or_types_or_pred, /):
    """Mirrors `torch.utils._pytree.map_only`: a decorator applying a function only to values
    of the given types (or passing the predicate), others passing through."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_map_only`: `tree_map` on leaves of the given types
    (or passing the predicate); other leaves are kept."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_map_only_`."""
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_all`."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_any`."""
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_all_only`: `pred` holds on every leaf of the types."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_any_only`."""
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


# ---- key paths over trees ---------------------------------------------------------------------

def _generate_key_paths(key_path, tree, is_leaf=None):
    if is_leaf is not None and is_leaf(tree):
        yield key_path, tree
        return
    node_type = _get_node_type(tree)
    node = SUPPORTED_NODES.get(node_type)
    if node is None:
        yield key_path, tree
        return
    if node.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node_type}. "
                         "Please pass a flatten_with_keys_fn argument to register_pytree_node.")
    key_children, _ = node.flatten_with_keys_fn(tree)
    for k, child in key_children:
        yield from _generate_key_paths((*key_path, k), child, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_flatten_with_path`: ([(key path, leaf)], spec)."""
    _, treespec = tree_flatten(tree, is_leaf)
    return list(_generate_key_paths((), tree, is_leaf)), treespec


def tree_leaves_with_path(tree, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_leaves_with_path`: [(key path, leaf)]."""
    return list(_generate_key_paths((), tree, is_leaf))


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """Mirrors `torch.utils._pytree.tree_map_with_path`: `func(key_path, leaf, *rest_leaves)`
    over the leaves."""
    keypath_leaves, treespec = tree_flatten_with_path(tree, is_leaf)
    columns = list(zip(*keypath_leaves)) or [(), ()]
    flat = columns + [treespec.flatten_up_to(r) for r in rests]
    return treespec.unflatten(func(*xs) for xs in zip(*flat))


# ---- serialization ----------------------------------------------------------------------------

def _no_serialized_name(typ):
    return NotImplementedError(
        f"No registered serialization name for {typ} found. Please update your "
        "_register_pytree_node call with a `serialized_type_name` kwarg.")


def _treespec_to_json(treespec):
    if treespec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    node = SUPPORTED_SERIALIZED_TYPES.get(treespec.type)
    if node is None or node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise _no_serialized_name(treespec.type)
    if node.to_dumpable_context is None:
        try:
            context = json.dumps(treespec.context)
        except TypeError as e:
            raise TypeError("Unable to serialize context. Please make the context json "
                            "dump-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    else:
        context = node.to_dumpable_context(treespec.context)
    return {"type": node.serialized_type_name, "context": context,
            "children_spec": [_treespec_to_json(c) for c in treespec._children]}


def _json_to_treespec(schema):
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF_SPEC
    if schema["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not "
                                  "registered.")
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE[schema["type"]]
    node = SUPPORTED_SERIALIZED_TYPES[typ]
    if node.from_dumpable_context is None:
        try:
            context = json.loads(schema["context"])
        except TypeError as e:
            raise TypeError("Unable to deserialize context. Please make the context json "
                            "load-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    else:
        context = node.from_dumpable_context(schema["context"])
    return TreeSpec(typ, context, [_json_to_treespec(c) for c in schema["children_spec"]])


_SUPPORTED_PROTOCOLS = {1: (_treespec_to_json, _json_to_treespec)}


def treespec_dumps(treespec, protocol=None):
    """Mirrors `torch.utils._pytree.treespec_dumps`: the spec as a JSON string, in PyTorch's
    format (`[protocol, {"type": ..., "context": ..., "children_spec": [...]}]`)."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError("Expected `treespec` to be an instance of PyTreeSpec but got item of "
                        f"type {type(treespec)}.")
    if protocol is None:
        protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(f"Unknown protocol {protocol}. "
                         f"Available protocols: {list(_SUPPORTED_PROTOCOLS)}")
    return json.dumps([protocol, _SUPPORTED_PROTOCOLS[protocol][0](treespec)])


def treespec_loads(serialized):
    """Mirrors `torch.utils._pytree.treespec_loads`: the spec `treespec_dumps` wrote."""
    protocol, schema = json.loads(serialized)
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(f"Unknown protocol {protocol}. "
                         f"Available protocols: {list(_SUPPORTED_PROTOCOLS)}")
    return _SUPPORTED_PROTOCOLS[protocol][1](schema)


class _Asterisk:
    __slots__ = ()

    def __repr__(self):
        return "*"


_asterisk = _Asterisk()


def treespec_pprint(treespec):
    """Mirrors `torch.utils._pytree.treespec_pprint`: the repr of the pytree with `*` for
    each leaf (`{'a': *, 'b': [*, *]}`)."""
    return repr(treespec.unflatten([_asterisk] * treespec.num_leaves))
