"""Mirrors `torch.autograd.forward_ad`: dual tensors carry a tangent through every op.

Inside `dual_level()`, `make_dual(x, t)` returns a view of `x` whose tangent is `t`. An op with a
dual operand computes its result as usual (autograd records it as usual) and its outputs'
tangents with `jax.jvp` of the same kernel, the tangents of the dual operands going in; a view of
a dual tensor sees the same tangent storage (a tangent is laid out as its primal, over a storage
as large as the primal's); an in-place op on a dual tensor updates its tangent in place.
Divergences: a tangent of another floating dtype than its primal is cast to the primal's dtype;
custom `autograd.Function`s carry tangents through their forward's ops (PyTorch calls their
`jvp`)."""
import weakref
from collections import namedtuple

import jax

from .._core import lazy
from .._core.grad_state import ENABLED as _GRAD
from .._core.grad_state import FORWARD_AD as ACTIVE  # a dual level is open (the ops test it)
_LEVEL = [None]
_DUALS = weakref.WeakValueDictionary()   # id -> tensor given a tangent at this level

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = "Mirrors `torch.autograd.forward_ad.UnpackedDualTensor`."


def enter_dual_level():
    """Mirrors `forward_ad.enter_dual_level`: level 0 (levels do not nest)."""
    if _LEVEL[0] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _LEVEL[0] = 0
    ACTIVE[0] = True
    return 0


def exit_dual_level(*, level=None):
    """Mirrors `forward_ad.exit_dual_level`: the level's tangents are dropped."""
    if _LEVEL[0] is None or (level is not None and level != _LEVEL[0]):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    for t in list(_DUALS.values()):
        t.__dict__.pop("_fw_tangent", None)
    _DUALS.clear()
    _LEVEL[0] = None
    ACTIVE[0] = False


class dual_level:
    """Mirrors `forward_ad.dual_level`: a context in which dual tensors live."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def tangent_of(t):
    """`t`'s tangent at the open level, or None."""
    return t.__dict__.get("_fw_tangent") if ACTIVE[0] else None


def _set_tangent(t, tangent):
    t._fw_tangent = tangent
    _DUALS[id(t)] = t


def _tangent_like(primal, values):
    """A tangent tensor for `primal` holding `values` (a tensor of `primal`'s shape), laid out
    as `primal` over a storage as large as its own, so that views of `primal` find theirs."""
    from .._core.tensor import make_view
    from .. import zeros
    if primal._natural:
        base = values.detach().to(primal.dtype).clone()
        return base
    storage = zeros(primal._st.shape if primal._st.shape else (), dtype=primal.dtype,
                    device=primal.device).reshape(-1)
    tangent = make_view(storage, primal._size, primal._stride, primal._offset)
    tangent.copy_(values.detach())
    return tangent


def make_dual(tensor, tangent, *, level=None):
    """Mirrors `forward_ad.make_dual`: a view of `tensor` whose tangent is `tangent`."""
    from .._core.tensor import make_view
    if _LEVEL[0] is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.dtype.is_floating_point or tangent.dtype.is_complex):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    with _off():
        dual = make_view(tensor, tensor._size, tensor._stride, tensor._offset, "AliasBackward0")
        _set_tangent(dual, _tangent_like(dual, tangent))
    return dual


def unpack_dual(tensor, *, level=None):
    """Mirrors `forward_ad.unpack_dual`: (a view of `tensor` without tangent, its tangent)."""
    from .._core.tensor import make_view
    tangent = tangent_of(tensor)
    with _off():
        primal = make_view(tensor, tensor._size, tensor._stride, tensor._offset,
                           "AliasBackward0") if tangent is not None else tensor
    return UnpackedDualTensor(primal, tangent)


class _off:
    """Tangents not propagated (the primal and tangent computations themselves)."""

    def __enter__(self):
        self.was = ACTIVE[0]
        ACTIVE[0] = False

    def __exit__(self, *exc):
        ACTIVE[0] = self.was


def _dual_operands(args):
    """[(position in args, or (position, index in a list), tensor, tangent)]."""
    from .._core.tensor import Tensor
    found = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            tan = a.__dict__.get("_fw_tangent")
            if tan is not None:
                found.append((i, a, tan))
        elif isinstance(a, (list, tuple)):
            for j, t in enumerate(a):
                if isinstance(t, Tensor):
                    tan = t.__dict__.get("_fw_tangent")
                    if tan is not None:
                        found.append(((i, j), t, tan))
    return found


def has_dual(args):
    return bool(_dual_operands(args))


