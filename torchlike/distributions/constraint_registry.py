"""`biject_to` and `transform_to`: registries from a constraint to a transform taking
unconstrained reals onto it (`biject_to`'s are bijective; `transform_to`'s need only reach the
set). Keyed by the constraint's class; `register` adds or replaces a factory."""
import numbers

from torchlike.distributions import constraints
from torchlike.distributions import transforms as T

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Mirrors `torch.distributions.constraint_registry.ConstraintRegistry`."""

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        """`register(C, factory)`, or as a decorator `@register(C)`; `C` a Constraint
        subclass or instance, `factory(constraint) -> Transform`."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                              constraints.Constraint):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(constraint):
    def decorate(factory):
        biject_to.register(constraint, factory)
        transform_to.register(constraint, factory)
        return factory
    return decorate


@_both(constraints.real)
def _to_real(constraint):
    return T.identity_transform


def _independent_factory(registry):
    """The base constraint's transform from the same registry, read over more dims."""
    def factory(constraint):
        return T.IndependentTransform(registry(constraint.base_constraint),
                                      constraint.reinterpreted_batch_ndims)
    return factory


biject_to.register(constraints.independent, _independent_factory(biject_to))
transform_to.register(constraints.independent, _independent_factory(transform_to))


@_both(constraints.positive)
@_both(constraints.nonnegative)
def _to_above(constraint):
    return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(constraint.lower_bound, 1)])


@_both(constraints.less_than)
def _to_below(constraint):
    return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(constraint.upper_bound, -1)])


@_both(constraints.interval)
@_both(constraints.half_open_interval)
def _to_interval(constraint):
    lo, hi = constraint.lower_bound, constraint.upper_bound
    if (isinstance(lo, numbers.Number) and lo == 0 and isinstance(hi, numbers.Number)
            and hi == 1):
        return T.SigmoidTransform()
    return T.ComposeTransform([T.SigmoidTransform(), T.AffineTransform(lo, hi - lo)])


biject_to.register(constraints.simplex, lambda c: T.StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: T.SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda c: T.LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda c: T.PositiveDefiniteTransform())
transform_to.register(constraints.positive_semidefinite,
                      lambda c: T.PositiveDefiniteTransform())
