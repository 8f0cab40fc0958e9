"""torch.distributions (torchlike's clean-room subset): the same distributions built from the
same parameters under PyTorch and torchlike, compared — log_prob/cdf/icdf/entropy/moments and
their gradients, shapes, reprs, validation errors, KL divergences, constraints. Samples come
from a different generator, so they are compared by shape/dtype and checked statistically
against PyTorch's moments."""
import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check, same_repr


@pytest.fixture(autouse=True)
def torch_validates_by_default():
    """PyTorch's default is to validate arguments, but the first real `torch.compile` in a
    process (test_compile uses one) installs dynamo, which turns distribution validation off
    process-wide; each test starts from PyTorch's documented default."""
    real_torch.distributions.Distribution.set_default_validate_args(True)
    yield


def _rs(seed):
    return np.random.RandomState(seed)


def _t(torch, a, grad=False, dtype=None):
    t = torch.tensor(np.asarray(a), dtype=dtype or torch.float32)
    return t.requires_grad_() if grad else t


def _pos(shape, seed, lo=0.5, hi=3.0):
    return _rs(seed).uniform(lo, hi, size=shape)


# ---- name -> builder(torch) -> (distribution, [parameters needing grads], a value) ---------

def _normal(torch):
    loc, scale = _t(torch, _rs(1).randn(3), True), _t(torch, _pos(3, 2), True)
    return torch.distributions.Normal(loc, scale), [loc, scale], _t(torch, _rs(3).randn(3))


def _normal_scalar(torch):
    return torch.distributions.Normal(0.5, 2.0), [], _t(torch, _rs(3).randn(4))


def _normal_f64(torch):
    loc = _t(torch, _rs(1).randn(2, 3), True, torch.float64)
    scale = _t(torch, _pos(3, 2), True, torch.float64)
    return (torch.distributions.Normal(loc, scale), [loc, scale],
            _t(torch, _rs(3).randn(5, 2, 3), dtype=torch.float64))


def _uniform(torch):
    lo, hi = _t(torch, [-1.0, 0.0, 2.0], True), _t(torch, [1.0, 0.5, 5.0], True)
    return torch.distributions.Uniform(lo, hi), [lo, hi], _t(torch, [0.3, 0.25, 4.0])


