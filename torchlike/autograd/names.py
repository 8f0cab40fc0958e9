"""PyTorch's node names and what each backward formula saves (for the version-counter check).

Names default to the op's CamelCase name + "Backward0" (`mul` → `MulBackward0`); the table lists
PyTorch's exceptions. Where PyTorch's node depends on the call (`x.sum()` → SumBackward0 but
`x.sum(0)` → SumBackward1; `x ** 2` → PowBackward0 with one edge but `x ** y` → PowBackward1 with
two), the entry is a rule `f(a) -> name` or `f(a) -> (name, skip, keep_none)` on the call's
arguments `a` (a dict by parameter name): `skip` names the operands that get no edge in
`next_functions` ("#" = Python numbers get none), `keep_none` lists every tensor position even
when None (PyTorch's `clamp(Tensor? min, Tensor? max)`). `node_name(op)` hands the registry a
string, or a `Dynamic` it calls with `(row, args, slots)` to get the name and the edge layout.

`saves` says which tensors PyTorch's formula keeps: "none" (add, sum, views...), "result" (exp,
tanh, sigmoid, relu...), "both", "indices" (the indices output of sort, topk, max(dim)...),
"inputs+indices", or "inputs" (the default)."""
import numbers

import jax.numpy as jnp

from .._core.tensor import Tensor


def _num(v):
    return isinstance(v, numbers.Number) and not isinstance(v, Tensor)


def _dim01(base):
    return lambda a: base + ("0" if a.get("dim") is None else "1")


def _ext(base):  # max()/min() full reduction is overload 1, max(dim) overload 0
    return lambda a: base + ("1" if a.get("dim") is None else "0")


def _pow(a):
    if _num(a["input"]):
        return "PowBackward2", ("input",)
    if _num(a["exponent"]):
        return "PowBackward0", ("exponent",)
    return "PowBackward1"


def _scalar_other(tensor_name, scalar_name):
    def rule(a):
        if _num(a["other"]):
            return scalar_name, ("other",)
        return tensor_name
    return rule


def _xlogy(a):
    if _num(a["other"]):
        return "XlogyBackward2", ("other",)
    if _num(a["input"]):
        return "XlogyBackward1", ("input",)
    return "XlogyBackward0"


def _div(a):
    if a.get("rounding_mode") is not None:
        return "DivBackward2"
    if _num(a["input"]):  # 2 / x is reciprocal(x) * 2 in PyTorch
        return "MulBackward0"
    return "DivBackward0"


def _sub(a):
    if _num(a["input"]):  # 2 - x
        return "RsubBackward1", ("input",)
    return "SubBackward0"


def _clamp(a):
    if isinstance(a.get("min"), Tensor) or isinstance(a.get("max"), Tensor):
        return "ClampBackward0", (), True
    return "ClampBackward1", ("min", "max")


def _clamp1(base, name):
    return lambda a: (base + "0", (name,)) if not isinstance(a[name], Tensor) else base + "1"


def _scalar_operand(base):
    """Overload 0 for two tensors, 1 for a Python-number input, 2 for a Python-number other."""
    def rule(a):
        if _num(a["other"]):
            return base + "2", ("other",)
        if _num(a["input"]):
            return base + "1", ("input",)
        return base + "0"
    return rule


def _lerp(a):
    return ("LerpBackward0", ("weight",)) if _num(a["weight"]) else "LerpBackward1"


def _ndim(v):
    return len(v._size) if isinstance(v, Tensor) else 0


def _matmul(a):
    n = (_ndim(a["input"]), _ndim(a["other"]))
    return {(2, 2): "MmBackward0", (1, 1): "DotBackward0", (2, 1): "MvBackward0",
            (1, 2): "SqueezeBackward4"}.get(n, "UnsafeViewBackward0")


def _matrix_norm_name(ord_):
    if ord_ == "fro":
        return "LinalgVectorNormBackward0"
    if ord_ == "nuc":
        return "SumBackward1"
    return "AmaxBackward0" if ord_ > 0 else "AminBackward0"


def _linalg_norm(a):
    o, dim = a.get("ord"), a.get("dim")
    if o is None or isinstance(dim, int) or (dim is None and _ndim(a["A"]) == 1) or \
            (isinstance(dim, (tuple, list)) and len(dim) == 1):
        return "LinalgVectorNormBackward0"
    return _matrix_norm_name(o)


def _matrix_power(a):
    n = a.get("n")
    return {0: "CopyBackwards", 1: "CloneBackward0", -1: "LinalgInvExBackward0"}.get(
        n, "MmBackward0")


