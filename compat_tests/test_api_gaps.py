"""Differential tests for API gaps: Python types as dtypes, NumPy spellings axis=/keepdims=,
`ndarray / tensor`, `.real`/`.imag` views and `view_as_real`/`view_as_complex`,
`Tensor.view(dtype)`."""
import numpy as np
import pytest

from harness import check, same_repr

PY_TYPES = [float, int, bool, complex]


# ---- 1. Python types as dtypes -----------------------------------------------------------------

@pytest.mark.parametrize("pt", PY_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("make", [
    lambda torch, d: torch.zeros(2, 3, dtype=d),
    lambda torch, d: torch.ones(2, dtype=d),
    lambda torch, d: torch.empty(0, dtype=d),
    lambda torch, d: torch.full((2,), 1, dtype=d),
    lambda torch, d: torch.tensor([1, 0, 2], dtype=d),
    lambda torch, d: torch.as_tensor([1, 0], dtype=d),
    lambda torch, d: torch.as_tensor(np.array([1.5, 0.0]), dtype=d),
    lambda torch, d: torch.asarray([1, 2], dtype=d),
    lambda torch, d: torch.arange(4, dtype=d),
    lambda torch, d: torch.eye(3, dtype=d),
    lambda torch, d: torch.zeros_like(torch.ones(2), dtype=d),
    lambda torch, d: torch.ones_like(torch.ones(2), dtype=d),
    lambda torch, d: torch.full_like(torch.ones(2), 1, dtype=d),
    lambda torch, d: torch.ones(2).new_zeros(3, dtype=d),
    lambda torch, d: torch.ones(2).new_ones(3, dtype=d),
    lambda torch, d: torch.ones(2).new_full((2,), 1, dtype=d),
    lambda torch, d: torch.ones(2).new_tensor([1, 0], dtype=d),
    lambda torch, d: torch.ones(2).new_empty(0, dtype=d).shape,
    lambda torch, d: torch.scalar_tensor(1, dtype=d),
    lambda torch, d: torch.tensor([1.5, -2.0, 0.0]).to(d),
    lambda torch, d: torch.tensor([1.5, -2.0, 0.0]).to(dtype=d),
    lambda torch, d: torch.tensor([1.5, -2.0]).to("cpu", d),
    lambda torch, d: torch.tensor([1, 2]).sum(dtype=d),
    lambda torch, d: torch.tensor([1, 2]).prod(dtype=d),
    lambda torch, d: torch.tensor([1., 2.]).mean(dtype=d),
    lambda torch, d: torch.rand(2, dtype=d).dtype,
    lambda torch, d: torch.randn(2, dtype=d).dtype,
    lambda torch, d: torch.randperm(3, dtype=d).dtype,
    lambda torch, d: torch.rand_like(torch.ones(2), dtype=d).dtype,
    lambda torch, d: torch.nn.Linear(2, 3, dtype=d).weight.dtype,
    lambda torch, d: torch.nn.Conv1d(2, 2, 3, dtype=d).weight.dtype,
    lambda torch, d: torch.nn.BatchNorm1d(2, dtype=d).running_mean.dtype,
    lambda torch, d: torch.nn.LayerNorm(2, dtype=d).weight.dtype,
    lambda torch, d: torch.nn.Embedding(3, 2, dtype=d).weight.dtype,
    lambda torch, d: torch.nn.Linear(2, 2).to(d).weight.dtype,
    lambda torch, d: torch.nn.Linear(2, 2).to(dtype=d).bias.dtype,
])
def test_python_type_as_dtype(make, pt):
    check(lambda torch: make(torch, pt))


@pytest.mark.parametrize("pt", [float, int], ids=lambda t: t.__name__)
@pytest.mark.parametrize("make", [
    lambda torch, d: torch.tensor([1, 2]).cumsum(0, dtype=d),
    lambda torch, d: torch.randint(3, (2,), dtype=d).dtype,
    lambda torch, d: torch.randint_like(torch.ones(2), 3, dtype=d).dtype,
])
def test_python_type_as_dtype_int_float(make, pt):
    check(lambda torch: make(torch, pt))


@pytest.mark.parametrize("pt", [float], ids=lambda t: t.__name__)
@pytest.mark.parametrize("make", [
    lambda torch, d: torch.tensor([1., 2.]).softmax(0, dtype=d),
    lambda torch, d: torch.log_softmax(torch.tensor([1., 2.]), 0, dtype=d),
    lambda torch, d: torch.nn.functional.softmax(torch.tensor([1., 2.]), 0, dtype=d),
])
def test_python_type_as_dtype_float(make, pt):
    check(lambda torch: make(torch, pt))


@pytest.mark.parametrize("pt", PY_TYPES, ids=lambda t: t.__name__)
def test_python_type_linspace_logspace(pt):
    check(lambda torch: torch.linspace(0, 3, 4, dtype=pt))
    check(lambda torch: torch.logspace(0, 2, 3, dtype=pt))


@pytest.mark.parametrize("pt", [float, int, complex], ids=lambda t: t.__name__)
def test_python_type_dtype_info(pt):
    check(lambda torch: torch.promote_types(pt, torch.int32))
    check(lambda torch: torch.is_floating_point(torch.zeros(1, dtype=pt)))
    if pt is float:
        check(lambda torch: (torch.finfo(pt).eps, torch.finfo(pt).bits))
    if pt is int:
        check(lambda torch: (torch.iinfo(pt).max, torch.iinfo(pt).bits))


@pytest.mark.parametrize("bad", ["float32", np.float32, str, object])
@pytest.mark.parametrize("make", [
    lambda torch, d: torch.zeros(2, dtype=d),
    lambda torch, d: torch.ones(2, dtype=d),
    lambda torch, d: torch.full((2,), 1, dtype=d),
    lambda torch, d: torch.tensor([1], dtype=d),
    lambda torch, d: torch.as_tensor([1], dtype=d),
    lambda torch, d: torch.zeros_like(torch.ones(2), dtype=d),
    lambda torch, d: torch.ones(2).new_zeros(2, dtype=d),
    lambda torch, d: torch.ones(2).softmax(0, dtype=d),
    lambda torch, d: torch.nn.Linear(2, 2, dtype=d),
    lambda torch, d: torch.ones(2).type(d),
    lambda torch, d: torch.set_default_dtype(d),
])
def test_bad_dtype_errors(make, bad):
    check(lambda torch: make(torch, bad))


@pytest.mark.parametrize("d", [float, int, bool, complex, None, 3])
def test_set_default_dtype_rejects_python_types(d):
    try:
        check(lambda torch: torch.set_default_dtype(d))
    finally:
        import torch as real_torch
        import torchlike
        real_torch.set_default_dtype(real_torch.float32)
        torchlike.set_default_dtype(torchlike.float32)


def test_type_with_python_types():
    for d in PY_TYPES:
        check(lambda torch: torch.ones(2).type(d))
    check(lambda torch: torch.ones(2).type(3))
    check(lambda torch: torch.nn.Linear(2, 2).to(int))


def test_python_dtype_kernel_cache_and_repeat():
    # the same op with dtype=float then torch.float64 then float again (one kernel per spelling)
    def f(torch):
        x = torch.tensor([1, 2, 3])
        return [x.sum(dtype=float), x.sum(dtype=torch.float64), x.sum(dtype=float),
                x.cumsum(0, dtype=int), x.sum(0, dtype=bool)]
    check(f)


# ---- Tensor.view(dtype) ------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda torch: torch.ones(2).view(int),
    lambda torch: torch.ones(2).view(float),
    lambda torch: torch.ones(2).view(dtype=int),
    lambda torch: torch.ones(2, dtype=torch.uint8).view(bool),
    lambda torch: torch.arange(6.).reshape(2, 3).view(torch.int32),
    lambda torch: torch.arange(6.).reshape(2, 3).t().view(torch.int32),
    lambda torch: torch.arange(6.).reshape(2, 3).view(torch.int16),
    lambda torch: torch.arange(8, dtype=torch.int16).reshape(2, 4).view(torch.float64),
    lambda torch: torch.arange(24, dtype=torch.int16).reshape(4, 6)[:, :4].view(torch.int32),
    lambda torch: torch.ones(4, 2)[:, 0].view(torch.int16),
    lambda torch: torch.tensor(1.).view(torch.int16),
    lambda torch: torch.ones(3, dtype=torch.int16).view(torch.int32),
    lambda torch: torch.ones(4, 3, dtype=torch.int16).t().view(torch.int32),
    lambda torch: torch.ones(4, 6, dtype=torch.int16)[:, 1:5].view(torch.int32),
    lambda torch: torch.ones(2).view("float32"),
    lambda torch: torch.ones(2).view(np.float32),
    lambda torch: torch.ones(2, requires_grad=True).view(torch.int32).requires_grad,
])
def test_view_dtype(make):
    check(make, check_stride=False)