def _bernoulli_probs(torch):
    p = _t(torch, [0.2, 0.5, 0.9], True)
    return (torch.distributions.Bernoulli(probs=p), [p],
            _t(torch, [[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]))


def _bernoulli_logits(torch):
    lg = _t(torch, _rs(6).randn(3) * 2, True)
    return torch.distributions.Bernoulli(logits=lg), [lg], _t(torch, [0.0, 1.0, 1.0])


def _categorical_probs(torch):
    p = _t(torch, _rs(4).uniform(0.1, 2.0, size=(2, 4)), True)  # unnormalised on purpose
    return (torch.distributions.Categorical(probs=p), [p],
            torch.tensor([[0, 3], [2, 1], [1, 1]]))


def _categorical_logits(torch):
    lg = _t(torch, _rs(5).randn(2, 4), True)
    return torch.distributions.Categorical(logits=lg), [lg], torch.tensor([3, 0])


def _onehot(torch):
    p = _t(torch, _rs(25).uniform(0.1, 1.0, size=(2, 4)), True)
    v = torch.nn.functional.one_hot(torch.tensor([[1, 3], [0, 0]]), 4).float()
    return torch.distributions.OneHotCategorical(probs=p), [p], v


def _onehot_logits(torch):
    lg = _t(torch, _rs(26).randn(3), True)
    return (torch.distributions.OneHotCategorical(logits=lg), [lg],
            _t(torch, [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))


def _exponential(torch):
    r = _t(torch, _pos(3, 11), True)
    return torch.distributions.Exponential(r), [r], _t(torch, [0.3, 1.5, 4.0])


def _laplace(torch):
    loc, scale = _t(torch, _rs(12).randn(3), True), _t(torch, _pos(3, 13), True)
    return torch.distributions.Laplace(loc, scale), [loc, scale], _t(torch, _rs(14).randn(3))


def _independent(torch):
    loc, scale = _t(torch, _rs(26).randn(2, 3), True), _t(torch, _pos((2, 3), 27), True)
    base = torch.distributions.Normal(loc, scale)
    return (torch.distributions.Independent(base, 1), [loc, scale],
            _t(torch, _rs(28).randn(5, 2, 3)))


def _independent_bernoulli(torch):
    p = _t(torch, _rs(29).uniform(0.1, 0.9, size=(2, 3)), True)
    return (torch.distributions.Independent(torch.distributions.Bernoulli(p), 2), [p],
            _t(torch, [[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]))


SPECS = {
    "normal": _normal, "normal_scalar": _normal_scalar, "normal_f64": _normal_f64,
    "uniform": _uniform, "bernoulli_probs": _bernoulli_probs,
    "bernoulli_logits": _bernoulli_logits, "categorical_probs": _categorical_probs,
    "categorical_logits": _categorical_logits, "onehot": _onehot,
    "onehot_logits": _onehot_logits, "exponential": _exponential, "laplace": _laplace,
    "independent": _independent, "independent_bernoulli": _independent_bernoulli,
}


def _probs_like(v):
    n = v.numel()
    return v.new_tensor(np.linspace(0.05, 0.95, n), dtype=v.dtype).reshape(v.shape)


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


@pytest.mark.parametrize("query", list(_QUERIES))
@pytest.mark.parametrize("spec", list(SPECS))
def test_values_and_gradients(spec, query):
    """Values and gradients, or the same exception (NotImplementedError where PyTorch has no
    cdf/icdf for the distribution)."""
    check(_query, spec, query, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("spec", list(SPECS))
def test_shapes_and_flags(spec):
    def f(torch):
        d = SPECS[spec](torch)[0]
        return (d.batch_shape, d.event_shape, d._extended_shape((4, 1)), d.has_rsample,
                d.has_enumerate_support, repr(d.support), d.support.event_dim,
                d.support.is_discrete, repr(d))
    check(f)


@pytest.mark.parametrize("spec", list(SPECS))
def test_expand(spec):
    def f(torch):
        d, _, v = SPECS[spec](torch)
        e = d.expand(torch.Size((2,)) + d.batch_shape)
        return (e.batch_shape, e.event_shape, type(e).__name__, e.log_prob(v), e.mean,
                e.sample((3,)).shape, e._validate_args, repr(e))
    check(f)


def test_expand_keeps_validate_args_false():
    def f(torch):
        d = torch.distributions.Normal(0.0, 1.0, validate_args=False).expand((3,))
        return d._validate_args, d.batch_shape, d.log_prob(torch.tensor(0.5))
    check(f)


@pytest.mark.parametrize("spec", list(SPECS))
def test_sample_shapes_and_dtypes(spec):
    def f(torch):
        d = SPECS[spec](torch)[0]
        out = []
        for shape in [(), (5,), torch.Size([2, 3])]:
            s = d.sample(shape)
            out.append((s.shape, s.dtype, s.requires_grad))
            if d.has_rsample:
                r = d.rsample(shape)
                out.append((r.shape, r.dtype, r.requires_grad))
        return out
    check(f)


@pytest.mark.parametrize("spec", list(SPECS))
def test_enumerate_support(spec):
    def f(torch):
        d = SPECS[spec](torch)[0]
        return d.enumerate_support(), d.enumerate_support(expand=False)
    check(f)


@pytest.mark.parametrize("spec", ["normal", "categorical_probs", "bernoulli_probs", "uniform",
                                  "onehot", "exponential", "laplace"])
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


# ---- statistics of torchlike's samples against PyTorch's moments --------------------------

_N = 20000


_REPARAM = ["normal", "normal_scalar", "normal_f64", "uniform", "exponential", "laplace",
            "independent"]


@pytest.mark.parametrize("spec, method", [(s, "sample") for s in _REPARAM + [
    "bernoulli_probs", "bernoulli_logits", "onehot", "onehot_logits", "independent_bernoulli"]]
    + [(s, "rsample") for s in _REPARAM])
def test_sample_moments(spec, method):
    torchlike.manual_seed(0)
    d = SPECS[spec](torchlike)[0]
    s = getattr(d, method)((_N,)).detach().double()
    ref = SPECS[spec](real_torch)[0]
    mean = ref.mean.detach().double().numpy()
    var = ref.variance.detach().double().numpy()
    m, v = s.mean(0).numpy(), s.var(0).numpy()
    # the sample mean within 5 standard errors; the sample variance within 10%
    np.testing.assert_array_less(np.abs(m - mean), 5 * np.sqrt(var / _N) + 1e-12)
    np.testing.assert_allclose(v, var, rtol=0.1)


@pytest.mark.parametrize("spec", ["normal", "uniform", "exponential", "laplace"])
def test_sample_cdf(spec):
    """The empirical CDF of torchlike's samples at a few points against PyTorch's cdf."""
    torchlike.manual_seed(2)
    s = SPECS[spec](torchlike)[0].sample((_N,)).double().numpy()
    ref, _, v = SPECS[spec](real_torch)
    for x in (v, v * 0.5 + 0.1):
        p = ref.cdf(x).detach().double().numpy()
        emp = (s <= x.double().numpy()).mean(0)
        np.testing.assert_array_less(np.abs(emp - p), 5 * np.sqrt(p * (1 - p) / _N) + 1e-3)


@pytest.mark.parametrize("spec", ["categorical_probs", "categorical_logits"])
def test_categorical_sample_frequencies(spec):
    torchlike.manual_seed(0)
    s = SPECS[spec](torchlike)[0].sample((_N,))
    assert s.dtype == torchlike.int64 and tuple(s.shape) == (_N, 2)
    freq = np.stack([np.bincount(s[:, i].numpy(), minlength=4) / _N for i in range(2)])
    p = SPECS[spec](real_torch)[0].probs.detach().numpy()
    np.testing.assert_array_less(np.abs(freq - p), 5 * np.sqrt(p * (1 - p) / _N))


@pytest.mark.parametrize("spec", list(SPECS))
def test_samples_lie_in_the_support(spec):
    torchlike.manual_seed(4)
    d = SPECS[spec](torchlike)[0]
    assert bool(d.support.check(d.sample((1000,))).all())
    if d.has_rsample:
        assert bool(d.support.check(d.rsample((1000,)).detach()).all())


# ---- reparameterised gradients (estimated from samples, against closed forms) ----------

def _grad_of_mean(build, fn):
    torchlike.manual_seed(3)
    d, params = build()
    return torchlike.autograd.grad(fn(d.rsample((_N,))).mean(0).sum(), params)


def test_rsample_gradients():
    T = torchlike

    def normal():
        loc, scale = T.tensor([0.5, -1.0], requires_grad=True), \
            T.tensor([1.5, 0.5], requires_grad=True)
        return T.distributions.Normal(loc, scale), [loc, scale]
    g_loc, g_scale = _grad_of_mean(normal, lambda x: x ** 2)  # E x^2 = loc^2 + scale^2
    np.testing.assert_allclose(g_loc.numpy(), [1.0, -2.0], atol=0.06)
    np.testing.assert_allclose(g_scale.numpy(), [3.0, 1.0], atol=0.08)

    def expo():
        r = T.tensor([0.5, 2.0], requires_grad=True)
        return T.distributions.Exponential(r), [r]
    (g,) = _grad_of_mean(expo, lambda x: x)  # E x = 1/r
    np.testing.assert_allclose(g.numpy(), [-4.0, -0.25], rtol=0.05)

    def laplace():
        loc, scale = T.tensor(0.3, requires_grad=True), T.tensor(1.2, requires_grad=True)
        return T.distributions.Laplace(loc, scale), [loc, scale]
    g_loc, g_scale = _grad_of_mean(laplace, lambda x: x ** 2)  # loc^2 + 2 scale^2
    np.testing.assert_allclose([g_loc.item(), g_scale.item()], [0.6, 4.8], rtol=0.06)

    def uniform():
        lo, hi = T.tensor(-1.0, requires_grad=True), T.tensor(2.0, requires_grad=True)
        return T.distributions.Uniform(lo, hi), [lo, hi]
    g_lo, g_hi = _grad_of_mean(uniform, lambda x: x ** 2)  # (lo^2 + lo hi + hi^2) / 3
    np.testing.assert_allclose([g_lo.item(), g_hi.item()], [0.0, 1.0], atol=0.05)

    def independent():
        loc = T.tensor([[0.5, -1.0]], requires_grad=True)
        return T.distributions.Independent(T.distributions.Normal(loc, 1.0), 1), [loc]
    (g,) = _grad_of_mean(independent, lambda x: x ** 2)
    np.testing.assert_allclose(g.numpy(), [[1.0, -2.0]], atol=0.06)


def test_sample_is_detached_rsample_is_not():
    loc = torchlike.zeros(3, requires_grad=True)
    d = torchlike.distributions.Normal(loc, 1.0)
    torchlike.manual_seed(5)
    a = d.sample()
    torchlike.manual_seed(5)
    b = d.rsample()
    assert a.grad_fn is None and not a.requires_grad
    assert b.grad_fn is not None
    assert torchlike.equal(a, b.detach())


def test_reinforce_step():
    """A REINFORCE update on a categorical policy: the same logits, actions and returns give
    the same loss, gradients and updated parameters."""
    def f(torch):
        torch.manual_seed(0)
        policy = torch.nn.Linear(4, 3)
        with torch.no_grad():
            policy.weight.copy_(torch.tensor(_rs(40).randn(3, 4), dtype=torch.float32))
            policy.bias.copy_(torch.tensor(_rs(41).randn(3), dtype=torch.float32))
        opt = torch.optim.SGD(policy.parameters(), lr=0.1)
        obs = torch.tensor(_rs(42).randn(6, 4), dtype=torch.float32)
        actions = torch.tensor([0, 2, 1, 1, 0, 2])
        returns = torch.tensor(_rs(43).randn(6), dtype=torch.float32)
        dist = torch.distributions.Categorical(logits=policy(obs))
        loss = -(dist.log_prob(actions) * returns).mean() - 0.01 * dist.entropy().mean()
        opt.zero_grad()
        loss.backward()
        grads = [p.grad.clone() for p in policy.parameters()]
        opt.step()
        return loss, grads, [p.detach().clone() for p in policy.parameters()]
    check(f, rtol=1e-5, atol=1e-6)


def test_gaussian_policy_step():
    """A continuous-action policy gradient through Independent(Normal) with a learned
    log-std."""
    def f(torch):
        mu = torch.tensor(_rs(50).randn(5, 2), dtype=torch.float32, requires_grad=True)
        log_std = torch.zeros(2, requires_grad=True)
        dist = torch.distributions.Independent(
            torch.distributions.Normal(mu, log_std.exp()), 1)
        a = torch.tensor(_rs(51).randn(5, 2), dtype=torch.float32)
        adv = torch.tensor(_rs(52).randn(5), dtype=torch.float32)
        loss = -(dist.log_prob(a) * adv).mean() - 0.1 * dist.entropy().mean()
        return loss, torch.autograd.grad(loss, [mu, log_std])
    check(f)


# ---- KL divergences ------------------------------------------------------------------

def _kl_pairs(torch):
    D = torch.distributions
    r = lambda s: _t(torch, _rs(s).randn(2, 3), True)  # noqa: E731
    pos = lambda s: _t(torch, _pos((2, 3), s), True)  # noqa: E731
    unit = lambda s: _t(torch, _rs(s).uniform(0.05, 0.95, size=(2, 3)), True)  # noqa: E731
    return {
        "normal": lambda: (D.Normal(r(60), pos(61)), D.Normal(r(62), pos(63))),
        "normal_broadcast": lambda: (D.Normal(r(60), pos(61)), D.Normal(0.0, 2.0)),
        "bernoulli": lambda: (D.Bernoulli(unit(64)), D.Bernoulli(logits=r(65))),
        "bernoulli_edges": lambda: (D.Bernoulli(torch.tensor([0.0, 1.0, 0.3, 0.0])),
                                    D.Bernoulli(torch.tensor([0.5, 1.0, 0.0, 0.0]))),
        "categorical": lambda: (D.Categorical(logits=r(66)), D.Categorical(probs=pos(67))),
        "categorical_zeros": lambda: (D.Categorical(torch.tensor([[0.5, 0.5, 0.0],
                                                                  [0.2, 0.3, 0.5]])),
                                      D.Categorical(torch.tensor([[0.5, 0.0, 0.5],
                                                                  [0.1, 0.1, 0.8]]))),
        "onehot": lambda: (D.OneHotCategorical(logits=r(68)), D.OneHotCategorical(pos(69))),
        "uniform": lambda: (D.Uniform(torch.tensor([0.0, -1.0, 0.5]),
                                      torch.tensor([1.0, 1.0, 0.7])),
                            D.Uniform(torch.tensor([-1.0, -1.0, 0.6]),
                                      torch.tensor([2.0, 1.0, 3.0]))),
        "uniform_grad": lambda: (D.Uniform(r(70) - 3, pos(71)), D.Uniform(r(72) - 6,
                                                                          pos(73) + 3)),
        "exponential": lambda: (D.Exponential(pos(74)), D.Exponential(pos(75))),
        "independent": lambda: (D.Independent(D.Normal(r(76), pos(77)), 1),
                                D.Independent(D.Normal(r(78), pos(79)), 1)),
        "independent_mismatch": lambda: (D.Independent(D.Normal(r(76), pos(77)), 1),
                                         D.Independent(D.Normal(r(78), pos(79)), 2)),
        # pairs with no formula: NotImplementedError with PyTorch's message
        "categorical_bernoulli": lambda: (D.Categorical(torch.ones(3)), D.Bernoulli(0.3)),
        "normal_categorical": lambda: (D.Normal(0.0, 1.0), D.Categorical(torch.ones(3))),
        "independent_normal": lambda: (D.Independent(D.Normal(r(76), pos(77)), 1),
                                       D.Normal(0.0, 1.0)),
        "normal_bernoulli": lambda: (D.Normal(0.0, 1.0), D.Bernoulli(0.3)),
        "exponential_bernoulli": lambda: (D.Exponential(1.0), D.Bernoulli(0.3)),
        "uniform_laplace": lambda: (D.Uniform(0.0, 1.0), D.Laplace(0.0, 1.0)),
        # across families
        "normal_laplace": lambda: (D.Normal(r(80), pos(81)), D.Laplace(r(82), pos(83))),
        "laplace_laplace": lambda: (D.Laplace(r(84), pos(85)), D.Laplace(r(86), pos(87))),
        "laplace_normal": lambda: (D.Laplace(r(88), pos(89)), D.Normal(r(90), pos(91))),
        "uniform_normal": lambda: (D.Uniform(r(92) - 3, pos(93)), D.Normal(r(94), pos(95))),
        "exponential_normal": lambda: (D.Exponential(pos(96)), D.Normal(r(97), pos(98))),
        "uniform_exponential": lambda: (D.Uniform(r(99), r(99) + pos(100)),
                                        D.Exponential(pos(101))),
        "normal_uniform": lambda: (D.Normal(r(60), pos(61)), D.Uniform(-1.0, 1.0)),
        "normal_exponential": lambda: (D.Normal(torch.zeros(3, 1), 1.0),
                                       D.Exponential(torch.ones(2))),
        "laplace_uniform": lambda: (D.Laplace(0.0, 1.0), D.Uniform(torch.zeros(2) - 1,
                                                                   torch.ones(2))),
        "laplace_exponential": lambda: (D.Laplace(r(84), pos(85)), D.Exponential(pos(96))),
        "exponential_uniform": lambda: (D.Exponential(torch.ones(3, 1, dtype=torch.float64)),
                                        D.Uniform(torch.zeros(2) - 1, torch.ones(2))),
    }


@pytest.mark.parametrize("pair", list(_kl_pairs(real_torch)))
def test_kl_divergence(pair):
    def f(torch):
        p, q = _kl_pairs(torch)[pair]()
        kl = torch.distributions.kl_divergence(p, q)
        params = [t for d in (p, q) for t in _leaves(torch, d)]
        grads = None
        if kl.requires_grad:
            finite = torch.where(torch.isfinite(kl), kl, torch.zeros_like(kl))
            grads = torch.autograd.grad(finite.sum(), params, allow_unused=True)
        return kl, grads
    check(f, rtol=2e-5, atol=2e-6)


def _leaves(torch, d):
    if isinstance(d, torch.distributions.Independent):
        return _leaves(torch, d.base_dist)
    if isinstance(d, torch.distributions.OneHotCategorical):
        d = d._categorical
    out = []
    for name in ("loc", "scale", "low", "high", "rate", "probs", "logits"):
        v = d.__dict__.get(name)
        while v is not None and v.grad_fn is not None and not v.is_leaf:
            # the user's leaf behind a normalised/broadcast parameter
            nxt = [fn[0] for fn in v.grad_fn.next_functions if fn[0] is not None]
            v = nxt[0].variable if nxt and hasattr(nxt[0], "variable") else None
        if v is not None and v.requires_grad and v.is_leaf and all(v is not o for o in out):
            out.append(v)
    return out


def test_kl_gradient_normal_explicit():
    def f(torch):
        m1, s1 = torch.tensor([0.3, -1.0], requires_grad=True), torch.tensor([1.5, 0.4],
                                                                            requires_grad=True)
        m2, s2 = torch.tensor([0.0, 1.0], requires_grad=True), torch.tensor([1.0, 2.0],
                                                                           requires_grad=True)
        kl = torch.distributions.kl_divergence(torch.distributions.Normal(m1, s1),
                                               torch.distributions.Normal(m2, s2))
        return kl, torch.autograd.grad(kl.sum(), [m1, s1, m2, s2])
    check(f)


def test_register_kl():
    def f(torch):
        D = torch.distributions

        class MyNormal(D.Normal):
            pass

        before = D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0))

        @D.register_kl(MyNormal, D.Normal)
        def _kl(p, q):
            return torch.tensor(42.0)

        after = D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0))
        plain = D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 1.0))
        errs = []
        for args in [("a", D.Normal), (D.Normal, 3)]:
            try:
                D.register_kl(*args)
            except TypeError as e:
                errs.append(str(e))
        return before, after, plain, errs
    check(f)


