"""Mirrors `torch.signal.windows.windows`: SciPy's window functions of length `M`.

A window is computed with torchlike's ops from a `linspace` grid that carries `requires_grad`,
so, as in PyTorch, a window asked to require grad is the (non-leaf) result of its last op
(`SumBackward1`, `ExpBackward0`, ...), while the trivial lengths (0, and 1 for most windows) are
leaves. `sym=False` gives the periodic window: the first `M` points of the symmetric window of
length `M + 1`. Validation order and messages are PyTorch's, including the `linspace()` error a
non-integer `M` meets there.
"""
import functools
import math
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ..._core import dtype as dt
from ..._core.formats import strided
from ..._core.tensor import Tensor
from ..._ops.registry import FUNCTIONS as _F


class _Spec(NamedTuple):
    error_name: str   # the window's name in PyTorch's messages (hann's is "general_cosine")
    ones_at_1: bool   # whether M == 1 answers ones(1) without computing
    start: str        # `start` in PyTorch's linspace() error: "int", "float" (as `end`), "Tensor"


# ---- validation --------------------------------------------------------------------------

def _parser_name(v):
    """The type name PyTorch's argument parser prints for `v`."""
    if isinstance(v, Tensor):
        return "Tensor"
    t = type(v)
    if t.__module__ == "builtins":
        return t.__name__
    if t.__module__.split(".")[0] in ("torch", "torchlike"):
        return "torch." + t.__name__
    if t.__module__.split(".")[0] == "numpy":
        return "numpy." + t.__name__
    return t.__name__


def _is_length(M):
    """Whether PyTorch's argument parser takes `M` as an int (a 0-dim integer tensor counts)."""
    if isinstance(M, Tensor):
        return M.dim() == 0 and M.dtype.category == 1
    return isinstance(M, (int, np.integer)) and not isinstance(M, bool)


_LINSPACE_FORMS = "".join(
    f" * ({s} start, {e} end, int steps, *, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
    for s, e in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                 ("Number", "Number")))


def _length_error(spec, M, dtype, layout, device, requires_grad):
    """The TypeError PyTorch's linspace() raises when the window length is not an int."""
    end = "Tensor" if spec.start == "Tensor" else _parser_name(M * 0.5)
    start = end if spec.start == "float" else spec.start
    got = (f"requires_grad={_parser_name(requires_grad)}, device={_parser_name(device)}, "
           f"layout={_parser_name(layout)}, dtype={_parser_name(dtype)}, "
           f"steps={_parser_name(M)}, end={end}, start={start}, ")
    return TypeError(f"linspace() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n{_LINSPACE_FORMS}")


