"""torch.distributions beyond the basic families: Gamma, Chi2, Beta, Dirichlet, the
multivariate normals, Poisson, Binomial, Multinomial, StudentT, Cauchy, LogNormal, Gumbel,
HalfNormal, Geometric, TransformedDistribution, the transforms and the biject_to/transform_to
registries, and their KL divergences, run under PyTorch and torchlike and compared. Samplers
PyTorch builds from its basic random calls are compared value for value after the same seed;
those it implements in C++ (gamma, binomial, dirichlet, poisson) draw other numbers in
torchlike, so they are checked by shape, dtype and the moments of many draws."""
import math

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import Raised, check


@pytest.fixture(autouse=True)
def torch_validates_by_default():
    """Each test starts from PyTorch's default (validation on); see test_distributions.py."""
    real_torch.distributions.Distribution.set_default_validate_args(True)
    yield


def _same(fn, *args, **kw):
    """`check`, and PyTorch's side must not have raised (a broken test would compare equal
    errors)."""
    expected, _ = check(fn, *args, **kw)
    assert not isinstance(expected, Raised), expected
    return expected


def _rs(seed):
    return np.random.RandomState(seed)


def _t(torch, a, grad=False, dtype=None):
    t = torch.tensor(np.asarray(a), dtype=dtype or torch.float32)
    return t.requires_grad_() if grad else t


def _pos(torch, shape, seed, lo=0.5, hi=3.0, grad=True, dtype=None):
    return _t(torch, _rs(seed).uniform(lo, hi, size=shape), grad, dtype)


def _real(torch, shape, seed, grad=True, dtype=None):
    return _t(torch, _rs(seed).standard_normal(shape), grad, dtype)


def _spd(torch, n, seed, batch=(), grad=False, dtype=None):
    a = _rs(seed).randn(*batch, n, n)
    m = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    return _t(torch, m, grad, dtype)


def _tril(torch, n, seed, batch=(), grad=True):
    a = np.tril(_rs(seed).randn(*batch, n, n) * 0.5, -1)
    a = a + np.eye(n) * _rs(seed + 1).uniform(0.5, 2.0, size=(*batch, n, 1))
    return _t(torch, a, grad)


# ---- name -> builder(torch) -> (distribution, [parameters], a value in the support) --------

def _gamma(torch):
    c, r = _pos(torch, 3, 1), _pos(torch, 3, 2)
    return torch.distributions.Gamma(c, r), [c, r], _pos(torch, 3, 3, 0.1, 4.0, False)


def _gamma_scalar(torch):
    return torch.distributions.Gamma(2.0, 3.0), [], _pos(torch, 4, 3, 0.1, 4.0, False)


def _chi2(torch):
    df = _pos(torch, 3, 4, 1.0, 5.0)
    return torch.distributions.Chi2(df), [df], _pos(torch, 3, 5, 0.1, 4.0, False)


def _beta(torch):
    a, b = _pos(torch, 3, 6), _pos(torch, 3, 7)
    return torch.distributions.Beta(a, b), [a, b], _pos(torch, 3, 8, 0.05, 0.95, False)


def _dirichlet(torch):
    c = _pos(torch, (2, 3), 9)
    v = _rs(10).dirichlet([1.0, 2.0, 3.0], size=2)
    return torch.distributions.Dirichlet(c), [c], _t(torch, v)


def _mvn_cov(torch):
    loc = _real(torch, 3, 11)
    cov = _spd(torch, 3, 12, grad=True)
    return (torch.distributions.MultivariateNormal(loc, covariance_matrix=cov), [loc, cov],
            _real(torch, (2, 3), 13, False))


def _mvn_precision(torch):
    loc = _real(torch, 3, 14)
    prec = _spd(torch, 3, 15, batch=(2,), grad=True)
    return (torch.distributions.MultivariateNormal(loc, precision_matrix=prec), [loc, prec],
            _real(torch, (2, 3), 16, False))


def _mvn_tril(torch):
    loc = _real(torch, 2, 17)
    low = _tril(torch, 2, 18)
    return (torch.distributions.MultivariateNormal(loc, scale_tril=low), [loc, low],
            _real(torch, (3, 2), 19, False))


def _lowrank(torch):
    loc, w = _real(torch, (2, 3), 20), _real(torch, (3, 2), 21)
    d = _pos(torch, 3, 22)
    return (torch.distributions.LowRankMultivariateNormal(loc, w, d), [loc, w, d],
            _real(torch, (2, 3), 23, False))


def _poisson(torch):
    r = _pos(torch, 3, 24)
    return torch.distributions.Poisson(r), [r], _t(torch, [0.0, 2.0, 5.0])


def _binomial(torch):
    p = _pos(torch, 3, 25, 0.1, 0.9)
    return (torch.distributions.Binomial(torch.tensor([5.0, 5.0, 5.0]), p), [p],
            _t(torch, [0.0, 3.0, 5.0]))


def _binomial_logits(torch):
    lg = _real(torch, 3, 26)
    return torch.distributions.Binomial(4, logits=lg), [lg], _t(torch, [2.0, 1.0, 4.0])


def _multinomial(torch):
    p = _pos(torch, (2, 3), 27)   # unnormalised: Categorical normalises
    return (torch.distributions.Multinomial(4, probs=p), [p],
            _t(torch, [[1.0, 3.0, 0.0], [2.0, 1.0, 1.0]]))


def _student(torch):
    df = _t(torch, [0.8, 1.5, 4.0], True)
    loc, scale = _real(torch, 3, 29), _pos(torch, 3, 30)
    return (torch.distributions.StudentT(df, loc, scale), [df, loc, scale],
            _real(torch, 3, 31, False))


def _cauchy(torch):
    loc, scale = _real(torch, 3, 32), _pos(torch, 3, 33)
    return torch.distributions.Cauchy(loc, scale), [loc, scale], _real(torch, 3, 34, False)