def test_view_dtype_shares_memory():
    def f(torch):
        t = torch.zeros(3)
        v = t.view(torch.int32)
        v[1] = 1065353216
        t[2] = 2.0
        return t, v, v.stride(), v.storage_offset(), v.data_ptr() == t.data_ptr()
    check(f)


# ---- 2. axis= / keepdims= ----------------------------------------------------------------------

X = np.array([[3., 1., 2.], [0., 5., 4.]])


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.max(axis=1), lambda torch, x: x.max(axis=1, keepdims=True),
    lambda torch, x: torch.max(x, axis=0), lambda torch, x: x.min(axis=1, keepdims=True),
    lambda torch, x: torch.min(x, axis=0), lambda torch, x: x.max(dim=1, keepdims=True),
    lambda torch, x: x.std(axis=1), lambda torch, x: x.std(axis=1, keepdims=True),
    lambda torch, x: torch.std(x, axis=0, keepdims=True), lambda torch, x: x.var(axis=1),
    lambda torch, x: torch.var(x, axis=0, keepdims=True, correction=0),
    lambda torch, x: x.var(axis=1, unbiased=False),
    lambda torch, x: torch.std_mean(x, axis=0), lambda torch, x: torch.var_mean(x, axis=0, keepdims=True),
    lambda torch, x: torch.cat([x, x], axis=1), lambda torch, x: torch.concat([x, x], axis=1),
    lambda torch, x: torch.concatenate([x, x], axis=0), lambda torch, x: torch.stack([x, x], axis=1),
    lambda torch, x: x[None].squeeze(axis=0), lambda torch, x: torch.squeeze(x[None], axis=0),
    lambda torch, x: x[None, :, None].squeeze(axis=(0, 2)),
    lambda torch, x: x.unsqueeze(axis=0), lambda torch, x: torch.unsqueeze(x, axis=2),
    lambda torch, x: x.gather(axis=1, index=torch.tensor([[0], [1]])),
    lambda torch, x: torch.gather(x, axis=0, index=torch.tensor([[1, 0, 1]])),
    lambda torch, x: x.index_select(axis=1, index=torch.tensor([2, 0])),
    lambda torch, x: x.argmax(axis=1), lambda torch, x: x.argmin(axis=1, keepdims=True),
    lambda torch, x: x.median(axis=1), lambda torch, x: x.sort(axis=1),
    lambda torch, x: torch.sort(x, axis=0, descending=True),
    lambda torch, x: x.cummax(axis=1), lambda torch, x: torch.cummin(x, axis=0),
    lambda torch, x: x.cummax(), lambda torch, x: x.narrow(axis=1, start=0, length=2),
    lambda torch, x: x.select(axis=1, index=0), lambda torch, x: x.chunk(3, axis=1),
    lambda torch, x: x.unbind(axis=1), lambda torch, x: x.tensor_split(2, axis=1),
    lambda torch, x: x.repeat_interleave(2, axis=1),
])
def test_numpy_axis_names(fn):
    check(lambda torch: fn(torch, torch.tensor(X)))


