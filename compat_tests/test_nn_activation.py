"""nn activations: modules through check_module (outputs, input/param grads, reprs), functional
forms via check, inplace variants, the implicit-dim softmax warning and errors."""
import warnings

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check, same_repr
from nn_harness import check_module

rng = np.random.RandomState(0)
X = rng.randn(2, 3, 4).astype(np.float32) * 3
X1 = rng.randn(5).astype(np.float32) * 3
X4 = rng.randn(2, 4, 3, 3).astype(np.float32) * 3
# values at the branch points of the piecewise activations
EDGE = np.array([-25., -4., -3., -1., -0.5, 0., 0.5, 1., 3., 4., 25.], dtype=np.float32)

MODULES = [
    ("ReLU", (), {}), ("ReLU6", (), {}), ("Hardtanh", (), {}), ("Hardtanh", (-2.0, 0.5), {}),
    ("ELU", (), {}), ("ELU", (0.3,), {}), ("SELU", (), {}), ("CELU", (), {}), ("CELU", (2.0,), {}),
    ("GELU", (), {}), ("GELU", (), {"approximate": "tanh"}), ("SiLU", (), {}), ("Mish", (), {}),
    ("LeakyReLU", (), {}), ("LeakyReLU", (0.2,), {}), ("Hardsigmoid", (), {}),
    ("Hardswish", (), {}), ("Hardshrink", (), {}), ("Hardshrink", (1.0,), {}),
    ("Softshrink", (), {}), ("Softshrink", (1.5,), {}), ("Tanhshrink", (), {}),
    ("Softsign", (), {}), ("Softplus", (), {}), ("Softplus", (2.0, 1.0), {}),
    ("LogSigmoid", (), {}), ("Sigmoid", (), {}), ("Threshold", (0.1, 20.0), {}),
    ("Softmax", (1,), {}), ("Softmax", (-1,), {}), ("LogSoftmax", (0,), {}),
    ("LogSoftmax", (2,), {}), ("Softmin", (1,), {}), ("GLU", (), {}), ("GLU", (1,), {}),
    ("PReLU", (), {}), ("PReLU", (3,), {}), ("PReLU", (3, 0.1), {}), ("RReLU", (), {}),
    ("Identity", (), {}),
]


def _ids(cases):
    return [f"{n}{a}{k}" for n, a, k in cases]


@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=_ids(MODULES))
def test_module_batched(name, args, kwargs):
    x = X[:, :, :2] if name == "GLU" and args == (1,) else X
    x = rng.randn(2, 4, 3).astype(np.float32) * 3 if name == "GLU" and args == (1,) else x
    train = name != "RReLU"  # training RReLU samples slopes from the RNG
    check_module(lambda nn: getattr(nn, name)(*args, **kwargs), [x], train=train)


UNBATCHED = [c for c in MODULES if c[0] not in ("GLU", "PReLU", "LogSoftmax", "Softmax",
                                                 "Softmin")] + [
    ("Softmax", (0,), {}), ("LogSoftmax", (-1,), {}), ("GLU", (0,), {}), ("PReLU", (), {})]


@pytest.mark.parametrize("name,args,kwargs", UNBATCHED, ids=_ids(UNBATCHED))
def test_module_edges_1d(name, args, kwargs):
    x = EDGE[:10] if name == "GLU" else EDGE
    check_module(lambda nn: getattr(nn, name)(*args, **kwargs), [x], train=name != "RReLU")


def test_prelu_channels_4d():
    check_module(lambda nn: nn.PReLU(4, 0.3), [X4])
    check_module(lambda nn: nn.PReLU(), [np.float32(-2.0) * np.ones((), np.float32)])


def test_softmax2d():
    check_module(lambda nn: nn.Softmax2d(), [X4])
    check_module(lambda nn: nn.Softmax2d(), [X4[0]])
    check(lambda torch: torch.nn.Softmax2d()(torch.ones(3, 4)))


