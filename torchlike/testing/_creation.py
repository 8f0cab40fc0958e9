"""`make_tensor`, as PyTorch 2.13's `torch.testing.make_tensor` (a port of PyTorch's
`torch/testing/_creation.py`, BSD-3-Clause). The values come from torchlike's generator, so they
differ from PyTorch's for the same seed; dtype, shape, range, contiguity and errors match."""
import collections.abc
import math
import warnings

from .._core import dtype as dt

_INTEGRAL = (dt.uint8, dt.int8, dt.int16, dt.int32, dt.int64, dt.uint16, dt.uint32, dt.uint64)
_BOOL_OR_INTEGRAL = (dt.bool_,) + _INTEGRAL
_FLOATING_OR_COMPLEX = (dt.float16, dt.bfloat16, dt.float32, dt.float64, dt.complex64,
                        dt.complex128)


def _low_high(dtype, low, high, *, lowest, highest, default_low, default_high):
    """`low`/`high` defaulted, checked and clamped to what `dtype` represents."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low!r} and high={high!r}")
    elif low == high and dtype in _FLOATING_OR_COMPLEX:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex "
                      "types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`torch.full(...)` instead.", FutureWarning, stacklevel=4)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _BOOL_OR_INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform_(t, low, high):
    import torchlike
    if high - low >= torchlike.finfo(t.dtype).max:  # uniform_ needs high - low to be finite
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of `shape` with values drawn uniformly from [low, high). Mirrors
    `torch.testing.make_tensor` (defaults: bool [0, 2), unsigned [0, 10), signed [-9, 10),
    float and complex [-9, 9)); values differ from PyTorch's for the same seed."""
    import torchlike as torch
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous!r} and "
                         f"memory_format={memory_format!r}")
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype!r}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice as long in the last dim, then every other element from index 1
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is dt.bool_:
        low, high = _low_high(dtype, low, high, lowest=0, highest=2, default_low=0,
                              default_high=2)
        result = torch.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = torch.iinfo(dtype)
        # randint cannot sample int64's maximum: its bound goes through an int64 + 1
        low, high = _low_high(dtype, low, high, lowest=info.min,
                              highest=info.max + (1 if dtype is not dt.int64 else 0),
                              default_low=-9, default_high=10)
        result = torch.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_OR_COMPLEX:
        info = torch.finfo(dtype)
        low, high = _low_high(dtype, low, high, lowest=info.min, highest=info.max,
                              default_low=-9, default_high=9)
        result = torch.empty(shape, device=device, dtype=dtype)
        _uniform_(torch.view_as_real(result) if dtype.is_complex else result, low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        f"torch.testing.make_tensor(). To request support, file an issue at: "
                        f"https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else torch.finfo(dtype).tiny
    if dtype in _FLOATING_OR_COMPLEX:
        result.requires_grad = requires_grad
    return result