def _jvp(fn, dyn, positions, tangents):
    """Output tangents (arrays, None for non-differentiable outputs) of `fn(*dyn)` with the
    operands at `positions` (an index, or (index, index in a tuple)) moving by `tangents`."""
    def at(p):
        return dyn[p] if type(p) is int else dyn[p[0]][p[1]]

    def f(*xs):
        d = list(dyn)
        for p, x in zip(positions, xs):
            if type(p) is int:
                d[p] = x
            else:
                seq = list(d[p[0]])
                seq[p[1]] = x
                d[p[0]] = tuple(seq)
        return fn(*d)
    primals = [at(p) for p in positions]
    tangents = [t.astype(p.dtype) for t, p in zip(tangents, primals)]
    _, outs = jax.jvp(f, primals, tangents)
    single = not isinstance(outs, (tuple, list))
    outs = (outs,) if single else tuple(outs)
    return [None if o.dtype == jax.dtypes.float0 else o for o in outs]


def _attach(outputs, tangent_arrays):
    from .._core.tensor import Tensor, wrap
    for o, a in zip(outputs, tangent_arrays):
        if isinstance(o, Tensor) and a is not None and \
                (o.dtype.is_floating_point or o.dtype.is_complex):
            _set_tangent(o, _tangent_like(o, wrap(a, o.device)))


def _tensor_outputs(result):
    from .._core.tensor import Tensor
    if isinstance(result, Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [r for r in result]
    return []


def _row_tangents(row, args, duals, inplace):
    """The tangents of a table row's outputs: its kernel, differentiated forward."""
    from .._ops.registry import prepare
    was = [(t, t._requires_grad) for _, t, _ in duals]
    grad = _GRAD[0]
    try:   # prepare() lists the operands that require grad: mark the dual ones so
        for t, _ in was:
            t._requires_grad = True
        _GRAD[0] = True
        k, dyn, _, tracked = prepare(row, args, inplace=inplace)
        dyn = lazy.resolve(dyn)
    finally:
        _GRAD[0] = grad
        for t, r in was:
            t._requires_grad = r
    entries = [(i, t) for i, t, _ in tracked[:-1]]
    positions, tangents = [], []
    for _, t, tan in duals:   # in argument order, as the entries: each takes its own
        for n, (i, u) in enumerate(entries):
            if u is t:
                positions.append(i)
                tangents.append(tan._value())
                del entries[n]
                break
    return _jvp(k, dyn, positions, tangents)


def row_call(row, args, out, key, call):
    """`call(row, args, out, key)` with the outputs' tangents (see the module docstring)."""
    duals = _dual_operands(args)
    with _off():
        result = call(row, args, out, key)
        if duals and row.differentiable:
            _attach(_tensor_outputs(result), _row_tangents(row, args, duals, False))
    return result


def row_inplace(row, args, key, call_inplace):
    """`call_inplace(row, args, key)`, the written tensor's tangent updated."""
    duals = _dual_operands(args)
    self = args[0]
    with _off():
        tangents = _row_tangents(row, args, duals, True) if duals and row.differentiable \
            else None
        result = call_inplace(row, args, key)
        if tangents is not None:
            _write_tangent(self, tangents[0])
        elif "_fw_tangent" in self.__dict__:   # overwritten by a value without tangent
            _write_tangent(self, None)
    return result


def _write_tangent(t, array):
    from .._core.tensor import wrap
    from .. import zeros
    old = t.__dict__.get("_fw_tangent")
    values = wrap(array, t.device) if array is not None else \
        zeros(t.shape, dtype=t.dtype, device=t.device)
    if old is not None:
        old.copy_(values)
    else:
        _set_tangent(t, _tangent_like(t, values))


def after_inplace(fn, operands, dyn):
    """The tangent of `operands[0]` after `operands[0] <- fn(*dyn)` (autograd's in-place
    path): updated in place, zero when no operand is dual."""
    duals = _dual_operands(operands)
    self = operands[0]
    if not duals and "_fw_tangent" not in self.__dict__:
        return
    with _off():
        tangents = _jvp(fn, dyn, [p for p, _, _ in duals],
                        [tan._value() for _, _, tan in duals]) if duals else [None]
        _write_tangent(self, tangents[0])


def after_apply(fn, operands, dyn, outputs):
    """Tangents for `apply_jax`'s outputs (`fn(*dyn)`, `dyn` built from `operands`)."""
    duals = _dual_operands(operands)
    if not duals:
        return
    with _off():
        _attach(outputs, _jvp(fn, dyn, [p for p, _, _ in duals],
                              [tan._value() for _, _, tan in duals]))


def view_of(src, view):
    """A view of a dual tensor sees the same tangent storage."""
    tan = src.__dict__.get("_fw_tangent")
    if tan is not None:
        from .._core.tensor import make_view
        with _off():
            _set_tangent(view, make_view(tan, view._size, view._stride, view._offset))