# ---- reprs -----------------------------------------------------------------------------

_REPRS = [
    lambda torch: torch.distributions.Normal(0.0, 1.0),
    lambda torch: torch.distributions.Normal(torch.zeros(3), 1.0),
    lambda torch: torch.distributions.Normal(torch.tensor([0.5]), torch.tensor([2.0])),
    lambda torch: torch.distributions.Normal(torch.tensor(0.3), torch.tensor(1.0)),
    lambda torch: torch.distributions.Normal(torch.tensor([0.0], requires_grad=True), 1.0),
    lambda torch: torch.distributions.Bernoulli(0.3),
    lambda torch: torch.distributions.Bernoulli(logits=torch.zeros(2, 2)),
    lambda torch: (lambda d: (d.probs, d)[1])(torch.distributions.Bernoulli(
        logits=torch.zeros(2))),
    lambda torch: torch.distributions.Categorical(torch.tensor([0.2, 0.8])),
    lambda torch: torch.distributions.Categorical(logits=torch.zeros(5, 3)),
    lambda torch: torch.distributions.Categorical(torch.tensor([1.0])),
    lambda torch: (lambda d: (d.entropy(), d)[1])(torch.distributions.Categorical(
        torch.ones(2, 2))),
    lambda torch: torch.distributions.Uniform(0.0, 2.0),
    lambda torch: torch.distributions.Exponential(torch.tensor([2.0])),
    lambda torch: torch.distributions.Laplace(0.0, 1.0),
    lambda torch: torch.distributions.OneHotCategorical(torch.ones(4) / 4),
    lambda torch: torch.distributions.Independent(
        torch.distributions.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1),
    lambda torch: torch.distributions.Uniform(torch.zeros(2), torch.ones(2)).support,
    lambda torch: torch.distributions.Categorical(torch.ones(3)).support,
    lambda torch: torch.distributions.Independent(
        torch.distributions.Normal(torch.zeros(2), 1.0), 1).support,
    lambda torch: torch.distributions.constraints.positive,
    lambda torch: torch.distributions.constraints.nonnegative,
    lambda torch: torch.distributions.constraints.real,
    lambda torch: torch.distributions.constraints.real_vector,
    lambda torch: torch.distributions.constraints.simplex,
    lambda torch: torch.distributions.constraints.boolean,
    lambda torch: torch.distributions.constraints.one_hot,
    lambda torch: torch.distributions.constraints.unit_interval,
    lambda torch: torch.distributions.constraints.integer_interval(0, 3),
    lambda torch: torch.distributions.constraints.interval(-1.0, torch.tensor(2.0)),
    lambda torch: torch.distributions.constraints.interval(torch.tensor(0.0),
                                                           torch.tensor([1.0, 2.0])),
    lambda torch: torch.distributions.constraints.half_open_interval(0, 1),
    lambda torch: torch.distributions.constraints.greater_than(1.0),
    lambda torch: torch.distributions.constraints.greater_than_eq(0.5),
    lambda torch: torch.distributions.constraints.less_than(2.0),
    lambda torch: torch.distributions.constraints.nonnegative_integer,
    lambda torch: torch.distributions.constraints.positive_integer,
    lambda torch: torch.distributions.constraints.dependent,
    lambda torch: torch.distributions.constraints.independent(
        torch.distributions.constraints.positive, 2),
    lambda torch: torch.distributions.Categorical.support,
    lambda torch: torch.distributions.Normal.arg_constraints,
    lambda torch: torch.distributions.Bernoulli.arg_constraints,
    lambda torch: torch.distributions.Categorical.arg_constraints,
    lambda torch: torch.distributions.Independent.arg_constraints,
]


