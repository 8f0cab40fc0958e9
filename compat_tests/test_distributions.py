"""torch.distributions: the same distributions built from the same parameters under PyTorch and
torchlike, compared (log_prob/cdf/icdf/entropy/moments and their gradients, shapes, dtypes,
reprs, validation errors, KL divergences, transforms, constraints); samples (which come from a
different generator) are compared by shape/dtype and checked statistically against PyTorch's
moments."""
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check, same_repr

# PyTorch's Wishart.rsample warns "Singular sample detected." for every draw (its check reads
# the support test backwards); torchlike's copy does the same (test_wishart_warns_as_torch)
pytestmark = pytest.mark.filterwarnings("ignore:Singular sample detected")


def _rs(seed=0):
    return np.random.RandomState(seed)


def _t(torch, a, grad=False, dtype=None):
    t = torch.tensor(np.asarray(a), dtype=dtype or torch.float32)
    return t.requires_grad_() if grad else t


def _pos(shape, seed, lo=0.5, hi=3.0):
    return _rs(seed).uniform(lo, hi, size=shape)


def _spd(n, seed, batch=()):
    a = _rs(seed).randn(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _simplex(shape, seed):
    p = _rs(seed).uniform(0.1, 1.0, size=shape)
    return p / p.sum(-1, keepdims=True)


# ---- the table: name -> builder(torch) -> (distribution, [parameters], value) ----------------
# Parameters require grad, so every query below is also compared by its gradient.

def _normal(torch):
    loc, scale = _t(torch, _rs(1).randn(3), True), _t(torch, _pos(3, 2), True)
    return torch.distributions.Normal(loc, scale), [loc, scale], _t(torch, _rs(3).randn(3))


def _normal_scalar(torch):
    d = torch.distributions.Normal(0.5, 2.0)
    return d, [], _t(torch, _rs(3).randn(4))


def _normal_f64(torch):
    loc = _t(torch, _rs(1).randn(2, 3), True, torch.float64)
    scale = _t(torch, _pos(3, 2), True, torch.float64)
    return (torch.distributions.Normal(loc, scale), [loc, scale],
            _t(torch, _rs(3).randn(5, 2, 3), dtype=torch.float64))


def _categorical_probs(torch):
    p = _t(torch, _rs(4).uniform(0.1, 2.0, size=(2, 4)), True)  # unnormalised on purpose
    return torch.distributions.Categorical(probs=p), [p], torch.tensor([[0, 3], [2, 1], [1, 1]])


def _categorical_logits(torch):
    lg = _t(torch, _rs(5).randn(2, 4), True)
    return torch.distributions.Categorical(logits=lg), [lg], torch.tensor([3, 0])


def _bernoulli_probs(torch):
    p = _t(torch, [0.2, 0.5, 0.9], True)
    return torch.distributions.Bernoulli(probs=p), [p], _t(torch, [[1.0, 0.0, 1.0],
                                                                  [0.0, 0.0, 1.0]])


def _bernoulli_logits(torch):
    lg = _t(torch, _rs(6).randn(3) * 2, True)
    return torch.distributions.Bernoulli(logits=lg), [lg], _t(torch, [0.0, 1.0, 1.0])


def _uniform(torch):
    lo = _t(torch, [-1.0, 0.0, 2.0], True)
    hi = _t(torch, [1.0, 0.5, 5.0], True)
    return torch.distributions.Uniform(lo, hi), [lo, hi], _t(torch, [0.3, 0.25, 4.0])


def _beta(torch):
    a, b = _t(torch, _pos(3, 7), True), _t(torch, _pos(3, 8), True)
    return torch.distributions.Beta(a, b), [a, b], _t(torch, [0.1, 0.5, 0.8])


def _gamma(torch):
    a, r = _t(torch, _pos(3, 9), True), _t(torch, _pos(3, 10), True)
    return torch.distributions.Gamma(a, r), [a, r], _t(torch, [0.3, 1.5, 4.0])


def _exponential(torch):
    r = _t(torch, _pos(3, 11), True)
    return torch.distributions.Exponential(r), [r], _t(torch, [0.3, 1.5, 4.0])


def _laplace(torch):
    loc, scale = _t(torch, _rs(12).randn(3), True), _t(torch, _pos(3, 13), True)
    return torch.distributions.Laplace(loc, scale), [loc, scale], _t(torch, _rs(14).randn(3))


def _poisson(torch):
    r = _t(torch, _pos(3, 15, 0.5, 6.0), True)
    return torch.distributions.Poisson(r), [r], _t(torch, [0.0, 2.0, 7.0])


def _dirichlet(torch):
    c = _t(torch, _pos((2, 3), 16), True)
    return torch.distributions.Dirichlet(c), [c], _t(torch, _simplex((2, 3), 17))


def _lognormal(torch):
    loc, scale = _t(torch, _rs(18).randn(3) * 0.5, True), _t(torch, _pos(3, 19, 0.3, 1.0), True)
    return torch.distributions.LogNormal(loc, scale), [loc, scale], _t(torch, [0.5, 1.0, 3.0])


def _mvn_cov(torch):
    loc = _t(torch, _rs(20).randn(2, 3), True)
    cov = _t(torch, _spd(3, 21), True)
    return (torch.distributions.MultivariateNormal(loc, covariance_matrix=cov), [loc, cov],
            _t(torch, _rs(22).randn(4, 2, 3)))


def _mvn_prec(torch):
    loc = _t(torch, _rs(20).randn(3), True)
    prec = _t(torch, _spd(3, 23), True)
    return (torch.distributions.MultivariateNormal(loc, precision_matrix=prec), [loc, prec],
            _t(torch, _rs(22).randn(2, 3)))


def _mvn_tril(torch):
    loc = _t(torch, _rs(20).randn(3), True)
    tril = _t(torch, np.linalg.cholesky(_spd(3, 24, (2,))), True)
    return (torch.distributions.MultivariateNormal(loc, scale_tril=tril), [loc, tril],
            _t(torch, _rs(22).randn(2, 3)))


def _onehot(torch):
    p = _t(torch, _simplex((2, 4), 25), True)
    v = torch.nn.functional.one_hot(torch.tensor([[1, 3], [0, 0]]), 4).float()
    return torch.distributions.OneHotCategorical(probs=p), [p], v


def _independent(torch):
    loc, scale = _t(torch, _rs(26).randn(2, 3), True), _t(torch, _pos((2, 3), 27), True)
    base = torch.distributions.Normal(loc, scale)
    return (torch.distributions.Independent(base, 1), [loc, scale],
            _t(torch, _rs(28).randn(5, 2, 3)))


def _squashed(torch):
    """The tanh-squashed Gaussian of SAC-style policies."""
    loc, scale = _t(torch, _rs(29).randn(3) * 0.5, True), _t(torch, _pos(3, 30, 0.2, 1.0), True)
    T = torch.distributions.transforms
    d = torch.distributions.TransformedDistribution(
        torch.distributions.Normal(loc, scale), [T.TanhTransform()])
    return d, [loc, scale], _t(torch, [-0.5, 0.1, 0.9])


def _affine_sigmoid(torch):
    loc, scale = _t(torch, _rs(31).randn(3), True), _t(torch, _pos(3, 32), True)
    T = torch.distributions.transforms
    d = torch.distributions.TransformedDistribution(
        torch.distributions.Normal(loc, scale),
        [T.AffineTransform(1.0, 2.0), T.SigmoidTransform()])
    return d, [loc, scale], _t(torch, [0.2, 0.5, 0.7])


def _affine_neg(torch):
    loc, scale = _t(torch, _rs(33).randn(3), True), _t(torch, _pos(3, 34), True)
    T = torch.distributions.transforms
    d = torch.distributions.TransformedDistribution(
        torch.distributions.Normal(loc, scale),
        T.AffineTransform(torch.tensor([0.5, -1.0, 2.0]), torch.tensor([-2.0, 1.0, 3.0])))
    return d, [loc, scale], _t(torch, [0.2, 0.5, -0.7])


def _cauchy(torch):
    loc, scale = _t(torch, _rs(70).randn(3), True), _t(torch, _pos(3, 71), True)
    return torch.distributions.Cauchy(loc, scale), [loc, scale], _t(torch, _rs(72).randn(3) * 3)


def _half_normal(torch):
    scale = _t(torch, _pos(3, 73), True)
    return torch.distributions.HalfNormal(scale), [scale], _t(torch, [0.0, 0.7, 2.5])


def _half_cauchy(torch):
    scale = _t(torch, _pos(3, 74), True)
    return torch.distributions.HalfCauchy(scale), [scale], _t(torch, [0.0, 0.7, 2.5])


def _geometric_probs(torch):
    p = _t(torch, [0.2, 0.5, 0.9], True)
    return torch.distributions.Geometric(probs=p), [p], _t(torch, [0.0, 3.0, 1.0])


def _geometric_logits(torch):
    lg = _t(torch, [-1.0, 0.3, 2.0], True)
    return torch.distributions.Geometric(logits=lg), [lg], _t(torch, [2.0, 0.0, 5.0])


def _binomial(torch):
    p = _t(torch, [0.2, 0.5, 0.9], True)
    n = _t(torch, [5.0, 10.0, 3.0])
    return torch.distributions.Binomial(n, probs=p), [p], _t(torch, [1.0, 10.0, 2.0])


def _binomial_logits(torch):
    lg = _t(torch, [-1.0, 0.3, 2.0], True)
    return torch.distributions.Binomial(7, logits=lg), [lg], _t(torch, [0.0, 3.0, 7.0])


def _multinomial(torch):
    p = _t(torch, _simplex((2, 4), 75), True)
    v = _t(torch, [[2.0, 3.0, 0.0, 5.0], [10.0, 0.0, 0.0, 0.0]])
    return torch.distributions.Multinomial(10, probs=p), [p], v


def _student_t(torch):
    df, loc = _t(torch, [1.5, 3.0, 8.0], True), _t(torch, _rs(76).randn(3), True)
    scale = _t(torch, _pos(3, 77), True)
    return (torch.distributions.StudentT(df, loc, scale), [df, loc, scale],
            _t(torch, _rs(78).randn(3) * 2))


def _chi2(torch):
    df = _t(torch, [1.0, 2.5, 6.0], True)
    return torch.distributions.Chi2(df), [df], _t(torch, [0.3, 2.0, 5.0])


def _gumbel(torch):
    loc, scale = _t(torch, _rs(79).randn(3), True), _t(torch, _pos(3, 80), True)
    return torch.distributions.Gumbel(loc, scale), [loc, scale], _t(torch, _rs(81).randn(3) * 2)


def _mixture(torch):
    lg = _t(torch, _rs(82).randn(2, 3), True)
    loc, scale = _t(torch, _rs(83).randn(2, 3) * 2, True), _t(torch, _pos((2, 3), 84), True)
    D = torch.distributions
    d = D.MixtureSameFamily(D.Categorical(logits=lg), D.Normal(loc, scale))
    return d, [lg, loc, scale], _t(torch, _rs(85).randn(4, 2) * 2)


def _mixture_mvn(torch):
    lg = _t(torch, _rs(86).randn(3), True)
    loc, scale = _t(torch, _rs(87).randn(3, 2) * 2, True), _t(torch, _pos((3, 2), 88), True)
    D = torch.distributions
    d = D.MixtureSameFamily(D.Categorical(logits=lg), D.Independent(D.Normal(loc, scale), 1))
    return d, [lg, loc, scale], _t(torch, _rs(89).randn(5, 2) * 2)


def _relaxed_bernoulli(torch):
    p = _t(torch, [0.2, 0.5, 0.9], True)
    return (torch.distributions.RelaxedBernoulli(torch.tensor(0.7), probs=p), [p],
            _t(torch, [0.1, 0.5, 0.95]))


def _relaxed_onehot(torch):
    lg = _t(torch, _rs(90).randn(2, 3), True)
    return (torch.distributions.RelaxedOneHotCategorical(torch.tensor(0.5), logits=lg), [lg],
            _t(torch, _simplex((2, 3), 91)))


def _lowrank_mvn(torch):
    loc = _t(torch, _rs(92).randn(2, 3), True)
    factor = _t(torch, _rs(93).randn(3, 2), True)
    diag = _t(torch, _pos(3, 94), True)
    return (torch.distributions.LowRankMultivariateNormal(loc, factor, diag), [loc, factor, diag],
            _t(torch, _rs(95).randn(4, 2, 3)))


def _pareto(torch):
    scale, alpha = _t(torch, _pos(3, 96), True), _t(torch, [1.5, 2.5, 4.5], True)
    return torch.distributions.Pareto(scale, alpha), [scale, alpha], _t(torch, [3.0, 3.5, 5.0])


def _weibull(torch):
    scale, conc = _t(torch, _pos(3, 97), True), _t(torch, _pos(3, 98), True)
    return torch.distributions.Weibull(scale, conc), [scale, conc], _t(torch, [0.3, 1.0, 2.0])


def _negative_binomial(torch):
    n, p = _t(torch, [2.0, 5.5, 10.0], True), _t(torch, [0.2, 0.5, 0.7], True)
    return (torch.distributions.NegativeBinomial(n, probs=p), [n, p],
            _t(torch, [0.0, 4.0, 20.0]))


def _continuous_bernoulli(torch):
    p = _t(torch, [0.2, 0.5, 0.9, 0.4995], True)
    return (torch.distributions.ContinuousBernoulli(probs=p), [p],
            _t(torch, [0.1, 0.5, 0.95, 0.3]))


def _inverse_gamma(torch):
    a, r = _t(torch, [0.8, 2.5, 4.0], True), _t(torch, _pos(3, 99), True)
    return torch.distributions.InverseGamma(a, r), [a, r], _t(torch, [0.3, 1.5, 4.0])


def _kumaraswamy(torch):
    a, b = _t(torch, _pos(3, 100), True), _t(torch, _pos(3, 101), True)
    return torch.distributions.Kumaraswamy(a, b), [a, b], _t(torch, [0.1, 0.5, 0.8])


def _logistic_normal(torch):
    loc, scale = _t(torch, _rs(102).randn(2, 3), True), _t(torch, _pos((2, 3), 103), True)
    return (torch.distributions.LogisticNormal(loc, scale), [loc, scale],
            _t(torch, _simplex((2, 4), 104)))


def _fisher_snedecor(torch):
    d1, d2 = _t(torch, [1.5, 4.0, 10.0], True), _t(torch, [3.0, 5.0, 12.0], True)
    return torch.distributions.FisherSnedecor(d1, d2), [d1, d2], _t(torch, [0.3, 1.0, 2.5])



def _von_mises(torch):
    loc, conc = _t(torch, _rs(105).randn(3), True), _t(torch, [0.5, 2.0, 8.0], True)
    return torch.distributions.VonMises(loc, conc), [loc, conc], _t(torch, [-2.0, 0.3, 1.0])


def _generalized_pareto(torch):
    loc, scale = _t(torch, _rs(106).randn(3), True), _t(torch, _pos(3, 107), True)
    conc = _t(torch, [-0.2, 0.0, 0.3], True)
    return (torch.distributions.GeneralizedPareto(loc, scale, conc), [loc, scale, conc],
            loc.detach() + _t(torch, [0.3, 1.0, 2.0]))


def _lkj(torch):
    conc = _t(torch, [0.5, 2.0], True)
    L = torch.linalg.cholesky(_t(torch, [[1.0, 0.3, -0.2], [0.3, 1.0, 0.4], [-0.2, 0.4, 1.0]]))
    return torch.distributions.LKJCholesky(3, conc), [conc], L


def _wishart(torch):
    df = _t(torch, [4.0, 6.5], True)
    cov = _t(torch, _spd(3, 108), True)
    v = _t(torch, _spd(3, 109, (2,)))
    return torch.distributions.Wishart(df, covariance_matrix=cov), [df, cov], v


SPECS = {
    "normal": _normal, "normal_scalar": _normal_scalar, "normal_f64": _normal_f64,
    "categorical_probs": _categorical_probs, "categorical_logits": _categorical_logits,
    "bernoulli_probs": _bernoulli_probs, "bernoulli_logits": _bernoulli_logits,
    "uniform": _uniform, "beta": _beta, "gamma": _gamma, "exponential": _exponential,
    "laplace": _laplace, "poisson": _poisson, "dirichlet": _dirichlet, "lognormal": _lognormal,
    "mvn_cov": _mvn_cov, "mvn_prec": _mvn_prec, "mvn_tril": _mvn_tril, "onehot": _onehot,
    "independent": _independent, "squashed": _squashed, "affine_sigmoid": _affine_sigmoid,
    "affine_neg": _affine_neg, "cauchy": _cauchy, "half_normal": _half_normal,
    "half_cauchy": _half_cauchy, "geometric_probs": _geometric_probs,
    "geometric_logits": _geometric_logits, "binomial": _binomial,
    "binomial_logits": _binomial_logits, "multinomial": _multinomial, "student_t": _student_t,
    "chi2": _chi2, "gumbel": _gumbel, "mixture": _mixture, "mixture_mvn": _mixture_mvn,
    "relaxed_bernoulli": _relaxed_bernoulli, "relaxed_onehot": _relaxed_onehot,
    "lowrank_mvn": _lowrank_mvn, "pareto": _pareto, "weibull": _weibull,
    "negative_binomial": _negative_binomial, "continuous_bernoulli": _continuous_bernoulli,
    "inverse_gamma": _inverse_gamma, "kumaraswamy": _kumaraswamy,
    "logistic_normal": _logistic_normal, "fisher_snedecor": _fisher_snedecor,
    "von_mises": _von_mises, "generalized_pareto": _generalized_pareto, "lkj": _lkj,
    "wishart": _wishart,
}

def _probs_like(v):
    n = v.numel()
    return (v.new_tensor(np.linspace(0.05, 0.95, n), dtype=v.dtype if v.dtype.is_floating_point
                         else None).reshape(v.shape))


_QUERIES = {
    "log_prob": lambda d, v: d.log_prob(v),
    "cdf": lambda d, v: d.cdf(v),
    "icdf": lambda d, v: d.icdf(_probs_like(v)),
    "entropy": lambda d, v: d.entropy(),
    "perplexity": lambda d, v: d.perplexity(),
    "mean": lambda d, v: d.mean,
    "variance": lambda d, v: d.variance,
    "stddev": lambda d, v: d.stddev,
    "mode": lambda d, v: d.mode,
}


def _query(torch, spec, query):
    d, params, v = SPECS[spec](torch)
    out = _QUERIES[query](d, v)
    grads = None
    if params and isinstance(out, torch.Tensor) and out.requires_grad:
        finite = torch.where(torch.isfinite(out), out, torch.zeros_like(out))
        grads = torch.autograd.grad(finite.sum(), params, allow_unused=True)
    return out, grads


# float32 sums over many terms (Multinomial's entropy enumerates the support)
_LOOSE = {("multinomial", "entropy"), ("multinomial", "perplexity")}


@pytest.mark.parametrize("query", list(_QUERIES))
@pytest.mark.parametrize("spec", list(SPECS))
def test_values_and_gradients(spec, query):
    tol = (1e-4, 1e-5) if (spec, query) in _LOOSE else (2e-5, 2e-6)
    check(_query, spec, query, rtol=tol[0], atol=tol[1])


@pytest.mark.parametrize("spec", list(SPECS))
def test_shapes_and_flags(spec):
    def f(torch):
        d = SPECS[spec](torch)[0]
        return (d.batch_shape, d.event_shape, d._extended_shape((4, 1)), d.has_rsample,
                d.has_enumerate_support, repr(d.support), d.support.event_dim,
                d.support.is_discrete)
    check(f)


@pytest.mark.parametrize("spec", list(SPECS))
def test_expand(spec):
    def f(torch):
        d, _, v = SPECS[spec](torch)
        e = d.expand(torch.Size((2,)) + d.batch_shape)
        return (e.batch_shape, e.event_shape, type(e).__name__, e.log_prob(v), e.mean,
                e.sample((3,)).shape, e._validate_args)
    check(f)


def _sample_meta(torch, spec):
    d = SPECS[spec](torch)[0]
    out = []
    for shape in [(), (5,), torch.Size([2, 3])]:
        s = d.sample(shape)
        out.append((s.shape, s.dtype, s.requires_grad))
        if d.has_rsample:
            r = d.rsample(shape)
            out.append((r.shape, r.dtype, r.requires_grad))
    return out


@pytest.mark.parametrize("spec", list(SPECS))
def test_sample_shapes_and_dtypes(spec):
    check(_sample_meta, spec)


@pytest.mark.parametrize("spec", ["normal", "categorical_probs", "gamma", "dirichlet",
                                  "mvn_cov", "poisson", "bernoulli_probs"])
def test_manual_seed_reproduces_samples(spec):
    def f(torch):
        d = SPECS[spec](torch)[0]
        torch.manual_seed(123)
        a = d.sample((7,))
        torch.manual_seed(123)
        b = d.sample((7,))
        c = d.sample((7,))
        return torch.equal(a, b), torch.equal(b, c)
    check(f)


# ---- statistics of torchlike's samples against PyTorch's moments -------------------------

_N = 20000


@pytest.mark.parametrize("spec", ["normal", "normal_f64", "uniform", "beta", "gamma",
                                  "exponential", "laplace", "poisson", "dirichlet", "lognormal",
                                  "mvn_cov", "mvn_prec", "mvn_tril", "onehot", "independent",
                                  "bernoulli_probs", "bernoulli_logits", "half_normal",
                                  "geometric_probs", "geometric_logits", "binomial",
                                  "binomial_logits", "multinomial", "chi2", "gumbel", "mixture",
                                  "mixture_mvn", "lowrank_mvn", "weibull", "negative_binomial",
                                  "continuous_bernoulli", "kumaraswamy", "wishart"])
def test_sample_moments(spec):
    torchlike.manual_seed(0)
    d = SPECS[spec](torchlike)[0]
    s = d.sample((_N,)).double()
    ref = SPECS[spec](real_torch)[0]
    mean = ref.mean.detach().double().numpy()
    var = ref.variance.detach().double().numpy()
    m = s.mean(0).numpy()
    v = s.var(0).numpy()
    # the sample mean is within 5 standard errors; the sample variance within 10%
    np.testing.assert_array_less(np.abs(m - mean), 5 * np.sqrt(var / _N) + 1e-12)
    np.testing.assert_allclose(v, var, rtol=0.1)


@pytest.mark.parametrize("spec", ["normal", "uniform", "gamma", "exponential", "laplace",
                                  "cauchy", "half_normal", "half_cauchy", "lognormal", "gumbel",
                                  "pareto", "weibull", "inverse_gamma", "continuous_bernoulli",
                                  "affine_sigmoid", "squashed", "affine_neg", "mixture",
                                  "generalized_pareto"])
def test_sample_cdf(spec):
    """The empirical CDF of torchlike's samples at a few points against PyTorch's `cdf` there
    (within 5 standard errors): heavy-tailed distributions included."""
    torchlike.manual_seed(2)
    d = SPECS[spec](torchlike)[0]
    s = d.sample((_N,)).double().numpy()
    ref, _, v = SPECS[spec](real_torch)
    points = (v,) if "pareto" in spec else (v, v * 0.5 + 0.1)  # pareto: x >= its lower bound
    for x in points:
        x = x.expand(ref.batch_shape) if x.dim() <= len(ref.batch_shape) else x[0]
        p = ref.cdf(x).detach().double().numpy()
        emp = (s <= x.double().numpy()).mean(0)
        np.testing.assert_array_less(np.abs(emp - p), 5 * np.sqrt(p * (1 - p) / _N) + 1e-3)


@pytest.mark.parametrize("spec", list(SPECS))
def test_samples_lie_in_the_support(spec):
    torchlike.manual_seed(4)
    d = SPECS[spec](torchlike)[0]
    s = d.sample((1000,))
    assert bool(d.support.check(s).all())
    if d.has_rsample:
        assert bool(d.support.check(d.rsample((1000,)).detach()).all())


def test_wishart_warns_as_torch():
    def f(torch):
        d = torch.distributions.Wishart(torch.tensor(4.0), covariance_matrix=torch.eye(2))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s = d.rsample((3,))
        return [(x.category.__name__, str(x.message)) for x in w], s.shape
    check(f)


def test_von_mises_circular_moments():
    """Circular mean direction = loc; mean resultant length = 1 - PyTorch's (circular)
    variance."""
    torchlike.manual_seed(0)
    s = _von_mises(torchlike)[0].sample((_N,)).double().numpy()
    ref = _von_mises(real_torch)[0]
    loc = ref.loc.detach().double().numpy()
    r = 1 - ref.variance.detach().double().numpy()
    c, sn = np.cos(s).mean(0), np.sin(s).mean(0)
    np.testing.assert_allclose(np.hypot(c, sn), r, atol=0.01)
    np.testing.assert_allclose(np.angle(np.exp(1j * (np.arctan2(sn, c) - loc))), 0, atol=0.06)


def test_categorical_sample_frequencies():
    torchlike.manual_seed(0)
    d, _, _ = _categorical_probs(torchlike)
    s = d.sample((_N,))
    assert s.dtype == torchlike.int64 and tuple(s.shape) == (_N, 2)
    freq = np.stack([np.bincount(s[:, i].numpy(), minlength=4) / _N for i in range(2)])
    p = _categorical_probs(real_torch)[0].probs.detach().numpy()
    np.testing.assert_array_less(np.abs(freq - p), 5 * np.sqrt(p * (1 - p) / _N))


def test_mvn_sample_covariance():
    torchlike.manual_seed(1)
    d, _, _ = _mvn_cov(torchlike)
    s = d.sample((_N,)).double().numpy()[:, 1]
    cov = _mvn_cov(real_torch)[0].covariance_matrix.detach().double().numpy()[1]
    np.testing.assert_allclose(np.cov(s.T), cov, rtol=0.1, atol=0.1)


# ---- reparameterised gradients (estimated from samples, against closed forms) ----------------

def _grad_of_mean(build, fn, n=_N):
    torchlike.manual_seed(3)
    d, params = build()
    x = d.rsample((n,))
    return torchlike.autograd.grad(fn(x).mean(0).sum(), params)


def test_rsample_gradient_normal():
    def build():
        loc, scale = torchlike.tensor([0.5, -1.0], requires_grad=True), \
            torchlike.tensor([1.5, 0.5], requires_grad=True)
        return torchlike.distributions.Normal(loc, scale), [loc, scale]
    g_loc, g_scale = _grad_of_mean(build, lambda x: x ** 2)
    # d/dloc E[x^2] = 2 loc, d/dscale E[x^2] = 2 scale
    np.testing.assert_allclose(g_loc.numpy(), [1.0, -2.0], atol=0.06)
    np.testing.assert_allclose(g_scale.numpy(), [3.0, 1.0], atol=0.08)


def test_rsample_gradient_gamma():
    def build():
        a, r = torchlike.tensor([0.5, 2.0, 5.0], requires_grad=True), \
            torchlike.tensor([1.0, 2.0, 0.5], requires_grad=True)
        return torchlike.distributions.Gamma(a, r), [a, r]
    g_a, g_r = _grad_of_mean(build, lambda x: x)
    a, r = np.array([0.5, 2.0, 5.0]), np.array([1.0, 2.0, 0.5])
    np.testing.assert_allclose(g_a.numpy(), 1 / r, rtol=0.05)  # d/da E[x] = 1/r
    np.testing.assert_allclose(g_r.numpy(), -a / r ** 2, rtol=0.05)


def test_rsample_gradient_beta_and_dirichlet():
    def build():
        a, b = torchlike.tensor([0.7, 2.0], requires_grad=True), \
            torchlike.tensor([1.5, 3.0], requires_grad=True)
        return torchlike.distributions.Beta(a, b), [a, b]
    g_a, g_b = _grad_of_mean(build, lambda x: x)
    a, b = np.array([0.7, 2.0]), np.array([1.5, 3.0])
    np.testing.assert_allclose(g_a.numpy(), b / (a + b) ** 2, rtol=0.1)
    np.testing.assert_allclose(g_b.numpy(), -a / (a + b) ** 2, rtol=0.1)

    def build_d():
        c = torchlike.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return torchlike.distributions.Dirichlet(c), [c]
    (g_c,) = _grad_of_mean(build_d, lambda x: x[..., 0])
    np.testing.assert_allclose(g_c.numpy(), [5 / 36, -1 / 36, -1 / 36], rtol=0.1, atol=3e-3)


def test_rsample_gradient_exponential_laplace_uniform_mvn():
    def build_e():
        r = torchlike.tensor([0.5, 2.0], requires_grad=True)
        return torchlike.distributions.Exponential(r), [r]
    (g,) = _grad_of_mean(build_e, lambda x: x)
    np.testing.assert_allclose(g.numpy(), [-4.0, -0.25], rtol=0.05)  # -1/r^2

    def build_l():
        loc, scale = torchlike.tensor(0.3, requires_grad=True), \
            torchlike.tensor(1.2, requires_grad=True)
        return torchlike.distributions.Laplace(loc, scale), [loc, scale]
    g_loc, g_scale = _grad_of_mean(build_l, lambda x: x ** 2)  # E[x^2] = loc^2 + 2 scale^2
    np.testing.assert_allclose([g_loc.item(), g_scale.item()], [0.6, 4.8], rtol=0.06)

    def build_u():
        lo, hi = torchlike.tensor(-1.0, requires_grad=True), \
            torchlike.tensor(2.0, requires_grad=True)
        return torchlike.distributions.Uniform(lo, hi), [lo, hi]
    g_lo, g_hi = _grad_of_mean(build_u, lambda x: x ** 2)  # E[x^2] = (lo^2 + lo hi + hi^2) / 3
    np.testing.assert_allclose([g_lo.item(), g_hi.item()], [0.0, 1.0], atol=0.05)

    def build_m():
        tril = torchlike.tensor([[1.0, 0.0], [0.5, 2.0]], requires_grad=True)
        return torchlike.distributions.MultivariateNormal(torchlike.zeros(2),
                                                          scale_tril=tril), [tril]
    (g_l,) = _grad_of_mean(build_m, lambda x: x ** 2)  # E[x_i^2] = sum_j L_ij^2
    np.testing.assert_allclose(g_l.numpy(), [[2.0, 0.0], [1.0, 4.0]], atol=0.1)


def test_rsample_gradient_lowrank_mvn():
    def build():
        w = torchlike.tensor([[1.0, 0.5], [-0.5, 2.0], [0.3, 0.0]], requires_grad=True)
        d = torchlike.tensor([0.5, 1.0, 2.0], requires_grad=True)
        return torchlike.distributions.LowRankMultivariateNormal(torchlike.zeros(3), w, d), [w, d]
    g_w, g_d = _grad_of_mean(build, lambda x: x ** 2)  # E[x_i^2] = sum_j W_ij^2 + D_i
    np.testing.assert_allclose(g_d.numpy(), [1.0, 1.0, 1.0], atol=0.08)
    np.testing.assert_allclose(g_w.numpy(), [[2.0, 1.0], [-1.0, 4.0], [0.6, 0.0]], atol=0.12)


def test_rsample_is_a_function_of_the_parameters():
    """The reparameterised draw and the plain draw agree in distribution and shape; only the
    rsample one carries a graph back to the parameters."""
    loc = torchlike.zeros(3, requires_grad=True)
    d = torchlike.distributions.Normal(loc, 1.0)
    torchlike.manual_seed(5)
    a = d.sample()
    torchlike.manual_seed(5)
    b = d.rsample()
    assert a.grad_fn is None and not a.requires_grad
    assert b.grad_fn is not None
    assert torchlike.equal(a, b.detach())


def _standard_gamma(torch):
    return torch._standard_gamma if torch is real_torch else \
        torchlike.distributions._random.standard_gamma


@pytest.mark.parametrize("which", ["x", "y", "a", None])
def test_sampler_nodes_as_torch(which):
    """The Dirichlet draw is PyTorch's `_Dirichlet` Function; the gamma draw's node is
    StandardGammaBackward0; both keep the draw and the concentration. (Changing Dirichlet's
    concentration in place raises too, but PyTorch names the regenerated expand view
    AsStrided there, torchlike Expand: a general view-replay difference.)"""
    def f(torch):
        c = torch.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1
        x = torch.distributions.Dirichlet(c).rsample()
        a = torch.tensor([2.0, 0.5], requires_grad=True) * 1
        y = _standard_gamma(torch)(a)
        names = [repr(t.grad_fn).split(" object at ")[0] for t in (x, y)]
        if which is not None:
            {"x": x, "c": c, "y": y, "a": a}[which].mul_(2)
        (x.sum() + y.sum()).backward()
        return names
    check(f)


def test_poisson_has_no_rsample():
    def f(torch):
        d = torch.distributions.Poisson(torch.tensor([1.0]))
        return d.has_rsample, d.rsample()
    check(f)


# ---- reprs ----------------------------------------------------------------------------------

_REPRS = [
    lambda torch: torch.distributions.Normal(0.0, 1.0),
    lambda torch: torch.distributions.Normal(torch.zeros(3), 1.0),
    lambda torch: torch.distributions.Normal(torch.tensor([0.5]), torch.tensor([2.0])),
    lambda torch: torch.distributions.Normal(torch.tensor(0.3), torch.tensor(1.0)),
    lambda torch: torch.distributions.Bernoulli(0.3),
    lambda torch: torch.distributions.Bernoulli(logits=torch.zeros(2, 2)),
    lambda torch: torch.distributions.Categorical(torch.tensor([0.2, 0.8])),
    lambda torch: torch.distributions.Categorical(logits=torch.zeros(5, 3)),
    lambda torch: torch.distributions.Categorical(torch.tensor([1.0])),
    lambda torch: torch.distributions.Uniform(0.0, 2.0),
    lambda torch: torch.distributions.Beta(torch.ones(2), 3.0),
    lambda torch: torch.distributions.Gamma(2.0, torch.ones(4)),
    lambda torch: torch.distributions.Exponential(torch.tensor([2.0])),
    lambda torch: torch.distributions.Laplace(0.0, 1.0),
    lambda torch: torch.distributions.Poisson(torch.ones(2)),
    lambda torch: torch.distributions.Dirichlet(torch.ones(3)),
    lambda torch: torch.distributions.LogNormal(0.0, 1.0),
    lambda torch: torch.distributions.MultivariateNormal(torch.zeros(3), torch.eye(3)),
    lambda torch: torch.distributions.MultivariateNormal(torch.zeros(2, 3),
                                                         scale_tril=torch.eye(3)),
    lambda torch: torch.distributions.OneHotCategorical(torch.ones(4) / 4),
    lambda torch: torch.distributions.Independent(
        torch.distributions.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1),
    lambda torch: torch.distributions.TransformedDistribution(
        torch.distributions.Normal(0.0, 1.0), [torch.distributions.transforms.ExpTransform()]),
    lambda torch: torch.distributions.StudentT(torch.ones(2)),
    lambda torch: torch.distributions.MixtureSameFamily(
        torch.distributions.Categorical(torch.ones(3)),
        torch.distributions.Normal(torch.zeros(3), torch.ones(3))),
    lambda torch: torch.distributions.LowRankMultivariateNormal(torch.zeros(3), torch.ones(3, 1),
                                                                torch.ones(3)),
    lambda torch: torch.distributions.Binomial(10, torch.tensor([0.5, 0.2])),
    lambda torch: torch.distributions.Multinomial(10, torch.tensor([0.5, 0.2])),
    lambda torch: torch.distributions.RelaxedOneHotCategorical(torch.tensor(0.5),
                                                               torch.ones(3)),
    lambda torch: torch.distributions.Geometric(logits=torch.tensor(0.3)),
    lambda torch: torch.distributions.HalfCauchy(1.0),
    lambda torch: torch.distributions.Cauchy(0.0, 1.0),
    lambda torch: torch.distributions.VonMises(0.0, 1.0),
    lambda torch: torch.distributions.Wishart(torch.tensor(3.0), torch.eye(2)),
    lambda torch: torch.distributions.LKJCholesky(3, 0.5),
    lambda torch: torch.distributions.GeneralizedPareto(0.0, 1.0, 0.2),
    lambda torch: torch.distributions.constraints.positive,
    lambda torch: torch.distributions.constraints.real_vector,
    lambda torch: torch.distributions.constraints.simplex,
    lambda torch: torch.distributions.constraints.unit_interval,
    lambda torch: torch.distributions.constraints.integer_interval(0, 3),
    lambda torch: torch.distributions.constraints.interval(-1.0, torch.tensor(2.0)),
    lambda torch: torch.distributions.constraints.half_open_interval(0, 1),
    lambda torch: torch.distributions.constraints.lower_cholesky,
    lambda torch: torch.distributions.constraints.positive_definite,
    lambda torch: torch.distributions.constraints.nonnegative_integer,
    lambda torch: torch.distributions.constraints.dependent,
    lambda torch: torch.distributions.constraints.independent(
        torch.distributions.constraints.positive, 2),
    lambda torch: torch.distributions.transforms.ComposeTransform(
        [torch.distributions.transforms.ExpTransform(),
         torch.distributions.transforms.AffineTransform(0.0, 2.0)]),
    lambda torch: torch.distributions.transforms.ExpTransform().inv,
    lambda torch: torch.distributions.transforms.IndependentTransform(
        torch.distributions.transforms.SigmoidTransform(), 1),
    lambda torch: torch.distributions.transforms.identity_transform,
    lambda torch: type(torch.distributions.Normal(0.0, 1.0)),
    lambda torch: torch.distributions.Gamma,
    lambda torch: type(torch.distributions.transforms.TanhTransform()),
]


@pytest.mark.parametrize("i", range(len(_REPRS)))
def test_repr(i):
    same_repr(_REPRS[i])


# ---- validation ----------------------------------------------------------------------------

def _D(torch):
    return torch.distributions


_ERRORS = [
    lambda t: _D(t).Normal(t.zeros(3), -t.ones(3)),
    lambda t: _D(t).Normal(0.0, -1.0),
    lambda t: _D(t).Normal(t.tensor([float("nan")]), 1.0),
    lambda t: _D(t).Normal(t.zeros(3), t.ones(3)).log_prob(t.zeros(2)),
    lambda t: _D(t).Normal(t.zeros(3), t.ones(3)).log_prob([0.0, 0.0, 0.0]),
    lambda t: _D(t).Normal(t.zeros(3), t.ones(3)).cdf(t.zeros(4, 2)),
    lambda t: _D(t).Normal(t.zeros(3), t.ones(2)),
    lambda t: _D(t).Normal("a", 1.0),
    lambda t: _D(t).Bernoulli(probs=t.tensor([1.5, 0.5])),
    lambda t: _D(t).Bernoulli(probs=t.tensor([0.5]), logits=t.tensor([0.0])),
    lambda t: _D(t).Bernoulli(),
    lambda t: _D(t).Bernoulli(t.tensor([0.3])).log_prob(t.tensor([0.5])),
    lambda t: _D(t).Categorical(probs=t.tensor([0.5, -0.1])),
    lambda t: _D(t).Categorical(t.tensor(0.5)),
    lambda t: _D(t).Categorical(logits=t.tensor(0.5)),
    lambda t: _D(t).Categorical(t.tensor([0.5, 0.5])).log_prob(t.tensor([2])),
    lambda t: _D(t).Categorical(t.tensor([0.5, 0.5])).log_prob(t.tensor([0.5])),
    lambda t: _D(t).Categorical(logits=t.tensor([0.0, float("inf")])),
    lambda t: _D(t).Uniform(1.0, 0.0),
    lambda t: _D(t).Uniform(t.zeros(2), t.ones(2)).log_prob(t.tensor([0.5, 1.5])),
    lambda t: _D(t).Beta(0.0, 1.0),
    lambda t: _D(t).Beta(t.ones(2), t.ones(2)).log_prob(t.tensor([0.5, 1.5])),
    lambda t: _D(t).Gamma(t.tensor([-1.0]), 1.0),
    lambda t: _D(t).Gamma(1.0, 1.0).log_prob(t.tensor(-1.0)),
    lambda t: _D(t).Exponential(0.0),
    lambda t: _D(t).Laplace(0.0, 0.0),
    lambda t: _D(t).Poisson(-1.0),
    lambda t: _D(t).Poisson(1.0).log_prob(t.tensor(0.5)),
    lambda t: _D(t).Dirichlet(t.tensor(1.0)),
    lambda t: _D(t).Dirichlet(t.tensor([1.0, -1.0])),
    lambda t: _D(t).Dirichlet(t.ones(3)).log_prob(t.tensor([0.5, 0.5, 0.5])),
    lambda t: _D(t).LogNormal(0.0, -1.0),
    lambda t: _D(t).LogNormal(0.0, 1.0).log_prob(t.tensor(-1.0)),
    lambda t: _D(t).MultivariateNormal(t.tensor(0.0), t.eye(1)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), t.eye(2), scale_tril=t.eye(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), t.ones(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), precision_matrix=t.ones(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), scale_tril=t.ones(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), t.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), t.tensor([[1.0, 0.5], [0.0, 1.0]])),
    lambda t: _D(t).MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[1.0, 1.0],
                                                                        [0.0, 1.0]])),
    lambda t: _D(t).MultivariateNormal(t.zeros(3), t.eye(3)).log_prob(t.zeros(2)),
    lambda t: _D(t).MultivariateNormal(t.zeros(3), t.eye(3)).log_prob(t.zeros(2, 3)),
    lambda t: _D(t).OneHotCategorical(t.ones(3) / 3).log_prob(t.tensor([1.0, 1.0, 0.0])),
    lambda t: _D(t).Independent(_D(t).Normal(t.zeros(2), t.ones(2)), 2),
    lambda t: _D(t).Independent(_D(t).Normal(t.zeros(2, 3), t.ones(2, 3)), 1).log_prob(
        t.zeros(3, 3)),
    lambda t: _D(t).TransformedDistribution(_D(t).Normal(0.0, 1.0), "exp"),
    lambda t: _D(t).TransformedDistribution(_D(t).Normal(0.0, 1.0), ["exp"]),
    lambda t: _D(t).TransformedDistribution(_D(t).Normal(0.0, 1.0),
                                            _D(t).transforms.ExpTransform()).mode,
    lambda t: _D(t).TransformedDistribution(
        _D(t).Normal(0.0, 1.0), [_D(t).transforms.SoftmaxTransform()]),
    lambda t: _D(t).Distribution.set_default_validate_args(2),
    lambda t: _D(t).Normal(0.0, 1.0).enumerate_support(),
    lambda t: _D(t).Independent(_D(t).Bernoulli(t.ones(2) / 2), 1).enumerate_support(),
    lambda t: _D(t).transforms.Transform(cache_size=2),
    lambda t: _D(t).transforms.AffineTransform(0.0, 1.0).with_cache().event_dim,
    lambda t: repr(_D(t).transforms.ExpTransform().with_cache(1).with_cache(0)),
    lambda t: _D(t).constraints.dependent.check(t.zeros(1)),
    lambda t: _D(t).constraints.dependent.event_dim,
    lambda t: _D(t).biject_to(_D(t).constraints.lower_cholesky),
    lambda t: _D(t).Poisson(t.ones(2)).entropy(),
    lambda t: _D(t).Gamma(1.0, 1.0).icdf(t.tensor(0.5)),
    lambda t: _D(t).MixtureSameFamily(_D(t).Normal(0.0, 1.0), _D(t).Normal(t.zeros(3), 1.0)),
    lambda t: _D(t).MixtureSameFamily(_D(t).Categorical(t.ones(2)), 3),
    lambda t: _D(t).MixtureSameFamily(_D(t).Categorical(t.ones(2)),
                                      _D(t).Normal(t.zeros(3), 1.0)),
    lambda t: _D(t).MixtureSameFamily(_D(t).Categorical(t.ones(2, 3)),
                                      _D(t).Normal(t.zeros(4, 3), 1.0)),
    lambda t: _D(t).Binomial(5, t.tensor([0.5])).log_prob(t.tensor([6.0])),
    lambda t: _D(t).Binomial(t.tensor([-1.0]), t.tensor([0.5])),
    lambda t: _D(t).Multinomial(10, t.ones(3)).log_prob(t.tensor([5.0, 5.0, 5.0])),
    lambda t: _D(t).Multinomial(t.tensor(3), t.ones(3)),
    lambda t: _D(t).Multinomial(3, t.ones(3)).sample().sum(-1),
    lambda t: _D(t).Multinomial(probs=t.ones(3)).sample().sum(),
    lambda t: _D(t).LowRankMultivariateNormal(t.zeros(3), t.ones(2, 1), t.ones(3)),
    lambda t: _D(t).LowRankMultivariateNormal(t.zeros(3), t.ones(3), t.ones(3)),
    lambda t: _D(t).LowRankMultivariateNormal(t.zeros(3), t.ones(3, 1), t.ones(2)),
    lambda t: _D(t).StudentT(-1.0),
    lambda t: _D(t).Geometric(probs=t.tensor([0.0])),
    lambda t: _D(t).RelaxedBernoulli(t.tensor(0.5)),
    lambda t: _D(t).Pareto(1.0, 1.0).log_prob(t.tensor(0.5)),
    lambda t: repr(_D(t).ContinuousBernoulli(t.tensor([1.5]))),
    lambda t: _D(t).HalfNormal(1.0).log_prob(t.tensor(-1.0)),
    lambda t: _D(t).Chi2(t.tensor([-2.0])),
    lambda t: _D(t).VonMises(0.0, -1.0),
    lambda t: _D(t).LKJCholesky(1, 1.0),
    lambda t: _D(t).LKJCholesky(3, -1.0),
    lambda t: _D(t).LKJCholesky(3, 1.0).log_prob(t.eye(3) * 2),
    lambda t: _D(t).Wishart(t.tensor(1.0), t.eye(3)),
    lambda t: _D(t).Wishart(3.0, t.eye(2)).df,
    lambda t: _D(t).Wishart(t.tensor(3.0)),
    lambda t: _D(t).Wishart(t.tensor(3.0), t.eye(2), scale_tril=t.eye(2)),
    lambda t: _D(t).GeneralizedPareto(0.0, -1.0, 0.0),
    lambda t: _D(t).GeneralizedPareto(0.0, 1.0, -0.5).log_prob(t.tensor(3.0)),
]


