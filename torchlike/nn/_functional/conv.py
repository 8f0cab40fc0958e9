"""torch.nn.functional: convolution, pooling, upsampling, fold/unfold and shuffles.

Every function here is one dispatch: a cached, jitted pure-JAX function per static configuration
(shapes, strides, paddings...) run through `apply_jax`, so the backward is that function's vjp.

Pooling windows are gathered with static index tables (one per spatial dim, computed with NumPy
when the function is built): max pooling takes the first maximum of each window in PyTorch's scan
order, so its gradient goes to exactly the element PyTorch's recorded index points at (ties
included); average pooling divides by PyTorch's divisor table."""
import itertools
import math
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src.lax.windowed_reductions import _select_and_scatter_add  # no public API

from ..._core.tensor import Tensor
from ...autograd.function import apply_jax
from .misc import _cname
from ...amp.dispatch import autocast_op as _autocast_op
from ..._core import programs

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
    "max_pool2d_with_indices", "max_pool3d_with_indices", "max_pool2d_with_indices_backward",
    "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d",
    "lp_pool1d", "lp_pool2d", "lp_pool3d", "interpolate", "upsample", "upsample_nearest",
    "upsample_bilinear", "unfold", "fold", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "native_channel_shuffle", "affine_grid", "grid_sample",
]

_HIGHEST = lax.Precision.HIGHEST
_DN = {1: ("NCH", "OIH", "NCH"), 2: ("NCHW", "OIHW", "NCHW"), 3: ("NCDHW", "OIDHW", "NCDHW")}


def _ntuple(v, n, name="stride", op=None):
    if isinstance(v, Tensor):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        v = tuple(int(x) for x in v)
        if len(v) == 1 and n > 1 and op is None:
            return v * n
        return v
    return (int(v),) * n


_SCALAR_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half",
                "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble"}


def _scalar_type(t):
    n = str(t.dtype).replace("torch.", "")
    return _SCALAR_TYPE.get(n, n)


