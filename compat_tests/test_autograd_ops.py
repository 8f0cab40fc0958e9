"""Gradients of every differentiable op-table row: torchlike vs real torch (torch 2.13).

Each case builds its inputs from fixed NumPy arrays (float arrays become float32/float64 leaves
with requires_grad=True; integer/bool arrays stay plain), runs the op, back-propagates a fixed
non-trivial upstream gradient through every differentiable output, and compares: the outputs,
which outputs require grad, the node name and `len(next_functions)` of each output's grad_fn, and
every leaf's `.grad` (values, dtype, shape). Kinks and ties follow PyTorch's conventions.
"""
import numpy as np
import pytest

import torchlike
from torchlike._ops import registry
from torchlike._ops.views import VIEW_OPS
from harness import check

A = np.asarray


def R(shape, lo=-2.0, hi=2.0, seed=0):
    """Distinct, deterministic values in [lo, hi] (no ties, no exact zeros)."""
    n = int(np.prod(shape)) if shape else 1
    v = np.linspace(lo, hi, n + 2)[1:-1]
    v = v[np.random.RandomState(seed).permutation(n)]
    v = np.where(np.abs(v) < 1e-3, 0.0371, v)
    return v.reshape(shape).astype(np.float64)


def I(*v):
    return A(v, dtype=np.int64)


X = R((3, 4))                 # the common input
Y = R((3, 4), seed=1)
Z = R((3, 4), seed=2)
P = R((3, 4), 0.2, 1.8)       # positive
P2 = R((3, 4), 0.3, 2.5, 1)
U = R((3, 4), -0.9, 0.9)      # (-1, 1)
G1 = R((3, 4), 1.1, 3.0)      # > 1
V = R((4,), seed=3)
V3 = R((3,), seed=4)
M = R((3, 3), seed=5)
SPD = M @ M.T + 3 * np.eye(3)
TIES = A([[1.0, 3.0, 3.0, -1.0], [0.0, 0.0, 2.0, 2.0], [-1.0, 5.0, 5.0, 5.0]])
KINK = A([[0.0, -1.0, 2.0, 0.0], [1.5, 0.0, -0.5, 3.0], [-2.0, 0.0, 1.0, -0.0]])
ZEROS = A([[1.0, 0.0, 2.0, 3.0], [0.5, 2.0, 0.0, 0.0], [1.5, -1.0, 2.0, 0.5]])
ONEZERO = A([[1.0, 0.0, 2.0, 3.0], [0.5, 2.0, 1.5, 4.0], [1.5, -1.0, 2.0, 0.5]])


class C:
    """One case: `fn(torch, *inputs)` with inputs from `arrays`; `rows` are the op-table rows it
    exercises (for the coverage check)."""

    def __init__(self, rows, fn, *arrays, id=None, rtol=None, atol=None, dtypes=None,
                 nodes=True):
        self.rows = (rows,) if isinstance(rows, str) else tuple(rows)
        self.nodes = nodes  # True: name and edge count; "name": the name only (a composite in
        # PyTorch: its last node's name matches, not its graph); False: not compared
        self.fn, self.arrays = fn, arrays
        self.id = id
        self.rtol, self.atol = rtol, atol
        self.dtypes = dtypes


CASES = []


def case(*a, **k):
    CASES.append(C(*a, **k))


# ---- pointwise unary ----------------------------------------------------------------------------
for _n in ["sin", "cos", "atan", "sinh", "cosh", "tanh", "asinh", "exp", "exp2", "expm1",
           "sigmoid", "erf", "erfc", "sinc", "deg2rad", "rad2deg", "ceil", "floor", "trunc", "frac",
           "square", "sign", "sgn", "positive", "relu", "neg", "abs", "round", "angle", "i0",
           "conj_physical", "nan_to_num"]:
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x), X)
for _n in ["log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "lgamma", "digamma"]:
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x), P)
for _n in ["asin", "acos", "atanh", "erfinv"]:
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x), U)
case("tan", lambda t, x: t.tan(x), U)
case("acosh", lambda t, x: t.acosh(x), G1)
case("logit", lambda t, x: t.logit(x), R((3, 4), 0.05, 0.95))
case("logit", lambda t, x: t.logit(x, 0.1), R((3, 4), 0.01, 0.99), id="logit_eps")
# kinks at 0
for _n in ["relu", "abs", "sign", "sgn", "sqrt", "frac", "round", "floor"]:
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x), KINK if _n not in ("sqrt",) else ZEROS.clip(0),
         id=_n + "_kink")
case("round", lambda t, x: t.round(x, decimals=1), X, id="round_decimals")
case("nan_to_num", lambda t, x: t.nan_to_num(t.log(x), nan=0.5, posinf=2.0, neginf=-3.0),
     A([[1.0, 0.0, -1.0, 2.0]]), id="nan_to_num_inf")
