"""torchvision's native operators (`torch.ops.torchvision.*`), written as JAX kernels. They are
registered when torchvision asks `torch.ops.load_library` for its `_C` extension (see
`torchlike/ops.py`), so torchvision's Python code runs its usual paths on torchlike.

Kernels follow torchvision's CPU kernels' definitions: `nms` (greedy, by descending score,
suppressing IoU > threshold), `roi_align` (average of bilinear samples on a grid per bin;
`aligned` shifts by half a pixel; `sampling_ratio <= 0` takes ceil(roi size / bins) samples),
`roi_pool` (max over integer bins, with the argmax returned). Gradients come from JAX (the
max's to the argmax, as torchvision's). The other operators are defined (so torchvision's
fake-kernel registrations find them) without kernels: calling one raises as a missing kernel
does in PyTorch."""
import functools

import jax
import jax.numpy as jnp
import numpy as np

from .._core import programs
from .torchvision_schemas import SCHEMAS  # noqa: F401 - `register` defines them

_ROI_CHUNK = 16   # rois computed together inside one `lax.map` step


# ---- nms ----------------------------------------------------------------------------------------

@programs.factory
def _nms_kernel():
    def f(boxes, scores, threshold):
        order = jnp.argsort(-scores, stable=True)
        b = boxes[order]
        x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
        area = (x2 - x1) * (y2 - y1)
        w = jnp.maximum(0, jnp.minimum(x2[:, None], x2[None]) - jnp.maximum(x1[:, None], x1[None]))
        h = jnp.maximum(0, jnp.minimum(y2[:, None], y2[None]) - jnp.maximum(y1[:, None], y1[None]))
        inter = w * h
        over = inter / (area[:, None] + area[None] - inter) > threshold
        n = boxes.shape[0]
        later = jnp.arange(n)[None] > jnp.arange(n)[:, None]

        def step(i, suppressed):
            keep_i = ~suppressed[i]
            return suppressed | (keep_i & over[i] & later[i])
        suppressed = jax.lax.fori_loop(0, n, step, jnp.zeros(n, bool))
        return order, ~suppressed
    return f


def nms(dets, scores, iou_threshold):
    """torchvision::nms: the indices of the boxes kept, by decreasing score."""
    import torchlike
    if dets.dim() != 2:
        raise RuntimeError(f"boxes should be a 2d tensor, got {dets.dim()}D")
    if dets.size(1) != 4:
        raise RuntimeError(f"boxes should have 4 elements in dimension 1, got {dets.size(1)}")
    if scores.dim() != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {scores.dim()}D")
    if dets.size(0) != scores.size(0):
        raise RuntimeError(f"boxes and scores should have same number of elements in dimension "
                           f"0, got {dets.size(0)} and {scores.size(0)}")
    if dets.numel() == 0:
        return torchlike.empty(0, dtype=torchlike.long, device=dets.device)
    order, keep = _nms_kernel()(dets._value(), scores._value(),
                                np.asarray(iou_threshold, dets._value().dtype))
    kept = np.asarray(order)[np.asarray(keep)].astype(np.int64)
    return torchlike.tensor(kept, device=dets.device)


# ---- roi_align ----------------------------------------------------------------------------------

def _interp_weights(start, bin_size, grid, max_grid, pooled, size, dtype):
    """(rois, pooled, size) weights: each bin's average over its `grid` samples of the bilinear
    taps onto pixel rows (or columns), zero for samples outside [-1, size]."""
    p = jnp.arange(pooled, dtype=dtype)[None, :, None]
    g = jnp.arange(max_grid, dtype=dtype)[None, None, :]
    gr = grid.astype(dtype)[:, None, None]
    pos = start[:, None, None] + p * bin_size[:, None, None] + (g + 0.5) * bin_size[:, None, None] / gr
    valid = (g < gr) & (pos >= -1.0) & (pos <= size)
    pos = jnp.maximum(pos, 0)
    low = jnp.floor(pos).astype(jnp.int32)
    at_end = low >= size - 1
    low = jnp.where(at_end, size - 1, low)
    high = jnp.where(at_end, size - 1, low + 1)
    pos = jnp.where(at_end, low.astype(dtype), pos)
    frac = pos - low
    pix = jnp.arange(size)[None, None, None, :]
    w = (jnp.where(pix == low[..., None], 1 - frac[..., None], 0)
         + jnp.where(pix == high[..., None], frac[..., None], 0))
    w = jnp.where(valid[..., None], w, 0)
    return w.sum(2)


