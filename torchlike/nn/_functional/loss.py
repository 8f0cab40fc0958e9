"""torch.nn.functional: the loss functions.

Each loss is one `apply_jax` call on a cached, jitted pure-JAX function keyed by the loss's static
options (reduction, ignore_index, ...): one dispatch forward, one vjp backward. Argument checks,
warnings and errors follow PyTorch's (including the ones that look at values, such as
out-of-range class indices, which PyTorch's CPU kernels check too)."""
import functools
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from ..._core import buckets, device_asserts, programs
from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ..._core.tracing import tracing
from ..._ops.registry import broadcast_shapes_checked
from ...autograd.function import apply_jax
from .activation import logsigmoid
from ...amp.dispatch import autocast_op as _autocast_op

__all__ = [
    "l1_loss", "mse_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "smooth_l1_loss", "huber_loss",
    "soft_margin_loss", "multilabel_soft_margin_loss", "multilabel_margin_loss",
    "multi_margin_loss", "hinge_embedding_loss", "cosine_embedding_loss", "margin_ranking_loss",
    "triplet_margin_loss", "triplet_margin_with_distance_loss", "poisson_nll_loss",
    "gaussian_nll_loss", "ctc_loss",
]


# ---- reduction handling (mirrors torch.nn._reduction) -----------------------------------------

def _get_enum(reduction):
    if reduction == "none":
        return "none"
    if reduction == "mean":
        return "mean"
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=3)
        return "mean"
    if reduction == "sum":
        return "sum"
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_get_string(size_average, reduce, emit_warning=True):
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use "
                      f"reduction='{ret}' instead.", stacklevel=3)
    return ret


def _reduction(size_average, reduce, reduction):
    """The reduction mode as PyTorch's C++-backed losses see it (validated)."""
    if size_average is not None or reduce is not None:
        return _legacy_get_string(size_average, reduce)
    return _get_enum(reduction)


def _red(loss, reduction):
    if reduction == "mean":
        return jnp.mean(loss)
    if reduction == "sum":
        return jnp.sum(loss)
    return loss


def _rname(reduction, none_name):
    return {"mean": "MeanBackward0", "sum": "SumBackward0"}.get(reduction, none_name)


# ---- helpers ----------------------------------------------------------------------------------

def _kernel(builder):
    """Cache `builder(*static)` (a pure JAX function) jitted, per static key."""
    @functools.lru_cache(maxsize=None)
    def get(*static):
        return programs.jit(builder(*static), ("loss", builder, static))
    return get


def _run(fn, operands, name, saves=None):
    return apply_jax(fn, operands, name, saves=saves)[0]


def _run_nll(fn, operands, name, ignore_index, reduction, saves=None):
    """`_run` for a class-index loss: on inputs padded to a size class (see
    `_core/buckets.py`) the padded targets are ignored."""
    if buckets.any_padded(operands):
        from ..._ops import bucketed
        res = bucketed.class_loss(fn, operands, name, int(ignore_index), reduction)
        if res is not None:
            return res
        buckets.unpad_all(operands)
    return _run(fn, operands, name, saves)


def _size(t):
    return t.size()


def _float_result(*ts):
    """PyTorch's promoted dtype of `ts` (a floating one)."""
    d = ts[0].dtype
    for t in ts[1:]:
        if t is not None:
            d = _dt.promote_types(d, t.dtype)
    if not (d.is_floating_point or d.is_complex):
        d = _dt.get_default_dtype()
    return d


def _np(t):
    return np.asarray(t._value())


def _size_warning(input, target):
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                      f"size ({input.size()}). This will likely lead to incorrect results due "
                      f"to broadcasting. Please ensure they have the same size.", stacklevel=3)


def _abs(d):
    # |d| with PyTorch's gradient sign(d) (0 at 0); a complex |d| is real
    if jnp.iscomplexobj(d):
        return jnp.abs(d)
    return d * jnp.sign(d)


def _dims(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _dname(d):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}.get(str(d).replace("torch.", ""), str(d))


# ---- pointwise regression losses --------------------------------------------------------------

@_kernel
def _pointwise_k(kind, reduction, weighted, param, dtype):
    def f(x, y, w=None):
        x = x.astype(dtype)
        y = y.astype(dtype)
        d = x - y
        if kind == "l1":
            loss = _abs(d)
        elif kind == "mse":
            loss = d * d
        elif kind == "smooth_l1":
            ad = _abs(d)
            loss = jnp.where(ad < param, 0.5 * d * d / param, ad - 0.5 * param)
        else:  # huber
            ad = _abs(d)
            loss = jnp.where(ad < param, 0.5 * d * d, param * (ad - 0.5 * param))
        if weighted:
            loss = loss * w
            if reduction == "mean" and kind != "huber":
                return jnp.sum(loss) / jnp.sum(w)
        return _red(loss, reduction)
    return f


def _integer_pointwise(kind, input, target, reduction):
    """Non-float operands: PyTorch's kernels refuse integer dtypes (l1_loss is the composite
    |input - target|); huber writes into an `input`-dtype output. None when the float path
    applies."""
    r = _dt.promote_types(input.dtype, target.dtype)
    if r.is_floating_point or r.is_complex:
        if kind == "huber" and not (input.dtype.is_floating_point or input.dtype.is_complex):
            raise RuntimeError(f"result type {_dname(r)} can't be cast to the desired output "
                               f"type {_dname(input.dtype)}")
        return None
    if kind == "l1":
        loss = (input - target).abs()
        return loss if reduction == "none" else getattr(loss, _get_enum(reduction))()
    raise NotImplementedError(f'"{kind}_cpu" not implemented for \'{_dname(r)}\'')