@pytest.mark.parametrize("i", range(len(_ERRORS)))
def test_validation_errors(i):
    check(_ERRORS[i])


def test_validate_args_false_and_default_switch():
    def f(torch):
        D = torch.distributions
        out = [D.Normal(0.0, -1.0, validate_args=False).log_prob(torch.tensor(0.0)),
               D.Bernoulli(torch.tensor([0.3]), validate_args=False).log_prob(
                   torch.tensor([0.5])),
               D.Normal(0.0, 1.0, validate_args=False)._validate_args]
        D.Distribution.set_default_validate_args(False)
        try:
            out.append(D.Normal(0.0, -1.0).scale)
            out.append(D.Normal(0.0, -1.0, validate_args=True)._validate_args)
            out.append(D.Distribution._validate_args)
        finally:
            D.Distribution.set_default_validate_args(True)
        out.append(D.Distribution._validate_args)
        return out
    check(f)


def test_missing_constraints_warns():
    def f(torch):
        class MyDist(torch.distributions.Distribution):
            pass
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            d = MyDist(torch.Size([2]))
            d._validate_sample(torch.zeros(2))
        return [str(x.message).replace("torchlike", "torch") for x in w], d.batch_shape
    e, a = check(f)
    assert len(e[0]) == 2


# ---- Categorical / Bernoulli parameterisation ------------------------------------------------

