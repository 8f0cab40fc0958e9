"""Whole-tensor predicates and queries: `equal`, `allclose`, `is_tensor`, `numel`, ...

These return Python values, so they are plain functions over the op rows (no kernel of their
own besides the rows they call)."""
import jax
import jax.numpy as jnp

from .._core.tensor import Tensor
from .registry import function


@jax.jit
def _all_equal(a, b):
    return jnp.all(a == b)


@function()
def equal(input, other):
    """Mirrors `torch.equal`: same size and elements (dtype-promoted comparison)."""
    if input._size != other._size:
        return False
    if input.dtype is not other.dtype:
        return bool((input == other).all())
    return bool(_all_equal(input._value(), other._value()))


@function()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Mirrors `torch.allclose`."""
    return bool(input.isclose(other, rtol=rtol, atol=atol, equal_nan=equal_nan).all())


@function(method=False)
def is_tensor(obj):
    """Mirrors `torch.is_tensor`."""
    return isinstance(obj, Tensor)


@function(method=False)
def is_storage(obj):
    """Mirrors `torch.is_storage`."""
    from .._core.storage import TypedStorage, UntypedStorage
    return isinstance(obj, (TypedStorage, UntypedStorage))


@function(method=False)
def numel(input):
    """Mirrors `torch.numel`."""
    return input.numel()


@function()
def is_same_size(input, other):
    """Mirrors `torch.is_same_size`."""
    return input._size == other._size


@function()
def is_nonzero(input):
    """Mirrors `torch.is_nonzero`."""
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


@function(method=False)
def is_floating_point(input):
    """Mirrors `torch.is_floating_point`."""
    return input.dtype.is_floating_point


@function(method=False)
def is_complex(input):
    """Mirrors `torch.is_complex`."""
    return input.dtype.is_complex
