"""`torch.utils._pytree` (torchlike.utils._pytree), compared with real PyTorch's: flatten results,
spec reprs, serialized specs (which must load in the other library), unflatten round trips,
key paths, registration of custom nodes, and errors / warnings (type and message)."""
import collections
import dataclasses
import time
import warnings

import pytest
import torch as real_torch
import torch.utils._pytree as real_pytree

import torchlike
import torchlike.utils._pytree as our_pytree
from harness import Raised, assert_same, check

PYTREE = {real_torch: real_pytree, torchlike: our_pytree}
SPECS = (real_pytree.TreeSpec, our_pytree.TreeSpec)
KEYS = (real_pytree.SequenceKey, real_pytree.MappingKey, real_pytree.GetAttrKey,
        our_pytree.SequenceKey, our_pytree.MappingKey, our_pytree.GetAttrKey)
OD, DD, DQ = collections.OrderedDict, collections.defaultdict, collections.deque
NT = collections.namedtuple("NT", "a b")
NT2 = collections.namedtuple("NT2", "a b")


class Outer:
    class Factory(dict):
        pass


def _norm(x):
    """Specs and key entries as their reprs (they are different classes in the two libraries);
    containers walked."""
    if isinstance(x, SPECS):
        return f"TreeSpec: {x!r}"
    if isinstance(x, KEYS):
        return f"Key: {x!r}"
    if type(x) in (list, tuple):
        return type(x)(_norm(v) for v in x)
    if type(x) is dict:
        return {k: _norm(v) for k, v in x.items()}
    return x


def _run(fn, lib, record):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always" if record else "ignore")
        try:
            out = _norm(fn(lib, PYTREE[lib]))
        except Exception as e:  # noqa: BLE001 - exceptions are compared too
            out = Raised(e)
    if record:
        return out, [(w.category.__name__, str(w.message)) for w in caught]
    return out


def same(fn, record_warnings=False):
    """`fn(torch, pytree)` gives the same (specs as reprs, exceptions by type and message, and
    with `record_warnings` the warnings raised) with real PyTorch and with torchlike."""
    expected = _run(fn, real_torch, record_warnings)
    actual = _run(fn, torchlike, record_warnings)
    assert_same(expected, actual)
    return expected