def test_numpy_axis_names_inplace_view():
    def f(torch):
        x = torch.ones(1, 3)
        x.squeeze_(axis=0)
        x.unsqueeze_(axis=1)
        return x, x.shape
    check(f)


# ---- 3. ndarray on the left ----------------------------------------------------------------------

@pytest.mark.parametrize("arr", [np.ones(3), np.ones(3, np.float32), np.arange(1, 4),
                                 np.ones((2, 3)), np.array(2.0)],
                         ids=["f64", "f32", "i64", "2d", "0d"])
@pytest.mark.parametrize("t", [lambda torch: torch.arange(1., 4.),
                               lambda torch: torch.arange(1, 4)], ids=["float", "int"])
def test_ndarray_truediv_tensor(arr, t):
    check(lambda torch: arr / t(torch))
    check(lambda torch: t(torch).__rtruediv__(arr))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "pow", "floordiv", "mod", "lt", "eq"])
def test_ndarray_other_ops_with_tensor(op):
    import operator
    f = getattr(operator, op)
    check(lambda torch: f(np.ones(3), torch.ones(3)))
    check(lambda torch: f(torch.ones(3), np.ones(3) * 2))


# ---- 4. .real / .imag / view_as_real / view_as_complex ----------------------------------------

Z = np.array([1 + 2j, 3 - 4j, 5 + 0j], np.complex64)


