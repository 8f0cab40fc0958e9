"""LowRankMultivariateNormal(loc, cov_factor, cov_diag): the Gaussian with covariance
W W^T + diag(D) (W = cov_factor, k x m), computed through the m x m capacitance matrix
I + W^T D^-1 W (Woodbury's identity and the matrix determinant lemma)."""
import math

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution
from torchlike.distributions.multivariate_normal import batch_mv
from torchlike.distributions.utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]

_LOG_2PI = math.log(2 * math.pi)


def capacitance_tril(factor, diag):
    """The Cholesky factor C of I + W^T D^-1 W."""
    m = factor.shape[-1]
    inner = (factor.mT / diag.unsqueeze(-2)) @ factor
    return _t.linalg.cholesky(inner + _t.eye(m, dtype=factor.dtype, device=factor.device))


def lowrank_log_det(factor, diag, cap_tril):
    """log det(W W^T + D) = log det(C C^T) + sum(log D)."""
    return 2 * cap_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + diag.log().sum(-1)


def lowrank_inverse_quadratic(factor, diag, cap_tril, x):
    """sum over the columns of matrix x of x^T (W W^T + D)^-1 x (Woodbury)."""
    projected = _t.linalg.solve_triangular(cap_tril, factor.mT @ (x / diag.unsqueeze(-1)),
                                           upper=False)
    return (x.pow(2) / diag.unsqueeze(-1)).sum((-2, -1)) - projected.pow(2).sum((-2, -1))


class LowRankMultivariateNormal(Distribution):
    """Mirrors `torch.distributions.LowRankMultivariateNormal` (rsample as PyTorch's:
    randn for the factor's noise, then randn for the diagonal's)."""

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            batch = _t.broadcast_shapes(loc.shape[:-1], cov_factor.shape[:-2],
                                        cov_diag.shape[:-1])
        except RuntimeError:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from None
        self.loc = loc.expand(batch + event_shape)
        self.cov_factor = cov_factor.expand(batch + cov_factor.shape[-2:])
        self.cov_diag = cov_diag.expand(batch + event_shape)
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._new_instance(_instance)
        batch_shape = _t.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape + self._event_shape)
        new.cov_factor = self.cov_factor.expand(batch_shape + self.cov_factor.shape[-2:])
        new.cov_diag = self.cov_diag.expand(batch_shape + self._event_shape)
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return self._finish_expand(new, batch_shape)

    @property
    def _parts(self):
        return self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag

    def _square(self, m):
        return m.expand(self._batch_shape + self._event_shape + self._event_shape)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        w, d = self._parts
        return (w.pow(2).sum(-1) + d).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        # W W^T + D = D^1/2 (I + D^-1/2 W W^T D^-1/2) D^1/2
        w, d = self._parts
        root = d.sqrt().unsqueeze(-1)
        scaled = w / root
        eye = _t.eye(d.shape[-1], dtype=d.dtype, device=d.device)
        return self._square(root * _t.linalg.cholesky(scaled @ scaled.mT + eye))

    @lazy_property
    def covariance_matrix(self):
        w, d = self._parts
        return self._square(w @ w.mT + _t.diag_embed(d))

    @lazy_property
    def precision_matrix(self):
        # Woodbury: D^-1 - A^T A with A = C^-1 W^T D^-1
        w, d = self._parts
        a = _t.linalg.solve_triangular(self._capacitance_tril, w.mT / d.unsqueeze(-2),
                                       upper=False)
        return self._square(_t.diag_embed(d.reciprocal()) - a.mT @ a)

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        w, d = self._parts
        eps_w = _t.randn(shape[:-1] + w.shape[-1:], dtype=self.loc.dtype,
                         device=self.loc.device)
        eps_d = _t.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + batch_mv(w, eps_w) + d.sqrt() * eps_d

    def _log_det(self):
        w, d = self._parts
        return lowrank_log_det(w, d, self._capacitance_tril)

    def log_prob(self, value):
        self._maybe_validate(value)
        w, d = self._parts
        quad = lowrank_inverse_quadratic(w, d, self._capacitance_tril,
                                         (value - self.loc).unsqueeze(-1))
        return -0.5 * (self._event_shape[0] * _LOG_2PI + self._log_det() + quad)

    def entropy(self):
        out = 0.5 * (self._event_shape[0] * (1.0 + _LOG_2PI) + self._log_det())
        return out if len(self._batch_shape) == 0 else out.expand(self._batch_shape)
