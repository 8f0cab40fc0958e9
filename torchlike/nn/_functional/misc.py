"""torch.nn.functional: linear, bilinear, pad, one_hot, normalize and the distances.

Each function is one op-table row (one dispatch, gradient from the impl's vjp); norms are
written so their gradient at a zero vector is 0, as PyTorch's norm backward masks it."""
import math

import jax
import jax.numpy as jnp
import numpy as np

from ..._core.tensor import Tensor
from ..._ops import registry as _reg
from ..._ops.reduction import opmath
from ...autograd import names as _names
from ...amp.dispatch import autocast_op as _autocast_op

__all__ = ["linear", "bilinear", "pad", "one_hot", "normalize", "cosine_similarity",
           "pairwise_distance", "pdist"]

_SHORT = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
          "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


_CNAMES = {"float64": "double", "float32": "float", "float16": "c10::Half",
           "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
           "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _cname(d):
    s = str(d).replace("torch.", "")
    return _CNAMES.get(s, s)


def _short(d):
    s = str(d).replace("torch.", "")
    return _SHORT.get(s, s)


def _row(name, node, *, tensors=None, scalars=(), promote="default", check=None, bucket=None,
         devices=None):
    def register(impl):
        rname = "_nn_" + name
        _reg.op(rname, promote=promote, tensors=tensors, scalars=scalars, method=False,
                function=False, inplace=False, out=False, check=check, family="nn",
                bucket=bucket, devices=devices)(impl)
        _names._NAMES[rname] = node
        return _reg.OPS[rname]
    return register


def _vnorm(x, p, axis, keepdims=False):
    """|x|_p over `axis` with PyTorch's gradient (0 where the norm is 0)."""
    # |x| with derivative sign(x) (0 at 0, as PyTorch's norm backward)
    a = jnp.abs(x) if jnp.iscomplexobj(x) else x * jax.lax.stop_gradient(jnp.sign(x))
    if p == 2:
        s = jnp.sum(x * x if not jnp.iscomplexobj(x) else a * a, axis=axis, keepdims=keepdims)
        nz = s > 0
        return jnp.where(nz, jnp.sqrt(jnp.where(nz, s, jnp.ones((), s.dtype))), 0)
    if p == math.inf:
        return jnp.max(a, axis=axis, keepdims=keepdims)
    if p == -math.inf:
        return jnp.min(a, axis=axis, keepdims=keepdims)
    if p == 0:
        return jnp.sum((a != 0).astype(a.dtype), axis=axis, keepdims=keepdims)
    if p == 1:
        return jnp.sum(a, axis=axis, keepdims=keepdims)
    z = a == 0
    s = jnp.sum(jnp.where(z, 0, jnp.where(z, 1, a) ** p), axis=axis, keepdims=keepdims)
    nz = s > 0
    return jnp.where(nz, jnp.where(nz, s, jnp.ones((), s.dtype)) ** (1.0 / p), 0)


# ---- linear / bilinear ------------------------------------------------------------------------

def _linear_check(input, weight, bias=None):
    # with a bias PyTorch runs addmm (bias checked against the weight first), without one mm
    if bias is None:
        if str(input) != str(weight):
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{_cname(input)} != {_cname(weight)}")
    elif str(bias) != str(weight):
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_short(bias)} and "
                           f"{_short(weight)}")
    elif str(input) != str(weight):
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_short(input)} and "
                           f"{_short(weight)}")


def _linear_devices(input, weight, bias):
    """PyTorch's linear runs addmm (bias, input, weight.t()) for a 2-D input, or a contiguous
    3-D one, with a bias; else matmul (mm), then an elementwise add of the bias."""
    if bias is not None and (input.ndim == 2 or input.ndim == 3 and input.is_contiguous()):
        return "wrapper_CUDA_addmm", {"bias": "self", "input": "mat1", "weight": "mat2"}
    return "wrapper_CUDA_mm", {"input": "self", "weight": "mat2"}


def _linear_node(a):
    """PyTorch's node for F.linear: addmm or mm for a 2-D input, else a view or add after them."""
    x, bias = a["input"], a.get("bias")
    if a["weight"].ndim == 1:
        return "MvBackward0" if x.ndim == 2 else "DotBackward0"
    if x.ndim == 1:
        return "SqueezeBackward4" if bias is None else "ViewBackward0"
    if x.ndim == 2:
        return "MmBackward0" if bias is None else "AddmmBackward0"
    if bias is None:
        return "UnsafeViewBackward0"
    return "ViewBackward0" if x.is_contiguous() else "AddBackward0"