case("conj", lambda t, x: t.conj(x) * 2, X)
case("polygamma", lambda t, x: t.polygamma(1, x), P)
case("_polygamma_method", lambda t, x: x.polygamma(2), P)
case("mvlgamma", lambda t, x: t.mvlgamma(x, 2), G1)
case("threshold", lambda t, x: t.threshold(x, 0.5, -1.0), X)
case("threshold", lambda t, x: t.threshold(x, 1.0, 1.0), KINK, id="threshold_tie")
case(["isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "signbit", "logical_not"],
     lambda t, x: (t.isnan(x), t.isinf(x), t.isfinite(x), t.isposinf(x), t.isneginf(x),
                   t.isreal(x), t.signbit(x), t.logical_not(x)), X, id="bool_unary")
case("frexp", lambda t, x: t.frexp(x), X)
case("bitwise_not", lambda t, x: t.bitwise_not(x), I(1, 2, 3))

# ---- pointwise binary / ternary -----------------------------------------------------------------
for _n in ["add", "sub", "mul", "div", "true_divide", "atan2", "hypot", "copysign", "maximum",
           "minimum", "fmax", "fmin", "logaddexp", "logaddexp2", "remainder", "fmod", "xlogy",
           "floor_divide"]:
    case(_n, lambda t, x, y, _n=_n: getattr(t, _n)(x, y), X, P2[0] * np.sign(V))
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, 1.5), X, id=_n + "_scalar")
case("add", lambda t, x, y: t.add(x, y, alpha=2.5), X, Y, id="add_alpha")
case("sub", lambda t, x, y: t.sub(x, y, alpha=-0.5), X, Y, id="sub_alpha")
case("rsub", lambda t, x, y: t.rsub(x, y), X, Y)
case("rsub", lambda t, x: 2 - x, X, id="rsub_scalar")
case("div", lambda t, x, y: t.div(x, y, rounding_mode="floor"), X, P2, id="div_floor")
case("div", lambda t, x, y: t.div(x, y, rounding_mode="trunc"), X, P2, id="div_trunc")
case("mul", lambda t, x: x * x, X, id="mul_same")
case("div", lambda t, x: 2.0 / x, P, id="rdiv")
case(["maximum", "minimum"], lambda t, x, y: (t.maximum(x, y), t.minimum(x, y)),
     TIES, TIES.T[::-1].reshape(3, 4).copy(), id="maxmin_ties")
case(["fmax", "fmin"], lambda t, x, y: (t.fmax(x, y), t.fmin(x, y)),
     TIES, TIES.T[::-1].reshape(3, 4).copy(), id="fmaxfmin_ties")
case("xlogy", lambda t, x, y: t.xlogy(x, y), ZEROS, P, id="xlogy_zero")
case("pow", lambda t, x: x.pow(2), X, id="pow_2")
case("pow", lambda t, x: x ** 0.5, ZEROS.clip(0), id="pow_half_zero")
case("pow", lambda t, x: x.pow(0), X, id="pow_0")
case("pow", lambda t, x: x.pow(3), KINK, id="pow_3_kink")
case("pow", lambda t, x, y: x ** y, P, X, id="pow_tensor")
case("pow", lambda t, x, y: x ** y, ZEROS.clip(0), ONEZERO.clip(0), id="pow_zero_base")
case("pow", lambda t, y: 2.0 ** y, X, id="pow_rscalar")
case("pow", lambda t, y: t.pow(0.0, y), ONEZERO.clip(0), id="pow_zero_rscalar")
case("float_power", lambda t, x, y: t.float_power(x, y), P, X)
case("float_power", lambda t, x: t.float_power(x, 2), X, id="float_power_scalar")
case("lerp", lambda t, x, y, w: t.lerp(x, y, w), X, Y, U)
case("lerp", lambda t, x, y: t.lerp(x, y, 0.3), X, Y, id="lerp_scalar")
case("addcmul", lambda t, x, y, z: t.addcmul(x, y, z, value=0.5), X, Y, Z)
case("addcdiv", lambda t, x, y, z: t.addcdiv(x, y, z, value=-2), X, Y, P)
case(("ldexp", "_ldexp_int_exponent"), lambda t, x, y: t.ldexp(x, y), X, I(1, -1, 2, 0))
case("ldexp", lambda t, x, y: t.ldexp(x, y), X, R((3, 4), -2, 2, seed=7), id="ldexp_float")
case("igamma", lambda t, x, y: t.igamma(x, y), P, P2)
case("igammac", lambda t, x, y: t.igammac(x, y), P, P2)
case("heaviside", lambda t, x, y: t.heaviside(x, y), X, Y)
case("nextafter", lambda t, x, y: t.nextafter(x, y), X, Y)
case("clamp", lambda t, x: t.clamp(x, -0.5, 1.0), X)
case("clamp", lambda t, x: t.clamp(x, -1.0, 1.5), KINK, id="clamp_boundary")
case("clamp", lambda t, x: t.clamp(x, min=0.0), KINK, id="clamp_min_only")
case("clamp", lambda t, x: t.clamp(x, max=0.0), KINK, id="clamp_max_only")
case("clamp", lambda t, x, lo, hi: t.clamp(x, lo, hi), KINK, KINK * 0 - 1.0, KINK.clip(0),
     id="clamp_tensors")
case("clamp", lambda t, x, lo: t.clamp(x, min=lo), KINK, Y.clip(-1, 0) * 0, id="clamp_tmin")
case("clamp", lambda t, x, hi: t.clamp(x, max=hi), KINK, X.clip(0) * 0, id="clamp_tmax")
case("clamp_min", lambda t, x: t.clamp_min(x, 0.0), KINK)
case("clamp_max", lambda t, x: t.clamp_max(x, 0.0), KINK)
case("clamp_min", lambda t, x, y: t.clamp_min(x, y), KINK, KINK * 0, id="clamp_min_t")
case("clamp_max", lambda t, x, y: t.clamp_max(x, y), KINK, KINK * 0, id="clamp_max_t")
case("where", lambda t, c, x, y: t.where(c, x, y), A([True, False, True, False]), X, Y)
case("where", lambda t, c, x: t.where(c, x, 0.5), A([True, False, True, False]), X,
     id="where_scalar")
