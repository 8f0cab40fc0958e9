"""torch.nn.functional: normalization, dropout and embedding functions.

Every normalization is one `apply_jax` call on a cached, jitted pure-JAX function (static
configuration baked in, so a call is one kernel and one autograd node). Running statistics are
computed by the same kernel and written into the buffers in place."""
import math
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from ..._core import buckets, device_asserts, device_rules
from ..._core.device import put
from ..._core import grad_state
from ..._core.tensor import Tensor, wrap
from ..._core.tracing import tracing
from ...autograd.function import apply_jax
from ...amp.dispatch import autocast_op as _autocast_op
from ..._core import programs

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "local_response_norm",
           "rms_norm", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout", "embedding", "embedding_bag"]


class _NoGrad:
    def __enter__(self):
        self.prev = grad_state.ENABLED[0]
        grad_state.ENABLED[0] = False

    def __exit__(self, *a):
        grad_state.ENABLED[0] = self.prev


def _size_str(t):
    return "torch.Size([" + ", ".join(str(s) for s in t.shape) + "])"


def _compute_dtype(x):
    """Half precision is normalised in float32 (as PyTorch's CPU kernels accumulate)."""
    return jnp.float32 if x.dtype in (jnp.float16, jnp.bfloat16) else x.dtype


def _write(buf, arr):
    """Write `arr` into buffer `buf` in place (no autograd), bumping its version."""
    with _NoGrad():
        buf.copy_(wrap(arr, buf.device))


# ---- batch / instance norm --------------------------------------------------------------------

@programs.factory
def _bn_fn(use_stats, update, eps, instance):
    """(x, w, b, running_mean, running_var, momentum) -> out[, new_mean, new_var]."""
    def f(x, w, b, rm, rv, momentum):
        cd = _compute_dtype(x)
        xc = x.astype(cd)
        nd = x.ndim
        bshape = (1, -1) + (1,) * (nd - 2)
        if use_stats:
            axes = tuple(range(2, nd)) if instance else (0,) + tuple(range(2, nd))
            mean = jnp.mean(xc, axis=axes, keepdims=True)
            var = jnp.mean(jnp.square(xc - mean), axis=axes, keepdims=True)
            y = (xc - mean) * jax.lax.rsqrt(var + eps)
        else:
            y = (xc - rm.astype(cd).reshape(bshape)) * jax.lax.rsqrt(
                rv.astype(cd).reshape(bshape) + eps)
        if w is not None:
            y = y * w.astype(cd).reshape(bshape)
        if b is not None:
            y = y + b.astype(cd).reshape(bshape)
        y = y.astype(x.dtype)
        if not update:
            return y
        n = x.size // (x.shape[1] * (x.shape[0] if instance else 1))
        m = jax.lax.stop_gradient(mean)
        v = jax.lax.stop_gradient(var) * (n / max(n - 1, 1) if n > 1 else jnp.inf)
        if instance:
            m = jnp.mean(m.reshape(x.shape[0], x.shape[1]), axis=0)
            v = jnp.mean(v.reshape(x.shape[0], x.shape[1]), axis=0)
        else:
            m, v = m.reshape(-1), v.reshape(-1)
        new_m = (1 - momentum) * rm + momentum * m.astype(rm.dtype)
        new_v = (1 - momentum) * rv + momentum * v.astype(rv.dtype)
        return y, new_m.astype(rm.dtype), new_v.astype(rv.dtype)
    return f


def _check_channels(name, t, c, input):
    if t is not None and t.numel() != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