def _lognormal(torch):
    loc, scale = _real(torch, 3, 35), _pos(torch, 3, 36, 0.3, 1.5)
    return (torch.distributions.LogNormal(loc, scale), [loc, scale],
            _pos(torch, 3, 37, 0.1, 4.0, False))


def _gumbel(torch):
    loc, scale = _real(torch, 3, 38), _pos(torch, 3, 39)
    return torch.distributions.Gumbel(loc, scale), [loc, scale], _real(torch, 3, 40, False)


def _halfnormal(torch):
    s = _pos(torch, 3, 41)
    return torch.distributions.HalfNormal(s), [s], _pos(torch, 3, 42, 0.0, 3.0, False)


def _geometric(torch):
    p = _pos(torch, 3, 43, 0.1, 0.9)
    return torch.distributions.Geometric(p), [p], _t(torch, [0.0, 2.0, 7.0])


def _transformed(torch):
    """A logit-normal: sigmoid(1 + 2 x) for x Normal."""
    D = torch.distributions
    loc, scale = _real(torch, 3, 45), _pos(torch, 3, 46)
    d = D.TransformedDistribution(D.Normal(loc, scale), [D.AffineTransform(1.0, 2.0),
                                                          D.SigmoidTransform()])
    return d, [loc, scale], _pos(torch, 3, 47, 0.05, 0.95, False)


def _transformed_decreasing(torch):
    D = torch.distributions
    rate = _pos(torch, 3, 48)
    d = D.TransformedDistribution(D.Exponential(rate), D.AffineTransform(2.0, -1.5))
    return d, [rate], _t(torch, [1.0, 1.9, -3.0])


def _transformed_simplex(torch):
    """Normal vectors pushed onto the simplex (event dims from the transform)."""
    D = torch.distributions
    loc = _real(torch, (2, 2), 49)
    d = D.TransformedDistribution(D.Normal(loc, 1.0), D.StickBreakingTransform())
    return d, [loc], _t(torch, _rs(50).dirichlet([1.0, 1.0, 1.0], size=2))


SPECS = {
    "gamma": _gamma, "gamma_scalar": _gamma_scalar, "chi2": _chi2, "beta": _beta,
    "dirichlet": _dirichlet, "mvn_cov": _mvn_cov,
    "mvn_precision": _mvn_precision, "mvn_tril": _mvn_tril, "lowrank": _lowrank,
    "poisson": _poisson, "binomial": _binomial, "binomial_logits": _binomial_logits,
    "multinomial": _multinomial,
    "student": _student, "cauchy": _cauchy, "lognormal": _lognormal, "gumbel": _gumbel,
    "halfnormal": _halfnormal, "geometric": _geometric,
    "transformed": _transformed,
    "transformed_decreasing": _transformed_decreasing,
    "transformed_simplex": _transformed_simplex,
}


def _probs_like(v):
    n = v.numel()
    return v.new_tensor(np.linspace(0.05, 0.95, n), dtype=v.dtype).reshape(v.shape)


_QUERIES = {
    "log_prob": lambda d, v: d.log_prob(v),
    "cdf": lambda d, v: d.cdf(v),
    "icdf": lambda d, v: d.icdf(_probs_like(v)),
    "entropy": lambda d, v: d.entropy(),
    "mean": lambda d, v: d.mean,
    "variance": lambda d, v: d.variance,
    "stddev": lambda d, v: d.stddev,
    "mode": lambda d, v: d.mode,
}


def _capture(fn):
    """fn()'s value, or the exception it raised as (type name, message)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - compared across the two libraries
        return ("raised", type(e).__name__, str(e).split("\nException raised from")[0])


_WITH_GRADS = ("log_prob",)   # the others' are simple expressions of the same ops


def _value_and_grads(torch, params, fn):
    out = fn()
    if not (params and isinstance(out, torch.Tensor) and out.requires_grad):
        return out, None
    finite = torch.where(torch.isfinite(out), out, torch.zeros_like(out))
    return out, torch.autograd.grad(finite.sum(), params, allow_unused=True, retain_graph=True)


# the variants of a family met elsewhere (numbers, Chi2 as a Gamma, logits, scale_tril) are
# left to the shape, KL and edge tests: each spec here compiles its own kernels
_VALUE_SPECS = [s for s in SPECS if s not in ("gamma_scalar", "chi2", "binomial_logits",
                                              "mvn_tril")]


@pytest.mark.parametrize("spec", _VALUE_SPECS)
def test_values_and_gradients(spec):
    """Every query's value, with gradients for log_prob (or the same exception:
    NotImplementedError where PyTorch has no cdf/icdf/entropy/mode for the family)."""
    def f(torch):
        d, params, v = SPECS[spec](torch)
        return {q: _capture(lambda: _value_and_grads(torch, params if q in _WITH_GRADS else [],
                                                     lambda: fn(d, v)))
                for q, fn in _QUERIES.items()}
    _same(f, rtol=5e-5, atol=5e-6)


@pytest.mark.parametrize("spec", list(SPECS))
def test_shapes_flags_expand_and_samples(spec):
    """Shapes, flags, support, repr; `expand` (shapes, repr, a draw); sample and rsample
    shapes, dtypes and whether they carry gradients."""
    def f(torch):
        d, _, v = SPECS[spec](torch)
        support = d.support
        out = [d.batch_shape, d.event_shape, d._extended_shape((4, 1)), d.has_rsample,
               d.has_enumerate_support, repr(support), support.event_dim, support.is_discrete,
               repr(d), {k: repr(c) for k, c in type(d).arg_constraints.items()}]
        e = d.expand(torch.Size((2,)) + d.batch_shape)
        out += [e.batch_shape, e.event_shape, type(e).__name__, e._validate_args, repr(e),
                e.sample().shape]
        with torch.no_grad():   # rsample's gradients: test_reparameterized_gradients
            s = d.sample()
            out.append((s.shape, s.dtype))
            if d.has_rsample:
                r = d.rsample((5,))
                out.append((r.shape, r.dtype))
        return out
    _same(f, rtol=5e-5, atol=5e-6)


# ---- samples that follow PyTorch's numbers (built from its basic random calls) -------------

_SAME_STREAM = ["mvn_cov", "mvn_precision", "mvn_tril", "lowrank", "cauchy", "lognormal",
                "gumbel", "halfnormal", "geometric", "multinomial", "transformed",
                "transformed_simplex"]


@pytest.mark.parametrize("spec", _SAME_STREAM)
def test_seeded_samples_are_pytorchs(spec):
    """The same draws after the same seed; rsample's gradients through them."""
    def f(torch):
        d, params, _ = SPECS[spec](torch)
        torch.manual_seed(7)
        out = [d.sample((4,))]
        if d.has_rsample:
            r = d.rsample((2,))
            out += [r, torch.autograd.grad(r.sum(), params, allow_unused=True)]
        return out
    _same(f, rtol=1e-4, atol=1e-5)