@pytest.mark.parametrize("i", range(len(_REPRS)))
def test_repr(i):
    same_repr(_REPRS[i])


# ---- constraints -------------------------------------------------------------------------

_CHECKS = [
    lambda C, t: C.positive.check(t.tensor([1.0, -1.0, 0.0])),
    lambda C, t: C.nonnegative.check(t.tensor([1.0, -1.0, 0.0])),
    lambda C, t: C.real.check(t.tensor([1.0, float("nan"), float("inf")])),
    lambda C, t: C.simplex.check(t.tensor([[0.5, 0.5], [0.2, 0.2], [1.2, -0.2]])),
    lambda C, t: C.independent(C.positive, 1).check(t.tensor([[1.0, -1.0], [1.0, 2.0]])),
    lambda C, t: C.independent(C.positive, 1).check(t.tensor(1.0)),
    lambda C, t: C.independent(3, 1),
    lambda C, t: C.integer_interval(0, 3).check(t.tensor([0, 1.5, 3, 4])),
    lambda C, t: C.boolean.check(t.tensor([0.0, 1.0, 0.5])),
    lambda C, t: C.one_hot.check(t.tensor([[1, 0], [1, 1], [0, 0]])),
    lambda C, t: C.nonnegative_integer.check(t.tensor([0.0, 1.0, -1.0, 0.5])),
    lambda C, t: C.unit_interval.check(t.tensor([0.0, 1.0, -1.0, 0.5])),
    lambda C, t: C.interval(0.0, 2.0).check(t.tensor([0.0, 2.0, 2.5])),
    lambda C, t: C.half_open_interval(0.0, 2.0).check(t.tensor([0.0, 2.0, 1.5])),
    lambda C, t: C.greater_than(1.0).check(t.tensor([1.0, 2.0])),
    lambda C, t: C.less_than(1.0).check(t.tensor([1.0, 0.0])),
    lambda C, t: (C.positive.event_dim, C.simplex.event_dim, C.positive.is_discrete,
                  C.boolean.is_discrete, C.real_vector.event_dim,
                  C.independent(C.boolean, 2).is_discrete, C.one_hot.event_dim),
    lambda C, t: C.dependent.check(t.zeros(1)),
    lambda C, t: C.dependent.event_dim,
    lambda C, t: C.dependent.is_discrete,
    lambda C, t: (C.is_dependent(C.dependent), C.is_dependent(C.real),
                  C.dependent(is_discrete=True).is_discrete),
]