def test_categorical_lazy_probs_logits():
    def f(torch):
        p = torch.tensor([[1.0, 3.0, 0.0], [2.0, 2.0, 4.0]])
        c = torch.distributions.Categorical(probs=p)
        before = ("probs" in c.__dict__, "logits" in c.__dict__)
        lg = c.logits
        after = ("logits" in c.__dict__)
        c2 = torch.distributions.Categorical(logits=torch.log(p + 1))
        return (before, after, c.probs, lg, c2.logits, c2.probs, c.param_shape,
                c._num_events, c.entropy(), c2.entropy(), c.mode, c2.mode, c.mean)
    check(f)


def test_enumerate_support():
    def f(torch):
        D = torch.distributions
        c = D.Categorical(torch.ones(2, 3))
        b = D.Bernoulli(torch.tensor([0.2, 0.7]))
        o = D.OneHotCategorical(torch.ones(2, 3))
        return (c.enumerate_support(), c.enumerate_support(expand=False),
                b.enumerate_support(), b.enumerate_support(False), o.enumerate_support(),
                o.enumerate_support(False), D.Independent(b, 0).enumerate_support(),
                c.log_prob(c.enumerate_support()).exp().sum(0))
    check(f)


def test_bernoulli_mode_and_onehot_straight_through():
    def f(torch):
        D = torch.distributions
        b = D.Bernoulli(torch.tensor([0.2, 0.5, 0.9]))
        p = torch.tensor([0.1, 0.6, 0.3], requires_grad=True)
        st = D.OneHotCategoricalStraightThrough(probs=p)
        torch.manual_seed(0)
        r = st.rsample((4,))
        (g,) = torch.autograd.grad((r * torch.arange(3.0)).sum(), p)
        return b.mode, st.has_rsample, r.sum(-1), r.shape, g
    check(f)


