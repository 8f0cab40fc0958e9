"""torch.testing against real torch: assert_close (passes, failures with PyTorch's exact
messages, tolerances by dtype, every check_* flag, msg, sequences and mappings, scalars),
the deprecated assert_allclose, and make_tensor (dtype, shape, range, contiguity, errors; the
values themselves come from each library's own generator)."""
import warnings

import numpy as np
import pytest

from harness import check

ASSERT_CLOSE = [
    # passes
    "T.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.]))",
    "T.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.00001]))",
    "T.assert_close(torch.tensor([1., 2.], dtype=torch.float64), torch.tensor([1., 2.0000001], dtype=torch.float64))",
    "T.assert_close(torch.tensor([100.]), torch.tensor([100.0001]))",
    "T.assert_close(torch.tensor([1.], dtype=torch.float16), torch.tensor([1.001], dtype=torch.float16))",
    "T.assert_close(torch.tensor([1.], dtype=torch.bfloat16), torch.tensor([1.01], dtype=torch.bfloat16))",
    "T.assert_close(torch.tensor([float('inf'), -float('inf')]), torch.tensor([float('inf'), -float('inf')]))",
    "T.assert_close(torch.tensor([float('nan'), 1.]), torch.tensor([float('nan'), 1.]), equal_nan=True)",
    "T.assert_close(torch.tensor([1.]), torch.tensor([1.], dtype=torch.float64), check_dtype=False)",
    "T.assert_close(torch.tensor([1, 2]), torch.tensor([1., 2.]), check_dtype=False)",
    "T.assert_close(torch.ones(2, 3), torch.ones(3, 2).t())",
    "T.assert_close(torch.ones(2), torch.ones(2) + 0.5, rtol=0, atol=0.5)",
    "T.assert_close(torch.empty(2, device='meta'), torch.empty(2, device='meta'))",
    "T.assert_close(torch.zeros(0, 3), torch.zeros(0, 3))",
    "T.assert_close([torch.ones(2), 1, (2.0, None)], [torch.ones(2), 1, (2.0, None)])",
    "T.assert_close({'a': torch.ones(1), 'b': [True]}, {'b': [True], 'a': torch.ones(1)})",
    "T.assert_close(1.0, 1.0 + 1e-9)", "T.assert_close(3, 3)", "T.assert_close(1 + 2j, 1 + 2j)",
    "T.assert_close(None, None)", "T.assert_close(np.ones(3), np.ones(3))",
    "T.assert_close(np.float32(1), np.float32(1))", "T.assert_close(np.bool_(True), True)",
    "T.assert_close(float('nan'), float('nan'), equal_nan=True)",
    "T.assert_close(torch.tensor([1 + 1j]), torch.tensor([1 + 1.000001j]))",
    # value mismatches: PyTorch's messages
    "T.assert_close(torch.tensor([1., 2., 3.]), torch.tensor([1., 2.5, 3.1]))",
    "T.assert_close(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[1., 2.], [3.5, 4.]]))",
    "T.assert_close(torch.tensor([[0., 2.], [3., -4.]]), torch.tensor([[1., 2.], [3., 4.]]))",
    "T.assert_close(torch.tensor([1., 1.]), torch.tensor([2., 2.]))",
    "T.assert_close(torch.tensor(1.), torch.tensor(1.5))",
    "T.assert_close(torch.tensor(1), torch.tensor(2))",
    "T.assert_close(torch.tensor([0.]), torch.tensor([1.]))",
    "T.assert_close(torch.tensor([1.]), torch.tensor([0.]))",
    "T.assert_close(torch.tensor([1., 2.], dtype=torch.float64), torch.tensor([1., 2.000001], dtype=torch.float64))",
    "T.assert_close(torch.tensor([1.], dtype=torch.float16), torch.tensor([1.01], dtype=torch.float16))",
    "T.assert_close(torch.tensor([1, 2]), torch.tensor([1, 3]))",
    "T.assert_close(torch.tensor([0, 5], dtype=torch.uint8), torch.tensor([3, 2], dtype=torch.uint8))",
    "T.assert_close(torch.tensor([5, 0], dtype=torch.int32), torch.tensor([5, 0], dtype=torch.int32) + 1)",
    "T.assert_close(torch.tensor([[True, False]]), torch.tensor([[True, True]]))",
    "T.assert_close(torch.tensor([1 + 1j, 2]), torch.tensor([1 + 2j, 2]))",
    "T.assert_close(torch.tensor([1 + 1j, 2], dtype=torch.complex128), torch.tensor([1 + 1j, 2.5]))",
    "T.assert_close(torch.tensor([float('nan')]), torch.tensor([float('nan')]))",
    "T.assert_close(torch.tensor([1., float('nan')]), torch.tensor([1., 2.]))",
    "T.assert_close(torch.tensor([float('inf')]), torch.tensor([-float('inf')]))",
    "T.assert_close(torch.tensor([1., 0.]), torch.tensor([1., 1e-30]), rtol=0, atol=0)",
    "T.assert_close(torch.tensor([1]), torch.tensor([1.5]), check_dtype=False)",
    "T.assert_close(torch.arange(10.), torch.arange(10.) * 1.01)",
    "T.assert_close(torch.ones(2), torch.ones(2) + 0.5, rtol=0.1, atol=0.1)",
    # attribute mismatches
    "T.assert_close(torch.ones(2), torch.ones(3))",
    "T.assert_close(torch.ones(2), torch.ones(1, 2))",
    "T.assert_close(torch.tensor([1.]), torch.tensor([1.], dtype=torch.float64))",
    "T.assert_close(torch.tensor([1]), torch.tensor([1], dtype=torch.int32))",
    "T.assert_close(torch.ones(2, 3), torch.ones(3, 2).t(), check_stride=True)",
    "T.assert_close(torch.ones(2), torch.empty(2, device='meta'))",
    "T.assert_close(torch.ones(2), torch.zeros(2, device='meta'), check_device=False)",
    "T.assert_close(torch.ones(2), torch.ones(2, dtype=torch.float64), check_layout=False)",
    # arguments
    "T.assert_close(torch.ones(2), torch.ones(2), rtol=1e-3)",
    "T.assert_close(torch.ones(2), torch.ones(2), atol=1e-3)",
    "T.assert_close(1.0, 1.5, rtol=None, atol=0.1)",
    "T.assert_close(torch.ones(2), torch.zeros(2), msg='custom message')",
    "T.assert_close(torch.ones(2), torch.zeros(2), msg=lambda m: '>>' + m.upper())",
    "T.assert_close([torch.ones(2)], [torch.zeros(2)], msg=lambda m: m[-30:])",
    "T.assert_close(torch.ones(2), torch.ones(3), msg='shape differs')",
    "T.assert_close([1], [1, 2], msg='not used for structure errors')",
    # containers and scalars
    "T.assert_close([torch.ones(2), torch.ones(1)], [torch.ones(2), torch.zeros(1)])",
    "T.assert_close((1, [2, 3.0]), (1, [2, 3.5]))",
    "T.assert_close([1, 2], [1, 2, 3])",
    "T.assert_close({'a': torch.ones(1), 'b': {'c': 1.0}}, {'a': torch.ones(1), 'b': {'c': 2.0}})",
    "T.assert_close({'a': 1, 'c': 2}, {'b': 1, 'c': 2})",
    "T.assert_close({1: 'x'}, {1: 'x'})",
    "T.assert_close(1, 1.0)", "T.assert_close(1, 2)", "T.assert_close(1.0, 1.1)",
    "T.assert_close(2.0, 0.0)", "T.assert_close(0.0, 1e-3)", "T.assert_close(1 + 1j, 1 + 2j)",
    "T.assert_close(float('nan'), float('nan'))", "T.assert_close(float('inf'), 1.0)",
    "T.assert_close(1, 1.0, check_dtype=False)",
    "T.assert_close(True, False)", "T.assert_close(True, 1)", "T.assert_close(None, 1)",
    "T.assert_close(1, None)", "T.assert_close(torch.ones(1), 1)", "T.assert_close(1, torch.ones(1))",
    "T.assert_close('a', 'a')", "T.assert_close(object(), object())",
    "T.assert_close(np.ones(2), np.zeros(2))", "T.assert_close(np.float32(1), np.float32(2))",
    "T.assert_close(np.ones(2, dtype=np.float32), np.ones(2))",
    "T.assert_close(torch.ones(2), np.ones(2))", "T.assert_close(torch.ones(2), [1., 1.])",
]