@pytest.mark.parametrize("i", range(len(_CHECKS)))
def test_constraints(i):
    check(lambda torch: _CHECKS[i](torch.distributions.constraints, torch))


# ---- validation ------------------------------------------------------------------------

def _D(torch):
    return torch.distributions


_ERRORS = [
    lambda t: _D(t).Normal(t.zeros(3), -t.ones(3)),
    lambda t: _D(t).Normal(0.0, -1.0),
    lambda t: _D(t).Normal(t.tensor(0.0), t.tensor(-1.0, requires_grad=True)),
    lambda t: _D(t).Normal(t.tensor([0.0, 1.0]), t.tensor([-1.0, 1.0])),
    lambda t: _D(t).Normal(t.tensor([float("nan")]), 1.0),
    lambda t: _D(t).Normal(t.zeros(3), t.ones(3)).log_prob(t.zeros(2)),
    lambda t: _D(t).Normal(t.zeros(3), t.ones(3)).log_prob([0.0, 0.0, 0.0]),
    lambda t: _D(t).Normal(t.zeros(3), t.ones(3)).cdf(t.zeros(4, 2)),
    lambda t: _D(t).Normal(0.0, 1.0).cdf([0.0]),
    lambda t: _D(t).Normal(t.zeros(3), t.ones(2)),
    lambda t: _D(t).Normal("a", 1.0),
    lambda t: _D(t).Bernoulli(probs=t.tensor([1.5, 0.5])),
    lambda t: _D(t).Bernoulli(probs=t.tensor([0.5]), logits=t.tensor([0.0])),
    lambda t: _D(t).Bernoulli(),
    lambda t: _D(t).Bernoulli(t.tensor([0.3])).log_prob(t.tensor([0.5])),
    lambda t: _D(t).Categorical(probs=t.tensor([0.5, -0.1])),
    lambda t: _D(t).Categorical(t.tensor(0.5)),
    lambda t: _D(t).Categorical(logits=t.tensor(0.5)),
    lambda t: _D(t).Categorical(),
    lambda t: _D(t).Categorical(t.tensor([0.5, 0.5])).log_prob(t.tensor([2])),
    lambda t: _D(t).Categorical(t.tensor([0.5, 0.5])).log_prob(t.tensor([0.5])),
    lambda t: _D(t).Categorical(logits=t.tensor([0.0, float("inf")])),
    lambda t: _D(t).Uniform(1.0, 0.0),
    lambda t: _D(t).Uniform(t.zeros(2), t.ones(2)).log_prob(t.tensor([0.5, 1.5])),
    lambda t: _D(t).Uniform(0.0, 1.0).cdf(t.tensor([-1.0, 0.5, 2.0])),
    lambda t: _D(t).Exponential(0.0),
    lambda t: _D(t).Exponential(2.0).cdf(t.tensor(-1.0)),
    lambda t: _D(t).Laplace(0.0, 0.0),
    lambda t: _D(t).OneHotCategorical(t.ones(3) / 3).log_prob(t.tensor([1.0, 1.0, 0.0])),
    lambda t: _D(t).OneHotCategorical(t.ones(3)).log_prob(t.zeros(2)),
    lambda t: _D(t).Independent(_D(t).Normal(t.zeros(2), t.ones(2)), 2),
    lambda t: _D(t).Independent(_D(t).Normal(t.zeros(2, 3), t.ones(2, 3)), 1).log_prob(
        t.zeros(3, 3)),
    lambda t: _D(t).Independent(_D(t).Bernoulli(t.ones(2) / 2), 1).enumerate_support(),
    lambda t: _D(t).Distribution.set_default_validate_args(2),
    lambda t: _D(t).Normal(0.0, 1.0).enumerate_support(),
    lambda t: _D(t).Normal(0.0, 1.0).sample(2),
    lambda t: _D(t).Normal(t.zeros(2), 1.0).expand((3,)),
]