def test_dirichlet_beta_mode():
    def f(torch):
        D = torch.distributions
        return (D.Dirichlet(torch.tensor([[2.0, 3.0, 4.0], [0.5, 0.7, 0.2]])).mode,
                D.Beta(torch.tensor([2.0, 0.5]), torch.tensor([3.0, 0.2])).mode)
    check(f)


def test_exponential_family_entropy_and_bregman_kl():
    def f(torch):
        D = torch.distributions
        n = D.Normal(torch.tensor([0.5, 1.0]), torch.tensor([1.5, 0.3]))
        m = D.Normal(torch.tensor([0.0, 2.0]), torch.tensor([1.0, 0.7]))
        g = D.Gamma(torch.tensor([2.0, 0.5]), torch.tensor([1.0, 3.0]))
        return (D.ExponentialFamily.entropy(n), D.ExponentialFamily.entropy(g),
                D.kl._kl_expfamily_expfamily(n, m))
    check(f)


# ---- KL divergence -------------------------------------------------------------------------

def _pair(torch, name):
    D = torch.distributions
    P = []

    def v(a, grad=True, dtype=None):
        t = _t(torch, a, grad, dtype)
        if grad:
            P.append(t)
        return t

    if name == "normal_normal":
        p = D.Normal(v(_rs(1).randn(3)), v(_pos(3, 2)))
        q = D.Normal(v(_rs(3).randn(3)), v(_pos(3, 4)))
    elif name == "normal_normal_broadcast":
        p = D.Normal(v(_rs(1).randn(2, 3)), v(_pos((2, 3), 2)))
        q = D.Normal(v(_rs(3).randn(3)), 1.5)
    elif name == "categorical":
        p = D.Categorical(probs=v(_simplex((2, 4), 5)))
        q = D.Categorical(logits=v(_rs(6).randn(2, 4)))
    elif name == "categorical_zeros":
        p = D.Categorical(probs=torch.tensor([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]))
        q = D.Categorical(probs=torch.tensor([[0.3, 0.3, 0.4], [0.0, 0.5, 0.5]]))
    elif name == "bernoulli":
        p = D.Bernoulli(probs=v([0.2, 0.5, 0.9]))
        q = D.Bernoulli(logits=v([0.3, -1.0, 2.0]))
    elif name == "bernoulli_edges":
        p = D.Bernoulli(probs=torch.tensor([0.0, 1.0, 0.3, 0.3]))
        q = D.Bernoulli(probs=torch.tensor([0.5, 0.5, 0.0, 1.0]))
    elif name == "mvn":
        p = D.MultivariateNormal(v(_rs(7).randn(2, 3)), covariance_matrix=v(_spd(3, 8)))
        q = D.MultivariateNormal(v(_rs(9).randn(3)), scale_tril=v(np.linalg.cholesky(
            _spd(3, 10, (2,)))))
    elif name == "independent":
        p = D.Independent(D.Normal(v(_rs(11).randn(2, 3)), v(_pos((2, 3), 12))), 1)
        q = D.Independent(D.Normal(v(_rs(13).randn(2, 3)), v(_pos((2, 3), 14))), 1)
    elif name == "beta":
        p = D.Beta(v(_pos(3, 15)), v(_pos(3, 16)))
        q = D.Beta(v(_pos(3, 17)), v(_pos(3, 18)))
    elif name == "gamma":
        p = D.Gamma(v(_pos(3, 19)), v(_pos(3, 20)))
        q = D.Gamma(v(_pos(3, 21)), v(_pos(3, 22)))
    elif name == "dirichlet":
        p = D.Dirichlet(v(_pos((2, 3), 23)))
        q = D.Dirichlet(v(_pos((2, 3), 24)))
    elif name == "exponential":
        p, q = D.Exponential(v(_pos(3, 25))), D.Exponential(v(_pos(3, 26)))
    elif name == "laplace":
        p = D.Laplace(v(_rs(27).randn(3)), v(_pos(3, 28)))
        q = D.Laplace(v(_rs(29).randn(3)), v(_pos(3, 30)))
    elif name == "poisson":
        p, q = D.Poisson(v(_pos(3, 31))), D.Poisson(v(_pos(3, 32)))
    elif name == "uniform":
        p = D.Uniform(v([0.0, -1.0, 0.5]), v([1.0, 1.0, 2.0]))
        q = D.Uniform(v([-0.5, -0.5, 0.0]), v([2.0, 3.0, 3.0]))
    elif name == "onehot":
        p = D.OneHotCategorical(v(_simplex(4, 33)))
        q = D.OneHotCategorical(v(_simplex(4, 34)))
    elif name == "lognormal":
        p = D.LogNormal(v(_rs(35).randn(3)), v(_pos(3, 36)))
        q = D.LogNormal(v(_rs(37).randn(3)), v(_pos(3, 38)))
    elif name == "normal_laplace":
        p = D.Normal(v(_rs(39).randn(3)), v(_pos(3, 40)))
        q = D.Laplace(v(_rs(41).randn(3)), v(_pos(3, 42)))
    elif name == "exponential_gamma":
        p, q = D.Exponential(v(_pos(3, 43))), D.Gamma(v(_pos(3, 44)), v(_pos(3, 45)))
    elif name == "gamma_normal":
        p = D.Gamma(v(_pos(3, 46)), v(_pos(3, 47)))
        q = D.Normal(v(_rs(48).randn(3)), v(_pos(3, 49)))
    elif name == "uniform_normal":
        p = D.Uniform(v([0.0, -1.0]), v([1.0, 2.0]))
        q = D.Normal(v([0.3, 0.1]), v([1.0, 2.0]))
    elif name == "normal_uniform":
        p, q = D.Normal(0.0, 1.0), D.Uniform(-1.0, 1.0)
    elif name == "beta_uniform":
        p = D.Beta(v([2.0, 0.5]), v([3.0, 1.5]))
        q = D.Uniform(torch.tensor([0.0, 0.2]), torch.tensor([1.0, 1.0]))
    elif name == "bernoulli_poisson":
        p, q = D.Bernoulli(v([0.3, 0.6])), D.Poisson(v([1.0, 2.0]))
    elif name == "beta_normal":
        p = D.Beta(v([2.0, 0.5]), v([3.0, 1.5]))
        q = D.Normal(v([0.3, 0.1]), v([1.0, 2.0]))
    elif name == "cauchy":
        p = D.Cauchy(v(_rs(52).randn(3)), v(_pos(3, 53)))
        q = D.Cauchy(v(_rs(54).randn(3)), v(_pos(3, 55)))
    elif name == "geometric":
        p, q = D.Geometric(v([0.2, 0.5, 0.9])), D.Geometric(logits=v([0.3, -1.0, 2.0]))
    elif name == "gumbel":
        p = D.Gumbel(v(_rs(56).randn(3)), v(_pos(3, 57)))
        q = D.Gumbel(v(_rs(58).randn(3)), v(_pos(3, 59)))
    elif name == "half_normal":
        p, q = D.HalfNormal(v(_pos(3, 60))), D.HalfNormal(v(_pos(3, 61)))
    elif name == "pareto":
        p = D.Pareto(v([1.0, 2.0, 0.5]), v([1.5, 3.0, 2.5]))
        q = D.Pareto(v([0.5, 2.5, 0.5]), v([2.0, 1.0, 3.0]))
    elif name == "binomial":
        p = D.Binomial(torch.tensor([5.0, 10.0, 3.0]), v([0.2, 0.5, 0.9]))
        q = D.Binomial(torch.tensor([5.0, 8.0, 3.0]), v([0.3, 0.6, 0.2]))
    elif name == "continuous_bernoulli":
        p = D.ContinuousBernoulli(v([0.2, 0.7, 0.4995]))
        q = D.ContinuousBernoulli(v([0.6, 0.1, 0.3]))
    elif name == "lowrank":
        p = D.LowRankMultivariateNormal(v(_rs(62).randn(2, 3)), v(_rs(63).randn(3, 2)),
                                        v(_pos(3, 64)))
        q = D.LowRankMultivariateNormal(v(_rs(65).randn(3)), v(_rs(66).randn(2, 3, 1)),
                                        v(_pos((2, 3), 67)))
    elif name == "mvn_lowrank":
        p = D.MultivariateNormal(v(_rs(68).randn(3)), covariance_matrix=v(_spd(3, 69)))
        q = D.LowRankMultivariateNormal(v(_rs(65).randn(3)), v(_rs(66).randn(3, 2)),
                                        v(_pos(3, 67)))
    elif name == "lowrank_mvn":
        p = D.LowRankMultivariateNormal(v(_rs(65).randn(3)), v(_rs(66).randn(3, 2)),
                                        v(_pos(3, 67)))
        q = D.MultivariateNormal(v(_rs(68).randn(2, 3)), scale_tril=v(np.linalg.cholesky(
            _spd(3, 69))))
    elif name == "normal_gumbel":
        p = D.Normal(v(_rs(70).randn(3)), v(_pos(3, 71)))
        q = D.Gumbel(v(_rs(72).randn(3)), v(_pos(3, 73)))
    elif name == "exponential_gumbel":
        p, q = D.Exponential(v(_pos(3, 74))), D.Gumbel(v(_rs(75).randn(3)), v(_pos(3, 76)))
    elif name == "uniform_pareto":
        p = D.Uniform(v([1.0, 2.0]), v([2.0, 5.0]))
        q = D.Pareto(v([0.5, 2.5]), v([2.0, 1.0]))
    elif name == "beta_continuous_bernoulli":
        p = D.Beta(v([2.0, 0.5]), v([3.0, 1.5]))
        q = D.ContinuousBernoulli(v([0.3, 0.8]))
    elif name == "gamma_gumbel":
        p = D.Gamma(v(_pos(3, 77)), v(_pos(3, 78)))
        q = D.Gumbel(v(_rs(79).randn(3)), v(_pos(3, 80)))
    elif name == "pareto_normal":
        p = D.Pareto(v([1.0, 2.0, 0.5]), v([1.5, 3.0, 2.5]))
        q = D.Normal(v(_rs(81).randn(3)), v(_pos(3, 82)))
    elif name == "uniform_gamma":
        p = D.Uniform(v([0.5, 1.0]), v([1.0, 3.0]))
        q = D.Gamma(v([2.0, 3.0]), v([1.0, 2.0]))
    else:
        raise KeyError(name)
    return p, q, P


