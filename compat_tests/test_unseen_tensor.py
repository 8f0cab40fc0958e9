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


# ---- NumPy interop: scalars/arrays on the left, ufuncs on tensors, t == ndarray ---------------

@pytest.mark.parametrize("expr", [
    "np.float32(2.0) * t", "np.float64(2.0) + t", "np.int64(2) - torch.tensor([1, 2])",
    "np.float32(2) > t", "np.float32(2) / t", "np.int32(7) // torch.tensor([2])",
    "np.int64(2) ** torch.tensor([3])", "np.float64(3) * t.half()",
    "np.sin(t)", "np.sqrt(t)", "np.exp(t)", "np.add(t, 1)", "np.isnan(t)", "np.greater(t, 1)",
    "np.argmax(t)", "np.round(t)", "np.clip(t, 0, 2)", "np.abs(torch.tensor([-1, 2]))",
    "t + np.array([1., 2., 3.])", "t * np.array(2.)",
    "t == np.array([1., 0., 4.])", "t == np.array(2.0)", "torch.tensor([1, 2]) == np.array([1.5, 2])",
    "t.__eq__(np.array([1., 2., 3.]))", "t != np.array([1., 2., 3.])", "t == [1., 2., 4.]",
])
def test_numpy_mixed_operands(expr):
    import numpy as np
    check(lambda torch: eval(expr, dict(torch=torch, np=np, t=torch.tensor([1., 2., 4.]))))


# ---- filling with a Python number outside the dtype's range ------------------------------------

def _setitem(t, k, v):
    t[k] = v
    return t


@pytest.mark.parametrize("expr", [
    "torch.full((2,), 1e40, dtype=torch.float32)", "torch.full((2,), 300, dtype=torch.uint8)",
    "torch.full((2,), -1, dtype=torch.uint8)", "torch.full((2,), -255, dtype=torch.uint8)",
    "torch.full((2,), -256, dtype=torch.uint8)", "torch.full((2,), 2**31, dtype=torch.int32)",
    "torch.full((2,), 1e5, dtype=torch.float16)", "torch.full((1,), 1e5, dtype=torch.float16)",
    "torch.full((), 1e39, dtype=torch.bfloat16)", "torch.full((2, 2), 1e40)",
    "torch.full((2,), 3e38)", "torch.full((2,), float('inf'), dtype=torch.float16)",
    "torch.full((2,), float('inf'), dtype=torch.int32)",
    "torch.full((2,), float('nan'), dtype=torch.int64)", "torch.full((2,), 1.5, dtype=torch.int32)",
    "torch.full((2,), 255.9, dtype=torch.uint8)", "torch.full((2,), -1.0, dtype=torch.uint8)",
    "torch.full((2,), 1e40, dtype=torch.complex64)", "torch.full((2,), 1 + 0j)",
    "torch.full((2,), 1 + 2j, dtype=torch.float32)", "torch.full((2,), 5, dtype=torch.bool)",
    "torch.full((2,), 2**64 - 1, dtype=torch.uint64)", "torch.full((2,), 10**30)",
    "torch.full((2,), 2**63 - 1)", "torch.full_like(torch.zeros(2, dtype=torch.int8), 128)",
    "torch.ones(2).new_full((2,), 1e40)", "torch.scalar_tensor(1e40)",
    "torch.scalar_tensor(300, dtype=torch.uint8)",
    "torch.full((2,), torch.tensor(1e40, dtype=torch.float64))",
    "torch.zeros(2).fill_(1e40)", "torch.zeros(2, dtype=torch.uint8).fill_(300)",
    "torch.zeros(2, dtype=torch.uint8).fill_(-255)", "torch.zeros(2, dtype=torch.int8).fill_(-129)",
    "torch.zeros(3, dtype=torch.float16).fill_(1e5)", "torch.zeros(1, dtype=torch.float16).fill_(1e5)",
    "torch.zeros(2).fill_(1 + 2j)", "torch.zeros(2).fill_(torch.tensor(1e40, dtype=torch.float64))",
    "torch.zeros(2).masked_fill(torch.tensor([True, False]), 1e40)",
    "torch.zeros(2, dtype=torch.uint8).masked_fill(torch.tensor([True, False]), -3)",
    "torch.zeros(2, dtype=torch.int32).masked_fill(torch.tensor([True, False]), 1.5)",
    "torch.zeros(3).index_fill(0, torch.tensor([1]), -1e40)",
    "torch.zeros(2, dtype=torch.uint8).index_fill(0, torch.tensor([0]), 256)",
    "torch.zeros(3, dtype=torch.uint8).scatter(0, torch.tensor([0]), 300)",
    "_setitem(torch.zeros(3, dtype=torch.uint8), 0, 300)",
    "_setitem(torch.zeros(3, dtype=torch.uint8), slice(None), 300)",
    "_setitem(torch.zeros(3, dtype=torch.uint8), torch.tensor([0, 1]), 300)",
    "_setitem(torch.zeros(3, dtype=torch.uint8), torch.tensor([True, False, True]), 300)",
    "_setitem(torch.zeros(3, dtype=torch.uint8), 0, -1)", "_setitem(torch.zeros(3), 0, 1e40)",
    "_setitem(torch.zeros(3, dtype=torch.float16), slice(None), 1e5)",
    "_setitem(torch.zeros(3, dtype=torch.float16), 0, 1e5)",
    "_setitem(torch.zeros(3, requires_grad=True).clone(), 0, 1e40)",
])
def test_fill_value_overflow(expr):
    check(lambda torch: eval(expr, dict(torch=torch, _setitem=_setitem)))


# ---- NumPy keyword spellings (axis=, keepdims=) on table ops ----------------------------------

@pytest.mark.parametrize("expr", [
    "x.sum(axis=1)", "x.sum(axis=1, keepdims=True)", "torch.mean(x, axis=0)",
    "torch.sum(x, dim=1, keepdims=True)", "torch.argmax(x, axis=1)", "x.cumsum(axis=0)",
    "x.prod(axis=1)", "torch.softmax(x, axis=0)", "x.amax(axis=1)", "x.any(axis=0)",
    "torch.logsumexp(x, axis=1)", "x.argsort(axis=1)", "x.nansum(axis=0)", "x.all(axis=1)",
    "x.mean(axis=(0, 1))", "x.cumprod(axis=1)", "x.log_softmax(axis=1)",
    "x.sum(1, keepdims=True)", "x.mean(1, keepdims=True)", "x.clone().cumsum_(axis=1)",
])
def test_numpy_keyword_names(expr):
    check(lambda torch: eval(expr, dict(torch=torch, x=torch.tensor([[3., 1., 2.],
                                                                      [6., 5., 4.]]))))