@pytest.mark.parametrize("i", range(len(_ERRORS)))
def test_validation_errors(i):
    check(_ERRORS[i])


_EDGES = [
    lambda t: _D(t).Independent(_D(t).Bernoulli(t.ones(2) / 2), 1).log_prob(t.tensor([0.5, 1.0])),
    lambda t: _D(t).Independent(_D(t).Normal(t.zeros(2), 1.0), 1).log_prob(t.zeros(3)),
    lambda t: _D(t).Independent(_D(t).Normal(t.zeros(2), 1.0), 1,
                                validate_args=False).log_prob(t.zeros(1)),
    lambda t: _D(t).Exponential(1.0).icdf(t.tensor(2.0)),
    lambda t: _D(t).Categorical(logits=t.tensor([0.0, -float("inf")])).entropy(),
    lambda t: _D(t).Categorical(logits=t.tensor([0.0, -float("inf")])).log_prob(t.tensor(1)),
    lambda t: _D(t).Categorical(t.tensor([0.0, 1.0])).entropy(),
    lambda t: _D(t).Categorical(t.tensor([0.0, 1.0])).logits,
    lambda t: _D(t).Bernoulli(t.tensor([0.0, 1.0])).entropy(),
    lambda t: _D(t).Bernoulli(t.tensor([0.0, 1.0])).logits,
    lambda t: _D(t).Bernoulli(t.tensor([0.0, 1.0])).log_prob(t.tensor([0.0, 0.0])),
    lambda t: _D(t).Bernoulli(logits=t.tensor([-100.0, 100.0])).probs,
    lambda t: _D(t).Normal(0.0, 1.0).log_prob(t.tensor(1)),
    lambda t: _D(t).Normal(t.zeros(2, dtype=t.float64), 1).sample().dtype,
    lambda t: _D(t).Normal(0, 1).loc.dtype,
    lambda t: _D(t).Normal(t.tensor([1]), 2.0).loc.dtype,
    lambda t: _D(t).Normal(t.tensor([1.0], dtype=t.float64), t.tensor([2.0])).scale.dtype,
    lambda t: _D(t).Bernoulli(0.3).sample((3,)).dtype,
    lambda t: _D(t).Categorical(t.ones(3, dtype=t.float64)).mean,
    lambda t: _D(t).Uniform(t.tensor([0.0, 1.0]), 2.0).log_prob(t.tensor([1.5, 2.0])),
    lambda t: _D(t).Uniform(0.0, 1.0).log_prob(t.tensor(1.0)),
    lambda t: _D(t).Distribution().mean,
    lambda t: _D(t).Distribution(validate_args=False).mode,
    lambda t: _D(t).Distribution(t.Size([2])).batch_shape,
    lambda t: _D(t).Normal(0.0, 1.0).sample_n(2).shape,
    lambda t: _D(t).Categorical(t.ones(2, 3)).expand((4, 2)).sample().shape,
    lambda t: _D(t).Categorical(t.ones(2, 3)).expand((4, 2)).log_prob(t.tensor(1)),
    lambda t: _D(t).Bernoulli(t.ones(2) / 2).expand((4, 2)).probs.shape,
    lambda t: _D(t).OneHotCategorical(t.ones(2, 3)).expand((4, 2)).probs.shape,
    lambda t: _D(t).OneHotCategorical(t.ones(2, 3)).mode,
    lambda t: _D(t).Normal(t.zeros(2), 1.0).log_prob(t.zeros(3, 1)),
    lambda t: _D(t).Laplace(0.0, 1.0).icdf(t.tensor([0.0, 1.0])),
    lambda t: _D(t).Normal(0.0, 1.0).icdf(t.tensor([0.0, 1.0])),
    lambda t: _D(t).Exponential(t.tensor([1.0, 2.0])).expand((3, 2)).rate,
    lambda t: _D(t).Categorical(logits=t.tensor([[1.0, 2.0]])).probs,
    lambda t: _D(t).utils.probs_to_logits(t.tensor([0.2, 0.8]), is_binary=True),
    lambda t: _D(t).utils.logits_to_probs(t.tensor([0.2, 0.8])),
    lambda t: _D(t).utils.clamp_probs(t.tensor([0.0, 0.5, 1.0])),
    lambda t: _D(t).utils.broadcast_all(1.0, t.zeros(2, dtype=t.float64)),
    lambda t: _D(t).Bernoulli(probs=t.tensor(0.3)).batch_shape,
    lambda t: _D(t).OneHotCategorical(probs=t.tensor([0.5, -0.1])),
    lambda t: _D(t).OneHotCategorical(probs=t.tensor([0.5, -0.1]), validate_args=False).probs,
    lambda t: _D(t).OneHotCategorical(logits=t.tensor([0.5, float("inf")])),
    lambda t: _D(t).OneHotCategorical(),
    lambda t: _D(t).Categorical(t.tensor([[0.5, 0.5]])).log_prob(t.tensor([[1]])).shape,
    lambda t: [(type(getattr(_D(t), n).__dict__.get(a)).__name__,
                _D(t).constraints.is_dependent(getattr(getattr(_D(t), n), a)))
               for n in ("Normal", "Uniform", "Categorical", "Independent", "Bernoulli")
               for a in ("arg_constraints", "support")],
    lambda t: _D(t).constraints.simplex.check(t.tensor([0.5, 0.5 + 9e-7], dtype=t.float64)),
    lambda t: _D(t).constraints.simplex.check(t.tensor([0.5, 0.5 + 1.1e-6], dtype=t.float64)),
]


