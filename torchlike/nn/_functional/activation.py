"""torch.nn.functional: activations.

Each pointwise activation is one op-table row (a pure JAX impl: one jitted dispatch, gradient
from its vjp). The impls are written so their vjp equals PyTorch's backward formula, including
at the branch points (e.g. hardtanh's gradient is 0 at the bounds, hardswish's is x/3+0.5 there)
and without NaNs from the branch not taken (`where(cond, safe, x)` before exp/log)."""
import math
import warnings

import jax
import numpy as np
import jax.numpy as jnp

from ... import _ops  # noqa: F401  (the op table is loaded before nn)
from ..._core.tensor import Tensor
from ..._ops import registry as _reg
from ...autograd import names as _names

__all__ = [
    "threshold", "threshold_", "relu", "relu_", "hardtanh", "hardtanh_", "relu6", "elu", "elu_",
    "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "prelu", "rrelu", "rrelu_",
    "glu", "gelu", "logsigmoid", "hardshrink", "tanhshrink", "softsign", "softplus", "softmin",
    "softmax", "gumbel_softmax", "log_softmax", "softshrink", "tanh", "sigmoid", "hardsigmoid",
    "silu", "mish", "hardswish",
]

_SHORT = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}


def _float_only(kernel):
    """PyTorch's `"<kernel>" not implemented for 'Long'` on integer/bool inputs."""
    def check(d, *rest):
        if d.category < 2:
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_SHORT.get(str(d).replace('torch.', ''), str(d))}'")
    return check


def _row(name, node=None, *, kernel=None, scalars=(), tensors=None, inplace=True,
         pointwise=True, promote="default"):
    """Register an nn-private op-table row (no torchlike.X function, no Tensor method)."""
    def register(impl):
        rname = "_nn_" + name
        _reg.op(rname, pointwise=pointwise, promote=promote, tensors=tensors, scalars=scalars,
                method=False, function=False, inplace=False, out=False,
                check=_float_only(kernel) if kernel else None, family="nn")(impl)
        _names._NAMES[rname] = node or ("".join(p.capitalize() for p in name.split("_"))
                                        + "Backward0")
        return _reg.OPS[rname]
    return register


def _call(row, args, inplace=False):
    if inplace:
        return _reg.call_inplace(row, args)
    return _reg.call(row, args)


def _z(x):
    return jnp.zeros((), x.dtype)


# ---- rows -------------------------------------------------------------------------------------

@_row("threshold", scalars=("threshold", "value"))
def _threshold(input, threshold, value):
    return jnp.where(input <= threshold, jnp.asarray(value).astype(input.dtype), input)


@_row("hardtanh", scalars=("min_val", "max_val"))
def _hardtanh(input, min_val, max_val):
    lo = jnp.asarray(min_val).astype(input.dtype)
    hi = jnp.asarray(max_val).astype(input.dtype)
    return jnp.where(input <= lo, lo, jnp.where(input >= hi, hi, input))


@_row("elu", kernel="elu_cpu", scalars=("alpha", "scale", "input_scale", "grad_scale"))
def _elu(input, alpha, scale, input_scale, grad_scale):
    # `grad_scale` is the input scale PyTorch's backward uses (CELU's is 1/float(alpha))
    pos = input > 0
    neg = jnp.where(pos, _z(input), input)
    sg = jax.lax.stop_gradient
    g = jnp.expm1(neg * grad_scale) * (alpha * scale)
    v = sg(jnp.expm1(neg * input_scale) * (alpha * scale)) + (g - sg(g))
    return jnp.where(pos, input * scale, v)


@_row("leaky_relu", kernel="leaky_relu_cpu", scalars=("negative_slope",))
def _leaky_relu(input, negative_slope):
    return jnp.where(input > 0, input, input * negative_slope)


@_row("gelu", kernel="GeluKernelImpl")
def _gelu(input, approximate):
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        return 0.5 * input * (1 + jnp.tanh(k * (input + 0.044715 * input * input * input)))
    return input * 0.5 * (1 + jax.lax.erf(input * (1 / math.sqrt(2.0))))


@_row("log_sigmoid", "LogSigmoidBackward0", kernel="log_sigmoid_cpu")
def _logsigmoid(input):
    return -jnp.logaddexp(-input, _z(input))


@_row("hardshrink", kernel="hardshrink_cpu", scalars=("lambd",))
def _hardshrink(input, lambd):
    return jnp.where((input >= -lambd) & (input <= lambd), _z(input), input)


@_row("softshrink", kernel="softshrink_cpu", scalars=("lambd",))
def _softshrink(input, lambd):
    return jnp.where(input > lambd, input - lambd,
                     jnp.where(input < -lambd, input + lambd, _z(input)))