case("where", lambda t, x: t.where(x > 0, x, t.zeros(())), X, id="where_0d")
case(["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "isclose"],
     lambda t, x, y: (t.eq(x, y), t.ne(x, y), t.lt(x, y), t.le(x, y), t.gt(x, y), t.ge(x, y),
                      t.logical_and(x, y), t.logical_or(x, y), t.logical_xor(x, y),
                      t.isclose(x, y)), X, Y, id="compare")
case(["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
      "gcd", "lcm"],
     lambda t, x, y: (t.bitwise_and(x, y), t.bitwise_or(x, y), t.bitwise_xor(x, y),
                      t.bitwise_left_shift(x, y), t.bitwise_right_shift(x, y), t.gcd(x, y),
                      t.lcm(x, y)), I(4, 6, 9), I(1, 2, 3), id="int_binary")
case("isin", lambda t, x, y: t.isin(x, y), X, Y)

# ---- reductions ---------------------------------------------------------------------------------
for _n in ["sum", "nansum", "mean", "nanmean", "prod", "logsumexp", "amax", "amin", "norm"]:
    if _n != "logsumexp":
        case(_n, lambda t, x, _n=_n: getattr(t, _n)(x), X, id=_n + "_all")
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, 1), X, id=_n + "_dim")
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, 0, keepdim=True), X, id=_n + "_keepdim")
    if _n != "prod":
        case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, dim=(0, 1)), X, id=_n + "_dims")
case("sum", lambda t, x: x.sum(dtype=t.float64), X, id="sum_dtype")
case("mean", lambda t, x: x.mean(1, dtype=t.float64), X, id="mean_dtype")
case("nansum", lambda t, x: t.nansum(t.log(x), 1), R((3, 4), -0.5, 2), id="nansum_nan")
case("nanmean", lambda t, x: t.nanmean(t.log(x), 1), R((3, 4), -0.5, 2), id="nanmean_nan")
case("prod", lambda t, x: x.prod(), ZEROS, id="prod_zero")
case("prod", lambda t, x: x.prod(1), ZEROS, id="prod_zero_dim")
case("prod", lambda t, x: x.prod(0), ONEZERO, id="prod_one_zero")
case("prod", lambda t, x: x.prod(1, dtype=t.float64), X, id="prod_dtype")
case(["amax", "amin"], lambda t, x: (x.amax(), x.amin()), TIES, id="amax_ties_all")
case(["amax", "amin"], lambda t, x: (x.amax(1), x.amin(0, True)), TIES, id="amax_ties_dim")
case("max", lambda t, x: x.max(), X, id="max_all")
case("max", lambda t, x: x.max(), TIES, id="max_ties")
case("max", lambda t, x: x.max(1), TIES, id="max_dim_ties")
case("max", lambda t, x: x.max(0, keepdim=True), TIES, id="max_dim_keep")
case("min", lambda t, x: x.min(), TIES, id="min_ties")
case("min", lambda t, x: x.min(1), TIES, id="min_dim_ties")
case("maximum", lambda t, x, y: t.max(x, y), TIES, TIES[::-1].copy(), id="max_binary")
case("minimum", lambda t, x, y: t.min(x, y), TIES, TIES[::-1].copy(), id="min_binary")
case("aminmax", lambda t, x: t.aminmax(x), TIES, id="aminmax_all")
case("aminmax", lambda t, x: t.aminmax(x, dim=1), TIES, id="aminmax_dim")
for _n in ["var", "std"]:
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x), X, id=_n + "_all")
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, 1), X, id=_n + "_dim")
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, 0, keepdim=True, correction=0), X,
         id=_n + "_corr")
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, False), X, id=_n + "_unbiased")
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, (0, 1), correction=2), X, id=_n + "_dims")
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, 1), A([[1.0, 1, 1, 1], [1, 2, 3, 4]]),
         id=_n + "_const")
for _n in ["var_mean", "std_mean"]:
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x), X, id=_n + "_all")
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, 1, keepdim=True), X, id=_n + "_dim")
case(["argmax", "argmin", "all", "any", "count_nonzero", "argsort", "histc"],
     lambda t, x: (x.argmax(), x.argmin(1), x.all(), x.any(0), t.count_nonzero(x),
                   x.argsort(1), t.histc(x, 4, -2, 2)), X, id="nondiff_reductions")
case("logsumexp", lambda t, x: t.logsumexp(x, 1), A([[1e3, 1e3, 0.0, -1e3]] * 3), id="lse_big")
case("logsumexp", lambda t, x: t.logsumexp(x, 1), A([[-np.inf] * 4, [0.0, 1, 2, 3]]),
     id="lse_neginf")
for _n in ["softmax", "log_softmax"]:
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, 1), X, id=_n)
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, 0), X, id=_n + "_0")
    case(_n, lambda t, x, _n=_n: getattr(t, _n)(x, -1, dtype=t.float64), X, id=_n + "_dtype")
