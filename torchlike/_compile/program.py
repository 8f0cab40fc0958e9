"""One compiled program per (function, walk key): trace, run, and replay its effects.

Tracing runs the user's function once on JAX tracers installed in every storage the walk found
(`state.Walk`). What the function left behind is then compared with a snapshot taken before:
  * storages whose buffer changed become program outputs, written back on every call;
  * slots that now hold something else (a parameter's new `.grad`, optimizer state created at
    the first step, a module attribute) become *instructions*: set that slot to a new tensor
    over an output, to None, to a constant, or to an object the walk reached;
  * version counters advance by what the trace added, generators by the draws it made.
Every object is then restored to its snapshot, so no tracer survives, and the trace call itself
applies the plan like any later call does. Everything is addressed by position in the walk, so
one program serves any objects of the same structure.
"""
import os
import traceback
from sys import getrefcount as _getrefcount

import jax
import jax.numpy as jnp
import numpy as np

from .._core import xla_options
from .._core.tracing import tracing
from .._core.tensor import Tensor
from . import patches, replay
from .patches import Unsupported
from .state import _ATOMS, hyper_values

_GEN_ARRAYS = {}
_HYPER_ARRAYS = {}


class Snapshot:
    """Everything a trace may change on the objects the walk reached."""

    def __init__(self, walk):
        self.walk = walk
        self.storages = [(st._data, st._np, st.shape) for st in walk.storages]
        self.tensors = [(t._st, t._grad, t._vc, t._vc[0], t.grad_fn, t._requires_grad, t._size,
                         t._stride, t._offset, t._natural, t.dtype) for t in walk.tensors]
        self.dicts = [dict(d) for d in walk.dicts]
        self.lists = [list(x) for x in walk.lists]
        self.gens = [(g._seed, g._offset) for g in walk.gens]

    def restore(self):
        w = self.walk
        for st, (data, npa, shape) in zip(w.storages, self.storages):
            st._data, st._np, st.shape = data, npa, shape
        for t, s in zip(w.tensors, self.tensors):
            (t._st, t._grad, t._vc, vc, t.grad_fn, t._requires_grad, t._size, t._stride,
             t._offset, t._natural, t.dtype) = s
            t._vc[0] = vc
            t._cache = t._cache_src = None
        for d, snap in zip(w.dicts, self.dicts):
            if len(d) != len(snap) or any(d.get(k, d) is not v for k, v in snap.items()):
                d.clear()
                d.update(snap)
        for x, snap in zip(w.lists, self.lists):
            x[:] = snap
        for g, (seed, off) in zip(w.gens, self.gens):
            g._seed, g._offset = seed, off


class Plan:
    """What one call of a program does besides computing: see the module docstring."""

    __slots__ = ("updates", "vc", "instructions", "draws", "result", "n_out", "diff_outs",
                 "tracked", "donate")


