"""Reductions, scans, sorting and selection: torchlike vs real torch (torch 2.13)."""
import numpy as np
import pytest

import torchlike
from torchlike._ops import registry
from harness import check, same_repr

NAN = float("nan")

# Fixed inputs: one shape (3, 4) reused everywhere so kernels are shared; it has ties.
BASE = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 0]])
FLOAT_NAN = np.array([[3.0, NAN, 4.0, 1.0], [5.0, 9.0, -0.0, 6.0], [NAN, 3.0, 0.0, 0.0]])
DTYPES = ["int64", "int32", "uint8", "bool", "float32", "float64", "complex64"]


def make(dtype, arr=BASE):
    """An input builder for `check`: the same fixed NumPy data converted to `dtype`."""
    def build(torch):
        if dtype == "bool":
            return torch.tensor(np.asarray(arr) % 2 == 1)
        return torch.tensor(np.asarray(arr).copy()).to(getattr(torch, dtype))
    return build


# ---- table: every registered reduction row has cases ---------------------------------------------
# Each expression is evaluated with `torch` (real or torchlike) and `x` (a 3x4 tensor). They cover
# dim None / int / negative / tuple and keepdim; errors (dtype not supported, ...) are compared too.

CASES = {
    "sum": ["torch.sum(x)", "x.sum(0)", "x.sum(-1, keepdim=True)", "x.sum((0, 1))",
            "x.sum(dim=[1, 0], keepdim=True)", "x.sum(dtype=torch.float64)", "x.sum(())"],
    "nansum": ["torch.nansum(x)", "x.nansum(1, keepdim=True)", "torch.nansum(x, (0, -1))"],
    "mean": ["torch.mean(x)", "x.mean(0)", "x.mean((0, 1), keepdim=True)",
             "x.mean(dtype=torch.float64)", "x.mean(1, dtype=torch.int64)"],
    "nanmean": ["torch.nanmean(x)", "x.nanmean(1, keepdim=True)"],
    "prod": ["torch.prod(x)", "x.prod(0)", "x.prod(-1, keepdim=True)",
             "x.prod(1, dtype=torch.float64)"],
    "std": ["torch.std(x)", "x.std(0)", "x.std(1, True, True)", "x.std(False)",
            "x.std((0, 1), correction=0)", "x.std(dim=1, unbiased=False, keepdim=True)"],
    "var": ["torch.var(x)", "x.var(0)", "x.var(-1, keepdim=True, correction=2)",
            "x.var(True)", "torch.var(x, dim=(0, 1), unbiased=False)"],
    "std_mean": ["torch.std_mean(x)", "torch.std_mean(x, 0, keepdim=True)",
                 "torch.std_mean(x, dim=1, correction=0)"],
    "var_mean": ["torch.var_mean(x)", "torch.var_mean(x, (0, 1))",
                 "torch.var_mean(x, 1, unbiased=False)"],
    "max": ["torch.max(x)", "x.max(0)", "x.max(-1, True)", "torch.max(x, dim=1, keepdim=True)",
            "torch.max(x, x.flip(0))", "x.max(1).values"],
    "min": ["torch.min(x)", "x.min(0)", "x.min(-1, True)", "torch.min(x, torch.ones_like(x))"],
    "amax": ["torch.amax(x)", "x.amax(0)", "x.amax((0, 1))", "x.amax(-1, keepdim=True)",
             "x.amax((0, 0))"],
    "amin": ["torch.amin(x)", "x.amin(1)", "x.amin((-1, 0), True)"],
    "aminmax": ["torch.aminmax(x)", "x.aminmax(dim=0)", "torch.aminmax(x, dim=-1, keepdim=True)",
                "torch.aminmax(x, keepdim=True)"],
    "argmax": ["torch.argmax(x)", "x.argmax(0)", "x.argmax(-1, keepdim=True)",
               "x.argmax(keepdim=True)", "torch.argmax(x, (0, 1))"],
    "argmin": ["torch.argmin(x)", "x.argmin(1)", "x.argmin(0, True)"],
    "all": ["torch.all(x)", "x.all(0)", "x.all(-1, keepdim=True)", "x.all((0, 1))"],
    "any": ["torch.any(x)", "x.any(1)", "x.any(0, keepdim=True)", "x.any((1, 0))"],
    "count_nonzero": ["torch.count_nonzero(x)", "x.count_nonzero(0)",
                      "torch.count_nonzero(x, (0, 1))"],
    "norm": ["torch.norm(x)", "x.norm(1)", "x.norm(float('inf'), 1)", "x.norm(p=3, dim=0)",
             "x.norm(0)", "x.norm('fro', (0, 1), True)", "x.norm('nuc')", "x.norm(-float('inf'))",
             "x.norm(2, 1, dtype=torch.float64)", "x.norm('nuc', 0)"],
    "logsumexp": ["torch.logsumexp(x, 1)", "x.logsumexp(0, True)", "x.logsumexp((0, 1))",
                  "x.logsumexp()"],
    "softmax": ["torch.softmax(x, 1)", "x.softmax(0)", "x.softmax(-1, dtype=torch.float64)",
                "x.softmax()"],
    "log_softmax": ["torch.log_softmax(x, 1)", "x.log_softmax(0)",
                    "torch.log_softmax(x, 0, dtype=torch.float64)"],
    "cumsum": ["torch.cumsum(x, 0)", "x.cumsum(-1)", "x.cumsum(1, dtype=torch.float64)",
               "x.cumsum()"],
    "cumprod": ["torch.cumprod(x, 1)", "x.cumprod(0)"],
    "cummax": ["torch.cummax(x, 0)", "x.cummax(-1)"],
    "cummin": ["torch.cummin(x, 1)", "x.cummin(0)"],
    "logcumsumexp": ["torch.logcumsumexp(x, 1)", "x.logcumsumexp(0)"],
    "sort": ["torch.sort(x)", "x.sort(0)", "x.sort(descending=True)",
             "torch.sort(x, dim=0, descending=True, stable=True)", "x.sort(stable=True)"],
    "argsort": ["torch.argsort(x)", "x.argsort(0, True)", "x.argsort(stable=True)",
                "torch.argsort(x, dim=1, descending=True, stable=True)"],
    "msort": ["torch.msort(x)", "x.msort()"],
    "topk": ["torch.topk(x.flatten().unique(), 2)", "x.flatten().unique().topk(3, largest=False)",
             "x.topk(5)", "x.topk(0)"],
    "kthvalue": ["torch.kthvalue(x, 2)", "x.kthvalue(1, 0)", "x.kthvalue(3, 0, True)",
                 "x.kthvalue(5)"],
    "median": ["torch.median(x)", "x.median(0)", "x.median(-1, True)", "x.flatten().median(0)"],
    "nanmedian": ["torch.nanmedian(x)", "x.nanmedian(0)", "x.nanmedian(1, keepdim=True)"],
    "mode": ["torch.mode(x)", "x.mode(0)", "x.mode(1, True)"],
    "quantile": ["torch.quantile(x, 0.3)", "x.quantile(0.5, dim=1)",
                 "torch.quantile(x, torch.tensor([0.25, 0.6], dtype=x.dtype), dim=0, keepdim=True)",
                 "torch.quantile(x, 0.4, interpolation='lower')",
                 "torch.quantile(x, 0.4, 1, interpolation='higher')",
                 "torch.quantile(x, 0.4, interpolation='midpoint')",
                 "torch.quantile(x, 0.45, 0, interpolation='nearest')"],
    "nanquantile": ["torch.nanquantile(x, 0.3)", "x.nanquantile(0.5, dim=1, keepdim=True)",
                    "torch.nanquantile(x, torch.tensor([0.0, 1.0], dtype=x.dtype), dim=1)"],
    "histc": ["torch.histc(x, bins=4)", "x.histc(5, 0, 6)", "torch.histc(x, 3, 2, 2)"],
    "unique": ["torch.unique(x)", "x.unique(return_inverse=True)",
               "torch.unique(x, return_counts=True, return_inverse=True)",
               "torch.unique(x, dim=1, return_counts=True)"],
    "unique_consecutive": ["torch.unique_consecutive(x)",
                           "x.unique_consecutive(return_inverse=True, return_counts=True)",
                           "torch.unique_consecutive(x, dim=0, return_counts=True)"],
    "bincount": ["torch.bincount(x.flatten())", "x.flatten().bincount(minlength=12)",
                 "torch.bincount(x.flatten(), torch.arange(12.))",
                 "torch.bincount(x.flatten(), torch.arange(12), 2)"],
    "trapezoid": ["torch.trapezoid(x)", "torch.trapezoid(x, dim=0)", "torch.trapz(x, dx=2)",
                  "torch.trapezoid(x, torch.arange(x.shape[-1]) * 2)"],
    "cumulative_trapezoid": ["torch.cumulative_trapezoid(x)",
                             "torch.cumulative_trapezoid(x, dx=0.5, dim=0)"],
}