@pytest.mark.parametrize("dtype", [np.float64])
def test_module_float64(dtype):
    for name in ("ELU", "GELU", "SiLU", "Mish", "Softplus", "LogSigmoid", "Hardswish"):
        check_module(lambda nn: getattr(nn, name)(), [X.astype(dtype)])


INPLACE = ["ReLU", "ReLU6", "Hardtanh", "ELU", "SELU", "CELU", "SiLU", "Mish", "LeakyReLU",
           "Hardsigmoid", "Hardswish"]


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_module(name):
    def f(torch):
        t = torch.tensor(EDGE, requires_grad=True)
        y = t * 1.5
        m = getattr(torch.nn, name)(inplace=True)
        out = m(y)
        same = out is y
        (out * torch.arange(float(out.numel()))).sum().backward()
        return out, t.grad, same, repr(m)
    check(f)


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_leaf_error(name):
    check(lambda torch: getattr(torch.nn, name)(inplace=True)(
        torch.tensor(EDGE, requires_grad=True)))


def test_inplace_no_grad_writes_through():
    def f(torch):
        x = torch.tensor(EDGE)
        v = x[2:6]
        torch.nn.functional.elu_(v)
        torch.nn.functional.threshold_(x, 3.0, -1.0)
        torch.nn.functional.leaky_relu(x, 0.5, inplace=True)
        return x
    check(f)


def test_threshold_inplace_module():
    def f(torch):
        t = torch.tensor(EDGE, requires_grad=True)
        y = t * 2
        out = torch.nn.Threshold(0.5, -3.0, inplace=True)(y)
        out.sum().backward()
        return out, t.grad
    check(f)


# ---- functional ------------------------------------------------------------------------------

FUNCS = [
    ("relu", {}), ("relu6", {}), ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {"alpha": 0.7}),
    ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}), ("mish", {}),
    ("leaky_relu", {"negative_slope": 0.3}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
    ("hardsigmoid", {}), ("hardswish", {}), ("hardshrink", {"lambd": 0.7}),
    ("softshrink", {"lambd": 0.7}), ("tanhshrink", {}), ("softsign", {}),
    ("softplus", {"beta": 0.5, "threshold": 3.0}), ("logsigmoid", {}), ("sigmoid", {}),
    ("tanh", {}), ("threshold", {"threshold": 0.0, "value": 9.0}), ("softmax", {"dim": 0}),
    ("log_softmax", {"dim": 0}), ("softmin", {"dim": 0}), ("glu", {"dim": 0}),
    ("rrelu", {"training": False}),
]


@pytest.mark.parametrize("name,kwargs", FUNCS, ids=[f"{n}{k}" for n, k in FUNCS])
def test_functional_values_and_grads(name, kwargs):
    x = EDGE[:10] if name == "glu" else EDGE

    def f(torch):
        t = torch.tensor(x.astype(np.float64), requires_grad=True)
        y = getattr(torch.nn.functional, name)(t, **kwargs)
        (y * torch.linspace(-1, 2, y.numel(), dtype=torch.float64)).sum().backward()
        return y, t.grad
    check(f)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_dtype_and_implicit_dim(name):
    check(lambda torch: getattr(torch.nn.functional, name)(torch.tensor(X), 2,
                                                            dtype=torch.float64))
    for shape in [(5,), (2, 3), (2, 3, 4), (2, 3, 4, 5), ()]:
        def f(torch, shape=shape):
            x = torch.arange(float(np.prod(shape))).reshape(shape) / 7
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                out = getattr(torch.nn.functional, name)(x)
            return out, [str(m.message) for m in w]
        check(f)


def test_softmax_module_dim_none_warns():
    def f(torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = torch.nn.Softmax()(torch.ones(2, 3))
        return out, [str(m.message) for m in w]
    check(f)


def test_float32_batched_functional():
    for name in ("elu", "gelu", "silu", "softplus", "mish", "hardswish", "logsigmoid"):
        check(lambda torch: getattr(torch.nn.functional, name)(torch.tensor(X)))


def test_prelu_functional():
    def f(torch):
        x = torch.tensor(X4, requires_grad=True)
        w = torch.tensor([0.1, -0.2, 0.3, 0.4], requires_grad=True)
        y = torch.nn.functional.prelu(x, w)
        y.sum().backward()
        return y, x.grad, w.grad
    check(f)
    check(lambda torch: torch.nn.functional.prelu(torch.tensor(X4), torch.ones(3)))
    check(lambda torch: torch.nn.functional.prelu(torch.tensor(X1), torch.ones(5)))


def test_rrelu_training_statistics():
    torchlike.manual_seed(0)
    x = -torchlike.ones(200000)
    y = torchlike.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    slopes = (-y).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 2e-3
    assert abs(slopes.std() - 0.2 / np.sqrt(12)) < 2e-3
    pos = torchlike.nn.functional.rrelu(torchlike.ones(10), training=True)
    assert (pos.numpy() == 1).all()
    # gradient is the sampled slope
    x = torchlike.full((100,), -1.0, requires_grad=True)
    y = torchlike.nn.RReLU()(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (y / x).detach().numpy(), rtol=1e-6)


def test_gumbel_softmax():
    torchlike.manual_seed(0)
    logits = torchlike.tensor(np.log(np.array([[0.1, 0.2, 0.7]] * 20000, np.float32)))
    y = torchlike.nn.functional.gumbel_softmax(logits, tau=0.5, hard=True)
    a = y.numpy()
    assert a.shape == (20000, 3) and (a.sum(1) == 1).all() and set(np.unique(a)) <= {0.0, 1.0}
    freq = a.mean(0)
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.015)
    logits = torchlike.randn(4, 5, requires_grad=True)
    s = torchlike.nn.functional.gumbel_softmax(logits, tau=2.0)
    np.testing.assert_allclose(s.sum(-1).detach().numpy(), np.ones(4), rtol=1e-5)
    (s * torchlike.arange(5.0)).sum().backward()
    assert logits.grad.shape == (4, 5)