_PAIRS = ["normal_normal", "normal_normal_broadcast", "categorical", "categorical_zeros",
          "bernoulli", "bernoulli_edges", "mvn", "independent", "beta", "gamma", "dirichlet",
          "exponential", "laplace", "poisson", "uniform", "onehot", "lognormal",
          "normal_laplace", "exponential_gamma", "gamma_normal", "uniform_normal",
          "normal_uniform", "beta_uniform", "bernoulli_poisson", "beta_normal", "uniform_gamma",
          "cauchy", "geometric", "gumbel", "half_normal", "pareto", "binomial",
          "continuous_bernoulli", "lowrank", "mvn_lowrank", "lowrank_mvn", "normal_gumbel",
          "exponential_gumbel", "uniform_pareto", "beta_continuous_bernoulli", "gamma_gumbel",
          "pareto_normal"]


@pytest.mark.parametrize("name", _PAIRS)
def test_kl_divergence(name):
    def f(torch):
        p, q, params = _pair(torch, name)
        kl = torch.distributions.kl_divergence(p, q)
        grads = None
        if params:
            finite = torch.where(torch.isfinite(kl), kl, torch.zeros_like(kl))
            grads = torch.autograd.grad(finite.sum(), params, allow_unused=True)
        return kl, grads
    check(f, rtol=2e-5, atol=2e-6)