case("cumsum", lambda t, x: x.cumsum(1), X)
case("cumsum", lambda t, x: x.cumsum(0, dtype=t.float64), X, id="cumsum_dtype")
case("cumprod", lambda t, x: x.cumprod(1), X)
case("cumprod", lambda t, x: x.cumprod(1), ZEROS, id="cumprod_zero")
case("cumprod", lambda t, x: x.cumprod(0), ZEROS, id="cumprod_zero0")
case("cumprod", lambda t, x: x.cumprod(1), A([[0.0, 0.0, 2.0, 3.0], [0.5, 2.0, 0.0, 1.0]]),
     id="cumprod_two_zeros")
case("logcumsumexp", lambda t, x: x.logcumsumexp(1), X)
case("cummax", lambda t, x: t.cummax(x, 1), TIES)
case("cummin", lambda t, x: t.cummin(x, 0), TIES)
case("sort", lambda t, x: t.sort(x, 1), X)
case("sort", lambda t, x: t.sort(x, dim=0, descending=True, stable=True), TIES, id="sort_ties")
case("msort", lambda t, x: t.msort(x), X)
case("topk", lambda t, x: t.topk(x, 2), X)
case("topk", lambda t, x: t.topk(x, 2, dim=0, largest=False), TIES, id="topk_ties")
case("kthvalue", lambda t, x: t.kthvalue(x, 2), X)
case("kthvalue", lambda t, x: t.kthvalue(x, 2, 0, keepdim=True), TIES, id="kthvalue_ties")
case("median", lambda t, x: t.median(x), X, id="median_all")
case("median", lambda t, x: t.median(x), TIES, id="median_all_ties")
case("median", lambda t, x: t.median(x, 1), TIES, id="median_dim")
case("nanmedian", lambda t, x: t.nanmedian(x), X, id="nanmedian_all")
case("nanmedian", lambda t, x: t.nanmedian(x, 0, True), TIES, id="nanmedian_dim")
case("mode", lambda t, x: t.mode(x, 1), TIES)
case("_quantile", lambda t, x: t.quantile(x, 0.3, dim=1), X, id="quantile")
case("_quantile", lambda t, x: t.quantile(x, 0.5), TIES, id="quantile_all")
case("_quantile", lambda t, x: t.nanquantile(x, 0.25, dim=0, keepdim=True), X, id="nanquantile")
case("_sum_to_size", lambda t, x: x.sum_to_size(1, 4), X)

# ---- shape --------------------------------------------------------------------------------------
case("cat", lambda t, x, y: t.cat([x, y], 1), X, Y)
case("cat", lambda t, x, y: t.cat([x, y]), X, R((2, 4)), id="cat_0")
case("cat", lambda t, x, y: t.cat([x, y, x]), X, Y, id="cat_repeat")
case("stack", lambda t, x, y: t.stack([x, y], 1), X, Y)
case("stack", lambda t, x, y: t.stack([x, y]), X, Y, id="stack_0")
case("flip", lambda t, x: t.flip(x, (0, 1)), X)
case("fliplr", lambda t, x: t.fliplr(x), X)
case("flipud", lambda t, x: t.flipud(x), X)
case("roll", lambda t, x: t.roll(x, 1, 1), X)
case("roll", lambda t, x: t.roll(x, 2), X, id="roll_flat")
case("rot90", lambda t, x: t.rot90(x, 1, (0, 1)), X)
case("repeat", lambda t, x: x.repeat(2, 1, 2), X)
case("tile", lambda t, x: x.tile((2,)), X)
case("_repeat_interleave_int", lambda t, x: x.repeat_interleave(2, dim=1), X)
case("_repeat_interleave_tensor", lambda t, x, r: x.repeat_interleave(r, dim=0), X, I(1, 0, 2))
case("combinations", lambda t, x: t.combinations(x, 2), V)
case("tril", lambda t, x: t.tril(x), X)
case("triu", lambda t, x: t.triu(x, 1), X)
case("diag", lambda t, x: t.diag(x), X, id="diag_2d")
case("diag", lambda t, x: t.diag(x, 1), V, id="diag_1d")
case("diag_embed", lambda t, x: t.diag_embed(x), X)
case("diagflat", lambda t, x: t.diagflat(x), V)
case("_block_diag", lambda t, x, y: t.block_diag(x, y), X, M)
case("trace", lambda t, x: t.trace(x), X)
case("narrow_copy", lambda t, x: t.narrow_copy(x, 1, 1, 2), X)
case("diff", lambda t, x: t.diff(x), X)
case("diff", lambda t, x, p, a: t.diff(x, 2, 0, prepend=p, append=a), X, Y, Z, id="diff_pa")
case(["searchsorted", "bucketize"], lambda t, s, x: (t.searchsorted(s, x), t.bucketize(x, s)),
     np.sort(V), X, id="searchsorted")
case("cdist", lambda t, x, y: t.cdist(x, y), X, Y)
case("cdist", lambda t, x, y: t.cdist(x, y, p=1), X, Y[:2].copy(), id="cdist_p1")
case("cdist", lambda t, x: t.cdist(x, x), X, id="cdist_self")