class _Collector:
    """Turns the state a trace left into program outputs and build recipes."""

    def __init__(self, walk, snap, arrays):
        self.walk, self.snap, self.arrays = walk, snap, arrays
        self.outs = []
        self.new_storages = {}
        self.in_result = False
        self.diff_outs = []

    def out(self, array):
        self.outs.append(array)
        return len(self.outs) - 1

    def recipe(self, v, depth=0):
        """How to rebuild value `v` after a call (see `build`)."""
        if type(v) in _ATOMS:
            return ("c", v)
        ref = self.walk.ref(v)
        if ref is not None:
            return ref
        if depth > 8:
            raise Unsupported(f"a {type(v).__name__} too deeply nested to rebuild")
        if isinstance(v, Tensor):
            return self._new_tensor(v)
        t = type(v)
        if t is dict:
            return ("dict", tuple((self.key_recipe(k), self.recipe(x, depth + 1))
                                  for k, x in v.items()))
        if t in (list, tuple) or (isinstance(v, tuple) and hasattr(t, "_fields")):
            return ("seq", t, tuple(self.recipe(x, depth + 1) for x in v))
        if isinstance(v, (np.ndarray, np.generic)):
            return ("c", v)
        raise Unsupported(f"a new {t.__name__} object left by the function cannot be rebuilt")

    def key_recipe(self, k):
        if type(k) in _ATOMS:
            return ("c", k)
        ref = self.walk.ref(k)
        if ref is None:
            raise Unsupported("a dict keyed by an object the compiled program cannot rebuild")
        return ref

    def _new_tensor(self, t):
        if t.grad_fn is not None and not t.grad_fn._freed:
            if not self.in_result:
                raise Unsupported("a tensor with autograd history was stored by the function")
            # a result to differentiate later: its own output, attached to a backward node
            k = self.out(t._value())
            self.diff_outs.append(k)
            return ("new", ("ns", k, t.dtype, t._st.device, ("diff", k)), t._size,
                    _contiguous(t._size), 0, t.dtype, True, 0, None)
        st = t._st
        si = self.walk._st_ix.get(id(st))
        if si is not None:
            src = ("ps", si)
        else:
            src = self.new_storages.get(id(st))
            if src is None:
                if st._data is None:
                    raise Unsupported("a tensor was shared with NumPy inside the function")
                src = self.new_storages[id(st)] = ("ns", self.out(st._data), st.dtype,
                                                   st.device, len(self.new_storages))
        grad = None if t._grad is None else self.recipe(t._grad)
        return ("new", src, t._size, t._stride, t._offset, t.dtype, t._requires_grad, t._vc[0],
                grad)

    def collect(self, result, ctx):
        walk, snap = self.walk, self.snap
        plan = Plan()
        plan.updates = []
        for i, (st, a) in enumerate(zip(walk.storages, self.arrays)):
            if st._np is not None or st._data is None:
                raise Unsupported("a tensor was shared with NumPy inside the function")
            d = st._data
            if d is not a:
                if d.shape != a.shape or d.dtype != a.dtype:
                    raise Unsupported("a tensor was resized inside the function")
                plan.updates.append((i, self.out(d)))
        plan.vc = []
        instructions = []
        seen_vc = set()
        for i, (t, s) in enumerate(zip(walk.tensors, snap.tensors)):
            if t._st is not s[0] or t._size != s[6] or t._stride != s[7] or t._offset != s[8]:
                raise Unsupported("a tensor's storage or shape was replaced inside the function")
            if t.grad_fn is not s[4] or t._requires_grad != s[5]:
                raise Unsupported("a tensor's requires_grad or history changed inside the "
                                  "function")
            if id(t._vc) not in seen_vc:
                seen_vc.add(id(t._vc))
                if t._vc[0] != s[3]:
                    plan.vc.append((i, t._vc[0] - s[3]))
            if t._grad is not s[1]:
                instructions.append(("grad", i, None, self.recipe(t._grad)))
        hyper = {(id(g), k) for g, k in walk.hypers}
        for j, (d, before) in enumerate(zip(walk.dicts, snap.dicts)):
            if len(d) == len(before) and all(d.get(k, d) is v for k, v in before.items()):
                continue
            for k, v in d.items():
                if k not in before or before[k] is not v:
                    if (id(d), k) in hyper:
                        raise Unsupported(f"the optimizer's '{k}' was changed inside the "
                                          "function")
                    instructions.append(("set", j, self.key_recipe(k), self.recipe(v)))
            for k in before:
                if k not in d:
                    instructions.append(("del", j, self.key_recipe(k), None))
        for x, before in zip(walk.lists, snap.lists):
            if len(x) != len(before) or any(a is not b for a, b in zip(x, before)):
                raise Unsupported("a list was changed inside the function")
        ctx.check_generators(walk)
        plan.instructions = tuple(instructions)
        plan.draws = tuple(ctx.draws)
        self.in_result = True
        plan.result = self.recipe(result)
        plan.n_out = len(self.outs)
        plan.diff_outs = tuple(self.diff_outs)
        plan.tracked = ()
        # storages the program overwrites: their old buffers may be donated to XLA (not when
        # a differentiable result keeps the inputs for its backward)
        plan.donate = () if self.diff_outs else tuple(i for i, _ in plan.updates)
        if self.diff_outs:
            tracked = []
            for i, (t, s) in enumerate(zip(walk.tensors, snap.tensors)):
                if s[5]:
                    if not t._natural:
                        raise Unsupported("a strided view that requires grad feeds a result "
                                          "differentiated outside the function")
                    tracked.append((walk._st_ix[id(t._st)], i))
            plan.tracked = tuple(tracked)
        return plan, self.outs