@programs.factory
def _roi_align_kernel(pooled_h, pooled_w, max_gh, max_gw, sampling_ratio, aligned):
    def f(x, rois, scale):
        dt = x.dtype
        height, width = x.shape[2], x.shape[3]
        r = rois.astype(dt)
        off = 0.5 if aligned else 0.0
        x1, y1 = r[:, 1] * scale - off, r[:, 2] * scale - off
        x2, y2 = r[:, 3] * scale - off, r[:, 4] * scale - off
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = jnp.maximum(rw, 1.0), jnp.maximum(rh, 1.0)
        bh, bw = rh / pooled_h, rw / pooled_w
        if sampling_ratio > 0:
            gh = gw = jnp.full(r.shape[0], sampling_ratio, jnp.int32)
        else:
            gh = jnp.ceil(rh / pooled_h).astype(jnp.int32)
            gw = jnp.ceil(rw / pooled_w).astype(jnp.int32)
        count = jnp.maximum(gh * gw, 1).astype(dt)
        wy = _interp_weights(y1, bh, gh, max_gh, pooled_h, height, dt)
        wx = _interp_weights(x1, bw, gw, max_gw, pooled_w, width, dt)
        batch = rois[:, 0].astype(jnp.int32)

        def one(args):
            b, wy_k, wx_k, c_k = args
            img = x[b]
            return jnp.einsum("ph,chw,qw->cpq", wy_k, img, wx_k) / c_k
        return jax.lax.map(one, (batch, wy, wx, count), batch_size=_ROI_CHUNK)
    return f


def _max_grid(rois, spatial_scale, pooled_h, pooled_w, sampling_ratio, aligned):
    """The largest sample grid of any roi (a kernel constant: read from the rois, which are
    few)."""
    if sampling_ratio > 0 or rois.shape[0] == 0:
        return max(sampling_ratio, 1), max(sampling_ratio, 1)
    r = np.asarray(rois, np.float64)
    rw = (r[:, 3] - r[:, 1]) * spatial_scale
    rh = (r[:, 4] - r[:, 2]) * spatial_scale
    if not aligned:
        rw, rh = np.maximum(rw, 1.0), np.maximum(rh, 1.0)
    gh = int(np.ceil(np.max(rh) / pooled_h)) if rh.size else 1
    gw = int(np.ceil(np.max(rw) / pooled_w)) if rw.size else 1
    # the next power of two: fewer kernels over rois of varying sizes
    return (1 << max(gh - 1, 0).bit_length(), 1 << max(gw - 1, 0).bit_length())


def _check_rois(input, rois, name):
    if rois.dim() != 2 or rois.size(1) != 5:
        raise RuntimeError("rois must have shape as Tensor[K, 5]")
    if input.dtype != rois.dtype:
        raise RuntimeError(f"Expected tensor for input to have the same type as tensor for "
                           f"rois; but type {input.dtype} does not equal {rois.dtype}")
    if input.device != rois.device:
        raise RuntimeError(f"Expected tensor for input to be on the same device as tensor for "
                           f"rois; but device {input.device} does not equal {rois.device}")


def roi_align(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio,
              aligned):
    """torchvision::roi_align."""
    from ..autograd.function import apply_jax
    _check_rois(input, rois, "roi_align")
    gh, gw = _max_grid(rois._value(), float(spatial_scale), int(pooled_height),
                       int(pooled_width), int(sampling_ratio), bool(aligned))
    kernel = _roi_align_kernel(int(pooled_height), int(pooled_width), gh, gw,
                               int(sampling_ratio), bool(aligned))
    scale = np.asarray(spatial_scale, input._value().dtype)
    return apply_jax(kernel, (input, rois, scale), name="RoiAlignBackward0")[0]


@programs.factory
def _roi_align_backward_kernel(pooled_h, pooled_w, max_gh, max_gw, sampling_ratio, aligned,
                               shape):
    forward = _roi_align_kernel(pooled_h, pooled_w, max_gh, max_gw, sampling_ratio, aligned)

    def f(grad, rois, scale):
        # the forward is linear in its input: its vjp at zeros is the backward
        zeros = jnp.zeros(shape, grad.dtype)
        return jax.vjp(lambda x: forward(x, rois, scale), zeros)[1](grad)[0]
    return f


def _roi_align_backward(grad, rois, spatial_scale, pooled_height, pooled_width, batch_size,
                        channels, height, width, sampling_ratio, aligned):
    """torchvision::_roi_align_backward: the gradient of `roi_align` for its input."""
    from .._core.tensor import wrap
    gh, gw = _max_grid(rois._value(), float(spatial_scale), int(pooled_height),
                       int(pooled_width), int(sampling_ratio), bool(aligned))
    shape = (int(batch_size), int(channels), int(height), int(width))
    kernel = _roi_align_backward_kernel(int(pooled_height), int(pooled_width), gh, gw,
                                        int(sampling_ratio), bool(aligned), shape)
    g = grad._value()
    return wrap(kernel(g, rois._value(), np.asarray(spatial_scale, g.dtype)), grad.device)


# ---- roi_pool -----------------------------------------------------------------------------------

