"""Mirrors `torch.linalg`: the `linalg_*` rows of the op table under their short names."""
from ._ops import linalg as _impl
from ._ops.registry import FUNCTIONS as _F

LinAlgError = _impl._LinAlgError

_NAMES = ("matmul", "norm", "vector_norm", "matrix_norm", "inv", "inv_ex", "det", "slogdet",
          "solve", "solve_ex", "lstsq", "qr", "svd", "svdvals", "eigh", "eigvalsh", "eig",
          "eigvals", "cholesky", "cholesky_ex", "pinv", "matrix_rank", "matrix_power", "cross",
          "multi_dot", "vecdot", "diagonal", "cond", "solve_triangular", "lu_factor",
          "lu_factor_ex", "lu", "lu_solve", "vander", "tensorinv", "tensorsolve",
          "householder_product")
for _n in _NAMES:
    globals()[_n] = _F["linalg_" + _n]
matrix_exp = _F["matrix_exp"]

del _n