def _fft_real_input(name):
    """fft/ifft: a complex input is one C2C node; a real one R2C (ifft: R2C, then a conj)."""
    return lambda a: "FftC2CBackward0" if a["input"].dtype.is_complex else name


def _ihfftn(a):
    """ihfftn over one dim ends in a conj, over several in a C2C transform."""
    n = a["input"].dim() if a.get("dim") is None and a.get("s") is None else \
        len(_seq(a["dim"] if a.get("dim") is not None else a["s"]))
    return "FftC2CBackward0" if n > 1 else "ConjBackward0"


def _seq(v):
    return (v,) if isinstance(v, int) else v


_FFT_NAMES = dict(
    {"fft_fft": _fft_real_input("FftR2CBackward0"), "fft_ifft": _fft_real_input("ConjBackward0"),
     "fft_rfft": "FftR2CBackward0", "fft_rfft2": "FftR2CBackward0",
     "fft_rfftn": "FftR2CBackward0", "fft_ihfft": "ConjBackward0", "fft_ihfft2": _ihfftn,
     "fft_ihfftn": _ihfftn, "fft_fftshift": "RollBackward0", "fft_ifftshift": "RollBackward0"},
    **{"fft_" + n: "FftC2CBackward0" for n in ("fft2", "ifft2", "fftn", "ifftn")},
    **{"fft_" + n: "FftC2RBackward0" for n in ("irfft", "irfft2", "irfftn", "hfft", "hfft2",
                                                "hfftn")})

_NAMES = {
    # pointwise
    "true_divide": _div, "div": _div, "sub": _sub,
    "pow": _pow, "float_power": _pow, "square": "PowBackward0",
    "remainder": _scalar_other("RemainderBackward1", "RemainderBackward0"),
    "fmod": _scalar_other("FmodBackward1", "FmodBackward0"),
    "copysign": _scalar_other("CopysignBackward0", "CopysignBackward1"),
    "xlogy": _xlogy, "lerp": _lerp, "round": lambda a: "RoundBackward1" if a.get("decimals")
    else "RoundBackward0", "log1p": "Log1PBackward0", "deg2rad": "Deg2RadBackward0",
    "rad2deg": "Rad2DegBackward0", "clamp": _clamp,
    "clamp_min": _clamp1("ClampMinBackward", "min"),
    "clamp_max": _clamp1("ClampMaxBackward", "max"),
    "where": lambda a: ("WhereBackward0", ("!condition",)),
    "sort": lambda a: "SortBackward1" if a.get("stable") else "SortBackward0",
    "_polygamma_method": "PolygammaBackward0",
    "floor_divide": "NotImplemented:floor_divide", "heaviside": "NotImplemented:heaviside",
    "add": "AddBackward0", "mul": "MulBackward0", "neg": "NegBackward0", "abs": "AbsBackward0",
    "maximum": "MaximumBackward0", "minimum": "MinimumBackward0",
    # reductions
    "sum": _dim01("SumBackward"), "mean": _dim01("MeanBackward"), "prod": _dim01("ProdBackward"),
    "nanmean": "DivBackward0", "max": _ext("MaxBackward"), "min": _ext("MinBackward"),
    "median": _dim01("MedianBackward"), "nanmedian": _dim01("NanmedianBackward"),
    "norm": lambda a: "SumBackward1" if a.get("p") == "nuc" else "LinalgVectorNormBackward0",
    "msort": "SortBackward0", "_sum_to_size": "SumBackward1", "_quantile": "SqueezeBackward4",
    "log_softmax": "LogSoftmaxBackward0", "logsumexp": "LogsumexpBackward0",
    # shape
    "fliplr": "FlipBackward0", "flipud": "FlipBackward0",
    "_repeat_interleave_int": "ViewBackward0", "_repeat_interleave_tensor": "IndexSelectBackward0",
    "combinations": "StackBackward0", "diagflat": "DiagEmbedBackward0", "diff": "SubBackward0",
    "diag": lambda a: "DiagonalBackward0_copy" if _ndim(a["input"]) == 2
    else "DiagEmbedBackward0", "_block_diag": "BlockDiagBackward0",
    # linalg
    "matmul": _matmul, "inner": lambda a: "ViewBackward0" if _ndim(a["input"]) > 1 or
    _ndim(a["other"]) > 1 else "DotBackward0", "outer": "MulBackward0",
    "_einsum": "ViewBackward0", "einsum": "ViewBackward0", "tensordot": "ViewBackward0",
    "kron": "UnsafeViewBackward0", "cross": "LinalgCrossBackward0",
    "det": "LinalgDetBackward0", "slogdet": "LinalgSlogdetBackward0", "logdet": "WhereBackward0",
    "svd": "LinalgSvdBackward0", "linalg_svdvals": "LinalgSvdBackward0",
    "qr": "LinalgQrBackward0", "linalg_eigvalsh": "LinalgEighBackward0",
    "linalg_eigvals": "LinalgEigBackward0", "pinverse": "LinalgPinvBackward0",
    "matrix_power": _matrix_power, "linalg_matrix_power": _matrix_power,
    "matrix_exp": "LinalgMatrixExpBackward0",
    "linalg_matrix_norm": lambda a: _matrix_norm_name(a.get("ord", "fro")),
    "linalg_norm": _linalg_norm, "linalg_vecdot": "SumBackward1",
    "_multi_dot": lambda a: "ViewBackward0",
    # misc
    "clone": "CloneBackward0", "_cast": "ToCopyBackward0", "to": "ToCopyBackward0",
    "einsum_": "ViewBackward0", "linalg_vector_norm": "LinalgVectorNormBackward0",
    "gather": "GatherBackward0", "index_select": "IndexSelectBackward0",
    "masked_fill": "MaskedFillBackward0",
}
_NAMES.update(_FFT_NAMES)
_NAMES.update({"special_i0e": "SpecialI0EBackward0", "special_i1e": "SpecialI1EBackward0",
               "special_ndtr": "MulBackward1",  # PyTorch's ndtr is (1 + erf(x / sqrt2)) * 0.5
               "special_xlog1py": _scalar_operand("SpecialXlog1PyBackward"),
               "special_zeta": _scalar_operand("SpecialZetaBackward")})