class Entry:
    """The jitted program of one walk key, and its plan (set when it is traced)."""

    __slots__ = ("fn", "jitted", "inner", "plan", "ctx", "unknown", "vjp_fn", "donating",
                 "guard", "guard_builds", "applier", "call", "options")

    def __init__(self, fn):
        self.fn = fn
        self.guard = None
        self.guard_builds = 0
        self.applier = None    # replay.make_apply(plan)
        self.call = None       # replay.make_call: the settled program's whole call
        self.plan = None
        self.donating = None
        self.unknown = ()
        self.ctx = None
        # `inner` holds the trace and nests in other traces; `jitted` and `donating` are the
        # top-level programs, compiled with the options of programs of many ops once the trace
        # says how many ops the step has (`_choose_options`)
        self.inner = self.jitted = jax.jit(self._pure)
        self.options = {}

        def results(arrays, hypers, gens):
            """The differentiable results alone (the forward of the backward node)."""
            outs = self.inner(list(arrays), hypers, gens)
            return tuple(outs[k] for k in self.plan.diff_outs)
        self.vjp_fn = results

    def _top(self, arrays, hypers, gens):
        return self.inner(arrays, hypers, gens)

    def _pure(self, arrays, hypers, gens):
        if self.ctx is None:
            raise RuntimeError("torchlike.compile: a program was re-traced outside its call "
                               "(JAX's caches were cleared between forward and backward)")
        walk, snap, args, kwargs = self.ctx
        for st, a in zip(walk.storages, arrays):
            st._np = None
            st._data = a
            st.shape = a.shape
        ctx = patches.TraceContext(walk, hypers, gens)
        self.unknown = ctx.unknown_gens
        with patches.tracing(ctx):
            result = self.fn(*args, **kwargs)
        plan, outs = _Collector(walk, snap, arrays).collect(result, ctx)
        self.plan = plan
        self.applier = self.call = None
        return outs

    def __call__(self, walk, args, kwargs, snap=None):
        """Run the program on the state `walk` found; with `snap`, trace it first."""
        traced = tracing()
        if snap is None and not traced:
            call = self.call
            if call is not None:
                return call(walk, _hyper_arrays(walk), _gen_array(walk, self.plan))[0]
        arrays = [st._data if st._data is not None else st.array() for st in walk.storages]
        # weakly typed 0-d arrays: passing Python floats costs ~1 us each
        hv = hyper_values(walk) if traced else _hyper_arrays(walk)
        peeked = self.plan is None   # the rows were peeked: advance once the draws are known
        gens = _gen_array(walk, self.plan)
        if snap is not None:
            self.ctx = (walk, snap, args, kwargs)
            try:
                refs = _refcounts(arrays)
                if self.plan is None and not traced:
                    # trace first: the plan says which buffers the program overwrites, so the
                    # donating program is the only one compiled (one compile, not two)
                    self._choose_options(self.inner.trace(arrays, hv, gens))
                donate = not traced and self._donates(refs, 1)   # the snapshot holds each too
                plain = self.inner if traced else self.jitted
                outs = (self._run_donating if donate else plain)(arrays, hv, gens)
            finally:
                self.ctx = None
                snap.restore()
        else:
            first = self.donating is None
            plan = self.plan   # (reference counts only where the program overwrites inputs)
            donate = not traced and plan is not None and bool(plan.donate) and \
                self._donates(_refcounts(arrays), 0)
            if donate and first:
                # the first donating call may re-trace the function (JAX normally reuses the
                # jaxpr)
                return self(walk, args, kwargs, Snapshot(walk))
            plain = self.inner if traced else self.jitted
            outs = (self._run_donating if donate else plain)(arrays, hv, gens)
        result = self.apply(walk, outs, (arrays, hv, gens))
        plan = self.plan
        if peeked:
            for g, n in zip(walk.gens, plan.draws):
                if n:
                    g._call_row()
        if self.call is None and not traced and not plan.diff_outs and (
                self.donating is not None or not plan.donate):
            self.call = replay.make_call(self, len(arrays))
        return result

    def _donates(self, refs, held):
        """Whether this call donates the buffers the program overwrites (`refs`: each input
        array's reference count, read while the storages still held them; `held`: references
        torchlike itself holds besides)."""
        plan = self.plan
        limit = replay.OWNED_REFS + held
        if plan is None or not plan.donate or any(refs[i] > limit for i in plan.donate):
            return False
        if self.donating is None:
            self.donating = jax.jit(self._split, donate_argnums=0, **self.options)
        return True

    def _choose_options(self, traced):
        """The top-level programs' XLA options, by the traced step's op count."""
        options = xla_options.whole_program(len(traced.jaxpr.eqns)).get("compile_options")
        if options:
            self.options = {"compiler_options": options}
            self.jitted = jax.jit(self._top, **self.options)

    def _run_donating(self, arrays, hv, gens):
        """The program writing into the buffers of the storages it overwrites, as PyTorch's
        in-place updates do (XLA reuses donated inputs for outputs of the same shape)."""
        ix = set(self.plan.donate)
        return self.donating([arrays[i] for i in self.plan.donate],
                             [a for i, a in enumerate(arrays) if i not in ix], hv, gens)

    def _split(self, donated, kept, hv, gens):
        n = len(donated) + len(kept)
        donated, kept = iter(donated), iter(kept)
        ix = set(self.plan.donate)
        arrays = [next(donated) if i in ix else next(kept) for i in range(n)]
        return self.inner(arrays, hv, gens)

    def apply(self, walk, outs, inputs):
        if self.applier is None:
            self.applier = replay.make_apply(self.plan)
        result, diff = self.applier(walk, outs)
        plan = self.plan
        if plan.diff_outs:
            from ..autograd.function import record
            arrays, hv, gens = inputs
            tracked = [((0, si), walk.tensors[ti]) for si, ti in plan.tracked]
            record("CompiledFunctionBackward", self.vjp_fn, [tuple(arrays), hv, gens], tracked,
                   diff, False, "none")
        return result