@_row("linear", _linear_node, tensors=("input", "weight", "bias"), promote=None,
      check=_linear_check, bucket="leading", devices=_linear_devices)
def _linear(input, weight, bias):
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    if weight.ndim == 2:
        k = input.shape[-1]
        if k != weight.shape[1]:
            rows = int(np.prod(input.shape[:-1])) if input.ndim > 1 else 1
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
                               f"{weight.shape[1]}x{weight.shape[0]})")
        out = jnp.matmul(input, weight.T, preferred_element_type=None)
    else:
        if input.shape[-1] != weight.shape[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[-1]}] "
                               f"and src [{weight.shape[0]}] to have the same number of "
                               f"elements, but got {input.shape[-1]} and {weight.shape[0]} "
                               f"elements respectively")
        out = jnp.matmul(input, weight)
    if bias is not None:
        try:
            jnp.broadcast_shapes(bias.shape, out.shape)
            ok = jnp.broadcast_shapes(bias.shape, out.shape) == out.shape
        except ValueError:
            ok = False
        if not ok:
            _expand_error(bias.shape, out.shape)
        out = out + bias
    return out


def _expand_error(src, target):
    n = len(target)
    src_al = (1,) * (n - len(src)) + tuple(src)
    for i in range(n - 1, -1, -1):
        if src_al[i] != target[i] and src_al[i] != 1:
            raise RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the "
                               f"existing size ({src_al[i]}) at non-singleton dimension {i}.  "
                               f"Target sizes: {list(target)}.  Tensor sizes: {list(src)}")
    raise RuntimeError("bias cannot be broadcast to the output")


def linear(input, weight, bias=None):
    """Mirrors `F.linear`: input @ weight.T + bias."""
    for n, v in (("input", input), ("weight", weight)):
        if not isinstance(v, Tensor):
            pos = 1 if n == "input" else 2
            raise TypeError(f"linear(): argument '{n}' (position {pos}) must be Tensor, not "
                            f"{type(v).__name__}")
    return _reg.call(_linear, (input, weight, bias))


@_row("bilinear", "BilinearBackward0", tensors=("input1", "input2", "weight", "bias"))
def _bilinear(input1, input2, weight, bias):
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[-1] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[-1]} but expected {weight.shape[0]}")
    out = jnp.einsum("...i,oij,...j->...o", input1, weight, input2)
    if bias is not None:
        out = out + bias
    return out


def bilinear(input1, input2, weight, bias=None):
    """Mirrors `F.bilinear`: y = x1^T A x2 + b."""
    return _reg.call(_bilinear, (input1, input2, weight, bias))


# ---- pad --------------------------------------------------------------------------------------

@_row("pad", "ConstantPadNdBackward0", scalars=("value",))
def _pad_constant(input, pad, value):
    n = len(pad) // 2
    cfg = [(0, 0, 0)] * (input.ndim - n)
    for i in range(n):
        d = input.ndim - n + i
        lo, hi = pad[2 * (n - 1 - i)], pad[2 * (n - 1 - i) + 1]
        if input.shape[d] + lo + hi < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        cfg.append((lo, hi, 0))
    return jax.lax.pad(input, jnp.asarray(value).astype(input.dtype), cfg)


_JNP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}
_NODE = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0",
         "circular": "CircularPad{}DBackward0"}