def _pointwise(kind, input, target, reduction, weight, param, names):
    broadcast_shapes_checked([tuple(input.shape), tuple(target.shape)])
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point) and (
            weight is None or kind == "huber"):
        out = _integer_pointwise(kind, input, target, reduction)
        if out is not None:
            return out
    dtype = _float_result(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', "
                             f"'mean', 'sum'.")
        dtype = _dt.promote_types(dtype, weight.dtype)
        name = {"none": "MulBackward0", "sum": "SumBackward0",
                "mean": "MeanBackward0" if kind == "huber" else "DivBackward0"}[reduction]
        fn = _pointwise_k(kind, reduction, True, param, dtype.np)
        return _run(fn, (input, target, weight), name)
    reduction = _get_enum(reduction)
    fn = _pointwise_k(kind, reduction, False, param, dtype.np)
    name = names.get(reduction, names["default"])
    # a loss's own node saves both; the nodes of a decomposed one (mean of abs...) neither
    return _run(fn, (input, target), name,
                ("self", "target") if name.endswith("LossBackward0") else None)


@_autocast_op("l1_loss")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mirrors `torch.nn.functional.l1_loss`."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    return _pointwise("l1", input, target, reduction, weight, None,
                      {"mean": "MeanBackward0", "sum": "SumBackward0", "default": "AbsBackward0"})


@_autocast_op("mse_loss")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mirrors `torch.nn.functional.mse_loss`."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    return _pointwise("mse", input, target, reduction, weight, None,
                      {"default": "MseLossBackward0"})


@_autocast_op("smooth_l1_loss")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Mirrors `torch.nn.functional.smooth_l1_loss`."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if beta < 0:
        _get_enum(reduction)
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return _pointwise("l1", input, target, reduction, None, None,
                          {"mean": "MeanBackward0", "sum": "SumBackward0",
                           "default": "AbsBackward0"})
    return _pointwise("smooth_l1", input, target, reduction, None, float(beta),
                      {"default": "SmoothL1LossBackward0"})


@_autocast_op("huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Mirrors `torch.nn.functional.huber_loss`."""
    _size_warning(input, target)
    if delta <= 0:
        broadcast_shapes_checked([tuple(input.shape), tuple(target.shape)])
        _get_enum(reduction if weight is None else "none")
        raise RuntimeError(f"huber_loss does not support non-positive values for delta.")
    return _pointwise("huber", input, target, reduction, weight, float(delta),
                      {"default": "HuberLossBackward0"})


# ---- classification: NLL / cross entropy ------------------------------------------------------

def _nll_checks(input, target, weight, ignore_index, check_dtype=True):
    """PyTorch's nll_loss_nd argument checks; returns the target (a 1-D input's 1-element 1-D
    target as 0-d)."""
    ndim = input.dim()
    if ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {ndim})")
    if ndim != 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    if ndim <= 2:
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if ndim == 1 and target.dim() == 1:
            if target.shape[0] != 1:
                raise ValueError(f"For 1D input, 1D target must have size 1, but got target "
                                 f"size: {target.shape[0]}")
            target = target.reshape(())
        no_batch = ndim == 1 and target.dim() == 0
        if not (no_batch or input.shape[0] == target.shape[0]):
            raise RuntimeError(f"size mismatch (got input: {_dims(input.shape)}, target: "
                               f"{_dims(target.shape)})")
        n_classes = input.shape[-1]
    elif ndim == 4:
        if target.dim() != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {target.dim()}")
        if not (input.shape[0] == target.shape[0] and input.shape[2] == target.shape[1]
                and input.shape[3] == target.shape[2]):
            raise RuntimeError(f"size mismatch (got input: {_dims(input.shape)} , target: "
                               f"{_dims(target.shape)}")
        n_classes = input.shape[1]
    else:
        if True:
            out_size = (input.shape[0],) + tuple(input.shape[2:])
            if tuple(target.shape[1:]) != tuple(input.shape[2:]):
                raise RuntimeError(f"Expected target size {_dims(out_size)}, got "
                                   f"{_dims(target.shape)}")
        n_classes = input.shape[1]
    if weight is not None and weight.numel() != n_classes:
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes "
                           f"or no classes but got weight tensor of shape: "
                           f"{_dims(weight.shape)}")
    if check_dtype:
        if target.dtype not in (_dt.int64, _dt.uint8):
            raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                               f"{_dname(target.dtype)}")
        if not input.dtype.is_floating_point:
            raise NotImplementedError(f'"nll_loss_out_frame" not implemented for '
                                      f"'{_dname(input.dtype)}'")
        if weight is not None and weight.dtype != input.dtype:
            raise RuntimeError(f"expected scalar type {_dname(input.dtype)} but found "
                               f"{_dname(weight.dtype)}")
        # a host check, as PyTorch's CPU kernel makes (its CUDA kernel checks on the device);
        # traced labels (vmap, compile) have no values
        if device_asserts.on_device(target) and not tracing():
            device_asserts.defer_range_check(target, n_classes, ignore_index)
            return target
        t = None if tracing() else buckets.host_value(target).astype(np.int64)
        bad = None if t is None else (t != ignore_index) & ((t < 0) | (t >= n_classes))
        if bad is not None and bad.any():
            raise IndexError(f"Target {t[bad].reshape(-1)[0]} is out of bounds.")
    return target


