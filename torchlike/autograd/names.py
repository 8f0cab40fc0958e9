"""PyTorch's node names and what each backward formula saves (for the version-counter check).

Names default to the op's CamelCase name + "Backward0" (`mul` → `MulBackward0`); the table lists
PyTorch's exceptions. `saves` says which tensors PyTorch's formula keeps: "none" (add, sum,
views...), "result" (exp, tanh, sigmoid, relu...), or "inputs" (the default)."""

_NAMES = {
    "sum": "SumBackward0", "mean": "MeanBackward0", "matmul": "MmBackward0",
    "true_divide": "DivBackward0", "div": "DivBackward0", "floor_divide": "FloorDivideBackward0",
    "pow": "PowBackward0", "abs": "AbsBackward0", "neg": "NegBackward0", "clone": "CloneBackward0",
    "clamp": "ClampBackward1", "clamp_min": "ClampMinBackward0", "clamp_max": "ClampMaxBackward0",
    "where": "WhereBackward0", "maximum": "MaximumBackward0", "minimum": "MinimumBackward0",
    "max": "MaxBackward0", "min": "MinBackward0", "amax": "AmaxBackward0", "amin": "AminBackward0",
    "log_softmax": "LogSoftmaxBackward0", "softmax": "SoftmaxBackward0", "cat": "CatBackward0",
    "stack": "StackBackward0", "relu": "ReluBackward0", "sigmoid": "SigmoidBackward0",
    "tanh": "TanhBackward0", "logsumexp": "LogsumexpBackward0", "norm": "NormBackward1",
    "rsub": "RsubBackward1", "sub": "SubBackward0", "add": "AddBackward0",
    "mul": "MulBackward0", "prod": "ProdBackward0", "cumsum": "CumsumBackward0",
    "addmm": "AddmmBackward0", "mm": "MmBackward0", "bmm": "BmmBackward0", "mv": "MvBackward0",
    "dot": "DotBackward0", "_cast": "ToCopyBackward0", "to": "ToCopyBackward0",
    "square": "PowBackward0", "rsqrt": "RsqrtBackward0", "sqrt": "SqrtBackward0",
    "exp": "ExpBackward0", "log": "LogBackward0", "var": "VarBackward0", "std": "StdBackward0",
    "sort": "SortBackward0", "topk": "TopkBackward0", "gather": "GatherBackward0",
    "index_select": "IndexSelectBackward0", "masked_fill": "MaskedFillBackward0",
    "einsum": "ViewBackward0", "linalg_vector_norm": "LinalgVectorNormBackward0",
}
_NONE = {"add", "sub", "rsub", "neg", "sum", "mean", "clone", "cat", "stack", "positive",
         "nansum", "cumsum", "_cast", "to", "flip", "roll", "repeat", "tile", "tril", "triu",
         "diag", "diag_embed", "where", "masked_fill", "index_select", "gather", "trace",
         "real", "conj", "narrow_copy", "repeat_interleave", "sum_to_size"}
_RESULT = {"exp", "exp2", "expm1", "tanh", "sigmoid", "relu", "sqrt", "rsqrt", "softmax",
           "log_softmax", "logsumexp", "reciprocal"}


def node_name(op):
    """PyTorch's node name for op-table row `op`."""
    n = _NAMES.get(op)
    if n is None:
        n = "".join(part.capitalize() for part in op.strip("_").split("_")) + "Backward0"
        _NAMES[op] = n
    return n


def saves(op):
    """What PyTorch's backward formula for `op` saves: "none", "result" or "inputs"."""
    if op in _NONE:
        return "none"
    if op in _RESULT:
        return "result"
    return "inputs"