def test_kl_errors_and_register_kl():
    def f(torch):
        D = torch.distributions
        out = []
        for p, q in [(D.Laplace(0.0, 1.0), D.Categorical(torch.ones(2))),
                     (D.Poisson(torch.ones(2)), D.Gamma(torch.ones(2), 1.0)),
                     (D.Independent(D.Normal(torch.zeros(2, 2), 1.0), 1),
                      D.Independent(D.Normal(torch.zeros(2, 2), 1.0), 2)),
                     (D.MultivariateNormal(torch.zeros(2), torch.eye(2)),
                      D.MultivariateNormal(torch.zeros(3), torch.eye(3))),
                     (D.LogNormal(0.0, 1.0), D.TransformedDistribution(
                         D.Normal(0.0, 1.0), D.transforms.SigmoidTransform()))]:
            try:
                out.append(D.kl_divergence(p, q))
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, " ".join(str(e).split())))

        class MyNormal(D.Normal):
            pass

        @D.register_kl(MyNormal, MyNormal)
        def _kl_mine(p, q):
            return (p.loc - q.loc).abs()

        a, b = MyNormal(torch.tensor([1.0]), 1.0), MyNormal(torch.tensor([3.0]), 2.0)
        out.append(D.kl_divergence(a, b))
        out.append(D.kl_divergence(a, D.Normal(torch.tensor([3.0]), 2.0)))
        return out
    check(f)


