"""KL divergences between pairs of distributions: a registry keyed by the two classes, looked
up by the most specific registered pair in the classes' MROs."""
import math

import torchlike as _t
from torchlike.distributions.bernoulli import Bernoulli
from torchlike.distributions.categorical import Categorical
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.exponential import Exponential
from torchlike.distributions.independent import Independent
from torchlike.distributions.laplace import Laplace
from torchlike.distributions.normal import Normal
from torchlike.distributions.one_hot_categorical import OneHotCategorical
from torchlike.distributions.uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_REGISTRY = {}
_LOOKUP_CACHE = {}

# PyTorch treats these as exponential families: a pair of two different ones with no registered
# formula ends in its Bregman-divergence fallback, which refuses
_EXP_FAMILIES = (Normal, Bernoulli, Exponential)


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
        if tp is not tq and tp in _EXP_FAMILIES and tq in _EXP_FAMILIES:
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