def _sizes(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _run(fn, operands, name, saves=None):
    return apply_jax(fn, operands, name, saves=saves)


# ---- convolution ------------------------------------------------------------------------------

_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@programs.factory
def _conv_fn(nd, stride, padding, dilation, groups, has_bias, transposed, output_padding,
             unbatched, pad_mode, mode_pad):
    dn = _DN[nd]

    def f(x, w, b=None):
        if unbatched:
            x = x[None]
        if mode_pad is not None:  # padding_mode of the Conv modules, fused in
            x = jnp.pad(x, ((0, 0), (0, 0)) + tuple(mode_pad), mode=_PAD_MODES[pad_mode])
        if not transposed:
            y = lax.conv_general_dilated(x, w, stride, padding, rhs_dilation=dilation,
                                         dimension_numbers=dn, feature_group_count=groups,
                                         precision=_HIGHEST)
        else:
            cin, cog = w.shape[0], w.shape[1]
            k = w.shape[2:]
            wt = w.reshape((groups, cin // groups, cog) + k).swapaxes(1, 2)
            wt = wt.reshape((groups * cog, cin // groups) + k)
            wt = jnp.flip(wt, tuple(range(2, 2 + nd)))
            pads = tuple((d * (kk - 1) - p, d * (kk - 1) - p + op)
                         for d, kk, p, op in zip(dilation, k, padding, output_padding))
            y = lax.conv_general_dilated(x, wt, (1,) * nd, pads, lhs_dilation=stride,
                                         rhs_dilation=dilation, dimension_numbers=dn,
                                         feature_group_count=groups, precision=_HIGHEST)
        if has_bias:
            y = y + b.reshape((1, -1) + (1,) * nd).astype(y.dtype)
        if unbatched:
            y = y[0]
        return y

    return f


def _check_conv_params(nd, input, weight, groups, conv_args):
    """PyTorch's convolution argument checks, in its order (weight rank, groups, then the
    padding / stride / dilation signs and the weight-vs-groups size checks)."""
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if int(groups) <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if conv_args is None:
        return
    stride, padding, dilation = conv_args
    k = weight.dim() - 2
    if isinstance(padding, str) and weight.dim() != nd + 2:
        ndim = input.dim() if input.dim() == nd + 2 else input.dim() + 1
        shape = tuple(input.shape) if input.dim() == nd + 2 else (1,) + tuple(input.shape)
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-"
                           f"dimensional weight{_sizes(weight.shape)}, but got {ndim}-"
                           f"dimensional input of size {_sizes(shape)} instead")
    if k != nd:
        return
    if not isinstance(padding, str) and any(p < 0 for p in _ntuple(padding, nd)):
        raise RuntimeError("negative padding is not supported")
    if any(v <= 0 for v in _ntuple(stride, nd)):
        raise RuntimeError("non-positive stride is not supported")
    if any(v < 0 for v in _ntuple(dilation, nd)):
        raise RuntimeError("dilation should be greater than zero")
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {_sizes(weight.shape)} instead")


def _check_conv(nd, name, input, weight, bias, groups, transposed, conv_args=None):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{name}, but got input of size: {_sizes(input.shape)}")
    if not transposed:
        _check_conv_params(nd, input, weight, groups, conv_args)
    if weight.dim() != nd + 2:
        k = weight.dim() - 2
        raise RuntimeError(f"expected stride to be a single integer value or a list of {k} "
                           f"values to match the convolution dimensions, but got stride="
                           f"{_sizes([1] * nd)}")
    # PyTorch checks the bias dtype first; the transposed kernels cast the bias instead
    if not transposed and bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({_cname(input.dtype)}) and bias type "
                           f"({_cname(bias.dtype)}) should be the same")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_type(input)} but found "
                           f"{_scalar_type(weight)}")
    shape = tuple(input.shape) if input.dim() == nd + 2 else (1,) + tuple(input.shape)
    ws = tuple(weight.shape)
    if not transposed and ws[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{_sizes(ws)}] instead")
    cin = ws[0] if transposed else ws[1] * groups
    if shape[1] != cin:
        what = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(f"Given {what}, weight of size {_sizes(ws)}, expected input"
                           f"{_sizes(shape)} to have {cin} channels, but got {shape[1]} "
                           f"channels instead")
    if bias is not None:
        cout = ws[1] * groups if transposed else ws[0]
        if bias.dim() != 1 or bias.shape[0] != cout:
            raise RuntimeError(f"Given weight of size {_sizes(ws)}, expected bias to be "
                               f"1-dimensional with {cout} elements, but got bias of size "
                               f"{_sizes(bias.shape)} instead")
    return shape


@_autocast_op("conv")
def _conv(nd, name, input, weight, bias, stride, padding, dilation, groups,
          pad_mode="zeros", mode_pad=None):
    shape = _check_conv(nd, name, input, weight, bias, groups, False,
                        (stride, padding, dilation))
    stride = _ntuple(stride, nd)
    dilation = _ntuple(dilation, nd)
    k = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = []
            for d, kk in zip(dilation, k):
                total = d * (kk - 1)
                pads.append((total // 2, total - total // 2))
            pads = tuple(pads)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = tuple((p, p) for p in _ntuple(padding, nd))
    spatial = shape[2:]
    if mode_pad is not None:
        spatial = tuple(s + a + b for s, (a, b) in zip(spatial, mode_pad))
    padded = [s + a + b for s, (a, b) in zip(spatial, pads)]
    eff = [d * (kk - 1) + 1 for d, kk in zip(dilation, k)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater than "
                           f"actual input size")
    fn = _conv_fn(nd, stride, pads, dilation, int(groups), bias is not None, False, None,
                  input.dim() == nd + 1, pad_mode, mode_pad)
    ops = (input, weight) if bias is None else (input, weight, bias)
    return _run(fn, ops, "ConvolutionBackward0", ("input", "weight"))[0]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Mirrors `torch.nn.functional.conv1d`."""
    return _conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Mirrors `torch.nn.functional.conv2d`."""
    return _conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Mirrors `torch.nn.functional.conv3d`."""
    return _conv(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


@_autocast_op("conv_transpose")
def _conv_transpose(nd, name, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    shape = _check_conv(nd, name, input, weight, bias, groups, True)
    stride = _ntuple(stride, nd)
    dilation = _ntuple(dilation, nd)
    padding = _ntuple(padding, nd)
    output_padding = _ntuple(output_padding, nd)
    hw = ("height", "width") if nd == 2 else ("depth", "height", "width") if nd == 3 else ("",)
    for op_, s, d in zip(output_padding, stride, dilation):
        if op_ >= s and op_ >= d:
            if nd == 1:  # PyTorch runs it as a 2-d transposed conv over a unit height
                hw = ("height", "width")
                output_padding, stride, dilation = ((0,) + output_padding, (1,) + stride,
                                                    (1,) + dilation)
            if True:
                parts = " ".join(
                    [f"output_padding_{h}: {v}" for h, v in zip(hw, output_padding)]
                    + [f"stride_{h}: {v}" for h, v in zip(hw, stride)]
                    + [f"dilation_{h}: {v}" for h, v in zip(hw, dilation)])
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               f"but got {parts}")
    k = tuple(weight.shape[2:])
    out = [(i - 1) * s - 2 * p + d * (kk - 1) + op_ + 1
           for i, s, p, d, kk, op_ in zip(shape[2:], stride, padding, dilation, k,
                                          output_padding)]
    if any(o <= 0 for o in out):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, shape[2:]))}). "
                           f"Calculated output size per channel: ({' x '.join(map(str, out))}). "
                           f"Output size is too small")
    fn = _conv_fn(nd, stride, padding, dilation, int(groups), bias is not None, True,
                  output_padding, input.dim() == nd + 1, "zeros", None)
    ops = (input, weight) if bias is None else (input, weight, bias)
    return _run(fn, ops, "ConvolutionBackward0", ("input", "weight"))[0]


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Mirrors `torch.nn.functional.conv_transpose1d`."""
    return _conv_transpose(1, "conv_transpose1d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Mirrors `torch.nn.functional.conv_transpose2d`."""
    return _conv_transpose(2, "conv_transpose2d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Mirrors `torch.nn.functional.conv_transpose3d`."""
    return _conv_transpose(3, "conv_transpose3d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


# ---- window gathering -------------------------------------------------------------------------

def _gather_windows(x, tables, pad_value):
    """x (..., L1..Ln); tables[d] (out_d, K_d) int positions, L_d meaning padding.
    Returns (..., out_1..out_n, K_1*...*K_n)."""
    nd = len(tables)
    lead = x.ndim - nd
    x = jnp.pad(x, ((0, 0),) * lead + ((0, 1),) * nd, constant_values=pad_value)
    for i, t in enumerate(tables):
        ax = lead + 2 * i
        x = jnp.take(x, jnp.asarray(t.reshape(-1)), axis=ax)
        x = x.reshape(x.shape[:ax] + t.shape + x.shape[ax + 1:])
    perm = (tuple(range(lead)) + tuple(lead + 2 * i for i in range(nd))
            + tuple(lead + 2 * i + 1 for i in range(nd)))
    x = x.transpose(perm)
    return x.reshape(x.shape[:lead + nd] + (int(np.prod([t.shape[1] for t in tables])),))


def _flat_table(tables, sizes):
    """(out_1..out_n, K) flat input index (PyTorch's pooling indices) of each window element."""
    nd = len(tables)
    mult = [int(np.prod(sizes[d + 1:])) for d in range(nd)]
    shape_o = tuple(t.shape[0] for t in tables)
    shape_k = tuple(t.shape[1] for t in tables)
    flat = np.zeros(shape_o + shape_k, np.int64)
    for d, t in enumerate(tables):
        view = [1] * (2 * nd)
        view[d] = t.shape[0]
        view[nd + d] = t.shape[1]
        flat = flat + (np.minimum(t, sizes[d] - 1).astype(np.int64) * mult[d]).reshape(view)
    return flat.reshape(shape_o + (int(np.prod(shape_k)),))


def _pool_len(L, k, s, p, d, ceil):
    out = (L + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= L + p:
        out -= 1
    return out


def _window_table(L, k, s, p, d, ceil):
    out = _pool_len(L, k, s, p, d, ceil)
    pos = (np.arange(out)[:, None] * s - p) + np.arange(k)[None, :] * d
    return np.where((pos < 0) | (pos >= L), L, pos).astype(np.int32)


def _pad_value(dtype):
    if jnp.issubdtype(dtype, jnp.floating):
        return -jnp.inf
    if dtype == jnp.bool_:
        return False
    return jnp.iinfo(dtype).min


@programs.factory
def _max_fn(tables_key, sizes, return_indices, kind):
    tables = _unkey(tables_key)
    flat = _flat_table(tables, sizes)
    valid = _flat_table([np.where(t == L, -1, 0) for t, L in zip(tables, sizes)],
                        (1,) * len(sizes)) == 0     # window elements that are not padding

    def f(x):
        pad = _pad_value(x.dtype)
        w = _gather_windows(x, tables, pad)
        v = jnp.asarray(valid)
        # PyTorch's scan: the first valid maximum, or the last NaN of a window with NaNs
        top = jnp.max(jnp.where(v, w, pad), axis=-1, keepdims=True)
        am = jnp.argmax(v & (w == top), axis=-1)
        if jnp.issubdtype(x.dtype, jnp.inexact):
            nan = jnp.isnan(w)
            last = w.shape[-1] - 1 - jnp.argmax(nan[..., ::-1], axis=-1)
            am = jnp.where(nan.any(-1), last, am)
        out = jnp.take_along_axis(w, am[..., None], -1)[..., 0]
        if not return_indices:
            return out
        ft = jnp.broadcast_to(jnp.asarray(flat), am.shape + flat.shape[-1:])
        idx = jnp.take_along_axis(ft, am[..., None], -1)[..., 0]
        return out, idx

    return f


@programs.factory
def _max_window_fn(rank, sizes, k, s, p, ceil):
    """Undilated max pooling as one XLA reduce-window, with no gathered copy of every window.
    Its gradient goes where PyTorch's indices point: a select-and-scatter (`>=`: the first of
    tied keys) over order keys (`_order_keys`) that never picks padding and the last NaN."""
    lead = rank - len(sizes)
    pads, crop = [], []
    for L, kk, ss, pp in zip(sizes, k, s, p):
        out = _pool_len(L, kk, ss, pp, 1, ceil)
        hi = (out - 1) * ss + kk - L - pp
        crop.append(L + min(hi, 0))
        pads.append((pp, max(hi, 0)))
    window, strides = (1,) * lead + k, (1,) * lead + s
    pads = ((0, 0),) * lead + tuple(pads)
    cropped = (slice(None),) * lead + tuple(slice(0, c) for c in crop)

    @jax.custom_vjp
    def pool(x):
        return lax.reduce_window(x[cropped], -jnp.inf, lax.max, window, strides, pads)

    def fwd(x):
        return pool(x), x

    tiled = k == s and all(pp == (0, 0) for pp in pads)   # windows tile the (cropped) input

    def bwd(x, g):
        keys = _order_keys(x)[cropped]
        if tiled:
            gx = _tiled_scatter(keys, g, lead, k)
        else:
            gx = _select_and_scatter_add(g.astype(keys.dtype), keys, lax.ge_p, window, strides,
                                         pads).astype(g.dtype)
        return (jnp.pad(gx, [(0, n - c) for n, c in zip(x.shape, gx.shape)]),)

    pool.defvjp(fwd, bwd)
    return pool


def _tiled_scatter(keys, g, lead, k):
    """The max-pool gradient when windows tile the input (stride == kernel, no padding): each
    window's cotangent goes to its largest key (the first of ties), by reshapes and a one-hot
    instead of XLA:CPU's serial select-and-scatter (~15x faster)."""
    nd = len(k)
    outs = g.shape[lead:]
    split = keys.shape[:lead] + tuple(d for o, kk in zip(outs, k) for d in (o, kk))
    perm = (tuple(range(lead)) + tuple(lead + 2 * i for i in range(nd))
            + tuple(lead + 2 * i + 1 for i in range(nd)))
    w = keys.reshape(split).transpose(perm).reshape(g.shape + (-1,))
    hit = jnp.arange(w.shape[-1]) == jnp.argmax(w, axis=-1)[..., None]
    gw = jnp.where(hit, g[..., None], jnp.zeros((), g.dtype)).reshape(g.shape + k)
    return gw.transpose(np.argsort(perm)).reshape(keys.shape)


_BITS = {2: jnp.int16, 4: jnp.int32}


def _order_keys(x):
    """Keys (float64, exact) that order a float32/16 array as PyTorch's max-pool scan compares
    its values: -0.0 ties 0.0, a NaN beats everything and a later NaN (in flat order) an earlier
    one. Padding (-inf in the select-and-scatter) loses to every key."""
    x = jnp.where(x == 0, jnp.zeros((), x.dtype), x)          # -0.0 as 0.0
    b = lax.bitcast_convert_type(x, _BITS[x.dtype.itemsize])
    b = b.astype(jnp.int64)
    keys = jnp.where(b < 0, b ^ ((1 << (8 * x.dtype.itemsize - 1)) - 1), b)
    late = 2 ** 40 + jnp.arange(x.size, dtype=jnp.int64).reshape(x.shape)
    return jnp.where(jnp.isnan(x), late, keys).astype(jnp.float64)


def _key(tables):
    # (shape, flat values): the shape survives tables with no windows (a zero output size)
    return tuple((t.shape, tuple(t.reshape(-1).tolist())) for t in tables)


def _unkey(tables_key):
    return [np.array(v, np.int32).reshape(shape) for shape, v in tables_key]


def _check_pool_rank(nd, input, name):
    r = input.dim()
    if nd == 1:
        if r not in (2, 3):
            if name == "max_pool1d":
                raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with "
                                   f"optional 0 dim batch size for input, but got:"
                                   f"{_sizes(input.shape)}")
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {r}-dimensional tensor for "
                               f"argument #1 'self' (while checking arguments for {name})")
    elif r not in (nd + 1, nd + 2):
        if name.startswith("avg") and r < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(r, 1)}, {max(r, 1) - 1}], but got {-nd - 1})")
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for "
                           f"input")


def _pool_params(nd, kernel_size, stride, padding, dilation):
    k = _ntuple(kernel_size, nd)
    s = _ntuple(stride, nd) if stride is not None and stride != [] and stride != () else k
    p = _ntuple(padding, nd)
    d = _ntuple(dilation, nd)
    return k, s, p, d


def _check_pool_nonempty(input, nd, style, name):
    """Pooling allows a zero batch, never a zero channel / spatial (non-batch) size."""
    shape = list(input.shape)
    if style == "as2d":  # PyTorch pools 1-d as 2-d over an inserted unit dim
        shape.insert(len(shape) - 1, 1)
        nd = 2
    inner = shape[1:] if len(shape) == nd + 2 else shape
    if all(v > 0 for v in inner):
        return
    if nd == 2:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{_sizes(shape)}")
    raise RuntimeError(f"{name}(): Expected input's non-batch dimensions to have positive length, "
                       f"but input has a shape of {_sizes(shape)} and non-batch dimension 0 has "
                       f"length zero!")


def _check_out(input, nd, k, s, p, d, ceil, style="2d", name=None):
    """PyTorch's pooling argument checks. `style` "max1d" is max_pool1d's own kernel; "as2d"
    is a 1-d pool PyTorch runs as a 2-d one over an inserted unit dim."""
    sizes = tuple(input.shape[-nd:])
    if style == "max1d":
        for what, v, bad in (("kernel_size", k[0], k[0] <= 0), ("stride", s[0], s[0] <= 0),
                             ("padding", p[0], p[0] < 0), ("dilation", d[0], d[0] <= 0)):
            if bad:
                req = "be non-negative" if what == "padding" else "be greater than zero"
                raise RuntimeError(f"max_pool1d() {what} must {req}, but got {v}")
    else:
        for pp in p:
            if pp < 0:
                raise RuntimeError(f"pad must be non-negative, but got pad: {pp}")
    for kk, pp, dd in zip(k, p, d):
        if style == "max1d":
            if pp > kk // 2:
                raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, "
                                   f"but got padding={pp} and kernel_size={kk}")
        elif pp > ((kk - 1) * dd + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation={dd}")
    if style != "max1d":
        _check_pool_nonempty(input, nd, style, name)
    outs = [_pool_len(L, kk, ss, pp, dd, ceil) for L, kk, ss, pp, dd in zip(sizes, k, s, p, d)]
    if any(o < 1 for o in outs):
        if style == "max1d":
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {outs[0]}")
        c = input.shape[-nd - 1]
        ins, os_ = (c,) + sizes, [c] + outs
        if style == "as2d":
            ins, os_ = (c, 1) + sizes, [c, 1] + outs
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, ins))}). Calculated "
                           f"output size: ({'x'.join(map(str, os_))}). Output size is too small")
    return sizes