# ---- linalg -------------------------------------------------------------------------------------
case("matmul", lambda t, a, b: t.matmul(a, b), X, Y.T.copy(), id="matmul_2d")
case("matmul", lambda t, a, b: a @ b, V, V[::-1].copy(), id="matmul_1d1d")
case("matmul", lambda t, a, b: a @ b, X, V, id="matmul_2d1d")
case("matmul", lambda t, a, b: a @ b, V3, X, id="matmul_1d2d")
case("matmul", lambda t, a, b: a @ b, R((2, 3, 4)), R((4, 2), seed=3), id="matmul_3d2d")
case("matmul", lambda t, a, b: a @ b, R((2, 3, 4)), R((2, 4, 2), seed=3), id="matmul_bmm")
case("matmul", lambda t, a, b: a @ b, R((2, 1, 3, 4)), R((3, 4, 2), seed=3),
     id="matmul_broadcast")
case("matmul", lambda t, a, b: a @ b, R((2, 3, 4)), V, id="matmul_3d1d")
case("matmul", lambda t, a, b: a @ b, V3, R((2, 3, 4)), id="matmul_1d3d")
case("mm", lambda t, a, b: t.mm(a, b), X, Y.T.copy())
case("bmm", lambda t, a, b: t.bmm(a, b), R((2, 3, 4)), R((2, 4, 2), seed=3))
case("mv", lambda t, a, b: t.mv(a, b), X, V)
case("dot", lambda t, a, b: t.dot(a, b), V, V[::-1].copy())
case("vdot", lambda t, a, b: t.vdot(a, b), V, V[::-1].copy())
case("inner", lambda t, a, b: t.inner(a, b), X, Y)
case("outer", lambda t, a, b: t.outer(a, b), V3, V)
case("addmm", lambda t, c, a, b: t.addmm(c, a, b, beta=0.5, alpha=2), V3, X, Y.T.copy())
case("addmv", lambda t, c, a, b: t.addmv(c, a, b, beta=0.5, alpha=2), V3, X, V)
case("addr", lambda t, c, a, b: t.addr(c, a, b, beta=0.5, alpha=2), X, V3, V)
case("baddbmm", lambda t, c, a, b: t.baddbmm(c, a, b, beta=0.5, alpha=2), R((3, 2)),
     R((2, 3, 4)), R((2, 4, 2), seed=3))
case("addbmm", lambda t, c, a, b: t.addbmm(c, a, b, beta=0.5, alpha=2), R((3, 2)),
     R((2, 3, 4)), R((2, 4, 2), seed=3))
case("_einsum", lambda t, a, b: t.einsum("ij,kj->ik", a, b), X, Y)
case("_einsum", lambda t, a: t.einsum("ii->i", a), M, id="einsum_diag")
case("tensordot", lambda t, a, b: t.tensordot(a, b, dims=([1], [1])), X, Y)
case("kron", lambda t, a, b: t.kron(a, b), M, V)
case("cross", lambda t, a, b: t.cross(a, b, dim=1), X.T.copy(), Y.T.copy())
case("trapezoid", lambda t, y: t.trapezoid(y), X, nodes=False)
case("trapezoid", lambda t, y, x: t.trapezoid(y, x, dim=0), X, Y, id="trapezoid_x", nodes=False)
case("cumulative_trapezoid", lambda t, y: t.cumulative_trapezoid(y, dx=0.5, dim=0), X,
     nodes=False)
case("linalg_cond", lambda t, a: t.linalg.cond(a), M, nodes=False)
case("cholesky_solve", lambda t, b, a: t.cholesky_solve(b, t.linalg.cholesky(a)), X[:, :2].copy(),
     SPD, nodes=False)
case("linalg_solve_triangular",
     lambda t, a, b: t.linalg.solve_triangular(t.linalg.cholesky(a), b, upper=False), SPD,
     X[:, :2].copy(), nodes=False)
case("linalg_solve_triangular",
     lambda t, a, b: t.linalg.solve_triangular(a.triu() + 3 * t.eye(3), b, upper=True,
                                               left=False), M, X.T.copy(),
     id="solve_triangular_right", nodes=False)
case("cholesky_inverse", lambda t, a: t.cholesky_inverse(t.linalg.cholesky(a)), SPD,
     nodes=False)
case("linalg_cross", lambda t, a, b: t.linalg.cross(a, b), X.T.copy(), Y.T.copy())
case("linalg_det", lambda t, a: t.linalg.det(a), M)
case("det", lambda t, a: t.det(a), M)
case("slogdet", lambda t, a: t.slogdet(a), M)
case("linalg_slogdet", lambda t, a: t.linalg.slogdet(a), M)
case("logdet", lambda t, a: t.logdet(a), SPD)
case("linalg_inv_ex", lambda t, a: t.linalg.inv_ex(a), M)
case("linalg_inv_ex", lambda t, a: t.linalg.inv(a), M, id="linalg_inv")
case("linalg_solve_ex", lambda t, a, b: t.linalg.solve(a, b), M, X)
case("linalg_cholesky_ex", lambda t, a: t.linalg.cholesky(a), SPD)


def _qr_fixed(t, q, r):  # Q, R up to the signs of R's diagonal (LAPACK's choice vs JAX's)
    s = t.sign(r.diagonal())
    return q * s, r * s[:, None]


def _svd_fixed(u, s, vh):  # sign-invariant functions of the singular vectors
    return s, u * u, vh * vh, (u * s) @ vh


