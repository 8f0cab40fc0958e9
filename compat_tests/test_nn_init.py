"""torch.nn.init against real PyTorch: deterministic initializers exactly, random ones by their
distribution (the RNG streams differ), errors and warnings as torch."""
import math
import warnings

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check

init = torchlike.nn.init


@pytest.mark.parametrize("args", [
    ("linear",), ("conv1d",), ("conv2d",), ("conv3d",), ("conv_transpose1d",),
    ("conv_transpose2d",), ("conv_transpose3d",), ("sigmoid",), ("tanh",), ("relu",),
    ("leaky_relu",), ("leaky_relu", 0.2), ("leaky_relu", 0), ("leaky_relu", 3), ("selu",),
    ("leaky_relu", True), ("leaky_relu", "x"), ("gelu",), ("softmax",),
])
def test_calculate_gain(args):
    check(lambda torch: torch.nn.init.calculate_gain(*args))


@pytest.mark.parametrize("shape", [(3,), (), (4, 5), (4, 5, 3), (2, 3, 4, 5), (6, 2, 1, 3, 2)])
def test_fan_in_and_fan_out(shape):
    check(lambda torch: torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape)))


def test_fan_error_message():
    check(lambda torch: torch.nn.init.xavier_uniform_(torch.empty(5)))
    check(lambda torch: torch.nn.init.kaiming_normal_(torch.empty(5)))
    check(lambda torch: torch.nn.init.kaiming_normal_(torch.empty(5, 3), mode="fan_avg"))
    check(lambda torch: torch.nn.init.kaiming_uniform_(torch.empty(5, 3), nonlinearity="foo"))


@pytest.mark.parametrize("expr", [
    "init.constant_(torch.nn.Parameter(torch.empty(3, 4)), 0.3)",
    "init.ones_(torch.empty(2, 3))", "init.zeros_(torch.nn.Parameter(torch.ones(2, 3)))",
    "init.eye_(torch.empty(3, 5))", "init.eye_(torch.nn.Parameter(torch.empty(4, 2)))",
    "init.eye_(torch.empty(3))", "init.dirac_(torch.empty(4, 3, 3))",
    "init.dirac_(torch.empty(4, 4, 3, 2))", "init.dirac_(torch.empty(6, 2, 3, 3, 3), groups=3)",
    "init.dirac_(torch.empty(6, 2, 3, 3), groups=4)", "init.dirac_(torch.empty(6, 2))",
    "init.constant_(torch.empty(2, 2, dtype=torch.int64), 3)",
    "init.orthogonal_(torch.empty(3))", "init.sparse_(torch.empty(3, 4, 5), 0.1)",
    "init.zeros_(torch.empty(0, 3))",
])
def test_deterministic(expr):
    def f(torch):
        r = eval(expr, {"torch": torch, "init": torch.nn.init})
        return r, r.requires_grad, type(r).__name__
    check(f)


def test_returns_same_tensor_and_runs_under_no_grad():
    for fn, args in [(init.uniform_, ()), (init.normal_, ()), (init.constant_, (1.0,)),
                     (init.ones_, ()), (init.zeros_, ()), (init.eye_, ()),
                     (init.xavier_uniform_, ()), (init.xavier_normal_, ()),
                     (init.kaiming_uniform_, ()), (init.kaiming_normal_, ()),
                     (init.trunc_normal_, ()), (init.orthogonal_, ()), (init.sparse_, (0.5,))]:
        p = torchlike.nn.Parameter(torchlike.empty(6, 4))
        assert fn(p, *args) is p, fn
        assert p.requires_grad and p.grad_fn is None and p.is_leaf
        d = p.data
        before = p._version
        assert fn(d, *args) is d
        np.testing.assert_array_equal(d.numpy(), p.detach().numpy())  # .data shares storage
        # an initializer on a leaf that requires grad is allowed (it runs under no_grad)
        assert p._version >= before


