"""MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
the Gaussian on R^k, held by the lower Cholesky factor L of its covariance (L L^T)."""
import math

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.utils import lazy_property

__all__ = ["MultivariateNormal"]

_LOG_2PI = math.log(2 * math.pi)


def batch_mv(matrix, vector):
    """matrix @ vector over broadcast batch dims."""
    return _t.matmul(matrix, vector.unsqueeze(-1)).squeeze(-1)


def inverse_quadratic(scale_tril, x):
    """x^T (L L^T)^-1 x for vectors x (last dim), batches broadcast."""
    y = _t.linalg.solve_triangular(scale_tril, x.unsqueeze(-1), upper=False)
    return y.squeeze(-1).pow(2).sum(-1)


def half_log_det(scale_tril):
    """log det(L L^T) / 2."""
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def precision_to_scale_tril(precision):
    """L with L L^T = P^-1 from P's Cholesky factor in reversed order: flipping rows and
    columns, chol(J P J) = J U J for the upper factor U of P = U U^T, and L = U^-T."""
    upper = _t.linalg.cholesky(precision.flip((-2, -1))).flip((-2, -1))
    eye = _t.eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return _t.linalg.solve_triangular(upper.mT, eye, upper=False)


def _check_matrix(name, m, what=""):
    if m.dim() < 2:
        raise ValueError(f"{name}{what} must be at least two-dimensional, with optional "
                         "leading batch dimensions")


class MultivariateNormal(Distribution):
    """Mirrors `torch.distributions.MultivariateNormal` (rsample as PyTorch's: loc + L eps
    with eps from `randn`, so seeded samples agree)."""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = {"covariance_matrix": covariance_matrix, "precision_matrix": precision_matrix,
                 "scale_tril": scale_tril}
        given = {k: v for k, v in given.items() if v is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        ((name, matrix),) = given.items()
        _check_matrix(name, matrix, " matrix" if name == "scale_tril" else "")
        batch = _t.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch + (-1, -1)))
        self.loc = loc.expand(batch + (-1,))
        super().__init__(batch, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = _t.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        square = batch_shape + self._event_shape + self._event_shape
        new.loc = self.loc.expand(batch_shape + self._event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(square))
        return self._finish_expand(new, batch_shape)

    def _square(self, m):
        return m.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._square(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        low = self._unbroadcasted_scale_tril
        return self._square(low @ low.mT)

    @lazy_property
    def precision_matrix(self):
        return self._square(_t.cholesky_inverse(self._unbroadcasted_scale_tril))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        eps = _t.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        self._maybe_validate(value)
        low = self._unbroadcasted_scale_tril
        quad = inverse_quadratic(low, value - self.loc)
        return -0.5 * (self._event_shape[0] * _LOG_2PI + quad) - half_log_det(low)

    def entropy(self):
        k = self._event_shape[0]
        out = 0.5 * k * (1.0 + _LOG_2PI) + half_log_det(self._unbroadcasted_scale_tril)
        return out if len(self._batch_shape) == 0 else out.expand(self._batch_shape)
