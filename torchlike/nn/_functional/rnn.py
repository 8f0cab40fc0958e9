"""Recurrent kernels behind `torch.nn.RNN`/`LSTM`/`GRU` and their cells.

`torch.nn.functional` has no public recurrent functions, so `__all__` is empty; the modules in
`nn/modules/rnn.py` call `rnn_forward` / `cell_forward`. Each runs a whole multi-layer,
(bi)directional recurrence as ONE cached jitted JAX function (a `jax.lax.scan` over time per
layer and direction) through `apply_jax`, so the backward is that function's jitted vjp.

Weights come as the module's flat list (PyTorch's `_flat_weights` order: per layer, per
direction: w_ih, w_hh, [b_ih, b_hh], [w_hr]). Gate order matches PyTorch: LSTM (i, f, g, o),
GRU (r, z, n) with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).
"""

import jax
import jax.numpy as jnp
import numpy as np

from ...autograd.function import apply_jax
from ...amp.dispatch import autocast_op as _autocast_op
from ..._core import programs

__all__ = []


# full float32 matmuls (no TF32 on GPUs), as PyTorch's default
_HIGHEST = jax.lax.Precision.HIGHEST


def _mm(a, w):
    """a @ w.T"""
    return jnp.matmul(a, w.T, precision=_HIGHEST)


def _step(mode, xg, h, c, w_hh, b_hh, w_hr):
    """One time step given the precomputed input projection `xg` (B, G*H)."""
    hg = _mm(h, w_hh)
    if b_hh is not None:
        hg = hg + b_hh
    if mode == "LSTM":
        g = xg + hg
        i, f, gg, o = jnp.split(g, 4, axis=-1)
        i = jax.nn.sigmoid(i)
        f = jax.nn.sigmoid(f)
        gg = jnp.tanh(gg)
        o = jax.nn.sigmoid(o)
        c_new = f * c + i * gg
        h_new = o * jnp.tanh(c_new)
        if w_hr is not None:
            h_new = _mm(h_new, w_hr)
        return h_new, c_new
    if mode == "GRU":
        xr, xz, xn = jnp.split(xg, 3, axis=-1)
        hr, hz, hn = jnp.split(hg, 3, axis=-1)
        r = jax.nn.sigmoid(xr + hr)
        z = jax.nn.sigmoid(xz + hz)
        n = jnp.tanh(xn + r * hn)
        return (1 - z) * n + z * h, None
    pre = xg + hg
    return (jnp.tanh(pre) if mode == "RNN_TANH" else jax.nn.relu(pre)), None


def _direction(mode, x, h0, c0, w, has_bias, has_proj, valid, reverse):
    """Run one direction of one layer over time-major `x` (T, B, I). `valid` (T, B, 1) masks
    the steps past each sequence's end (packed input): the state is carried unchanged and the
    output is zero there. Returns (output (T, B, H_out), h_T, c_T)."""
    w_ih, w_hh = w[0], w[1]
    b_ih = w[2] if has_bias else None
    b_hh = w[3] if has_bias else None
    w_hr = w[-1] if has_proj else None
    xg = _mm(x, w_ih)
    if b_ih is not None:
        xg = xg + b_ih

    def body(carry, inp):
        h, c = carry
        if valid is None:
            xg_t = inp
        else:
            xg_t, m = inp
        h_new, c_new = _step(mode, xg_t, h, c, w_hh, b_hh, w_hr)
        if valid is not None:
            h_new = jnp.where(m, h_new, h)
            out = jnp.where(m, h_new, jnp.zeros_like(h_new))
            if c is not None:
                c_new = jnp.where(m, c_new, c)
        else:
            out = h_new
        return (h_new, c_new), out

    xs = xg if valid is None else (xg, valid)
    (h_t, c_t), out = jax.lax.scan(body, (h0, c0), xs, reverse=reverse)
    return out, h_t, c_t


