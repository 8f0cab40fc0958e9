"""Between torchlike and JAX's transforms: tensors in, arrays (or tracers) through, tensors out,
and the argument checks torch.func shares between its transforms."""
import contextlib
import functools

import jax.numpy as jnp

from .._core import dtype as dt
from .._core.device import CPU
from .._core.tensor import Tensor, wrap
from . import _pytree


def as_tensor(array, like=None):
    """A tensor over `array` (a JAX array or tracer), on `like`'s device."""
    return wrap(array, like.device if like is not None else CPU, dt._BY_NP[array.dtype])


def as_array(t, dtype=None):
    a = t._value()
    return a if dtype is None or a.dtype == dtype else a.astype(dtype)


def to_arrays(tensors):
    return [t._value() for t in tensors]


def func_name(func):
    """The name torch.func shows in its messages."""
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({func_name(func.func)}, ...)"
    return repr(func)


def is_float(t):
    return t.dtype.is_floating_point or t.dtype.is_complex


def conj_if_complex(a):
    """PyTorch's gradients of complex inputs are the conjugates of JAX's."""
    return jnp.conj(a) if jnp.iscomplexobj(a) else a


# ---- argnums ----------------------------------------------------------------------------------

def _wrap_argnum(argnum, n):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < n:
        return argnum
    if -n <= argnum < 0:
        return argnum + n
    raise RuntimeError(f"Got argnum={argnum}, but only {n} positional inputs")


def normalize_argnums(argnums, n):
    """`argnums` (int or tuple of ints) checked against `n` positional arguments, made
    non-negative."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, n)
    out = tuple(_wrap_argnum(a, n) for a in argnums)
    if len(out) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(out)) != len(out):
        raise RuntimeError(f"argnums elements must be unique, got {out}")
    return out


def slice_argnums(args, argnums):
    return args[argnums] if isinstance(argnums, int) else tuple(args[i] for i in argnums)


def replace_args(args, new, argnums):
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    by_pos = dict(zip(argnums, new))
    return tuple(by_pos.get(i, a) for i, a in enumerate(args))


# ---- differentiated inputs and outputs --------------------------------------------------------

def diff_leaves(tree, check_float=True):
    """(tensor leaves, spec) of the inputs a reverse-mode transform differentiates."""
    leaves, spec = _pytree.flatten(tree)
    for x in leaves:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if check_float and not is_float(x):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return leaves, spec


def aux_arrays(aux):
    """`aux` (tensors in a pytree) as arrays plus its spec; only tensors may be in it."""
    leaves, spec = _pytree.flatten(aux)
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    return [(x._value(), x.device) for x in leaves], spec


def aux_tensors(pairs, spec):
    return _pytree.unflatten([wrap(a, d) for a, d in pairs], spec)


def split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return out


def check_tensor_outputs(leaves, api):
    """torch.func's check that f returned tensors only (and at least one)."""
    if (len(leaves) == 1 and leaves[0] is None) or not leaves:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           f"(got output = {leaves})")
    for o in leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")


class Box:
    """What a traced function leaves behind for its caller (output spec, aux, devices)."""
    __slots__ = ("spec", "aux", "aux_spec", "devices", "extra")


@contextlib.contextmanager
def torch_errors():
    """Exceptions leave a JAX transform as raised: without the note JAX adds to them about the
    frames it hid (PyTorch's errors have no such note)."""
    try:
        yield
    except Exception as e:
        notes = getattr(e, "__notes__", None)
        if notes:
            kept = [n for n in notes if "JAX has removed its internal frames" not in n]
            if kept:
                e.__notes__ = kept
            else:
                del e.__notes__
        raise
