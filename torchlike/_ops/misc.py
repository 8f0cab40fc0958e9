"""Tensor odds and ends that are not ops of a family: membership, element-wise Python callbacks,
memory-placement no-ops, conjugate/negative bits, legacy `new`, and a few small composites
(`dist`, `cov`, `corrcoef`, `renorm`, `fill_diagonal_`)."""
import builtins
import weakref
import math

import numpy as np

from .._core import dtype as dt
from .._core.tensor import Tensor
from .registry import FUNCTIONS, METHODS, function, short_name


def _method(fn, name=None):
    METHODS[name or fn.__name__] = fn
    return fn


@_method
def __contains__(self, element):
    """Mirrors `Tensor.__contains__`: `element in tensor`."""
    if isinstance(element, (Tensor, builtins.int, builtins.float, builtins.bool,
                            builtins.complex)):
        return bool((self == element).any())
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                       f"{type(element)}.")


@_method
def apply_(self, callable):
    """Mirrors `Tensor.apply_` (CPU only, element by element in Python)."""
    a = np.vectorize(callable, otypes=[self.dtype.np])(np.asarray(self._value()))
    self.copy_(FUNCTIONS["tensor"](a, dtype=self.dtype))
    return self


@_method
def map_(self, tensor, callable):
    """Mirrors `Tensor.map_`."""
    if tensor.dtype is not self.dtype:
        raise TypeError(f"map_: expected torch.{self.dtype._tensor_type} for 'other' (got "
                        f"torch.{tensor.dtype._tensor_type})")
    b = np.broadcast_to(np.asarray(tensor._value()), self._size)
    a = np.vectorize(callable, otypes=[self.dtype.np])(np.asarray(self._value()), b)
    self.copy_(FUNCTIONS["tensor"](a, dtype=self.dtype))
    return self


_PINNED = weakref.WeakSet()   # storages made by pin_memory


@_method
def pin_memory(self, device=None):
    """Mirrors `Tensor.pin_memory`: a copy whose storage counts as page-locked (`is_pinned`);
    the tensor itself when it already is. As in PyTorch it needs an accelerator, and only CPU
    tensors can be pinned. XLA stages host-to-device copies itself, so pinning moves no
    memory and `non_blocking=True` copies are ordered as the others are."""
    from .._core.device import gpus
    if not gpus():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if self._st.device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    if self._st in _PINNED:
        return self
    out = self.clone()
    _PINNED.add(out._st)
    return out


@_method
def is_pinned(self, device=None):
    """Mirrors `Tensor.is_pinned`."""
    return self._st in _PINNED


@_method
def share_memory_(self):
    """Mirrors `Tensor.share_memory_`: a CPU storage moves to shared memory (see
    `multiprocessing/reductions.py`); on other devices nothing moves."""
    from ..multiprocessing.reductions import share_storage
    share_storage(self._st)
    return self


@_method
def is_shared(self):
    return bool(self._st.shared)


@_method
def is_inference(self):
    return False


@_method
def is_conj(self):
    """Always False: torchlike conjugates eagerly (no lazy conjugate bit)."""
    return False


@_method
def is_neg(self):
    """Always False: torchlike negates eagerly (no lazy negative bit)."""
    return False


@_method
def resolve_conj(self):
    return self


@_method
def resolve_neg(self):
    return self


FUNCTIONS["resolve_conj"] = resolve_conj
FUNCTIONS["resolve_neg"] = resolve_neg
FUNCTIONS["is_conj"] = is_conj
FUNCTIONS["is_neg"] = is_neg
FUNCTIONS["is_inference"] = is_inference


@_method
def dim_order(self, *, ambiguity_check=False):
    """Mirrors `Tensor.dim_order`: dims from outermost to innermost by stride."""
    return tuple(sorted(range(self.dim()), key=lambda d: (-self._stride[d], d)))


from .views import imag as _imag, real as _real  # noqa: E402 - views of the complex parts

