"""`torch.func`'s autodiff transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, linearize), each
one JAX transform of the user's function run on tensors over JAX tracers."""
import functools

import jax
import numpy as np

from .._core import grad_state
from .._core.size import Size
from .._core.tensor import Tensor, wrap
from ..autograd.function import grad_state_ctx
from . import _pytree
from ._bridge import (Box, aux_arrays, aux_tensors, as_array, as_tensor, check_tensor_outputs,
                      conj_if_complex, diff_leaves, is_float, normalize_argnums, replace_args,
                      slice_argnums, split_aux, torch_errors)
from ._outer import through_autograd

_JVP = "jvp(f, primals, tangents)"
_VJP = "vjp(f, *primals)"
_GRAD = "grad_and_value(f)(*args)"


def _caller(func, args, kwargs, argnums, leaves, spec, reverse=True):
    """`func` as a function of the differentiated leaves' values (the other arguments fixed).
    Under a reverse-mode transform those inputs require grad and grad mode is on, as in
    PyTorch (so e.g. an in-place op on one raises PyTorch's leaf error)."""
    def call(arrays):
        tensors = [as_tensor(a, t) for a, t in zip(arrays, leaves)]
        if reverse:
            for t in tensors:
                t._requires_grad = True
        new = _pytree.unflatten(tensors, spec)
        full = new if argnums is None else replace_args(args, new, argnums)
        with grad_state_ctx(reverse or grad_state.ENABLED[0]):
            return func(*full, **kwargs)
    return call


def _outputs(out, box, api, has_aux, float_only=False):
    """The traced function's result as arrays (aux set aside in `box`)."""
    out, aux = split_aux(out, has_aux, api)
    flat, box.spec = _pytree.flatten(out)
    check_tensor_outputs(flat, api)
    if float_only:
        for o in flat:
            if not is_float(o):
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {o.dtype}")
    box.devices = [o.device for o in flat]
    aux_pairs = None
    if has_aux:
        aux_pairs, box.aux_spec = aux_arrays(aux)
        box.aux = [d for _, d in aux_pairs]
        aux_pairs = [a for a, _ in aux_pairs]
    return [o._value() for o in flat], aux_pairs


def _aux(box, arrays):
    return aux_tensors(list(zip(arrays, box.aux)), box.aux_spec)


def _results(arrays, box):
    return _pytree.unflatten([wrap(a, d) for a, d in zip(arrays, box.devices)], box.spec)


# ---- grad -------------------------------------------------------------------------------------

def grad_and_value(func, argnums=0, has_aux=False):
    """Mirrors `torch.func.grad_and_value` (with `jax.value_and_grad`)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        n = normalize_argnums(argnums, len(args))
        leaves, spec = diff_leaves(slice_argnums(args, n))
        call = _caller(func, args, kwargs, n, leaves, spec)
        box = Box()

        def f(*arrays):
            out, aux = split_aux(call(arrays), has_aux, _GRAD)
            if not isinstance(out, Tensor):
                raise RuntimeError(f"{_GRAD}: Expected f(*args) to return a Tensor, got "
                                   f"{type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"{_GRAD}: Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use the "
                                   "vjp or jacrev APIs instead?")
            if out.dtype.is_complex:
                raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                   f"but got {out.dtype}")
            box.devices = [out.device]
            pairs = None
            if has_aux:
                pairs, box.aux_spec = aux_arrays(aux)
                box.aux = [d for _, d in pairs]
                pairs = [a for a, _ in pairs]
            return out._value(), pairs

        arrays = [t._value() for t in leaves]
        with torch_errors():
            (value, aux), grads = jax.value_and_grad(
                f, argnums=tuple(range(len(arrays))), has_aux=True)(*arrays)
        g = _pytree.unflatten([wrap(conj_if_complex(a), t.device, t.dtype)
                               for a, t in zip(grads, leaves)], spec)
        value = wrap(value, box.devices[0])
        return (g, (value, _aux(box, aux))) if has_aux else (g, value)
    return through_autograd(wrapper)


def grad(func, argnums=0, has_aux=False):
    """Mirrors `torch.func.grad` (with `jax.grad`)."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


# ---- vjp / jvp / linearize --------------------------------------------------------------------

def vjp(func, *primals, has_aux=False):
    """Mirrors `torch.func.vjp` (with `jax.vjp`): `(output, vjp_fn[, aux])`."""
    leaves, spec = diff_leaves(primals)
    call = _caller(func, (), {}, None, leaves, spec)
    box = Box()
    with torch_errors():
        outs, pullback, aux = jax.vjp(
            lambda *arrays: _outputs(call(arrays), box, _VJP, has_aux, float_only=True),
            *[t._value() for t in leaves], has_aux=True)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat, ct_spec = _pytree.flatten(cotangents)
        if ct_spec != box.spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                               "structure of outputs to the function. cotangents: "
                               f"{ct_spec.pprint()}, primal output: {box.spec.pprint()}")
        cts = []
        for i, (c, o) in enumerate(zip(flat, outs)):
            if not isinstance(c, Tensor):
                raise TypeError("gradients can be either Tensors or None, but got "
                                f"{type(c).__name__}")
            if tuple(c.shape) != o.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{c.shape} and output[{i}] has a shape of {Size(o.shape)}.")
            cts.append(conj_if_complex(as_array(c, o.dtype)))
        grads = pullback(cts)
        return _pytree.unflatten([wrap(conj_if_complex(g), t.device, t.dtype)
                                  for g, t in zip(grads, leaves)], spec)

    result = _results(outs, box)
    return (result, vjp_fn, _aux(box, aux)) if has_aux else (result, vjp_fn)