def run_exprs(exprs, env):
    """Check each expression (evaluated with `env(torch)` as globals); name the failing one."""
    for expr in exprs:
        try:
            check(lambda torch: eval(expr, env(torch)))
        except AssertionError as e:
            raise AssertionError(f"{expr}: {e}") from None


def test_every_reduction_row_has_cases():
    rows = [n for n, r in registry.OPS.items() if r is not None and r.family == "reduction"
            and not n.startswith("_")]
    assert rows and not [n for n in rows if n not in CASES]


# (expression, dtype) pairs whose difference belongs to another family: binary max/min route to
# the pointwise `maximum`/`minimum`, which accept complex inputs that torch rejects.
ELSEWHERE = {("torch.max(x, x.flip(0))", "complex64"),
             ("torch.min(x, torch.ones_like(x))", "complex64")}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_table(name, dtype):
    build = make(dtype)
    exprs = [e for e in CASES[name] if (e, dtype) not in ELSEWHERE]
    run_exprs(exprs, lambda torch: {"torch": torch, "x": build(torch)})


@pytest.mark.parametrize("name", ["sum", "nansum", "mean", "nanmean", "std", "var", "max", "min",
                                  "amax", "amin", "argmax", "argmin", "sort", "argsort", "topk",
                                  "kthvalue", "median", "nanmedian", "cummax", "cummin",
                                  "cumsum", "logcumsumexp", "logsumexp", "quantile",
                                  "nanquantile", "norm", "softmax", "unique", "msort"])