# ---- samplers torchlike draws differently: shapes, reproducibility, moments ----------------

# draws per spec: 15000 gamma draws each (two per Beta draw, three per Dirichlet row of this
# spec), so that the sampling kernel runs at one size class
_OWN_STREAM = {"gamma": 5000, "chi2": 5000, "beta": 2500, "dirichlet": 2500, "student": 5000,
               "poisson": 5000, "binomial": 5000}


@pytest.mark.parametrize("spec", list(_OWN_STREAM))
def test_own_samplers(spec):
    """Reproducible per seed; in the support; PyTorch's dtype and shape; the sample mean and
    variance within 5 of their standard errors (estimated from the draws) of PyTorch's mean
    and variance."""
    n = _OWN_STREAM[spec]
    torchlike.manual_seed(0)
    d = SPECS[spec](torchlike)[0]
    # rsample where there is one: the kernel test_reparameterized_gradients runs too
    draw = d.rsample if d.has_rsample else d.sample
    s = draw((n,)).detach()
    torchlike.manual_seed(0)
    assert torchlike.equal(draw((n,)).detach(), s)
    assert bool(d.support.check(s).all())
    ref = SPECS[spec](real_torch)[0]
    ref_sample = ref.sample((2,))
    assert (str(s.dtype), tuple(s.shape[1:])) == (str(ref_sample.dtype),
                                                  tuple(ref_sample.shape[1:]))
    s = s.double().numpy()
    mean = ref.mean.detach().double().numpy()
    var = ref.variance.detach().double().numpy()
    finite = np.isfinite(var)   # StudentT with df <= 2
    m, v = s.mean(0), s.var(0)
    m4 = ((s - m) ** 4).mean(0)
    np.testing.assert_array_less(np.abs(m - mean)[finite], 5 * np.sqrt(var / n)[finite] + 1e-9)
    np.testing.assert_array_less(np.abs(v - var)[finite],
                                 5 * np.sqrt(np.abs(m4 - v ** 2) / n)[finite] + 1e-9)


def test_gamma_rsample_gradient_is_the_implicit_one():
    """On torchlike's own draws x (float64), d x / d concentration is the implicit derivative
    -dF/dc / dF/dx of the gamma CDF F at x (checked by central differences of F), which
    PyTorch's `_standard_gamma_grad` approximates (to ~4e-4 here); the rate's gradient is
    -x / rate."""
    T = torchlike
    c = T.tensor([0.3, 1.0, 2.5, 9.0], dtype=T.float64, requires_grad=True)
    r = T.tensor([1.0, 2.0, 0.5, 3.0], dtype=T.float64, requires_grad=True)
    T.manual_seed(1)
    x = T.distributions.Gamma(c, r).rsample((8,))
    gc, gr = T.autograd.grad(x.sum(), [c, r])
    np.testing.assert_allclose(gr.numpy(), -(x.detach() / r.detach()).sum(0).numpy(), rtol=1e-9)
    std = (x * r).detach()   # the standard gamma draws
    cc = c.detach().expand_as(std)
    h = 1e-6
    dfdc = (T.special.gammainc(cc + h, std) - T.special.gammainc(cc - h, std)) / (2 * h)
    dfdx = T.exp((cc - 1) * std.log() - std - T.lgamma(cc))
    implicit = -dfdc / dfdx
    np.testing.assert_allclose(gc.numpy(), (implicit / r.detach()).sum(0).numpy(), rtol=1e-6)
    ref = real_torch._standard_gamma_grad(real_torch.tensor(cc.numpy()),
                                          real_torch.tensor(std.numpy()))
    np.testing.assert_allclose(implicit.numpy(), ref.numpy(), rtol=1e-3)


def _mean_gradient(spec, fn=lambda x: x):
    torchlike.manual_seed(3)
    d, params, _ = SPECS[spec](torchlike)
    out = fn(d.rsample((_OWN_STREAM[spec],))).mean(0).sum()
    return d, [g.numpy() for g in torchlike.autograd.grad(out, params)]


def test_reparameterized_gradients():
    """d E[f(x)] / d parameters estimated from rsample draws of the samplers torchlike draws
    on its own, against closed forms."""
    d, (g_c, g_r) = _mean_gradient("gamma")   # E x = c / r
    c, r = d.concentration.detach().numpy(), d.rate.detach().numpy()
    np.testing.assert_allclose(g_c, 1 / r, rtol=0.05)
    np.testing.assert_allclose(g_r, -c / r ** 2, rtol=0.05)

    d, (g_a, g_b) = _mean_gradient("beta")   # E x = a / (a + b)
    a, b = d.concentration1.detach().numpy(), d.concentration0.detach().numpy()
    np.testing.assert_allclose(g_a, b / (a + b) ** 2, rtol=0.1)
    np.testing.assert_allclose(g_b, -a / (a + b) ** 2, rtol=0.1)

    d, (g,) = _mean_gradient("dirichlet", lambda x: x[..., 0])   # E x_0 = c_0 / sum c
    c = d.concentration.detach().numpy()
    total = c.sum(-1, keepdims=True)
    expected = -c[:, :1] / total ** 2 + np.eye(3)[0] / total
    np.testing.assert_allclose(g, expected, rtol=0.1, atol=0.01)

    d, (_, g_loc, _) = _mean_gradient("student")   # each draw is loc + scale * t
    np.testing.assert_allclose(g_loc, np.ones(3), rtol=1e-6)