def _max_pool(nd, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    _check_pool_rank(nd, input, f"max_pool{nd}d")
    k, s, p, d = _pool_params(nd, kernel_size, stride, padding, dilation)
    style = "2d" if nd > 1 else "as2d" if return_indices else "max1d"
    if style == "max1d" and any(v == 0 for v in input.shape[input.dim() - 2:]):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{_sizes(input.shape)}")
    sizes = _check_out(input, nd, k, s, p, d, ceil_mode, style,
                       "max_pool3d_with_indices_out_cpu_template")
    if not return_indices and input.dtype.itemsize < 8 and input.dtype.is_floating_point and \
            all(dd == 1 for dd in d):
        fn = _max_window_fn(input.dim(), sizes, k, s, p, bool(ceil_mode))
        return _run(fn, (input,), f"MaxPool{nd}DWithIndicesBackward0", ("self",))[0]
    tables = [_window_table(L, kk, ss, pp, dd, ceil_mode)
              for L, kk, ss, pp, dd in zip(sizes, k, s, p, d)]
    fn = _max_fn(_key(tables), sizes, bool(return_indices), "max")
    out = _run(fn, (input,), f"MaxPool{nd}DWithIndicesBackward0", ("self",))
    return out if return_indices else out[0]


@programs.factory
def _max_pool_backward_fn(nd):
    def f(g, x, idx):
        lead = x.shape[:x.ndim - nd]
        total = int(np.prod(x.shape[x.ndim - nd:]))
        n = int(np.prod(g.shape[g.ndim - nd:]))
        gf = g.reshape(lead + (n,))
        jf = idx.reshape(lead + (n,))
        z = jnp.zeros(lead + (total,), g.dtype)
        z = z.at[tuple(jnp.indices(gf.shape)[:-1]) + (jf,)].add(gf, mode="drop")
        return z.reshape(x.shape)   # x only gives the shape: its gradient is zero

    return f


def max_pool2d_with_indices_backward(grad_output, input, kernel_size, stride, padding,
                                     dilation, ceil_mode, indices):
    """Mirrors `torch.ops.aten.max_pool2d_with_indices_backward`: `grad_output` summed into
    an `input`-shaped gradient at the forward's `indices`."""
    return _run(_max_pool_backward_fn(2), (grad_output, input, indices),
                "MaxPool2DWithIndicesBackwardBackward0")[0]


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Mirrors `torch.nn.functional.max_pool1d`."""
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Mirrors `torch.nn.functional.max_pool2d`."""
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@_autocast_op("max_pool3d")
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Mirrors `torch.nn.functional.max_pool3d`."""
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


# ---- average pooling --------------------------------------------------------------------------

@programs.factory
def _avg_fn(tables_key, div_flat, div_shape):
    tables = _unkey(tables_key)
    div = np.array(div_flat).reshape(div_shape)

    def f(x):
        w = _gather_windows(x, tables, 0)
        s = jnp.sum(w, axis=-1)
        if jnp.issubdtype(x.dtype, jnp.integer):  # PyTorch truncates toward zero
            q = lax.div(s, jnp.broadcast_to(jnp.asarray(div, s.dtype), s.shape))
            return q.astype(x.dtype)
        return (s / jnp.asarray(div, s.dtype)).astype(x.dtype)

    return f


def _avg_divisors(L, k, s, p, out, include_pad):
    starts = np.arange(out) * s - p
    ends = np.minimum(starts + k, L + p)
    size = ends - starts
    cs = np.maximum(starts, 0)
    ce = np.minimum(ends, L)
    return size if include_pad else (ce - cs)


def _avg_pool(nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):
    _check_pool_rank(nd, input, f"avg_pool{nd}d")
    k, s, p, d = _pool_params(nd, kernel_size, stride, padding, 1)
    sizes = _check_out(input, nd, k, s, p, d, ceil_mode, "as2d" if nd == 1 else "2d",
                       f"avg_pool{nd}d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    tables = [_window_table(L, kk, ss, pp, 1, ceil_mode) for L, kk, ss, pp in zip(sizes, k, s, p)]
    if divisor_override is not None:
        div = np.full(tuple(t.shape[0] for t in tables), divisor_override, np.int64)
    else:
        div = np.ones((), np.int64)
        for t, L, kk, ss, pp in zip(tables, sizes, k, s, p):
            div = div[..., None] * _avg_divisors(L, kk, ss, pp, t.shape[0], count_include_pad)
    fn = _avg_fn(_key(tables), tuple(div.reshape(-1).tolist()), div.shape)
    return _run(fn, (input,), f"AvgPool{nd}DBackward0", ("self",))[0]


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mirrors `torch.nn.functional.avg_pool1d`."""
    return _avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mirrors `torch.nn.functional.avg_pool2d`."""
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


@_autocast_op("avg_pool3d")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mirrors `torch.nn.functional.avg_pool3d`."""
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


# ---- adaptive pooling -------------------------------------------------------------------------

def _adaptive_table(L, out, pad_with_start):
    starts = (np.arange(out) * L) // out
    ends = -((-(np.arange(out) + 1) * L) // out)
    K = int((ends - starts).max()) if out > 0 else 1
    pos = starts[:, None] + np.arange(K)[None, :]
    fill = np.broadcast_to(starts[:, None], pos.shape) if pad_with_start else L
    return np.where(pos < ends[:, None], pos, fill).astype(np.int32), ends - starts


def _adaptive_sizes(nd, input, output_size, name, colon=""):
    r = input.dim()
    if nd > 1 and isinstance(output_size, (list, tuple)) and r <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if nd == 1 and isinstance(output_size, (list, tuple)) and len(output_size) != 1:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got "
                           f"{len(output_size)})")
    if nd == 1:
        if r not in (2, 3):
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {r}-dimensional tensor for "
                               f"argument #1 'self' (while checking arguments for {name})")
    elif r not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got{colon} "
                           f"{_sizes(input.shape)}")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != nd:
            if colon:
                raise RuntimeError(f"{name}(): internal error: output_size.size() must be {nd}")
            raise RuntimeError(f"{name}: output_size must be {nd}")
        osz = output_size
    else:
        osz = (output_size,) * nd
    sizes = tuple(input.shape[-nd:])
    outs = tuple(L if o is None else int(o) for o, L in zip(osz, sizes))
    if any(o < 0 for o in outs):
        # PyTorch runs the 1-d pools as 2-d ones over an inserted unit dim
        full = outs if nd > 1 else (1,) + outs
        if colon:  # max: the negative size reaches the output allocation
            lead = tuple(input.shape[:-nd])
            neg = next(o for o in full if o < 0)
            raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: "
                               f"{_sizes(lead + full)}")
        body = ", ".join(map(str, full[:2])) + "".join(f",{o}" for o in full[2:])
        raise RuntimeError(f"adaptive_avg_pool{len(full)}d: elements of output_size must be "
                           f"greater than or equal to 0 but received {{{body}}}")
    return sizes, outs