@programs.factory
def _rnn_kernel(mode, num_layers, bidirectional, has_bias, has_proj, batch_first, unbatched,
                packed, h_size, h_out, has_h0, has_dropout):
    """The jitted whole-RNN function for one configuration."""
    D = 2 if bidirectional else 1
    per = 2 + (2 if has_bias else 0) + (1 if has_proj else 0)
    lstm = mode == "LSTM"

    def f(x, h0, c0, weights, masks, pack):
        if packed:
            # pack = (pad_idx (T, B): each padded position's row in the data, N for padding;
            #         valid_pos (N,): the flat (t, b) position of each data row;
            #         sorted_indices, unsorted_indices (or None))
            pad_idx, valid_pos, sorted_idx, unsorted_idx = pack
            data_ext = jnp.concatenate([x, jnp.zeros((1,) + x.shape[1:], x.dtype)], 0)
            xt = data_ext[pad_idx]
            valid = (pad_idx < x.shape[0])[..., None]
        else:
            sorted_idx = None
            valid = None
            xt = x
            if unbatched:
                xt = xt[:, None]
            elif batch_first:
                xt = jnp.swapaxes(xt, 0, 1)
        T, B = xt.shape[0], xt.shape[1]
        dt = xt.dtype
        if has_h0:
            hx = h0[:, None] if unbatched else h0
            if sorted_idx is not None:
                hx = hx[:, sorted_idx]
        else:
            hx = jnp.zeros((num_layers * D, B, h_out), dt)
        if lstm:
            if has_h0:
                cx = c0[:, None] if unbatched else c0
                if sorted_idx is not None:
                    cx = cx[:, sorted_idx]
            else:
                cx = jnp.zeros((num_layers * D, B, h_size), dt)
        h_n, c_n = [], []
        layer_in = xt
        for layer in range(num_layers):
            outs = []
            for d in range(D):
                k = layer * D + d
                w = weights[k * per:(k + 1) * per]
                out, h_t, c_t = _direction(mode, layer_in, hx[k], cx[k] if lstm else None, w,
                                           has_bias, has_proj, valid, reverse=d == 1)
                outs.append(out)
                h_n.append(h_t)
                c_n.append(c_t)
            layer_in = outs[0] if D == 1 else jnp.concatenate(outs, -1)
            if has_dropout and layer < num_layers - 1:
                layer_in = layer_in * masks[layer]
        h_n = jnp.stack(h_n)
        c_n = jnp.stack(c_n) if lstm else None
        if packed:
            flat = layer_in.reshape((T * B,) + layer_in.shape[2:])
            output = flat[valid_pos]
            if unsorted_idx is not None:
                h_n = h_n[:, unsorted_idx]
                c_n = c_n[:, unsorted_idx] if lstm else None
        else:
            output = layer_in
            if unbatched:
                output = output[:, 0]
                h_n = h_n[:, 0]
                c_n = c_n[:, 0] if lstm else None
            elif batch_first:
                output = jnp.swapaxes(output, 0, 1)
        return (output, h_n, c_n) if lstm else (output, h_n)

    return f


def padded_index(batch_sizes):
    """(T, B) int64 array: for each padded position its row in the packed data, N if padding."""
    bs = np.asarray(batch_sizes, dtype=np.int64)
    T, B, N = len(bs), (int(bs[0]) if len(bs) else 0), int(bs.sum())
    idx = np.full((T, B), N, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(bs)[:-1]]) if T else np.zeros(0, np.int64)
    for t in range(T):
        idx[t, :bs[t]] = offsets[t] + np.arange(bs[t])
    return idx