def test_real_imag_values():
    check(lambda torch: (torch.tensor(Z).real, torch.tensor(Z).imag), check_stride=True)
    check(lambda torch: (torch.tensor(Z)[1:].real.storage_offset(),
                         torch.tensor(Z)[1:].imag.stride()))
    check(lambda torch: torch.real(torch.tensor(Z.astype(np.complex128))))
    check(lambda torch: torch.imag(torch.tensor(Z)))


def test_real_of_real_is_self_and_imag_raises():
    check(lambda torch: (lambda x: x.real is x)(torch.ones(2)))
    check(lambda torch: torch.real(torch.ones(3)))
    check(lambda torch: torch.ones(2).imag)
    check(lambda torch: torch.imag(torch.ones(2, dtype=torch.int64)))


def test_real_imag_are_views():
    def f(torch):
        x = torch.tensor(Z)
        re, im = x.real, x.imag
        re[0] = 5
        im += 1
        x.mul_(2)
        return x, re, im, x.real._base is x
    check(f)


def test_view_as_real_complex():
    def f(torch):
        x = torch.tensor(Z)
        v = torch.view_as_real(x)
        v[1, 1] = 9
        return x, v, v.stride(), v.storage_offset()
    check(f)

    def g(torch):
        a = torch.arange(8.).reshape(4, 2)
        c = torch.view_as_complex(a)
        c[0] = 5j
        a.add_(1)
        return a, c, torch.view_as_complex(a[2:]), torch.view_as_complex(torch.ones(4, 2)[::2])
    check(g)


@pytest.mark.parametrize("make", [
    lambda torch: torch.view_as_real(torch.ones(2)),
    lambda torch: torch.view_as_complex(torch.ones(2, 3)),
    lambda torch: torch.view_as_complex(torch.ones(3, 2).t()),
    lambda torch: torch.view_as_complex(torch.ones(2, dtype=torch.int64)),
    lambda torch: torch.view_as_complex(torch.ones(2, 4)[:, 1:3]),
    lambda torch: torch.view_as_complex(torch.ones(2, 2, dtype=torch.float64)),
    lambda torch: torch.view_as_complex(torch.ones(2)),
])
def test_view_as_complex_errors_and_values(make):
    check(make)


def test_real_imag_autograd():
    def f(torch):
        z = torch.tensor([1 + 2j, 3 - 4j], requires_grad=True)
        (z.real * 2 + z.imag * 3).sum().backward()
        return z.grad, z.real.grad_fn.name()
    check(f)

    def g(torch):
        z = torch.tensor([1 + 2j, 3 - 4j], requires_grad=True)
        (torch.view_as_real(z) ** 2).sum().backward()
        return z.grad
    check(g)

    def h(torch):
        a = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        torch.view_as_complex(a).abs().sum().backward()
        return a.grad
    check(h)


def test_real_repr():
    same_repr(lambda torch: torch.tensor(Z).real)
    same_repr(lambda torch: torch.view_as_real(torch.tensor(Z)))


# ---- 5. trapezoid, cumulative_trapezoid, histogram, linalg.cond, cholesky_solve ---------------

YF = np.array([[1., 2., 4.], [0., 1., 3.]], np.float32)
XS = np.array([0., 1., 3.], np.float32)


