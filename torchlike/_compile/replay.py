"""A program's plan (`program.Plan`) turned into straight-line Python.

`make_apply(plan)` writes what one call leaves behind: new buffers into the storages the
program overwrote, version counters, the new `.grad` tensors and optimizer state the recipes
describe, generator offsets, and the result. `make_call(entry)` feeds a settled program from a
walk's storages (donating the buffers it overwrites when nothing else holds them) and applies
its plan: the whole steady-state call without interpreting the plan.
Recipes (built by `program._Collector`): ("c", value), ("t", i) / ("o", i) (the walk's i-th
tensor / object), ("new", source, size, stride, offset, dtype, requires_grad, version, grad)
with source ("ps", i) (the walk's i-th storage) or ("ns", out, dtype, device, tag) (a new
storage over output `out`, shared by every recipe with the same tag; a tuple tag marks a
differentiable result), ("dict", ((key, value), ...)) and ("seq", type, items).
"""
from sys import getrefcount as _getrefcount

import jax.numpy as jnp
import numpy as np

from .._core.storage import Storage
from .._core.tensor import Tensor, _new
from .codegen import Source
from .patches import _U64


# A buffer may be donated when these references alone hold it: its storage's `_data`, the one
# local name (or list) feeding the program, and getrefcount's own argument.
OWNED_REFS = 3


class _Walk:
    """Source expressions for the walk's lists: `S[i]`, `T[i]`, `walk.dicts[i]` ..."""

    def __init__(self, fmt):
        self.fmt = fmt

    def __getitem__(self, i):
        return self.fmt.format(i)


WALK_NAMES = {"storages": _Walk("S[{}]"), "tensors": _Walk("T[{}]"),
              "dicts": _Walk("walk.dicts[{}]"), "objs": _Walk("walk.objs[{}]"),
              "gens": _Walk("walk.gens[{}]")}


class Replay:
    """Emits into `src` (a `codegen.Source`) the statements of one call of a plan, addressing
    the walk's objects through `names` (list -> expressions, `WALK_NAMES` or a guard's own)."""

    def __init__(self, src, names):
        self.src, self.names = src, names
        self.storages = {}             # tag -> local name of a new storage

    def recipe(self, r):
        """An expression for recipe `r` (statements it needs are emitted first)."""
        src = self.src
        kind = r[0]
        if kind == "c":
            return src.lit(r[1])
        if kind == "t":
            return self.names["tensors"][r[1]]
        if kind == "o":
            return self.names["objs"][r[1]]
        if kind == "new":
            _, source, size, stride, offset, dtype, rg, vc, grad = r
            if source[0] == "ps":
                st = self.names["storages"][source[1]]
            else:
                st = self.storages.get(source[4])
                if st is None:
                    st = self.storages[source[4]] = src.local(
                        f"_Storage(outs[{source[1]}], {src.const(source[2])}, "
                        f"{src.const(source[3])})", "s")
            t = src.local(f"_new(_Tensor, {st}, {src.lit(size)}, {src.lit(stride)}, "
                          f"{src.lit(offset)}, [{vc!r}], None)", "t")
            src.emit(f"{t}.dtype = {src.const(dtype)}")
            if rg:
                src.emit(f"{t}._requires_grad = True")
            if grad is not None:
                src.emit(f"{t}._grad = {self.recipe(grad)}")
            if source[0] == "ns" and type(source[4]) is tuple:
                src.emit(f"diff.append({t})")
            return t
        if kind == "dict":
            items = [(self.recipe(k), self.recipe(v)) for k, v in r[1]]
            return src.local("{" + ", ".join(f"{k}: {v}" for k, v in items) + "}")
        if kind == "seq":
            items = ", ".join(self.recipe(x) for x in r[2])
            if hasattr(r[1], "_fields"):
                return src.local(f"{src.const(r[1])}({items})")
            return src.local(f"{src.const(r[1])}([{items}])")
        raise AssertionError(kind)

    def run(self, entry, n_storages, hv, gens):
        """Feed the settled program of `entry` from the storages (donating the buffers it
        overwrites when nothing else holds them) and leave its outputs in `outs`."""
        src, plan, S = self.src, entry.plan, self.names["storages"]
        arrays = [src.local(f"{S[i]}._data", "a") for i in range(n_storages)]
        for i, x in enumerate(arrays):
            src.emit(f"if {x} is None:")
            src.emit(f"    {x} = {S[i]}.array()")
        fed = ", ".join(arrays)
        if plan.donate:
            # each donated buffer is held by its storage and by the local variable alone (the
            # third reference is getrefcount's argument): letting XLA overwrite it is
            # unobservable
            owned = " and ".join(f"_rc({arrays[i]}) <= {OWNED_REFS}" for i in plan.donate)
            kept = ", ".join(x for i, x in enumerate(arrays) if i not in set(plan.donate))
            donated = ", ".join(arrays[i] for i in plan.donate)
            src.emit(f"if {owned}:")
            src.emit(f"    outs = {src.const(entry.donating)}([{donated}], [{kept}], {hv}, "
                     f"{gens})")
            src.emit("else:")
            src.emit(f"    outs = {src.const(entry.jitted)}([{fed}], {hv}, {gens})")
        else:
            src.emit(f"outs = {src.const(entry.jitted)}([{fed}], {hv}, {gens})")
        for x in arrays:
            src.emit(f"del {x}")

    def effects(self, plan):
        """What the call leaves behind; ends with `return result, diff`."""
        src, S, T = self.src, self.names["storages"], self.names["tensors"]
        src.emit("diff = []")
        for i, k in plan.updates:
            src.emit(f"st = {S[i]}")
            src.emit("if st._np is None:")
            src.emit(f"    st._data = outs[{k}]")
            src.emit("else:")
            src.emit(f"    st._np[...] = _np.asarray(outs[{k}]).reshape(-1)")
        for i, d in plan.vc:
            src.emit(f"{T[i]}._vc[0] += {d}")
        dicts = self.names["dicts"]
        for kind, j, k, r in plan.instructions:
            if kind == "grad":
                src.emit(f"{T[j]}._grad = {self.recipe(r)}")
            elif kind == "set":
                key = self.recipe(k)
                src.emit(f"{dicts[j]}[{key}] = {self.recipe(r)}")
            else:
                src.emit(f"del {dicts[j]}[{self.recipe(k)}]")
        for i, n in enumerate(plan.draws):
            if n:
                src.emit(f"g = {self.names['gens'][i]}")
                src.emit(f"g._offset = (g._offset + {n}) & {_U64}")
        src.emit(f"return {self.recipe(plan.result)}, diff")


NAMESPACE = {"_Storage": Storage, "_new": _new, "_Tensor": Tensor, "_np": np,
             "_rc": _getrefcount}
_PRELUDE = ("S = walk.storages", "T = walk.tensors")


def make_apply(plan):
    """`apply(walk, outs) -> (result, differentiable results)` for `plan`."""
    src = Source()
    for line in _PRELUDE:
        src.emit(line)
    Replay(src, WALK_NAMES).effects(plan)
    return src.function("apply(walk, outs)", NAMESPACE, "<torchlike.compile apply>")


def make_call(entry, n_storages):
    """`call(walk, hv, gens) -> (result, [])`, the steady-state call of a settled `entry`
    whose plan has no differentiable results (see the module docstring)."""
    src = Source()
    for line in _PRELUDE:
        src.emit(line)
    r = Replay(src, WALK_NAMES)
    r.run(entry, n_storages, "hv", "gens")
    r.effects(entry.plan)
    return src.function("call(walk, hv, gens)", NAMESPACE, "<torchlike.compile call>")