def _pad_nonconst_impl(input, pad, mode):
    n = len(pad) // 2
    if mode == "replicate":  # out[j] = in[clamp(j - left, 0, L - 1)], negative pads included
        x = input
        for i in range(n):
            lo, hi = pad[2 * (n - 1 - i)], pad[2 * (n - 1 - i) + 1]
            d = input.ndim - n + i
            size = input.shape[d]
            idx = np.clip(np.arange(size + lo + hi) - lo, 0, size - 1)
            x = jnp.take(x, jnp.asarray(idx, np.int32), axis=d)
        return x
    x = input
    # negative pads crop first; then the positive pads are added with jnp.pad
    cfg = [(0, 0)] * (input.ndim - n)
    sl = [slice(None)] * (input.ndim - n)
    for i in range(n):
        lo, hi = pad[2 * (n - 1 - i)], pad[2 * (n - 1 - i) + 1]
        size = input.shape[input.ndim - n + i]
        sl.append(slice(max(-lo, 0), size - max(-hi, 0)))
        cfg.append((max(lo, 0), max(hi, 0)))
    x = x[tuple(sl)]
    if mode == "circular":
        for i in range(n):
            d = input.ndim - n + i
            lo, hi = cfg[d]
            size = x.shape[d]
            idx = np.arange(-lo, size + hi) % size
            x = jnp.take(x, jnp.asarray(idx), axis=d)
        return x
    return jnp.pad(x, cfg, mode=_JNP_MODE[mode])


for _m in ("reflect", "replicate", "circular"):
    for _n in (1, 2, 3):
        _row(f"pad_{_m}{_n}d", _NODE[_m].format(_n))(
            (lambda m: lambda input, pad: _pad_nonconst_impl(input, pad, m))(_m))


@_autocast_op("pad")
def pad(input, pad, mode="constant", value=None):
    """Mirrors `F.pad`: `pad` lists (left, right) pairs starting from the last dimension."""
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    ndim = input.dim()
    if len(pad) // 2 > ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{ndim}")
    if mode == "constant":
        return _reg.call(_reg.OPS["_nn_pad"], (input, pad, 0 if value is None else value))
    if mode not in _JNP_MODE:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    n = len(pad) // 2
    if ndim not in (n + 1, n + 2) or n > 3:
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    shape = tuple(input.shape)
    if mode == "circular":
        for i in range(n):
            size = shape[ndim - 1 - i]
            lo, hi = pad[2 * i], pad[2 * i + 1]
            if lo > size or hi > size:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if lo + hi + size < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
    else:
        if any(s == 0 for s in shape[ndim - n:]):
            raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly "
                               f"0 batch size and other non-zero dimensions for input, but got: "
                               f"{list(shape)}")
        if mode == "reflect":
            for i in range(n):
                size = shape[ndim - 1 - i]
                lo, hi = pad[2 * i], pad[2 * i + 1]
                if not (lo < size and hi < size):
                    raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less "
                                       f"than the corresponding input dimension, but got: "
                                       f"padding ({lo}, {hi}) at dimension {ndim - 1 - i} of "
                                       f"input {list(shape)}")
        names = "WHD"
        for i in range(n):
            size = shape[ndim - 1 - i]
            out = size + pad[2 * i] + pad[2 * i + 1]
            if out < 1:
                if n == 1:
                    raise RuntimeError(f"input (W: {size}) is too small. Calculated output W: "
                                       f"{out}")
                outs = [shape[ndim - 1 - j] + pad[2 * j] + pad[2 * j + 1] for j in range(n)]
                full = list(shape[:ndim - n]) + outs[::-1]
                bad = next(v for v in full if v < 0) if any(v < 0 for v in full) else out
                if bad < 0:
                    raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                                       f"{full}")
                ins = " x ".join(f"{names[j]}: {shape[ndim - 1 - j]}" for j in range(n))
                raise RuntimeError(f"input ({ins}) is too small. Calculated output "
                                   f"{names[i]}: {out}")
    return _reg.call(_reg.OPS[f"_nn_pad_{mode}{n}d"], (input, pad))


# ---- one_hot ----------------------------------------------------------------------------------

