"""TransformedDistribution(base_distribution, transforms): the law of `t_n(...t_1(x))` for x
drawn from the base; log_prob by the change of variables, cdf/icdf through monotone
transforms."""
import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.independent import Independent
from torchlike.distributions.transforms import ComposeTransform, Transform, _sum_rightmost

__all__ = ["TransformedDistribution"]


def _as_transform_list(transforms):
    if isinstance(transforms, Transform):
        return [transforms]
    if isinstance(transforms, list):
        if not all(isinstance(t, Transform) for t in transforms):
            raise ValueError("transforms must be a Transform or a list of Transforms")
        return transforms
    raise ValueError(f"transforms must be a Transform or list, but was {transforms}")


class TransformedDistribution(Distribution):
    """Mirrors `torch.distributions.TransformedDistribution`."""

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        self.transforms = _as_transform_list(transforms)
        chain = ComposeTransform(self.transforms)
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError("base_distribution needs to have shape with size at least "
                             f"{chain.domain.event_dim}, but got {base_shape}.")
        shape = chain.forward_shape(base_shape)
        # the transforms' parameters may broadcast the base to a larger batch
        needed = chain.inverse_shape(shape)
        if needed != base_shape:
            base_distribution = base_distribution.expand(
                needed[:len(needed) - base_event_dim])
        extra = chain.domain.event_dim - base_event_dim
        if extra > 0:
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution
        event_dim = max(chain.codomain.event_dim,
                        base_event_dim + chain.codomain.event_dim - chain.domain.event_dim)
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        shape = batch_shape + self._event_shape
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_event = len(self.base_dist.event_shape)
        new.base_dist = self.base_dist.expand(shape[:len(shape) - base_event])
        new.transforms = self.transforms
        return self._finish_expand(new, batch_shape)

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self._event_shape) > support.event_dim:
            support = constraints.independent(support,
                                              len(self._event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def sample(self, sample_shape=_t.Size()):
        with _t.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=_t.Size()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        self._maybe_validate(value)
        event_dim = len(self._event_shape)
        out = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            out = out - _sum_rightmost(t.log_abs_det_jacobian(x, y),
                                       event_dim - t.domain.event_dim)
            y = x
        return out + _sum_rightmost(self.base_dist.log_prob(y),
                                    event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """The base's cdf read through the transforms: flipped where they decrease."""
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value