ERRORS = [
    lambda torch: torch.nn.functional.elu(torch.arange(3)),
    lambda torch: torch.nn.functional.gelu(torch.arange(3)),
    lambda torch: torch.nn.functional.gelu(torch.ones(3), approximate="foo"),
    lambda torch: torch.nn.functional.silu(torch.arange(3)),
    lambda torch: torch.nn.functional.softplus(torch.arange(3)),
    lambda torch: torch.nn.functional.leaky_relu(torch.arange(3)),
    lambda torch: torch.nn.functional.hardsigmoid(torch.arange(3)),
    lambda torch: torch.nn.functional.hardswish(torch.arange(3)),
    lambda torch: torch.nn.functional.hardshrink(torch.arange(3)),
    lambda torch: torch.nn.functional.mish(torch.arange(3)),
    lambda torch: torch.nn.functional.logsigmoid(torch.arange(3)),
    lambda torch: torch.nn.functional.softshrink(torch.ones(3), -1),
    lambda torch: torch.nn.functional.celu(torch.ones(3), 0.0),
    lambda torch: torch.nn.functional.glu(torch.ones(3, 3)),
    lambda torch: torch.nn.functional.glu(torch.ones(())),
    lambda torch: torch.nn.functional.glu(torch.ones(4), 1),
    lambda torch: torch.nn.functional.prelu(torch.ones(2, 3, 4), torch.ones(4)),
    lambda torch: torch.nn.functional.prelu(torch.ones(3), torch.ones(3)),
    lambda torch: torch.nn.Softmax2d()(torch.ones(2, 3, 4, 5, 6)),
    lambda torch: torch.nn.Hardtanh(1.0, 0.5),
    lambda torch: torch.nn.functional.relu(3),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    check(ERRORS[i])


def test_int_inputs_that_work():
    check(lambda torch: torch.nn.functional.hardtanh(torch.arange(-3, 5), -1, 2))
    check(lambda torch: torch.nn.functional.relu6(torch.arange(-3, 9)))
    check(lambda torch: torch.nn.functional.softsign(torch.arange(-3, 5)))
    check(lambda torch: torch.nn.functional.tanhshrink(torch.arange(-3, 5)))
    check(lambda torch: torch.nn.functional.threshold(torch.arange(-3, 5), 1, 7))


REPRS = [
    lambda nn: nn.Threshold(0.1, 20), lambda nn: nn.Threshold(0.1, 20, True),
    lambda nn: nn.ReLU(), lambda nn: nn.ReLU(inplace=True), lambda nn: nn.RReLU(),
    lambda nn: nn.RReLU(0.1, 0.3, True), lambda nn: nn.Hardtanh(), lambda nn: nn.Hardtanh(-2, 2, True),
    lambda nn: nn.ReLU6(), lambda nn: nn.ReLU6(True), lambda nn: nn.Sigmoid(),
    lambda nn: nn.Hardsigmoid(True), lambda nn: nn.Tanh(), lambda nn: nn.SiLU(True),
    lambda nn: nn.Mish(), lambda nn: nn.Hardswish(True), lambda nn: nn.ELU(),
    lambda nn: nn.ELU(0.5, True), lambda nn: nn.CELU(), lambda nn: nn.SELU(True),
    lambda nn: nn.GLU(), lambda nn: nn.GELU(), lambda nn: nn.GELU("tanh"),
    lambda nn: nn.Hardshrink(), lambda nn: nn.LeakyReLU(), lambda nn: nn.LeakyReLU(0.2, True),
    lambda nn: nn.LogSigmoid(), lambda nn: nn.Softplus(), lambda nn: nn.Softshrink(),
    lambda nn: nn.PReLU(), lambda nn: nn.PReLU(3, 0.1), lambda nn: nn.Softsign(),
    lambda nn: nn.Tanhshrink(), lambda nn: nn.Softmin(), lambda nn: nn.Softmax(),
    lambda nn: nn.Softmax(dim=1), lambda nn: nn.Softmax2d(), lambda nn: nn.LogSoftmax(1),
    lambda nn: nn.Identity(3, k=2),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_repr(i):
    same_repr(lambda torch: REPRS[i](torch.nn))


def test_prelu_parameters():
    def f(torch):
        m = torch.nn.PReLU(3, 0.1)
        return m.weight.detach(), [n for n, _ in m.named_parameters()], m.num_parameters, \
            m.weight.requires_grad, m.init
    check(f)
    check(lambda torch: torch.nn.PReLU(2, dtype=torch.float64).weight.dtype)


def test_exports():
    import torch.nn.functional as TF
    from torchlike.nn._functional import activation
    for name in activation.__all__:
        assert hasattr(TF, name) and hasattr(torchlike.nn.functional, name)
    for name in ["ReLU", "GELU", "PReLU", "Softmax2d", "Hardswish", "Threshold", "Identity"]:
        assert hasattr(torchlike.nn, name)
    assert not any(k.startswith("torch") and k in __import__("sys").modules for k in [])
    assert real_torch.nn.functional.relu is not torchlike.nn.functional.relu


# ---- OpInfo sweep regressions ------------------------------------------------------------------

def test_activation_argument_checks():
    x = np.random.RandomState(0).randn(2, 8, 3).astype(np.float32)
    check(lambda t: t.nn.functional.hardtanh(t.tensor(x), 0.5, -0.5))
    check(lambda t: t.nn.functional.rrelu(t.tensor(x), 0.3, 0.1))
    check(lambda t: t.nn.functional.prelu(t.tensor(1.0), t.ones(2)))
    check(lambda t: t.nn.functional.prelu(t.tensor(x), t.ones(2, 4)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_training_noise_stream(dtype):
    # PyTorch draws one double uniform per element <= 0, in order
    x = np.random.RandomState(0).randn(20).astype(dtype)

    def body(t):
        t.manual_seed(42)
        a = t.tensor(x, requires_grad=True)
        out = t.nn.functional.rrelu(a, training=True)
        # the stream moves on by one draw per element <= 0, none for a positive input
        after = t.rand(3), t.nn.functional.rrelu(t.ones(4), training=True), t.rand(2)
        return out, t.autograd.grad(out.sum(), a)[0], after
    check(body)