def _adaptive_avg(nd, input, output_size):
    name = f"adaptive_avg_pool{nd}d"
    sizes, outs = _adaptive_sizes(nd, input, output_size, name)
    tables, div = [], np.ones((), np.int64)
    for L, o in zip(sizes, outs):
        t, lens = _adaptive_table(L, o, False)
        tables.append(t)
        div = div[..., None] * lens
    seq = None
    if nd == 3 and str(input.dtype) in ("torch.float16", "torch.bfloat16") and \
            outs != (1, 1, 1):  # (1, 1, 1) is PyTorch's mean, accumulated in float
        # PyTorch's 3-d CPU kernel sums each window in the half type, then divides (in float)
        # by the window's time, height and width sizes in turn
        seq = tuple(tuple(int(v) for v in _adaptive_table(L, o, False)[1])
                    for L, o in zip(sizes, outs))
    fn = _adaptive_avg_fn(_key(tables), tuple(div.reshape(-1).tolist()), div.shape, seq)
    return _run(fn, (input,), f"AdaptiveAvgPool{nd}DBackward0")[0]


@programs.factory
def _adaptive_avg_fn(tables_key, div_flat, div_shape, seq=None):
    tables = _unkey(tables_key)
    div = np.array(div_flat).reshape(div_shape)

    def f(x):
        w = _gather_windows(x, tables, 0)
        if seq is not None:
            # in-order accumulation rounded to the half type every step (reduce_precision:
            # XLA would fold a plain f16 -> f32 -> f16 round trip away)
            bits = (5, 10) if x.dtype == jnp.float16 else (8, 7)
            w = w.astype(jnp.float32)
            s = w[..., 0]
            for j in range(1, w.shape[-1]):
                s = lax.reduce_precision(s + w[..., j], *bits)
            for d, lens in enumerate(seq):
                shape = [1] * len(seq)
                shape[d] = len(lens)
                s = s / jnp.asarray(np.array(lens).reshape(shape), jnp.float32)
            return s.astype(x.dtype)
        return (jnp.sum(w, axis=-1) / jnp.asarray(div, x.dtype)).astype(x.dtype)

    return f