METHODS["real"] = property(_real)
METHODS["imag"] = property(_imag)
FUNCTIONS["real"] = _real
FUNCTIONS["imag"] = _imag


@_method
def new(self, *args, **kwargs):
    """Mirrors the legacy `Tensor.new(...)`: same dtype and device as `self`."""
    from .creation import legacy_constructor
    kwargs.setdefault("device", self.device)
    return legacy_constructor(Tensor, args, kwargs, self.dtype)


@_method
def fill_diagonal_(self, fill_value, wrap=False):
    """Mirrors `Tensor.fill_diagonal_`."""
    n = self.dim()
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    if n > 2 and len(set(self._size)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    size = min(self._size)
    step = sum(self._stride)
    count = size
    if wrap and n == 2 and self._size[0] > self._size[1] + 1:
        count = (self._size[0] * self._size[1] + self._size[1]) // (self._size[1] + 1)
    if n == 2 and wrap:
        rows = [i * (self._size[1] + 1) for i in range(count)]
        flat_pos = [r for r in rows if r < self._size[0] * self._size[1]]
        for p in flat_pos:
            self.select(0, p // self._size[1]).select(0, p % self._size[1]).fill_(fill_value)
        return self
    diag = self.as_strided((size,), (step,), self._offset)
    diag.fill_(fill_value)
    return self


@function()
def dist(input, other, p=2):
    """Mirrors `torch.dist`: the p-norm of `input - other`."""
    return (input - other).norm(p)


@function()
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Mirrors `torch.cov` (rows are variables, columns observations)."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype is dt.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if input.dim() == 2 else input.view(1, -1)
    _check_cov_weights("fweights", fweights, x.shape[1], lambda d: not d.is_floating_point
                       and not d.is_complex and d is not dt.bool_, "integral")
    _check_cov_weights("aweights", aweights, x.shape[1], lambda d: d.is_floating_point,
                       "floating point")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(dt.get_default_dtype())
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = FUNCTIONS["scalar_tensor"](x.shape[1], dtype=dt.int64)
        avg = x.sum(1) / w_sum
        norm = w_sum - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction != 0 and aweights is not None:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
        else:
            norm = w_sum - correction
    if bool(norm <= 0):
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = norm * 0
    xm = x - avg.unsqueeze(1)
    c = xm.mm((xm if w is None else xm * w).t().conj())
    return FUNCTIONS["true_divide"](c, norm).squeeze()


def _check_cov_weights(name, w, observations, kind_ok, kind):
    """PyTorch's checks of `cov`'s `fweights`/`aweights`, in its order (the last one reads
    the weights' minimum on the host, as PyTorch's does)."""
    if w is None:
        return
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w.dim()} dimensions")
    if not kind_ok(w.dtype):
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{short_name(w.dtype)} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != {observations}")
    if observations and bool(w.min() < 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")


@function()
def corrcoef(input):
    """Mirrors `torch.corrcoef`."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clamp(-1, 1) if not c.dtype.is_complex else c


@function()
def renorm(input, p, dim, maxnorm):
    """Mirrors `torch.renorm`: rescale sub-tensors along `dim` to norm at most `maxnorm`."""
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} "
                           f"dimensions")
    d = dim + input.dim() if dim < 0 else dim
    others = [i for i in range(input.dim()) if i != d]
    norms = input.norm(p, dim=others, keepdim=True)
    factor = FUNCTIONS["where"](norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return input * factor.to(input.dtype)


def renorm_(self, p, dim, maxnorm):
    return self.copy_(renorm(self, p, dim, maxnorm))


METHODS["renorm_"] = renorm_


@_method
def storage_type(self):
    """Mirrors `Tensor.storage_type` (a class named like `torch.FloatStorage`)."""
    name = self.dtype._tensor_type.replace("Tensor", "Storage")
    return type(name, (), {"__module__": "torch"})