# ---- transforms, TransformedDistribution, constraint registry ---------------------------------

def _transform(torch, name):
    T = torch.distributions.transforms
    return {
        "exp": lambda: T.ExpTransform(),
        "affine": lambda: T.AffineTransform(torch.tensor([0.5, -1.0, 2.0]),
                                            torch.tensor([2.0, -0.5, 3.0])),
        "affine_scalar": lambda: T.AffineTransform(1.0, -2.0),
        "affine_event": lambda: T.AffineTransform(torch.tensor([0.5, -1.0, 2.0]),
                                                  torch.tensor([2.0, -0.5, 3.0]), event_dim=1),
        "sigmoid": lambda: T.SigmoidTransform(),
        "tanh": lambda: T.TanhTransform(),
        "softplus": lambda: T.SoftplusTransform(),
        "power": lambda: T.PowerTransform(torch.tensor(2.0)),
        "abs": lambda: T.AbsTransform(),
        "softmax": lambda: T.SoftmaxTransform(),
        "stick": lambda: T.StickBreakingTransform(),
        "compose": lambda: T.ComposeTransform([T.AffineTransform(0.3, 2.0), T.TanhTransform(),
                                               T.AffineTransform(1.0, 3.0)]),
        "independent": lambda: T.IndependentTransform(T.ExpTransform(), 1),
        "inverse_sigmoid": lambda: T.SigmoidTransform().inv,
        "lower_cholesky": lambda: T.LowerCholeskyTransform(),
        "reshape": lambda: T.ReshapeTransform(torch.Size([2, 3]), torch.Size([6])),
    }[name]()


_X = {"lower_cholesky": (2, 3, 3), "reshape": (4, 2, 3), "inverse_sigmoid": "unit"}


@pytest.mark.parametrize("name", ["exp", "affine", "affine_scalar", "affine_event", "sigmoid",
                                  "tanh", "softplus", "power", "abs", "softmax", "stick",
                                  "compose", "independent", "inverse_sigmoid",
                                  "lower_cholesky", "reshape"])
def test_transform(name):
    def f(torch):
        t = _transform(torch, name)
        spec = _X.get(name, (4, 3))
        if spec == "unit":
            x = _t(torch, _rs(50).uniform(0.1, 0.9, size=(4, 3)), True)
        else:
            x = _t(torch, _rs(50).randn(*spec) * 0.8 + (0.5 if name == "power" else 0), True)
            if name == "power":
                x = x.detach().abs().requires_grad_()
        y = t(x)
        out = [y, repr(t), t.domain.event_dim, t.codomain.event_dim, repr(t.domain),
               repr(t.codomain), t.bijective, t.forward_shape(x.shape),
               t.inverse_shape(y.shape)]
        try:
            out.append(t.inv(y))
        except NotImplementedError as e:
            out.append(("NotImplementedError", str(e)))
        try:
            ladj = t.log_abs_det_jacobian(x, y)
            (g,) = torch.autograd.grad(ladj.sum() + y.sum(), x)
            out += [ladj, g]
        except NotImplementedError as e:
            out.append(("NotImplementedError", str(e)))
        try:
            s = t.sign
            out.append(s if not isinstance(s, torch.Tensor) else s.tolist())
        except NotImplementedError:
            out.append("no sign")
        return out
    check(f, rtol=2e-5, atol=2e-6)


def test_transform_cache_and_equality():
    def f(torch):
        T = torch.distributions.transforms
        t = T.ExpTransform(cache_size=1)
        x = torch.tensor([0.5, 1.0])
        y = t(x)
        return (t.inv(y) is x, t(x) is y, T.ExpTransform() == T.ExpTransform(),
                T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0),
                T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 3.0),
                T.ExpTransform().inv == T.ExpTransform().inv,
                T.ComposeTransform([T.ExpTransform()]) == T.ComposeTransform([T.ExpTransform()]),
                T.ComposeTransform([T.ExpTransform()]).inv.parts[0].__class__.__name__,
                T.identity_transform(x) is x)
    check(f)


def test_transformed_distribution_sampling_and_expand():
    def f(torch):
        D = torch.distributions
        T = D.transforms
        loc = torch.zeros(2, 1)
        d = D.TransformedDistribution(D.Normal(loc, 1.0),
                                      [T.AffineTransform(torch.zeros(3), torch.ones(3))])
        torch.manual_seed(0)
        s = d.sample((4,))
        e = d.expand((5, 2, 3))
        ind = D.TransformedDistribution(D.Normal(torch.zeros(2, 3), 1.0),
                                        T.StickBreakingTransform())
        return (d.batch_shape, d.event_shape, d.base_dist.batch_shape, s.shape,
                e.batch_shape, e.base_dist.batch_shape, repr(d.support),
                ind.batch_shape, ind.event_shape, type(ind.base_dist).__name__,
                ind.sample().shape, ind.log_prob(ind.sample()).shape, repr(ind.support))
    check(f)


_CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "simplex", "real_vector",
                "greater_than", "greater_than_eq", "less_than", "interval", "half_open",
                "independent", "lower_cholesky", "positive_definite", "corr_cholesky"]


def _constraint(torch, name):
    C = torch.distributions.constraints
    return {"real": C.real, "positive": C.positive, "nonnegative": C.nonnegative,
            "unit_interval": C.unit_interval, "simplex": C.simplex,
            "real_vector": C.real_vector, "greater_than": C.greater_than(1.5),
            "greater_than_eq": C.greater_than_eq(-1.0), "less_than": C.less_than(2.0),
            "interval": C.interval(-2.0, 3.0), "half_open": C.half_open_interval(0.0, 5.0),
            "independent": C.independent(C.positive, 1),
            "lower_cholesky": C.lower_cholesky, "positive_definite": C.positive_definite,
            "corr_cholesky": C.corr_cholesky}[name]


