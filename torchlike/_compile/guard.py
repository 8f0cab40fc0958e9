"""A generated check that a call meets the state a full walk met before, at a fraction of its cost.

`state.Walk` interprets the whole object graph on every call (about 50 us for a small MLP
step, most of the compiled step's overhead). Once a walk has hit a program, `build` turns that
walk into straight-line Python specialised to the objects it met:
  * objects found through the function (modules, optimizers, their dicts and lists, parameter
    tensors, optimizer state, generators, closure cells and globals) are *pinned*: the guard
    checks that each slot still holds the same object and that every value the walk keys on
    (sizes, strides, dtypes, flags, Python scalars, dict keys, list lengths) is unchanged;
  * slots that hold new objects on every call, the call's arguments and each tensor's `.grad`,
    are *dynamic*: their tensors are checked by structure (type, layout, storage, aliasing).
When every check passes the guard returns a `Walk` whose lists are, position by position, the
ones a full walk would return; otherwise None (or an exception), and the caller walks in full.
A guard is compared with the full walk it was built from before it is used, and with
`CHECK[0]` set (the test suite sets it) every passing guard is compared with a full walk.
Guards hold strong references to the objects they pin.
"""
import types
from collections import OrderedDict
from operator import itemgetter

from .._core import dtype as _dt
from .._core.grad_state import ENABLED as _GRAD
from .._core.tensor import Tensor
from .._ops.random import Generator
from ..nn.modules.module import Module
from ..optim._optax_base import OptaxOptimizer
from ..optim.optimizer import Optimizer
from .codegen import Source
from .program import gen_array, hyper_arrays
from .replay import NAMESPACE, Replay
from .state import (Walk, _ATOMS, _SKIP, _MODULE_DICTS, _MODULE_HOOKS, _MAX_DEPTH, _MAX_LEN,
                    _LIBS, _OPT_KNOWN, _numeric, global_names)

CHECK = [False]
FAIL = object()         # what a guard's `run` returns when a check fails
_MISS = object()


class Unguardable(Exception):
    """The walk met something the generator does not specialise (no guard is built)."""


class Guard:
    """A built guard: `check(args, kwargs)` returns a `Walk` or None, `run(args, kwargs)` the
    whole steady-state call's `(result, [])` or `FAIL` (see `_Gen.compile`)."""

    __slots__ = ("check", "run", "entry", "key")

    def __init__(self, check, run, entry, key):
        self.check, self.run, self.entry, self.key = check, run, entry, key


def build(walk, key, entry, args, kwargs, roots_tail):
    """The guard for `walk` (just made from `(args, kwargs) + roots_tail`), or None when the
    walk met something not specialised or the generated code disagrees with the walk."""
    g = _Gen()
    try:
        g.roots(args, kwargs, roots_tail)
        check, run = g.compile(entry)
    except Unguardable:
        return None
    except Exception:            # a generator bug must not break the user's call
        if CHECK[0]:
            raise
        return None
    got = check(args, kwargs)
    if got is None or not same_walk(got, walk):
        if CHECK[0]:
            raise AssertionError("torchlike.compile: a generated guard disagrees with the walk")
        return None
    return Guard(check, run, entry, key)


def same_walk(a, b):
    """Whether two walks list the same objects in the same positions (but the roots tuple,
    `objs[0]`, which each walk builds for itself)."""
    for name in ("storages", "tensors", "objs", "dicts", "lists", "gens"):
        x, y = getattr(a, name), getattr(b, name)
        if name == "objs":
            x, y = x[1:], y[1:]
        if len(x) != len(y) or any(p is not q for p, q in zip(x, y)):
            return False
    return len(a.hypers) == len(b.hypers) and all(
        g is h and k == j for (g, k), (h, j) in zip(a.hypers, b.hypers)) and \
        a.hyper_groups == b.hyper_groups