# ---- KL divergences ------------------------------------------------------------------

def _kl_pairs(torch):
    """name -> () -> (p, q, [leaf parameters])."""
    D = torch.distributions
    r = lambda s: _real(torch, 3, s)  # noqa: E731
    pos = lambda s, lo=0.5, hi=3.0: _pos(torch, 3, s, lo, hi)  # noqa: E731
    unit = lambda s: _pos(torch, 3, s, 0.1, 0.9)  # noqa: E731

    def two(make, *args):
        ps = [a() for a in args]
        return make(*ps), ps

    def pair(p, q):
        return p[0], q[0], p[1] + q[1]

    gamma = lambda s: two(D.Gamma, lambda: pos(s), lambda: pos(s + 1))  # noqa: E731
    beta = lambda s: two(D.Beta, lambda: pos(s), lambda: pos(s + 1))  # noqa: E731
    normal = lambda s: two(D.Normal, lambda: r(s), lambda: pos(s + 1))  # noqa: E731
    gumbel = lambda s: two(D.Gumbel, lambda: r(s), lambda: pos(s + 1))  # noqa: E731
    expo = lambda s: two(D.Exponential, lambda: pos(s))  # noqa: E731
    laplace = lambda s: two(D.Laplace, lambda: r(s), lambda: pos(s + 1))  # noqa: E731
    poisson = lambda s: two(D.Poisson, lambda: pos(s))  # noqa: E731

    def uniform(s, lo=-1.0, width=(1.0, 3.0)):
        low = _t(torch, _rs(s).uniform(lo, lo + 0.5, size=3), True)
        high = _t(torch, _rs(s + 1).uniform(*width, size=3), True)
        return D.Uniform(low, low + high), [low, high]

    def mvn(s, batch=()):
        loc, low = _real(torch, batch + (3,), s), _tril(torch, 3, s + 1, batch)
        return D.MultivariateNormal(loc, scale_tril=low), [loc, low]

    def lowrank(s):
        loc, w, d = _real(torch, (3,), s), _real(torch, (3, 2), s + 1), pos(s + 2)
        return D.LowRankMultivariateNormal(loc, w, d), [loc, w, d]

    def binomial(s, n):
        p = unit(s)
        return D.Binomial(torch.tensor(n), p), [p]

    def dirichlet(s):
        c = _pos(torch, (2, 3), s)
        return D.Dirichlet(c), [c]

    return {
        "gamma_gamma": lambda: pair(gamma(1), gamma(3)),
        "chi2_chi2": lambda: pair(two(D.Chi2, lambda: pos(5)), two(D.Chi2, lambda: pos(6))),
        "beta_beta": lambda: pair(beta(7), beta(9)),
        "dirichlet_dirichlet": lambda: pair(dirichlet(11), dirichlet(12)),
        "poisson_poisson": lambda: pair(poisson(13), poisson(14)),
        "geometric_geometric": lambda: pair(two(D.Geometric, lambda: unit(15)),
                                            two(lambda lg: D.Geometric(logits=lg),
                                                lambda: r(16))),
        "cauchy_cauchy": lambda: pair(two(D.Cauchy, lambda: r(17), lambda: pos(18)),
                                      two(D.Cauchy, lambda: r(19), lambda: pos(20))),
        "halfnormal_halfnormal": lambda: pair(two(D.HalfNormal, lambda: pos(21)),
                                              two(D.HalfNormal, lambda: pos(22))),
        "gumbel_gumbel": lambda: pair(gumbel(23), gumbel(25)),
        "lognormal_lognormal": lambda: pair(two(D.LogNormal, lambda: r(27), lambda: pos(28)),
                                            two(D.LogNormal, lambda: r(29), lambda: pos(30))),
        "binomial_binomial": lambda: pair(binomial(31, [5.0, 6.0, 5.0]),
                                          binomial(32, [5.0, 5.0, 5.0])),
        "binomial_larger_q": lambda: pair(binomial(31, [5.0, 5.0, 5.0]),
                                          binomial(32, [5.0, 6.0, 5.0])),
        "mvn_mvn": lambda: pair(mvn(33, (2,)), mvn(35)),
        "mvn_lowrank": lambda: pair(mvn(37), lowrank(39)),
        "lowrank_mvn": lambda: pair(lowrank(42), mvn(45, (2,))),
        "lowrank_lowrank": lambda: pair(lowrank(47), lowrank(50)),
        "mvn_event_mismatch": lambda: (D.MultivariateNormal(torch.zeros(2), torch.eye(2)),
                                       D.MultivariateNormal(torch.zeros(3), torch.eye(3)), []),
        "lowrank_event_mismatch": lambda: (
            D.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)),
            D.MultivariateNormal(torch.zeros(3), torch.eye(3)), []),
        "exponential_gamma": lambda: pair(expo(53), gamma(54)),
        "gamma_exponential": lambda: pair(gamma(56), expo(58)),
        "gamma_normal": lambda: pair(gamma(59), normal(61)),
        "gamma_gumbel": lambda: pair(gamma(63), gumbel(65)),
        "beta_exponential": lambda: pair(beta(67), expo(69)),
        "beta_gamma": lambda: pair(beta(70), gamma(72)),
        "beta_normal": lambda: pair(beta(74), normal(76)),
        "beta_uniform": lambda: pair(beta(78), uniform(80, -0.5, (1.2, 2.0))),
        "beta_uniform_inf": lambda: pair(beta(78), uniform(82, -0.2, (0.5, 1.5))),
        "uniform_beta": lambda: pair(uniform(84, 0.05, (0.1, 0.4)), beta(86)),
        "uniform_beta_inf": lambda: pair(uniform(88, -0.3, (0.1, 1.2)), beta(86)),
        "uniform_gamma": lambda: pair(uniform(90, -0.3, (0.5, 2.0)), gamma(92)),
        "uniform_gumbel": lambda: pair(uniform(94), gumbel(96)),
        "normal_gumbel": lambda: pair(normal(98), gumbel(100)),
        "exponential_gumbel": lambda: pair(expo(102), gumbel(103)),
        "gumbel_normal": lambda: pair(gumbel(105), normal(107)),
        "bernoulli_poisson": lambda: pair(two(D.Bernoulli, lambda: unit(109)), poisson(110)),
        # PyTorch's infinite ones: p has mass where q has none
        "normal_gamma": lambda: pair(normal(111), gamma(113)),
        "normal_beta": lambda: pair(normal(111), beta(115)),
        "laplace_gamma": lambda: pair(laplace(117), gamma(113)),
        "gumbel_uniform": lambda: pair(gumbel(119), uniform(121)),
        "exponential_beta": lambda: pair(expo(123), beta(115)),
        "gamma_uniform": lambda: pair(gamma(125), uniform(121)),
        "poisson_binomial": lambda: pair(poisson(127), binomial(128, [3.0, 3.0, 3.0])),
        # no formula: PyTorch's errors
        "gamma_poisson": lambda: pair(gamma(129), poisson(131)),
        "chi2_exponential_family": lambda: (D.Chi2(2.0), D.Dirichlet(torch.ones(2)), []),
        "binomial_poisson": lambda: pair(binomial(31, [5.0, 5.0, 5.0]), poisson(131)),
        "cauchy_normal": lambda: pair(two(D.Cauchy, lambda: r(17), lambda: pos(18)),
                                      normal(132)),
        "lognormal_halfnormal": lambda: pair(two(D.LogNormal, lambda: r(27), lambda: pos(28)),
                                             two(D.HalfNormal, lambda: pos(22))),
    }