def adaptive_avg_pool1d(input, output_size):
    """Mirrors `torch.nn.functional.adaptive_avg_pool1d`."""
    return _adaptive_avg(1, input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """Mirrors `torch.nn.functional.adaptive_avg_pool2d`."""
    return _adaptive_avg(2, input, output_size)


@_autocast_op("adaptive_avg_pool3d")
def adaptive_avg_pool3d(input, output_size):
    """Mirrors `torch.nn.functional.adaptive_avg_pool3d`."""
    return _adaptive_avg(3, input, output_size)


def _adaptive_max(nd, input, output_size, return_indices):
    name = f"adaptive_max_pool{nd}d"
    sizes, outs = _adaptive_sizes(nd, input, output_size, name, ":")
    tables = [_adaptive_table(L, o, True)[0] for L, o in zip(sizes, outs)]
    fn = _max_fn(_key(tables), sizes, bool(return_indices), "adaptive")
    out = _run(fn, (input,), f"AdaptiveMaxPool{nd}DBackward0")
    return out if return_indices else out[0]


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(1, input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(2, input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(3, input, output_size, True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Mirrors `torch.nn.functional.adaptive_max_pool1d`."""
    return _adaptive_max(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Mirrors `torch.nn.functional.adaptive_max_pool2d`."""
    return _adaptive_max(2, input, output_size, return_indices)


@_autocast_op("adaptive_max_pool3d")
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Mirrors `torch.nn.functional.adaptive_max_pool3d`."""
    return _adaptive_max(3, input, output_size, return_indices)


# ---- max unpooling ----------------------------------------------------------------------------

@programs.factory
def _unpool_fn(out_spatial, nd):
    total = int(np.prod(out_spatial))

    def flat(x, idx):
        lead = x.shape[:x.ndim - nd]
        n = int(np.prod(x.shape[x.ndim - nd:]))
        return lead, x.reshape(lead + (n,)), idx.reshape(lead + (n,))

    @jax.custom_vjp
    def unpool(x, idx):
        lead, xf, jf = flat(x, idx)
        z = jnp.zeros(lead + (total,), x.dtype)
        lead_idx = jnp.indices(xf.shape)[:-1]
        z = z.at[tuple(lead_idx) + (jf,)].set(xf, mode="drop")
        return z.reshape(lead + out_spatial)

    def fwd(x, idx):
        return unpool(x, idx), idx

    def bwd(idx, g):
        # PyTorch's backward gathers the output gradient at every index, so inputs sharing
        # an index all receive it (not only the one the forward wrote last)
        lead = idx.shape[:idx.ndim - nd]
        jf = idx.reshape(lead + (-1,))
        gf = g.reshape(lead + (total,))
        gx = jnp.take_along_axis(gf, jnp.clip(jf, 0, total - 1), axis=-1)
        return gx.reshape(idx.shape).astype(g.dtype), None

    unpool.defvjp(fwd, bwd)
    return unpool


def _max_unpool(nd, input, indices, kernel_size, stride, padding, output_size):
    k, s, p, _ = _pool_params(nd, kernel_size, stride, padding, 1)
    sizes = tuple(input.shape[-nd:])
    default = [(L - 1) * ss - 2 * pp + kk for L, ss, pp, kk in zip(sizes, s, p, k)]
    if output_size is None:
        out = default
    else:
        out = list(output_size)
        if len(out) == nd + 2:
            out = out[2:]
        elif len(out) == nd + 1:
            out = out[1:]
        if len(out) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                             f"elements, but it has a length of '{len(list(output_size))}'")
        for i in range(nd):
            mn = default[i] - s[i]
            mx = default[i] + s[i]
            if not (mn < out[i] < mx):
                raise ValueError(f'invalid output_size "{list(output_size)}" (dim {i} must be '
                                 f'between {mn} and {mx})')
    if tuple(indices.shape) != tuple(input.shape):
        # PyTorch runs the 1-d unpool as a 2-d one over an appended unit dim
        extra = (1,) if nd == 1 else ()
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({_sizes(tuple(input.shape) + extra)}) but got indices tensor with "
                           f"shape: {_sizes(tuple(indices.shape) + extra)}")
    out = tuple(int(o) for o in out)
    total = int(np.prod(out))
    if indices.numel():
        flat = np.asarray(indices._value()).reshape(-1)
        badpos = np.nonzero((flat < 0) | (flat >= total))[0]
        if badpos.size:
            bad = int(flat[badpos[-1]])  # PyTorch reports the last one
            raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                               f"{'x'.join(map(str, out))})")
    fn = _unpool_fn(out, nd)
    return _run(fn, (input, indices), f"MaxUnpool{nd}DBackward0")[0]


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Mirrors `torch.nn.functional.max_unpool1d`."""
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


@_autocast_op("max_unpool2d")
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Mirrors `torch.nn.functional.max_unpool2d`."""
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


@_autocast_op("max_unpool3d")
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Mirrors `torch.nn.functional.max_unpool3d`."""
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# ---- power-average pooling --------------------------------------------------------------------

@programs.factory
def _lp_fn(tables_key, div, norm_type, kprod):
    tables = _unkey(tables_key)

    def f(x):
        w = _gather_windows(x ** norm_type, tables, 0)
        out = (jnp.sum(w, axis=-1) / div).astype(x.dtype)
        a = jnp.abs(out)
        out = jnp.sign(out) * jnp.where(a > 0, a, 0)
        return ((out * kprod) ** (1.0 / norm_type)).astype(x.dtype)

    return f


def _lp_pool(nd, input, norm_type, kernel_size, stride, ceil_mode):
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        mp = (max_pool1d, max_pool2d, max_pool3d)[nd - 1]
        if norm_type > 0:
            return mp(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -mp(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    _check_pool_rank(nd, input, f"avg_pool{nd}d")
    k, s, p, d = _pool_params(nd, kernel_size, stride, 0, 1)
    sizes = _check_out(input, nd, k, s, p, d, ceil_mode, "as2d" if nd == 1 else "2d",
                       f"avg_pool{nd}d")
    tables = [_window_table(L, kk, ss, 0, 1, ceil_mode) for L, kk, ss in zip(sizes, k, s)]
    kprod = int(np.prod(k))
    # the average pool's divisor with count_include_pad (no padding here: clipped at ceil_mode)
    fn = _lp_fn(_key(tables), float(kprod), float(norm_type), kprod)
    if ceil_mode:  # windows hanging off the end divide by their clipped size, as PyTorch's does
        div = np.ones((), np.int64)
        for t, L, kk, ss in zip(tables, sizes, k, s):
            div = div[..., None] * _avg_divisors(L, kk, ss, 0, t.shape[0], True)
        fn = _lp_fn_div(_key(tables), tuple(div.reshape(-1).tolist()), div.shape,
                        float(norm_type), kprod)
    return _run(fn, (input,), "PowBackward0")[0]


@programs.factory
def _lp_fn_div(tables_key, div_flat, div_shape, norm_type, kprod):
    tables = _unkey(tables_key)
    div = np.array(div_flat, np.float64).reshape(div_shape)

    def f(x):
        w = _gather_windows(x ** norm_type, tables, 0)
        out = (jnp.sum(w, axis=-1) / jnp.asarray(div, x.dtype)).astype(x.dtype)
        a = jnp.abs(out)
        out = jnp.sign(out) * jnp.where(a > 0, a, 0)
        return ((out * kprod) ** (1.0 / norm_type)).astype(x.dtype)

    return f


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Mirrors `torch.nn.functional.lp_pool1d`."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Mirrors `torch.nn.functional.lp_pool2d`."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Mirrors `torch.nn.functional.lp_pool3d`."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


# ---- interpolation ----------------------------------------------------------------------------

def _opmath(dtype_name):
    return np.float64 if dtype_name == "float64" else np.float32


def _nearest_table(L, out, scale, exact):
    if out == L:
        return np.arange(out)[:, None]
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 else \
        np.float32(L) / np.float32(out)
    o = np.arange(out, dtype=np.float32)
    if exact:
        src = np.floor((o + np.float32(0.5)) * s)
    elif out == 2 * L and scale is None:
        return (np.arange(out) >> 1)[:, None]
    else:
        src = np.floor(o * s)
    return np.minimum(src.astype(np.int64), L - 1)[:, None]


def _area_scale(L, out, align, scale, ft):
    if align:
        return ft(L - 1) / ft(out - 1) if out > 1 else ft(0)
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(L) / ft(out)


def _linear_table(L, out, align, scale, ft):
    sc = _area_scale(L, out, align, scale, ft)
    o = np.arange(out, dtype=ft)
    if align:
        src = sc * o
    else:
        src = sc * (o + ft(0.5)) - ft(0.5)
        src = np.where(src < 0, ft(0), src).astype(ft)
    i0 = np.minimum(np.floor(src).astype(np.int64), L - 1)
    lam = np.clip(src - i0.astype(ft), 0, 1).astype(ft)
    i1 = i0 + (i0 < L - 1)
    return np.stack([i0, i1], 1), np.stack([ft(1) - lam, lam], 1).astype(ft)


def _cubic_table(L, out, align, scale, ft):
    sc = _area_scale(L, out, align, scale, ft)
    o = np.arange(out, dtype=ft)
    src = sc * o if align else sc * (o + ft(0.5)) - ft(0.5)
    i = np.floor(src).astype(np.int64)
    t = (src - i.astype(ft)).astype(ft)
    A = ft(-0.75)

    def c1(x):
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def c2(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

    w = np.stack([c2(t + 1), c1(t), c1(1 - t), c2(2 - t)], 1).astype(ft)
    idx = np.clip(i[:, None] + np.arange(-1, 3)[None, :], 0, L - 1)
    return idx, w


def _window_filter(mode, x, antialias):
    """The separable kernels' filters: a triangle (bilinear), Keys' cubic (bicubic; a = -0.5
    when antialiasing, -0.75 otherwise), Lanczos with 3 lobes."""
    x = np.abs(x)
    if mode == "bilinear":
        return np.where(x < 1, 1 - x, 0)
    if mode == "lanczos":
        return np.where(x < 3, np.sinc(x) * np.sinc(x / 3), 0)
    a = -0.5 if antialias else -0.75
    return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0))


def _filter_table(L, out, align, scale, ft, mode, antialias=True):
    """Interpolation along one dim as normalized weights over a window of inputs per output:
    with `antialias`, the filter is widened by the downscale factor (PyTorch's
    `antialias=True`); without it, this is the form of PyTorch's uint8 kernels."""
    sc = _area_scale(L, out, align, scale, ft)
    size = {"bilinear": 2, "bicubic": 4, "lanczos": 6}[mode]
    wide = antialias and sc >= 1
    support = size * 0.5 * sc if wide else size * 0.5
    inv = 1.0 / sc if wide else 1.0
    delta = 0.5 if align and not antialias else 0.0
    center = sc * (np.arange(out, dtype=ft) + ft(0.5 - delta)) + ft(delta)
    lo = np.maximum((center - support + 0.5).astype(np.int64), 0)
    hi = np.minimum((center + support + 0.5).astype(np.int64), L)
    width = int(np.max(hi - lo)) if out else 1
    j = np.arange(width)[None, :]
    w = _window_filter(mode, (j + lo[:, None] - center[:, None] + ft(0.5)) * ft(inv),
                       antialias).astype(ft)
    w = np.where(j < (hi - lo)[:, None], w, 0).astype(ft)
    total = w.sum(1, keepdims=True)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w).astype(ft)
    return np.minimum(lo[:, None] + j, L - 1), w


def _uint8_table(L, out, align, scale, mode, antialias):
    """(indices, int weights, precision) of PyTorch's fixed-point uint8 kernels: weights scaled
    by 2**precision, the largest precision keeping them in int16. Divergence: without
    antialiasing, bicubic's border handling is approximated (a few values differ by 1)."""
    if mode == "bicubic" and not antialias:
        idx, w = _cubic_table(L, out, align, scale, np.float64)
        w = w / w.sum(1, keepdims=True)
    else:
        idx, w = _filter_table(L, out, align, scale, np.float64, mode, antialias)
    top = np.abs(w).max() if w.size else 0.0
    bits = 0
    while bits < 21 and int(0.5 + top * (1 << (bits + 1))) < (1 << 15):
        bits += 1
    scaled = w * (1 << bits)
    wi = np.where(w < 0, (scaled - 0.5).astype(np.int64), (scaled + 0.5).astype(np.int64))
    return idx, wi.astype(np.int32), bits


@programs.factory
def _interp_fn(mode, sizes, outs, align, scales, dtype_name, antialias=False):
    nd = len(sizes)
    ft = _opmath(dtype_name)
    tabs = []
    if dtype_name == "uint8" and mode in ("bilinear", "bicubic", "lanczos"):
        return _interp_uint8(mode, sizes, outs, align, scales, antialias)
    for L, o, sc in zip(sizes, outs, scales):
        if antialias:
            tabs.append(_filter_table(L, o, align, sc, ft, mode))
        elif mode in ("nearest", "nearest-exact"):
            tabs.append((_nearest_table(L, o, sc, mode == "nearest-exact"), None))
        elif mode == "bicubic":
            tabs.append(_cubic_table(L, o, align, sc, ft))
        else:
            tabs.append(_linear_table(L, o, align, sc, ft))

    def f(x):
        lead = x.ndim - nd
        y = x.astype(ft) if x.dtype != ft and tabs[0][1] is not None else x
        for i, (idx, w) in enumerate(tabs):
            ax = lead + i
            g = jnp.take(y, jnp.asarray(idx.reshape(-1)), axis=ax)
            g = g.reshape(g.shape[:ax] + idx.shape + g.shape[ax + 1:])
            if w is None:
                y = jnp.squeeze(g, ax + 1)
            else:
                shape = [1] * g.ndim
                shape[ax] = w.shape[0]
                shape[ax + 1] = w.shape[1]
                y = jnp.sum(g * jnp.asarray(w).reshape(shape), axis=ax + 1)
        return y.astype(x.dtype)

    return f


def _interp_uint8(mode, sizes, outs, align, scales, antialias):
    """PyTorch's uint8 bilinear/bicubic: one fixed-point pass per resized dim (the last
    first), each rounded and clamped to uint8."""
    passes = [(i, _uint8_table(L, o, align, sc, mode, antialias))
              for i, (L, o, sc) in enumerate(zip(sizes, outs, scales)) if o != L]

    def f(x):
        y = x
        for i, (idx, w, bits) in reversed(passes):
            ax = x.ndim - len(sizes) + i
            g = jnp.take(y.astype(jnp.int32), jnp.asarray(idx.reshape(-1)), axis=ax)
            g = g.reshape(g.shape[:ax] + idx.shape + g.shape[ax + 1:])
            shape = [1] * g.ndim
            shape[ax], shape[ax + 1] = w.shape
            acc = jnp.sum(g * jnp.asarray(w).reshape(shape), axis=ax + 1) + (1 << bits >> 1)
            y = jnp.clip(acc >> bits, 0, 255).astype(jnp.uint8)
        return y

    return f


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Mirrors `torch.nn.functional.interpolate`."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(x, numbers.Integral) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] "
                                "or Tuple[int, int, int], but got size with types "
                                f"{[type(x) for x in size]}")
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                    "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    ok = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5), "linear": (3,),
          "bilinear": (4,), "trilinear": (5,), "bicubic": (4,), "lanczos": (4,)}
    r = input.dim()
    if mode not in ok or r not in ok[mode]:
        need = {"linear": 3, "bilinear": 4, "trilinear": 5}
        if mode in need and r in (3, 4, 5):
            raise NotImplementedError(f"Got {r}D input, but {mode} mode needs {need[mode]}D input")
        raise NotImplementedError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported"
            f" (got {r}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | "
            f"lanczos | area | nearest-exact (got {mode})")
    if mode == "area":
        return _adaptive_avg(dim, input, output_size)
    sizes = tuple(input.shape[2:])
    if output_size is None:
        output_size = [int(L * s) for L, s in zip(sizes, scale_factors)]
    outs = tuple(int(o) for o in output_size)
    if any(o <= 0 for o in outs):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(f'{n}: {L}' for n, L in zip('DHW'[-dim:], sizes))}) "
                           f"output ({', '.join(f'{n}: {o}' for n, o in zip('DHW'[-dim:], outs))})")
    scales = tuple(None if scale_factors is None else float(s) for s in
                   (scale_factors or [None] * dim))
    fn = _interp_fn(mode, sizes, outs, bool(align_corners), scales,
                    input.dtype.np.name if hasattr(input.dtype, "np") else "float32",
                    bool(antialias))
    if antialias:
        return _run(fn, (input,), f"Upsample{mode.capitalize()}2DAaBackward0")[0]
    names = {"nearest": "UpsampleNearest", "nearest-exact": "UpsampleNearestExact",
             "linear": "UpsampleLinear", "bilinear": "UpsampleBilinear",
             "trilinear": "UpsampleTrilinear", "bicubic": "UpsampleBicubic"}
    return _run(fn, (input,), f"{names[mode]}{dim}DBackward0")[0]