def _check_primals(flat, what):
    if not flat:
        raise RuntimeError(f"{_JVP}: Expected {what} to contain at least one Tensor.")
    for x in flat:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{_JVP}: Expected {what} to only contain Tensors, got {type(x)}")


def _tangent(p, t):
    if not is_float(p):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {p.dtype}")
    if tuple(t.shape) != tuple(p.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that "
                           "of the original Tensor, this is not supported. Tensor is of size "
                           f"{list(p.shape)} while the given forward gradient is of size "
                           f"{list(t.shape)}.")
    return as_array(t, p.dtype.np)


def _tangents_out(touts, outs):
    """Tangents of non-differentiable (integer) outputs are zeros of their dtype, as in torch."""
    return [np.zeros(o.shape, o.dtype) if t.dtype == jax.dtypes.float0 else t
            for t, o in zip(touts, outs)]


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """Mirrors `torch.func.jvp` (with `jax.jvp`): `(output, jvp_out[, aux])`. `strict=True` is
    accepted but not enforced (JAX instantiates the zero tangents of independent outputs)."""
    return through_autograd(_jvp)(func, primals, tangents, has_aux=has_aux)


def _jvp(func, primals, tangents, has_aux):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    flat_p, spec = _pytree.flatten(primals)
    flat_t, t_spec = _pytree.flatten(tangents)
    if spec != t_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents "
                           f"also must be. Got primals with structure {spec} and tangents with "
                           f"structure {t_spec}")
    _check_primals(flat_p, "primals")
    _check_primals(flat_t, "tangents")
    tans = [_tangent(p, t) for p, t in zip(flat_p, flat_t)]
    call = _caller(func, (), {}, None, flat_p, spec, reverse=False)
    box = Box()
    with torch_errors():
        outs, touts, aux = jax.jvp(lambda *arrays: _outputs(call(arrays), box, _JVP, has_aux),
                                   [p._value() for p in flat_p], tans, has_aux=True)
    res = (_results(outs, box), _results(_tangents_out(touts, outs), box))
    return res + (_aux(box, aux),) if has_aux else res


def linearize(func, *primals):
    """Mirrors `torch.func.linearize` (with `jax.linearize`): `(output, jvp_fn)`."""
    leaves, spec = _pytree.flatten(primals)
    call = _caller(func, (), {}, None, leaves, spec, reverse=False)
    box = Box()
    with torch_errors():
        outs, lin = jax.linearize(lambda *arrays: _outputs(call(arrays), box, _JVP, False)[0],
                                  *[t._value() for t in leaves])

    def jvp_fn(*tangents):
        flat_t, t_spec = _pytree.flatten(tangents)
        if t_spec != spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as the "
                               f"primals {spec}")
        return _results(_tangents_out(lin(*[_tangent(p, t) for p, t in zip(leaves, flat_t)]),
                                      outs), box)
    return _results(outs, box), jvp_fn


# ---- jacobians --------------------------------------------------------------------------------

def _jacobian(transform, api, func, argnums, has_aux, reverse):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        n = normalize_argnums(argnums, len(args))
        leaves, spec = diff_leaves(slice_argnums(args, n), check_float=reverse)
        if not reverse:
            for t in leaves:
                _tangent(t, t)
        call = _caller(func, args, kwargs, n, leaves, spec, reverse)
        box = Box()
        with torch_errors():
            jac, aux = transform(
                lambda *arrays: _outputs(call(arrays), box, api, has_aux, reverse),
                argnums=tuple(range(len(leaves))), has_aux=True)(*[t._value() for t in leaves])
        rows = [_pytree.unflatten([wrap(j, d) for j in row], spec)
                for row, d in zip(jac, box.devices)]
        result = _pytree.unflatten(rows, box.spec)
        return (result, _aux(box, aux)) if has_aux else result
    return through_autograd(wrapper)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """Mirrors `torch.func.jacrev` (with `jax.jacrev`; `chunk_size` is checked, then all rows
    are computed at once)."""
    if chunk_size is not None and not chunk_size > 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(jax.jacrev, _VJP, func, argnums, has_aux, True)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """Mirrors `torch.func.jacfwd` (with `jax.jacfwd`)."""
    from ._vmap import check_randomness
    check_randomness(randomness)
    return _jacobian(jax.jacfwd, _JVP, func, argnums, has_aux, False)


def hessian(func, argnums=0):
    """Mirrors `torch.func.hessian`: `jacfwd(jacrev(func, argnums), argnums)`."""
    return jacfwd(jacrev(func, argnums), argnums)