def _verify_batch_size(size, shown=None):
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        if shown is None:
            shown = f"torch.Size([{', '.join(str(s) for s in size)}])"
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{shown}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Mirrors `torch.nn.functional.batch_norm` (running stats updated in place in training)."""
    if training:
        _verify_batch_size(list(input.shape))
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if input.numel() == 0:
        # PyTorch returns before any shape check: a copy (scaled / shifted by the first
        # weight / bias element when there is one), so the graph stays connected
        out = input.clone()
        if weight is not None and weight.numel() > 0:
            out = out * weight.reshape(-1)[0]
        if bias is not None and bias.numel() > 0:
            out = out + bias.reshape(-1)[0]
        return out
    if input.dim() < 2:
        raise ValueError(f"Expected 2D or more input (got {input.dim()}D input)")
    c = input.shape[1]
    _check_channels("running_mean", running_mean, c, input)
    _check_channels("running_var", running_var, c, input)
    _check_channels("weight", weight, c, input)
    _check_channels("bias", bias, c, input)
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    return _normalize(input, running_mean, running_var, weight, bias, bool(training), momentum,
                      eps, per_instance=False)


def _normalize(input, running_mean, running_var, weight, bias, batch_stats, momentum, eps,
               per_instance):
    """batch_norm / instance_norm: one kernel (and autograd node) normalising with the batch's
    (or each instance's) statistics or the running ones, updating the running ones in place."""
    update = bool(batch_stats and running_mean is not None and running_var is not None)
    fn = _bn_fn(batch_stats, update, float(eps), per_instance)
    outs = apply_jax(fn, [input, weight, bias, running_mean, running_var,
                          float(momentum) if momentum is not None else 0.0],
                     "NativeBatchNormBackward0", saves=("input", "weight"))
    if update:
        _write(running_mean, outs[1]._value())
        _write(running_var, outs[2]._value())
    return outs[0]


def _verify_spatial_size(size):
    prod = 1
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"torch.Size([{', '.join(str(s) for s in size)}])")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Mirrors `torch.nn.functional.instance_norm`."""
    if use_input_stats:
        _verify_spatial_size(list(input.shape))
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    c = input.shape[1]
    _check_channels("weight", weight, c, input)
    _check_channels("bias", bias, c, input)
    return _normalize(input, running_mean, running_var, weight, bias, bool(use_input_stats),
                      momentum, eps, per_instance=True)


# ---- layer / group / rms norm -----------------------------------------------------------------

@programs.factory
def _ln_fn(k, eps, rms):
    def f(x, w, b):
        cd = _compute_dtype(x)
        xc = x.astype(cd)
        axes = tuple(range(x.ndim - k, x.ndim))
        if rms:
            y = xc * jax.lax.rsqrt(jnp.mean(jnp.square(xc), axis=axes, keepdims=True) + eps)
        else:
            mean = jnp.mean(xc, axis=axes, keepdims=True)
            var = jnp.mean(jnp.square(xc - mean), axis=axes, keepdims=True)
            y = (xc - mean) * jax.lax.rsqrt(var + eps)
        if w is not None:
            y = y * w.astype(cd)
        if b is not None:
            y = y + b.astype(cd)
        return y.astype(x.dtype)
    return f


def _norm_shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(int(s) for s in normalized_shape)


def _check_ln(input, shape, weight, bias, rms=False):
    k = len(shape)
    if k == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")
    if input.dim() < k or tuple(input.shape[input.dim() - k:]) != shape:
        sep = "" if rms else ", "
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{sep}{', '.join(str(s) for s in shape)}], but got input of size"
                           f"{list(input.shape)}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Mirrors `torch.nn.functional.layer_norm`."""
    shape = _norm_shape(normalized_shape)
    _check_ln(input, shape, weight, bias)
    lead = input.dim() - len(shape)
    return apply_jax(_ln_fn(len(shape), float(eps), False), [input, weight, bias],
                     "NativeLayerNormBackward0", bucket=(0, lambda nd: range(lead)),
                     devices=_LN_DEVICES, saves=("input", "weight", "bias"))[0]