def test_nan_inputs(name):
    build = make("float32", FLOAT_NAN)
    # unique() keeps NaNs distinct, so topk of it would be a tie between NaNs (order unspecified);
    # svd of non-finite values raises in torch (a value-dependent error)
    exprs = [e for e in CASES[name] if "unique()" not in e and "nuc" not in e]
    run_exprs(exprs, lambda torch: {"torch": torch, "x": build(torch)})


# ---- 0-dim and empty inputs --------------------------------------------------------------------

ZERO_DIM = ["x.sum()", "x.sum(0)", "x.sum(-1, True)", "x.sum(1)", "x.mean(0)", "x.prod(0)",
            "x.std()", "x.var(0)", "torch.max(x)", "x.max(0)", "x.max(-1, True)", "x.min(1)",
            "x.amax(0)", "x.argmax()", "x.argmax(0)", "x.argmin(-1, True)", "x.all(0)",
            "x.any()", "x.norm()", "x.logsumexp(0)", "x.softmax(0)", "x.log_softmax(-1)",
            "x.cumsum(0)", "x.cumprod(-1)", "x.cummax(0)", "x.logcumsumexp(0)", "x.sort()",
            "x.argsort(0)", "x.msort()", "x.topk(1)", "x.topk(2)", "x.kthvalue(1)", "x.median()",
            "x.median(0)", "x.nanmedian(0)", "x.mode()", "x.quantile(0.5)",
            "x.quantile(0.5, 0, True)", "x.unique()", "x.unique(return_inverse=True)",
            "x.count_nonzero()", "torch.aminmax(x)", "torch.aminmax(x, dim=0)",
            "x.sum((0, -1))"]

EMPTY = ["x.sum()", "x.sum(0)", "x.sum(1)", "x.mean()", "x.mean(0)", "x.prod(0)", "x.var()",
         "x.std(0)", "torch.max(x)", "x.max(0)", "x.max(1)", "x.min(1, True)", "x.amax()",
         "x.amax(0)", "x.amin(1)", "x.argmax()", "x.argmax(0)", "x.argmin(1)",
         "torch.aminmax(x)", "torch.aminmax(x, dim=0)", "torch.aminmax(x, dim=1)", "x.all()",
         "x.any(1)", "x.norm()", "x.norm(float('inf'))", "x.logsumexp(1)", "x.cumsum(0)",
         "x.sort()", "x.topk(0)", "x.median()", "x.median(0)", "x.median(1)", "x.mode(0)",
         "x.mode(1)", "x.quantile(0.5)", "x.unique()", "x.count_nonzero(0)", "x.softmax(1)",
         "x.nansum()", "x.histc(4)"]


@pytest.mark.parametrize("expr", ZERO_DIM)
def test_zero_dim(expr):
    check(lambda torch: eval(expr, {"torch": torch, "x": torch.tensor(2.5)}))


