"""Transforms: invertible (or not) maps between constrained spaces, with the log absolute
determinant of their Jacobian, as `torch.distributions.transforms` has them. A transform knows
its `domain` and `codomain` (constraints), whether it is `bijective`, the `sign` of its
derivative where monotone, and how it changes shapes; `t.inv` is the inverse (`t.inv.inv is
t`), and a transform made with `cache_size=1` remembers its last (x, y) pair."""
import math
import numbers
import weakref

import torchlike as _t
from torchlike.distributions import constraints
from torchlike.distributions.utils import broadcast_all

__all__ = ["AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StickBreakingTransform", "TanhTransform", "Transform",
           "identity_transform"]


def _sum_rightmost(x, n):
    """`x` summed over its `n` rightmost dims (none when n <= 0)."""
    if n <= 0:
        return x
    return x.reshape(x.shape[:x.dim() - n] + (-1,)).sum(-1)


def _shape_of(x):
    return x.shape if isinstance(x, _t.Tensor) else _t.Size()


class Transform:
    """Mirrors `torch.distributions.transforms.Transform`: subclasses define `_call`,
    `_inverse`, `log_abs_det_jacobian` and their constraints."""

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y = (None, None)
        self._inv = None

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self):
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __call__(self, x):
        if not self._cache_size:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y):
        if not self._cache_size:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform (what `t.inv` returns)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Mirrors `torch.distributions.transforms.ComposeTransform`: `parts` applied in order."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    def _event_dim_in(self):
        """The event dim the composition consumes (its parts may add or drop dims)."""
        dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            dim = max(dim + part.domain.event_dim - part.codomain.event_dim,
                      part.domain.event_dim)
        return dim

    def _event_dim_out(self):
        dim = self.parts[0].domain.event_dim
        for part in self.parts:
            dim = max(dim + part.codomain.event_dim - part.domain.event_dim,
                      part.codomain.event_dim)
        return dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        base = self.parts[0].domain
        extra = self._event_dim_in() - base.event_dim
        return constraints.independent(base, extra) if extra > 0 else base

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        base = self.parts[-1].codomain
        extra = self._event_dim_out() - base.event_dim
        return constraints.independent(base, extra) if extra > 0 else base

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return _t.zeros_like(x)
        total = None
        event_dim = self.domain.event_dim
        for i, part in enumerate(self.parts):
            nxt = y if i == len(self.parts) - 1 else part(x)
            term = _sum_rightmost(part.log_abs_det_jacobian(x, nxt),
                                  event_dim - part.domain.event_dim)
            total = term if total is None else total + term
            event_dim += part.codomain.event_dim - part.domain.event_dim
            x = nxt
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Mirrors `torch.distributions.transforms.IndependentTransform`: `base_transform` with
    its `reinterpreted_batch_ndims` rightmost batch dims read as event dims."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (f"{type(self).__name__}({self.base_transform!r}, "
                f"{self.reinterpreted_batch_ndims})")

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Mirrors `torch.distributions.transforms.ReshapeTransform`: the rightmost `in_shape`
    dims reshaped to `out_shape` (volume preserving)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = _t.Size(in_shape)
        self.out_shape = _t.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        return x.reshape(x.shape[:x.dim() - len(self.in_shape)] + self.out_shape)

    def _inverse(self, y):
        return y.reshape(y.shape[:y.dim() - len(self.out_shape)] + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(x.shape[:x.dim() - len(self.in_shape)])

    @staticmethod
    def _swap(shape, old, new):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if shape[cut:] != old:
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {old}")
        return shape[:cut] + new

    def forward_shape(self, shape):
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap(shape, self.out_shape, self.in_shape)


class _Parameterless(Transform):
    """A transform without parameters: instances of the same family compare equal."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if _Parameterless in cls.__bases__:
            cls._family = cls

    def __eq__(self, other):
        return isinstance(other, self._family)


class ExpTransform(_Parameterless):
    """Mirrors `torch.distributions.transforms.ExpTransform`: y = exp(x)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """Mirrors `torch.distributions.transforms.PowerTransform`: y = x ** exponent."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return _t.broadcast_shapes(shape, _shape_of(self.exponent))

    inverse_shape = forward_shape


def _clamp_open_unit(p):
    """Probabilities kept inside (0, 1) as floats can represent them."""
    info = _t.finfo(p.dtype)
    return p.clamp(min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(_Parameterless):
    """Mirrors `torch.distributions.transforms.SigmoidTransform`: y = 1 / (1 + exp(-x)),
    kept strictly inside (0, 1)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x):
        return _clamp_open_unit(_t.sigmoid(x))

    def _inverse(self, y):
        y = _clamp_open_unit(y)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        softplus = _t.nn.functional.softplus
        return -softplus(-x) - softplus(x)


