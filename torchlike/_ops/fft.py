"""Discrete Fourier transforms (`torch.fft`): one op-table row per transform, over `jnp.fft`.

A transform is a `_Kind` (what it computes, which input it accepts, where PyTorch checks what)
in one of three argument forms: 1-D (`n`, `dim`), 2-D or N-D (`s`, `dim`); the rows are generated
from `_TRANSFORMS` at the bottom. PyTorch's argument checks run while the kernel traces (once per
shape), in PyTorch's order. Gradients are JAX's vjps, which the autograd graph conjugates into
PyTorch's convention; node names (FftR2CBackward0, ...) live in `autograd/names.py`.
"""
import functools

import jax.numpy as jnp
import numpy as np

from .._core import dtype as dt
from .._core.tensor import Tensor, _wrap_dim
from .creation import _out_or, from_np
from .registry import FUNCTIONS, OPS, _TensorStatic, op, publish, short_name

F = "fft"
_NORMS = ("backward", "ortho", "forward")
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ---- PyTorch's argument parser (types), then its semantic checks -----------------------------

def _type_error(fname, name, want, v):
    return TypeError(f"{fname}(): argument '{name}' must be {want}, not {type(v).__name__}")


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _int(fname, name, v):
    if isinstance(v, _TensorStatic):
        v = v.v
    if v is not None and not _is_int(v):
        raise _type_error(fname, name, "int", v)
    return None if v is None else int(v)


def _ints(fname, name, v):
    """An IntArrayRef argument: an int or a sequence of ints (None stays None)."""
    if isinstance(v, _TensorStatic):
        v = v.v
    if v is None:
        return None
    if _is_int(v):
        return (int(v),)
    if not isinstance(v, (tuple, list)) or not all(_is_int(e) for e in v):
        raise _type_error(fname, name, "tuple of ints", v)
    return tuple(int(e) for e in v)


def _norm(fname, norm):
    if norm is not None and not isinstance(norm, str):
        raise _type_error(fname, "norm", "str", norm)
    return norm


def _check_norm(norm):
    if norm is not None and norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm or "backward"


def _wrap(dim, ndim):
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, ndim)


def _points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _canonical(x, s, dim):
    """PyTorch's `canonicalize_fft_shape_and_dim_args`: (shape, dims) of an N-D transform."""
    if dim is not None:
        dim = tuple(_wrap(d, x.ndim) for d in dim)
        if len(set(dim)) != len(dim):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > x.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{x.ndim} dimensions.")
        if dim is None:
            dim = tuple(range(x.ndim - len(s), x.ndim))
        shape = tuple(x.shape[d] if n == -1 else n for n, d in zip(s, dim))
    elif dim is None:
        dim, shape = tuple(range(x.ndim)), x.shape
    else:
        shape = tuple(x.shape[d] for d in dim)
    for n in shape:
        _points(n)
    return tuple(shape), dim


def _real_only(x, fname, what="real"):
    if jnp.iscomplexobj(x):
        raise RuntimeError(f"{fname} expects a {what} input tensor, but got "
                           f"{short_name(dt._BY_NP[np.dtype(x.dtype)])}")


def _supported(x):
    """PyTorch's `promote_type_fft` on CPU: only float32/float64 (and complex) transform."""
    if not jnp.iscomplexobj(x) and np.dtype(x.dtype) not in (np.float32, np.float64):
        raise RuntimeError(f"Unsupported dtype {short_name(dt._BY_NP[np.dtype(x.dtype)])}")


def _at_least_one(fname, dims):
    if not dims:
        raise RuntimeError(f"{fname} must transform at least one axis")


# ---- the transforms: (input, size argument, dims, norm) -> output ---------------------------

def _one_d(fname, x, n, dim, norm, fn, real_only=False, c2r=False):
    """A 1-D transform (`fft_c2c`/`fft_r2c`/`fft_c2r` in PyTorch's order of checks)."""
    if real_only:
        _real_only(x, fname)
    _supported(x)
    dim = _wrap(dim, x.ndim)
    size = n if n is not None else (2 * (x.shape[dim] - 1) if c2r else x.shape[dim])
    _points(size)
    return fn(x, n, dim, _check_norm(norm))


def _n_d(x, s, dim, norm, fn):
    shape, dims = _canonical(x, s, dim)
    _supported(x)
    norm = _check_norm(norm)
    if not dims:
        return x.astype(jnp.result_type(x.dtype, jnp.complex64))
    return fn(x, shape, dims, norm)


def _rfftn(x, s, dim, norm):
    _real_only(x, "rfftn", "real-valued")
    shape, dims = _canonical(x, s, dim)
    _at_least_one("rfftn", dims)
    _supported(x)
    return jnp.fft.rfftn(x, shape, dims, _check_norm(norm))


def _c2r_n_d(fname, x, s, dim, norm, fn):
    """irfftn/hfftn: the last transformed dim is the one-sided (Hermitian) one."""
    shape, dims = _canonical(x, s, dim)
    _at_least_one(fname, dims)
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    _points(last)
    _supported(x)
    return fn(x, shape[:-1] + (last,), dims, _check_norm(norm))


def _ihfftn(x, s, dim, norm):
    shape, dims = _canonical(x, s, dim)
    _at_least_one("ihfftn", dims)
    _supported(x)
    norm = _check_norm(norm)
    if jnp.iscomplexobj(x):
        raise RuntimeError(f"Only supports floating-point dtypes, but found: "
                           f"{short_name(dt._BY_NP[np.dtype(x.dtype)])}")
    return jnp.conj(jnp.fft.rfftn(x, shape, dims, _SWAP[norm]))


def _hfftn(x, s, dims, norm):
    return jnp.fft.irfftn(jnp.conj(x), s, dims, _SWAP[norm])