class _Gen(Source):
    """Emits the guard's source while mirroring `Walk`'s traversal (see the module docstring)."""

    def __init__(self):
        super().__init__()
        self.pending = []              # conditions not yet emitted (joined into one `if`)
        self.seen = {}                 # id -> name of the object (mirrors Walk._seen)
        self.st_names = {}             # id(storage) -> name (mirrors Walk._st_ix)
        self.out = {k: [] for k in ("storages", "tensors", "objs", "dicts", "lists", "gens")}
        self.hypers = []
        self.hyper_groups = {}
        self.pinned_tensors = set()
        self.pinned_storages = set()
        self.pinned_objs = set()
        self.dyn_objs = []             # locals holding this call's dynamic tensors/containers
        self.dyn_storages = []         # ... and the new storages of its dynamic tensors

    # ---- source helpers ----------------------------------------------------------------------

    def emit(self, line):
        if self.pending:
            super().emit(f"if ({') or ('.join(self.pending)}): return _FAIL")
            self.pending = []
        super().emit(line)

    def fail_if(self, cond):
        self.pending.append(cond)

    def atom(self, expr, value):
        if value is None or type(value) is bool:
            self.fail_if(f"{expr} is not {value!r}")
        elif type(value) in (int, str):
            v = self.local(expr)
            self.fail_if(f"type({v}) is not {type(value).__name__} or {v} != {value!r}")
        else:
            v = self.local(expr)
            c = self.const(value)
            self.fail_if(f"{v} is not {c} and (type({v}) is not {self.const(type(value))} "
                         f"or {v} != {c})")

    @staticmethod
    def item(name, d, key):
        """The slot `name[key]` of dict `d`: a subscript (a missing key raises, and a raising
        guard fails) unless `d` may make up values (a defaultdict's `__missing__`)."""
        if type(d) in (dict, OrderedDict):
            return f"{name}[{key}]"
        return f"{name}.get({key}, _MISS)"

    def pin(self, obj, expr, fixed):
        """The constant naming pinned `obj`, with a check that the slot `expr` holds it."""
        name = self.const(obj)
        if not fixed:
            self.fail_if(f"{expr} is not {name}")
        return name

    def compile(self, entry):
        """(check, run): `check(args, kwargs)` returns the `Walk` or None; `run(args, kwargs)`
        checks, runs `entry`'s settled program and applies its effects, returning
        `(result, [])` or `FAIL` (None when the plan has differentiable results)."""
        # dynamic objects must be distinct from each other and from every pinned object, as
        # the walk would otherwise have met them as references
        for names, pinned in ((self.dyn_objs, "_PO"), (self.dyn_storages, "_PS")):
            if names:
                ids = self.local("{" + ", ".join(f"id({n})" for n in names) + "}")
                self.fail_if(f"len({ids}) != {len(names)} or not {pinned}.isdisjoint({ids})")
        self.emit("pass")   # (flushes the last conditions)
        # a check that raises (a missing key, an emptied cell) fails
        checks = ["try:"] + ["    " + line for line in self.lines] + \
            ["except Exception:", "    return _FAIL"]
        ns = {"_new_walk": object.__new__, "_Walk": Walk, "_hypers": self.hypers,
              "_hyper_groups": self.hyper_groups, "_GRAD": _GRAD, "_dt": _dt, "_MISS": _MISS,
              "_PS": frozenset(self.pinned_storages),
              "_PO": frozenset(self.pinned_objs | self.pinned_tensors), "_numeric": _numeric,
              "_FAIL": None}
        self.lines = checks + ["w = _new_walk(_Walk)"]
        for k, items in self.out.items():
            self.emit(f"w.{k} = [{', '.join(items)}]")
        self.lines += ["w.hypers = _hypers", "w.hyper_groups = _hyper_groups",
                       "w.key = w._seen = w._st_ix = None", "return w"]
        check = self.function("check(args, kwargs)", ns, "<torchlike.compile guard>")
        if entry.plan.diff_outs:
            return check, None
        self.lines = list(checks)
        hv = []
        for group, k in self.hypers:
            v = f"{self.const(group)}[{k!r}]"
            hv.append(f"*map(float, {v})" if type(group[k]) is tuple else f"float({v})")
        self.emit(f"hv = _hyper_arrays(({', '.join(hv)}{',' if hv else ''}))")
        gens = "".join(f"{g}._call_row(), " if n else "(0, 0), "
                       for g, n in zip(self.out["gens"], entry.plan.draws))
        self.emit(f"gens = _gen_array(({gens}))")
        replay = Replay(self, self.out)
        replay.run(entry, len(self.out["storages"]), "hv", "gens")
        replay.effects(entry.plan)
        ns.update(NAMESPACE, _FAIL=FAIL, _hyper_arrays=hyper_arrays, _gen_array=gen_array)
        return check, self.function("run(args, kwargs)", ns, "<torchlike.compile guard>")

    # ---- the traversal (each method mirrors the `Walk` method of the same name) ------------

    def roots(self, args, kwargs, tail):
        self.fail_if(f"_GRAD[0] is not {_GRAD[0]!r}")
        self.fail_if(f"_dt.get_default_dtype() is not {self.const(_dt.get_default_dtype())}")
        roots = (args, kwargs) + tuple(tail)
        r = self.local("(args, kwargs, " + ", ".join(self.const(x) for x in tail) + ")")
        self.seen[id(roots)] = r
        self.out["objs"].append(r)
        self.dyn_container(args, "args", 1, fixed_type=True)
        self.dyn_container(kwargs, "kwargs", 1, fixed_type=True)
        for x in tail:
            self.visit(x, 1, self.const(x), fixed=True)

    def visit(self, obj, depth, expr, fixed=False, dynamic=False):
        """Mirrors `Walk.visit` for the value `obj` found in the slot `expr`."""
        t = type(obj)
        if t in _ATOMS:
            if not fixed:
                self.atom(expr, obj)
            return
        name = self.seen.get(id(obj))
        if name is not None:
            if not fixed:
                self.fail_if(f"{expr} is not {name}")
            return
        if isinstance(obj, Tensor):
            if dynamic:
                self.dyn_tensor(obj, expr)
            else:
                self.tensor(obj, self.pin(obj, expr, fixed))
            return
        if isinstance(obj, _SKIP) or depth > _MAX_DEPTH:
            self.pin(obj, expr, fixed)
            return
        if dynamic and t in (tuple, list, dict):
            self.dyn_container(obj, expr, depth)
            return
        name = self.pin(obj, expr, fixed)
        self.seen[id(obj)] = name
        self.pinned_objs.add(id(obj))
        self.out["objs"].append(name)
        if t is tuple or t is list:
            if len(obj) > _MAX_LEN:
                return
            if t is list:
                self.out["lists"].append(name)
                self.fail_if(f"len({name}) != {len(obj)}")
            for i, v in enumerate(obj):
                self.visit(v, depth + 1, f"{name}[{i}]", fixed=t is tuple)
        elif isinstance(obj, dict):
            self.dict(obj, name, depth)
        elif isinstance(obj, Module):
            self.module(obj, name, depth)
        elif isinstance(obj, Optimizer):
            self.optimizer(obj, name, depth)
        elif isinstance(obj, Generator):
            self.out["gens"].append(name)
        elif isinstance(obj, types.FunctionType):
            self.func(obj, name, depth)
        elif isinstance(obj, types.MethodType):
            self.visit(obj.__self__, depth + 1, f"{name}.__self__", fixed=True)
        elif isinstance(getattr(obj, "__dict__", None), dict):
            self.fail_if(f"type({name}) is not {self.const(t)}")
            d = self.pin(obj.__dict__, f"{name}.__dict__", False)
            self.dict(obj.__dict__, d, depth)

    def tensor(self, t, name):
        """A pinned tensor (mirrors `Walk._tensor`)."""
        self.seen[id(t)] = name
        self.pinned_tensors.add(id(t))
        self.out["tensors"].append(name)
        st = t._st
        sname = self.st_names.get(id(st))
        if sname is None:
            sname = self.const(st)
            self.pinned_storages.add(id(st))
            self.fail_if(f"{name}._st is not {sname}")
            self.new_storage(st, sname, pinned=True)
        else:
            self.fail_if(f"{name}._st is not {sname}")
        self.layout(t, name)

    def dyn_tensor(self, t, expr):
        """A tensor in a slot that holds a new one on every call (an argument, a `.grad`)."""
        v = self.local(expr)
        self.dyn_objs.append(v)
        self.seen[id(t)] = v
        self.out["tensors"].append(v)
        st = t._st
        sname = self.st_names.get(id(st))
        if sname is None:
            sname = self.local(f"{v}._st")
            self.dyn_storages.append(sname)
            self.new_storage(st, sname, pinned=False, tensor=(t, v))
        else:
            self.fail_if(f"{v}._st is not {sname}")
            self.layout(t, v)

    def new_storage(self, st, sname, pinned, tensor=None):
        """Checks on a storage met for the first time (a storage's dtype and device never
        change, so a pinned one's are not checked); with `tensor`, joined with its layout's."""
        self.st_names[id(st)] = sname
        self.out["storages"].append(sname)
        if pinned:
            self.fail_if(f"{sname}._np is not {st._np is None and 'None' or self.const(st._np)}"
                         f" or {sname}.shape != {self.lit(st.shape)}")
        else:
            t, name = tensor
            self.layout(t, name, (f"{sname}.shape, {sname}._np is None, {sname}.dtype, "
                                  f"{sname}.device, ", (st.shape, st._np is None, st.dtype,
                                                        st.device)))

    def layout(self, t, name, storage=("", ())):
        """Everything else `Walk._tensor` keys on, as one tuple comparison (cheaper than one
        test per field; each field is a tuple, int, bool, dtype, device or class)."""
        fields = storage[1] + (t._size, t._stride, t._offset, t.dtype, type(t),
                               t._requires_grad, t.grad_fn is None)
        self.fail_if(f"({storage[0]}{name}._size, {name}._stride, {name}._offset, {name}.dtype, "
                     f"type({name}), {name}._requires_grad, {name}.grad_fn is None) != "
                     f"{self.const(fields)}")
        g = t._grad
        if g is None:
            self.fail_if(f"{name}._grad is not None")
        else:
            self.visit(g, 0, f"{name}._grad", dynamic=True)

    def dyn_container(self, obj, expr, depth, fixed_type=False):
        """A tuple, list or dict argument (new on every call): checked by structure."""
        t = type(obj)
        v = expr if fixed_type else self.local(expr)
        if not fixed_type:
            self.fail_if(f"type({v}) is not {t.__name__}")
            self.dyn_objs.append(v)
        if len(obj) > _MAX_LEN:
            raise Unguardable("a long argument")
        self.seen[id(obj)] = v
        self.out["objs"].append(v)
        self.fail_if(f"len({v}) != {len(obj)}")
        if t is dict:
            self.out["dicts"].append(v)
            items = list(obj.items())
            if any(type(k) not in (int, str) for k, _ in items):
                raise Unguardable("a dict argument keyed by objects")
            self.fail_if(f"list({v}) != {[k for k, _ in items]!r}")
            for k, x in items:
                self.visit(x, depth + 1, f"{v}[{k!r}]", dynamic=True)
        else:
            if t is list:
                self.out["lists"].append(v)
            for i, x in enumerate(obj):
                self.visit(x, depth + 1, f"{v}[{i}]", dynamic=True)

    def dict(self, d, name, depth):
        self.out["dicts"].append(name)
        self.fail_if(f"len({name}) != {len(d)}")
        for k, v in d.items():
            self.visit(v, depth + 1, self.item(name, d, self.key(k, depth)))

    def key(self, k, depth):
        """A dict key as source (mirrors `Walk._keyref`: an object key is visited first)."""
        if type(k) in (int, str, bool) or k is None:
            return repr(k)
        if type(k) in _ATOMS:
            return self.const(k)
        if id(k) not in self.seen:
            self.visit(k, depth + 1, self.const(k), fixed=True)
        return self.seen.get(id(k)) or self.const(k)

    def module(self, m, name, depth):
        self.fail_if(f"type({name}) is not {self.const(type(m))}")
        d = self.pin(m.__dict__, f"{name}.__dict__", False)
        self.out["dicts"].append(d)
        self.fail_if(f"len({d}) != {len(m.__dict__)}")
        # hook containers and Python scalars in one comparison: the walk keys hooks by their
        # number and scalars by equality, and a tuple compares by identity, then equality
        plain = [(k, v) for k, v in m.__dict__.items() if k in _MODULE_HOOKS or
                 type(v) in _ATOMS]
        if plain:
            keys, values = zip(*plain)
            get = f"{self.const(itemgetter(*keys))}({d})" if len(keys) > 1 else \
                f"({d}[{keys[0]!r}],)"
            self.fail_if(f"{get} != {self.const(tuple(values))}")
        for k, v in m.__dict__.items():
            slot = f"{d}[{k!r}]"
            if k in _MODULE_HOOKS or type(v) in _ATOMS:
                continue
            if k == "_modules":
                mods = self.pin(v, slot, False)
                self.fail_if(f"len({mods}) != {len(v)}")
                for sub_name, sub in v.items():
                    self.visit(sub, depth + 1, self.item(mods, v, repr(sub_name)))
            elif k in _MODULE_DICTS:
                self.dict(v, self.pin(v, slot, False), depth)
            else:
                self.visit(v, depth + 1, slot)

    def optimizer(self, opt, name, depth):
        self.fail_if(f"type({name}) is not {self.const(type(opt))}")
        od = self.pin(opt.__dict__, f"{name}.__dict__", False)
        self.fail_if(f"{od}.keys() != {self.const(frozenset(opt.__dict__))}")
        optax = isinstance(opt, OptaxOptimizer)
        hyper = type(opt)._hyper if optax else ()
        groups = self.pin(opt.param_groups, f"{od}['param_groups']", False)
        self.out["lists"].append(groups)
        self.fail_if(f"len({groups}) != {len(opt.param_groups)}")
        for i, group in enumerate(opt.param_groups):
            gname = self.pin(group, f"{groups}[{i}]", False)
            self.out["dicts"].append(gname)
            self.fail_if(f"len({gname}) != {len(group)}")
            if optax:
                self.fail_if(f"{name}._flags({gname}) != {self.const(opt._flags(group))}")
                self.hyper_groups[id(group)] = (opt, len(self.hypers))
            for k, v in group.items():
                slot = self.item(gname, group, self.key(k, depth))
                if k in hyper and _numeric(v):
                    self.hypers.append((group, k))
                    v_ = self.local(slot)
                    if type(v) is tuple:
                        self.fail_if(f"type({v_}) is not tuple or len({v_}) != {len(v)} or "
                                     f"not _numeric({v_})")
                    else:
                        self.fail_if(f"type({v_}) is not {type(v).__name__}")
                else:
                    self.visit(v, depth + 1, slot)
        state = self.pin(opt.state, f"{od}['state']", False)
        self.out["dicts"].append(state)
        self.fail_if(f"len({state}) != {len(opt.state)}")
        for group in opt.param_groups:
            for p in group["params"]:
                s = opt.state.get(p)
                slot = f"{state}.get({self.key(p, depth)})"
                if s is None:
                    self.fail_if(f"{slot} is not None")
                else:
                    self.visit(s, depth + 1, slot)
        for k in opt.__dict__:
            if k not in _OPT_KNOWN:
                self.visit(opt.__dict__[k], depth + 1, f"{od}[{k!r}]")

    def func(self, fn, name, depth):
        self.fail_if(f"{name}.__code__ is not {self.const(fn.__code__)}")
        g = fn.__globals__
        if g.get("__name__", "").split(".")[0] in _LIBS:
            return
        for i, cell in enumerate(fn.__closure__ or ()):
            c = self.const(cell)
            try:
                v = cell.cell_contents
            except ValueError:           # an empty cell: must stay empty
                for line in ("try:", f"    {c}.cell_contents", "    return _FAIL",
                             "except ValueError:", "    pass"):
                    self.emit(line)
                continue
            self.visit(v, depth + 1, f"{c}.cell_contents")
        gname = self.const(g)
        for n in global_names(fn.__code__):
            v = g.get(n, _MISS)
            if v is _MISS:
                self.fail_if(f"{gname}.get({n!r}, _MISS) is not _MISS")
            else:
                self.visit(v, depth + 1, f"{gname}[{n!r}]")