def _build(spec, M, sym, dtype, layout, device, requires_grad, compute, check=None,
           late_check=None):
    """The window, arguments checked in PyTorch's order: the common ones, `check()` (the
    window's parameters), the trivial lengths, `late_check()`, an integer `M`. Then
    `compute(M, n, grid, dtype, device)`: `n` is the length of the symmetric window whose first
    `M` points are wanted, `grid(start, end)` the `M`-point linspace from `start` to `end`."""
    name = spec.error_name
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    dtype = dtype or dt.get_default_dtype()
    if dtype not in (dt.float32, dt.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    if check is not None:
        check()
    if M == 0 or (spec.ones_at_1 and M == 1):
        return _F["ones" if M else "empty"](1 if M else 0, dtype=dtype, device=device,
                                             requires_grad=requires_grad)
    if late_check is not None:
        late_check()
    if not _is_length(M):
        raise _length_error(spec, M, dtype, layout, device, requires_grad)
    M = int(M)
    n = M + 1 if not sym and M > 1 else M

    def grid(start, end):
        return _F["linspace"](start, end, M, dtype=dtype, device=device,
                              requires_grad=requires_grad)
    return compute(M, n, grid, dtype, device)


# ---- the windows -------------------------------------------------------------------------

def _cosine_sum(a, M, n, grid, dtype, device):
    """sum_k (-1)^k a_k cos(2 pi k i / (n - 1)), for i < M."""
    coeffs = _F["tensor"](list(a), dtype=dtype, device=device)
    x = grid(0.0, 2 * math.pi * (M - 1) / (n - 1))
    k = _F["arange"](coeffs.numel(), dtype=dtype, device=device)
    signed = coeffs * (1 - 2 * (k % 2))
    return (signed * (x.unsqueeze(-1) * k).cos()).sum(-1)


def _coefficient_check(a):
    def check():
        if not isinstance(a, Iterable):
            raise TypeError("Coefficients must be a list/tuple")
        if not a:
            raise ValueError("Coefficients cannot be empty")
    return check


def _bartlett(M, n, grid, dtype, device):
    return 1 - grid(-1.0, 2 * (M - 1) / (n - 1) - 1).abs()


def _cosine(M, n, grid, dtype, device):
    return grid(math.pi * 0.5 / n, math.pi * (M - 0.5) / n).sin()


_COSINE_SUM = _Spec("general_cosine", True, "int")

# the windows without parameters of their own: name -> (spec, compute, or the coefficients of
# a cosine-sum window)
_SIMPLE = {
    "bartlett": (_Spec("bartlett", True, "int"), _bartlett, None),
    "blackman": (_Spec("blackman", True, "int"), None, (0.42, 0.5, 0.08)),
    "cosine": (_Spec("cosine", False, "float"), _cosine, None),
    "hamming": (_COSINE_SUM, None, (0.54, 1 - 0.54)),
    "hann": (_COSINE_SUM, None, (0.5, 1 - 0.5)),
    "nuttall": (_COSINE_SUM, None, (0.3635819, 0.4891775, 0.1365995, 0.0106411)),
}


def _simple_window(name):
    spec, compute, coeffs = _SIMPLE[name]

    if coeffs is not None:
        compute = functools.partial(_cosine_sum, coeffs)

    def window(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
        return _build(spec, M, sym, dtype, layout, device, requires_grad, compute)
    window.__name__ = window.__qualname__ = name
    window.__doc__ = f"Mirrors `torch.signal.windows.{name}`."
    return window


bartlett, blackman, cosine, hamming, hann, nuttall = map(_simple_window, _SIMPLE)


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None,
                   requires_grad=False):
    """Mirrors `torch.signal.windows.general_cosine`."""
    return _build(_COSINE_SUM, M, sym, dtype, layout, device, requires_grad,
                  functools.partial(_cosine_sum, a), late_check=_coefficient_check(a))


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None,
                    requires_grad=False):
    """Mirrors `torch.signal.windows.general_hamming`."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided,
                device=None, requires_grad=False):
    """Mirrors `torch.signal.windows.exponential`."""
    def check():
        if tau <= 0:
            raise ValueError(f"Tau must be positive, got: {tau} instead.")
        if sym and center is not None:
            raise ValueError("Center must be None for symmetric windows")

    def compute(M, n, grid, dtype, device):
        c = (n - 1) / 2 if center is None else center
        return (-grid(-c, M - 1 - c).abs() / tau).exp()
    return _build(_Spec("exponential", False, "float"), M, sym, dtype, layout, device,
                  requires_grad, compute, check)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None,
             requires_grad=False):
    """Mirrors `torch.signal.windows.gaussian`."""
    def check():
        if std <= 0:
            raise ValueError(f"Standard deviation must be positive, got: {std} instead.")

    def compute(M, n, grid, dtype, device):
        c = (n - 1) / 2
        return ((grid(-c, M - 1 - c) / std) ** 2 * -0.5).exp()
    return _build(_Spec("gaussian", False, "float"), M, sym, dtype, layout, device,
                  requires_grad, compute, check)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None,
           requires_grad=False):
    """Mirrors `torch.signal.windows.kaiser`."""
    def check():
        if beta < 0:
            raise ValueError(f"beta must be non-negative, got: {beta} instead.")

    def compute(M, n, grid, dtype, device):
        b = _F["tensor"](beta, dtype=dtype, device=device)
        c = (n - 1) / 2
        x = grid(-1.0, (M - 1 - c) / c)
        return _F["i0"](b * (1 - x * x).sqrt()) / _F["i0"](b)
    return _build(_Spec("kaiser", True, "Tensor"), M, sym, dtype, layout, device,
                  requires_grad, compute, check)