class SoftplusTransform(_Parameterless):
    """Mirrors `torch.distributions.transforms.SoftplusTransform`: y = log(1 + exp(x))."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return _t.nn.functional.softplus(x)

    def _inverse(self, y):
        return y + (-(-y).expm1()).log()

    def log_abs_det_jacobian(self, x, y):
        return -_t.nn.functional.softplus(-x)


class TanhTransform(_Parameterless):
    """Mirrors `torch.distributions.transforms.TanhTransform`: y = tanh(x) (the inverse is
    atanh, unclamped)."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - _t.nn.functional.softplus(-2.0 * x))


class AbsTransform(_Parameterless):
    """Mirrors `torch.distributions.transforms.AbsTransform`: y = |x| (its inverse picks the
    nonnegative root)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """Mirrors `torch.distributions.transforms.AffineTransform`: y = loc + scale * x, over
    `event_dim` rightmost dims."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    def _space(self):
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._space()

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._space()

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    @staticmethod
    def _same(a, b):
        if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
            return a == b
        return bool((a == b).all())

    def __eq__(self, other):
        return (isinstance(other, AffineTransform) and self._same(self.loc, other.loc)
                and self._same(self.scale, other.scale))

    @property
    def sign(self):
        s = self.scale
        if isinstance(s, numbers.Real):
            return 1 if float(s) > 0 else -1 if float(s) < 0 else 0
        return s.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        if isinstance(self.scale, numbers.Real):
            out = _t.full_like(x, math.log(abs(self.scale)))
        else:
            out = self.scale.abs().log()
        shape = x.shape
        if self._event_dim:
            out = _sum_rightmost(out, self._event_dim)
            shape = shape[:len(shape) - self._event_dim]
        return out.expand(shape)

    def forward_shape(self, shape):
        return _t.broadcast_shapes(shape, _shape_of(self.loc), _shape_of(self.scale))

    inverse_shape = forward_shape


def _check_vector(shape, grow):
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")
    return shape[:-1] + (shape[-1] + grow,)


class SoftmaxTransform(_Parameterless):
    """Mirrors `torch.distributions.transforms.SoftmaxTransform`: unconstrained vectors to
    the simplex by softmax (not bijective; the inverse is the log)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        e = (x - x.max(-1, keepdim=True)[0]).exp()
        return e / e.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        return _check_vector(shape, 0)

    inverse_shape = forward_shape


def _stick_offsets(x, n):
    """log(n), log(n - 1), ..., log(1): centres the stick-breaking logits so that x = 0 maps
    to the simplex's centre."""
    return _t.arange(n, 0, -1, dtype=x.dtype, device=x.device).log()


class StickBreakingTransform(_Parameterless):
    """Mirrors `torch.distributions.transforms.StickBreakingTransform`: R^(K-1) onto the
    K-simplex, each coordinate breaking off a sigmoid fraction of the stick left."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        k = x.shape[-1]
        z = _clamp_open_unit(_t.sigmoid(x - _stick_offsets(x, k)))
        left = (1 - z).cumprod(-1)   # the stick left after each break
        ones = _t.ones_like(z[..., :1])
        return _t.cat([z, ones], -1) * _t.cat([ones, left], -1)

    def _inverse(self, y):
        k = y.shape[-1] - 1
        head = y[..., :-1]
        left = (1 - head.cumsum(-1)).clamp(min=_t.finfo(y.dtype).tiny)
        return head.log() - left.log() + _stick_offsets(y, k)

    def log_abs_det_jacobian(self, x, y):
        u = x - _stick_offsets(x, x.shape[-1])
        return (y[..., :-1].log() + _t.nn.functional.logsigmoid(-u)).sum(-1)

    def forward_shape(self, shape):
        return _check_vector(shape, 1)

    def inverse_shape(self, shape):
        return _check_vector(shape, -1)


class LowerCholeskyTransform(_Parameterless):
    """Mirrors `torch.distributions.transforms.LowerCholeskyTransform`: a square matrix to a
    lower-triangular one with a positive (exponentiated) diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(_Parameterless):
    """Mirrors `torch.distributions.transforms.PositiveDefiniteTransform`: L L^T of the lower
    Cholesky factor `LowerCholeskyTransform` makes."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        low = LowerCholeskyTransform()(x)
        return low @ low.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(_t.linalg.cholesky(y))