case("linalg_qr", lambda t, a: _qr_fixed(t, *t.linalg.qr(a)), X.T.copy())
case("qr", lambda t, a: _qr_fixed(t, *t.qr(a)), X.T.copy(), nodes="name")
case("linalg_svd", lambda t, a: _svd_fixed(*t.linalg.svd(a, full_matrices=False)), X,
     rtol=1e-6)
case("svd", lambda t, a: _svd_fixed(*(lambda u, s, v: (u, s, v.mT))(*t.svd(a))), X, rtol=1e-6)
case("linalg_svdvals", lambda t, a: t.linalg.svdvals(a), X)
case("linalg_eigh", lambda t, a: (lambda w, v: (w, v * v))(*t.linalg.eigh(a)), SPD)
case("linalg_eigvalsh", lambda t, a: t.linalg.eigvalsh(a), SPD)
case("linalg_eig", lambda t, a: (t.linalg.eig(a)[0] ** 2).sum(), M, nodes=False)
case("linalg_eigvals", lambda t, a: (t.linalg.eigvals(a) ** 2).sum(), M, nodes=False)
case("linalg_pinv", lambda t, a: t.linalg.pinv(a), X)
case("pinverse", lambda t, a: t.pinverse(a), X)
case("linalg_matrix_rank", lambda t, a: t.linalg.matrix_rank(a), X)
case("matrix_power", lambda t, a: t.matrix_power(a, 3), M)
case("linalg_matrix_power", lambda t, a: t.linalg.matrix_power(a, 2), M)
case("matrix_exp", lambda t, a: t.matrix_exp(a), M * 0.3)
case(("linalg_lstsq", "_linalg_lstsq"), lambda t, a, b: t.linalg.lstsq(a, b).solution,
     X.T.copy(), R((4, 2)))
case(("linalg_lu_factor_ex", "linalg_lu_solve"),
     lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor_ex(a)[:2], b), M, X[:, :2].copy(),
     nodes=False)
case(("lu_solve", "lu_unpack"),
     lambda t, a, b: (lambda lu, piv: (t.lu_solve(b, lu, piv), t.lu_unpack(lu, piv)[1:]))(
         *t.linalg.lu_factor(a)), M, X[:, :2].copy(), nodes=False)
case("linalg_lu", lambda t, a: t.linalg.lu(a)[1:], X, nodes=False)
case("triangular_solve", lambda t, b, a: t.triangular_solve(b, a.triu() + 3 * t.eye(3)),
     X[:, :2].copy(), M, nodes=False)
case("linalg_vander", lambda t, x: t.linalg.vander(x, N=3), V, nodes=False)
case("linalg_tensorinv", lambda t, a: t.linalg.tensorinv(a.reshape(3, 3), ind=1), M,
     nodes=False)
case("linalg_tensorsolve", lambda t, a, b: t.linalg.tensorsolve(a, b), M, V3, nodes=False)
case("geqrf", lambda t, a: t.geqrf(a), X, nodes=False)
case(("linalg_householder_product", "ormqr"),
     lambda t, a, tau: (t.linalg.householder_product(a, tau), t.ormqr(a, tau, a[:, :2] * 2)),
     X.T.copy(), R((3,), seed=9), nodes=False)
case("linalg_vector_norm", lambda t, x: t.linalg.vector_norm(x), X)
case("linalg_vector_norm", lambda t, x: t.linalg.vector_norm(x, 1, dim=1), X, id="vnorm_1")
case("linalg_vector_norm", lambda t, x: t.linalg.vector_norm(x, float("inf"), dim=0), TIES,
     id="vnorm_inf")
case("linalg_vector_norm", lambda t, x: t.linalg.vector_norm(x, 3, dim=1, keepdim=True), X,
     id="vnorm_3")
case("linalg_vector_norm", lambda t, x: t.linalg.vector_norm(x), X * 0, id="vnorm_zero")
case("linalg_vector_norm", lambda t, x: t.linalg.vector_norm(x, dim=1), KINK * A([0, 0, 1, 1]),
     id="vnorm_zero_rows")
case("linalg_matrix_norm", lambda t, x: t.linalg.matrix_norm(x), X)
case("linalg_matrix_norm", lambda t, x: t.linalg.matrix_norm(x, 1), X, id="mnorm_1")
case("linalg_matrix_norm", lambda t, x: t.linalg.matrix_norm(x, "nuc"), X, id="mnorm_nuc",
     rtol=1e-4)
case("linalg_norm", lambda t, x: t.linalg.norm(x), X)
case("linalg_norm", lambda t, x: t.linalg.norm(x, dim=1), X, id="linalg_norm_dim")
case("linalg_vecdot", lambda t, x, y: t.linalg.vecdot(x, y), X, Y)
case("_multi_dot", lambda t, a, b, c: t.linalg.multi_dot([a, b, c]), X, Y.T.copy(), M)
case("norm", lambda t, x: x.norm(), X * 0, id="norm_zero")
case("norm", lambda t, x: x.norm(1), KINK, id="norm_1_kink")
case("norm", lambda t, x: x.norm(float("inf"), 1), TIES, id="norm_inf_ties")
case("norm", lambda t, x: x.norm(3, 1), KINK, id="norm_3_kink")
case("norm", lambda t, x: x.norm(dim=1), KINK * A([0, 0, 1, 1]), id="norm_zero_rows")