@pytest.mark.parametrize("fn", [
    lambda torch: torch.trapezoid(torch.tensor([1, 2, 3])),
    lambda torch: torch.trapezoid(torch.tensor(YF)),
    lambda torch: torch.trapezoid(torch.tensor(YF), dim=0),
    lambda torch: torch.trapezoid(torch.tensor(YF), dx=2),
    lambda torch: torch.trapezoid(torch.tensor([1, 2, 3]), dx=0.5),
    lambda torch: torch.trapezoid(torch.tensor(YF), torch.tensor(XS)),
    lambda torch: torch.trapezoid(torch.tensor([1, 2, 3]), torch.tensor([0, 1, 3])),
    lambda torch: torch.trapezoid(torch.tensor(YF), torch.tensor(YF) * 2),
    lambda torch: torch.trapezoid(torch.tensor(YF), torch.tensor([0., 1.])),
    lambda torch: torch.trapezoid(torch.tensor(YF).double(), torch.tensor(XS)),
    lambda torch: torch.trapezoid(torch.tensor(YF), torch.arange(3.).expand(2, 3)),
    lambda torch: torch.trapezoid(torch.tensor(YF).half()),
    lambda torch: torch.trapezoid(torch.ones(0)),
    lambda torch: torch.trapezoid(torch.ones(2, 0)),
    lambda torch: torch.trapezoid(torch.ones(0, 2), dim=0),
    lambda torch: torch.trapezoid(torch.tensor(YF), dim=2),
    lambda torch: torch.trapezoid(torch.tensor(3.)),
    lambda torch: torch.trapz(torch.tensor(YF), dx=3),
    lambda torch: torch.trapz(torch.tensor(YF), torch.tensor(XS)),
    lambda torch: torch.trapezoid(torch.arange(24.).reshape(2, 3, 4), torch.tensor([0., 1., 5.]),
                                  dim=1),
    lambda torch: torch.trapezoid(torch.ones(3, dtype=torch.bool)),
    lambda torch: torch.trapezoid(torch.ones(3), torch.ones(3, dtype=torch.bool)),
    lambda torch: torch.cumulative_trapezoid(torch.ones(3, dtype=torch.bool)),
    lambda torch: torch.cumulative_trapezoid(torch.tensor(YF)),
    lambda torch: torch.cumulative_trapezoid(torch.tensor([1, 2, 3])),
    lambda torch: torch.cumulative_trapezoid(torch.tensor(YF), dx=2, dim=0),
    lambda torch: torch.cumulative_trapezoid(torch.tensor(YF), torch.tensor(XS)),
    lambda torch: torch.cumulative_trapezoid(torch.ones(0)),
    lambda torch: torch.cumulative_trapezoid(torch.ones(3, 1)),
    lambda torch: torch.cumulative_trapezoid(torch.arange(24.).reshape(2, 3, 4),
                                             torch.tensor([0., 1., 5.]), dim=1),
])
def test_trapezoid(fn):
    check(fn)


def test_trapezoid_autograd():
    def f(torch):
        y = torch.tensor(YF, requires_grad=True)
        torch.trapezoid(y, torch.tensor(XS)).sum().backward()
        return y.grad
    check(f)


H = np.array([1., 2, 1, 4, 2.5], np.float32)


@pytest.mark.parametrize("fn", [
    lambda torch, x: torch.histogram(x, 3),
    lambda torch, x: torch.histogram(x, 3, range=(0., 5.)),
    lambda torch, x: torch.histogram(x, 3, weight=torch.tensor([1., 2, 3, 4, 5])),
    lambda torch, x: torch.histogram(x, 3, density=True),
    lambda torch, x: torch.histogram(x, torch.tensor([0., 1.5, 3., 5.])),
    lambda torch, x: torch.histogram(x, torch.tensor([0., 1.5, 3., 5.]), density=True),
    lambda torch, x: torch.histogram(x, torch.tensor([0., 1.5, 3., 5.]).double()),
    lambda torch, x: torch.histogram(torch.ones(3), 2),
    lambda torch, x: torch.histogram(torch.tensor([1, 2]), 2),
    lambda torch, x: torch.histogram(x, 0),
    lambda torch, x: torch.histogram(x, 3, range=(5., 0.)),
    lambda torch, x: torch.histogram(torch.ones(0), 2),
    lambda torch, x: torch.histogram(x.reshape(5, 1), 2),
    lambda torch, x: x.histogram(2),
    lambda torch, x: torch.histogram(torch.tensor([1., float("nan")]), 2),
    lambda torch, x: torch.histogram(x.double(), 2),
    lambda torch, x: torch.histogram(x, 2, range=(1., 1.)),
    lambda torch, x: torch.histogram(torch.tensor([0., 1., 1., 10.]), 3),
    lambda torch, x: torch.histogram(torch.linspace(-3, 3, 101), 7),
    lambda torch, x: torch.histogram(torch.linspace(-3, 3, 101).double(), 10, range=(-1., 2.)),
    lambda torch, x: torch.histogram(torch.arange(10.), torch.tensor([0., 2., 2., 5., 9.])),
])
def test_histogram(fn):
    check(lambda torch: fn(torch, torch.tensor(H)))


