"""Independent(base_distribution, reinterpreted_batch_ndims): the base's rightmost batch dims
read as event dims (log_prob and entropy summed over them)."""
import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution

__all__ = ["Independent"]


def _sum_last(x, n):
    if n == 0:
        return x
    return x.reshape(x.shape[:x.dim() - n] + (-1,)).sum(-1)


class Independent(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n = reinterpreted_batch_ndims
        if n > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {n} vs {len(base_distribution.batch_shape)}")
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        full = base_distribution.batch_shape + base_distribution.event_shape
        split = len(base_distribution.batch_shape) - n
        super().__init__(full[:split], full[split:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        n = self.reinterpreted_batch_ndims
        new.base_dist = self.base_dist.expand(batch_shape + self._event_shape[:n])
        new.reinterpreted_batch_ndims = n
        return self._finish_expand(new, batch_shape)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        s = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            s = constraints.independent(s, self.reinterpreted_batch_ndims)
        return s

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=_t.Size()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=_t.Size()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_last(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_last(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
