"""LU factorizations and the solvers built on them (`linalg.lu_factor`, `lu_unpack`,
`lu_solve`, `triangular_solve`, ...), plus `linalg.vander`, `tensorinv` and `tensorsolve`.

Pivots follow LAPACK's getrf: int32, 1-based, row i swapped with row pivots[i] in turn. The
kernels are `jax.lax.linalg.lu` / `triangular_solve`; checks run while tracing.
"""
import math
import warnings

import jax
import jax.numpy as jnp

from .linalg import F, _batch_prefix, _first_bad, _need_float, _nm, _nt, _register
from .registry import FUNCTIONS, OPS, broadcast_shapes_checked, op


def _need_matrix(A, name):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in (jnp.float16, jnp.bfloat16):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_nm(A)}'")


def _no_pivot(pivot, name):
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


def _getrf(A):
    """(LU, 1-based int32 pivots, getrf's info) of a batch of m x n matrices."""
    m, n = A.shape[-2:]
    k = min(m, n)
    if A.size == 0:
        return (A, jnp.ones(A.shape[:-2] + (k,), jnp.int32) * jnp.arange(1, k + 1, dtype=jnp.int32),
                jnp.zeros(A.shape[:-2], jnp.int32))
    lu, piv, _ = jax.lax.linalg.lu(A)
    d = jnp.diagonal(lu, axis1=-2, axis2=-1) == 0
    info = jnp.where(jnp.any(d, axis=-1), jnp.argmax(d, axis=-1) + 1, 0).astype(jnp.int32)
    return lu, piv.astype(jnp.int32) + 1, info


@op("linalg_lu_factor_ex", method=False, family=F, promote=None,
    returns=_nt("linalg_lu_factor_ex", ["LU", "pivots", "info"]))
def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False):
    _need_matrix(A, "torch.lu_factor")
    _no_pivot(pivot, "linalg.lu_factor")
    return _getrf(A)


_lu_factor_t = _nt("linalg_lu_factor", ["LU", "pivots"])