# ---- views --------------------------------------------------------------------------------------
VIEW_CASES = {
    "view": lambda t, x: x.view(4, 3), "view_as": lambda t, x: x.view_as(x.t()),
    "transpose": lambda t, x: x.transpose(0, 1), "t": lambda t, x: x.t(),
    "permute": lambda t, x: x.permute(1, 0), "movedim": lambda t, x: t.movedim(x, 0, 1),
    "squeeze": lambda t, x: x.unsqueeze(0).squeeze(0),
    "unsqueeze": lambda t, x: x.unsqueeze(1), "expand": lambda t, x: x.expand(2, 3, 4),
    "expand_as": lambda t, x: x[:1].expand_as(x), "broadcast_to": lambda t, x: x.broadcast_to(
        (2, 3, 4)), "narrow": lambda t, x: x.narrow(1, 1, 2), "select": lambda t, x: x.select(
        1, 2), "as_strided": lambda t, x: x.as_strided((2, 2), (1, 2), 1),
    "diagonal": lambda t, x: x.diagonal(1), "unfold": lambda t, x: x.unfold(1, 2, 1),
    "unflatten": lambda t, x: x.unflatten(1, (2, 2)),
    "squeeze0": lambda t, x: x.unsqueeze(0).squeeze(), "squeeze2": lambda t, x: x.unsqueeze(
        0).squeeze((0,)),
}
for _n, _f in VIEW_CASES.items():
    case(_n.rstrip("02"), _f, X, id="view_" + _n)

# ---- composites built from rows (their node is the last row's) ---------------------------------
case("reshape", lambda t, x: x.reshape(2, 6), X, id="reshape")
case("reshape", lambda t, x: x.t().reshape(12), X, id="reshape_copy")
case("flatten", lambda t, x: x.flatten(), X, id="flatten")
case("split", lambda t, x: x.split(2, 1), X, id="split")
case("chunk", lambda t, x: x.chunk(2, 0), X, id="chunk")
case("unbind", lambda t, x: x.unbind(1), X, id="unbind")
case("clone", lambda t, x: x.clone(), X, id="clone")
case("to", lambda t, x: x.to(t.float64 if x.dtype == t.float32 else t.float32), X, id="to")
case("contiguous", lambda t, x: x.t().contiguous(), X, id="contiguous")

# PyTorch builds these from several nodes; torchlike records one node named as PyTorch's last one,
# whose edges go straight to the inputs: the name is compared, not len(next_functions).
COMPOSITE = {"nanmean_all", "nanmean_dim", "nanmean_keepdim", "nanmean_dims", "nanmean_nan",
             "quantile", "quantile_all", "nanquantile", "combinations", "diff", "diff_pa",
             "matmul_1d2d", "matmul_3d2d", "matmul_bmm", "matmul_broadcast", "matmul_3d1d",
             "matmul_1d3d", "inner", "_einsum", "tensordot", "kron", "logdet", "matrix_power",
             "linalg_matrix_power", "linalg_vecdot", "_multi_dot", "_repeat_interleave_tensor"}
# names that depend on how PyTorch decomposes the call (einsum's path): not compared
NODES_UNCHECKED = {"einsum_diag"}
for _c in CASES:
    if (_c.id or _c.rows[0]) in COMPOSITE:
        _c.nodes = "name"
    elif _c.id in NODES_UNCHECKED:
        _c.nodes = False

NOT_CHECKED = {
    "alias": "torch has no public torch.alias",
    "_histogram_bins": "torch.histogram has no derivative (its grad_fn is NotImplemented)",
    "_histogram_edges": "torch.histogram has no derivative (its grad_fn is NotImplemented)",
}


def _upstream(lib, o):
    n = max(o.numel(), 1)
    v = np.cos(np.arange(n) * 0.7 + 0.3) + 0.25
    return lib.tensor(v.reshape(tuple(o.shape)), dtype=o.dtype)


def _dense(lib, g):
    """PyTorch hands some zero gradients (sgn, ...) as ZeroTensors: compare them as zeros."""
    if g is not None and getattr(g, "_is_zerotensor", lambda: False)():
        return lib.zeros(g.shape, dtype=g.dtype)
    return g


def _run(c, dtype):
    def f(lib):
        d = getattr(lib, dtype)
        ins = [lib.tensor(a.copy(), dtype=d, requires_grad=True) if a.dtype.kind == "f"
               else lib.tensor(a.copy()) for a in c.arrays]
        out = c.fn(lib, *ins)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        outs = [o for o in outs if isinstance(o, lib.Tensor)]
        flags = [o.requires_grad for o in outs]
        diff = [o for o in outs if o.requires_grad and o.grad_fn is not None]
        nodes = [(type(o.grad_fn).__name__, len(o.grad_fn.next_functions)) for o in diff]
        if diff:
            lib.autograd.backward(diff, [_upstream(lib, o) for o in diff])
        grads = [_dense(lib, x.grad) for x in ins if x.requires_grad]
        if c.nodes == "name":
            nodes = [n for n, _ in nodes]
        elif not c.nodes:
            nodes = None
        return out, flags, nodes, grads
    return f


