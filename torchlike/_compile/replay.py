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


class _Apply(Source):
    def __init__(self):
        super().__init__()
        self.storages = {}             # tag -> local name of a new storage

    def recipe(self, r):
        """An expression for recipe `r` (statements it needs are emitted first)."""
        kind = r[0]
        if kind == "c":
            return self.lit(r[1])
        if kind == "t":
            return f"T[{r[1]}]"
        if kind == "o":
            return f"walk.objs[{r[1]}]"
        if kind == "new":
            _, src, size, stride, offset, dtype, rg, vc, grad = r
            if src[0] == "ps":
                st = f"S[{src[1]}]"
            else:
                st = self.storages.get(src[4])
                if st is None:
                    st = self.storages[src[4]] = self.local(
                        f"_Storage(outs[{src[1]}], {self.const(src[2])}, {self.const(src[3])})",
                        "s")
            t = self.local(f"_new(_Tensor, {st}, {self.lit(size)}, {self.lit(stride)}, "
                           f"{self.lit(offset)}, [{vc!r}], None)", "t")
            self.emit(f"{t}.dtype = {self.const(dtype)}")
            if rg:
                self.emit(f"{t}._requires_grad = True")
            if grad is not None:
                self.emit(f"{t}._grad = {self.recipe(grad)}")
            if src[0] == "ns" and type(src[4]) is tuple:
                self.emit(f"diff.append({t})")
            return t
        if kind == "dict":
            items = [(self.recipe(k), self.recipe(v)) for k, v in r[1]]
            return self.local("{" + ", ".join(f"{k}: {v}" for k, v in items) + "}")
        if kind == "seq":
            items = ", ".join(self.recipe(x) for x in r[2])
            if hasattr(r[1], "_fields"):
                return self.local(f"{self.const(r[1])}({items})")
            return self.local(f"{self.const(r[1])}([{items}])")
        raise AssertionError(kind)

    def body(self, plan):
        self.emit("S = walk.storages")
        self.emit("T = walk.tensors")
        self.emit("diff = []")
        for i, k in plan.updates:
            self.emit(f"st = S[{i}]")
            self.emit("if st._np is None:")
            self.emit(f"    st._data = outs[{k}]")
            self.emit("else:")
            self.emit(f"    st._np[...] = _np.asarray(outs[{k}]).reshape(-1)")
        for i, d in plan.vc:
            self.emit(f"T[{i}]._vc[0] += {d}")
        for kind, j, k, r in plan.instructions:
            if kind == "grad":
                self.emit(f"T[{j}]._grad = {self.recipe(r)}")
            elif kind == "set":
                key = self.recipe(k)
                self.emit(f"walk.dicts[{j}][{key}] = {self.recipe(r)}")
            else:
                self.emit(f"del walk.dicts[{j}][{self.recipe(k)}]")
        for i, n in enumerate(plan.draws):
            if n:
                self.emit(f"g = walk.gens[{i}]")
                self.emit(f"g._offset = (g._offset + {n}) & {_U64}")
        self.emit(f"return {self.recipe(plan.result)}, diff")


_NS = {"_Storage": Storage, "_new": _new, "_Tensor": Tensor, "_np": np, "_asarray": jnp.asarray,
       "_rc": _getrefcount}


def make_apply(plan):
    """`apply(walk, outs) -> (result, differentiable results)` for `plan`."""
    a = _Apply()
    a.body(plan)
    return a.function("apply(walk, outs)", _NS, "<torchlike.compile apply>")


def make_call(entry, n_storages):
    """`call(walk, hv, gens) -> (result, [])`, the steady-state call of a settled `entry`
    whose plan has no differentiable results (see the module docstring)."""
    plan = entry.plan
    a = _Apply()
    a.emit("S = walk.storages")
    arrays = [a.local(f"S[{i}]._data", "a") for i in range(n_storages)]
    for i, x in enumerate(arrays):
        a.emit(f"if {x} is None:")
        a.emit(f"    {x} = _asarray(S[{i}]._np)")
    fed = ", ".join(arrays)
    if plan.donate:
        # each donated buffer is held by its storage and by the local variable alone (the
        # third reference is getrefcount's argument): letting XLA overwrite it is unobservable
        owned = " and ".join(f"_rc({arrays[i]}) <= 3" for i in plan.donate)
        kept = ", ".join(x for i, x in enumerate(arrays) if i not in set(plan.donate))
        donated = ", ".join(arrays[i] for i in plan.donate)
        a.emit(f"if {owned}:")
        a.emit(f"    outs = {a.const(entry.donating)}([{donated}], [{kept}], hv, gens)")
        a.emit("else:")
        a.emit(f"    outs = {a.const(entry.jitted)}([{fed}], hv, gens)")
    else:
        a.emit(f"outs = {a.const(entry.jitted)}([{fed}], hv, gens)")
    for x in arrays:
        a.emit(f"del {x}")
    a.body(plan)
    return a.function("call(walk, hv, gens)", _NS, "<torchlike.compile call>")