@programs.factory
def _roi_pool_argmax_kernel(pooled_h, pooled_w):
    def f(x, rois, scale):
        height, width = x.shape[2], x.shape[3]
        r = rois.astype(jnp.float32 if x.dtype != jnp.float64 else jnp.float64)
        def round_away(v):   # C's round(): halves away from zero
            return (jnp.sign(v) * jnp.floor(jnp.abs(v) + 0.5)).astype(jnp.int32)
        start_w, start_h = round_away(r[:, 1] * scale), round_away(r[:, 2] * scale)
        end_w, end_h = round_away(r[:, 3] * scale), round_away(r[:, 4] * scale)
        rw = jnp.maximum(end_w - start_w + 1, 1).astype(r.dtype)
        rh = jnp.maximum(end_h - start_h + 1, 1).astype(r.dtype)

        def bounds(start, extent, pooled, size):
            p = jnp.arange(pooled, dtype=r.dtype)[None]
            b = (extent / pooled)[:, None]
            lo = jnp.floor(p * b).astype(jnp.int32) + start[:, None]
            hi = jnp.ceil((p + 1) * b).astype(jnp.int32) + start[:, None]
            return jnp.clip(lo, 0, size), jnp.clip(hi, 0, size)
        hs, he = bounds(start_h, rh, pooled_h, height)
        ws, we = bounds(start_w, rw, pooled_w, width)
        batch = rois[:, 0].astype(jnp.int32)

        def one(args):
            b, hs_k, he_k, ws_k, we_k = args
            img = x[b]                                            # (C, H, W)
            hh = jnp.arange(height)
            ww = jnp.arange(width)
            mh = (hh[None] >= hs_k[:, None]) & (hh[None] < he_k[:, None])   # (ph, H)
            mw = (ww[None] >= ws_k[:, None]) & (ww[None] < we_k[:, None])   # (pw, W)
            v = jnp.where(mw[None, None], img[:, :, None, :], -jnp.inf)     # (C, H, pw, W)
            col = jnp.argmax(v, -1)                                         # first max in a row
            rowmax = jnp.max(v, -1)                                         # (C, H, pw)
            v2 = jnp.where(mh[None, :, None, :], jnp.moveaxis(rowmax, 1, 2)[:, None], -jnp.inf)
            row = jnp.argmax(v2, -1)                                        # (C, ph, pw)
            colsel = jnp.take_along_axis(jnp.moveaxis(col, 1, 2)[:, None],
                                         row[..., None], -1)[..., 0]
            empty = (he_k <= hs_k)[:, None] | (we_k <= ws_k)[None, :]
            return jnp.where(empty[None], -1, row * width + colsel)
        return jax.lax.map(one, (batch, hs, he, ws, we), batch_size=_ROI_CHUNK)
    return f


@programs.factory
def _roi_pool_gather_kernel():
    def f(x, rois, idx):
        batch = rois[:, 0].astype(jnp.int32)
        k, c, ph, pw = idx.shape
        flat = x.reshape(x.shape[0], x.shape[1], -1)[batch]                 # (K, C, H*W)
        v = jnp.take_along_axis(flat, jnp.maximum(idx, 0).reshape(k, c, -1), -1)
        return jnp.where(idx.reshape(k, c, -1) >= 0, v, 0).reshape(idx.shape)
    return f


def roi_pool(input, rois, spatial_scale, pooled_height, pooled_width):
    """torchvision::roi_pool: (output, argmax)."""
    import torchlike
    from .._core.tensor import wrap
    from ..autograd.function import apply_jax
    _check_rois(input, rois, "roi_pool")
    scale = np.asarray(spatial_scale, np.float64 if input.dtype == torchlike.float64
                       else np.float32)
    idx = _roi_pool_argmax_kernel(int(pooled_height), int(pooled_width))(
        input._value(), rois._value(), scale)
    out = apply_jax(_roi_pool_gather_kernel(), (input, rois, idx), name="RoiPoolBackward0")[0]
    return out, wrap(idx.astype(jnp.int32), input.device)


@programs.factory
def _roi_pool_backward_kernel(shape):
    def f(grad, rois, argmax):
        batch = rois[:, 0].astype(jnp.int32)
        k, c = argmax.shape[:2]
        flat = jnp.zeros((shape[0], shape[1], shape[2] * shape[3]), grad.dtype)
        idx = argmax.reshape(k, c, -1)
        g = jnp.where(idx >= 0, grad.reshape(k, c, -1), 0)
        b = jnp.broadcast_to(batch[:, None, None], idx.shape)
        ch = jnp.broadcast_to(jnp.arange(c)[None, :, None], idx.shape)
        flat = flat.at[b, ch, jnp.maximum(idx, 0)].add(g)
        return flat.reshape(shape)
    return f


def _roi_pool_backward(grad, rois, argmax, spatial_scale, pooled_height, pooled_width,
                       batch_size, channels, height, width):
    """torchvision::_roi_pool_backward: `grad` added at each bin's argmax."""
    from .._core.tensor import wrap
    shape = (int(batch_size), int(channels), int(height), int(width))
    out = _roi_pool_backward_kernel(shape)(grad._value(), rois._value(), argmax._value())
    return wrap(out, grad.device)


def _cuda_version():
    """torchvision::_cuda_version: -1, no CUDA build of torchvision's kernels."""
    return -1


KERNELS = {"nms": nms, "roi_align": roi_align, "_roi_align_backward": _roi_align_backward,
           "roi_pool": roi_pool, "_roi_pool_backward": _roi_pool_backward,
           "_cuda_version": _cuda_version}


@functools.lru_cache(maxsize=None)
def register():
    """Defines torchvision's operators in `torch.ops.torchvision`, with the kernels above."""
    from . import define
    return define("torchvision", SCHEMAS, KERNELS)