def _hyper_arrays(walk):
    return hyper_arrays(hyper_values(walk))


def hyper_arrays(hv):
    """Optimizer hyper-parameters (a tuple of floats) as (cached) weakly typed 0-d arrays."""
    cached = _HYPER_ARRAYS.get(hv)
    if cached is None:
        if len(_HYPER_ARRAYS) > 64:
            _HYPER_ARRAYS.clear()
        cached = _HYPER_ARRAYS[hv] = tuple(jnp.asarray(v) for v in hv)
    return cached


def _gen_array(walk, plan):
    """The generators' rows for one call (see `Generator._call_row`): only the generators the
    program draws from are advanced."""
    if plan is None:  # before the first trace: peek, without advancing any generator
        return gen_array(tuple(g._call_row(peek=True) for g in walk.gens))
    return gen_array(tuple(g._call_row() if n else (0, 0) for g, n in zip(walk.gens, plan.draws)))


def gen_array(gstate):
    """Generators' (seed, counter) rows as a (cached) device array: a step that draws nothing
    keeps passing the same array."""
    gens = _GEN_ARRAYS.get(gstate)
    if gens is None:
        if len(_GEN_ARRAYS) > 64:
            _GEN_ARRAYS.clear()
        gens = _GEN_ARRAYS[gstate] = jnp.asarray(np.array(gstate, dtype=np.uint64))
    return gens


def _refcounts(arrays):
    """Each buffer's reference count: `replay.OWNED_REFS` when only its storage holds it (no
    `.jax()` array, saved value or cached read elsewhere sees it), so that letting XLA overwrite
    it is unobservable."""
    return [_getrefcount(arrays[i]) for i in range(len(arrays))]


def _contiguous(size):
    from .._core.layout import contiguous_strides
    return contiguous_strides(size)


TRACE_ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                jax.errors.UnexpectedTracerError, Unsupported)


def reason(e):
    """A short human reason for a trace failure, with the line outside torchlike it came from."""
    return _what(e) + _where(e)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_JAX = os.path.dirname(os.path.abspath(jax.__file__)) + os.sep


def _where(e):
    """" (at file:line: source)" for the innermost frame of `e` in the user's code, or ""."""
    for f in reversed(traceback.extract_tb(e.__traceback__)):
        name = os.path.abspath(f.filename)
        if not f.filename.startswith("<") and not name.startswith((_PACKAGE, _JAX)):
            return f" (at {os.path.basename(name)}:{f.lineno}: {f.line})"
    return ""


def _what(e):
    if isinstance(e, Unsupported):
        return str(e)
    if isinstance(e, jax.errors.TracerArrayConversionError):
        return ".item(), .tolist(), .numpy() or printing needs a traced tensor's value"
    if isinstance(e, jax.errors.TracerBoolConversionError):
        return "Python control flow (if/while/bool) depends on a traced tensor's value"
    if isinstance(e, (jax.errors.TracerIntegerConversionError,
                      jax.errors.ConcretizationTypeError)):
        return "a Python value (int/float/index) was taken from a traced tensor"
    return f"{type(e).__name__}: {e}"
