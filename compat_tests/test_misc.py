"""Tensor odds and ends (membership, callbacks, memory no-ops, legacy `new`, small composites),
compared with real PyTorch."""
import numpy as np
import pytest

from harness import check

X = np.array([[1.0, -2.0, 3.0], [4.0, 0.5, -6.0], [7.0, 8.0, 9.5]])


def test_membership_and_flags():
    def f(torch):
        x = torch.tensor(X)
        return (3.0 in x, 10 in x, torch.tensor(8.) in x, x.dim_order(), x.t().dim_order(),
                x.is_shared(), x.is_pinned(), x.is_inference(), x.is_conj(), x.is_neg(),
                x.resolve_conj() is x, x.resolve_neg() is x, x.share_memory_() is x,
                torch.is_conj(x), torch.is_neg(x), x.real is x, x.pin_memory().is_pinned() is False
                if False else None)
    check(f)


def test_contains_error_and_imag_error():
    check(lambda torch: "a" in torch.tensor(X))
    check(lambda torch: torch.tensor(X).imag)


def test_apply_and_map():
    def f(torch):
        x = torch.tensor(X)
        x.apply_(lambda v: v * 2 + 1)
        y = torch.tensor(X)
        y.map_(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), lambda a, b: a * b)
        try:
            y.map_(torch.tensor([1.0, 2.0, 3.0]), lambda a, b: a)
        except TypeError as e:
            err = str(e)
        return x, y, err
    check(f)


def test_legacy_new():
    def f(torch):
        x = torch.tensor(X, dtype=torch.float64)
        i = torch.tensor([1, 2])
        return x.new(2, 3).shape, x.new(2, 3).dtype, x.new([1, 2]), x.new().shape, i.new([3.7])
    check(f)


@pytest.mark.parametrize("wrap", [False, True])
@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5), (7, 2), (2, 2, 2)])
def test_fill_diagonal(shape, wrap):
    def f(torch):
        x = torch.zeros(*shape)
        return x.fill_diagonal_(4.5, wrap=wrap)
    check(f)


def test_fill_diagonal_errors():
    check(lambda torch: torch.zeros(3).fill_diagonal_(1))
    check(lambda torch: torch.zeros(2, 3, 4).fill_diagonal_(1))


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, float("inf"), 0])
def test_dist(p):
    check(lambda torch: torch.dist(torch.tensor(X), torch.tensor(X).flip(0), p))


def test_cov_corrcoef():
    def f(torch):
        x = torch.tensor(X)
        fw = torch.tensor([1, 2, 1])
        aw = torch.tensor([0.5, 1.0, 2.0])
        return (torch.cov(x), torch.cov(x, correction=0), torch.cov(x[0]),
                torch.cov(x, fweights=fw), torch.cov(x, aweights=aw),
                torch.cov(x, fweights=fw, aweights=aw), torch.corrcoef(x), x.cov(),
                x.corrcoef(), torch.cov(torch.tensor([[1, 2, 4], [3, 1, 0]])))
    check(f)


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 5.0), (1, 1, 3.0), (2, -1, 100.0)])
def test_renorm(p, dim, maxnorm):
    def f(torch):
        x = torch.tensor(X)
        y = x.clone()
        y.renorm_(p, dim, maxnorm)
        return torch.renorm(x, p, dim, maxnorm), y
    check(f)


def test_deepcopy_non_leaf_raises():
    import copy

    def non_leaf(torch):
        x = torch.ones(2).requires_grad_()
        return copy.deepcopy(x * 2)

    def non_leaf_under_no_grad(torch):
        y = torch.ones(2).requires_grad_() * 2
        with torch.no_grad():
            return copy.deepcopy(y)

    def non_leaf_view(torch):
        return copy.deepcopy(torch.ones(3).requires_grad_()[1:])

    def leaves(torch):
        x = torch.ones(2).requires_grad_()
        with torch.no_grad():
            z = x * 2
        p = torch.nn.Parameter(torch.ones(2))
        d = copy.deepcopy({"x": x, "z": z, "p": p, "v": x.detach()[1:]})
        return (d["x"], d["x"].requires_grad, d["x"].is_leaf, d["z"], d["z"].requires_grad,
                type(d["p"]).__name__, d["p"].requires_grad, d["v"])
    for f in (non_leaf, non_leaf_under_no_grad, non_leaf_view, leaves):
        check(f)


X4 = np.arange(12.0).reshape(3, 4)

# a bool (or float, None, ...) where PyTorch's schema says int: its argument parser's TypeError,
# positions counted as it does (from 1 for a method's first argument; none for a keyword)
INT_ARGS = [
    "torch.topk(x, True)", "x.topk(k=True)", "x.topk(True)", "torch.topk(x, k=True)",
    "torch.topk(x, 1, True)", "x.topk(1, dim=True)", "torch.topk(x, 1.5)",
    "x.topk(np.bool_(True))", "x.topk(np.float32(2))", "x.topk('a')", "x.topk(None)",
    "x.topk(torch.tensor(2.))", "x.topk(torch.tensor([[2]]))", "x.topk(np.int32(2), np.int64(0))",
    "torch.kthvalue(x, True)", "x.kthvalue(1, dim=True)", "torch.mode(x, True)",
    "torch.softmax(x, True)", "x.softmax(dim=True)", "x.log_softmax(1.0)", "torch.cumsum(x, True)",
    "x.cumsum_(True)", "torch.cummax(x, dim=True)", "torch.logcumsumexp(x, True)",
    "torch.argmax(x, True)", "x.argmin(dim=True)", "torch.argmax(x, None)", "torch.argmax(x, (0,))",
    "torch.histc(x, True)", "x.histc(2.0)", "torch.aminmax(x, dim=True)",
    "torch.tril(x, True)", "x.triu_(diagonal=True)", "x.tril(np.int64(1))", "torch.diag(x, True)",
    "torch.diag_embed(x, 0, -2, True)", "torch.diagflat(x, True)", "torch.narrow_copy(x, True, 0, 1)",
    "torch.diff(x, True)", "x.diff(dim=True)", "torch.matrix_power(torch.eye(2), True)",
    "torch.linalg.matrix_power(torch.eye(2), True)", "torch.cross(torch.eye(3), torch.eye(3), True)",
    "torch.linalg.cross(torch.eye(3), torch.eye(3), dim=True)",
    "torch.linalg.vecdot(torch.eye(3), torch.eye(3), dim=True)",
    "torch.combinations(torch.arange(3), True)", "torch.rot90(x, True)",
    # int lists: a bare bool, a bad first element, a later element that is no index
    "torch.roll(x, True)", "x.roll(1, True)", "torch.roll(x, shifts=True)", "torch.roll(x, 1.)",
    "torch.roll(x, [1, 2.], [0, 1])", "torch.roll(x, (1, True), (0, 1))",
    "torch.roll(x, np.int64(1), 0)", "torch.roll(x, torch.tensor(1))", "torch.roll(x, 1, None)",
    "torch.flip(x, True)", "torch.flip(x, dims=True)", "torch.flip(x, (True,))",
    "torch.flip(x, (0, True))", "torch.flip(x, [0, 1.])", "torch.flip(x, 0)", "torch.flip(x, None)",
    "torch.rot90(x, 1, True)", "torch.rot90(x, np.int64(3), [np.int64(1), 0])",
]


@pytest.mark.parametrize("expr", INT_ARGS)
def test_int_arguments(expr):
    check(lambda torch: eval(expr, {"torch": torch, "np": np, "x": torch.tensor(X4)}))