@pytest.mark.parametrize("name", _CONSTRAINTS)
def test_biject_to_and_transform_to(name):
    def f(torch):
        D = torch.distributions
        c = _constraint(torch, name)
        out = []
        for reg in (D.biject_to, D.transform_to):
            try:
                t = reg(c)
            except NotImplementedError as e:
                out.append(str(e))
                continue
            n = t.inverse_shape(torch.Size([3, 3]))[-1] if t.codomain.event_dim == 2 else 3
            shape = (2, 3, 3) if t.domain.event_dim == 2 else (2, n)
            x = _t(torch, _rs(51).randn(*shape) * 0.7, True)
            y = t(x)
            out += [repr(t), y, bool(c.check(y).all())]
            if t.bijective:
                out.append(t.inv(y))
                (g,) = torch.autograd.grad(t.log_abs_det_jacobian(x, y).sum(), x)
                out.append(g)
        return out
    check(f, rtol=2e-5, atol=2e-6)


def test_constraint_checks():
    def f(torch):
        C = torch.distributions.constraints
        v = torch.tensor([[-1.0, 0.0, 0.5], [1.0, 2.0, float("nan")]])
        m = torch.tensor([[[1.0, 0.0], [0.5, 2.0]], [[1.0, 0.3], [0.3, 1.0]],
                          [[-1.0, 0.0], [0.0, 1.0]]])
        cs = [C.real, C.positive, C.nonnegative, C.unit_interval, C.boolean,
              C.nonnegative_integer, C.positive_integer, C.integer_interval(0, 1),
              C.greater_than(0.4), C.greater_than_eq(0.5), C.less_than(0.5),
              C.interval(0.0, 1.0), C.half_open_interval(0.0, 1.0), C.real_vector,
              C.independent(C.real, 2), C.simplex, C.one_hot]
        out = [c.check(v) for c in cs]
        out += [C.simplex.check(torch.tensor([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])),
                C.one_hot.check(torch.tensor([[0.0, 1.0], [1.0, 1.0]])),
                C.multinomial(3).check(torch.tensor([[1.0, 2.0], [2.0, 2.0]]))]
        out += [c.check(m) for c in (C.lower_triangular, C.lower_cholesky, C.square,
                                     C.symmetric, C.positive_definite,
                                     C.positive_semidefinite)]
        out += [C.cat([C.positive, C.real], 0, [1, 1]).check(v),
                C.stack([C.positive, C.real], 0).check(v)]
        out += [(c.is_discrete, c.event_dim) for c in cs]
        out += [C.is_dependent(C.dependent), C.is_dependent(C.real),
                C.dependent(is_discrete=True, event_dim=1).event_dim]
        return out
    check(f)


def test_import_paths():
    import torchlike.distributions.constraints as c1
    from torchlike.distributions import Normal, constraints, kl_divergence  # noqa: F401
    from torchlike.distributions.kl import register_kl  # noqa: F401
    from torchlike.distributions.normal import Normal as N2
    from torchlike.distributions.transforms import TanhTransform  # noqa: F401
    from torchlike.distributions.utils import broadcast_all, lazy_property  # noqa: F401
    assert N2 is Normal and c1 is constraints
    assert torchlike.distributions is __import__("torchlike.distributions").distributions
    assert set(torchlike.distributions.__all__) == set(real_torch.distributions.__all__)


def test_every_torch_distributions_name_and_module():
    """Every torch.distributions submodule exists with its `__all__`; the package has every
    public name."""
    import importlib
    from torchlike._missing import torch_table
    table = torch_table()
    for mod in [m for m in table if m.startswith("torch.distributions")]:
        tl = importlib.import_module("torchlike" + mod[len("torch"):])
        real = importlib.import_module(mod)
        names = real.__all__ if mod != "torch.distributions" else table[mod]
        missing = [n for n in names if not hasattr(tl, n)]
        assert not missing, (mod, missing)


def test_typo_in_a_fresh_process():
    """Imported directly (not through `torch.distributions`), a typo still gets PyTorch's
    AttributeError."""
    code = ("import torchlike.distributions as D\n"
            "try:\n"
            "    D.Nrmal\n"
            "except AttributeError as e:\n"
            "    print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["AttributeError module 'torch.distributions' has no attribute 'Nrmal'"]


def test_utils():
    def f(torch):
        U = torch.distributions.utils
        x = torch.tensor([[0.0, 0.3], [1.0, 0.5]], dtype=torch.float64)
        a, b = U.broadcast_all(torch.zeros(2, 1), 3)
        c, = U.broadcast_all(2.5)
        vec = torch.arange(6.0)
        return (U.clamp_probs(x), U.probs_to_logits(x), U.probs_to_logits(x, True),
                U.logits_to_probs(x), U.logits_to_probs(x, True), a, b, c,
                U.vec_to_tril_matrix(vec), U.tril_matrix_to_vec(U.vec_to_tril_matrix(vec)),
                U.vec_to_tril_matrix(vec, -1), U.euler_constant)
    check(f)
    check(lambda torch: torch.distributions.utils.broadcast_all(torch.zeros(1), "x"))
    check(lambda torch: torch.distributions.utils.vec_to_tril_matrix(torch.zeros(5)))


def test_policy_gradient_step():
    """A REINFORCE step as RL scripts write it: log_prob of sampled actions times returns,
    backward into the policy's logits (the sampled actions are shared between libraries)."""
    actions = np.array([0, 2, 1, 1, 3, 0])
    returns = np.array([1.0, -0.5, 2.0, 0.3, -1.0, 0.7], dtype=np.float32)

    def f(torch):
        torch.manual_seed(0)
        lin = torch.nn.Linear(5, 4)
        with torch.no_grad():
            lin.weight.copy_(torch.tensor(_rs(60).randn(4, 5), dtype=torch.float32))
            lin.bias.zero_()
        obs = torch.tensor(_rs(61).randn(6, 5), dtype=torch.float32)
        dist = torch.distributions.Categorical(logits=lin(obs))
        loss = -(dist.log_prob(torch.tensor(actions)) * torch.tensor(returns)).mean() \
            - 0.01 * dist.entropy().mean()
        loss.backward()
        return loss, lin.weight.grad, lin.bias.grad
    check(f, rtol=2e-5, atol=2e-6)


def test_vae_step():
    """A VAE's reparameterised KL + reconstruction loss with a fixed noise draw."""
    eps = _rs(62).randn(4, 2).astype(np.float32)

    def f(torch):
        mu = torch.tensor(_rs(63).randn(4, 2), dtype=torch.float32, requires_grad=True)
        logvar = torch.tensor(_rs(64).randn(4, 2) * 0.3, dtype=torch.float32,
                              requires_grad=True)
        q = torch.distributions.Normal(mu, torch.exp(0.5 * logvar))
        prior = torch.distributions.Normal(torch.zeros_like(mu), torch.ones_like(mu))
        z = q.loc + q.scale * torch.tensor(eps)
        kl = torch.distributions.kl_divergence(q, prior).sum(-1)
        lp = torch.distributions.Independent(q, 1).log_prob(z)
        loss = (kl - lp).mean()
        loss.backward()
        return loss, mu.grad, logvar.grad
    check(f, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtypes_follow_parameters(dtype):
    def f(torch):
        D = torch.distributions
        dt = getattr(torch, dtype)
        one = torch.ones(2, dtype=dt)
        ds = [D.Normal(one, one), D.Gamma(one, one), D.Beta(one, one), D.Dirichlet(one),
              D.Exponential(one), D.Laplace(one, one), D.Uniform(one - 1, one),
              D.Poisson(one), D.Bernoulli(one / 2), D.Categorical(one),
              D.OneHotCategorical(one), D.LogNormal(one, one),
              D.MultivariateNormal(one, torch.eye(2, dtype=dt))]
        return [(d.sample().dtype, d.log_prob(d.sample()).dtype, d.entropy().dtype
                 if not isinstance(d, D.Poisson) else None, d.mean.dtype) for d in ds]
    check(f)


def test_gamma_tiny_concentration_stays_positive():
    torchlike.manual_seed(0)
    d = torchlike.distributions.Gamma(torchlike.full((5000,), 0.01), 1.0)
    s = d.sample()
    assert bool((s > 0).all()) and bool(torchlike.isfinite(d.log_prob(s)).all())
    assert math.isclose(s.double().mean().item(), 0.01, rel_tol=0.5)


def test_cdf_without_grad():
    """Gamma's cdf (igamma) has no gradient in PyTorch; its values, with plain parameters."""
    def f(torch):
        D = torch.distributions
        g = D.Gamma(torch.tensor([0.5, 2.0, 5.0]), torch.tensor([1.0, 2.0, 0.5]))
        return g.cdf(torch.tensor([0.3, 1.5, 4.0])), g.cdf(torch.tensor([[0.0], [10.0]]))
    check(f)


def test_parameters_are_the_given_tensors():
    """broadcast_all hands back tensors already of the broadcast shape themselves."""
    def f(torch):
        loc, scale = torch.zeros(3, requires_grad=True), torch.ones(3)
        d = torch.distributions.Normal(loc, scale)
        e = torch.distributions.Normal(loc, torch.ones(2, 3))
        return d.loc is loc, d.scale is scale, e.loc is loc, repr(d.loc), e.loc.shape
    check(f)


def test_python_number_values():
    # Gamma.log_prob converts a Python number (as_tensor); Normal's validation refuses it
    check(lambda torch: torch.distributions.Gamma(2.0, 1.0).log_prob(1.5))
    check(lambda torch: torch.distributions.Normal(0.0, 1.0).log_prob(1.5))
    check(lambda torch: torch.distributions.Normal(0.0, 1.0, validate_args=False).log_prob(1.5))
