"""Autocast at dispatch: casting an op's floating operands by the policy `policy` lists for it.

Two entry points, both free while autocast is off:
  - op-table rows: `registry.call` calls `row_hook` (installed in `autocast_state.HOOK`) only
    while `autocast_state.ACTIVE[0]` holds;
  - Python-level ops (convolutions, losses, attention, ...): `@autocast_op(name)`, whose wrapper
    checks the same flag. A cast op then runs with autocast suspended, as PyTorch redispatches
    below its Autocast key: the ops it is made of are not cast again.
"""
import functools

from .._core import autocast_state as _st
from .._core import dtype as _dt
from .._core import frames
from .._core import grad_state as _grad
from .._core.tensor import Tensor
from . import policy as _policy

_F32 = _dt.float32
_F64 = _dt.float64


def _first_tensor(args, kwargs):
    for a in args:
        if isinstance(a, Tensor):
            return a
        if isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, Tensor):
                    return t
    for a in kwargs.values():
        if isinstance(a, Tensor):
            return a
    return None


def _plan(name, args, kwargs):
    """(device type, policy) for op `name` on these arguments, or None: nothing to cast."""
    t = _first_tensor(args, kwargs)
    if t is None:
        return None
    dev = t.device.type
    if not _st.ENABLED.get(dev):
        return None
    policy = _policy.TABLES.get(dev, {}).get(name)
    if policy is not None and not isinstance(policy, str):
        policy = policy(args, kwargs)
    return None if policy is None else (dev, policy)


def _eligible(t, dev):
    """PyTorch's `is_autocast_eligible` plus its float64 exemption."""
    return (isinstance(t, Tensor) and t.dtype.is_floating_point and t.dtype is not _F64
            and t.device.type == dev)


def _tensors(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, Tensor):
                    yield t


def _target(policy, dev, args, kwargs):
    low = _st.DTYPE[dev]
    if policy == _policy.LOWER:
        return low
    if policy == _policy.FP32:
        return _F32
    to = low  # PROMOTE: PyTorch's `prioritize`, operand by operand
    for t in _tensors(args, kwargs):
        if not _eligible(t, dev):
            continue
        if to is _F32 or t.dtype is _F32:
            to = _F32
        elif t.dtype is not low:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return to


def _cached_cast(t, to, dev):
    """`t.to(to)`; a float32 leaf weight's lower-precision copy is made once per autocast region
    (PyTorch's cast cache)."""
    if (to is _st.DTYPE[dev] and t.dtype is _F32 and t._requires_grad and t.grad_fn is None
            and t._base is None and _st.CACHE_ENABLED[0] and _grad.ENABLED[0]):
        hit = _st.CACHE.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        c = t.to(to)
        _st.CACHE[id(t)] = (t, c)
        return c
    return t.to(to)


def _cast_one(a, to, dev):
    if isinstance(a, Tensor):
        return _cached_cast(a, to, dev) if _eligible(a, dev) and a.dtype is not to else a
    if isinstance(a, (list, tuple)) and any(isinstance(t, Tensor) for t in a):
        return type(a)(_cast_one(t, to, dev) for t in a)
    return a


def cast_arguments(name, args, kwargs):
    """(args, kwargs) cast for op `name`, and whether anything applied."""
    plan = _plan(name, args, kwargs)
    if plan is None:
        return args, kwargs, False
    dev, policy = plan
    to = _target(policy, dev, args, kwargs)
    args = tuple(_cast_one(a, to, dev) for a in args)
    kwargs = {k: _cast_one(v, to, dev) for k, v in kwargs.items()}
    return args, kwargs, True


def row_hook(row, args):
    """The op table's autocast step (see `registry.call`)."""
    if row.name not in _policy.NAMES:
        return args
    return cast_arguments(row.name, args, {})[0]


_st.HOOK[0] = row_hook


def autocast_op(name):
    """Decorator: the Python-level op `name` (a key of `policy`'s tables) honours autocast.
    The wrapper is invisible to `warnings` (see `_core/frames.py`)."""
    if name not in _policy.NAMES:
        raise KeyError(f"no autocast policy for {name!r}")

    def decorate(fn):
        ns = {"fn": fn, "name": name, "_st": _st, "cast_arguments": cast_arguments}
        return functools.wraps(fn)(frames.define(_WRAPPER, ns, "op"))
    return decorate


_WRAPPER = """
def op(*args, **kwargs):
    if not _st.ACTIVE[0] or kwargs.get("out") is not None:  # out=: as PyTorch, uncast
        return fn(*args, **kwargs)
    args, kwargs, cast = cast_arguments(name, args, kwargs)
    if not cast:
        return fn(*args, **kwargs)
    _st.ACTIVE[0] = False
    try:
        return fn(*args, **kwargs)
    finally:
        _st.refresh()
"""