@pytest.mark.parametrize("expr", EMPTY)
def test_empty(expr):
    check(lambda torch: eval(expr, {"torch": torch, "x": torch.zeros(0, 3)}))


# ---- targeted cases ------------------------------------------------------------------------------

def test_ties_first_occurrence():
    data = np.array([[2.0, 7.0, 7.0, 1.0], [1.0, 1.0, 0.0, 0.0], [5.0, 5.0, 5.0, 5.0]])
    exprs = ["x.argmax(1)", "x.argmin(1)", "x.max(1)", "x.min(1)", "x.argmax()",
                 "x.sort(1)", "x.sort(1, descending=True)", "x.argsort(dim=0, stable=True)",
                 "x.median(1)", "x.mode(1)", "x.cummax(1)", "x.cummin(1)"]
    run_exprs(exprs, lambda torch: {"torch": torch, "x": torch.tensor(data)})


def test_nan_positions():
    v = [3.0, NAN, 1.0, NAN, 5.0]
    exprs = ["x.argmax()", "x.argmin()", "x.max(0)", "x.min(0)", "x.cummax(0)",
                 "x.cummin(0)", "x.sort()", "x.sort(descending=True)", "x.median(0)",
                 "x.nanmedian(0)", "x.kthvalue(4)", "x.topk(2)", "x.topk(2, largest=False)",
                 "x.amax()", "x.aminmax()", "x.quantile(0.5)", "x.nanquantile(0.5)",
                 "x.nansum()", "x.nanmean()", "torch.tensor([NAN, NAN]).nanmedian(0)",
                 "torch.tensor([NAN, 1., NAN]).cummax(0)"]
    run_exprs(exprs, lambda torch: {"torch": torch, "x": torch.tensor(v), "NAN": NAN})


def test_repr_matches():
    same_repr(lambda torch: torch.tensor([[1.0, 5.0], [3.0, 2.0]]).max(1))
    same_repr(lambda torch: torch.tensor([3, 1, 2]).sort())
    same_repr(lambda torch: torch.aminmax(torch.tensor([3, 1, 2])))
    same_repr(lambda torch: torch.tensor([3.0, 1.0]).topk(1))
    r = torchlike.max(torchlike.tensor([1, 2]), 0)
    assert type(r).__module__ == "torch.return_types" and type(r).__name__ == "max"
    assert r.values.item() == 2 and r.indices.item() == 1 and r[1].item() == 1
    assert torchlike.return_types.max is type(r)


