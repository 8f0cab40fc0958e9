"""Differential tests for tensor-level behaviour found by writing tutorial-style scripts."""
import pytest

from harness import check, same_repr


# ---- torch.return_types reprs for linalg / frexp -------------------------------------------

_A = [[2.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 4.0]]


@pytest.mark.parametrize("expr", [
    "torch.slogdet(A)", "torch.linalg.slogdet(A)", "torch.linalg.eigh(A)",
    "torch.linalg.cholesky_ex(A)", "torch.linalg.inv_ex(A)",
    "torch.frexp(torch.tensor([1.5, -8.0]))",
])
def test_return_types_repr(expr):
    same_repr(lambda torch: eval(expr, dict(torch=torch, A=torch.tensor(_A, dtype=torch.float64))))


@pytest.mark.parametrize("expr", [
    "type(torch.slogdet(A)).__module__", "type(torch.linalg.eig(A)).__name__",
    "torch.linalg.svd(A).S", "torch.svd(A).V.shape", "type(torch.linalg.qr(A)).__name__",
])
def test_return_types_names(expr):
    check(lambda torch: eval(expr, dict(torch=torch, A=torch.tensor(_A))))


# ---- matmul family: which check fires first -------------------------------------------------

_MM_ERRORS = [
    "torch.mm(o(2, 3), o(2, 3, dtype=d))", "torch.mm(o(2, 3), o(3, 3, dtype=d))",
    "torch.matmul(o(3), o(2, 3, dtype=d))", "torch.matmul(o(2, 3), o(3, dtype=d))",
    "o(2, 3) @ o(2, dtype=d)", "o(4, 2, 3) @ o(2, dtype=d)", "o(4, 2, 3) @ o(3, dtype=d)",
    "o(4, 2, 3) @ o(2, 2)", "o(4, 2, 3) @ o(3, 3, dtype=d)", "o(4, 2, 3) @ o(4, 2, 3, dtype=d)",
    "o(4, 2, 3) @ o(4, 3, 3, dtype=d)", "o(2, 3) @ o(4, 2, 2, dtype=d)",
    "torch.bmm(o(1, 2, 3), o(2, 3, 3, dtype=d))", "torch.bmm(o(1, 2, 3), o(1, 3, 3, dtype=d))",
    "torch.mv(o(2, 3), o(2, dtype=d))", "torch.mv(o(2, 3), o(3, dtype=d))",
    "torch.addmm(o(2, 3), o(2, 3), o(3, 3, dtype=d))",
    "torch.addmm(o(2, 3, dtype=d), o(2, 3), o(3, 3))",
    "torch.addmm(o(2, 3, dtype=d), o(2, 3), o(2, 3))",
    "torch.addmm(o(2, 3), o(2, 3, dtype=d), o(3, 3))",
    "torch.addmm(o(2, 3, dtype=torch.int64), o(2, 3), o(3, 3))",
    "torch.addmv(o(2), o(2, 3), o(3, dtype=d))", "torch.addmv(o(2, dtype=d), o(2, 3), o(3))",
    "torch.addmv(o(2), o(2, 3), o(2, dtype=d))",
    "torch.baddbmm(o(1, 2, 3), o(1, 2, 3, dtype=d), o(1, 3, 3))",
    "torch.baddbmm(o(1, 2, 3, dtype=d), o(1, 2, 3), o(1, 3, 3))",
    "torch.baddbmm(o(1, 2, 3, dtype=torch.int64), o(1, 2, 3), o(1, 3, 3))",
    "torch.baddbmm(o(1, 2, 3), o(1, 2, 3), o(1, 2, 3, dtype=d))",
    "torch.baddbmm(o(1, 2, 3, dtype=d), o(1, 2, 3, dtype=d), o(1, 3, 3))",
    "torch.addbmm(o(2, 3), o(1, 2, 3, dtype=d), o(1, 3, 3))",
    "torch.addbmm(o(2, 3, dtype=d), o(1, 2, 3), o(1, 3, 3))",
    "torch.addbmm(o(2, 3), o(1, 2, 3), o(1, 2, 3, dtype=d))",
    "torch.addbmm(o(2, 3), o(1, 2, 3), o(2, 3, 3))",
    "torch.addbmm(o(2, 3, dtype=b), o(1, 2, 3, dtype=b), o(1, 3, 3, dtype=b))",
    "torch.baddbmm(o(1, 2, 3, dtype=b), o(1, 2, 3, dtype=b), o(1, 3, 3, dtype=b))",
    "torch.addbmm(o(2, 3), o(2, 2, 3), o(2, 3, 3), beta=0.5)",
    "o(2, 3, 4, dtype=b) @ o(4, 2, dtype=b)",
]


@pytest.mark.parametrize("expr", _MM_ERRORS)
def test_matmul_family_check_order(expr):
    check(lambda torch: eval(expr, dict(torch=torch, o=torch.ones, d=torch.float64,
                                        b=torch.bool)))


# ---- einsum sublist form ----------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "torch.einsum(a, [0, 1], b, [1, 2], [0, 2])", "torch.einsum(a, [0, 1], b, [1, 2])",
    "torch.einsum(a, [..., 1], b, [1, 2], [..., 2])", "torch.einsum(a, [30, 1])",
    "torch.einsum(a, [0, 1], [1])", "torch.einsum(a, [60, 1])", "torch.einsum()",
    "torch.einsum(a, [0, 0])",
])
def test_einsum_sublist(expr):
    check(lambda torch: eval(expr, dict(torch=torch, a=torch.arange(6.).reshape(2, 3),
                                        b=torch.arange(12.).reshape(3, 4))))