_LN_DEVICES = ("wrapper_CUDA__native_layer_norm", ("input", "weight", "bias"))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Mirrors `torch.nn.functional.rms_norm` (eps None: the dtype's machine epsilon)."""
    shape = _norm_shape(normalized_shape)
    _check_ln(input, shape, weight, None, rms=True)
    if eps is None:
        eps = float(np.finfo(np.dtype(_compute_dtype(input._value()))).eps) \
            if input.dtype.is_floating_point else 1.1920928955078125e-07
    return apply_jax(_ln_fn(len(shape), float(eps), True), [input, weight, None],
                     "MulBackward0")[0]


@programs.factory
def _gn_fn(groups, eps):
    def f(x, w, b):
        cd = _compute_dtype(x)
        n, c = x.shape[0], x.shape[1]
        xg = x.astype(cd).reshape(n, groups, -1)
        mean = jnp.mean(xg, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(xg - mean), axis=-1, keepdims=True)
        y = ((xg - mean) * jax.lax.rsqrt(var + eps)).reshape(x.shape)
        bshape = (1, c) + (1,) * (x.ndim - 2)
        if w is not None:
            y = y * w.astype(cd).reshape(bshape)
        if b is not None:
            y = y + b.astype(cd).reshape(bshape)
        return y.astype(x.dtype)
    return f


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Mirrors `torch.nn.functional.group_norm`."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    size = [input.size(0) * input.size(1) // num_groups, num_groups] + list(input.shape[2:])
    _verify_batch_size(size, str(size))
    c = input.shape[1]
    if c % num_groups != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and num_groups="
                           f"{num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(t.shape)} and "
                               f"input of shape {list(input.shape)}")
    return apply_jax(_gn_fn(int(num_groups), float(eps)), [input, weight, bias],
                     "NativeGroupNormBackward0")[0]