def _warn_deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Mirrors `torch.nn.functional.upsample` (deprecated alias of interpolate)."""
    _warn_deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Mirrors `torch.nn.functional.upsample_nearest`."""
    _warn_deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Mirrors `torch.nn.functional.upsample_bilinear`."""
    _warn_deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- fold / unfold ----------------------------------------------------------------------------

@programs.factory
def _unfold_fn(tables_key, unbatched):
    tables = _unkey(tables_key)

    def f(x):
        if unbatched:
            x = x[None]
        w = _gather_windows(x, tables, 0)  # (N, C, oh, ow, kh*kw)
        n, c = w.shape[:2]
        L = w.shape[2] * w.shape[3]
        kk = w.shape[-1]
        w = w.reshape(n, c, L, kk).transpose(0, 1, 3, 2).reshape(n, c * kk, L)
        return w[0] if unbatched else w

    return f


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Mirrors `torch.nn.functional.unfold` (im2col)."""
    if input.dim() not in (3, 4):
        if input.dim() < 3:
            r = max(input.dim(), 1)
            raise IndexError(f"Dimension out of range (expected to be in range of [{-r}, "
                             f"{r - 1}], but got {input.dim()})")
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got "
                           f"{input.dim()}D)")
    k, s, p, d = _pool_params(2, kernel_size, stride, padding, dilation)
    sizes = tuple(input.shape[-2:])
    outs = [(L + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for L, kk, ss, pp, dd in
            zip(sizes, k, s, p, d)]
    if any(o < 1 for o in outs):
        raise RuntimeError(
            f"Given input with spatial size ({sizes[0]}, {sizes[1]}), kernel_size=({k[0]}, "
            f"{k[1]}), dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of "
            f"the array of sliding blocks as ({outs[0]}, {outs[1]}), but its components must be "
            f"at least one.")
    tables = [_window_table(L, kk, ss, pp, dd, False) for L, kk, ss, pp, dd in
              zip(sizes, k, s, p, d)]
    fn = _unfold_fn(_key(tables), input.dim() == 3)
    return _run(fn, (input,), "Im2ColBackward0")[0]


@programs.factory
def _fold_fn(out_size, k, s, p, d, unbatched):
    tables = [_window_table(L, kk, ss, pp, dd, False) for L, kk, ss, pp, dd in
              zip(out_size, k, s, p, d)]
    oh, ow = tables[0].shape[0], tables[1].shape[0]
    ih = np.broadcast_to(tables[0].T[:, None, :, None], (k[0], k[1], oh, ow))
    iw = np.broadcast_to(tables[1].T[None, :, None, :], (k[0], k[1], oh, ow))

    def f(x):
        if unbatched:
            x = x[None]
        n = x.shape[0]
        c = x.shape[1] // (k[0] * k[1])
        v = x.reshape(n, c, k[0], k[1], oh, ow)
        z = jnp.zeros((n, c, out_size[0] + 1, out_size[1] + 1), x.dtype)
        z = z.at[:, :, jnp.asarray(ih), jnp.asarray(iw)].add(v)
        z = z[:, :, :out_size[0], :out_size[1]]
        return z[0] if unbatched else z

    return f


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Mirrors `torch.nn.functional.fold` (col2im)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are "
                           f"supported (got {input.dim()}D)")
    out = _ntuple(output_size, 2)
    k, s, p, d = _pool_params(2, kernel_size, stride, padding, dilation)
    c = input.shape[-2]
    kp = k[0] * k[1]
    if c % kp != 0:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={c} and kernel_size=({k[0]}, "
                           f"{k[1]}).")
    blocks = [(o + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for o, kk, ss, pp, dd in
              zip(out, k, s, p, d)]
    L = input.shape[-1]
    if blocks[0] * blocks[1] != L:
        raise RuntimeError(
            f"Given output_size=({out[0]}, {out[1]}), kernel_size=({k[0]}, {k[1]}), "
            f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), "
            f"expected size of input's dimension 2 to match the calculated number of sliding "
            f"blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={L}.")
    fn = _fold_fn(out, k, s, p, d, input.dim() == 2)
    return _run(fn, (input,), "Col2ImBackward0")[0]


# ---- shuffles ---------------------------------------------------------------------------------

