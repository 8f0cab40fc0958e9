"""StudentT(df, loc=0., scale=1.): heavy-tailed, a Normal over the root of a scaled Chi2."""
import math

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.chi2 import Chi2
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.elementwise import Elementwise
from torchlike.distributions.utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Elementwise):
    """Mirrors `torch.distributions.StudentT`. `rsample` draws its normal as PyTorch does,
    but its Chi2 through torchlike's gamma sampler, so the values are not PyTorch's."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _params = ("df", "loc", "scale")

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        Distribution.__init__(self, self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self):
        return _t.where(self.df > 1, self.loc, _t.full_like(self.loc, math.nan))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        undefined = _t.where(df > 1, _t.full_like(df, math.inf), _t.full_like(df, math.nan))
        return _t.where(df > 2, finite, undefined)

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        x = _t.randn(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * _t.rsqrt(z / self.df)

    def log_prob(self, value):
        self._maybe_validate(value)
        df = self.df
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi)
                    + _t.lgamma(0.5 * df) - _t.lgamma(0.5 * (df + 1.0)))
        return -0.5 * (df + 1.0) * _t.log1p(y.pow(2) / df) - log_norm

    def entropy(self):
        df = self.df
        half_up = 0.5 * (df + 1)
        log_beta = _t.lgamma(0.5 * df) + math.lgamma(0.5) - _t.lgamma(half_up)
        return (self.scale.log() + half_up * (_t.digamma(half_up) - _t.digamma(0.5 * df))
                + 0.5 * df.log() + log_beta)