# "inputs" is the default; these are PyTorch's formulas that keep nothing, the result, or both
_NONE = {"add", "sub", "rsub", "neg", "sum", "mean", "clone", "cat", "stack", "positive",
         "cumsum", "_cast", "to", "flip", "fliplr", "flipud", "roll", "rot90", "repeat",
         "tile", "tril", "triu", "diag", "diag_embed", "diagflat", "masked_fill", "index_select",
         "trace", "real", "conj", "narrow_copy", "repeat_interleave", "_sum_to_size",
         "sum_to_size", "_repeat_interleave_int", "deg2rad", "rad2deg", "ceil", "floor",
         "trunc", "round", "sign", "frac", "_block_diag", "diff", "combinations",
         "conj_physical", "where", "msort"}
_NONE |= set(_FFT_NAMES)  # PyTorch's FFT backward formulas keep no tensor but R2C's input
_NONE.add("special_ndtr")
_RESULT = {"exp", "exp2", "expm1", "tanh", "sigmoid", "relu", "sqrt", "rsqrt", "softmax",
           "log_softmax", "reciprocal", "special_ndtri"}
_BOTH = {"logsumexp", "logcumsumexp", "linalg_vector_norm", "norm", "std", "prod", "cumprod",
         "linalg_det", "det", "amax", "amin", "hypot", "std_mean", "special_erfcx",
         "special_i0e", "special_i1", "special_i1e", "special_log_ndtr", "cholesky_inverse"}
# PyTorch's backward for these is not implemented: calling it raises
_NOT_IMPLEMENTED = {
    "floor_divide": (RuntimeError, "derivative for aten::floor_divide is not implemented"),
    "heaviside": (RuntimeError, "derivative for aten::heaviside is not implemented"),
}
# Only the gradient for one operand is missing (NotImplementedError when it is needed)
_PARTIAL = {"igamma": ("IgammaBackward0", 0, "the derivative for 'igamma: input' is not "
                       "implemented."),
            "igammac": ("IgammacBackward0", 0, "the derivative for 'igammac: input' is not "
                        "implemented.")}
# The same, by node name, for ops whose name depends on the call (a Python-number `input`
# gets no slot, so only the overloads where `input` is slot 0 are listed)
_PARTIAL_NODES = {n: (0, "the derivative for 'zeta' is not implemented.")
                  for n in ("SpecialZetaBackward0", "SpecialZetaBackward2")}


class Dynamic:
    """A call-dependent node: `self(row, args, slots)` gives (name, slots)."""

    __slots__ = ("rule",)

    def __init__(self, rule):
        self.rule = rule

    def __call__(self, row, args, slots):
        r = self.rule(dict(zip(row.names, args)))
        if type(r) is str:
            return r, slots
        name, skip = r[0], r[1]
        keep_none = len(r) > 2 and r[2]
        if slots is None:
            return name, None
        return name, _relayout(row, args, slots, frozenset(skip), keep_none)