def _run(expr):
    def f(torch):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no stray warnings either (a ComplexWarning was one)
            return eval(expr, dict(torch=torch, T=torch.testing, np=np))
    return f


@pytest.mark.parametrize("expr", ASSERT_CLOSE)
def test_assert_close(expr):
    check(_run(expr))


def test_default_tolerance_boundaries():
    """Each dtype's default (rtol, atol) as PyTorch's table: just inside passes, just outside
    fails with the same message."""
    def f(torch):
        out = []
        for name, (rtol, atol) in (("float16", (1e-3, 1e-5)), ("bfloat16", (1.6e-2, 1e-5)),
                                   ("float32", (1.3e-6, 1e-5)), ("float64", (1e-7, 1e-7)),
                                   ("complex64", (1.3e-6, 1e-5)),
                                   ("complex128", (1e-7, 1e-7))):
            d = getattr(torch, name)
            base = torch.tensor([1.0, 64.0], dtype=torch.float64)
            for factor in (0.5, 2.0):
                other = base + factor * (atol + rtol * base)
                try:
                    torch.testing.assert_close(base.to(d), other.to(d))
                    out.append((name, factor, None))
                except AssertionError as e:
                    out.append((name, factor, str(e)))
        return out
    check(f)


def test_failure_is_assertion_error_with_no_chained_context():
    def f(torch):
        try:
            torch.testing.assert_close(torch.ones(2), torch.zeros(2))
        except AssertionError as e:
            return type(e).__name__, e.__cause__ is None, e.__suppress_context__
    check(f)


