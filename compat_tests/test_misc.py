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