_KL_RAISES = {"binomial_larger_q", "mvn_event_mismatch", "lowrank_event_mismatch",
              "gamma_poisson", "chi2_exponential_family", "binomial_poisson", "cauchy_normal",
              "lognormal_halfnormal"}


@pytest.mark.parametrize("pair", list(_kl_pairs(real_torch)))
def test_kl_divergence(pair):
    def f(torch):
        p, q, params = _kl_pairs(torch)[pair]()
        kl = torch.distributions.kl_divergence(p, q)
        grads = None
        if kl.requires_grad:
            finite = torch.where(torch.isfinite(kl), kl, torch.zeros_like(kl))
            grads = torch.autograd.grad(finite.sum(), params, allow_unused=True)
        return kl, grads
    expected, _ = check(f, rtol=1e-4, atol=1e-5)
    assert isinstance(expected, Raised) == (pair in _KL_RAISES), expected


# ---- transforms ----------------------------------------------------------------------------

def _transforms(torch):
    """name -> (transform, an input in its domain)."""
    T = torch.distributions.transforms
    x = _real(torch, (2, 3), 140)
    sq = _real(torch, (2, 3, 3), 141)
    return {
        "exp": (T.ExpTransform(), x),
        "exp_inv": (T.ExpTransform().inv, _pos(torch, (2, 3), 142)),
        "power": (T.PowerTransform(2.5), _pos(torch, (2, 3), 143)),
        "power_tensor": (T.PowerTransform(torch.tensor([0.5, -1.0, 2.0])),
                         _pos(torch, (2, 3), 144)),
        "sigmoid": (T.SigmoidTransform(), x),
        "softplus": (T.SoftplusTransform(), x),
        "tanh": (T.TanhTransform(), x),
        "abs": (T.AbsTransform(), x),
        "affine": (T.AffineTransform(1.0, -2.0), x),
        "affine_tensor": (T.AffineTransform(torch.tensor([0.0, 1.0, 2.0]),
                                            torch.tensor([0.5, 1.0, 3.0]), event_dim=1), x),
        "softmax": (T.SoftmaxTransform(), x),
        "stick_breaking": (T.StickBreakingTransform(), x),
        "lower_cholesky": (T.LowerCholeskyTransform(), sq),
        "positive_definite": (T.PositiveDefiniteTransform(), sq),
        "compose": (T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.ExpTransform()]), x),
        "compose_vector": (T.ComposeTransform([T.ExpTransform(), T.StickBreakingTransform()]),
                           x),
        "independent": (T.IndependentTransform(T.SigmoidTransform(), 1), x),
        "reshape": (T.ReshapeTransform((3,), (3, 1)), x),
        "identity": (T.identity_transform, x),
    }


def _transform_facts(torch, name):
    t, x = _transforms(torch)[name]
    x = x.detach().requires_grad_()
    y = t(x)
    back = _capture(lambda: t.inv(y))
    ladj = _capture(lambda: t.log_abs_det_jacobian(x, y))
    grads = None
    if isinstance(ladj, torch.Tensor):
        grads = torch.autograd.grad(y.sum() + ladj.sum(), [x], allow_unused=True)
    facts = [repr(t), repr(t.inv), repr(t.domain), repr(t.codomain), t.bijective,
             _capture(lambda: t.sign), _capture(lambda: t.event_dim), t.inv.inv is t,
             t == _transforms(torch)[name][0], t != t.inv, t.inv == t.inv,
             _capture(lambda: t.forward_shape(torch.Size([4, 2, 3]))),
             _capture(lambda: t.inverse_shape(torch.Size([4, 2, 3])))]
    return y, back, ladj, grads, facts


@pytest.mark.parametrize("name", list(_transforms(real_torch)))
def test_transform(name):
    """Forward, inverse, log|det J| and its gradient, constraints, sign, shapes, equality."""
    _same(_transform_facts, name, rtol=1e-4, atol=1e-5)