def _relayout(row, args, slots, skip, keep_none):
    """PyTorch's `next_functions` layout when the operands in `skip` (as Python numbers or
    None) get no edge, or when None operands do get one (`keep_none`)."""
    from .._ops.registry import _LN, _TN
    old = 0
    new = 0
    remap = {}
    for name, kind, v in zip(row.names, row.plan, args):
        if kind <= _TN:
            is_t = isinstance(v, Tensor)
            if v is not None:
                if "!" + name in skip or (name in skip and not is_t):
                    old += 1
                    continue
                remap[old] = new
                old += 1
                new += 1
            elif keep_none:
                new += 1
        elif kind <= _LN:
            for _ in v:
                remap[old] = new
                old += 1
                new += 1
    try:
        return (new, tuple(remap[p] for p in slots[1]))
    except KeyError:
        return slots


def node_name(op):
    """PyTorch's node name for op-table row `op`: a string, or a `Dynamic` rule."""
    n = _NAMES.get(op)
    if n is None:
        n = "".join(part.capitalize() for part in op.strip("_").split("_")) + "Backward0"
        _NAMES[op] = n
    elif callable(n) and not isinstance(n, Dynamic):
        n = _NAMES[op] = Dynamic(n)
    return n


# In-place variants PyTorch names with a different overload (they save the result instead)
_INPLACE_NAMES = {
    "_nn_elu": lambda args: "CeluBackward1" if args[3] != 1.0 else "EluBackward1",
    "_nn_leaky_relu": lambda args: "LeakyReluBackward1",
    "_nn_threshold": lambda args: "ThresholdBackward1",
}


def static_name(op, row=None, args=None):
    """The node name as a string (for paths that don't lay out edges, e.g. in-place ops)."""
    rule = _INPLACE_NAMES.get(op)
    if rule is not None and args is not None:
        return rule(args)
    n = node_name(op)
    if type(n) is str:
        return n
    return n(row, args, None)[0]


def _needs(rule, as_view=()):
    """A saves-policy computing which inputs PyTorch's formula keeps, given what is tracked:
    `rule(a, tracked_names)` lists parameter names; returns ("inputs", tensors). `as_view`:
    parameters PyTorch saves transposed (`linear` keeps `weight.t()`), which its version error
    names as an output of AsStrided."""
    def policy(row, args, entries):
        a = dict(zip(row.names, args))
        ids = {id(t) for _, t, _ in entries}
        tracked = {n for n, v in a.items() if isinstance(v, Tensor) and id(v) in ids}
        keep = []
        if not isinstance(a.get("input"), Tensor):  # 2 / x: PyTorch's reciprocal(x) * 2
            return "none", keep
        for n in rule(tracked):
            v = a.get(n)
            if isinstance(v, Tensor) and all(v is not k for k in keep):
                keep.append((v, ("AsStridedBackward0", 0)) if n in as_view else v)
        return "inputs", keep
    return policy


_CONDITIONAL = {
    # mul: d/dself needs other, d/dother needs self
    "mul": _needs(lambda tr: (["other"] if "input" in tr else []) +
                  (["input"] if "other" in tr else [])),
    # div: d/dself needs other, d/dother needs self and other
    "div": _needs(lambda tr: (["other"] if "input" in tr else []) +
                  (["input", "other"] if "other" in tr else [])),
    "true_divide": _needs(lambda tr: (["other"] if "input" in tr else []) +
                          (["input", "other"] if "other" in tr else [])),
}


def _product(a, b, as_view=()):
    """A product's formula: d/da needs b, d/db needs a (PyTorch's mm/addmm save `mat2` only
    when `mat1` requires grad, and the other way round)."""
    return _needs(lambda tr: ([b] if a in tr else []) + ([a] if b in tr else []), as_view)


_CONDITIONAL.update({
    "_nn_linear": _product("input", "weight", ("weight",)), "mm": _product("input", "mat2"),
    "bmm": _product("input", "mat2"), "matmul": _product("input", "other"),
    "addmm": _product("mat1", "mat2"), "baddbmm": _product("batch1", "batch2"),
    "addbmm": _product("batch1", "batch2"), "mv": _product("input", "vec"),
    "addmv": _product("mat", "vec"), "dot": _product("input", "tensor"),
    "outer": _product("input", "vec2"),
})


def _ext_policy(row, args, entries):
    """max()/min()/median() keep the input and the result; with a dim only the indices."""
    dim = dict(zip(row.names, args)).get("dim")
    if dim is None:
        return "both", [a for a in args if isinstance(a, Tensor)]
    return "indices", []


for _op in ("max", "min", "median", "nanmedian"):
    _CONDITIONAL[_op] = _ext_policy