_ONE_D = {  # name: (jnp function of (x, n, axis, norm), real input only, complex-to-real)
    "fft": (jnp.fft.fft, False, False), "ifft": (jnp.fft.ifft, False, False),
    "rfft": (jnp.fft.rfft, True, False), "ihfft": (jnp.fft.ihfft, True, False),
    "irfft": (jnp.fft.irfft, False, True), "hfft": (jnp.fft.hfft, False, True),
}
_N_D = {  # name: the transform of (x, s, dim, norm) after the type checks
    "fftn": lambda x, s, d, nm: _n_d(x, s, d, nm, jnp.fft.fftn),
    "ifftn": lambda x, s, d, nm: _n_d(x, s, d, nm, jnp.fft.ifftn),
    "rfftn": _rfftn,
    "irfftn": lambda x, s, d, nm: _c2r_n_d("irfftn", x, s, d, nm, jnp.fft.irfftn),
    "hfftn": lambda x, s, d, nm: _c2r_n_d("hfftn", x, s, d, nm, _hfftn),
    "ihfftn": _ihfftn,
}


def _register_one_d(name, fn, real_only, c2r):
    fname = "fft_" + name

    def impl(input, n=None, dim=-1, norm=None):
        n, dim, norm = _int(fname, "n", n), _int(fname, "dim", dim), _norm(fname, norm)
        return _one_d(name, input, n, dim, norm, fn, real_only, c2r)
    op(fname, promote="int_to_float", method=False, family=F)(impl)


def _register_n_d(name, core, default_dim):
    fname = "fft_" + name

    def impl(input, s=None, dim=default_dim, norm=None):
        s, dim, norm = _ints(fname, "s", s), _ints(fname, "dim", dim), _norm(fname, norm)
        return core(input, s, dim, norm)
    op(fname, promote="int_to_float", method=False, family=F)(impl)


def _checked_out(name, what):
    """`torch.fft.name` with PyTorch's check of the `out=` tensor's dtype (complex, or real
    floating point for the complex-to-real transforms); the message names the N-D transform."""
    fn = FUNCTIONS["fft_" + name]
    fname = name if name in _ONE_D else name[:-1] + "n"
    ok = (lambda d: d.is_complex) if what == "complex" else (lambda d: d.is_floating_point)

    @functools.wraps(fn)
    def with_out_check(*args, out=None, **kwargs):
        if out is not None:
            if isinstance(out, Tensor) and not ok(out.dtype):
                raise RuntimeError(f"{fname} expects a {what} output tensor, but got "
                                   f"{short_name(out.dtype)}")
            return fn(*args, out=out, **kwargs)
        return fn(*args, **kwargs)
    with_out_check.__doc__ = f"Mirrors `torch.fft.{name}`."
    FUNCTIONS["fft_" + name] = with_out_check


for _n, (_f, _real, _c2r) in _ONE_D.items():
    _register_one_d(_n, _f, _real, _c2r)
for _n, _core in _N_D.items():
    _register_n_d(_n, _core, None)
    _register_n_d(_n[:-1] + "2", _core, (-2, -1))
for _n in list(_ONE_D) + list(_N_D) + [n[:-1] + "2" for n in _N_D]:
    # 'irfft', 'irfft2', 'irfftn', 'hfft', ... (stripped of their 2/n) return real tensors
    _checked_out(_n, "floating point" if _n.rstrip("2n") in ("irfft", "hfft") else "complex")


# ---- shifts and sample frequencies ------------------------------------------------------------

def _shift(name, sign):
    fname = "fft_" + name

    def impl(input, dim=None):
        dim = _ints(fname, "dim", dim)
        dims = tuple(range(input.ndim)) if dim is None else tuple(_wrap(d, input.ndim)
                                                                  for d in dim)
        if not dims:
            raise RuntimeError("`shifts` required")
        out = input
        for d in dims:  # one after another: a repeated dim shifts twice, as PyTorch's roll
            out = jnp.roll(out, sign * (input.shape[d] // 2), axis=d)
        return out
    op(fname, promote=None, method=False, out=False, family=F)(impl)
    FUNCTIONS[fname].__doc__ = f"Mirrors `torch.fft.{name}`."


_shift("fftshift", 1)
_shift("ifftshift", -1)


def _freq(name, onesided):
    fname = "fft_" + name

    def freq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
        if not _is_int(n):
            raise TypeError(f"{fname}(): argument 'n' (position 1) must be int, not "
                            f"{type(n).__name__}")
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
        dtype = dtype or (out.dtype if out is not None else dt.get_default_dtype())
        if dtype.category < 2:
            raise RuntimeError(f"{name} requires a floating point or complex dtype")
        if dtype.is_complex:
            raise NotImplementedError(f"\"arange_cpu\" not implemented for "
                                      f"'{short_name(dtype)}'")
        k = np.arange(n // 2 + 1) if onesided else np.concatenate(
            [np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
        d = float(d.item() if hasattr(d, "item") else d)
        with np.errstate(divide="ignore", invalid="ignore"):
            # PyTorch multiplies the integer ramp by 1 / (n * d) in the tensor's dtype
            scale = np.float64(1.0) / (np.float64(n) * np.float64(d))
            a = k.astype(dtype.np) * np.asarray(scale).astype(dtype.np)
        return _out_or(from_np(a, dtype, device, requires_grad), out)
    freq.__name__ = freq.__qualname__ = fname
    freq.__doc__ = f"Mirrors `torch.fft.{name}`."
    publish(freq, fname, method=False, dtype_arg=True)


_freq("fftfreq", False)
_freq("rfftfreq", True)
for _row in OPS.values():
    if _row is not None and _row.family == F:
        _row.opmath = False  # PyTorch's CPU FFTs reject float16/bfloat16: the kernels must see them