@programs.factory
def _lrn_fn(size, alpha, beta, k, float_dtype=None):
    def f(x):
        sq = jnp.square(x)
        pad = [(0, 0)] * x.ndim
        pad[1] = (size // 2, (size - 1) // 2)
        sq = jnp.pad(sq, pad)
        c = x.shape[1]
        s = sum(jax.lax.slice_in_dim(sq, i, i + c, axis=1) for i in range(size))
        if float_dtype is not None:  # integer input: PyTorch's average pool truncates
            s = jax.lax.div(s, jnp.full(s.shape, size, s.dtype)).astype(float_dtype)
            return (x.astype(float_dtype) / jnp.power(s * alpha + k, beta)).astype(float_dtype)
        div = jnp.power(s / size * alpha + k, beta)
        return x / div
    return f


@_autocast_op("local_response_norm")
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Mirrors `torch.nn.functional.local_response_norm`."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input.numel() == 0:
        return input
    fd = None
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        from ..._core import dtype as _dt
        fd = _dt.get_default_dtype().np
    return apply_jax(_lrn_fn(int(size), float(alpha), float(beta), float(k), fd), [input],
                     "DivBackward0")[0]


# ---- dropout ----------------------------------------------------------------------------------

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


@programs.factory
def _noise_fn(alpha):
    def f(mask, p):
        if alpha:
            al = 1.7580993408473766
            a = 1.0 / jnp.sqrt((al * al * p + 1) * (1 - p))
            b = (mask - 1) * (al * a) + al * a * p
            return mask * a, b
        return mask / (1 - p)
    return f


def _dropout_impl(input, p, train, inplace, feature, alpha):
    from ..._ops.random import _sample
    if p != p:   # NaN passes the functions' own range check; PyTorch's kernel refuses it
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        import torchlike
        z = torchlike.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(z) if inplace else input.mul(z)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        # PyTorch's noise has input's dtype (alpha's first step `noise - 1` makes bool Long):
        # its in-place scaling refuses the float result
        noise = input.new_ones(())
        (noise.add(-1) if alpha else noise).div_(1.0 - p)
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    else:
        shape = tuple(input.shape)
    mask = _sample("bernoulli", shape, input.dtype, input.device, None, 1.0 - p)
    if not alpha and not feature and input._st._phys is not None and \
            input.device.type == "cpu":
        # an input padded to a size class (its sizes keep changing): the noise is made on the
        # host, where the mask was drawn, and padded there (no kernel to compile per size)
        h = np.asarray(mask)
        noise = h / (np.ones((), h.dtype) - np.asarray(p, h.dtype))
        noise = buckets.settle_host(noise, put, input.device)
        return input.mul_(noise) if inplace else input.mul(noise)
    noise = _noise_fn(alpha)(mask, np.asarray(p, dtype=mask.dtype))
    if alpha:
        a, b = (wrap(n, input.device) for n in noise)
        out = input.mul_(a) if inplace else input.mul(a)
        return out.add_(b)
    noise = wrap(noise, input.device)
    return input.mul_(noise) if inplace else input.mul(noise)


def dropout(input, p=0.5, training=True, inplace=False):
    """Mirrors `torch.nn.functional.dropout` (scales kept elements by 1/(1-p))."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, False, False)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Mirrors `torch.nn.functional.alpha_dropout`."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Mirrors `torch.nn.functional.feature_alpha_dropout`."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, True, True)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Mirrors `torch.nn.functional.dropout1d`."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs).")
    batched = inp_dim == 3
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, inplace, True, False)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Mirrors `torch.nn.functional.dropout2d`."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2)
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _dropout_impl(input, p, training, inplace, True, False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Mirrors `torch.nn.functional.dropout3d`."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout3d "
            "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2)
    batched = inp_dim == 5
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, inplace, True, False)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


# ---- embeddings -------------------------------------------------------------------------------

_INDEX_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _check_indices(indices, what, fn):
    name = indices.dtype.name if hasattr(indices.dtype, "name") else str(indices.dtype)
    if name not in ("int64", "int32"):
        raise RuntimeError(f"Expected tensor for argument #1 '{what}' to have one of the following "
                           f"scalar types: Long, Int; but got torch."
                           f"{_INDEX_NAMES.get(name, name)}Tensor instead (while checking "
                           f"arguments for {fn})")


def _check_range(idx, n):
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")


@programs.factory
def _renorm_fn(max_norm, norm_type):
    def f(w, idx):
        idx = idx.reshape(-1)
        rows = w[idx].astype(jnp.float32 if w.dtype in (jnp.float16, jnp.bfloat16) else w.dtype)
        if math.isinf(norm_type):
            norms = jnp.max(jnp.abs(rows), axis=1) if norm_type > 0 else \
                jnp.min(jnp.abs(rows), axis=1)
        elif norm_type == 0:
            norms = jnp.sum(rows != 0, axis=1).astype(rows.dtype)
        else:
            norms = jnp.sum(jnp.abs(rows) ** norm_type, axis=1) ** (1.0 / norm_type)
        # PyTorch reads each row's norm as a double and scales by max_norm / (norm + 1e-7)
        norms = norms.astype(jnp.float64)
        scale = jnp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(rows.dtype)
        return w.at[idx].set((rows * scale[:, None]).astype(w.dtype))
    return f


def _embedding_renorm_(weight, input, max_norm, norm_type):
    new = _renorm_fn(float(max_norm), float(norm_type))(weight._value(), input._value())
    _write(weight, new)


@programs.factory
def _emb_fn(padding_idx, scale_grad_by_freq):
    def f(w, idx):
        out = w[idx]
        if padding_idx is not None:
            keep = (idx != padding_idx)[..., None]
            out = jnp.where(keep, out, jax.lax.stop_gradient(w)[idx])
        if scale_grad_by_freq:
            counts = jnp.zeros((w.shape[0],), w.dtype).at[idx.reshape(-1)].add(1)
            scale = (1.0 / counts[idx])[..., None]
            sg = jax.lax.stop_gradient(out)
            out = sg + (out - sg) * scale
        return out
    return f


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Mirrors `torch.nn.functional.embedding` (padding_idx rows get no gradient; max_norm
    renormalizes the looked-up rows of `weight` in place)."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(input, "indices", "embedding")
    if not device_rules.agree([weight, input]):  # PyTorch looks rows up with index_select
        device_rules.check_operands([weight, input], _EMB_DEVICES)
    if device_asserts.on_device(input):   # checked on the device, reported later (as CUDA)
        device_asserts.defer_range_check(input, weight.shape[0])
    elif not tracing():      # a host check; traced indices (vmap, compile) have no values
        _check_range(buckets.host_value(input), weight.shape[0])
    if max_norm is not None:
        input = input.contiguous()
        _embedding_renorm_(weight, input, max_norm, norm_type)
    fn = _emb_fn(None if padding_idx is None or padding_idx < 0 else int(padding_idx),
                 bool(scale_grad_by_freq))
    return apply_jax(fn, [weight, input], "EmbeddingBackward0",
                     bucket=(1, lambda nd: range(nd)), saves=(None, "indices"))[0]


_EMB_DEVICES = ("wrapper_CUDA__index_select", ("self", "index"))


@programs.factory
def _bag_fn(mode, nbags, include_last, padding_idx, has_psw, scale_grad_by_freq):
    def f(w, idx, offsets, psw):
        n = idx.shape[0]
        pos = jnp.arange(n)
        starts = offsets[:nbags]
        end = offsets[nbags] if include_last else n
        seg = jnp.searchsorted(starts, pos, side="right") - 1
        valid = (pos < end) & (seg >= 0)
        if padding_idx is not None:
            valid = valid & (idx != padding_idx)
        seg = jnp.where(valid, seg, nbags)  # dropped by the segment reductions
        rows = w[idx]
        if scale_grad_by_freq:
            counts = jnp.zeros((w.shape[0],), w.dtype).at[idx].add(1)
            sg = jax.lax.stop_gradient(rows)
            rows = sg + (rows - sg) * (1.0 / counts[idx])[:, None]
        if mode == 2:
            mx = jax.ops.segment_max(jnp.where(valid[:, None], rows, -jnp.inf), seg,
                                     num_segments=nbags + 1)[:nbags]
            return jnp.where(jnp.isneginf(mx), jnp.zeros_like(mx), mx)
        if has_psw:
            rows = rows * psw[:, None].astype(rows.dtype)
        rows = jnp.where(valid[:, None], rows, jnp.zeros_like(rows))
        s = jax.ops.segment_sum(rows, seg, num_segments=nbags + 1)[:nbags]
        if mode == 1:
            cnt = jax.ops.segment_sum(valid.astype(w.dtype), seg, num_segments=nbags + 1)[:nbags]
            s = jnp.where(cnt[:, None] > 0, s / jnp.maximum(cnt, 1)[:, None], 0)
        return s
    return f


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Mirrors `torch.nn.functional.embedding_bag` (sum / mean / max over bags)."""
    import torchlike
    if weight.dtype == torchlike.long and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({_size_str(per_sample_weights)}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({_size_str(input)})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is "
                             "a mini-batch of fixed length sequences. However, found offsets of "
                             f"type {_type_str(offsets)}")
        offsets = torchlike.arange(0, input.numel(), input.size(1), dtype=input.dtype,
                                   device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode == "sum":
        mode_enum = 0
    elif mode == "mean":
        mode_enum = 1
    elif mode == "max":
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    _check_indices(input, "indices", "embedding_bag")
    _check_indices(offsets, "offsets", "embedding_bag")
    idx = np.asarray(input._value())
    bad = np.nonzero((idx < 0) | (idx >= weight.shape[0]))[0]
    if bad.size:
        raise RuntimeError(f"Index {int(bad[0])} of input takes value {int(idx[bad[0]])} which is "
                           f"not in the valid range [0, {weight.shape[0]})")
    off = np.asarray(offsets._value())
    nbags = off.shape[0] - (1 if include_last_offset else 0)
    if off.size and off[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {int(off[0])}\n"
                           f"[ torch.LongTensor{{}} ]")
    if off.size and off[-1] > idx.shape[0]:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length "
                           f"({idx.shape[0]}), but got offsets[-1] of {int(off[-1])}")
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx = weight.size(0) + padding_idx
    fn = _bag_fn(mode_enum, max(nbags, 0), bool(include_last_offset),
                 None if padding_idx is None else int(padding_idx),
                 per_sample_weights is not None, bool(scale_grad_by_freq))
    offsets = offsets.to(input.dtype)
    return apply_jax(fn, [weight, input, offsets, per_sample_weights],
                     "EmbeddingBagBackward0")[0]


def _type_str(x):
    if isinstance(x, Tensor):
        return "<class 'torch.Tensor'>"
    return str(type(x))