def test_weights_init_via_apply_like_seeds():
    nn = torchlike.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torchlike.empty(8, 6))
            self.bias = nn.Parameter(torchlike.ones(8))

    def weights_init(m):
        if hasattr(m, "w"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                nn.init.xavier_uniform(m.w.data, nn.init.calculate_gain("relu"))
            m.bias.data.zero_()

    net = Net()
    net.apply(weights_init)
    bound = math.sqrt(2.0) * math.sqrt(6.0 / 14)
    w = net.w.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > bound / 4
    assert (net.bias.detach().numpy() == 0).all()
    for f in (lambda p: nn.init.normal_(p, 0.0, 0.02),
              lambda p: nn.init.xavier_normal_(p, gain=math.sqrt(2)),
              lambda p: nn.init.kaiming_normal_(p, a=0, mode="fan_in"),
              lambda p: nn.init.orthogonal_(p, gain=math.sqrt(2)),
              lambda p: nn.init.constant_(p, 0.0)):
        assert f(net.w) is net.w


def _stats(t):
    a = t.detach().numpy().astype(np.float64).ravel()
    return a.mean(), a.std(), a.min(), a.max()


BIG = (400, 300)


def test_uniform_and_normal_distributions():
    torchlike.manual_seed(0)
    m, s, lo, hi = _stats(init.uniform_(torchlike.empty(BIG), -2.0, 3.0))
    assert lo >= -2 and hi < 3 and abs(m - 0.5) < 0.02 and abs(s - 5 / math.sqrt(12)) < 0.02
    m, s, _, _ = _stats(init.normal_(torchlike.empty(BIG), 1.5, 0.5))
    assert abs(m - 1.5) < 0.01 and abs(s - 0.5) < 0.01


@pytest.mark.parametrize("shape", [(400, 300), (64, 32, 3, 3)])
@pytest.mark.parametrize("gain", [1.0, math.sqrt(2.0)])
def test_xavier(shape, gain):
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(torchlike.empty(shape))
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    m, s, lo, hi = _stats(init.xavier_uniform_(torchlike.empty(shape), gain=gain))
    assert abs(m) < 0.2 * std and abs(s - std) < 0.03 * std
    assert -math.sqrt(3) * std * (1 + 1e-6) <= lo and hi <= math.sqrt(3) * std * (1 + 1e-6)
    m, s, _, _ = _stats(init.xavier_normal_(torchlike.empty(shape), gain))
    assert abs(s - std) < 0.03 * std


@pytest.mark.parametrize("a,mode,nl", [(0, "fan_in", "leaky_relu"), (0.2, "fan_out", "leaky_relu"),
                                       (0, "fan_in", "relu"), (0, "FAN_OUT", "tanh"),
                                       (math.sqrt(5), "fan_in", "leaky_relu")])
def test_kaiming(a, mode, nl):
    shape = (200, 50, 3, 3)
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(torchlike.empty(shape))
    fan = fan_in if mode.lower() == "fan_in" else fan_out
    std = init.calculate_gain(nl, a) / math.sqrt(fan)
    _, s, lo, hi = _stats(init.kaiming_uniform_(torchlike.empty(shape), a, mode, nl))
    assert abs(s - std) < 0.03 * std and hi <= math.sqrt(3) * std * (1 + 1e-6) and \
        lo >= -math.sqrt(3) * std * (1 + 1e-6)
    _, s, _, _ = _stats(init.kaiming_normal_(torchlike.empty(shape), a=a, mode=mode,
                                             nonlinearity=nl))
    assert abs(s - std) < 0.03 * std


def test_kaiming_zero_element_warning():
    for lib in (real_torch, torchlike):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            t = lib.empty(0, 3)
            assert lib.nn.init.kaiming_uniform_(t) is t


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (1.0, 0.5, 0.0, 1.5),
                                          (0.0, 0.02, -0.04, 0.04), (0.0, 1.0, 0.5, 3.0)])
