"""The op table's cached path (torchlike/_ops/fastpath.py) answers exactly as the dispatcher.

Each case repeats a call so that the cached path has an entry, then changes what the entry must
not cover (grad mode, a tensor's storage, the default dtype, a scalar's sign, the result's fit
for an in-place write, ...) and compares the outcome with PyTorch's."""
import pytest

from harness import check


def _warm(fn, n=3):
    for _ in range(n):
        fn()


def test_requires_grad_after_cached_calls():
    def f(torch):
        x = torch.ones(3)
        _warm(lambda: x * x + x)
        x.requires_grad_()
        y = (x * x + x).sum()
        y.backward()
        return y.grad_fn.name(), x.grad
    check(f)


def test_no_grad_with_a_tensor_that_requires_grad():
    def f(torch):
        x = torch.ones(3, requires_grad=True)
        with torch.no_grad():
            _warm(lambda: x + x)
            y = x + x
        return y.requires_grad, y.grad_fn is None, (x + x).grad_fn.name()
    check(f)


def test_storage_shared_with_numpy_after_cached_calls():
    def f(torch):
        x = torch.ones(3)
        _warm(lambda: x + x)
        a = x.numpy()
        a[0] = 5
        y = x + x
        x.add_(1)
        return y, x, a.tolist()
    check(f)


def test_default_dtype_change_between_cached_calls():
    def f(torch):
        x = torch.arange(3)
        _warm(lambda: x.sqrt())
        torch.set_default_dtype(torch.float64)
        try:
            return x.sqrt().dtype, (x / 2).dtype, (x * 0.5).dtype
        finally:
            torch.set_default_dtype(torch.float32)
    check(f)


@pytest.mark.parametrize("expr", ["x * -0.0", "x + (-0.0)", "x.add(x, alpha=-0.0)",
                                  "x.sub(x, alpha=-0.0)", "x.mul(-0.0j)"])
def test_signed_zero_scalars_after_recurring_zeros(expr):
    def f(torch):
        x = torch.zeros(2)
        _warm(lambda: (x * 0.0, x + 0.0, x.add(x, alpha=0.0), x.mul(0j)), 4)
        return eval(expr)
    check(f)


def test_scalar_argument_types_are_told_apart():
    def f(torch):
        x = torch.ones(3, dtype=torch.float64)
        i = torch.ones(3, dtype=torch.int32)
        out = []
        for _ in range(3):
            out += [x.add(x), x.add(x, alpha=1), x.add(x, alpha=2.5), i.add(i, alpha=2),
                    i + 1, i + 1.5, i * True, x.sum(0), x.sum(dim=0, keepdim=True)]
        return out
    check(f)


def test_inplace_errors_after_cached_function_calls():
    def f(torch):
        x1, x2 = torch.ones(3), torch.ones(2, 3)
        i = torch.ones(3, dtype=torch.int64)
        _warm(lambda: (x1 + x2, i + 1.5))
        errors = []
        for op in (lambda: x1.add_(x2), lambda: i.add_(1.5), lambda: i.mul_(x1)):
            for _ in range(2):
                try:
                    op()
                except RuntimeError as e:
                    errors.append(str(e))
        return errors, x1, i, x1._version, i._version
    check(f)


def test_inplace_version_counter_and_aliases():
    def f(torch):
        x = torch.ones(4)
        v = x.view(2, 2)
        for _ in range(3):
            x.add_(1)
            x.mul_(2)
        return x._version, v, v._version
    check(f)


def test_integer_division_by_zero_keeps_raising():
    def f(torch):
        a, z = torch.tensor([4, 6]), torch.tensor([1, 2])
        _warm(lambda: a // z)
        errors = []
        for _ in range(2):
            try:
                a // torch.tensor([0, 1])
            except RuntimeError as e:
                errors.append(str(e))
        return errors
    check(f)


def test_unsupported_operands_after_cached_calls():
    def f(torch):
        x = torch.ones(2)
        _warm(lambda: x + x)
        out = []
        for other in ("a", [1, 2], None):
            try:
                out.append(x + other)
            except TypeError as e:
                out.append(type(e).__name__)
        return out
    check(f)


def test_autocast_after_cached_calls():
    def f(torch):
        a = torch.ones(4, 4)
        _warm(lambda: a @ a)
        with torch.autocast("cpu"):
            inside = (a @ a).dtype
        return inside, (a @ a).dtype
    check(f)


def test_parameter_inplace_under_no_grad():
    def f(torch):
        p = torch.nn.Parameter(torch.ones(3))
        g = torch.full((3,), 0.5)
        with torch.no_grad():
            for k in range(4):
                p.add_(g, alpha=-0.1 * (k + 1))
        return p, type(p).__name__, p.requires_grad
    check(f)


def test_optional_bounds_and_checked_numbers_after_cached_calls():
    """`clamp(min=0)` (a None bound) runs on the cached path; the bounds' fit checks, which
    remember numbers that passed, still raise for one that does not, and signed zeros and NaN
    as recurring numbers keep their values."""
    def f(torch):
        x = torch.tensor([-1.5, 0.25, 3.0])
        i8 = torch.tensor([1, -100, 100], dtype=torch.int8)
        out = []
        for _ in range(4):
            out += [x.clamp(min=0), x.clamp(max=1.0), x.clamp(-1, None), x.clamp(None, 2),
                    i8.clamp(max=50), x * -0.0, x * 0.0, x * float("nan"),
                    torch.clamp(x, min=torch.tensor(0.5))]
        try:
            i8.clamp(max=1000)
        except RuntimeError as e:
            out.append(str(e))
        out.append(i8.clamp(max=100))
        try:
            i8.clamp_(min=0.5)
        except RuntimeError as e:
            out.append(str(e))
        return out
    check(f)