def one_hot(tensor, num_classes=-1):
    """Mirrors `F.one_hot`."""
    from ... import int64, zeros
    if not isinstance(tensor, Tensor):
        raise TypeError(f"one_hot(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if tensor.dtype != int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return zeros(tuple(tensor.shape) + (num_classes,), dtype=int64, device=tensor.device)
    a = np.asarray(tensor._value())
    if a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(a.max()) + 1
    elif a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _reg.call(_one_hot, (tensor, int(num_classes)))


@_row("one_hot", "OneHotBackward0", promote=None)
def _one_hot(tensor, num_classes):
    return (tensor[..., None] == jnp.arange(num_classes, dtype=tensor.dtype)).astype(
        tensor.dtype)


_one_hot.differentiable = False


# ---- normalize / distances --------------------------------------------------------------------

@_row("normalize", "DivBackward0", scalars=("eps",))
def _normalize(input, p, dim, eps):
    n = _vnorm(opmath(input), p, dim, keepdims=True).astype(input.dtype)
    return input / _clamp_min(n, eps)


def _clamp_min(n, eps):
    # clamp_min's gradient: passes where n >= eps, else 0 (PyTorch's clamp backward)
    eps = jnp.asarray(eps).astype(n.dtype)
    return jnp.where(n >= eps, n, eps)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """Mirrors `F.normalize`: input / max(||input||_p, eps) along `dim`."""
    if not input.dtype.is_floating_point and not input.dtype.is_complex:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_short(input.dtype)}")
    nd = max(input.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}],"
                         f" but got {dim})")
    d = dim % nd if input.dim() else None
    res = _reg.call(_normalize, (input, float(p), d, eps))
    if out is not None:
        out.copy_(res)
        return out
    return res


def _float_common(*ds):
    from ..._core import dtype as dt
    r = dt.promote_types(*ds) if len(ds) == 2 else ds[0]
    if not (r.is_floating_point or r.is_complex):
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_short(r)}")


@_row("cosine_similarity", "SumBackward1", tensors=("x1", "x2"), scalars=("eps",),
      check=_float_common)
def _cosine_similarity(x1, x2, dim, eps):
    shape = _broadcast(x1.shape, x2.shape)
    x1 = jnp.broadcast_to(x1, shape)
    x2 = jnp.broadcast_to(x2, shape)
    n1 = _clamp_norm(x1, dim, eps)
    n2 = _clamp_norm(x2, dim, eps)
    return jnp.sum((x1 / n1) * (x2 / n2), axis=dim)


def _clamp_norm(x, dim, eps):
    # PyTorch clamps the norm in place under no_grad: the gradient is the unclamped norm's
    n = _vnorm(x, 2, dim, keepdims=True)
    eps = jnp.asarray(eps).astype(n.dtype)
    return n + jax.lax.stop_gradient(jnp.maximum(n, eps) - n)


def _broadcast(a, b):
    return _reg.broadcast_shapes_checked((tuple(a), tuple(b)))


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Mirrors `F.cosine_similarity`."""
    nd = max(x1.dim(), x2.dim(), 1)
    _broadcast(x1.shape, x2.shape)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}],"
                         f" but got {dim})")
    d = dim % nd
    if max(x1.dim(), x2.dim()) == 0:
        return _reg.call(_cosine_similarity, (x1.reshape(1), x2.reshape(1), 0, eps))
    return _reg.call(_cosine_similarity, (x1, x2, d, eps))


@_row("pairwise_distance", "NormBackward1", tensors=("x1", "x2"), scalars=("eps",))
def _pairwise_distance(x1, x2, p, eps, keepdim):
    diff = x1 - x2 + eps
    if diff.ndim == 0:
        return _vnorm(diff.reshape(1), p, 0, keepdims=False).reshape((1,) if keepdim else ())
    return _vnorm(diff, p, diff.ndim - 1, keepdims=keepdim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """Mirrors `F.pairwise_distance`: ||x1 - x2 + eps||_p over the last dim."""
    _broadcast(x1.shape, x2.shape)
    if not any(t.dtype.is_floating_point or t.dtype.is_complex or str(t.dtype) == "torch.bool"
               for t in (x1, x2)):
        # x1 - x2 + eps: the integer difference (wrapping in its own type), then the default
        # float dtype, as in PyTorch
        from ..._core import dtype as _dt
        x1 = (x1 - x2).to(_dt.get_default_dtype())
        x2 = x1.new_zeros(())
    return _reg.call(_pairwise_distance, (x1, x2, float(p), eps, bool(keepdim)))


@_row("pdist", "PdistBackward0")
def _pdist(input, p):
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    if len(i) == 0:
        return jnp.zeros((0,), input.dtype)
    diff = input[jnp.asarray(i)] - input[jnp.asarray(j)]
    return _vnorm(diff, p, 1)


def pdist(input, p=2):
    """Mirrors `F.pdist`: the p-norm distance between each pair of rows (upper triangle)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return _reg.call(_pdist, (input, float(p)))