def test_transform_cache_and_misc():
    def f(torch):
        T = torch.distributions.transforms
        x = torch.tensor([0.5, -1.0])
        cached = T.ExpTransform(cache_size=1)
        plain = T.ExpTransform()
        y = cached(x)
        out = [cached(x) is y, cached.inv(y) is x, plain(x) is plain(x),
               cached._cache_size, plain.with_cache()._cache_size,
               T.AffineTransform(1.0, 2.0).with_cache(1)._cache_size,
               T.ComposeTransform([plain], cache_size=1).parts[0]._cache_size,
               T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 3.0),
               T.AffineTransform(torch.zeros(2), 1.0) == T.AffineTransform(0.0, 1.0),
               T.PowerTransform(2.0) == T.PowerTransform(torch.tensor(2.0)),
               T.ExpTransform() == T.SigmoidTransform(), T.identity_transform(x),
               repr(T.ComposeTransform([T.ExpTransform()]).inv.inv.parts),
               T.AffineTransform(0.0, -2.0).sign, T.AffineTransform(0.0, 0.0).sign,
               T.ComposeTransform([T.AffineTransform(0.0, -1.0), T.ExpTransform()]).sign,
               T.identity_transform.log_abs_det_jacobian(x, x)]
        for bad in (lambda: T.Transform(cache_size=2), lambda: T.Transform()(x),
                    lambda: T.Transform().inv(x), lambda: T.Transform().sign,
                    lambda: T.SoftmaxTransform().log_abs_det_jacobian(x, x),
                    lambda: T.StickBreakingTransform().forward_shape(torch.Size()),
                    lambda: T.SoftmaxTransform().sign, lambda: hash(T.ExpTransform()),
                    lambda: T.ReshapeTransform((2,), (3,)),
                    lambda: T.ReshapeTransform((3,), (3, 1)).forward_shape(torch.Size([2])),
                    lambda: T.AffineTransform(1.0, 2.0).with_cache(2),
                    lambda: T.IndependentTransform(T.ExpTransform(), 1)(torch.tensor(1.0))):
            out.append(_capture(bad))
        return out
    _same(f)


# ---- biject_to / transform_to ----------------------------------------------------------------

def _registry_cases(torch):
    C = torch.distributions.constraints
    return [C.real, C.positive, C.nonnegative, C.greater_than(2.0), C.greater_than_eq(-1.0),
            C.less_than(3.0), C.unit_interval, C.interval(-1.0, 2.0),
            C.half_open_interval(0.0, 1.0), C.interval(torch.tensor(0.0), torch.tensor(1.0)),
            C.simplex, C.real_vector, C.independent(C.positive, 2), C.lower_cholesky,
            C.positive_definite, C.boolean, C.nonnegative_integer]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_constraint_registries(registry):
    """The transform each registry gives (or its error), applied to unconstrained values: the
    result lies in the constraint."""
    def f(torch):
        D = torch.distributions
        x = _real(torch, (2, 3, 3), 150, False)
        out = []
        for c in _registry_cases(torch):
            def apply():
                t = getattr(D, registry)(c)
                y = t(x)
                return repr(t), y, bool(c.check(y).all())
            out.append(_capture(apply))
        return out
    _same(f, rtol=1e-5, atol=1e-6)


def test_registry_register():
    def f(torch):
        D = torch.distributions
        C = D.constraints
        reg = D.constraint_registry.ConstraintRegistry()
        reg.register(C.positive, lambda c: D.transforms.ExpTransform())

        @reg.register(C.less_than)
        def _below(c):
            return D.transforms.AffineTransform(c.upper_bound, -1.0)
        return [repr(reg(C.positive)), reg(C.less_than(2.0)).loc, _capture(lambda: reg(C.real)),
                _capture(lambda: reg.register(3, lambda c: None)),
                type(D.biject_to).__name__]
    _same(f)


# ---- validation, edges, constraints, layout ------------------------------------------------

def _D(torch):
    return torch.distributions


_ERRORS = [
    lambda t: _D(t).Gamma(t.tensor([1.0, -1.0]), 1.0),
    lambda t: _D(t).Gamma(1.0, 1.0).log_prob(t.tensor(-1.0)),
    lambda t: _D(t).Chi2(-1.0),
    lambda t: _D(t).Beta(-1.0, 2.0),
    lambda t: _D(t).Beta(t.ones(2), 1.0).log_prob(t.tensor([0.5, 1.5])),
    lambda t: _D(t).StudentT(-1.0),
    lambda t: _D(t).HalfNormal(-1.0),
    lambda t: _D(t).HalfNormal(1.0).log_prob(t.tensor(-1.0)),
    lambda t: _D(t).LogNormal(0.0, -1.0),
    lambda t: _D(t).Gumbel(0.0, -1.0),
    lambda t: _D(t).Cauchy(0.0, 0.0),
    lambda t: _D(t).Geometric(0.0),
    lambda t: _D(t).Geometric(t.tensor([0.0, 0.5, 0.0])),
    lambda t: _D(t).Geometric(1.5),
    lambda t: _D(t).Geometric(),
    lambda t: _D(t).Poisson(-1.0),
    lambda t: _D(t).Poisson(1.0).log_prob(t.tensor(0.5)),
    lambda t: _D(t).Binomial(2.5, 0.3),
    lambda t: _D(t).Binomial(3, probs=0.3, logits=0.0),
    lambda t: _D(t).Binomial(3, 0.3).log_prob(t.tensor(4.0)),
    lambda t: _D(t).Binomial(t.tensor([2.0, 3.0]), 0.3).entropy(),
    lambda t: _D(t).Binomial(t.tensor([2.0, 3.0]), 0.3).enumerate_support(),
    lambda t: _D(t).Multinomial(t.tensor(3), t.ones(3)),
    lambda t: _D(t).Multinomial(3, t.ones(3)).log_prob(t.tensor([1.0, 1.0, 2.0])),
    lambda t: _D(t).Dirichlet(t.tensor(1.0)),
    lambda t: _D(t).Dirichlet(t.ones(3)).log_prob(t.tensor([0.5, 0.5, 0.5])),
    lambda t: _D(t).Dirichlet(t.tensor([1.0, 0.0])),
    lambda t: _D(t).MultivariateNormal(t.zeros(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), t.eye(2), scale_tril=t.eye(2)),
    lambda t: _D(t).MultivariateNormal(t.tensor(0.0), t.eye(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), t.ones(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), precision_matrix=t.ones(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), scale_tril=t.ones(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), t.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), t.tensor([[1.0, 0.5], [0.0, 1.0]])),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[1.0, 2.0],
                                                                         [0.0, 1.0]])),
    lambda t: _D(t).MultivariateNormal(t.zeros(3, 2), t.eye(2).expand(4, 2, 2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), t.eye(2)).log_prob(t.zeros(3)),
    lambda t: _D(t).LowRankMultivariateNormal(t.tensor(0.0), t.ones(2, 1), t.ones(2)),
    lambda t: _D(t).LowRankMultivariateNormal(t.zeros(2), t.ones(2), t.ones(2)),
    lambda t: _D(t).LowRankMultivariateNormal(t.zeros(2), t.ones(3, 1), t.ones(2)),
    lambda t: _D(t).LowRankMultivariateNormal(t.zeros(2), t.ones(2, 1), t.ones(3)),
    lambda t: _D(t).LowRankMultivariateNormal(t.zeros(3, 2), t.ones(2, 2, 1), t.ones(2)),
    lambda t: _D(t).TransformedDistribution(_D(t).Normal(0.0, 1.0), 3),
    lambda t: _D(t).TransformedDistribution(_D(t).Normal(0.0, 1.0),
                                            [_D(t).ExpTransform(), 3]),
    lambda t: _D(t).TransformedDistribution(_D(t).Normal(0.0, 1.0),
                                            _D(t).StickBreakingTransform()),
    lambda t: _D(t).TransformedDistribution(_D(t).Normal(0.0, 1.0),
                                            _D(t).ExpTransform()).log_prob(t.tensor(-1.0)),
    lambda t: _D(t).LogNormal(0.0, 1.0).cdf(t.tensor(-1.0)),
]