@programs.factory
def _pixel_shuffle_fn(r, down):
    def f(x):
        lead = x.shape[:-3]
        c, h, w = x.shape[-3:]
        nl = len(lead)
        if not down:
            oc = c // (r * r)
            y = x.reshape(lead + (oc, r, r, h, w))
            y = y.transpose(tuple(range(nl)) + tuple(nl + i for i in (0, 3, 1, 4, 2)))
            return y.reshape(lead + (oc, h * r, w * r))
        y = x.reshape(lead + (c, h // r, r, w // r, r))
        y = y.transpose(tuple(range(nl)) + tuple(nl + i for i in (0, 2, 4, 1, 3)))
        return y.reshape(lead + (c * r * r, h // r, w // r))

    return f


def pixel_shuffle(input, upscale_factor):
    """Mirrors `torch.nn.functional.pixel_shuffle`."""
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input.shape[-3]
    if c % (r * r) != 0:
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    return _run(_pixel_shuffle_fn(r, False), (input,), "PixelShuffleBackward0")[0]


def pixel_unshuffle(input, downscale_factor):
    """Mirrors `torch.nn.functional.pixel_unshuffle`."""
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    h, w = input.shape[-2:]
    if h % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={h} is not divisible by {r}")
    if w % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    return _run(_pixel_shuffle_fn(r, True), (input,), "PixelUnshuffleBackward0")[0]


@programs.factory
def _channel_shuffle_fn(g):
    def f(x):
        n, c = x.shape[:2]
        rest = x.shape[2:]
        y = x.reshape((n, g, c // g) + rest).swapaxes(1, 2)
        return y.reshape(x.shape)

    return f


def channel_shuffle(input, groups):
    """Mirrors `torch.nn.functional.channel_shuffle`."""
    g = int(groups)
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{g}")
    c = input.shape[1]
    if c % g != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {g} groups.")
    return _run(_channel_shuffle_fn(g), (input,), "CloneBackward0")[0]


native_channel_shuffle = channel_shuffle


# ---- affine_grid ------------------------------------------------------------------------------

@programs.factory
def _affine_grid_fn(size, align_corners, dtype_name):
    spatial = size[2:]
    nd = len(spatial)

    def lin(n):
        if n <= 1:
            return np.zeros((n,), np.float64)
        v = np.linspace(-1.0, 1.0, n)
        return v if align_corners else v * (n - 1) / n

    # base grid (..., nd + 1) with coordinates ordered x, y(, z) = last dim first
    axes = [lin(n) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [mesh[i] for i in reversed(range(nd))] + [np.ones(spatial)]
    base = np.stack(coords, -1).astype(dtype_name)

    def f(theta):
        b = jnp.asarray(base, theta.dtype).reshape(-1, nd + 1)
        g = jnp.einsum("pk,njk->npj", b, theta, precision=_HIGHEST)
        return g.reshape((size[0],) + tuple(spatial) + (nd,))

    return f


def affine_grid(theta, size, align_corners=None):
    """Mirrors `torch.nn.functional.affine_grid`."""
    if align_corners is None:
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size_arg = size
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size_arg}. Got {theta.shape}.")
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size_arg}. Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size_arg}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size_arg}")
    fn = _affine_grid_fn(size, bool(align_corners), theta.dtype.np.name)
    return _run(fn, (theta,), "AffineGridGeneratorBackward0")[0]


# ---- grid_sample ------------------------------------------------------------------------------
# Mirrors ATen's GridSampler (CPU): 2-D follows the vectorised kernel's formulas, 3-D the scalar
# one. Coordinates are computed in the op-math dtype; padding is applied per coordinate with
# `where`-based clip/reflect so that the JAX gradient equals ATen's *_set_grad rules (slope 0 at
# the clip limits, +-1 inside reflections); floor/round have zero gradient, so `nearest` gives a
# zero grid gradient and bicubic's taps carry no coordinate gradient (as in ATen).

_GS_INT_HI = 2147483646.0  # INT_MAX - 1
_GS_INT_LO = -2147483648.0


def _gs_unnormalize(c, size, align, vectorised):
    if vectorised:
        if align:
            return (c + 1) * ((size - 1) / 2)
        return (c + 1) * (size / 2) - 0.5
    if align:
        return ((c + 1) / 2) * (size - 1)
    return ((c + 1) * size - 1) / 2


def _gs_clip(c, size):
    hi = size - 1
    return jnp.where(c <= 0, jnp.zeros_like(c), jnp.where(c >= hi, jnp.full_like(c, hi), c))


def _gs_reflect(c, twice_low, twice_high):
    if twice_low == twice_high:
        return jnp.zeros_like(c)
    mn = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = c - mn
    c = jnp.where(c < 0, -c, c)
    extra = jnp.fmod(c, span)
    flips = jnp.floor(c / span)
    even = jnp.fmod(flips, 2) == 0
    return jnp.where(even, extra + mn, span - extra + mn)


def _gs_reflect_vec(c, size, align):
    """The vectorised 2-D CPU kernel's reflection (trunc-based double flips)."""
    twice_span = 2 * (size - 1) if align else 2 * size
    if twice_span == 0:
        return jnp.zeros_like(c)
    x = c if align else c + 0.5
    a = jnp.where(x < 0, -x, x)
    extra = a - jnp.trunc(a / twice_span) * twice_span
    refl = twice_span - extra
    out = jnp.where(extra > refl, refl, extra)
    return out if align else out - 0.5


def _gs_pad(c, size, padding_mode, align, vec=False):
    if padding_mode == "border":
        c = _gs_clip(c, size)
    elif padding_mode == "reflection":
        if vec:
            c = _gs_reflect_vec(c, size, align)
        else:
            c = _gs_reflect(c, 0, 2 * (size - 1)) if align else _gs_reflect(c, -1, 2 * size - 1)
        c = _gs_clip(c, size)
    # safe_downgrade_to_int_range: NaN/inf/huge coordinates become -100 (out of bounds)
    ok = jnp.isfinite(c) & (c <= _GS_INT_HI) & (c >= _GS_INT_LO)
    return jnp.where(ok, c, jnp.full_like(c, -100.0))


def _gs_gather(xf, idx, sizes, out_shape):
    """xf (N, C, P); idx: per-dim float, integer-valued coordinates of shape `out_shape` (which
    starts with N) -> (N, C, *out_shape[1:]), with out-of-bounds taps reading 0."""
    valid = None
    flat = None
    for fi, L in zip(idx, sizes):
        v = (fi >= 0) & (fi <= L - 1)
        valid = v if valid is None else valid & v
        ii = jnp.clip(jnp.where(v, fi, jnp.zeros_like(fi)), 0, L - 1).astype(jnp.int32)
        flat = ii if flat is None else flat * L + ii
    n = xf.shape[0]
    q = int(np.prod(out_shape[1:], dtype=np.int64))
    g = jax.vmap(lambda a, i: jnp.take(a, i, axis=1))(xf, flat.reshape(n, q))
    g = g.reshape((n, xf.shape[1]) + tuple(out_shape[1:]))
    return jnp.where(valid[:, None], g, jnp.zeros_like(g))


def _gs_sum(v, axis):
    """Sum over `axis` strictly left to right (ATen's accumulation order)."""
    out = None
    for i in range(v.shape[axis]):
        t = lax.index_in_dim(v, i, axis, keepdims=False)
        out = t if out is None else out + t
    return out


def _gs_cubic_coeffs(t):
    A = -0.75

    def c1(x):
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def c2(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]


@programs.factory
def _grid_sample_fn(nd, mode, padding_mode, align, dtype_name):
    ft = jnp.dtype(dtype_name)  # ATen computes in scalar_t (Half/BFloat16 included)
    vec = nd == 2

    def f(x, grid):
        sizes = tuple(int(s) for s in x.shape[2:])
        n, c = x.shape[:2]
        xf = x.astype(ft).reshape(n, c, int(np.prod(sizes, dtype=np.int64)))
        g = grid.astype(ft)
        # grid's last dim is ordered (x, y[, z]) = (W, H[, D]); coords[d] follows x's dims.
        # All taps are gathered at once along a tap axis inserted after N.
        raw = [g[..., nd - 1 - d][:, None] for d in range(nd)]
        if mode == "bicubic":
            cs = [_gs_unnormalize(r, L, align, vec) for r, L in zip(raw, sizes)]
            fl = [jnp.floor(cc) for cc in cs]
            wy, wx = [jnp.stack(_gs_cubic_coeffs(cc - f0), 1)[:, :, 0]
                      for cc, f0 in zip(cs, fl)]  # (N, 4, *O)
            k = jnp.arange(-1, 3, dtype=ft).reshape((1, 4) + (1,) * (g.ndim - 2))
            ty = _gs_pad(fl[0] + k, sizes[0], padding_mode, align, vec)[:, :, None]  # (N,4,1,*O)
            tx = _gs_pad(fl[1] + k, sizes[1], padding_mode, align, vec)[:, None, :]  # (N,1,4,*O)
            shp = jnp.broadcast_shapes(ty.shape, tx.shape)
            v = _gs_gather(xf, (jnp.broadcast_to(ty, shp), jnp.broadcast_to(tx, shp)), sizes,
                           shp)  # (N, C, 4, 4, *O)
            rows = _gs_sum(wx[:, None, None] * v, 3)  # (N, C, 4, *O), ATen's left-to-right sums
            out = _gs_sum(wy[:, None] * rows, 2)
        else:
            cs = [_gs_pad(_gs_unnormalize(r, L, align, vec), L, padding_mode, align, vec)
                  for r, L in zip(raw, sizes)]
            if mode == "nearest":
                out = _gs_gather(xf, [jnp.round(cc) for cc in cs], sizes, cs[0].shape)[:, :, 0]
            else:
                fl = [jnp.floor(cc) for cc in cs]
                hi = [cc - f0 for cc, f0 in zip(cs, fl)]
                lo = [1 - h for h in hi] if vec else [(f0 + 1) - cc for cc, f0 in zip(cs, fl)]
                idx = [[] for _ in range(nd)]
                ws = []
                for corner in itertools.product((0, 1), repeat=nd):
                    # 2-D: nw = s * e (y factor first); 3-D: tnw = (ix_bse - ix) * (iy..) * (iz..)
                    w = None
                    for d in (range(nd) if vec else reversed(range(nd))):
                        wd = hi[d] if corner[d] else lo[d]
                        w = wd if w is None else w * wd
                    ws.append(w)
                    for d in range(nd):
                        idx[d].append(fl[d] + corner[d])
                idx = [jnp.concatenate(i, 1) for i in idx]  # (N, 2**nd, *O)
                v = _gs_gather(xf, idx, sizes, idx[0].shape)  # (N, C, 2**nd, *O)
                out = _gs_sum(v * jnp.concatenate(ws, 1)[:, None], 2)
        return out.astype(x.dtype)

    return f


@_autocast_op("grid_sample")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Mirrors `torch.nn.functional.grid_sample` (4-D and 5-D inputs)."""
    if mode != "bilinear" and mode != "nearest" and mode != "bicubic":
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode != "zeros" and padding_mode != "border" and padding_mode != "reflection":
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False "
            "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
            "See the documentation of grid_sample for details.", stacklevel=2)
        align_corners = False
    if not isinstance(align_corners, (bool, np.bool_)):
        raise TypeError(f"grid_sampler(): argument 'align_corners' (position 5) must be bool, "
                        f"not {type(align_corners).__name__}")
    isz, gsz = tuple(input.shape), tuple(grid.shape)
    if input.dim() == 0 or grid.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if isz[0] != gsz[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {_sizes(isz)} and grid with sizes "
                           f"{_sizes(gsz)}")
    if gsz[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {_sizes(gsz)}")
    for i in range(2, input.dim()):
        if isz[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {_sizes(isz)} with dimension "
                               f"{i} being empty")
    if input.dim() == 4:
        if grid.dim() != 4:
            raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of "
                               f"dimensions, but got input with sizes {_sizes(isz)} and grid "
                               f"with sizes {_sizes(gsz)}")
        kernel = "grid_sampler_2d_cpu_kernel_impl"
    else:
        if input.dim() != 5 or grid.dim() != 5:
            raise RuntimeError(f"grid_sampler(): expected 5D input and grid with same number of "
                               f"dimensions, but got input with sizes {_sizes(isz)} and grid "
                               f"with sizes {_sizes(gsz)}")
        if mode == "bicubic":
            raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
        kernel = "grid_sampler3d_cpu"
    dn = str(input.dtype).replace("torch.", "")
    if dn not in ("float32", "float64", "float16", "bfloat16"):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type(input)}\'')
    if str(grid.dtype) != str(input.dtype):
        raise RuntimeError(f"expected scalar type {_scalar_type(input)} but found "
                           f"{_scalar_type(grid)}")
    nd = input.dim() - 2
    fn = _grid_sample_fn(nd, mode, padding_mode, bool(align_corners), dn)
    return _run(fn, (input, grid), f"GridSampler{nd}DBackward0")[0]


# ---- fractional max pooling -------------------------------------------------------------------

__all__ += ["fractional_max_pool2d", "fractional_max_pool3d",
            "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]

# PyTorch computes the interval starts in the input's scalar type; half types round every step
_FRAC_LOW = {"float16": (5, 10), "bfloat16": (8, 7)}


@programs.factory
def _frac_fn(nd, in_sizes, out_sizes, pools, unbatched, dname):
    """PyTorch's fractional max pooling: per plane, the window starts along each dim are
    `int((i + u) * alpha) - int(u * alpha)` (i < out-1; the last is in - pool) with
    alpha = (in - pool) / (out - 1), all in the input's scalar type; the max of each window is
    the first maximum in scan order (the last NaN when there is one), as PyTorch's CPU kernel."""
    # which sample drives which dim: 2-d planes hold (W, H), 3-d planes (T, H, W)
    order = (1, 0) if nd == 2 else (0, 1, 2)
    mult = [int(np.prod(in_sizes[d + 1:])) for d in range(nd)]
    low = _FRAC_LOW.get(dname)

    def rnd(v):
        return lax.reduce_precision(v, *low) if low is not None else v

    def f(x, samples):
        if unbatched:
            x = x[None]
        n, c = x.shape[:2]
        s = samples[:n]
        cdt = jnp.float32 if low is not None else x.dtype
        s = s.astype(cdt)
        starts = []
        for d in range(nd):
            L, O, K = in_sizes[d], out_sizes[d], pools[d]
            u = s[:, :, order[d]][..., None]
            if O > 1:
                alpha = rnd(jnp.asarray(L - K, cdt) / jnp.asarray(O - 1, cdt))
                i = jnp.arange(O - 1, dtype=cdt)
                a = jnp.trunc(rnd(rnd(i + u) * alpha)).astype(jnp.int32)
                b = jnp.trunc(rnd(u * alpha)).astype(jnp.int32)
                seq = jnp.concatenate([a - b, jnp.full((n, c, 1), L - K, jnp.int32)], -1)
            else:
                seq = jnp.full((n, c, O), L - K, jnp.int32)
            starts.append(seq)
        if any(k <= 0 for k in pools):  # empty windows: -inf at each window's start
            flat = sum(starts[d].reshape((n, c) + tuple(out_sizes[e] if e == d else 1
                                                        for e in range(nd))) * mult[d]
                       for d in range(nd))
            out = jnp.full((n, c) + tuple(out_sizes), -jnp.inf, x.dtype)
            idx = jnp.broadcast_to(flat, out.shape).astype(jnp.int64)
        else:
            w = x
            flat = jnp.zeros((), jnp.int64)
            for d in range(nd):
                L, O, K = in_sizes[d], out_sizes[d], pools[d]
                ix = jnp.clip(starts[d][..., None] + jnp.arange(K, dtype=jnp.int32), 0, L - 1)
                shp = [n, c] + [1] * nd
                shp[2 + d] = O * K
                w = jnp.take_along_axis(w, ix.reshape(shp), axis=2 + d)
                fshape = [n, c] + [1] * (2 * nd)
                fshape[2 + d] = O
                fshape[2 + nd + d] = K
                flat = flat + ix.astype(jnp.int64).reshape(fshape) * mult[d]
            split = [n, c]
            for d in range(nd):
                split += [out_sizes[d], pools[d]]
            w = w.reshape(split)
            perm = ((0, 1) + tuple(2 + 2 * d for d in range(nd))
                    + tuple(3 + 2 * d for d in range(nd)))
            w = w.transpose(perm).reshape((n, c) + tuple(out_sizes) + (int(np.prod(pools)),))
            flat = jnp.broadcast_to(flat, (n, c) + tuple(out_sizes) + tuple(pools))
            flat = flat.reshape(w.shape)
            ktot = w.shape[-1]
            isn = jnp.isnan(w)
            last_nan = ktot - 1 - jnp.argmax(isn[..., ::-1], axis=-1)
            am = jnp.where(isn.any(-1), last_nan, jnp.argmax(w, axis=-1))[..., None]
            out = jnp.take_along_axis(w, am, -1)[..., 0]
            idx = jnp.take_along_axis(flat, am, -1)[..., 0]
        if unbatched:
            out, idx = out[0], idx[0]
        return out, idx

    return f


def _frac_int_list(v, nd, what, name):
    if isinstance(v, Tensor):
        v = v.tolist()
    pos = 2 if what == "kernel_size" else 3
    if isinstance(v, (bool, float)):
        raise TypeError(f"{name}(): argument '{what}' (position {pos}) must be tuple of ints, "
                        f"not {type(v).__name__}")
    if isinstance(v, numbers.Integral):
        return (int(v),) * nd
    v = list(v)
    for e in v:
        if not isinstance(e, numbers.Integral) or isinstance(e, bool):
            raise TypeError(f"{name}(): argument '{what}' (position {pos}) must be tuple of "
                            f"ints, but "
                            f"found element of type {type(e).__name__} at pos {v.index(e)}")
    return tuple(int(e) for e in v)


def _pytorch_ntuple(x, n):
    if isinstance(x, (list, tuple)) or hasattr(x, "__iter__"):
        return tuple(x)
    return (x,) * n


def _fractional_max_pool(nd, input, kernel_size, output_size, output_ratio, _random_samples):
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2:
            if len(output_ratio) > 2:
                raise ValueError("fractional_max_pool2d requires output_ratio to either be a "
                                 "single Int or tuple of Ints.")
        r = _pytorch_ntuple(output_ratio, nd)
        output_size = [int(input.size(d - nd) * r[d]) for d in range(nd)]
    if _random_samples is None:
        from ... import rand as _rand
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        _random_samples = _rand(n_batch, input.size(-nd - 1), nd, dtype=input.dtype,
                                device=input.device)
    # ---- PyTorch's meta checks
    pools = _frac_int_list(kernel_size, nd, "kernel_size", name)
    outs = _frac_int_list(output_size, nd, "output_size", name)
    tail = "Ints" if nd == 2 else "three Ints"
    if len(pools) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of {tail}")
    if len(outs) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of {tail}")
    pre = "fractional_max_pool2d()" if nd == 2 else "fractional_max_pool3d_out()"
    r = input.dim()
    if r not in (nd + 1, nd + 2):
        raise RuntimeError(f"{pre}: Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{_sizes(input.shape)}")
    for i in range(1, r):
        if input.shape[i] <= 0:
            raise RuntimeError(f"{pre}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{_sizes(input.shape)} with dimension {i} "
                               f"being empty.")
    sizes = tuple(input.shape[-nd:])
    words = ("height", "width") if nd == 2 else ("time", "height", "width")
    for d in range(nd):
        ok = (outs[d] + pools[d] - 1 <= sizes[d]) if nd == 2 else \
            (outs[d] + pools[d] - 1 < sizes[d])
        if not ok:
            raise RuntimeError(f"{pre}: pool {words[d]} {pools[d]} too large relative to input "
                               f"{words[d]} {sizes[d]}")
    lead = tuple(input.shape[:-nd])
    if any(o < 0 for o in outs):
        bad = next(o for o in outs if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                           f"{_sizes(lead + outs)}")
    # ---- fractional_max_pool_check_shape
    samples = _random_samples
    if str(samples.dtype) != str(input.dtype):
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    sn, sc, sd = samples.shape
    ib, ic = (1, input.shape[0]) if r == nd + 1 else (input.shape[0], input.shape[1])
    if sn < ib:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if sc != ic:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if sd != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {sd}.")
    dn = str(input.dtype).replace("torch.", "")
    if dn not in ("float32", "float64", "float16", "bfloat16"):
        raise NotImplementedError(f'"fractional_max_pool{nd}d_out_frame" not implemented for '
                                  f"'{_scalar_type(input)}'")
    fn = _frac_fn(nd, sizes, outs, pools, r == nd + 1, dn)
    out, idx = apply_jax(fn, (input, samples.detach()), f"FractionalMaxPool{nd}DBackward0")
    return out, idx


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Mirrors `torch.nn.functional.fractional_max_pool2d_with_indices`."""
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio,
                                _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Mirrors `torch.nn.functional.fractional_max_pool3d_with_indices`."""
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio,
                                _random_samples)


@_autocast_op("fractional_max_pool2d")
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Mirrors `torch.nn.functional.fractional_max_pool2d`."""
    out = _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]


@_autocast_op("fractional_max_pool3d")
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Mirrors `torch.nn.functional.fractional_max_pool3d`."""
    out = _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]
