"""Element-type conversion with PyTorch's CPU semantics.

XLA saturates float→int conversions; PyTorch (x86) does not: values outside the target range,
NaN and ±inf become the minimum of int32 (int64 for int64 targets), and narrower integer targets
are reached through int32 with wrap-around (-2.25 → uint8 254, 300.0 → int8 44).
"""
import jax.numpy as jnp
import numpy as np
from jax import lax

_I32_MIN = np.iinfo(np.int32).min
_I64_MIN = np.iinfo(np.int64).min


def cast(a, npd):
    """`a` converted to NumPy dtype `npd` as PyTorch converts (pure; use inside kernels)."""
    npd = np.dtype(npd)
    src = a.dtype
    if src == npd:
        return a
    if jnp.issubdtype(src, jnp.complexfloating) and npd.kind != "c":
        a = jnp.real(a)
        src = a.dtype
    if jnp.issubdtype(src, jnp.floating) and npd.kind in "iu":
        if npd == np.int64:
            bad = jnp.isnan(a) | (a >= 2.0 ** 63) | (a < -(2.0 ** 63))
            return jnp.where(bad, _I64_MIN, lax.convert_element_type(a, np.int64))
        bad = jnp.isnan(a) | (a >= 2.0 ** 31) | (a < -(2.0 ** 31))
        i32 = jnp.where(bad, _I32_MIN, lax.convert_element_type(a, np.int32))
        return lax.convert_element_type(i32, npd) if npd != np.int32 else i32
    return lax.convert_element_type(a, npd)