@_autocast_op("rnn_forward")
def rnn_forward(mode, input, hx, cx, weights, *, num_layers, bidirectional, has_bias, proj_size,
                hidden_size, batch_first, unbatched, batch_sizes=None, sorted_indices=None,
                unsorted_indices=None, masks=None):
    """Run the whole recurrence as one dispatch; returns (output, h_n) or (output, h_n, c_n)."""
    packed = batch_sizes is not None
    h_out = proj_size if proj_size > 0 else hidden_size
    fn = _rnn_kernel(mode, num_layers, bidirectional, has_bias, proj_size > 0, batch_first,
                     unbatched, packed, hidden_size, h_out, hx is not None, masks is not None)
    if packed:
        pad_idx = padded_index(np.asarray(batch_sizes._value()))
        valid_pos = np.nonzero(pad_idx.reshape(-1) < input.shape[0])[0]
        pack = (pad_idx, valid_pos,
                None if sorted_indices is None else sorted_indices._value(),
                None if unsorted_indices is None else unsorted_indices._value())
    else:
        pack = None
    name = {"LSTM": "LstmBackward0", "GRU": "GruBackward0"}.get(mode, "RnnBackward0")
    outs = apply_jax(fn, [input, hx, cx, list(weights), None if masks is None else list(masks),
                          pack], name=name)
    if unbatched:
        last = "SqueezeBackward1"
    elif packed:
        last = "CatBackward0"
    elif batch_first:
        last = "TransposeBackward0" if mode == "LSTM" else "TransposeBackward1"
    elif bidirectional:
        last = "CatBackward0"
    elif mode == "LSTM" and proj_size == 0 and input.dtype.is_floating_point and \
            input.dtype.itemsize == 4:
        last = "MkldnnRnnLayerBackward0"     # PyTorch's CPU build runs float32 LSTMs on oneDNN
    else:
        last = "StackBackward0"
    state = "SqueezeBackward1" if unbatched else "StackBackward0"
    return _named(outs, (last,) + (state,) * (len(outs) - 1))


@programs.factory
def _cell_kernel(mode, has_bias, unbatched, has_h, hidden_size):
    lstm = mode == "LSTM"

    def f(x, h, c, w_ih, w_hh, b_ih, b_hh):
        if unbatched:
            x = x[None]
        B = x.shape[0]
        if has_h:
            if unbatched:
                h = h[None]
                c = c[None] if lstm else None
        else:
            h = jnp.zeros((B, hidden_size), x.dtype)
            c = jnp.zeros((B, hidden_size), x.dtype) if lstm else None
        xg = _mm(x, w_ih)
        if has_bias:
            xg = xg + b_ih
        h_new, c_new = _step(mode, xg, h, c, w_hh, b_hh if has_bias else None, None)
        if unbatched:
            h_new = h_new[0]
            c_new = c_new[0] if lstm else None
        return (h_new, c_new) if lstm else h_new

    return f


@_autocast_op("cell_forward")
def cell_forward(mode, input, hx, cx, w_ih, w_hh, b_ih, b_hh, *, hidden_size, unbatched):
    """One recurrent cell step as one dispatch."""
    fn = _cell_kernel(mode, b_ih is not None, unbatched, hx is not None, hidden_size)
    out = apply_jax(fn, [input, hx, cx, w_ih, w_hh, b_ih, b_hh],
                    name={"LSTM": "LstmCellBackward0", "GRU": "GruCellBackward0"}.get(
                        mode, "RnnCellBackward0"))
    if unbatched:
        names = ("SqueezeBackward1",) * 2
    else:
        names = {"LSTM": ("MulBackward0", "AddBackward0"), "GRU": ("AddBackward0",),
                 "RNN_TANH": ("TanhBackward0",)}.get(mode, ("ReluBackward0",))
    out = _named(out, names)
    return out if mode == "LSTM" else out[0]


def _identity(x):
    return x


def _named(outs, names):
    """`outs`, each behind a pass-through node named as the last operation PyTorch's CPU
    implementation records for that output (`h.grad_fn` prints `<StackBackward0>` ...)."""
    return tuple(apply_jax(_identity, [t], name=n)[0] if t.grad_fn is not None else t
                 for t, n in zip(outs, names))
