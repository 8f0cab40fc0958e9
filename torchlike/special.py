"""Mirrors `torch.special`: its own kernels (the `special_*` rows) and the functions PyTorch
exposes here under other names (`expit` is `sigmoid`, `gammaln` is `lgamma`, ...).

Divergence: `special.round` is `torch.round`, so an integer input is returned as PyTorch's
`torch.round` returns it (PyTorch's `special.round` raises for integers)."""
from ._core.tensor import Tensor  # noqa: F401 - torch.special.Tensor, as PyTorch's module has it
from ._ops.registry import FUNCTIONS as _F

_OWN = ("entr", "erfcx", "i0e", "i1", "i1e", "ndtri", "log_ndtr", "ndtr", "spherical_bessel_j0",
        "modified_bessel_i0", "modified_bessel_i1", "xlog1py", "zeta",
        *(f"{k}chebyshev_polynomial_{v}" for k in ("", "shifted_") for v in "tuvw"),
        "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
        "legendre_polynomial_p")
_ALIASES = {"expit": "sigmoid", "logit": "logit", "gammaln": "lgamma", "psi": "digamma",
            "digamma": "digamma", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv",
            "exp2": "exp2", "expm1": "expm1", "log1p": "log1p", "i0": "i0", "sinc": "sinc",
            "multigammaln": "mvlgamma", "round": "round", "polygamma": "polygamma",
            "xlogy": "xlogy", "gammainc": "igamma", "gammaincc": "igammac",
            "softmax": "softmax", "log_softmax": "log_softmax", "logsumexp": "logsumexp"}
for _n in _OWN:
    globals()[_n] = _F["special_" + _n]
for _n, _target in _ALIASES.items():
    globals()[_n] = _F[_target]

del _n, _target