@_row("softplus", kernel="softplus_cpu", scalars=("beta", "threshold"))
def _softplus(input, beta, threshold):
    xb = input * beta
    lin = xb > threshold
    return jnp.where(lin, input, jnp.log1p(jnp.exp(jnp.where(lin, _z(input), xb))) / beta)


@_row("hardsigmoid", kernel="hardsigmoid_cpu")
def _hardsigmoid(input):
    return jnp.where(input <= -3, _z(input),
                     jnp.where(input >= 3, jnp.ones((), input.dtype), _sixth(input) + 0.5))


def _sixth(x):
    # x / 6 with PyTorch's backward slope float32(1/6) (its kernel's constant), for any dtype
    c = jnp.asarray(float(np.float32(1 / 6)), x.dtype)
    return jax.lax.stop_gradient(x / 6 - x * c) + x * c


@_row("hardswish", kernel="hardswish_cpu")
def _hardswish(input):
    return jnp.where(input <= -3, _z(input),
                     jnp.where(input >= 3, input, input * (input + 3) / 6))


@_row("silu", kernel="silu_cpu")
def _silu(input):
    return input * jax.nn.sigmoid(input)


@_row("mish", kernel="mish_cpu")
def _mish(input):
    return input * jnp.tanh(jnp.logaddexp(input, _z(input)))


@_row("tanhshrink", promote="int_to_float")
def _tanhshrink(input):
    return input - jnp.tanh(input)


@_row("softsign", promote="int_to_float")
def _softsign(input):
    return input / (jnp.abs(input) + 1)


def _prelu_check(d, w):
    if d.category < 2:
        raise NotImplementedError(f"\"prelu_cpu\" not implemented for "
                                  f"'{_SHORT.get(str(d).replace('torch.', ''), str(d))}'")


@_row("prelu", "PreluKernelBackward0", tensors=("input", "weight"), pointwise=False)
def _prelu(input, weight):
    n = weight.size
    if n != 1:
        channels = input.shape[1] if input.ndim >= 2 else 1
        if n != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {n} and channel size = {channels}.")
        w = weight.reshape((n,) + (1,) * (input.ndim - 2))
    else:
        w = weight.reshape(())
    return jnp.where(input > 0, input, w * input)


@_row("glu", pointwise=False, kernel="glu")
def _glu(input, dim):
    a, b = jnp.split(input, 2, axis=dim)
    return a * jax.nn.sigmoid(b)


# ---- functions --------------------------------------------------------------------------------

def _t(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def threshold(input, threshold, value, inplace=False):
    """Mirrors `F.threshold`."""
    _t("threshold", input)
    return _call(_threshold, (input, threshold, value), inplace)


def threshold_(input, threshold, value):
    """Mirrors `F.threshold_`."""
    return _call(_threshold, (input, threshold, value), True)


def relu(input, inplace=False):
    """Mirrors `F.relu`."""
    _t("relu", input)
    from ... import relu as _relu, relu_ as _relu_
    return _relu_(input) if inplace else _relu(input)


def relu_(input):
    """Mirrors `F.relu_`."""
    from ... import relu_ as _relu_
    return _relu_(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Mirrors `F.hardtanh`."""
    _t("hardtanh", input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype.category == 0:
        raise NotImplementedError("\"hardtanh_cpu\" not implemented for 'Bool'")
    return _call(_hardtanh, (input, min_val, max_val), inplace)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """Mirrors `F.hardtanh_`."""
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):
    """Mirrors `F.relu6`."""
    return hardtanh(input, 0.0, 6.0, inplace)


def elu(input, alpha=1.0, inplace=False):
    """Mirrors `F.elu`."""
    _t("elu", input)
    return _call(_elu, (input, alpha, 1.0, 1.0, 1.0), inplace)


def elu_(input, alpha=1.0):
    """Mirrors `F.elu_`."""
    return elu(input, alpha, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """Mirrors `F.selu`."""
    _t("selu", input)
    return _call(_elu, (input, _SELU_ALPHA, _SELU_SCALE, 1.0, 1.0), inplace)


def selu_(input):
    """Mirrors `F.selu_`."""
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    """Mirrors `F.celu`."""
    _t("celu", input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    import numpy as np
    return _call(_elu, (input, alpha, 1.0, 1.0 / alpha, 1.0 / float(np.float32(alpha))),
                 inplace)


def celu_(input, alpha=1.0):
    """Mirrors `F.celu_`."""
    return celu(input, alpha, True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """Mirrors `F.leaky_relu`."""
    _t("leaky_relu", input)
    return _call(_leaky_relu, (input, negative_slope), inplace)


def leaky_relu_(input, negative_slope=0.01):
    """Mirrors `F.leaky_relu_`."""
    return leaky_relu(input, negative_slope, True)


def prelu(input, weight):
    """Mirrors `F.prelu`."""
    _t("prelu", input)
    if input.dtype.category < 2:
        _prelu_check(input.dtype, None)
    if input.dim() == 0 and weight.numel() != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    return _call(_prelu, (input, weight))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Mirrors `F.rrelu`: in training each negative element gets a slope drawn from
    U(lower, upper); in eval the slope is (lower + upper) / 2."""
    _t("rrelu", input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if input.dtype.category < 2:
        raise NotImplementedError(f"\"leaky_relu_cpu\" not implemented for "
                                  f"'{_SHORT.get(str(input.dtype)[6:], str(input.dtype))}'")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    from ... import empty, float64, int64, no_grad, where
    with no_grad():
        # PyTorch draws one double uniform per element <= 0, in order: the k-th such
        # element takes the k-th draw, and the stream moves on by as many draws (their count
        # is read: one number)
        drawn = input <= 0
        count = int(drawn.sum())
        draws = empty((max(count, 1),), dtype=float64, device=input.device)
        if count:
            draws.uniform_(lower, upper)
        k = (drawn.reshape(-1).to(int64).cumsum(0) - 1).clamp_min(0)
        noise = where(drawn, draws[k].reshape(input.shape), 1.0).to(input.dtype)
    if inplace:
        return input.mul_(noise)
    return input * noise


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """Mirrors `F.rrelu_`."""
    return rrelu(input, lower, upper, training, True)


def glu(input, dim=-1):
    """Mirrors `F.glu`."""
    _t("glu", input)
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    nd = input.dim()
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}],"
                         f" but got {dim})")
    d = dim % nd
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    return _call(_glu, (input, d))