def test_out_variants():
    def f(torch):
        x = torch.tensor([[1.0, 5.0, 2.0], [3.0, 0.0, 4.0]])
        o = torch.empty(3)
        torch.sum(x, 0, out=o)
        v, i = torch.empty(2), torch.empty(2, dtype=torch.long)
        r = torch.max(x, 1, out=(v, i))
        s = torch.sort(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
        m = torch.empty(2, 3)
        torch.max(x, x.flip(0), out=m)
        c = torch.cumsum(x, 1, out=torch.empty(2, 3))
        q = torch.quantile(x, 0.5, out=torch.empty(()))
        return o, v, i, r, s, m, c, q
    check(f)


def test_errors():
    x = "torch.tensor([[1., 2., 3.], [4., 5., 6.]])"
    i = "torch.tensor([[1, 2, 3], [4, 5, 6]])"
    exprs = [f"{i}.mean()", f"{i}.mean(dtype=torch.int64)", f"{x}.mean(dtype=torch.int32)",
                 f"{i}.nanmean()", f"{i}.std()", f"{x}.sum(2)", f"{x}.sum((0, 2))",
                 f"{x}.sum((0, -2))", f"{x}.max(2)", f"{x}.argmax(-3)",
                 f"torch.tensor([True]).argmax()", f"{x}.cfloat().max(0)",
                 f"{x}.cfloat().max()", f"{x}.cfloat().sort()", f"{x}.cfloat().median()",
                 f"{x}.kthvalue(4)", f"{x}.kthvalue(0)", f"{x}.topk(4)", f"{i}.quantile(0.5)",
                 f"{x}.quantile(1.5)", f"{x}.quantile(torch.tensor([0.1, 1.5]))",
                 f"{x}.quantile(torch.tensor([0.5], dtype=torch.float64))",
                 f"{x}.quantile(torch.tensor([[0.5]]))", f"{x}.quantile(0.5, interpolation='x')",
                 f"{i}.norm()", f"{x}.norm('foo')", f"{i}.softmax(1)", f"{i}.softmax(0)",
                 f"{i}.log_softmax(1)", f"{i}.logcumsumexp(0)", f"{i}.histc()",
                 f"{x}.histc(4, 3, 1)", "torch.bincount(torch.tensor([1., 2.]))",
                 "torch.bincount(torch.tensor([-1, 2]))", "torch.bincount(torch.tensor([[1]]))",
                 "torch.bincount(torch.tensor([1, 2]), torch.tensor([1.]))",
                 "torch.bincount(torch.tensor([1, 2]), minlength=-1)",
                 f"{x}.cfloat().nansum()", f"{x}.cfloat().argmax()", f"{x}.cfloat().mode()",
                 f"{x}.sum_to_size(2, 2)"]
    run_exprs(exprs, lambda torch: {"torch": torch})


def test_misc():
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
    exprs = ["x.sum_to_size(1, 3)", "x.sum_to_size((3,))", "x.sum_to_size(2, 1)",
                 "torch.sum(x.int())", "torch.sum(x.half())", "x.bool().sum(dtype=torch.bool)",
                 "x.sum(dtype=torch.int64)", "torch.var(torch.tensor([1.]))",
                 "x.std(0, correction=2)", "x.cdouble().var(0)", "x.cfloat().std_mean(1)",
                 "torch.tensor([1, 2, 2, 3, 3, 1]).mode()",
                 "torch.tensor([4, 2, 2, 3, 1, 4]).mode()",
                 "torch.histc(torch.tensor([0., .1, .2, .3, .7, 1.]), bins=10)",
                 "torch.histc(torch.tensor([1., 1, 1]), bins=3)",
                 "torch.unique(torch.tensor([3., -0., 0., 1.]))",
                 "torch.unique(torch.tensor([[1, 2], [1, 2], [0, 1]]), dim=0, return_inverse=True)",
                 "torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]), "
                 "return_counts=True, return_inverse=True)",
                 "torch.bincount(torch.tensor([], dtype=torch.long))",
                 "torch.bincount(torch.tensor([1, 2], dtype=torch.uint8), "
                 "torch.tensor([.5, 1.], dtype=torch.float64))",
                 "torch.logsumexp(torch.tensor([-float('inf'), -float('inf')]), 0)",
                 "torch.logcumsumexp(torch.tensor([-float('inf'), 1., float('inf')]), 0)",
                 "torch.softmax(torch.tensor([[-float('inf'), -float('inf')]]), 1)",
                 "x.int().cumsum_(0)", "torch.max(x, other=x.flip(1))", "x.norm(2.5, 1, True)",
                 "torch.quantile(torch.tensor([0., 1., 2., 3.]).double(), "
                 "torch.tensor([0.5, 0.25, 0.75, 1/3]).double(), interpolation='nearest')"]
    run_exprs(exprs, lambda torch: {"torch": torch, "x": torch.tensor(x)})


def test_reduction_fixes():
    exprs = ["torch.logcumsumexp(torch.tensor([[1+1j, 2-3j, -1+0.5j, 0.5+2j]]), 1)",
             "torch.logcumsumexp(torch.tensor([[1+1j, 2-3j, -1+0.5j]], dtype=torch.complex128), 1)",
             "torch.ones(2, 3, dtype=torch.uint8).sum_to_size(1, 3)",
             "torch.renorm(torch.tensor(1.), 2, 0, 1.)",
             "torch.renorm(torch.zeros(3), 2, 0, 1.)"]
    run_exprs(exprs, lambda torch: {"torch": torch})


def test_half_sum_with_explicit_dtype_accumulates_in_float32():
    """`sum(x, dtype=torch.float16)`: PyTorch's CPU kernel accumulates in float32 and rounds
    once (in float16 the running sum of 1001 values stalls)."""
    check(lambda torch: [torch.sum(torch.linspace(0, 1, 1001).to(d), dtype=d)
                         for d in (torch.float16, torch.bfloat16)] +
          [torch.linspace(0, 1, 1001).sum(dtype=torch.float16),
           torch.nansum(torch.linspace(0, 1, 1001).half(), dtype=torch.float16)])


@pytest.mark.parametrize("expr", ["torch.max(2, 3)", "torch.min(2.0)",
                                  "torch.max(2, torch.ones(1))", "torch.min([1, 2])"])
def test_max_min_of_numbers_raise_pytorchs_type_error(expr):
    check(lambda torch: eval(expr))
