"""Which ops autocast casts, and to what: PyTorch's per-device op lists, keyed by the name of the
torchlike op-table row (`mm`, `_nn_linear`, ...) or of the function decorated with
`dispatch.autocast_op(name)`.

Policies (as PyTorch's `CastPolicy`):
  LOWER    floating operands (float64 excepted) run in the autocast dtype (bfloat16 on CPU)
  FP32     lower-precision floating operands run in float32
  PROMOTE  floating operands run in the widest floating type among them (float32 when any is)
A value may also be a function of the row's positional arguments giving a policy or None, for
ops whose PyTorch decomposition reaches a listed op only in some cases (einsum without a summed
index is a mul; only 1-d/2-d reflection padding is on the float32 list).

PyTorch decomposes some composite ops (tensordot, inner, einsum, multi_dot, multi-head attention)
into listed ones (mm, bmm, linear) that autocast then casts; torchlike runs those as one kernel,
so they are listed here with the policy their decomposition ends in.
"""
LOWER, FP32, PROMOTE = "lower", "fp32", "promote"


def _einsum(args, kwargs):
    """LOWER when PyTorch's einsum reaches bmm: an index summed over two or more operands."""
    equation, operands = args[0], args[1]
    if len(operands) < 2:
        return None
    lhs, arrow, out = equation.replace(" ", "").partition("->")
    counts = {}
    for term in lhs.split(","):
        for c in set(term):
            if c.isalpha():
                counts[c] = counts.get(c, 0) + 1
    if not arrow:  # implicit output: the indices that appear once
        out = [c for c, n in counts.items() if n == 1]
    return LOWER if any(n > 1 and c not in out for c, n in counts.items()) else None


def _inner(args, kwargs):
    """torch.inner is a multiply when an operand is 0-d, else a tensordot (mm)."""
    a, b = args[0], args[1]
    return None if getattr(a, "ndim", 0) == 0 or getattr(b, "ndim", 0) == 0 else LOWER


def _pad(args, kwargs):
    """F.pad: reflection_pad1d/2d and replication_pad1d/2d/3d are on CPU's float32 list."""
    mode = kwargs.get("mode", args[2] if len(args) > 2 else "constant")
    pad = kwargs.get("pad", args[1] if len(args) > 1 else ())
    n = len(pad) // 2
    if mode == "reflect" and n in (1, 2) or mode == "replicate" and n in (1, 2, 3):
        return FP32
    return None


def _lrn(args, kwargs):
    """F.local_response_norm averages with avg_pool3d (float32 list) for inputs of 4+ dims."""
    return FP32 if args[0].dim() > 3 else None


def _state_rule(x, hx):
    """A recurrence PyTorch composes of `linear`s (LOWER) mixed with the hidden state keeps the
    state's dtype: a float32 state stays float32 (run uncast here), a lower-precision one (or
    none, with a lower-precision input) gives the lower dtype."""
    state = x if hx is None else hx
    return None if state.dtype.name == "float32" else LOWER


def _rnn_module(args, kwargs):
    """nn.RNN / nn.LSTM / nn.GRU (args: mode, input, hx, ...): LSTM runs mkldnn_rnn (LOWER), a
    plain RNN's tanh/relu steps stay in the lower dtype; GRU follows its hidden state."""
    mode, x, hx = args[0], args[1], args[2]
    return _state_rule(x, hx) if mode == "GRU" else LOWER


def _rnn_cell(args, kwargs):
    """nn.RNNCell / LSTMCell / GRUCell: LSTM and GRU cells follow their hidden state."""
    mode, x, hx = args[0], args[1], args[2]
    return _state_rule(x, hx) if mode in ("LSTM", "GRU") else LOWER


_CPU_LOWER = (
    "mm", "bmm", "matmul", "addmm", "baddbmm", "addbmm", "linalg_vecdot", "_nn_linear",
    "_nn_prelu", "conv", "conv_transpose", "scaled_dot_product_attention",
    # composites PyTorch lowers to mm / bmm / linear
    "tensordot", "_multi_dot", "multi_head_attention_forward",
)
_CPU_FP32 = (
    "prod", "_quantile", "cdist", "trace", "pinverse", "grid_sample",
    "linalg_matrix_rank", "linalg_svdvals", "linalg_eigvals", "linalg_eigvalsh", "linalg_inv_ex",
    "linalg_solve_ex", "linalg_cholesky_ex", "linalg_qr", "linalg_svd", "linalg_eig",
    "linalg_eigh", "linalg_lstsq", "qr", "svd",
    "avg_pool3d", "max_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "max_unpool2d",
    "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d",
    "mse_loss", "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss", "poisson_nll_loss",
    "smooth_l1_loss", "cross_entropy", "l1_loss", "huber_loss", "margin_ranking_loss",
    "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "ctc_loss", "kl_div",
    "multilabel_margin_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
)
_CPU_PROMOTE = ("cat", "stack", "index_copy")

CPU = dict({n: LOWER for n in _CPU_LOWER}, **{n: FP32 for n in _CPU_FP32},
           **{n: PROMOTE for n in _CPU_PROMOTE}, _einsum=_einsum, inner=_inner, pad=_pad,
           local_response_norm=_lrn, rnn_forward=_rnn_module, cell_forward=_rnn_cell)

# CUDA's lists (PyTorch's AT_FORALL_LOWER_PRECISION_FP / FP32 / FP32_SET_OPT_DTYPE / PROMOTE);
# the set-opt-dtype ops (sum, softmax, ...) run in float32, which is what their dtype=float32
# argument gives.
_CUDA_LOWER = (
    "conv", "conv_transpose", "_nn_prelu", "addmm", "addmv", "addr", "matmul", "mm", "mv",
    "linalg_vecdot", "_nn_linear", "addbmm", "baddbmm", "bmm", "_multi_dot",
    "scaled_dot_product_attention", "multi_head_attention_forward",
)
_CUDA_FP32 = (
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p",
    "reciprocal", "rsqrt", "sinh", "tan", "pow", "softplus", "layer_norm", "rms_norm",
    "group_norm", "cosine_similarity", "poisson_nll_loss", "cosine_embedding_loss", "nll_loss",
    "hinge_embedding_loss", "kl_div", "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss",
    "margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss",
    "multi_margin_loss", "binary_cross_entropy_with_logits", "cross_entropy", "dist", "pdist",
    "cdist", "renorm", "logsumexp", "interpolate",
    "prod", "softmax", "log_softmax", "cumprod", "cumsum", "linalg_vector_norm",
    "linalg_matrix_norm", "sum", "norm",
)
_CUDA_PROMOTE = ("addcdiv", "addcmul", "atan2", "bilinear", "cross", "linalg_cross", "dot",
                 "vdot", "grid_sample", "tensordot", "scatter_add", "cat", "stack",
                 "index_copy")

CUDA = dict({n: LOWER for n in _CUDA_LOWER}, **{n: FP32 for n in _CUDA_FP32},
            **{n: PROMOTE for n in _CUDA_PROMOTE}, _einsum=LOWER)

TABLES = {"cpu": CPU, "cuda": CUDA}
NAMES = frozenset(CPU) | frozenset(CUDA)