def gelu(input, approximate="none"):
    """Mirrors `F.gelu`."""
    _t("gelu", input)
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _call(_gelu, (input, approximate))


def logsigmoid(input):
    """Mirrors `F.logsigmoid`."""
    _t("log_sigmoid", input)
    return _call(_logsigmoid, (input,))


def hardshrink(input, lambd=0.5):
    """Mirrors `F.hardshrink`."""
    _t("hardshrink", input)
    return _call(_hardshrink, (input, lambd))


def tanhshrink(input):
    """Mirrors `F.tanhshrink`."""
    return _call(_tanhshrink, (input,))


def softsign(input):
    """Mirrors `F.softsign`."""
    return _call(_softsign, (input,))


def softplus(input, beta=1.0, threshold=20.0):
    """Mirrors `F.softplus`."""
    _t("softplus", input)
    return _call(_softplus, (input, beta, threshold))


def softshrink(input, lambd=0.5):
    """Mirrors `F.softshrink`."""
    _t("softshrink", input)
    if input.dtype.is_floating_point and not 0 <= lambd <= float(_finfo_max(input.dtype)):
        raise RuntimeError(f"lambda must be in range [0, {_finfo_str(input.dtype)}] for input "
                           f"dtype {_SHORT_F.get(str(input.dtype)[6:])}, but found "
                           f"{_fmt_num(lambd)}")
    return _call(_softshrink, (input, lambd))


_SHORT_F = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16"}


def _finfo_max(d):
    import numpy as np
    return np.finfo(jnp.dtype(d.np)).max


def _finfo_str(d):
    # C++ ostream default formatting (%g with 6 significant digits)
    return "%g" % float(_finfo_max(d))


def _fmt_num(v):
    return "%g" % v


def hardsigmoid(input, inplace=False):
    """Mirrors `F.hardsigmoid`."""
    _t("hardsigmoid", input)
    return _call(_hardsigmoid, (input,), inplace)


def hardswish(input, inplace=False):
    """Mirrors `F.hardswish`."""
    _t("hardswish", input)
    return _call(_hardswish, (input,), inplace)


def silu(input, inplace=False):
    """Mirrors `F.silu`."""
    _t("silu", input)
    return _call(_silu, (input,), inplace)


def mish(input, inplace=False):
    """Mirrors `F.mish`."""
    _t("mish", input)
    return _call(_mish, (input,), inplace)


def tanh(input):
    """Mirrors `F.tanh`."""
    return input.tanh()


def sigmoid(input):
    """Mirrors `F.sigmoid`."""
    return input.sigmoid()


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  f"include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Mirrors `F.softmax` (dim=None picks PyTorch's legacy implicit dim, with its warning)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """Mirrors `F.softmin`."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is None:
        return (-input).softmax(dim)
    return (-input).softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Mirrors `F.log_softmax`."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Mirrors `F.gumbel_softmax` (samples come from torchlike's RNG)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    from ... import empty_like, zeros_like
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft
