"""KL divergences between pairs of distributions: a registry keyed by the two classes, looked
up by the most specific registered pair in the classes' MROs."""
import math

import torchlike as _t
from torchlike.distributions.bernoulli import Bernoulli
from torchlike.distributions.beta import Beta
from torchlike.distributions.binomial import Binomial
from torchlike.distributions.categorical import Categorical
from torchlike.distributions.cauchy import Cauchy
from torchlike.distributions.dirichlet import Dirichlet
from torchlike.distributions.exponential import Exponential
from torchlike.distributions.gamma import Gamma
from torchlike.distributions.geometric import Geometric
from torchlike.distributions.gumbel import _EULER, Gumbel
from torchlike.distributions.half_normal import HalfNormal
from torchlike.distributions.independent import Independent
from torchlike.distributions.laplace import Laplace
from torchlike.distributions.lowrank_multivariate_normal import (
    LowRankMultivariateNormal, lowrank_inverse_quadratic, lowrank_log_det)
from torchlike.distributions.multivariate_normal import (
    MultivariateNormal, half_log_det)
from torchlike.distributions.normal import Normal
from torchlike.distributions.one_hot_categorical import OneHotCategorical
from torchlike.distributions.poisson import Poisson
from torchlike.distributions.transformed_distribution import TransformedDistribution
from torchlike.distributions.uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_REGISTRY = {}
_LOOKUP_CACHE = {}

# PyTorch treats these as exponential families: a pair of two different ones with no registered
# formula ends in its Bregman-divergence fallback, which refuses
_EXP_FAMILIES = (Normal, Bernoulli, Exponential, Gamma, Beta, Dirichlet, Poisson)


def register_kl(type_p, type_q):
    """Decorator: `@register_kl(P, Q) def kl(p, q): ...` makes `kl_divergence` use it for
    instances of P and Q (and subclasses, when no more specific pair is registered)."""
    for t in (type_p, type_q):
        if not isinstance(t, type):
            raise TypeError("issubclass() arg 1 must be a class")

    def decorator(fn):
        _REGISTRY[type_p, type_q] = fn
        _LOOKUP_CACHE.clear()
        return fn
    return decorator


def _lookup(tp, tq):
    key = (tp, tq)
    if key not in _LOOKUP_CACHE:
        best, best_rank = None, None
        mro_p, mro_q = tp.__mro__, tq.__mro__
        for (rp, rq), fn in _REGISTRY.items():
            if rp in mro_p and rq in mro_q:
                rank = (mro_p.index(rp), mro_q.index(rq))
                if best_rank is None or rank < best_rank:
                    best, best_rank = fn, rank
        _LOOKUP_CACHE[key] = best
    return _LOOKUP_CACHE[key]


def kl_divergence(p, q):
    """KL(p || q), batched over the two distributions' batch shapes."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        tp, tq = type(p), type(q)
        if tp is not tq and issubclass(tp, _EXP_FAMILIES) and issubclass(tq, _EXP_FAMILIES):
            raise NotImplementedError(
                "The cross KL-divergence between different exponential families cannot"
                "                             be computed using Bregman divergences")
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {tp.__name__} "
                                  f"and q type {tq.__name__}")
    return fn(p, q)


def _inf_like(x):
    return _t.full_like(x, math.inf)


@register_kl(Normal, Normal)
def _kl_normal(p, q):
    ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (ratio + shift - 1 - ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli(p, q):
    sp = _t.nn.functional.softplus
    ones = p.probs * (sp(-q.logits) - sp(-p.logits))  # p log(p/q)
    ones = _t.where(q.probs == 0, _inf_like(ones), ones)
    ones = _t.where(p.probs == 0, _t.zeros_like(ones), ones)
    zeros = (1 - p.probs) * (sp(q.logits) - sp(p.logits))  # (1-p) log((1-p)/(1-q))
    zeros = _t.where(q.probs == 1, _inf_like(zeros), zeros)
    zeros = _t.where(p.probs == 1, _t.zeros_like(zeros), zeros)
    return ones + zeros


@register_kl(Categorical, Categorical)
def _kl_categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    terms = _t.where((q.probs == 0).expand_as(terms), _inf_like(terms), terms)
    terms = _t.where((p.probs == 0).expand_as(terms), _t.zeros_like(terms), terms)
    return terms.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_one_hot(p, q):
    return _kl_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform(p, q):
    out = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low > p.low) | (q.high < p.high)
    return _t.where(outside, _inf_like(out), out)


@register_kl(Exponential, Exponential)
def _kl_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Independent, Independent)
def _kl_independent(p, q):
    n = p.reinterpreted_batch_ndims
    if n != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    out = kl_divergence(p.base_dist, q.base_dist)
    if n == 0:
        return out
    return out.reshape(out.shape[:out.dim() - n] + (-1,)).sum(-1)


# ---- pairs across families (closed forms: E_p[log p] - E_p[log q]) ----------------------

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _infinite(param_of_p):
    """KL is infinite when p puts mass where q has none; no gradient, p's batch shape."""
    return _t.full_like(param_of_p.detach(), math.inf)


