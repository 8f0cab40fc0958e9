"""Core smoke tests: storage sharing through views and NumPy, in-place errors, promotion."""
import numpy as np
import pytest

from harness import check


def test_transpose_shares_storage_and_data_ptr():
    def f(torch):
        x = torch.tensor([[1, 2, 3], [4, 5, 6]])
        y = x.transpose(0, 1)
        y.select(0, 0).select(0, 1).fill_(40)
        return (x.data_ptr() == y.data_ptr(), x.is_contiguous(), y.is_contiguous(), y.stride(),
                x.narrow(1, 1, 2).data_ptr() - x.data_ptr(), x)
    check(f)


def test_inplace_through_select_view():
    def f(torch):
        x = torch.arange(12.).view(3, 4)
        x.select(1, 2).mul_(10)
        x.t().add_(1)
        return x, x._version
    check(f)


def test_view_errors():
    check(lambda torch: torch.ones(4, 4).t().view(16))
    check(lambda torch: torch.ones(3).view(4, 4))
    check(lambda torch: torch.ones(1, 3, 1).add_(torch.ones(3, 1, 7)))
    check(lambda torch: torch.ones(3, dtype=torch.long).add_(torch.ones(3)))
    check(lambda torch: torch.ones(2, 3) + torch.ones(3, 2))


@pytest.mark.parametrize("expr", ["x * 2.5", "x / 2", "x + True", "x // 2", "x - 1", "x ** 2",
                                  "x % 3", "x == 2", "2 - x", "2.0 / x"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float32", "float64", "bool"])
def test_scalar_promotion(expr, dtype):
    def f(torch):
        x = torch.tensor([1, 2, 3]).to(getattr(torch, dtype))
        return eval(expr)
    check(f)


def test_numpy_sharing_both_ways():
    def f(torch):
        a = np.array([1, 2, 3])
        t = torch.from_numpy(a)
        t.add_(1)
        a[0] = 100
        b = torch.ones(5)
        n = b.numpy()
        n[1] = 7
        b.mul_(2)
        return t, a.tolist(), b, n.tolist()
    check(f)