# Known differences (each fails if it starts passing, so the list stays honest)
KNOWN = {
    "rsub": "torch.rsub(x, y) is recorded as sub(y, x): SubBackward0, not RsubBackward0",
    "nextafter": "JAX has no derivative rule for nextafter",
    "norm_keepdim": "x.norm(0) (p=0): PyTorch's backward hands back no gradient (.grad None); "
                    "torchlike's is zeros",
    "linalg_householder_product": "JAX has no differentiation rule for householder_product "
                                  "(nor for ormqr, built on it)",
    "geqrf": "torch.geqrf has no derivative in PyTorch (its backward raises); torchlike's is "
             "JAX's",
    "split": "PyTorch records one multi-output SplitBackward0; torchlike a view node per output",
    "chunk": "PyTorch records one multi-output SplitBackward0; torchlike a view node per output",
    "unbind": "PyTorch records one multi-output UnbindBackward0; torchlike a view per output",
}
# JAX's digamma/polygamma lose a few digits against PyTorch's in float64
for _c in CASES:
    if _c.rows[0] in ("digamma", "polygamma", "_polygamma_method") and _c.rtol is None:
        _c.rtol = 1e-8


def _param(c, d):
    cid = c.id or c.rows[0]
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN[cid])] if cid in KNOWN else []
    return pytest.param(c, d, id=f"{cid}-{d}", marks=marks)


_PARAMS = [_param(c, d) for c in CASES for d in (c.dtypes or ("float32", "float64"))]


@pytest.mark.parametrize("c,dtype", _PARAMS)
def test_grad(c, dtype):
    rtol = c.rtol if c.rtol is None or dtype == "float64" else max(c.rtol, 1e-5)
    check(_run(c, dtype), rtol=rtol, atol=c.atol)


# ---- what the backward formulas save: modifying it in place breaks backward ----------------------
SAVES = {
    "exp": lambda t, x: x.exp(), "tanh": lambda t, x: x.tanh(), "sigmoid": lambda t, x: x.sigmoid(),
    "relu": lambda t, x: x.relu(), "sqrt": lambda t, x: x.sqrt(), "rsqrt": lambda t, x: x.rsqrt(),
    "reciprocal": lambda t, x: x.reciprocal(), "log": lambda t, x: x.log(),
    "sin": lambda t, x: x.sin(), "abs": lambda t, x: x.abs(), "neg": lambda t, x: -x,
    "mul": lambda t, x: x * 2, "div": lambda t, x: x / 2, "rdiv": lambda t, x: 2 / x,
    "add": lambda t, x: x + 2, "sub": lambda t, x: x - 2, "pow": lambda t, x: x ** 2,
    "square": lambda t, x: x.square(), "sum": lambda t, x: x.sum(), "mean": lambda t, x: x.mean(1),
    "prod": lambda t, x: x.prod(1), "std": lambda t, x: x.std(1), "var": lambda t, x: x.var(1),
    "norm": lambda t, x: x.norm(), "logsumexp": lambda t, x: x.logsumexp(1),
    "softmax": lambda t, x: x.softmax(1), "log_softmax": lambda t, x: x.log_softmax(1),
    "cumsum": lambda t, x: x.cumsum(1), "cumprod": lambda t, x: x.cumprod(1),
    "matmul": lambda t, x: x @ x.T, "clamp": lambda t, x: x.clamp(0.5, 1.0),
    "amax": lambda t, x: x.amax(1), "max": lambda t, x: x.max(), "sort": lambda t, x: x.sort(1)[0],
    "cat": lambda t, x: t.cat([x, x]), "where": lambda t, x: t.where(x > 1, x, 0.0),
    "atan": lambda t, x: x.atan(), "erf": lambda t, x: x.erf(), "sinh": lambda t, x: x.sinh(),
    "maximum": lambda t, x: t.maximum(x, x.T.T * 0 + 1), "flip": lambda t, x: x.flip(0),
    "transpose": lambda t, x: x.t(), "hypot": lambda t, x: t.hypot(x, x * 0 + 1),
    "logcumsumexp": lambda t, x: x.logcumsumexp(1), "expm1": lambda t, x: x.expm1(),
}


SAVES_KNOWN = {
    ("matmul", "input"): "PyTorch reports the saved x.T view ([4, 3], 'output 0 of AsStrided'); "
                         "torchlike the first saved input",
    ("transpose", "input"): "an in-place op on a view's base does not rebase the view's history",
}


def _saves_param(name, which):
    marks = [pytest.mark.xfail(strict=True, reason=SAVES_KNOWN[(name, which)])] \
        if (name, which) in SAVES_KNOWN else []
    return pytest.param(name, which, id=f"{name}-{which}", marks=marks)


@pytest.mark.parametrize("name,which", [_saves_param(n, w) for n in sorted(SAVES)
                                        for w in ("input", "output")])
def test_saved_tensor_modified(name, which):
    def f(lib):
        leaf = lib.tensor(P.copy(), requires_grad=True)
        x = leaf * 1
        y = SAVES[name](lib, x)
        (x if which == "input" else y).mul_(1.5)
        y.sum().backward()
        return leaf.grad
    check(f)


def test_every_row_has_a_case():
    covered = {r for c in CASES for r in c.rows}
    rows = [n for n, r in registry.OPS.items()
            if r is not None and r.family.startswith(("pointwise", "reduction", "shape",
                                                      "linalg", "internal"))]
    missing = [n for n in rows + list(VIEW_OPS) if n not in covered and n not in NOT_CHECKED]
    assert not missing, missing