def _nll_name(input, reduction):
    nd = input.dim()
    if nd <= 2:
        return "NllLossBackward0"
    if nd == 4 or reduction != "none":
        return "NllLoss2DBackward0"
    return "ViewBackward0"


def _class_dim(ndim):
    return 0 if ndim == 1 else 1


def _pick(logp, t, cdim):
    """logp[..., t, ...] along the class dim `cdim`, shaped like t."""
    return jnp.squeeze(jnp.take_along_axis(logp, jnp.expand_dims(t, cdim), axis=cdim), cdim)


def _weighted_mean(total, weight):
    """`total / weight`; with no target counted (every one ignored) it is NaN, as PyTorch's,
    but its gradient is 0, as PyTorch's backward writes nothing for ignored targets."""
    none = weight == 0
    return jnp.where(none, jnp.nan, total / jnp.where(none, 1, weight).astype(total.dtype))


@_kernel
def _nll_k(reduction, ignore_index, weighted, log_softmax, smoothing):
    def f(x, target, w=None):
        cdim = _class_dim(x.ndim)
        n_classes = x.shape[cdim]
        logp = jax.nn.log_softmax(x, axis=cdim) if log_softmax else x
        t = target.astype(jnp.int32)
        valid = t != ignore_index
        # an ignored target's row gets an exact +0 gradient (PyTorch writes none for it)
        logp = jnp.where(jnp.expand_dims(valid, cdim), logp, jax.lax.stop_gradient(logp))
        tc = jnp.where(valid, t, 0)
        picked = -_pick(logp, tc, cdim)
        wt = w[tc].astype(x.dtype) if weighted else jnp.ones(t.shape, x.dtype)
        wt = jnp.where(valid, wt, 0)
        loss = picked * wt
        if reduction == "mean":
            nll = _weighted_mean(jnp.sum(loss), jnp.sum(wt))
        elif reduction == "sum":
            nll = jnp.sum(loss)
        else:
            nll = loss
        if not smoothing:
            return nll
        if weighted:
            shape = [1] * x.ndim
            shape[cdim] = n_classes
            smooth = -jnp.sum(logp * w.astype(x.dtype).reshape(shape), axis=cdim)
        else:
            smooth = -jnp.sum(logp, axis=cdim)
        smooth = jnp.where(valid, smooth, 0)
        if reduction == "mean":
            ret = _weighted_mean(jnp.sum(smooth), jnp.sum(wt) if weighted else jnp.sum(valid))
        elif reduction == "sum":
            ret = jnp.sum(smooth)
        else:
            ret = smooth
        return (1 - smoothing) * nll + ret * (smoothing / n_classes)
    return f


@_kernel
def _ce_prob_k(reduction, weighted, smoothing, dtype):
    def f(x, y, w=None):
        x = x.astype(dtype)
        y = y.astype(dtype)
        cdim = _class_dim(x.ndim)
        n_classes = x.shape[cdim]
        logp = jax.nn.log_softmax(x, axis=cdim)
        if weighted:
            shape = [1] * x.ndim
            shape[cdim] = n_classes
            logp = logp * w.astype(dtype).reshape(shape)
        if smoothing > 0:
            y = y * (1 - smoothing) + smoothing / n_classes
        prod = logp * y
        if reduction == "mean":
            if x.size == 0:
                return jnp.full((), jnp.nan, dtype)
            return -jnp.sum(prod) / (x.size / n_classes)
        if reduction == "sum":
            return -jnp.sum(prod)
        return -jnp.sum(prod, axis=cdim)
    return f


@_autocast_op("nll_loss")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Mirrors `torch.nn.functional.nll_loss`."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    reduction = _get_enum(reduction)
    target = _nll_checks(input, target, weight, ignore_index)
    fn = _nll_k(reduction, int(ignore_index), weight is not None, False, 0.0)
    ops = (input, target) if weight is None else (input, target, weight)
    return _run_nll(fn, ops, _nll_name(input, reduction), ignore_index, reduction,
                    ("self", "target", "weight"))


@_autocast_op("cross_entropy")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Mirrors `torch.nn.functional.cross_entropy` (class indices or class probabilities)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    reduction = _get_enum(reduction)
    label_smoothing = float(label_smoothing)
    if not (0.0 <= label_smoothing <= 1.0):
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    if tuple(input.shape) == tuple(target.shape):
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {_dname(target.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        cdim = _class_dim(input.dim())
        if weight is not None and (weight.dim() != 1 or weight.numel() != input.shape[cdim]):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                               f"{input.shape[cdim]} classes or no classes but got weight "
                               f"tensor of shape: {_dims(weight.shape)}")
        if not input.dtype.is_floating_point:
            input.log_softmax(cdim)  # PyTorch's log_softmax kernel refuses it first
        dtype = _float_result(input, target)
        fn = _ce_prob_k(reduction, weight is not None, label_smoothing, dtype.np)
        name = {"mean": "DivBackward1"}.get(reduction, "NegBackward0")
        if reduction == "mean" and input.numel() == 0:
            name = "FillBackward0"
    else:
        if not input.dtype.is_floating_point and input.dim():
            input.log_softmax(_class_dim(input.dim()))  # PyTorch's log_softmax refuses it first
        checked = _nll_checks(input, target, weight, ignore_index)
        if label_smoothing > 0 and checked is not target:
            # PyTorch's smoothing term keeps the 1-element target's shape
            raise RuntimeError("output with shape [] doesn't match the broadcast shape [1]")
        target = checked
        fn = _nll_k(reduction, int(ignore_index), weight is not None, True, label_smoothing)
        name = "AddBackward0" if label_smoothing > 0 else _nll_name(input, reduction)
        ops = (input, target) if weight is None else (input, target, weight)
        return _run_nll(fn, ops, name, ignore_index, reduction)
    ops = (input, target) if weight is None else (input, target, weight)
    return _run(fn, ops, name)


# ---- binary cross entropy ---------------------------------------------------------------------

@jax.custom_vjp
def _bce_elem(x, y):
    lx = jnp.maximum(jnp.log(x), -100)
    l1x = jnp.maximum(jnp.log1p(-x), -100)
    return -(y * lx + (1 - y) * l1x)


def _bce_fwd(x, y):
    return _bce_elem(x, y), (x, y)


def _bce_bwd(res, g):
    x, y = res
    gx = g * (x - y) / jnp.maximum((1 - x) * x, 1e-12)
    gy = g * (jnp.log1p(-x) - jnp.log(x))   # PyTorch: -logit(x), unclamped
    return gx, gy


_bce_elem.defvjp(_bce_fwd, _bce_bwd)


@_kernel
def _bce_k(reduction, weighted):
    def f(x, y, w=None):
        loss = _bce_elem(x, y)
        if weighted:
            loss = loss * w
        return _red(loss, reduction)
    return f


@_autocast_op("binary_cross_entropy")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """Mirrors `torch.nn.functional.binary_cross_entropy`."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input "
                         f"size ({input.size()}) is deprecated. Please ensure they have the "
                         f"same size.")
    if weight is not None:
        new_size = broadcast_shapes_checked([tuple(target.shape), tuple(weight.shape)])
        weight = weight.expand(new_size)
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {_dname(target.dtype)} but expected "
                           f"{_dname(input.dtype)}")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {_dname(weight.dtype)} but expected "
                           f"{_dname(input.dtype)}")
    xv = _np(input)
    if ((xv < 0) | (xv > 1)).any() or np.isnan(xv).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    tv = _np(target)
    if ((tv < 0) | (tv > 1)).any():
        raise RuntimeError("all elements of target should be between 0 and 1")
    fn = _bce_k(reduction, weight is not None)
    ops = (input, target) if weight is None else (input, target, weight)
    return _run(fn, ops, "BinaryCrossEntropyBackward0")


@_kernel
def _bce_logits_k(reduction, weighted, pos_weighted, dtype, out_dtype):
    def f(x, y, w=None, pw=None):
        x = x.astype(dtype)
        y = y.astype(dtype)
        ls = jax.nn.log_sigmoid(x)
        if pos_weighted:
            lw = (pw.astype(dtype) - 1) * y + 1
            loss = (1 - y) * x - lw * ls
        else:
            loss = (1 - y) * x - ls
        if weighted:
            loss = loss * w.astype(dtype)
        return _red(loss.astype(out_dtype), reduction)
    return f


@_autocast_op("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Mirrors `torch.nn.functional.binary_cross_entropy_with_logits`."""
    reduction = _reduction(size_average, reduce, reduction)
    if not (target.size() == input.size()):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    shapes = [tuple(input.shape)]
    if pos_weight is not None:
        shapes.append(tuple(pos_weight.shape))
    if weight is not None:
        shapes.append(tuple(weight.shape))
    broadcast_shapes_checked(shapes[1:] + shapes[:1])
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        # PyTorch's first steps, log_sigmoid(input) and an in-place (1 - target).mul_(input)
        logsigmoid(input)
        if not target.dtype.is_complex:
            target.new_ones(target.shape).sub_(target).mul_(input)
    # PyTorch computes in place on (1 - target): the loss has target's dtype
    dtype = _float_result(input, target, weight, pos_weight)
    out = target.dtype if target.dtype.is_floating_point else dtype
    fn = _bce_logits_k(reduction, weight is not None, pos_weight is not None, dtype.np, out.np)
    return _run(fn, (input, target, weight, pos_weight),
                "BinaryCrossEntropyWithLogitsBackward0", ("self", "target", "weight", "pos_weight"))


# ---- KL divergence ----------------------------------------------------------------------------

@_kernel
def _kl_k(reduction, log_target, batch, dtype):
    def f(x, t):
        x = x.astype(dtype)
        t = t.astype(dtype)
        if log_target:
            loss = jnp.exp(t) * (t - x)
        else:
            loss = jax.scipy.special.xlogy(t, t) - t * x
        out = _red(loss, "sum" if reduction == "batchmean" else reduction)
        if reduction == "batchmean" and batch is not None:
            out = out / batch
        return out
    return f


@_autocast_op("kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Mirrors `torch.nn.functional.kl_div` (`input` holds log-probabilities)."""
    if size_average is not None or reduce is not None:
        red = _legacy_get_string(size_average, reduce)
        reduction = red
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        red = "batchmean" if reduction == "batchmean" else _get_enum(reduction)
    broadcast_shapes_checked([tuple(input.shape), tuple(target.shape)])
    batch = input.shape[0] if (red == "batchmean" and input.dim() != 0) else None
    dtype = _float_result(input, target)
    fn = _kl_k(red, bool(log_target), batch, dtype.np)
    name = {"mean": "MeanBackward0", "sum": "SumBackward0",
            "batchmean": "DivBackward0" if batch is not None else "SumBackward0"}.get(
        red, "MulBackward0" if log_target else "SubBackward0")
    return _run(fn, (input, target), name)


# ---- margin / embedding losses ----------------------------------------------------------------

@_kernel
def _soft_margin_k(reduction, dtype):
    def f(x, y):
        x = x.astype(dtype)
        y = y.astype(dtype)
        return _red(jnp.log1p(jnp.exp(-y * x)), reduction)
    return f


@_autocast_op("soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mirrors `torch.nn.functional.soft_margin_loss`."""
    reduction = _reduction(size_average, reduce, reduction)
    broadcast_shapes_checked([tuple(input.shape), tuple(target.shape)])
    fn = _soft_margin_k(reduction, _float_result(input, target).np)
    return _run(fn, (input, target), "SoftMarginLossBackward0")


@_kernel
def _ml_soft_margin_k(reduction, weighted, dtype):
    def f(x, y, w=None):
        x = x.astype(dtype)
        y = y.astype(dtype)
        loss = -(y * jax.nn.log_sigmoid(x) + (1 - y) * jax.nn.log_sigmoid(-x))
        if weighted:
            loss = loss * w
        loss = jnp.sum(loss, axis=x.ndim - 1) / x.shape[x.ndim - 1]
        return _red(loss, reduction)
    return f


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Mirrors `torch.nn.functional.multilabel_soft_margin_loss`."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    shapes = [tuple(target.shape), tuple(input.shape)]
    if weight is not None:
        shapes.append(tuple(weight.shape))
    broadcast_shapes_checked(shapes)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    dtype = _float_result(input, target, weight)
    fn = _ml_soft_margin_k(reduction, weight is not None, dtype.np)
    ops = (input, target) if weight is None else (input, target, weight)
    return _run(fn, ops, _rname(reduction, "DivBackward0"))


@_kernel
def _ml_margin_k(reduction):
    def f(x, target):
        t = target.astype(jnp.int32)
        c = x.shape[-1]
        valid = jnp.cumprod(t != -1, axis=-1).astype(bool)       # targets before the first -1
        tc = jnp.where(valid, t, 0)
        is_target = jnp.any((tc[..., :, None] == jnp.arange(c)) & valid[..., :, None], axis=-2)
        xt = jnp.take_along_axis(x, tc, axis=-1)                 # x[target_j]
        z = 1 - xt[..., :, None] + x[..., None, :]               # [..., j, i]
        m = valid[..., :, None] & ~is_target[..., None, :]
        loss = jnp.sum(jnp.where(m, jnp.maximum(z, 0), 0), axis=(-2, -1)) / c
        return _red(loss, reduction)
    return f


@_autocast_op("multilabel_margin_loss")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mirrors `torch.nn.functional.multilabel_margin_loss`."""
    reduction = _reduction(size_average, reduce, reduction)
    nd = input.dim()
    if not ((nd <= 1 and input.numel() != 0) or (nd == 2 and input.shape[1] != 0)):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {_dims(input.shape)}")
    if nd <= 1:
        dim = input.shape[0] if nd == 1 else 1
        if not (target.dim() <= 1 and target.numel() == dim):
            raise RuntimeError(f"inconsistent target size: {_dims(target.shape)} for input of "
                               f"size: {_dims(input.shape)}")
    else:
        if not (target.dim() == 2 and tuple(target.shape) == tuple(input.shape)):
            raise RuntimeError(f"inconsistent target size: {_dims(target.shape)} for input of "
                               f"size: {_dims(input.shape)}")
    if target.dtype != _dt.int64:
        raise RuntimeError(f"expected scalar type Long but found {_dname(target.dtype)}")
    c = input.shape[-1] if nd else 1
    tv = _np(target)
    if ((tv < -1) | (tv >= c)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    x, t = input, target
    if nd == 0:
        x, t = input.reshape(1), target.reshape(1)
    fn = _ml_margin_k(reduction)
    return _run(fn, (x, t), "MultilabelMarginLossBackward0")


@_kernel
def _multi_margin_k(reduction, p, margin, weighted):
    def f(x, target, w=None):
        t = target.astype(jnp.int32)
        c = x.shape[-1]
        xt = jnp.take_along_axis(x, t[..., None], axis=-1)
        z = jnp.maximum(margin - xt + x, 0)
        if p == 2:
            z = z * z
        if weighted:
            z = z * w[t][..., None].astype(x.dtype)
        z = jnp.where(jnp.arange(c) == t[..., None], 0, z)
        loss = jnp.sum(z, axis=-1) / c
        return _red(loss, reduction)
    return f


@_autocast_op("multi_margin_loss")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Mirrors `torch.nn.functional.multi_margin_loss`."""
    reduction = _reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    nd = input.dim()
    if not ((nd <= 1 and input.numel() != 0) or (nd == 2 and input.shape[1] != 0)):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {_dims(input.shape)}")
    nframe = 1 if nd <= 1 else input.shape[0]
    c = 1 if nd == 0 else input.shape[-1]
    if not (target.dim() <= 1 and target.numel() == nframe):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{nframe}], but got {_dims(target.shape)}. Input has shape "
                           f"{_dims(input.shape)}.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got "
                           f"{_dims(weight.shape)}")
    if str(target.dtype) != "torch.int64":
        raise RuntimeError(f"expected scalar type Long but found {_dname(target.dtype)}")
    tv = _np(target)
    if ((tv < 0) | (tv >= c)).any():
        raise RuntimeError("target out of range")
    x, t = input, target
    if nd == 0:
        x = input.reshape(1)
    if nd <= 1:
        t = target.reshape(())
    fn = _multi_margin_k(reduction, int(p), float(margin), weight is not None)
    ops = (x, t) if weight is None else (x, t, weight)
    return _run(fn, ops, "MultiMarginLossBackward0")


@_kernel
def _hinge_k(reduction, margin, dtype):
    def f(x, y):
        x = x.astype(dtype)
        mc = jnp.maximum(margin - x, 0)
        out = jnp.where(y != 1, mc, 0) + jnp.where(y != -1, x, 0)
        return _red(out, reduction)
    return f


@_autocast_op("hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """Mirrors `torch.nn.functional.hinge_embedding_loss`."""
    reduction = _reduction(size_average, reduce, reduction)
    # PyTorch's first broadcast is where(target != 1, margin - input, 0): target comes first
    broadcast_shapes_checked([tuple(target.shape), tuple(input.shape)])
    fn = _hinge_k(reduction, float(margin), _float_result(input, target).np)
    # the target only selects (target != 1...): PyTorch's graph gives it no gradient
    return _run(fn, (input, target.detach()), _rname(reduction, "AddBackward0"))


@_kernel
def _cosine_k(reduction, margin, dim, dtype):
    def f(a, b, y):
        a = a.astype(dtype)
        b = b.astype(dtype)
        eps = 1e-12
        prod = jnp.sum(a * b, axis=dim)
        m1 = jnp.sum(a * a, axis=dim) + eps
        m2 = jnp.sum(b * b, axis=dim) + eps
        cos = prod / jnp.sqrt(m1 * m2)
        pos = 1 - cos
        neg = jnp.maximum(cos - margin, 0)
        out = jnp.where(y == 1, pos, 0) + jnp.where(y == -1, neg, 0)
        return _red(out, reduction)
    return f


@_autocast_op("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """Mirrors `torch.nn.functional.cosine_embedding_loss`."""
    reduction = _reduction(size_average, reduce, reduction)
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1:
        if not (input1.dim() == 2 and input2.dim() == 2):
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs "
                               f"with sizes {_dims(input1.shape)} and {_dims(input2.shape)}.")
    elif not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {_dims(input1.shape)} and {_dims(input2.shape)}.")
    s = broadcast_shapes_checked([tuple(input1.shape), tuple(input2.shape)])
    broadcast_shapes_checked([tuple(target.shape), s[:td]])
    fn = _cosine_k(reduction, float(margin), td, _float_result(input1, input2).np)
    # the target only selects (target == 1...): PyTorch's graph gives it no gradient
    return _run(fn, (input1, input2, target.detach()), _rname(reduction, "AddBackward0"))


@_kernel
def _ranking_k(reduction, margin, dtype):
    def f(a, b, y):
        a = a.astype(dtype)
        b = b.astype(dtype)
        y = y.astype(dtype)
        return _red(jnp.maximum(-y * (a - b) + margin, 0), reduction)
    return f


@_autocast_op("margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """Mirrors `torch.nn.functional.margin_ranking_loss`."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    broadcast_shapes_checked([tuple(input1.shape), tuple(input2.shape), tuple(target.shape)])
    fn = _ranking_k(reduction, float(margin), _float_result(input1, input2, target).np)
    return _run(fn, (input1, input2, target), _rname(reduction, "ClampMinBackward0"))


def _pdist(x1, x2, p, eps, dtype=None):
    """torch.pairwise_distance: the p-norm of x1 - x2 + eps over the last dim (integers
    subtract in their own type, wrapping as PyTorch's do, before the float promotion)."""
    d = x1 - x2
    if dtype is not None:
        d = d.astype(dtype)
    d = d + eps
    if d.ndim == 0:
        d = d[None]
    ad = _abs(d)
    if p == 2:
        s = jnp.sum(ad * ad if jnp.iscomplexobj(d) else d * d, axis=-1)
        safe = jnp.where(s > 0, s, 1)
        return jnp.where(s > 0, jnp.sqrt(safe), 0)
    if p == math.inf:
        return jnp.max(ad, axis=-1)
    if p == 1:
        return jnp.sum(ad, axis=-1)
    if p == 0:
        return jnp.sum((d != 0).astype(d.dtype), axis=-1)
    s = jnp.sum(ad ** p, axis=-1)
    safe = jnp.where(s > 0, s, 1)
    return jnp.where(s > 0, safe ** (1.0 / p), 0)


@_kernel
def _triplet_k(reduction, margin, p, eps, swap, dtype=None):
    def f(a, pos, neg):
        dp = _pdist(a, pos, p, eps, dtype)
        dn = _pdist(a, neg, p, eps, dtype)
        if swap:
            dn = jnp.minimum(dn, _pdist(pos, neg, p, eps, dtype))
        return _red(jnp.maximum(margin + dp - dn, 0), reduction)
    return f


def _triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {p}D, "
                           f"and negative {n}D inputs")


@_autocast_op("triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """Mirrors `torch.nn.functional.triplet_margin_loss`."""
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    broadcast_shapes_checked([tuple(anchor.shape), tuple(positive.shape),
                              tuple(negative.shape)])
    fn = _triplet_k(reduction, float(margin), float(p), float(eps), bool(swap),
                    _float_result(anchor, positive, negative).np)
    return _run(fn, (anchor, positive, negative), _rname(reduction, "ClampMinBackward0"))


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """Mirrors `torch.nn.functional.triplet_margin_with_distance_loss`."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    if distance_function is None:
        broadcast_shapes_checked([tuple(anchor.shape), tuple(positive.shape),
                                  tuple(negative.shape)])
        fn = _triplet_k(reduction, float(margin), 2.0, 1e-6, bool(swap),
                        _float_result(anchor, positive, negative).np)
        return _run(fn, (anchor, positive, negative), _rname(reduction, "ClampMinBackward0"))
    import torchlike
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_swap = distance_function(positive, negative)
        dist_neg = torchlike.minimum(dist_neg, dist_swap)
    loss = torchlike.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return torchlike.sum(loss)
    if reduction == "mean":
        return torchlike.mean(loss)
    return loss


# ---- likelihood losses ------------------------------------------------------------------------

@_kernel
def _poisson_k(reduction, log_input, full, eps, dtype):
    def f(x, t):
        x = x.astype(dtype)
        t = t.astype(dtype)
        if log_input:
            loss = jnp.exp(x) - t * x
        else:
            loss = x - t * jnp.log(x + eps)
        if full:
            big = t > 1
            ts = jnp.where(big, t, 2)
            stirling = ts * jnp.log(ts) - ts + 0.5 * jnp.log(2 * math.pi * ts)
            loss = loss + jnp.where(big, stirling, 0)
        return _red(loss, reduction)
    return f


@_autocast_op("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Mirrors `torch.nn.functional.poisson_nll_loss`."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not a valid value for reduction")
    # PyTorch's first broadcast is target * input (or target * log(input + eps))
    broadcast_shapes_checked([tuple(target.shape), tuple(input.shape)])
    fn = _poisson_k(reduction, bool(log_input), bool(full), float(eps),
                    _float_result(input, target).np)
    return _run(fn, (input, target),
                _rname(reduction, "AddBackward0" if full else "SubBackward0"))


@_kernel
def _gaussian_k(reduction, full, eps, unsqueeze, dtype):
    def f(x, t, v):
        x = x.astype(dtype)
        t = t.astype(dtype)
        v = v.astype(dtype)
        if unsqueeze:
            v = v[..., None]
        # PyTorch clamps a clone of var under no_grad: the gradient passes straight through
        v = v + jax.lax.stop_gradient(jnp.maximum(v, eps) - v)
        loss = 0.5 * (jnp.log(v) + (x - t) ** 2 / v)
        if full:
            loss = loss + 0.5 * math.log(2 * math.pi)
        return _red(loss, reduction)
    return f


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Mirrors `torch.nn.functional.gaussian_nll_loss` (var: a tensor or a float)."""
    import torchlike
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = torchlike.full(tuple(input.shape), var, dtype=input.dtype)
    elif not isinstance(var, Tensor):
        raise TypeError(f"any() received an invalid combination of arguments - got "
                        f"({type(var).__name__}), but expected one of:\n"
                        f" * (Tensor input, *, Tensor out = None)\n"
                        f" * (Tensor input, tuple of ints dim = None, bool keepdim = False, *, "
                        f"Tensor out = None)\n"
                        f" * (Tensor input, int dim, bool keepdim = False, *, Tensor out = None)"
                        f"\n")
    elif (_np(var) < 0).any():
        raise ValueError("var has negative entry/entries")
    unsqueeze = False
    isz, vsz = tuple(input.shape), tuple(var.shape)
    if vsz != isz:
        if isz[:-1] == vsz:
            unsqueeze = True
        elif input.dim() == var.dim() and sum(y for x, y in zip(isz, vsz) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    broadcast_shapes_checked([isz, tuple(target.shape), vsz + ((1,) if unsqueeze else ())])
    fn = _gaussian_k(reduction, bool(full), float(eps), unsqueeze,
                     _float_result(input, target, var).np)
    return _run(fn, (input, target, var),
                _rname(reduction, "AddBackward0" if full else "MulBackward0"))


# ---- CTC --------------------------------------------------------------------------------------

def _lse3(a, b, c, neg):
    """log(exp(a) + exp(b) + exp(c)) with zero (not NaN) gradients where all are -inf."""
    m = jnp.maximum(jnp.maximum(a, b), c)
    ok = jnp.isfinite(m)
    ms = jnp.where(ok, m, 0)
    s = jnp.exp(a - ms) + jnp.exp(b - ms) + jnp.exp(c - ms)
    return jnp.where(ok, ms + jnp.log(jnp.where(ok, s, 1)), neg)


@_kernel
def _ctc_k(reduction, blank, zero_infinity, batched, max_s):
    def one(lp, tgt, il, tl):
        # lp: (T, C) log-probs; tgt: (S,) padded; il, tl: lengths
        T = lp.shape[0]
        L = 2 * max_s + 1
        s_idx = jnp.arange(L)
        lab = jnp.where(s_idx % 2 == 1, tgt[jnp.clip((s_idx - 1) // 2, 0, max(max_s - 1, 0))]
                        if max_s > 0 else blank, blank).astype(jnp.int32)
        lab_m2 = jnp.concatenate([jnp.full((2,), -1, jnp.int32), lab[:-2]])[:L]
        allow_skip = (s_idx % 2 == 1) & (lab != lab_m2) & (s_idx >= 2)
        valid_s = s_idx < 2 * tl + 1
        neg = jnp.array(-jnp.inf, lp.dtype)
        e = lp[:, lab]                                                       # (T, L)
        a0 = jnp.where((s_idx < 2) & valid_s, e[0], neg)

        def step(a, xs):
            et, t = xs
            a1 = jnp.concatenate([jnp.full((1,), neg), a[:-1]])
            a2 = jnp.concatenate([jnp.full((2,), neg), a[:-2]])[:L]
            a2 = jnp.where(allow_skip, a2, neg)
            new = _lse3(a, a1, a2, neg) + et
            new = jnp.where(valid_s, new, neg)
            new = jnp.where(t < il, new, a)
            return new, None

        a, _ = jax.lax.scan(step, a0, (e[1:], jnp.arange(1, T)))
        end1 = a[jnp.clip(2 * tl, 0, L - 1)]
        end2 = jnp.where(tl > 0, a[jnp.clip(2 * tl - 1, 0, L - 1)], neg)
        ll = _lse3(end1, end2, neg, neg)
        return -ll

    def plain(lp, tgt, il, tl):
        return jax.vmap(one, in_axes=(1, 0, 0, 0))(lp, tgt, il, tl)

    @jax.custom_vjp
    def per_sample(lp, tgt, il, tl):
        return plain(lp, tgt, il, tl)

    def ps_fwd(lp, tgt, il, tl):
        out, pull = jax.vjp(lambda a: plain(a, tgt, il, tl), lp)
        return out, (pull, out, il, tgt, tl)

    def ps_bwd(res, g):
        pull, out, il, tgt, tl = res
        (glp,) = pull(g)
        if not zero_infinity:  # PyTorch: NaN gradients over the frames of an infeasible sample
            bad = jnp.isinf(out)[None, :, None] & (jnp.arange(glp.shape[0])[:, None, None]
                                                   < il[None, :, None])
            glp = jnp.where(bad, jnp.nan, glp)
        z = lambda a: np.zeros(a.shape, jax.dtypes.float0)  # noqa: E731
        return glp, z(tgt), z(il), z(tl)

    per_sample.defvjp(ps_fwd, ps_bwd)

    def f(lp, tgt, il, tl):
        if not batched:
            lp = lp[:, None]
            tgt = tgt[None]
            il = il[None]
            tl = tl[None]
        losses = per_sample(lp, tgt, il, tl)
        if zero_infinity:
            losses = jnp.where(jnp.isinf(losses), 0, losses)
        if reduction == "mean":
            out = jnp.mean(losses / jnp.maximum(tl, 1).astype(lp.dtype))
        elif reduction == "sum":
            out = jnp.sum(losses)
        else:
            out = losses
        return out if batched or reduction != "none" else out[0]
    return f


@_autocast_op("ctc_loss")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Mirrors `torch.nn.functional.ctc_loss` (padded (N, S) or concatenated targets)."""
    import torchlike
    reduction = _get_enum(reduction)
    batched = log_probs.dim() == 3
    n = log_probs.shape[1] if batched else 1

    def lengths(x):
        if isinstance(x, Tensor):
            return [int(v) for v in _np(x).reshape(-1)]
        return [int(v) for v in x]
    il = lengths(input_lengths)
    tl = lengths(target_lengths)
    tv = _np(targets).astype(np.int64)
    if batched:
        if targets.dim() == 1:  # concatenated targets
            padded = np.zeros((n, max(tl) if tl else 0), np.int64)
            off = 0
            for i, L in enumerate(tl):
                padded[i, :L] = tv[off:off + L]
                off += L
            tv = padded
    else:
        tv = tv.reshape(1, -1)
    max_s = int(max(tl)) if tl else 0
    tv = tv[:, :max_s] if tv.shape[-1] >= max_s else np.pad(
        tv, ((0, 0), (0, max_s - tv.shape[-1])))
    tgt = torchlike.tensor(tv if batched else tv[0])
    ilt = torchlike.tensor(np.asarray(il if batched else il[0], np.int64))
    tlt = torchlike.tensor(np.asarray(tl if batched else tl[0], np.int64))
    fn = _ctc_k(reduction, int(blank), bool(zero_infinity), batched, max_s)
    return _run(fn, (log_probs, tgt, ilt, tlt), _rname(reduction, "CtcLossBackward0")
                if reduction != "mean" else "MeanBackward0")