def test_histogram_repr():
    same_repr(lambda torch: torch.histogram(torch.tensor(H), 3))


A = np.array([[4., 2.], [2., 3.]], np.float32)
B3 = np.array([[4., 2., 1.], [2., 3., .5], [1., .5, 5.]], np.float32)


@pytest.mark.parametrize("fn", [
    lambda torch: torch.linalg.cond(torch.tensor(A)),
    lambda torch: torch.linalg.cond(torch.tensor(A), "fro"),
    lambda torch: torch.linalg.cond(torch.tensor(A), "nuc"),
    lambda torch: torch.linalg.cond(torch.tensor(A), 1),
    lambda torch: torch.linalg.cond(torch.tensor(A), -2),
    lambda torch: torch.linalg.cond(torch.tensor(A), float("inf")),
    lambda torch: torch.linalg.cond(torch.tensor(B3).double(), -1),
    lambda torch: torch.linalg.cond(torch.tensor(B3), 2),
    lambda torch: torch.linalg.cond(torch.tensor(B3).to(torch.complex128), "fro"),
    lambda torch: torch.linalg.cond(torch.tensor(A).to(torch.complex64)),
    lambda torch: torch.linalg.cond(torch.stack([torch.tensor(A), torch.tensor(A) * 2]), "nuc"),
    lambda torch: torch.linalg.cond(torch.tensor([[1., 2.], [2., 4.]]), "fro"),
    lambda torch: torch.linalg.cond(torch.tensor([[1., 2.], [2., 4.]]), 1),
    lambda torch: torch.linalg.cond(torch.ones(2, 3), "fro"),
    lambda torch: torch.linalg.cond(torch.ones(3)),
    lambda torch: torch.linalg.cond(torch.ones(2, 2, dtype=torch.int64)),
    lambda torch: torch.linalg.cond(torch.tensor(A), 3),
    lambda torch: torch.linalg.cond(torch.zeros(0, 0)),
])
def test_linalg_cond(fn):
    check(fn)


@pytest.mark.parametrize("fn", [
    lambda torch, L: torch.cholesky_solve(torch.ones(2, 1), L),
    lambda torch, L: torch.cholesky_solve(torch.ones(2, 1), L.mT, upper=True),
    lambda torch, L: torch.ones(2, 1).cholesky_solve(L),
    lambda torch, L: torch.cholesky_solve(torch.arange(12.).reshape(3, 2, 2), L),
    lambda torch, L: torch.cholesky_solve(torch.ones(3, 2, 1), torch.stack([L] * 3)),
    lambda torch, L: torch.cholesky_solve(torch.ones(2), L),
    lambda torch, L: torch.cholesky_solve(torch.ones(2, 1, dtype=torch.float64), L),
    lambda torch, L: torch.cholesky_solve(torch.ones(3, 1), L),
    lambda torch, L: torch.cholesky_solve(torch.ones(2, 1, dtype=torch.int64),
                                          torch.ones(2, 2, dtype=torch.int64)),
    lambda torch, L: torch.cholesky_solve(torch.ones(2, 1), torch.ones(3, 3)),
    lambda torch, L: torch.cholesky_solve(
        torch.arange(6.).reshape(3, 2).to(torch.complex128),
        torch.linalg.cholesky(torch.tensor(B3).to(torch.complex128))),
    lambda torch, L: torch.cholesky_solve(torch.arange(6.).reshape(3, 2),
                                          torch.linalg.cholesky(torch.tensor(B3), upper=True),
                                          upper=True),
])
def test_cholesky_solve(fn):
    check(lambda torch: fn(torch, torch.linalg.cholesky(torch.tensor(A))))