ALLCLOSE = [
    "T.assert_allclose(torch.ones(2), torch.ones(2))",
    "T.assert_allclose(torch.ones(2), torch.ones(2) + 1e-5)",
    "T.assert_allclose(torch.ones(2), torch.ones(2) + 1e-3)",
    "T.assert_allclose(torch.ones(2), [1., 1.])", "T.assert_allclose([1, 2], [1, 2])",
    "T.assert_allclose(torch.tensor([float('nan')]), torch.tensor([float('nan')]))",
    "T.assert_allclose(torch.ones(2), torch.ones(2, dtype=torch.float64))",
    "T.assert_allclose(torch.ones(2), torch.zeros(2), msg='allclose msg')",
    "T.assert_allclose(torch.ones(2), torch.ones(2) * 1.1, rtol=0.2, atol=0)",
    "T.assert_allclose(torch.ones(2, dtype=torch.float64), torch.ones(2) + 1e-6)",
    "T.assert_allclose(1.0, 1.0 + 1e-6)",
]


@pytest.mark.parametrize("expr", ALLCLOSE)
def test_assert_allclose(expr):
    def f(torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = eval(expr, dict(torch=torch, T=torch.testing))
            except AssertionError as e:
                r = ("AssertionError", str(e))
        return r, [(x.category.__name__, str(x.message)) for x in w]
    check(f)


# ---- make_tensor -------------------------------------------------------------------------------

MAKE = [
    "(3,), dtype=torch.float32, device='cpu'", "2, 3, dtype=torch.float64, device='cpu'",
    "[4, 5], dtype=torch.int64, device='cpu'", "torch.Size([2, 2]), dtype=torch.bool, device='cpu'",
    "(), dtype=torch.float32, device='cpu'", "(0, 3), dtype=torch.float32, device='cpu'",
    "(50,), dtype=torch.uint8, device='cpu'", "(50,), dtype=torch.int8, device='cpu'",
    "(50,), dtype=torch.int16, device='cpu', low=-3, high=3",
    "(50,), dtype=torch.int32, device='cpu', low=2.5, high=7.5",
    "(40,), dtype=torch.float16, device='cpu'", "(40,), dtype=torch.bfloat16, device='cpu'",
    "(40,), dtype=torch.complex64, device='cpu'", "(40,), dtype=torch.complex128, device='cpu', low=0, high=1",
    "(100,), dtype=torch.float32, device='cpu', low=-1, high=1",
    "(100,), dtype=torch.float64, device='cpu', low=5", "(100,), dtype=torch.float32, device='cpu', high=-5",
    "(100,), dtype=torch.uint8, device='cpu', low=-100, high=3",
    "(100,), dtype=torch.float32, device='cpu', low=-1e40, high=1e40",
    "(3, 4), dtype=torch.float32, device='cpu', noncontiguous=True",
    "(3, 4), dtype=torch.int64, device='cpu', noncontiguous=True",
    "(1,), dtype=torch.float32, device='cpu', noncontiguous=True",
    "(2, 3, 4), dtype=torch.float32, device='cpu', noncontiguous=True, requires_grad=True",
    "(200,), dtype=torch.int64, device='cpu', low=0, high=2, exclude_zero=True",
    "(200,), dtype=torch.bool, device='cpu', exclude_zero=True",
    "(200,), dtype=torch.float32, device='cpu', low=-1e-45, high=1e-45, exclude_zero=True",
    "(3,), dtype=torch.float32, device='cpu', requires_grad=True",
    "(3,), dtype=torch.complex64, device='cpu', requires_grad=True",
    "(3,), dtype=torch.float32, device=torch.device('cpu')",
    # errors
    "(3,), dtype=torch.int64, device='cpu', requires_grad=True",
    "(3,), dtype=torch.bool, device='cpu', requires_grad=True",
    "(3,), dtype=torch.float32, device='cpu', low=2, high=1",
    "(3,), dtype=torch.int64, device='cpu', low=2, high=2",
    "(3,), dtype=torch.float32, device='cpu', low=float('nan')",
    "(3,), dtype=torch.uint8, device='cpu', low=300, high=400",
    "(3,), dtype=torch.int8, device='cpu', low=-300, high=-200",
    "(3,), dtype=torch.bool, device='cpu', low=2, high=5",
    "(3,), dtype=torch.float32, device='cuda'",
]


def _describe(t, low, high, torch, nonzero):
    """Everything about a make_tensor result but its random values."""
    a = t.detach()
    if a.dtype.is_complex:
        a = torch.view_as_real(a)
    vals = a.double() if a.numel() else None
    rng = None
    if vals is not None:
        rng = (bool((vals >= low).all()), bool((vals < high).all()) if a.dtype != torch.bool
               else bool((vals <= 1).all()))
    return (t.dtype, t.shape, t.stride(), t.is_contiguous(), t.storage_offset(),
            t.requires_grad, t.is_leaf, t.device, rng,
            bool((t != 0).all()) if nonzero and t.numel() else None)


_BOUNDS = {"bool": (0, 2), "uint8": (0, 10), "float": (-9, 9), "int": (-9, 10)}


def _bounds(expr):
    kind = next(k for k in ("bool", "uint8", "float", "complex", "bfloat", "int")
                if f"torch.{k}" in expr)
    kind = {"complex": "float", "bfloat": "float"}.get(kind, kind)
    low, high = _BOUNDS[kind]
    env = {}
    for part in expr.split(", "):
        if part.startswith(("low=", "high=")):
            k, v = part.split("=")
            env[k] = eval(v)
    low, high = env.get("low", low), env.get("high", high)
    if kind in ("int", "uint8", "bool"):
        import math
        low, high = math.ceil(low), math.ceil(high)
    return max(low, -3.5e38), min(high, 3.5e38)


@pytest.mark.parametrize("args", MAKE)
def test_make_tensor(args):
    def f(torch):
        # the same generator state on both sides: a float16 draw from [-9, 9) can round up to 9
        # (in PyTorch too), so which draws come out decides the `< high` test
        torch.manual_seed(0)
        t = eval(f"torch.testing.make_tensor({args})", dict(torch=torch))
        if "exclude_zero" not in args:
            low, high = _bounds(args)
            return _describe(t, low, high, torch, False)
        return _describe(t, -3.5e38, 3.5e38, torch, True)
    check(f)


def test_make_tensor_low_equal_high_float_warns_and_fills():
    def f(torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t = torch.testing.make_tensor((4,), dtype=torch.float32, device="cpu", low=2, high=2)
        return t, [(x.category.__name__, str(x.message)) for x in w]
    check(f)


def test_make_tensor_values_are_random_and_seeded():
    """Two draws differ; reseeding repeats them (as PyTorch's manual_seed does for its own)."""
    def f(torch):
        m = torch.testing.make_tensor
        torch.manual_seed(3)
        a = m((20,), dtype=torch.float32, device="cpu")
        b = m((20,), dtype=torch.float32, device="cpu")
        torch.manual_seed(3)
        c = m((20,), dtype=torch.float32, device="cpu")
        return bool((a != b).any()), bool((a == c).all()), a.unique().numel() > 15
    check(f)


def test_module_surface():
    import torch
    import torchlike
    expected = {n for n in dir(torch.testing) if not n.startswith("_")} - {"FileCheck"}
    assert expected <= set(dir(torchlike.testing)), expected - set(dir(torchlike.testing))
