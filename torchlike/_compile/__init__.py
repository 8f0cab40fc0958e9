"""`torchlike.compile`: a PyTorch-style function or module run as one jitted XLA program.

Mirrors `torch.compile`. The function is traced with JAX on the first call (and again for each
new input structure); every piece of state it reads or writes (parameter and buffer storages,
`.grad`, optimizer state, generator counters) goes in and out of the program, so each call
leaves every tensor holding what eager execution would have left. See docs/compile.md.
Stated divergences: the backend is XLA (`backend`, `mode`, `options`, `dynamic` are accepted and
ignored); tensors a call creates (a new `.grad`, the first optimizer state) are built from the
program's outputs, so they are new objects every call, as in eager; a result that still has an
autograd graph (backward outside the compiled function) gets one `CompiledFunctionBackward`
node whose backward recomputes the forward program inside its vjp.
"""
import functools
import warnings

from ..nn.modules.module import Module
from . import guard as _guard
from .._core.tracing import tracing
from .program import Entry, Snapshot, TRACE_ERRORS, reason
from .patches import Retrace
from .state import Walk
from .._ops.random import default_generator

_RECOMPILE_LIMIT = 8
_GUARD_BUILDS = 3     # guards built per program before its calls always walk in full
_ACTIVE = [0]


class CompiledFunction:
    """The callable `torchlike.compile(fn)` returns (see the module docstring)."""

    def __init__(self, fn, fullgraph=False, recompile_limit=None):
        self._fn = fn
        self._fullgraph = fullgraph
        self._limit = recompile_limit or _RECOMPILE_LIMIT
        self._entries = {}
        self._last = (None, None)  # the last call's walk key (a list) and entry
        self._guard = None         # the guard tried first (guard.py), or None
        self._eager = set()
        self._extra = []           # generators met while tracing that the walk did not reach
        self._all_eager = False
        self._warned = set()
        if not isinstance(fn, Module):
            functools.update_wrapper(self, fn)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def _walk(self, args, kwargs):
        w = Walk()
        w.roots((args, kwargs, self._fn, default_generator, self._extra))
        return w

    def __call__(self, *args, **kwargs):
        if self._all_eager or _ACTIVE[0]:
            return self._fn(*args, **kwargs)   # inside another compiled function: inline
        g = self._guard
        if g is not None:
            if _guard.CHECK[0]:
                walk = g.check(args, kwargs)
                if walk is not None:
                    self._check_guard(g, walk, args, kwargs)
            if g.run is not None and not tracing():
                res = g.run(args, kwargs)
                if res is not _guard.FAIL:
                    return res[0]
            else:
                walk = g.check(args, kwargs)
                if walk is not None:
                    return g.entry(walk, args, kwargs)
        walk = self._walk(args, kwargs)
        last_key, entry = self._last
        if entry is not None and walk.key == last_key:   # cheaper than hashing the key
            self._use_guard(entry, walk, args, kwargs, g)
            return entry(walk, args, kwargs)
        key = tuple(walk.key)
        entry = self._entries.get(key)
        if entry is not None:
            self._last = (walk.key, entry)
            self._use_guard(entry, walk, args, kwargs, g)
            return entry(walk, args, kwargs)
        if key in self._eager:
            return self._fn(*args, **kwargs)
        if len(self._entries) >= self._limit:
            self._all_eager = True
            self._warn(f"recompiled {self._limit} times (recompile_limit); running eagerly "
                       "from now on")
            return self._fn(*args, **kwargs)
        return self._trace(walk, key, args, kwargs)

    def _use_guard(self, entry, walk, args, kwargs, failed):
        """Build (or switch to) the guard of `entry`, which `walk` just hit, once its program
        is settled; a guard that failed is rebuilt at most `_GUARD_BUILDS` times."""
        plan = entry.plan
        if plan is None or (plan.donate and entry.donating is None):
            return   # the next call may still trace (the donating program)
        if entry.guard is None or entry.guard is failed:
            if entry.guard_builds >= _GUARD_BUILDS:
                self._guard = entry.guard = None
                return
            entry.guard_builds += 1
            entry.guard = _guard.build(walk, tuple(walk.key), entry, args, kwargs,
                                       (self._fn, default_generator, self._extra))
        self._guard = entry.guard

    def _check_guard(self, g, walk, args, kwargs):
        full = self._walk(args, kwargs)
        if tuple(full.key) != g.key or not _guard.same_walk(walk, full):
            raise AssertionError(f"torchlike.compile: a guard of {self._name()} passed where "
                                 "a full walk differs")

    def _trace(self, walk, key, args, kwargs):
        entry = Entry(self._fn)
        snap = Snapshot(walk)
        _ACTIVE[0] += 1
        try:
            out = entry(walk, args, kwargs, snap)
        except Retrace:
            _ACTIVE[0] -= 1
            self._extra.extend(entry.unknown)
            return self(*args, **kwargs)
        except TRACE_ERRORS as e:
            _ACTIVE[0] -= 1
            if self._fullgraph:
                raise RuntimeError(f"torchlike.compile(fullgraph=True): cannot compile "
                                   f"{self._name()}: {reason(e)}") from e
            self._eager.add(key)
            self._warn(f"falling back to eager: {reason(e)}")
            return self._fn(*args, **kwargs)
        except Exception as e:
            _ACTIVE[0] -= 1
            res = self._fn(*args, **kwargs)   # an error eager execution also raises surfaces here
            if self._fullgraph:
                raise RuntimeError(f"torchlike.compile(fullgraph=True): cannot compile "
                                   f"{self._name()}: {reason(e)}") from e
            self._eager.add(key)
            self._warn(f"falling back to eager: {reason(e)}")
            return res
        _ACTIVE[0] -= 1
        self._entries[key] = entry
        return out

    def _name(self):
        return getattr(self._fn, "__qualname__", None) or repr(self._fn)

    def _warn(self, msg):
        if msg not in self._warned:
            self._warned.add(msg)
            warnings.warn(f"torchlike.compile: {self._name()}: {msg}", UserWarning, stacklevel=4)


class OptimizedModule(Module):
    """Mirrors `torch._dynamo.eval_frame.OptimizedModule`: wraps `_orig_mod`, calls it compiled
    and forwards attribute access to it."""

    def __init__(self, mod, compiled):
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled_call", compiled)

    def __call__(self, *args, **kwargs):
        return self.__dict__["_compiled_call"](*args, **kwargs)

    def forward(self, *args, **kwargs):
        return self.__dict__["_compiled_call"](*args, **kwargs)

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._modules["_orig_mod"], name)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor",  # noqa: A001
            mode=None, options=None, name=None, disable=False, recompile_limit=None,
            isolate_recompiles=False, shapes_spec=None):
    """Mirrors `torch.compile` (XLA through JAX is the only backend; see the module docstring)."""
    def wrap(model):
        if disable:
            return model
        if not callable(model):
            raise AssertionError(f"A callable function is expected, but {type(model)} is "
                                 "provided.")
        if isinstance(model, Module):
            return OptimizedModule(model, CompiledFunction(model, fullgraph, recompile_limit))
        return CompiledFunction(model, fullgraph, recompile_limit)
    if model is None:
        return wrap
    return wrap(model)