@pytest.mark.parametrize("i", range(len(_EDGES)))
def test_edge_cases(i):
    check(_EDGES[i])


def test_validate_args_false_and_default_switch():
    def f(torch):
        D = torch.distributions
        out = [D.Normal(0.0, -1.0, validate_args=False).log_prob(torch.tensor(0.0)),
               D.Bernoulli(torch.tensor([0.3]), validate_args=False).log_prob(
                   torch.tensor([0.5])),
               D.Normal(0.0, 1.0, validate_args=False)._validate_args,
               D.Normal(0.0, 1.0)._validate_args]
        D.Distribution.set_default_validate_args(False)
        try:
            out.append(D.Normal(0.0, -1.0).scale)
            out.append(D.Uniform(1.0, 0.0).low)
            out.append(D.Normal(0.0, 1.0)._validate_args)
            out.append(D.Distribution._validate_args)
            try:
                D.Normal(0.0, -1.0, validate_args=True)
            except ValueError as e:
                out.append(str(e))
        finally:
            D.Distribution.set_default_validate_args(True)
        out.append(D.Distribution._validate_args)
        return out
    check(f)


def test_user_subclass():
    """A user's own distribution on the base class: validation, repr, messages, sampling
    through rsample, perplexity from entropy."""
    def f(torch):
        D = torch.distributions

        class Shifted(D.Distribution):
            arg_constraints = {"rate": D.constraints.positive}
            support = D.constraints.greater_than(1.0)
            has_rsample = True

            def __init__(self, rate, validate_args=None):
                self.rate = rate
                super().__init__(rate.shape, validate_args=validate_args)

            def rsample(self, sample_shape=torch.Size()):
                shape = self._extended_shape(sample_shape)
                return 1.0 + torch.zeros(shape) * self.rate

            def log_prob(self, value):
                if self._validate_args:
                    self._validate_sample(value)
                return self.rate.log() - self.rate * (value - 1.0)

            def entropy(self):
                return 1.0 - self.rate.log()

        rate = torch.tensor([0.5, 2.0], requires_grad=True)
        d = Shifted(rate)
        out = [repr(d), d.sample((3,)).shape, d.sample().requires_grad,
               d.rsample().requires_grad, d.perplexity(), d.log_prob(torch.tensor([1.5, 2.0])),
               d.batch_shape, d.event_shape]
        for bad in (lambda: Shifted(torch.tensor([-1.0])),
                    lambda: d.log_prob(torch.tensor([0.5, 2.0])),
                    lambda: d.mode, lambda: d.cdf(torch.tensor(1.0)),
                    lambda: d.enumerate_support()):
            try:
                bad()
            except (ValueError, NotImplementedError) as e:
                out.append((type(e).__name__, str(e)))
        return out
    check(f)


def test_missing_distributions_raise_not_available():
    D = torchlike.distributions
    with pytest.raises(NotImplementedError,
                       match="torch.distributions.VonMises is not available"):
        D.VonMises(0.0, 1.0)
    assert not hasattr(D, "Wishart")
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        D.Nope


def test_module_layout_as_torch():
    """The submodules PyTorch has (normal, categorical, kl, constraints, ...) hold the same
    objects as the package."""
    def f(torch):
        D = torch.distributions
        return (D.normal.Normal is D.Normal, D.categorical.Categorical is D.Categorical,
                D.bernoulli.Bernoulli is D.Bernoulli, D.uniform.Uniform is D.Uniform,
                D.independent.Independent is D.Independent,
                D.one_hot_categorical.OneHotCategorical is D.OneHotCategorical,
                D.exponential.Exponential is D.Exponential, D.laplace.Laplace is D.Laplace,
                D.distribution.Distribution is D.Distribution,
                D.kl.kl_divergence is D.kl_divergence, D.kl.register_kl is D.register_kl,
                D.Normal.__name__, D.Normal.has_rsample, D.Categorical.has_enumerate_support,
                issubclass(D.Laplace, D.Distribution), D.Normal.__module__.split(".")[-1])
    check(f)