@register_kl(Normal, Uniform)
@register_kl(Normal, Exponential)
def _kl_normal_bounded(p, q):
    return _infinite(p.loc)


@register_kl(Laplace, Uniform)
@register_kl(Laplace, Exponential)
def _kl_laplace_bounded(p, q):
    return _infinite(p.loc)


@register_kl(Exponential, Uniform)
def _kl_exponential_uniform(p, q):
    return _infinite(p.rate)


def _neg_log_normal_expectation(q, second_moment):
    """E_p[-log q(x)] for q Normal, from E_p[(x - q.loc)^2]."""
    return q.scale.log() + _HALF_LOG_2PI + second_moment / (2 * q.scale.pow(2))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    d = p.loc - q.loc
    # E|x - q.loc| for x ~ p: the mean of a folded normal
    abs_mean = (p.scale * math.sqrt(2 / math.pi) * _t.exp(-d.pow(2) / (2 * p.scale.pow(2)))
                + d * _t.erf(d / (p.scale * math.sqrt(2))))
    neg_entropy = -0.5 - _HALF_LOG_2PI - p.scale.log()
    return neg_entropy + _t.log(2 * q.scale) + abs_mean / q.scale


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    second = ((p.high - q.loc).pow(3) - (p.low - q.loc).pow(3)) / (3 * width)
    return -width.log() + _neg_log_normal_expectation(q, second)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    out = -(p.high - p.low).log() - q.rate.log() + q.rate * (p.high + p.low) / 2
    return _t.where(p.low < 0, _inf_like(out), out)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    inv = p.rate.reciprocal()
    second = 2 * inv.pow(2) - 2 * q.loc * inv + q.loc.pow(2)
    return p.rate.log() - 1 + _neg_log_normal_expectation(q, second)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    second = 2 * p.scale.pow(2) + (p.loc - q.loc).pow(2)
    return -1 - _t.log(2 * p.scale) + _neg_log_normal_expectation(q, second)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    ratio = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -ratio.log() + gap / q.scale + ratio * _t.exp(-gap / p.scale) - 1


# ---- the gamma family, Beta, Dirichlet ----------------------------------------------------
# notation: psi = digamma; for Beta(a, b), E[log x] = psi(a) - psi(a + b)

@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    a, b, c, d = p.concentration, p.rate, q.concentration, q.rate
    return (c * (b / d).log() + _t.lgamma(c) - _t.lgamma(a) + (a - c) * _t.digamma(a)
            + (d - b) * (a / b))


def _log_beta(a, b):
    return _t.lgamma(a) + _t.lgamma(b) - _t.lgamma(a + b)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    a1, b1, a2, b2 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    return (_log_beta(a2, b2) - _log_beta(a1, b1) + (a1 - a2) * _t.digamma(a1)
            + (b1 - b2) * _t.digamma(b1) + (a2 - a1 + b2 - b1) * _t.digamma(a1 + b1))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    total = a.sum(-1)
    return (_t.lgamma(total) - _t.lgamma(b.sum(-1)) - _t.lgamma(a).sum(-1)
            + _t.lgamma(b).sum(-1)
            + ((a - b) * (_t.digamma(a) - _t.digamma(total).unsqueeze(-1))).sum(-1))


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    c = q.concentration
    return -c * ratio.log() + ratio + _t.lgamma(c) + c * _EULER - (1 + _EULER)


@register_kl(Gamma, Exponential)
@register_kl(Beta, Exponential)
def _kl_to_exponential(p, q):
    """-H(p) - E_p[log rate - rate x]: only p's mean and entropy enter."""
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Gamma, Normal)
@register_kl(Beta, Normal)
@register_kl(Gumbel, Normal)
def _kl_to_normal(p, q):
    """-H(p) - E_p[log q]: only p's entropy and first two moments enter."""
    second = p.variance + (p.mean - q.loc).pow(2)
    return -p.entropy() + _neg_log_normal_expectation(q, second)


def _beta_mean_log(p):
    """E[log x] for x ~ p, a Beta."""
    return _t.digamma(p.concentration1) - _t.digamma(p.concentration1 + p.concentration0)


def _neg_log_gamma_expectation(q, mean, mean_log):
    """E_p[-log q(x)] for q Gamma, from E_p[x] and E_p[log x]."""
    c = q.concentration
    return -c * q.rate.log() + _t.lgamma(c) - (c - 1) * mean_log + q.rate * mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    return -p.entropy() + _neg_log_gamma_expectation(q, p.mean, _beta_mean_log(p))


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    out = (q.high - q.low).log() - p.entropy()
    return _t.where((q.low > 0) | (q.high < 1), _inf_like(out), out)


@register_kl(Normal, Beta)
@register_kl(Normal, Gamma)
@register_kl(Laplace, Beta)
@register_kl(Laplace, Gamma)
@register_kl(Gumbel, Beta)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Gamma)
@register_kl(Gumbel, Uniform)
def _kl_loc_to_bounded(p, q):
    return _infinite(p.loc)


@register_kl(Exponential, Beta)
def _kl_exponential_beta(p, q):
    return _infinite(p.rate)