_INDICES = {"sort", "topk", "kthvalue", "mode"}
_INPUTS_INDICES = {"cummax", "cummin"}
# linalg.solve_triangular keeps A and the solution, not B
_CONDITIONAL["linalg_solve_triangular"] = lambda row, args, entries: ("both", [args[0]])


def _fft_r2c_policy(row, args, entries):
    """A real-to-complex FFT keeps its input: the op's own input (or a trimmed view of it)
    unless `n`/`s` pad it (then a padded copy, which nothing else can modify)."""
    a = dict(zip(row.names, args))
    x = a["input"]
    if x.dtype.is_complex:
        return "none", []
    if "n" in a:
        sizes, dims = (a["n"],), (a["dim"],)
    else:
        sizes = _seq(a["s"]) if a["s"] is not None else ()
        dims = _seq(a["dim"]) if a["dim"] is not None else range(x.dim() - len(sizes), x.dim())
    if any(n is not None and n > x.shape[d] for n, d in zip(sizes, dims)):
        return "none", []
    return "inputs", [x]


for _op in ("fft", "ifft", "rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn"):
    _CONDITIONAL["fft_" + _op] = _fft_r2c_policy
del _op


def saves(op):
    """What PyTorch's backward formula for `op` saves: "none", "result", "both" or "inputs",
    or a policy `f(row, args, tracked) -> (policy, tensors)` where it depends on the call."""
    if op in _CONDITIONAL:
        return _CONDITIONAL[op]
    if op in _INDICES:
        return "indices"
    if op in _INPUTS_INDICES:
        return "inputs+indices"
    if op in _NONE:
        return "none"
    if op in _RESULT:
        return "result"
    if op in _BOTH:
        return "both"
    return "inputs"


# ---- nodes whose backward PyTorch doesn't implement -------------------------------------------

def _install_raising_nodes():
    from .graph import JaxNode, _CLASSES

    def raising(exc, msg):
        def apply(self, grads, create_graph):
            raise exc(msg)
        return apply

    for op, (exc, msg) in _NOT_IMPLEMENTED.items():
        _CLASSES[("NotImplemented:" + op, JaxNode)] = type(
            "NotImplemented", (JaxNode,), {"__slots__": (), "__module__": "torch",
                                           "apply": raising(exc, msg)})

    def partial(slot, msg):
        def apply(self, grads, create_graph):
            slots = self._slots
            where = slots[1] if slots is not None else range(len(self._diff))
            if slot in where and any(g is not None for g in grads):
                raise NotImplementedError(msg)
            return JaxNode.apply(self, grads, create_graph)
        return apply

    for op, (name, slot, msg) in _PARTIAL.items():
        _NAMES[op] = name
        _CLASSES[(name, JaxNode)] = type(name, (JaxNode,), {
            "__slots__": (), "__module__": "torch", "apply": partial(slot, msg)})
    for name, (slot, msg) in _PARTIAL_NODES.items():
        _CLASSES[(name, JaxNode)] = type(name, (JaxNode,), {
            "__slots__": (), "__module__": "torch", "apply": partial(slot, msg)})


_install_raising_nodes()


# ---- PyTorch's names for the saved tensors (`grad_fn._saved_<name>`) --------------------------

def _linear_names(a):
    """F.linear of a 2-D input is PyTorch's addmm (with a bias) or mm: `mat1`/`self` and `mat2`
    (weight.t()); of others, a view or add of those, whose node saves no tensor."""
    if a["input"].ndim != 2 or a["weight"].ndim != 2:
        return {"input": None, "weight": None}
    return {"input": "mat1" if a.get("bias") is not None else "self", "weight": "mat2"}


def _matmul_names(a):
    """matmul is PyTorch's mm, mv or dot for 1-D and 2-D operands (else views of bmm/mm)."""
    n = (_ndim(a["input"]), _ndim(a["other"]))
    return {(2, 2): {"other": "mat2"}, (2, 1): {"other": "vec"}, (1, 1): {"other": "tensor"}}.get(
        n, {"input": None, "other": None})


# parameters whose name in PyTorch's formula is not the Python signature's ("input" is "self")
_SAVED_RENAMES = {"_nn_linear": _linear_names, "matmul": _matmul_names}


def saved_names(row, args, tensors):
    """PyTorch's name for each saved tensor of a call of `row` (None where it has none)."""
    rename = _SAVED_RENAMES.get(row.name)
    rename = rename(dict(zip(row.names, args))) if rename is not None else {}
    out = []
    for t in tensors:
        if type(t) is tuple:
            t = t[0]
        name = None
        for n, a in zip(row.names, args):
            if a is t:
                name = rename[n] if n in rename else "self" if n == "input" else n
                break
        out.append(name)
    return out
