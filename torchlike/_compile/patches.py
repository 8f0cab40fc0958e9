"""What changes in torchlike while a compiled function is traced.

Three places read host values that would otherwise be baked into the program as constants (or
leak a tracer into a module-level cache):
  * `Generator._next_key` returns the draw key from the (seed, counter) pair each call feeds in
    (a CPU generator's comes from one `random64()` of it per call), so every call draws fresh
    numbers, reproducibly from the generator's state; every draw goes through it (`KEYED`);
  * `OptaxOptimizer._hyperparams` returns the optimizer hyper-parameters (`lr`, `momentum`, ...)
    as program inputs, so a scheduler changing `lr` never re-traces;
  * `registry._device_scalar` (a cache of device arrays for recurring Python scalars) must not
    cache a tracer: while tracing, scalars are plain NumPy constants.
And one host-side value check is skipped: cross-entropy / NLL's "Target k is out of bounds"
(traced labels have no value to check; an out-of-range label gives a wrong loss instead).
"""
import contextlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

from .._ops import random as _random
from .._ops import registry as _registry
from ..nn._functional import loss as _loss
from ..optim import _optax_base

_U64 = (1 << 64) - 1
_M32 = np.uint64(0xFFFFFFFF)


class Unsupported(Exception):
    """Something the compiled program cannot reproduce (the call falls back to eager)."""


class Retrace(Exception):
    """A generator the walk did not reach was used: walk again with it as a root."""


class TraceContext:
    """The traced inputs a trace's patched functions hand out, and what they saw."""

    def __init__(self, walk, hypers, gens):
        self.gen_pos = {id(g): i for i, g in enumerate(walk.gens)}
        self.gen_start = [(g._seed, g._offset) for g in walk.gens]
        self.gen_state = gens
        self.draws = [0] * len(walk.gens)
        self.unknown_gens = []
        self.hyper = {}
        it = iter(hypers)
        for group, k in walk.hypers:
            v = group[k]
            traced = tuple(next(it) for _ in v) if type(v) is tuple else next(it)
            self.hyper.setdefault(id(group), {})[k] = (v, traced)

    def next_key(self, g):
        i = self.gen_pos.get(id(g))
        if i is None:
            if getattr(g, "_tl_born", False):     # made inside the function: deterministic
                return _ORIG_NEXT_KEY(g)
            self.unknown_gens.append(g)
            raise Retrace()
        seed0, off0 = self.gen_start[i]
        if g._seed != seed0:
            raise Unsupported("a generator was re-seeded inside the function")
        n = self.draws[i]
        self.draws[i] = n + 1
        g._offset = (g._offset + 1) & _U64
        seed = self.gen_state[i, 0]
        off = self.gen_state[i, 1] + np.uint64(n)
        return jnp.stack([seed >> 32, seed & _M32, off >> 32, off & _M32]).astype(jnp.uint32)

    def hyperparams(self, opt, group):
        traced = self.hyper.get(id(group))
        if traced is None:
            return _ORIG_HYPER(opt, group)
        out = {}
        for k in type(opt)._hyper:
            entry = traced.get(k)
            if entry is None:
                out[k] = _optax_base._scalar(group[k])
                continue
            pre, t = entry
            if group[k] is not pre:
                raise Unsupported(f"the optimizer's '{k}' was changed inside the function "
                                  "(change hyper-parameters outside it: they are passed as data)")
            out[k] = t
        return out

    def check_generators(self, walk):
        for i, g in enumerate(walk.gens):
            seed0, off0 = self.gen_start[i]
            if g._seed != seed0 or g._offset != (off0 + self.draws[i]) & _U64:
                raise Unsupported("a generator's state was set inside the function")


_ORIG_NEXT_KEY = _random.Generator._next_key
_ORIG_GEN_INIT = _random.Generator.__init__
_ORIG_HYPER = _optax_base.OptaxOptimizer._hyperparams
_ORIG_DEVICE_SCALAR = _registry._device_scalar
_NP_SCALAR = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}


def _host_scalar(v, device=None):
    return _NP_SCALAR[type(v)](v)


_ORIG_LOSS_NP = _loss._np
_NLL_CHECKS = _loss._nll_checks.__code__


def _loss_np(t):
    v = t._value()
    if isinstance(v, jax.core.Tracer) and sys._getframe(1).f_code is _NLL_CHECKS:
        return np.zeros(v.shape, v.dtype)
    return np.asarray(v)


def _born_init(self, *args, **kwargs):
    _ORIG_GEN_INIT(self, *args, **kwargs)
    self._tl_born = True


TRACING = [False]   # inside a `torchlike.compile` trace (`torch.compiler.is_compiling()`)


@contextlib.contextmanager
def tracing(ctx):
    """Install the patches for one trace (not re-entrant: a compiled function called inside
    another one's trace runs inline, see `program`)."""
    gen_cls, opt_cls = _random.Generator, _optax_base.OptaxOptimizer
    TRACING[0] = True
    gen_cls._next_key = lambda g: ctx.next_key(g)
    _random.KEYED[0] = True
    gen_cls.__init__ = _born_init
    opt_cls._hyperparams = lambda opt, group: ctx.hyperparams(opt, group)
    _registry._device_scalar = _host_scalar
    _loss._np = _loss_np
    try:
        yield
    finally:
        TRACING[0] = False
        gen_cls._next_key = _ORIG_NEXT_KEY
        _random.KEYED[0] = False
        gen_cls.__init__ = _ORIG_GEN_INIT
        opt_cls._hyperparams = _ORIG_HYPER
        _registry._device_scalar = _ORIG_DEVICE_SCALAR
        _loss._np = _ORIG_LOSS_NP