@register_kl(Gamma, Beta)
@register_kl(Gamma, Uniform)
def _kl_gamma_bounded(p, q):
    return _infinite(p.concentration)


# ---- Uniform onto the gamma family and Beta: E[log x] over [low, high] ---------------------

def _x_log_x(x):
    return _t.xlogy(x, x)


def _uniform_mean_log(low, high):
    """E[log x] for x uniform on [low, high]: the antiderivative x log x - x."""
    return (_x_log_x(high) - _x_log_x(low)) / (high - low) - 1


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    out = -(p.high - p.low).log() + _neg_log_gamma_expectation(
        q, (p.high + p.low) / 2, _uniform_mean_log(p.low, p.high))
    return _t.where(p.low < 0, _inf_like(out), out)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    a, b = q.concentration1, q.concentration0
    out = (-(p.high - p.low).log() + _log_beta(a, b)
           - (a - 1) * _uniform_mean_log(p.low, p.high)
           - (b - 1) * _uniform_mean_log(1 - p.high, 1 - p.low))
    return _t.where((p.high > 1) | (p.low < 0), _inf_like(out), out)


# ---- Gumbel: log q(x) = -log s + z - exp(z), z = (loc - x) / s -----------------------------

def _neg_log_gumbel_expectation(q, mean, log_mgf):
    """E_p[-log q(x)] for q Gumbel, from E_p[x] and log E_p[exp(-x / q.scale)]."""
    return q.scale.log() - (q.loc - mean) / q.scale + _t.exp(q.loc / q.scale + log_mgf)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ratio = p.scale / q.scale
    log_mgf = -p.loc / q.scale + _t.lgamma(1 + ratio)
    return -p.entropy() + _neg_log_gumbel_expectation(q, p.mean, log_mgf)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    log_mgf = -p.loc / q.scale + 0.5 * (p.scale / q.scale).pow(2)
    return -p.entropy() + _neg_log_gumbel_expectation(q, p.loc, log_mgf)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    rs = p.rate * q.scale
    log_mgf = (rs / (rs + 1)).log()
    return -p.entropy() + _neg_log_gumbel_expectation(q, p.mean, log_mgf)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    log_mgf = -p.concentration * _t.log1p((p.rate * q.scale).reciprocal())
    return -p.entropy() + _neg_log_gumbel_expectation(q, p.mean, log_mgf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    width = p.high - p.low
    # E exp(-x / s) = s (exp(-low / s) - exp(-high / s)) / width
    log_mgf = ((_t.exp(-p.low / q.scale) - _t.exp(-p.high / q.scale)) * q.scale / width).log()
    return -width.log() + _neg_log_gumbel_expectation(q, p.mean, log_mgf)


# ---- other scalar pairs ------------------------------------------------------------------

@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    spread = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (spread / (4 * p.scale * q.scale)).log()


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    ratio = (p.scale / q.scale).pow(2)
    return 0.5 * (ratio - 1 - ratio.log())


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # E_p[k] = 1/p - 1 failures, each log(1 - q), then one log q
    return -p.entropy() - _t.log1p(-q.probs) / p.probs - q.logits


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_bounded(p, q):
    return _infinite(p.rate)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    per_trial = (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    out = p.total_count * per_trial
    return _t.where(p.total_count > q.total_count, _inf_like(out), out)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


# ---- Gaussians on R^k: 0.5 (tr(S_q^-1 S_p) + m^T S_q^-1 m - k + log det S_q - log det S_p) --

def _cov_root(d):
    """A k x r matrix R with R R^T the covariance of `d`."""
    if isinstance(d, MultivariateNormal):
        return d._unbroadcasted_scale_tril
    return _t.cat([d._unbroadcasted_cov_factor, _t.diag_embed(d._unbroadcasted_cov_diag.sqrt())],
                  -1)


def _inv_quad(q, x):
    """sum over the columns of matrix x of x^T S_q^-1 x."""
    if isinstance(q, MultivariateNormal):
        low = q._unbroadcasted_scale_tril
        return _t.linalg.solve_triangular(low, x, upper=False).pow(2).sum((-2, -1))
    w, d = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    return lowrank_inverse_quadratic(w, d, q._capacitance_tril, x)


def _log_det(d):
    if isinstance(d, MultivariateNormal):
        return 2 * half_log_det(d._unbroadcasted_scale_tril)
    w, c = d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag
    return lowrank_log_det(w, c, d._capacitance_tril)


def _gaussian_kl(p, q, low_rank):
    if p.event_shape != q.event_shape:
        kind = "(Low Rank) " if low_rank else ""
        raise ValueError(f"KL-divergence between two {kind}Multivariate Normals with"
                         "                          different event shapes cannot be computed")
    k = p.event_shape[0]
    shift = (q.loc - p.loc).unsqueeze(-1)
    return 0.5 * (_inv_quad(q, _cov_root(p)) + _inv_quad(q, shift) - k
                  + _log_det(q) - _log_det(p))


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    return _gaussian_kl(p, q, low_rank=False)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_gaussians(p, q):
    return _gaussian_kl(p, q, low_rank=True)