def _err(fn):
    """The exception `fn()` raises, as something `same` compares."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return Raised(e)
    raise AssertionError("no exception")


# ---- trees (built from the library, for torch.Size and return types) -------------------------

TREES = {
    "nested": lambda torch: {"b": [1, (2, 3)], "a": NT(4, {"z": 5}), "c": OD(y=6, x=7),
                             "d": DD(list, {1: 8}), "e": DQ([9, 10], maxlen=5), "f": None,
                             "g": (), "h": [], 3: {}},
    "dict_order": lambda torch: {"zz": 1, "aa": 2, 5: 3, "mm": [4, {"q": 5, "b": 6}]},
    "leaf": lambda torch: 7,
    "none": lambda torch: None,
    "string": lambda torch: ["ab", ("c",)],
    "deque": lambda torch: DQ([1, [2, 3]]),
    "size": lambda torch: [torch.Size([2, 3]), torch.Size([])],
    "empty": lambda torch: ((), [], {}, OD()),
    "defaultdict_int": lambda torch: DD(int, b=1, a=2),
    "nested_nt": lambda torch: NT(NT(1, 2), [NT2(3, (4,))]),
}


@pytest.mark.parametrize("name", sorted(TREES))
def test_flatten_spec_and_round_trip(name):
    def f(torch, pt):
        tree = TREES[name](torch)
        leaves, spec = pt.tree_flatten(tree)
        rebuilt = pt.tree_unflatten(leaves, spec)
        return (leaves, spec, str(spec), pt.treespec_pprint(spec), spec.num_leaves,
                spec.num_nodes, spec.num_children, spec.is_leaf(), repr(spec.context),
                getattr(spec.type, "__name__", None), repr(rebuilt), type(rebuilt).__name__,
                pt.tree_leaves(tree), list(pt.tree_iter(tree)), pt.tree_structure(tree) == spec,
                spec.unflatten(leaves) == rebuilt, pt.tree_structure(rebuilt) == spec,
                [pt.tree_is_leaf(c) for c in (tree if isinstance(tree, list) else [tree])])
    same(f)


def test_size_is_a_node_that_unflattens_to_tuple():
    def f(torch, pt):
        leaves, spec = pt.tree_flatten(torch.Size([2, 3]))
        mapped = pt.tree_map(lambda v: v + 1, torch.Size([4, 5]))
        return (leaves, repr(spec), type(mapped).__name__, mapped,
                pt.tree_flatten_with_path(torch.Size([6])), pt.treespec_pprint(spec),
                pt.treespec_dumps(spec), pt.tree_is_leaf(torch.Size([1])))
    same(f)


def test_return_types_are_structseq_nodes():
    def f(torch, pt):
        x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
        r = torch.max(x, 1)
        leaves, spec = pt.tree_flatten({"m": r, "s": torch.sort(x, 1)})
        back = pt.tree_unflatten(leaves, spec)
        mapped = pt.tree_map(lambda t: t * 2, r)
        paths = [(pt.keystr(k), v) for k, v in pt.tree_flatten_with_path(r)[0]]
        return (leaves, repr(spec), pt.treespec_pprint(pt.tree_structure(r)),
                type(back["m"]).__name__, list(back["m"]), type(mapped).__name__,
                list(mapped), paths, spec.child(0).type.__name__, spec.child(0).context,
                pt.is_structseq(r), pt.is_structseq(type(r)), pt.is_structseq_instance(r),
                pt.is_structseq_class(type(r)), pt.is_namedtuple(r),
                type(r) in pt.SUPPORTED_NODES,
                _err(lambda: pt.treespec_dumps(pt.tree_structure(r))),
                _err(lambda: pt.tree_structure(r).flatten_up_to((1, 2))),
                _err(lambda: pt.tree_structure((1, 2)).flatten_up_to(r)),
                _err(lambda: pt.tree_structure(r).flatten_up_to(torch.min(x, 1))))
    same(f)


def test_tree_map_over_tensors():
    def tree(torch):
        return {"a": torch.ones(2), "b": [torch.arange(3), (torch.zeros(1, 2), 4)], "c": None}

    check(lambda torch: PYTREE[torch].tree_map(lambda t: t if t is None else t * 2 + 1,
                                               tree(torch)))
    check(lambda torch: PYTREE[torch].tree_map_only(torch.Tensor, lambda t: t.sum(),
                                                    tree(torch)))
    check(lambda torch: PYTREE[torch].tree_map(lambda a, b: a + b, [torch.ones(2), 3],
                                               [torch.full((2,), 5.0), 4]))
    check(lambda torch: PYTREE[torch].tree_leaves(tree(torch)))
    check(lambda torch: PYTREE[torch].tree_unflatten(
        [torch.tensor(9), 1, 2, 3, 4], PYTREE[torch].tree_structure(tree(torch))))
    check(lambda torch: (
        PYTREE[torch].tree_all_only(torch.Tensor, lambda t: t.dim() >= 1, tree(torch)),
        PYTREE[torch].tree_any_only(torch.Tensor, lambda t: t.dim() == 2, tree(torch)),
        PYTREE[torch].tree_all_only(int, lambda v: v > 4, tree(torch)),
        PYTREE[torch].tree_any(lambda v: isinstance(v, torch.Tensor), [1, {"x": None}])))


def test_is_leaf_argument():
    def f(torch, pt):
        tree = [1, None, (2, [3]), {"k": (4,)}]
        tup = lambda x: isinstance(x, tuple)  # noqa: E731
        leaves, spec = pt.tree_flatten(tree, is_leaf=tup)
        return (leaves, spec, pt.tree_leaves(tree, is_leaf=tup),
                list(pt.tree_iter(tree, is_leaf=tup)),
                pt.tree_map(lambda v: ("leaf", v), tree, is_leaf=tup),
                pt.tree_map_only(tuple, len, tree, is_leaf=tup),
                pt.tree_structure(tree, is_leaf=lambda x: x == [3]),
                pt.tree_flatten_with_path(tree, is_leaf=tup),
                pt.tree_is_leaf([1], is_leaf=lambda x: True), pt.tree_is_leaf([1]),
                pt.tree_is_leaf(None), pt.tree_is_leaf(1), pt.tree_all(bool, tree, is_leaf=tup),
                pt.tree_any(lambda v: v == (2, [3]), tree, is_leaf=tup))
    same(f)


def test_key_paths():
    def f(torch, pt):
        tree = {"a": [1, (2, {"c": 3})], "b": None, "n": NT(4, [5]), "o": OD(x=6),
                "d": DD(int, {7: 7}), "q": DQ([8]), "s": torch.Size([9])}
        flat, spec = pt.tree_flatten_with_path(tree)
        strs = [pt.keystr(k) for k, _ in flat]
        got = [pt.key_get(tree, k) for k, _ in flat]
        mapped = pt.tree_map_with_path(lambda k, v: f"{pt.keystr(k)}={v}", tree)
        two = pt.tree_map_with_path(lambda k, v, w: (pt.keystr(k), v, w), [1, {"x": 2}],
                                    [3, {"x": (4, 5)}])
        return (flat, spec, strs, got, mapped, two, pt.tree_leaves_with_path(tree) == flat,
                pt.tree_map_with_path(lambda k, v: v, []), pt.tree_leaves_with_path(5),
                pt.keystr(()))
    same(f)


def test_key_entries():
    def f(torch, pt):
        s, m, g = pt.SequenceKey(1), pt.MappingKey("a"), pt.GetAttrKey("real")
        return (repr(s), str(s), repr(m), str(m), repr(g), str(g), repr(pt.MappingKey(3)),
                str(pt.MappingKey((1, "x"))), s == pt.SequenceKey(1), s == pt.SequenceKey(2),
                s == pt.MappingKey(1), hash(s) == hash(pt.SequenceKey(1)), s.idx, m.key,
                g.name, s.get([4, 5]), m.get({"a": 6}), g.get(3),
                pt.keystr([s, m, g, pt.MappingKey(3)]),
                pt.key_get([0, {"a": 5}], (pt.SequenceKey(1), pt.MappingKey("a"))),
                _err(lambda: setattr(s, "idx", 2)), _err(lambda: m.get({})),
                _err(lambda: s.get([])))
    same(f)


def test_treespec_api():
    def f(torch, pt):
        spec = pt.tree_structure([1, [2, (3,)], {"k": 4}])
        leaf = pt.tree_structure(1)
        built = pt.TreeSpec(list, None, [pt.treespec_leaf(),
                                         pt.treespec_tuple([pt.treespec_leaf()])])
        return (spec, spec.num_leaves, spec.num_nodes, spec.num_children, spec.children(),
                spec.child(1), spec.child(1).child(1).num_leaves, spec.context,
                spec.type.__name__, spec.is_leaf(), leaf, leaf.is_leaf(), leaf.type,
                leaf.context, leaf.num_nodes, leaf.num_children, leaf.children(),
                leaf is pt.tree_structure(None), pt.treespec_leaf() is leaf, built,
                built == pt.tree_structure([1, (2,)]), built.unflatten([5, 6]),
                pt.treespec_dict({"a": leaf}, b=built), pt.treespec_dict(a=leaf),
                pt.treespec_tuple(), pt.TreeSpec(int, None, []),
                pt.TreeSpec(int, None, []).is_leaf(), pt.TreeSpec(int, None, []).num_leaves,
                pt.TreeSpec(None, None, []).is_leaf(), pt.TreeSpec(None, None, []) == leaf,
                pt.TreeSpec(list, None, [pt.TreeSpec(None, None, [])]) ==
                pt.tree_structure([1]),
                pt.TreeSpec(list, None, [pt.TreeSpec(None, None, [])]).num_leaves,
                type(leaf).__name__, type(spec).__name__, isinstance(leaf, pt.TreeSpec),
                _err(lambda: pt.TreeSpec(None, None, [leaf])), _err(lambda: spec.child(5)),
                _err(lambda: setattr(spec, "type", tuple)),
                _err(lambda: spec < spec), spec == [1], spec != pt.tree_structure((1,)))
    same(f)


def test_treespec_equality_and_hash():
    def f(torch, pt):
        trees = [[1], [2], (1,), [[1]], {"a": 1}, {"a": 2}, {"b": 1}, {"a": 1, "b": 2},
                 {"b": 1, "a": 2}, OD(a=1), DD(list, a=1), DD(int, a=1), DQ([1]),
                 DQ([1], maxlen=2), NT(1, 2), NT2(1, 2), 1, None, torch.Size([1])]
        specs = [pt.tree_structure(t) for t in trees]
        eq = [[a == b for b in specs] for a in specs]
        hashes_agree = all(hash(a) == hash(b) for a in specs for b in specs if a == b)
        return eq, hashes_agree, len({hash(s) for s in specs}) > 5
    same(f)


def test_unflatten_errors():
    def f(torch, pt):
        spec = pt.tree_structure([1, (2, 3)])
        return (_err(lambda: pt.tree_unflatten([1, 2], spec)),
                _err(lambda: pt.tree_unflatten([1, 2, 3, 4], spec)),
                pt.tree_unflatten(iter([1, 2, 3]), spec), pt.tree_unflatten((1, 2, 3), spec),
                spec.unflatten(x for x in [7, 8, 9]),
                _err(lambda: pt.tree_unflatten([1, 2, 3], [1])),
                _err(lambda: pt.tree_unflatten([], pt.tree_structure(1))),
                _err(lambda: pt.tree_unflatten(5, pt.tree_structure(1))),
                pt.tree_unflatten([7], pt.tree_structure(1)),
                _err(lambda: pt.tree_unflatten([1], pt.tree_structure({"a": [1, 2]}))))
    same(f)


MISMATCH = [
    ([1, (2, 3)], [1, (2, 3)]), ([1, (2, 3)], [1, ([2], {"a": 3})]), ([1, (2, 3)], [1, [2, 3]]),
    ([1, (2, 3)], [1, (2, 3, 4)]), ([1, (2, 3)], [1]), ({"a": 1, "b": 2}, {"b": 1, "a": 2}),
    ({"a": 1, "b": 2}, {"b": 1, "c": 2}), ({"a": 1, "b": 2}, {"b": 1}),
    ({"a": 1, "b": 2}, {"b": 1, "a": 2, "c": 3}), ({"a": 1, "b": 2}, OD(b=1, a=2)),
    ({"a": 1, "b": 2}, DD(int, b=1, a=2)), (OD(a=1, b=2), {"b": 1, "a": 2}),
    (DD(int, a=1, b=2), DD(list, b=1, a=2)), (DD(int, a=1), OD(a=2)),
    (NT(1, 2), NT2(1, 2)), (NT(1, 2), (1, 2)), ((1, 2), NT(1, 2)), ([1, 2], DQ([1, 2])),
    (DQ([1, 2]), DQ([1, 2], maxlen=3)), (DQ([1, 2]), [3, 4]), ({"a": 1}, [1]),
    (1, [1, {"a": 2}]), ([1, 2], 1), ([1, [2]], [1, 5]),
]


@pytest.mark.parametrize("spec_tree,tree", MISMATCH)
def test_flatten_up_to_and_tree_map_mismatch(spec_tree, tree):
    def f(torch, pt):
        spec = pt.tree_structure(spec_tree)
        return (_try(lambda: spec.flatten_up_to(tree)),
                _try(lambda: pt.tree_map(lambda a, b: (a, b), spec_tree, tree)),
                _try(lambda: pt.tree_map_(lambda a, b: None, spec_tree, tree)))
    same(f)


def _try(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return Raised(e)


DUMPED = {
    "nested": lambda torch: {"b": [1, (2, 3)], "c": OD(y=6, x=7), "d": DD(list, {1: 8}),
                             "e": DQ([9, 10], maxlen=5), "f": None, "g": (), 3: [],
                             "s": torch.Size([1, 2])},
    "leaf": lambda torch: 1,
    "deque": lambda torch: DQ([1]),
    "dd_factory": lambda torch: DD(OD, {"a": 1}),
    "tuple_key": lambda torch: {"a": 1, (1, 2): 3},
}


@pytest.mark.parametrize("name", sorted(DUMPED))
def test_dumps_match_and_load_in_the_other_library(name):
    dumped = {}

    def f(torch, pt):
        spec = pt.tree_structure(DUMPED[name](torch))
        s = pt.treespec_dumps(spec)
        dumped[torch] = s
        loaded = pt.treespec_loads(s)
        return (s, pt.treespec_dumps(spec, 1), loaded, loaded == spec,
                pt.treespec_dumps(loaded) == s)
    same(f)
    # each library loads the other's string to the same spec
    ours = our_pytree.treespec_loads(dumped[real_torch])
    theirs = real_pytree.treespec_loads(dumped[torchlike])
    assert repr(ours) == repr(theirs)
    assert our_pytree.treespec_dumps(ours) == real_pytree.treespec_dumps(theirs) == \
        dumped[real_torch]


def test_dumps_loads_errors():
    class NoName:
        def __init__(self, v):
            self.v = v

    def f(torch, pt):
        if NoName not in pt.SUPPORTED_NODES:
            pt.register_pytree_node(NoName, lambda o: ([o.v], None), lambda v, c: NoName(*v))
        leaf = '{"type": null, "context": null, "children_spec": []}'
        return (_err(lambda: pt.treespec_dumps(pt.tree_structure([1]), 2)),
                _err(lambda: pt.treespec_dumps(pt.tree_structure([1]), 0)),
                _err(lambda: pt.treespec_dumps([1])),
                _err(lambda: pt.treespec_loads("[2, {}]")),
                _err(lambda: pt.treespec_loads(
                    '[1, {"type": "nope", "context": "null", "children_spec": []}]')),
                _err(lambda: pt.treespec_loads(
                    '[1, {"type": "builtins.list", "context": null, "children_spec": []}]')),
                _err(lambda: pt.treespec_loads(
                    '[1, {"type": null, "context": 5, "children_spec": []}]')),
                _err(lambda: pt.treespec_loads(
                    '[1, {"type": null, "context": null, "children_spec": [' + leaf + ']}]')),
                _err(lambda: pt.treespec_dumps(pt.tree_structure([NoName(1)]))),
                _err(lambda: pt.treespec_dumps(pt.tree_structure(NT(1, 2)))),
                _err(lambda: pt.treespec_loads('[1, {"type": "collections.namedtuple", '
                                               '"context": "zz.nope", "children_spec": []}]')),
                pt.treespec_dumps(pt.tree_structure(DD(Outer.Factory, {"a": 1}))),
                _err(lambda: pt.treespec_loads(
                    pt.treespec_dumps(pt.tree_structure(DD(Outer.Factory, {"a": 1}))))),
                pt.treespec_loads("[1, " + leaf + "]"),
                pt.treespec_loads("[1, " + leaf + "]") is pt.tree_structure(0))
    same(f)


def test_namedtuple_serialization_name():
    N = collections.namedtuple("N", "x y")
    N2b = collections.namedtuple("N2b", "x")

    def f(torch, pt):
        pt._register_namedtuple(N, serialized_type_name="test_pytree.N")
        spec = pt.tree_structure(N(1, [2]))
        s = pt.treespec_dumps(spec)
        pt._register_namedtuple(N2b, serialized_type_name="test_pytree.N2b")
        return (s, pt.treespec_loads(s), pt.treespec_loads(s) == spec,
                pt.tree_flatten_with_path(N(1, [2])), pt.treespec_pprint(spec))
    same(f, record_warnings=True)


def test_custom_node_registration():
    class Pt:
        def __init__(self, x, y, tag):
            self.x, self.y, self.tag = x, y, tag

        def __repr__(self):
            return f"Pt({self.x!r}, {self.y!r}, {self.tag!r})"

    class Meta:
        def __init__(self, a, meta):
            self.a, self.meta = a, meta

        def __repr__(self):
            return f"Meta({self.a!r}, {self.meta!r})"

    def f(torch, pt):
        pt.register_pytree_node(
            Pt, lambda o: ([o.x, o.y], o.tag), lambda xs, c: Pt(*xs, c),
            serialized_type_name="test_pytree.Pt",
            flatten_with_keys_fn=lambda o: ([(pt.GetAttrKey("x"), o.x),
                                             (pt.GetAttrKey("y"), o.y)], o.tag))
        pt.register_pytree_node(
            Meta, lambda o: ([o.a], o.meta), lambda xs, c: Meta(xs[0], c),
            serialized_type_name="test_pytree.Meta",
            to_dumpable_context=lambda m: {"m": list(m)},
            from_dumpable_context=lambda d: tuple(d["m"]))
        tree = {"p": Pt(1, [2, Meta(3, (4, 5))], "hi")}
        leaves, spec = pt.tree_flatten(tree)
        back = pt.tree_unflatten([10, 20, 30], spec)
        s = pt.treespec_dumps(spec)
        return (leaves, spec, repr(back), s, pt.treespec_loads(s), pt.treespec_loads(s) == spec,
                pt.treespec_pprint(spec), repr(pt.tree_map(lambda v: v * 2, tree)),
                pt.tree_flatten_with_path(Pt(1, 2, "t")),
                _err(lambda: pt.tree_flatten_with_path(tree)),
                _err(lambda: pt.tree_structure(Pt(1, 2, "a")).flatten_up_to([1, 2])),
                _err(lambda: pt.tree_structure(Pt(1, 2, "a")).flatten_up_to(Pt(1, 2, "b"))),
                pt.tree_structure(Pt(1, 2, "a")).flatten_up_to(Pt([1], {"k": 2}, "a")),
                _err(lambda: pt.tree_structure([1]).flatten_up_to(Pt(1, 2, "a"))),
                Pt in pt.SUPPORTED_NODES, pt.SUPPORTED_NODES[Pt].type is Pt,
                pt.SERIALIZED_TYPE_TO_PYTHON_TYPE["test_pytree.Pt"] is Pt,
                _err(lambda: pt.register_pytree_node(Pt, lambda o: ([], None),
                                                     lambda xs, c: None)),
                pt.tree_structure(Meta(1, (2,))) == pt.tree_structure(Meta(5, (2,))),
                pt.tree_structure(Meta(1, (2,))) == pt.tree_structure(Meta(5, (3,))))
    same(f)


def test_registration_errors_and_warnings():
    class A:
        pass

    class B:
        pass

    class C:
        def __init__(self, v):
            self.v = v

    class D:
        def __init__(self, v):
            self.v = v

    def f(torch, pt):
        flat, unflat = (lambda o: ([], None)), (lambda xs, c: None)
        first = _err(lambda: pt.register_pytree_node(A, flat, unflat,
                                                     to_dumpable_context=lambda m: m))
        return (first, A in pt.SUPPORTED_NODES,
                _err(lambda: pt.register_pytree_node(A, flat, unflat)),
                _err(lambda: pt.register_pytree_node(list, flat, unflat)),
                pt._register_pytree_node(B, flat, unflat),
                pt._register_pytree_node(B, flat, unflat, to_str_fn=str),
                pt._register_pytree_node(C, lambda o: ([o.v], None), lambda xs, c: C(*xs)),
                pt.tree_leaves([C(1), C([2, 3])]),
                _err(lambda: pt.treespec_dumps(pt.tree_structure(C(1)))),
                pt.register_pytree_node(D, lambda o: ([o.v], object()), lambda xs, c: D(*xs),
                                        serialized_type_name="test_pytree.D"),
                _err(lambda: pt.treespec_dumps(pt.tree_structure(D(1)))))
    same(f, record_warnings=True)


def test_register_dataclass():
    @dataclasses.dataclass
    class Dc:
        a: int
        b: list
        c: str = "x"
        d: int = dataclasses.field(default=3, init=False)

    @dataclasses.dataclass
    class Kept:
        a: int
        b: int = 0

    class Plain:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __repr__(self):
            return f"Plain({self.a}, {self.b})"

    def f(torch, pt):
        pt.register_dataclass(Dc, serialized_type_name="test_pytree.Dc")
        pt.register_dataclass(Kept, drop_field_names=["b"])
        bad = _err(lambda: pt.register_dataclass(Plain))
        pt.register_dataclass(Plain, field_names=["a", "b"])
        spec = pt.tree_structure(Dc(1, None))
        s = pt.treespec_dumps(spec)
        return (pt.tree_flatten(Dc(1, [2, 3])), pt.tree_flatten_with_path(Dc(1, [2, 3])),
                repr(pt.tree_unflatten([7, 8, 9, 10], pt.tree_structure(Dc(1, [2, 3])))),
                pt.tree_flatten(Dc(1, None)), repr(pt.tree_unflatten([5, 6], spec)), s,
                pt.treespec_loads(s) == spec,
                _err(lambda: spec.flatten_up_to(Dc(None, 2))), pt.tree_flatten(Kept(1, 2)),
                bad, pt.tree_flatten(Plain(1, [2])), repr(pt.tree_map(str, Plain(1, [2]))))
    same(f)
    same(lambda torch, pt: pt.register_dataclass(Kept), record_warnings=True)


def test_register_constant():
    class Const:
        def __init__(self, v):
            self.v = v

        def __eq__(self, other):
            return isinstance(other, Const) and other.v == self.v

        def __hash__(self):
            return hash(self.v)

        def __repr__(self):
            return f"Const({self.v})"

    class NoEq:
        pass

    class NoHash:
        def __eq__(self, other):
            return True
        __hash__ = None

    def f(torch, pt):
        pt.register_constant(Const)
        spec = pt.tree_structure([Const(1), 2])
        return (pt.tree_flatten([Const(1), 2]), spec.num_nodes, spec.num_leaves,
                spec.child(0).is_leaf(), spec.child(0).context.value,
                spec == pt.tree_structure([Const(1), 3]), spec == pt.tree_structure([Const(2), 3]),
                pt.tree_unflatten([5], spec), pt.tree_map(lambda v: v * 2, [Const(1), 2]),
                pt.tree_flatten_with_path([Const(1), 2]), pt.treespec_pprint(spec),
                pt.is_constant_class(Const), pt.is_constant_class(NoEq),
                _err(lambda: pt.register_constant(NoEq)),
                _err(lambda: pt.register_constant(NoHash)))
    same(f)
    same(lambda torch, pt: pt.register_constant(Const), record_warnings=True)


def test_namedtuple_and_structseq_predicates():
    class Sub(NT):
        pass

    class FakeNT(tuple):
        _fields = ("x",)

    def f(torch, pt):
        r = torch.max(torch.ones(2, 2), 1)
        objs = [NT, NT(1, 2), Sub, Sub(1, 2), FakeNT, tuple, (1,), torch.Size, torch.Size([1]),
                type(r), r, time.struct_time, time.gmtime(0), list, 5]
        return ([(pt.is_namedtuple(o), pt.is_namedtuple_class(o), pt.is_namedtuple_instance(o),
                  pt.is_structseq(o), pt.is_structseq_class(o), pt.is_structseq_instance(o))
                 for o in objs],
                pt.tree_flatten(Sub(1, 2)), pt.tree_flatten(FakeNT((1,))),
                pt.tree_flatten(time.gmtime(0))[1], pt.tree_flatten([[1]])[1].child(0).type)
    same(f)


def test_map_variants():
    calls = {}

    def f(torch, pt):
        seen = calls.setdefault(torch, [])
        tree = [1, 2.0, (3, "a", True), {"k": None}]
        same_obj = pt.tree_map_(seen.append, tree) is tree
        only_obj = pt.tree_map_only_(int, lambda v: seen.append(("int", v)), tree) is tree
        pt.tree_map_(lambda a, b: seen.append((a, b)), [1, [2]], [3, [4]])
        return (same_obj, only_obj, list(seen),
                pt.tree_map_only(int, lambda x: x * 10, tree),
                pt.tree_map_only((int, str), lambda x: x * 2, tree),
                pt.tree_map_only(int | str, lambda x: x * 2, tree),
                pt.tree_map_only(lambda x: isinstance(x, float), lambda x: -x, tree),
                pt.tree_map_only(bool, lambda x: not x, tree),
                _err(lambda: pt.tree_map_only(3, lambda x: x, tree)),
                pt.tree_all(lambda x: x is not None, tree), pt.tree_any(lambda x: x == "a", tree),
                pt.tree_all_only(int, lambda x: x > 0, tree),
                pt.tree_any_only((float, str), lambda x: x == 2.0, tree),
                pt.tree_all(bool, {}), pt.tree_any(bool, []),
                _err(lambda: pt.tree_all_only(lambda x: True, bool, tree)),
                type(pt.tree_iter(tree)).__name__, pt.arg_tree_leaves(1, [2], k=(3,), j={"z": 4}),
                _err(lambda: pt.tree_map(lambda x: x, 1, 2, 3)),
                pt.map_only(int)(lambda v: v + 1)(1), pt.map_only(int)(lambda v: v + 1)("s"))
    same(f)


@pytest.mark.parametrize("name", ["nested", "dict_order", "leaf", "empty", "nested_nt",
                                  "size", "deque"])
def test_pprint(name):
    same(lambda torch, pt: pt.treespec_pprint(pt.tree_structure(TREES[name](torch))))


def test_deprecations_warn():
    def f(torch, pt):
        leaf = pt.LeafSpec()
        return (leaf, leaf == pt.tree_structure(1), pt.tree_structure([1, 2]).children_specs,
                pt.treespec_pprint(pt.LeafSpec()), isinstance(leaf, pt.TreeSpec),
                pt.treespec_dumps(leaf))
    same(f, record_warnings=True)
    # no warning for the leaf specs the library makes itself
    same(lambda torch, pt: (pt.tree_structure(1), pt.treespec_leaf(), pt.tree_flatten([1, 2])),
         record_warnings=True)


def test_module_surface():
    exported = set(real_pytree.__all__)
    assert set(our_pytree.__all__) == exported
    assert all(hasattr(our_pytree, n) for n in exported)
    assert our_pytree.DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL == 1
    assert our_pytree.PyTreeSpec is our_pytree.TreeSpec
    assert issubclass(our_pytree.LeafSpec, our_pytree.TreeSpec)
    # built-in nodes in PyTorch's registration order
    ours = [t for t in our_pytree.SUPPORTED_NODES if t in our_pytree.BUILTIN_TYPES]
    real = [t for t in real_pytree.SUPPORTED_NODES if t in real_pytree.BUILTIN_TYPES]
    assert ours == real
    assert our_pytree.STANDARD_DICT_TYPES == real_pytree.STANDARD_DICT_TYPES
    assert our_pytree.BUILTIN_TYPES == real_pytree.BUILTIN_TYPES
    assert torchlike.Size in our_pytree.SUPPORTED_NODES
    assert torchlike.return_types.max in our_pytree.SUPPORTED_NODES
    assert torchlike.Tensor not in our_pytree.SUPPORTED_NODES


def test_importable_as_torch_utils_pytree():
    from torchlike import _runner
    assert torchlike.utils._pytree is our_pytree
    spec = _runner.TorchAlias().find_spec("torch.utils._pytree")
    assert spec.loader.create_module(spec) is our_pytree