def test_trunc_normal(mean, std, a, b):
    torchlike.manual_seed(4)
    t = init.trunc_normal_(torchlike.empty(BIG), mean, std, a, b)
    m, s, lo, hi = _stats(t)
    assert lo >= a and hi <= b
    # the truncated normal's moments
    from math import erf, exp, pi, sqrt
    al, be = (a - mean) / std, (b - mean) / std
    phi = lambda x: exp(-x * x / 2) / sqrt(2 * pi)  # noqa: E731
    Phi = lambda x: (1 + erf(x / sqrt(2))) / 2  # noqa: E731
    Z = Phi(be) - Phi(al)
    em = mean + (phi(al) - phi(be)) / Z * std
    ev = std ** 2 * (1 + (al * phi(al) - be * phi(be)) / Z - ((phi(al) - phi(be)) / Z) ** 2)
    assert abs(m - em) < 0.01 * max(std, 0.1) and abs(s - sqrt(ev)) < 0.02 * sqrt(ev)


def test_trunc_normal_warning():
    with pytest.warns(UserWarning, match="mean is more than 2 std"):
        init.trunc_normal_(torchlike.empty(3), 5.0, 1.0, -1.0, 1.0)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (6, 2, 2), (4, 4)])
@pytest.mark.parametrize("gain", [1.0, 2.0])
def test_orthogonal(shape, gain):
    t = init.orthogonal_(torchlike.empty(shape), gain=gain).numpy().reshape(shape[0], -1)
    rows, cols = t.shape
    g = t @ t.T if rows <= cols else t.T @ t
    np.testing.assert_allclose(g, gain ** 2 * np.eye(min(rows, cols)), atol=1e-5)


def test_sparse():
    torchlike.manual_seed(5)
    t = init.sparse_(torchlike.empty(100, 60), 0.3, std=0.05).numpy()
    zeros_per_col = (t == 0).sum(axis=0)
    assert (zeros_per_col == 30).all()
    nz = t[t != 0]
    assert abs(nz.std() - 0.05) < 0.005
    check(lambda torch: torch.nn.init.sparse_(torch.empty(5), 0.1))


@pytest.mark.parametrize("name", ["uniform", "normal", "constant", "eye", "dirac",
                                  "xavier_uniform", "xavier_normal", "kaiming_uniform",
                                  "kaiming_normal", "orthogonal", "sparse"])
def test_deprecated_aliases(name):
    args = {"constant": (0.5,), "sparse": (0.1,)}.get(name, ())
    shape = (4, 3, 3) if name == "dirac" else (4, 3)
    t = torchlike.empty(shape)
    with pytest.warns(FutureWarning) as rec:
        r = getattr(init, name)(t, *args)
    assert r is t
    assert str(rec[0].message) == (f"`nn.init.{name}` is now deprecated in favor of "
                                   f"`nn.init.{name}_`.")
    assert getattr(init, name).__name__ == getattr(real_torch.nn.init, name).__name__
    assert getattr(init, name).__doc__ == getattr(real_torch.nn.init, name).__doc__
    if name in ("constant", "eye", "dirac"):
        check(lambda torch: getattr(torch.nn.init, name)(torch.empty(shape), *args))


def test_all_matches_torch():
    assert sorted(init.__all__) == sorted(real_torch.nn.init.__all__)


def test_generator_argument():
    g1 = torchlike.Generator().manual_seed(3)
    g2 = torchlike.Generator().manual_seed(3)
    a = init.normal_(torchlike.empty(5, 4), generator=g1)
    b = init.normal_(torchlike.empty(5, 4), generator=g2)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    c = init.kaiming_uniform_(torchlike.empty(5, 4), generator=torchlike.Generator().manual_seed(1))
    d = init.kaiming_uniform_(torchlike.empty(5, 4), generator=torchlike.Generator().manual_seed(1))
    np.testing.assert_array_equal(c.numpy(), d.numpy())