@pytest.mark.parametrize("i", range(len(_ERRORS)))
def test_validation_errors(i):
    check(_ERRORS[i])


_EDGES = [
    lambda t: (lambda m, g: (m.log_prob(t.tensor([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]])), m.mean,
                             m.entropy(), g.log_prob(t.tensor([1.0, 0.0, 3.0])), g.entropy(),
                             g.variance))(
        _D(t).Multinomial(3, logits=t.tensor([0.5, -1.0, 2.0])),
        _D(t).Geometric(logits=t.tensor([0.5, -1.0, 2.0]))),
    lambda t: (lambda e: (e.log_prob(t.zeros(3, 2, 2)), e.entropy(), e.variance))(
        _D(t).MultivariateNormal(t.zeros(2), t.tensor([[2.0, 0.5], [0.5, 1.0]])).expand((2,))),
    lambda t: (_D(t).Beta(0.5, 0.5).mode, _D(t).Beta(2, 3).concentration1.dtype,
               _D(t).Beta(t.tensor([0.5], dtype=t.float64), 2.0).mean),
    lambda t: _D(t).Dirichlet(t.tensor([[0.5, 0.5, 0.7], [2.0, 0.5, 3.0]])).mode,
    lambda t: (_D(t).Binomial(3, 0.3).enumerate_support(),
               _D(t).Binomial(t.full((2,), 2.0), t.tensor([0.2, 0.9])).enumerate_support(False),
               _D(t).Binomial(t.tensor([3, 4]), t.tensor([0.3, 0.2])).total_count),
    lambda t: (_D(t).Binomial(2, t.tensor([0.0, 1.0, 0.5])).log_prob(t.tensor([0.0, 2.0, 1.0])),
               _D(t).Binomial(2, logits=t.tensor([0.0])).probs),
    lambda t: (_D(t).Geometric(t.tensor([1.0, 0.5])).log_prob(t.tensor([0.0, 3.0])),
               _D(t).Geometric(logits=t.tensor([0.0])).probs,
               _D(t).Geometric(t.tensor([0.3])).logits),
    lambda t: _D(t).Multinomial(2, logits=t.tensor([0.0, -math.inf, 1.0])).log_prob(
        t.tensor([1.0, 0.0, 1.0])),
    lambda t: (_D(t).Gamma(1.0, 1.0).log_prob([1.0, 2.0]), _D(t).Gamma(1, 2).rate.dtype,
               _D(t).Gamma(t.tensor([2.0], dtype=t.float64), 1.0).sample((2,)).dtype),
    lambda t: (_D(t).Poisson(t.tensor([0.0, 2.0])).log_prob(t.tensor([0.0, 0.0])),
               _D(t).Poisson(t.tensor([0.0, 2.0])).sample((3,))[:, 0]),
    lambda t: (_D(t).StudentT(t.tensor([0.5, 1.5, 3.0])).mean,
               _D(t).StudentT(t.tensor([0.5, 1.5, 3.0])).variance,
               _D(t).StudentT(2.0).batch_shape),
    lambda t: (_D(t).HalfNormal(1.0, validate_args=False).log_prob(t.tensor([-1.0, 0.0, 1.0])),
               _D(t).HalfNormal(2.0).icdf(t.tensor([0.0, 0.5]))),
    lambda t: (repr(_D(t).Chi2(t.tensor([1.0, 2.0])).expand((3, 2))),
               _D(t).Chi2(t.tensor([1.0, 2.0])).expand((3, 2)).df,
               type(_D(t).Chi2(1.0).expand((2,))).__name__,
               type(_D(t).LogNormal(0.0, 1.0).expand((2,))).__name__),
    lambda t: (_D(t).MultivariateNormal(t.zeros(2), t.eye(2)).precision_matrix,
               repr(_D(t).MultivariateNormal(t.zeros(2), t.eye(2).expand(3, 2, 2)).expand(
                   (4, 3))),
               _D(t).MultivariateNormal(t.zeros(3), scale_tril=t.eye(3)).covariance_matrix),
    lambda t: (lambda d: (d.scale_tril, d.covariance_matrix, d.precision_matrix, repr(d)))(
        _D(t).LowRankMultivariateNormal(t.zeros(3), t.tensor([[1.0], [0.5], [-1.0]]),
                                        t.tensor([1.0, 2.0, 0.5]))),
    lambda t: (_D(t).Cauchy(t.zeros(2), 1.0).mean, _D(t).Cauchy(0.0, 1.0).variance,
               _D(t).Cauchy(0.0, 2.0).icdf(t.tensor([0.25, 0.5]))),
    lambda t: (_D(t).Gumbel(t.zeros(2, dtype=t.float64), 1.0).base_dist.low,
               repr(_D(t).Gumbel(0.0, 1.0).base_dist),
               _D(t).Gumbel(1.0, 2.0).cdf(t.tensor([0.0, 1.0]))),
    lambda t: (_D(t).TransformedDistribution(_D(t).Normal(t.zeros(3), 1.0),
                                             [_D(t).AffineTransform(t.zeros(2, 1), 1.0)]).
               base_dist.batch_shape,
               _D(t).TransformedDistribution(_D(t).Normal(t.zeros(3), 1.0), []).transforms,
               repr(_D(t).TransformedDistribution(_D(t).Normal(t.zeros(2, 3), 1.0),
                                                  _D(t).StickBreakingTransform()).base_dist),
               _D(t).TransformedDistribution(_D(t).Normal(0.0, 1.0),
                                             _D(t).ExpTransform()).expand((2,)).batch_shape),
    lambda t: [repr(getattr(_D(t), n).support) for n in (
        "Gamma", "Beta", "Dirichlet", "MultivariateNormal", "Poisson", "Geometric",
        "HalfNormal", "LogNormal", "Gumbel", "Cauchy", "StudentT")],
    lambda t: (_D(t).Multinomial(3, t.ones(2, 3)).expand((4, 2)).sample().shape,
               _D(t).Multinomial(3, t.ones(3)).support.upper_bound,
               _D(t).Binomial(t.tensor([2.0, 3.0]), 0.5).support.upper_bound),
    lambda t: [repr(d) for d in (
        _D(t).Gamma(t.ones(2), t.ones(2)), _D(t).Gamma(1, 2), _D(t).Beta(t.ones(2), 1.0),
        _D(t).Binomial(t.tensor([3.0]), logits=t.zeros(1)), _D(t).StudentT(t.ones(2)),
        _D(t).Geometric(logits=t.zeros(2)), _D(t).Poisson(t.ones(3)),
        _D(t).MultivariateNormal(t.zeros(2), precision_matrix=t.eye(2)),
        _D(t).MultivariateNormal(t.zeros(2), scale_tril=t.eye(2)),
        _D(t).LogNormal(t.zeros(2), 1.0), _D(t).Chi2(t.ones(2)))],
]


