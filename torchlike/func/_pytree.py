"""The pytrees of `torch.utils._pytree`, as torch.func sees them: tuples, lists, dicts,
OrderedDicts and namedtuples are containers (key order kept), anything else (tensors, None,
numbers) is a leaf. Specs print as PyTorch's `TreeSpec` does, for the error messages."""
import collections


class Spec:
    """A container node: its kind, context (dict keys / namedtuple class) and child specs."""

    __slots__ = ("kind", "context", "children")

    def __init__(self, kind, context, children):
        self.kind, self.context, self.children = kind, context, children

    def __eq__(self, other):
        return (isinstance(other, Spec) and self.kind == other.kind and
                self.context == other.context and self.children == other.children)

    def __hash__(self):
        return hash((self.kind, len(self.children)))

    @property
    def num_leaves(self):
        return sum(c.num_leaves for c in self.children)

    def __repr__(self):
        return self._repr(0)

    def _repr(self, indent):
        ctx = list(self.context) if self.kind in ("dict", "OrderedDict") else self.context
        sep = ",\n" + " " * (indent + 2)
        kids = sep.join(c._repr(indent + 2) for c in self.children)
        return f"TreeSpec({self.kind}, {ctx}, [{kids}])"

    def pprint(self):
        """PyTorch's `treespec_pprint` form: `(*, *)`, `{'a': *}`, `P(x=*)`."""
        kids = [c.pprint() for c in self.children]
        if self.kind == "tuple":
            return "(" + ", ".join(kids) + (",)" if len(kids) == 1 else ")")
        if self.kind == "list":
            return "[" + ", ".join(kids) + "]"
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.context, kids)) + "}"
        if self.kind == "OrderedDict":
            return "OrderedDict([" + ", ".join(f"({k!r}, {v})" for k, v in
                                               zip(self.context, kids)) + "])"
        fields = ", ".join(f"{f}={v}" for f, v in zip(self.context._fields, kids))
        return f"{self.context.__name__}({fields})"


class _Leaf:
    __slots__ = ()
    num_leaves = 1
    children = ()

    def __repr__(self):
        return "*"

    def _repr(self, indent):
        return "*"

    def pprint(self):
        return "*"


LEAF = _Leaf()


def _kind(x):
    """(kind name, context, children) for a container, else None."""
    t = type(x)
    if t is tuple:
        return "tuple", None, x
    if t is list:
        return "list", None, x
    if t is dict:
        return "dict", list(x), list(x.values())
    if isinstance(x, collections.OrderedDict):
        return "OrderedDict", list(x), list(x.values())
    if isinstance(x, tuple) and hasattr(t, "_fields"):
        return "namedtuple", t, tuple(x)
    return None


def flatten(tree):
    """(leaves, spec) of `tree`."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(x, leaves):
    k = _kind(x)
    if k is None:
        leaves.append(x)
        return LEAF
    kind, ctx, kids = k
    return Spec(kind, ctx, [_flatten(c, leaves) for c in kids])


def unflatten(leaves, spec):
    """The tree of `spec` with `leaves` in order."""
    it = iter(leaves)
    return _build(spec, it)


def _build(spec, it):
    if spec is LEAF:
        return next(it)
    kids = [_build(c, it) for c in spec.children]
    if spec.kind == "tuple":
        return tuple(kids)
    if spec.kind == "list":
        return kids
    if spec.kind == "dict":
        return dict(zip(spec.context, kids))
    if spec.kind == "OrderedDict":
        return collections.OrderedDict(zip(spec.context, kids))
    return spec.context(*kids)


def tree_map(fn, tree):
    leaves, spec = flatten(tree)
    return unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, spec):
    """`prefix` (a tree whose leaves apply to whole subtrees of `spec`) flattened to one value
    per leaf of `spec`; None when the structures do not match (torch's
    `_broadcast_to_and_flatten`)."""
    out = []
    return out if _broadcast(prefix, spec, out) else None


def _broadcast(prefix, spec, out):
    k = _kind(prefix)
    if k is None:
        out.extend([prefix] * spec.num_leaves)
        return True
    if spec is LEAF:
        return False
    kind, ctx, kids = k
    if kind != spec.kind or len(kids) != len(spec.children):
        return False
    if kind in ("dict", "OrderedDict"):
        if set(ctx) != set(spec.context):
            return False
        by_key = dict(zip(ctx, kids))
        kids = [by_key[key] for key in spec.context]
    elif kind == "namedtuple" and ctx is not spec.context:
        return False
    return all(_broadcast(p, c, out) for p, c in zip(kids, spec.children))