def linalg_lu_factor(A, *, pivot=True, out=None):
    """Mirrors `torch.linalg.lu_factor`: raises for a zero pivot (a host check of `info`)."""
    LU, piv, info = FUNCTIONS["linalg_lu_factor_ex"](A, pivot=pivot)
    bad = _first_bad(info._value(), None)
    if bad is not None:
        i, k = bad
        raise RuntimeError(f"torch.linalg.lu_factor: {_batch_prefix(i, A.dim() > 2)}U[{k},{k}] is "
                           f"zero and using it on lu_solve would result in a division by zero. If "
                           f"you still want to perform the factorization, consider calling "
                           f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    if out is not None:
        for o, x in zip(out, (LU, piv)):
            o.resize_(x.shape).copy_(x)
        return _lu_factor_t(*out)
    return _lu_factor_t(LU, piv)


_register("linalg_lu_factor", linalg_lu_factor, method=False)


def lu(A, pivot=True, get_infos=False, out=None):
    """Mirrors the deprecated `torch.lu`: (LU, pivots) or (LU, pivots, infos)."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                  "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\n"
                  "LU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
                  "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
                  "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be "
                  "replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)",
                  UserWarning)
    r = FUNCTIONS["linalg_lu_factor_ex"](A, pivot=pivot)
    res = (r[0], r[1], r[2]) if get_infos else (r[0], r[1])
    if out is not None:
        for o, x in zip(out, res):
            o.resize_(x.shape).copy_(x)
        return tuple(out)
    return res


_register("lu", lu)


def _perm_matrix(piv, m, dtype):
    """P with A = P L U, from 1-based getrf pivots."""
    perm = jax.lax.linalg.lu_pivots_to_permutation(piv - 1, m)
    return jnp.swapaxes(jax.nn.one_hot(perm, m, dtype=dtype), -1, -2)


def _unpack(LU, piv, unpack_data=True, unpack_pivots=True):
    m, n = LU.shape[-2:]
    k = min(m, n)
    if unpack_data:
        L = jnp.tril(LU[..., :, :k], -1) + jnp.eye(m, k, dtype=LU.dtype)
        U = jnp.triu(LU[..., :k, :])
    else:
        L = U = jnp.zeros((0,), LU.dtype)
    if unpack_pivots:
        if piv.shape[-1] == 0 or m == 0:
            P = jnp.broadcast_to(jnp.eye(m, dtype=LU.dtype), LU.shape[:-2] + (m, m))
        else:
            P = _perm_matrix(piv, m, LU.dtype)
    else:
        P = jnp.zeros((0,), LU.dtype)
    return P, L, U


@op("linalg_lu", method=False, family=F, promote=None,
    returns=_nt("linalg_lu", ["P", "L", "U"]))
def linalg_lu(A, *, pivot=True):
    _need_matrix(A, "linalg.lu")
    _no_pivot(pivot, "linalg.lu")
    lu_, piv, _ = _getrf(A)
    return _unpack(lu_, piv)


@op(tensors=("LU_data", "LU_pivots"), method=False, family=F, promote=None,
    returns=_nt("lu_unpack", ["P", "L", "U"]))
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    if LU_pivots.dtype != jnp.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used with "
                           "the output produced by torch.linalg.lu_factor")
    if LU_data.ndim < 2:
        raise RuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    return _unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)


def _lu_solve(LU, piv, B, left, adjoint):
    """X with A X = B (op(A) = A^H when `adjoint`; X A = B when not `left`), A = P L U."""
    if not left:   # X A = B  <=>  A^H X^H = B^H
        return jnp.conj(jnp.swapaxes(_lu_solve(LU, piv, jnp.conj(jnp.swapaxes(B, -1, -2)),
                                               True, not adjoint), -1, -2))
    n = LU.shape[-1]
    batch = broadcast_shapes_checked([LU.shape[:-2], B.shape[:-2], piv.shape[:-1]])
    LU = jnp.broadcast_to(LU, batch + LU.shape[-2:])
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    piv = jnp.broadcast_to(piv, batch + piv.shape[-1:])
    if B.size == 0 or n == 0:
        return jnp.zeros(B.shape, B.dtype)
    P = _perm_matrix(piv, n, LU.dtype)
    tri = jax.lax.linalg.triangular_solve
    if not adjoint:   # L U X = P^T B
        y = jnp.matmul(jnp.swapaxes(P, -1, -2), B)
        y = tri(LU, y, left_side=True, lower=True, unit_diagonal=True)
        return tri(LU, y, left_side=True, lower=False)
    # U^H L^H P^T X = B
    y = tri(LU, B, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
    y = tri(LU, y, left_side=True, lower=True, transpose_a=True, conjugate_a=True,
            unit_diagonal=True)
    return jnp.matmul(P, y)


def _lu_solve_checks(LU, piv, B, left, name):
    if LU.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor LU must have at least 2 dimensions.")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {LU.shape[-1]} matrices")
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    k = B.shape[-2] if left else B.shape[-1]
    if k != LU.shape[-1]:
        what = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {what} "
                           f"({LU.shape[-2]}x{LU.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    _need_float(LU, f"torch.{name}")
    if LU.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {_nm(LU)} and B of type {_nm(B)} instead")
    if piv.dtype != jnp.int32:
        raise RuntimeError(f"{name}: Expected pivots to be integral. Got {_nm(piv)}")


@op("linalg_lu_solve", tensors=("LU", "pivots", "B"), method=False, family=F, promote=None)
def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    _lu_solve_checks(LU, pivots, B, left, "linalg.lu_solve")
    return _lu_solve(LU, pivots, B, left, adjoint)


@op(tensors=("input", "LU_data", "LU_pivots"), family=F, promote=None)
def lu_solve(input, LU_data, LU_pivots):
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
                  "removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has its "
                  "arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced "
                  "with\nX = torch.linalg.lu_solve(LU, pivots, B)", UserWarning)
    _lu_solve_checks(LU_data, LU_pivots, input, True, "linalg.lu_solve")
    return _lu_solve(LU_data, LU_pivots, input, True, False)


@op(tensors=("input", "A"), family=F, promote=None,
    returns=_nt("triangular_solve", ["solution", "cloned_coefficient"]))
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    warnings.warn("torch.triangular_solve is deprecated in favor of "
                  "torch.linalg.solve_triangularand will be removed in a future PyTorch release.\n"
                  "torch.linalg.solve_triangular has its arguments reversed and does not return a "
                  "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould "
                  "be replaced with\nX = torch.linalg.solve_triangular(A, B).", UserWarning)
    if input.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {input.ndim} dimensions instead")
    if A.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, "
                           f"but it has {A.ndim} dimensions instead")
    if not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in (jnp.float16, jnp.bfloat16):
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_nm(A)}'")
    if input.dtype != A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_nm(input)} and A of type {_nm(A)} instead.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but "
                           f"they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if A.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A.shape[-2]} by {A.shape[-1]} but each b matrix is "
                           f"{input.shape[-2]} by {input.shape[-1]}")
    batch = broadcast_shapes_checked([input.shape[:-2], A.shape[:-2]])
    Ab = jnp.broadcast_to(A, batch + A.shape[-2:])
    b = jnp.broadcast_to(input, batch + input.shape[-2:])
    if b.size == 0 or Ab.size == 0:
        return jnp.zeros(b.shape, b.dtype), Ab
    x = jax.lax.linalg.triangular_solve(Ab, b, left_side=True, lower=not upper,
                                        transpose_a=transpose, unit_diagonal=unitriangular)
    return x, Ab


# ---- vander, tensorinv, tensorsolve ----------------------------------------------------------

@op("linalg_vander", method=False, family=F, promote=None)
def linalg_vander(x, *, N=None):
    if x.dtype == jnp.bool_:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, "
                           "but got Bool")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.ndim == 0:
        x = x.reshape(1)
    if jnp.issubdtype(x.dtype, jnp.integer):   # PyTorch's cumprod: integers in int64
        x = x.astype(jnp.int64)
    # cumulative products, as PyTorch (integer powers wrap as repeated multiplication does)
    ones = jnp.ones(x.shape + (1,), x.dtype)
    rest = jnp.cumprod(jnp.broadcast_to(x[..., None], x.shape + (n - 1,)), axis=-1,
                       dtype=x.dtype)
    return jnp.concatenate([ones, rest], axis=-1)


@op("linalg_tensorinv", method=False, family=F, promote=None)
def linalg_tensorinv(A, ind=2):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = A.shape[:ind], A.shape[ind:]
    p, q = math.prod(rows), math.prod(cols)
    if p != q:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {q} != {p}")
    _need_float(A, "linalg.inv")
    return jnp.linalg.inv(A.reshape(p, q)).reshape(cols + rows)


@op("linalg_tensorsolve", tensors=("A", "B"), method=False, family=F, promote=None)
def linalg_tensorsolve(A, B, dims=None):
    if dims is not None:
        nd = A.ndim
        ds = [d % nd for d in ((dims,) if isinstance(dims, int) else dims)]
        keep = [d for d in range(nd) if d not in ds]
        A = jnp.transpose(A, keep + ds)
    res = A.shape[B.ndim:]
    p, q = math.prod(B.shape), math.prod(res)
    if p != q:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           f" == prod(self.shape[:other.ndim]), but got {q} != "
                           f"{p}")
    _need_float(A, "linalg.solve")
    return jnp.linalg.solve(A.reshape(p, q), B.reshape(p)).reshape(res)


OPS["linalg_vander"].opmath = False   # exact products of the input's own type


# ---- Householder representations (geqrf, householder_product, ormqr) -----------------------

@op(family=F, promote=None, returns=_nt("geqrf", ["a", "tau"]))
def geqrf(input):
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _need_float(input, "torch.geqrf")
    if input.size == 0:
        return input, jnp.zeros(input.shape[:-2] + (min(input.shape[-2:]),), input.dtype)
    from jax._src.lax.linalg import geqrf as _geqrf   # LAPACK's geqrf (not re-exported)
    return _geqrf(input)


def _householder_checks(A, tau, name):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           f"input.shape[-1]")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           f"tau.shape[-1]")
    if A.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to {A.ndim}")
    if A.shape[:-2] != tau.shape[:-1]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if A.dtype != tau.dtype:
        raise RuntimeError(f"{name}: tau dtype {_nm(tau)} does not match input dtype {_nm(A)}")
    _need_float(A, name)


def _householder(A, tau):
    if A.size == 0 or tau.shape[-1] == 0:
        return jnp.broadcast_to(jnp.eye(*A.shape[-2:], dtype=A.dtype), A.shape)
    k = tau.shape[-1]
    if k < A.shape[-1]:   # the trailing reflectors are identities
        tau = jnp.concatenate([tau, jnp.zeros(tau.shape[:-1] + (A.shape[-1] - k,), tau.dtype)],
                              axis=-1)
    return jax.lax.linalg.householder_product(A, tau)


@op("linalg_householder_product", tensors=("input", "tau"), method=False, family=F,
    promote=None, aliases=("orgqr",))
def linalg_householder_product(input, tau):
    _householder_checks(input, tau, "torch.linalg.householder_product")
    return _householder(input, tau)


@op(tensors=("input", "input2", "input3"), family=F, promote=None)
def ormqr(input, input2, input3, left=True, transpose=False):
    A, tau, C = input, input2, input3
    if A.ndim < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    if C.ndim < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    m = C.shape[-2] if left else C.shape[-1]
    if A.shape[-2] != m:
        raise RuntimeError(f"torch.ormqr: other.shape[{-2 if left else -1}] must be equal to "
                           f"input.shape[-2]")
    if tau.shape[-1] != min(m, A.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape"
                           f"[{-2 if left else -1}], input.shape[-1])")
    if A.dtype != tau.dtype or A.dtype != C.dtype:
        bad, what = (tau, "tau") if A.dtype != tau.dtype else (C, "other")
        raise RuntimeError(f"torch.ormqr: Expected input and {what} to have the same dtype, but "
                           f"input has dtype {_nm(A)} and {what} has dtype {_nm(bad)}")
    _need_float(A, "torch.ormqr")
    # the full m x m Q: the reflectors in the first k columns, identities after
    k = tau.shape[-1]
    full = jnp.zeros(A.shape[:-1] + (m,), A.dtype).at[..., :, :k].set(A[..., :, :k])
    t = jnp.zeros(tau.shape[:-1] + (m,), tau.dtype).at[..., :k].set(tau)
    Q = _householder(full, t)
    if transpose:
        Q = jnp.conj(jnp.swapaxes(Q, -1, -2))
    return jnp.matmul(Q, C) if left else jnp.matmul(C, Q)