@pytest.mark.parametrize("i", range(len(_EDGES)))
def test_edge_cases(i):
    _same(_EDGES[i], rtol=1e-5, atol=1e-6)


_MATRICES = [[[1.0, 0.0], [0.5, 2.0]], [[1.0, 1.0], [0.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]],
             [[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]]


def test_matrix_and_count_constraints():
    def f(torch):
        C = torch.distributions.constraints
        m = torch.tensor(_MATRICES)
        out = [c.check(m) for c in (C.lower_cholesky, C.lower_triangular, C.positive_definite,
                                   C.positive_semidefinite, C.symmetric, C.square)]
        out += [C.square.check(torch.zeros(2, 3)), C.positive_definite.check(torch.zeros(2, 3)),
                C.corr_cholesky.check(torch.stack([torch.eye(2), m[0]])),
                C.multinomial(3).check(torch.tensor([[1.0, 2.0], [2.0, 2.0], [-1.0, 1.0]])),
                _capture(lambda: C.lower_cholesky.check(torch.zeros(3)))]
        out += [(repr(c), c.event_dim, c.is_discrete) for c in (
            C.lower_cholesky, C.lower_triangular, C.positive_definite, C.positive_semidefinite,
            C.square, C.symmetric, C.multinomial(3), C.corr_cholesky)]
        return out
    _same(f)


def test_module_layout_as_torch():
    def f(torch):
        D = torch.distributions
        mods = {"gamma": "Gamma", "chi2": "Chi2", "beta": "Beta", "dirichlet": "Dirichlet",
                "multivariate_normal": "MultivariateNormal",
                "lowrank_multivariate_normal": "LowRankMultivariateNormal",
                "poisson": "Poisson", "binomial": "Binomial", "multinomial": "Multinomial",
                "studentT": "StudentT", "cauchy": "Cauchy", "log_normal": "LogNormal",
                "gumbel": "Gumbel", "half_normal": "HalfNormal", "geometric": "Geometric",
                "transformed_distribution": "TransformedDistribution"}
        same = [getattr(getattr(D, m), n) is getattr(D, n) for m, n in mods.items()]
        return (same, D.transforms.ExpTransform is D.ExpTransform,
                D.constraint_registry.biject_to is D.biject_to,
                D.transform_to is D.constraint_registry.transform_to,
                issubclass(D.Chi2, D.Gamma), issubclass(D.LogNormal, D.TransformedDistribution),
                issubclass(D.Gumbel, D.TransformedDistribution),
                issubclass(D.HalfNormal, D.TransformedDistribution),
                [v if isinstance(v, bool) else type(v).__name__
                 for v in (getattr(D, n).has_rsample for n in mods.values())])
    _same(f)


def test_exponential_draws_are_pytorchs():
    """Exponential draws through `exponential_`, as PyTorch's: the same numbers per seed."""
    def f(torch):
        r = torch.tensor([0.5, 2.0], requires_grad=True)
        torch.manual_seed(3)
        s = torch.distributions.Exponential(r).rsample((3,))
        return s, torch.autograd.grad(s.sum(), r)
    _same(f, rtol=1e-5, atol=1e-6)
