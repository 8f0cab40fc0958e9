"""Constraints: objects saying where a parameter or a value may lie, with `check(value)` giving
a boolean tensor over the batch. Reprs as PyTorch prints them."""
import torchlike as _t

__all__ = ["Constraint", "boolean", "corr_cholesky", "dependent", "dependent_property",
           "greater_than", "greater_than_eq", "half_open_interval", "independent",
           "integer_interval", "interval", "is_dependent", "less_than", "lower_cholesky",
           "lower_triangular", "multinomial", "nonnegative", "nonnegative_integer", "one_hot",
           "positive", "positive_definite", "positive_integer", "positive_semidefinite", "real",
           "real_vector", "simplex", "square", "symmetric", "unit_interval"]


def _fmt(bound):
    if isinstance(bound, _t.Tensor):
        return f"{bound}"
    return repr(bound)


class Constraint:
    """Base class. `event_dim` is how many rightmost dims one check covers; `is_discrete`
    whether the set is countable."""
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """A placeholder for a constraint that depends on other parameters."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._discrete = is_discrete
        self._dim = event_dim

    @property
    def is_discrete(self):
        if self._discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._discrete

    @property
    def event_dim(self):
        if self._dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        if is_discrete is NotImplemented:
            is_discrete = self._discrete
        if event_dim is NotImplemented:
            event_dim = self._dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")

    def __repr__(self):
        return "Dependent()"


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property whose class-level value reads as a dependent constraint."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._discrete, event_dim=self._dim)

    def __repr__(self):
        return "DependentProperty()"


def dependent_property(fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
    return _DependentProperty(fn, is_discrete=is_discrete, event_dim=event_dim)


class _IndependentConstraint(Constraint):
    """`base` checked elementwise, then all() over `reinterpreted_batch_ndims` more dims."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        ok = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if n == 0:
            return ok
        if ok.dim() < n:
            expected = self.base_constraint.event_dim + n
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        return ok.reshape(ok.shape[:ok.dim() - n] + (-1,)).all(-1)

    def __repr__(self):
        return (f"IndependentConstraint({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        binary = ((value == 0) | (value == 1)).all(-1)
        return binary & (value.sum(-1) == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return ((value % 1) == 0) & (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self):
        return (f"IntegerInterval(lower_bound={_fmt(self.lower_bound)}, "
                f"upper_bound={_fmt(self.upper_bound)})")


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return ((value % 1) == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={_fmt(self.lower_bound)})"


class _Real(Constraint):
    def check(self, value):
        return value == value  # false only at NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return value > self.lower_bound

    def __repr__(self):
        return f"GreaterThan(lower_bound={_fmt(self.lower_bound)})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return value >= self.lower_bound

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={_fmt(self.lower_bound)})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={_fmt(self.upper_bound)})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self):
        return (f"Interval(lower_bound={_fmt(self.lower_bound)}, "
                f"upper_bound={_fmt(self.upper_bound)})")


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)

    def __repr__(self):
        return "HalfOpen" + super().__repr__()


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        nonneg = (value >= 0).all(-1)
        return nonneg & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Nonnegative counts summing to at most `upper_bound` (over the last dim)."""
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


# ---- matrices (event_dim 2) ------------------------------------------------------------

def _all_entries(ok):
    """all() over the two matrix dims."""
    return ok.all(-1).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _all_entries(value.tril() == value)


class _LowerCholesky(Constraint):
    """Lower triangular with a positive diagonal."""
    event_dim = 2

    def check(self, value):
        lower = _all_entries(value.tril() == value)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """A lower Cholesky factor whose rows have unit norm (of a correlation matrix)."""
    event_dim = 2

    def check(self, value):
        tol = _t.finfo(value.dtype).eps * value.size(-1) * 10
        norms = _t.linalg.norm(value.detach(), dim=-1)
        return _LowerCholesky().check(value) & ((norms - 1.0).abs() <= tol).all(-1)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return _t.full(value.shape[:-2], value.shape[-2] == value.shape[-1], dtype=_t.bool,
                       device=value.device)


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        return _all_entries(_t.isclose(value, value.mT, atol=1e-6))


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return (_t.linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return _t.linalg.cholesky_ex(value).info == 0


dependent = _Dependent()
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
multinomial = _Multinomial
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
