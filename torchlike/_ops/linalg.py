"""Linear algebra: products (matmul family, einsum, tensordot, ...) and decompositions.

Products are single jitted `jnp.matmul`/`jnp.einsum` kernels; PyTorch's shape and dtype checks
run while tracing. Decompositions whose failure PyTorch reports as `LinAlgError` (inv, solve,
cholesky) return a per-matrix status from the kernel, checked on the host.
"""
import functools
import math
import operator
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from . import gradfix as _gf
from .reduction import opmath, p_norm
from .. import return_types as rt
from .._core import dtype as dt
from .._core.tensor import Tensor, _wrap_dim
from .registry import (FUNCTIONS, METHODS, OPS, broadcast_shapes_checked, call, op,
                       short_name)

F = "linalg"


class _LinAlgError(RuntimeError):
    """Mirrors `torch.linalg.LinAlgError` (PyTorch's class is named `_LinAlgError`)."""


def _nm(a):
    return short_name(dt._BY_NP[np.dtype(a.dtype)])


def _lower(a):
    return np.dtype(a.dtype).name.replace("float32", "float").replace("float64", "double") \
        .replace("int64", "long int").replace("int32", "int").replace("bfloat16", "c10::BFloat16") \
        .replace("float16", "c10::Half")


def _register(name, fn, method=True, function=True, aliases=()):
    fn.__name__ = name
    OPS.setdefault(name, None)
    if function:
        for a in (name,) + tuple(aliases):
            FUNCTIONS[a] = fn
    if method:
        for a in (name,) + tuple(aliases):
            METHODS[a] = fn


_nt = rt.make


# ---- products ------------------------------------------------------------------------------

def _no_bool(a, what):
    if a.dtype == jnp.bool_:
        raise NotImplementedError(f"\"{what}\" not implemented for 'Bool'")


def _dot_checks(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_nm(a)} "
                           f"and {_nm(b)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    _no_bool(a, "dot")


def _mm_shape_check(a, b):
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} "
                           f"and {b.shape[0]}x{b.shape[1]})")


def _mm_checks(a, b):
    _mm_shape_check(a, b)
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_lower(a)} != "
                           f"{_lower(b)}")
    _no_bool(a, "addmm_impl_cpu_")


def _addmm_dtype_checks(inp, m1, m2):
    """addmm/addbmm compare `self` with `mat2`, then `mat1` with `mat2`."""
    for name, x in (("self", inp), ("mat1", m1)):
        if x.dtype != m2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {_nm(x)} and "
                               f"{_nm(m2)}")


def _mv_checks(m, v, rows=None, inp=None, inp_rows=None):
    """`rows`: the rows of `m` (batch dimensions folded in); `inp_rows`: addmv's input length."""
    if m.shape[-1] != v.shape[0]:
        r = rows if rows is not None else m.shape[0]
        i = inp_rows if inp_rows is not None else r
        raise RuntimeError(f"size mismatch, got input ({i}), mat ({r}x{m.shape[-1]}), vec "
                           f"({v.shape[0]})")
    inp = v if inp is None else inp
    if not m.dtype == v.dtype == inp.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_nm(inp)}, "
                           f"{_nm(m)}, and {_nm(v)}")
    _no_bool(m, "addmv_impl_cpu")


def _matmul(a, b):
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D "
                           f"and {db}D")
    if da == 1 and db == 1:
        _dot_checks(a, b)
    elif da == 2 and db == 1:
        _mv_checks(a, b)
    elif da == 1 and db == 2:
        _mm_checks(a.reshape(1, -1), b)
    elif da == 2 and db == 2:
        _mm_checks(a, b)
    elif db == 1:  # PyTorch folds the batch dimensions into an mv / mm
        _mv_checks(a, b, rows=math.prod(a.shape[:-1]))
    elif db == 2:
        _mm_checks(a.reshape(math.prod(a.shape[:-1]), a.shape[-1]), b)
    else:
        batch = broadcast_shapes_checked([a.shape[:-2], b.shape[:-2]])
        k = a.shape[-1]
        if b.shape[-2] != k:
            n = math.prod(batch)
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{n}, {k}] but got: [{n}, {b.shape[-2]}].")
        if a.dtype != b.dtype:
            raise RuntimeError(f"expected scalar type {_nm(a)} but found {_nm(b)}")
        _no_bool(a, "bmm")
    return jnp.matmul(a, b)


def _matmul_devices(input, other):
    """The kernel PyTorch's matmul reaches, as its device check names it: bmm for two batched
    operands, else mm (a vector or batch folded into a matrix)."""
    batched = getattr(input, "ndim", 0) > 2 and getattr(other, "ndim", 0) > 2
    return _MM_DEVICES if not batched else _BMM_DEVICES


_MM_DEVICES = ("wrapper_CUDA_mm", {"input": "self", "other": "mat2", "mat2": "mat2"})
_BMM_DEVICES = ("wrapper_CUDA_bmm", {"input": "self", "other": "mat2", "mat2": "mat2"})


@op(tensors=("input", "other"), promote=None, family=F,
    dunders={"__matmul__": "fwd", "__rmatmul__": "rev"}, inplace=False, bucket="matmul",
    devices=_matmul_devices)
def matmul(input, other):
    return _matmul(input, other)


def _imatmul(self, other):
    """`self @= other` (matmul has no in-place row: the product is written back)."""
    if not isinstance(other, Tensor):
        return NotImplemented
    from .registry import check_inplace
    r = FUNCTIONS["matmul"](self, other)._value()
    check_inplace(self, r)
    self._assign(r)
    return self


METHODS["__imatmul__"] = _imatmul


@op(tensors=("input", "mat2"), promote=None, family=F, bucket="matmul", devices=_MM_DEVICES)
def mm(input, mat2):
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _mm_checks(input, mat2)
    return jnp.matmul(input, mat2)


def _bmm_checks(a, b, inp=None, what="bmm"):
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if inp is not None and inp.dtype != a.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_lower(inp)}, batch1: "
                           f"{_lower(a)}, batch2: {_lower(b)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_nm(a)} but found {_nm(b)}")
    _no_bool(a, what)


@op(tensors=("input", "mat2"), promote=None, family=F, bucket="matmul", devices=_BMM_DEVICES)
def bmm(input, mat2):
    _bmm_checks(input, mat2)
    return jnp.matmul(input, mat2)


@op(tensors=("input", "vec"), promote=None, family=F)
def mv(input, vec):
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    _mv_checks(input, vec)
    return jnp.matmul(input, vec)


@op(tensors=("input", "tensor"), promote=None, family=F)
def dot(input, tensor):
    _dot_checks(input, tensor)
    return jnp.dot(input, tensor)


@op(tensors=("input", "other"), promote=None, family=F)
def vdot(input, other):
    _dot_checks(input, other)
    return jnp.vdot(input, other)


@op(tensors=("input", "other"), family=F)
def inner(input, other):
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    return jnp.inner(input, other)


@op(tensors=("input", "vec2"), family=F, aliases=("ger",))
def outer(input, vec2):
    if input.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    if input.dtype == jnp.bool_:
        return jnp.logical_and(input[:, None], vec2[None, :])
    return input[:, None] * vec2[None, :]


def _scale(x, s):
    return x * jnp.asarray(s).astype(x.dtype)


def _expand_input(inp, shape):
    if inp.shape != tuple(shape):
        n = len(shape)
        if inp.ndim > n:
            raise RuntimeError(f"expand({_legacy_type(inp)}{{{list(inp.shape)}}}, size="
                               f"{list(shape)}): the number of sizes provided ({n}) must be "
                               f"greater or equal to the number of dimensions in the tensor "
                               f"({inp.ndim})")
        pad = (1,) * (n - inp.ndim) + inp.shape
        for i, (s, t) in enumerate(zip(pad, shape)):
            if s != t and s != 1:
                raise RuntimeError(f"The expanded size of the tensor ({t}) must match the existing "
                                   f"size ({s}) at non-singleton dimension {i}.  Target sizes: "
                                   f"{list(shape)}.  Tensor sizes: {list(inp.shape)}")
    return jnp.broadcast_to(inp, shape)


def _legacy_type(a):
    """PyTorch's legacy tensor type name (`torch.FloatTensor`) of an array."""
    n = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
         "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
         "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
    return f"torch.{n.get(np.dtype(a.dtype).name, 'Float')}Tensor"


def _addlike(inp, prod, beta, alpha):
    inp = _expand_input(inp, prod.shape).astype(prod.dtype)
    if prod.dtype == jnp.bool_:
        return jnp.logical_or(jnp.logical_and(inp, beta != 0), jnp.logical_and(prod, alpha != 0))
    b = jnp.asarray(beta).astype(prod.dtype)
    scaled = jnp.where(b == 0, jnp.zeros_like(inp), inp * b)
    return scaled + _scale(prod, alpha)


@op(tensors=("input", "mat1", "mat2"), scalars=("beta", "alpha"), promote=None, inplace=True,
    family=F)
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    if mat1.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    _addmm_dtype_checks(input, mat1, mat2)
    _mm_shape_check(mat1, mat2)
    _no_bool(mat1, "addmm_impl_cpu_")
    return _addlike(input, jnp.matmul(mat1, mat2), beta, alpha)


@op(tensors=("input", "mat", "vec"), scalars=("beta", "alpha"), promote=None, inplace=True,
    family=F)
def addmv(input, mat, vec, *, beta=1, alpha=1):
    if input.ndim > 1 or mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, "
                           f"{vec.ndim}")
    if mat.shape[-1] != vec.shape[0] and input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    _mv_checks(mat, vec, inp=input, inp_rows=input.shape[0] if input.ndim else None)
    if input.ndim == 1 and input.shape[0] not in (1, mat.shape[0]):
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat ({mat.shape[0]}x"
                           f"{mat.shape[1]}), vec ({vec.shape[0]})")
    return _addlike(input, jnp.matmul(mat, vec), beta, alpha)


@op(tensors=("input", "vec1", "vec2"), scalars=("beta", "alpha"), inplace=True, family=F)
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    if vec1.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    if vec1.dtype == jnp.bool_:
        return _addlike(input, jnp.logical_and(vec1[:, None], vec2[None, :]), beta, alpha)
    # PyTorch's kernel computes beta * self + (alpha * vec1) * vec2 in the tensors' own type,
    # rounding after each operation (float16/bfloat16 included)
    prod = _scale(vec1, alpha)[:, None] * vec2[None, :]
    inp = _expand_input(input, prod.shape).astype(prod.dtype)
    b = jnp.asarray(beta).astype(prod.dtype)
    return jnp.where(b == 0, jnp.zeros_like(inp), inp * b) + prod


OPS["addr"].opmath = False


@op(tensors=("input", "batch1", "batch2"), scalars=("beta", "alpha"), promote=None,
    inplace=True, family=F)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _bmm_checks(batch1, batch2, inp=input, what="baddbmm")
    return _addlike(input, jnp.matmul(batch1, batch2), beta, alpha)


@op(tensors=("input", "batch1", "batch2"), scalars=("beta", "alpha"), promote=None,
    inplace=True, family=F)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
    _addmm_dtype_checks(input, batch1, batch2)
    _no_bool(batch1, "addmm_impl_cpu_")
    # PyTorch adds the batches' products one at a time into the result (rounded each step)
    shape = (batch1.shape[1], batch2.shape[2])
    res = _expand_input(input, shape)
    if batch1.shape[0] == 0:
        return _addlike(res, jnp.zeros(shape, res.dtype), beta, alpha)

    def step(i, r):
        prod = jnp.matmul(opmath(batch1[i]), opmath(batch2[i]))
        b = jnp.where(i == 0, jnp.asarray(beta), jnp.ones_like(jnp.asarray(beta)))
        return _addlike(opmath(r), prod, b, alpha).astype(r.dtype)
    return jax.lax.fori_loop(0, batch1.shape[0], step, res)


OPS["addbmm"].opmath = False  # the kernel rounds reduced floats after each batch itself


# ---- in-place add*: PyTorch checks `self` against the product's shape first ---------------

def _mm_out(self, m1, m2):
    ok = m1.dim() == 2 == m2.dim() and m1.shape[1] == m2.shape[0]
    return (m1.shape[0], m2.shape[1]) if ok else None


def _mv_out(self, m, v):
    ok = m.dim() == 2 and v.dim() == 1 and self.dim() <= 1 and m.shape[1] == v.shape[0] and \
        self.numel() in (1, m.shape[0])
    return (m.shape[0],) if ok else None


def _bmm_out(self, b1, b2):
    ok = b1.dim() == 3 == b2.dim() and b1.shape[0] == b2.shape[0] and b1.shape[2] == b2.shape[1]
    return (b1.shape[0], b1.shape[1], b2.shape[2]) if ok else None


def _addr_self(self, v1, v2):
    """addr_: `self` must already be the (len(vec1), len(vec2)) matrix."""
    if v1.dim() != 1 or v2.dim() != 1:
        return
    if self.dim() != 2:
        raise RuntimeError(f"2D tensor expected, got {self.dim()}D tensor for input")
    if tuple(self.shape) != (v1.shape[0], v2.shape[0]):
        raise RuntimeError(f"size mismatch, input: {list(self.shape)}, v1: {list(v1.shape)}, "
                           f"v2: {list(v2.shape)}")


def _bad_inplace(out_shape):
    def check(self, a, b):
        shape = out_shape(self, a, b)
        if shape is not None and tuple(self.shape) != shape:
            raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and "
                               f"output tensor size {list(shape)} should match")
    return check


def _with_self_check(name, check):
    generated = METHODS[name + "_"]

    def method(self, a, b, *, beta=1, alpha=1):
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            check(self, a, b)
        return generated(self, a, b, beta=beta, alpha=alpha)
    method.__name__ = name + "_"
    METHODS[name + "_"] = method


for _n, _check in (("addmm", _bad_inplace(_mm_out)), ("addmv", _bad_inplace(_mv_out)),
                   ("baddbmm", _bad_inplace(_bmm_out)), ("addr", _addr_self)):
    _with_self_check(_n, _check)


def _addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """addbmm_ computes as addbmm, then resizes `self` to the result (as PyTorch's out=)."""
    r = FUNCTIONS["addbmm"](self, batch1, batch2, beta=beta, alpha=alpha)
    if tuple(self.shape) != tuple(r.shape):
        self.resize_(r.shape)
    return self.copy_(r)


METHODS["addbmm_"] = _addbmm_


# ---- einsum, tensordot, kron, cross --------------------------------------------------------

@op(tensors=(), lists=("operands",), promote=None, method=False, function=False, out=False,
    family=F)
def _einsum(equation, operands):
    for o in operands[1:]:
        if o.dtype != operands[0].dtype:
            raise RuntimeError(f"expected scalar type {_nm(operands[0])} but found {_nm(o)}")
    eq = equation.replace(" ", "")
    lhs = eq.split("->")[0].split(",")
    if len(lhs) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation" if len(operands) > len(lhs) else
                           "einsum(): fewer operands were provided than specified in the "
                           "equation")
    seen = {}
    for i, (term, o) in enumerate(zip(lhs, operands)):
        if "..." in term:
            continue
        if len(term) != o.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(term)}) "
                               f"does not match the number of dimensions ({o.ndim}) for operand "
                               f"{i} and no ellipsis was given")
        mine = {}
        for c, s in zip(term, o.shape):
            if mine.setdefault(c, s) != s:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but the "
                                   f"sizes don't match, {s} != {mine[c]}")
        for c, s in zip(term, o.shape):
            if c in seen and seen[c] != s and seen[c] != 1 and s != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {i} which "
                                   f"does not broadcast with previously seen size {seen[c]}")
            if c not in seen or seen[c] == 1:
                seen[c] = s
    if operands and operands[0].dtype == jnp.bool_:
        return jnp.einsum(eq, *[o.astype(jnp.int64) for o in operands]).astype(jnp.bool_)
    return jnp.einsum(eq, *operands)


def _sublist(sub):
    def label(n):
        if n is Ellipsis:
            return "..."
        if not 0 <= n < 52:
            raise ValueError("einsum(): subscript in subscript list is not within the valid "
                             "range [0, 52)")
        return chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26)
    return "".join(label(n) for n in sub)


def einsum(*args):
    """Mirrors `torch.einsum`: (equation, *operands), (equation, [operands]) or the sublist
    form (op1, sublist1, op2, sublist2, ..., [sublist_out])."""
    if not args:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                        "or at least one operand and its subscripts list")
    if not isinstance(args[0], str):
        operands = args[0::2][:len(args) // 2]
        equation = ",".join(_sublist(s) for s in args[1::2][:len(operands)])
        if len(args) % 2:
            equation += "->" + _sublist(args[-1])
        return call(OPS["_einsum"], (equation, tuple(operands)))
    equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return call(OPS["_einsum"], (equation, tuple(operands)))


_register("einsum", einsum, method=False)


def _dims_static(d):
    if isinstance(d, Tensor):
        return d.tolist()
    if isinstance(d, (list, tuple)):
        return tuple(tuple(x.tolist()) if isinstance(x, Tensor) else
                     ((x,) if isinstance(x, int) else tuple(x)) for x in d)
    return d


@op(tensors=("a", "b"), promote=None, method=False, family=F)
def tensordot(a, b, dims=2):
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da = tuple(range(a.ndim - dims, a.ndim))
        db = tuple(range(dims))
    else:
        da, db = [(x,) if isinstance(x, int) else tuple(x) for x in dims]
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    da = tuple(_wrap_dim(d, a.ndim) for d in da)
    db = tuple(_wrap_dim(d, b.ndim) for d in db)
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y] and 1 not in (a.shape[x], b.shape[y]):
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[x]} in dim {x} and second has size {b.shape[y]} in dim "
                               f"{y}")
    # a size-1 contracted dimension broadcasts against the other side: sum that side first
    for x, y in zip(da, db):
        if a.shape[x] == 1 and b.shape[y] != 1:
            b = jnp.sum(b, axis=y, keepdims=True, dtype=b.dtype)
        elif b.shape[y] == 1 and a.shape[x] != 1:
            a = jnp.sum(a, axis=x, keepdims=True, dtype=a.dtype)
    return jnp.tensordot(a, b, (da, db))


_tensordot_row = FUNCTIONS["tensordot"]


def _tensordot(a, b, dims=2, out=None):
    return _tensordot_row(a, b, _dims_static(dims), out=out)


_register("tensordot", _tensordot, method=False)


@op(tensors=("input", "other"), family=F)
def kron(input, other):
    n = max(input.ndim, other.ndim)
    a = input.reshape((1,) * (n - input.ndim) + input.shape)
    b = other.reshape((1,) * (n - other.ndim) + other.shape)
    if a.dtype == jnp.bool_:
        return jnp.kron(a.astype(jnp.int8), b.astype(jnp.int8)).astype(jnp.bool_)
    return jnp.kron(a, b)


def _cross_impl(a, b, d, name="linalg.cross"):
    if a.ndim != b.ndim:
        raise RuntimeError(f"{name}: inputs must have the same number of dimensions.")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_nm(a)} but found {_nm(b)}")
    given, d = d, _wrap_dim(d, a.ndim)
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"{name}: inputs dimension {given} must have length 3. Got "
                           f"{a.shape[d]} and {b.shape[d]}")
    shape = broadcast_shapes_checked([a.shape, b.shape])
    a, b = jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape)
    # PyTorch rounds each product to the tensors' type, then subtracts in its opmath type
    x = [jnp.take(a, k, axis=d) for k in range(3)]
    y = [jnp.take(b, k, axis=d) for k in range(3)]
    return jnp.stack([_rounded_mul(x[i], y[j]) - _rounded_mul(x[j], y[i])
                      for i, j in ((1, 2), (2, 0), (0, 1))], axis=d).astype(a.dtype)


def _rounded_mul(x, y):
    """x * y rounded to their (reduced float) type, kept in the opmath type: XLA would otherwise
    fuse away the rounding of a bfloat16 product."""
    if x.dtype not in (jnp.float16, jnp.bfloat16):
        return x * y
    fi = jnp.finfo(x.dtype)
    return jax.lax.reduce_precision(opmath(x) * opmath(y), exponent_bits=fi.nexp,
                                    mantissa_bits=fi.nmant)


@op(tensors=("input", "other"), promote=None, family=F, ints=("dim",))
def cross(input, other, dim=None):
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
                      "either pass the dim explicitly or simply use torch.linalg.cross.\nThe "
                      "default value of dim will change to agree with that of linalg.cross in a "
                      "future release.", UserWarning)
        dims = [i for i, s in enumerate(input.shape) if s == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims[0]
    return _cross_impl(input, other, dim)


@op("linalg_cross", tensors=("input", "other"), promote=None, method=False, family=F,
    ints=("dim",))
def linalg_cross(input, other, *, dim=-1):
    return _cross_impl(input, other, dim)


OPS["cross"].opmath = OPS["linalg_cross"].opmath = False   # _cross_impl rounds as PyTorch


# ---- helpers for square / floating inputs ------------------------------------------------

def _need_float(a, name):
    if not (jnp.issubdtype(a.dtype, jnp.floating) or jnp.issubdtype(a.dtype, jnp.complexfloating)):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_nm(a)}")


def _square(a, name, need_float=True):
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if need_float:
        _need_float(a, name)


def _first_bad(flags, shape_batch):
    """Host-side: index (batch, info) of the first failing matrix, or None."""
    f = np.asarray(flags)
    if f.size == 0 or not f.any():
        return None
    flat = f.reshape(-1) if f.ndim else f.reshape(1)
    i = int(np.argmax(flat != 0))
    return i, int(flat[i])


def _batch_prefix(i, batched):
    return f"(Batch element {i}): " if batched else ""


# ---- determinants -----------------------------------------------------------------------

def _slogdet(a):
    sign, logabs = jnp.linalg.slogdet(a)
    return sign, logabs


@op("linalg_det", method=False, family=F, promote=None)
def linalg_det(A):
    _square(A, "linalg.det")
    return _det(A)


def _det(A):
    if A.size == 0:   # an empty product (JAX's LU-based gradient cannot index 0x0 matrices)
        return jnp.ones(A.shape[:-2], A.dtype) + 0 * jnp.sum(A, axis=(-2, -1))
    return jnp.linalg.det(A)


@op(method=True, family=F, promote=None)
def det(input):
    _square(input, "linalg.det")
    return _det(input)


_slogdet_t = _nt("slogdet", ["sign", "logabsdet"])
_lslogdet_t = _nt("linalg_slogdet", ["sign", "logabsdet"])


@op(family=F, promote=None, returns=_slogdet_t)
def slogdet(input):
    _square(input, "linalg.slogdet")
    return _slogdet(input)


@op("linalg_slogdet", method=False, family=F, promote=None, returns=_lslogdet_t)
def linalg_slogdet(A):
    _square(A, "linalg.slogdet")
    return _slogdet(A)


@op(family=F, promote=None)
def logdet(input):
    _square(input, "linalg.det")
    sign, la = _slogdet(input)
    if jnp.iscomplexobj(input):
        return jnp.log(sign) + la
    return jnp.where(sign < 0, jnp.nan, jnp.where(sign == 0, -jnp.inf, la)).astype(la.dtype)


# ---- inverse and solve ------------------------------------------------------------------

def _lu_info(a):
    """LAPACK getrf's info per matrix: 1-based index of the first zero pivot, or 0."""
    if a.shape[-1] == 0 or a.size == 0:
        return jnp.zeros(a.shape[:-2], jnp.int32)
    lu, _, _ = jax.lax.linalg.lu(a)
    d = jnp.diagonal(lu, axis1=-2, axis2=-1)
    zero = d == 0
    idx = jnp.argmax(zero, axis=-1) + 1
    return jnp.where(jnp.any(zero, axis=-1), idx, 0).astype(jnp.int32)


@op("linalg_inv_ex", method=False, family=F, promote=None,
    returns=_nt("linalg_inv_ex", ["inverse", "info"]))
def linalg_inv_ex(A, *, check_errors=False):
    _square(A, "linalg.inv")
    return jnp.linalg.inv(A), _lu_info(A)


def _raise_inv(info, batched, name="linalg.inv"):
    bad = _first_bad(info, None)
    if bad is not None:
        i, k = bad
        raise _LinAlgError(f"{name}: {_batch_prefix(i, batched)}The diagonal element {k} is zero, "
                           f"the inversion could not be completed because the input matrix is "
                           f"singular.")


def linalg_inv(A, *, out=None):
    """Mirrors `torch.linalg.inv` (raises LinAlgError on singular input)."""
    inv, info = call(OPS["linalg_inv_ex"], (A, False))
    _raise_inv(info._value(), A.dim() > 2)
    if out is not None:
        return out.resize_(inv.shape).copy_(inv) if out.shape != inv.shape else out.copy_(inv)
    return inv


_register("linalg_inv", linalg_inv, method=False)
_register("inverse", lambda input, *, out=None: linalg_inv(input, out=out))


def _solve_is_vector(A, B):
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


@op("linalg_solve_ex", tensors=("A", "B"), method=False, family=F,
    returns=_nt("linalg_solve_ex", ["result", "info"]))
def linalg_solve_ex(A, B, *, left=True, check_errors=False):
    _square(A, "linalg.solve")
    if not left:
        At = jnp.swapaxes(A, -1, -2)
        Bt = jnp.swapaxes(B, -1, -2)
        x, info = _solve_left(At, Bt)
        return jnp.swapaxes(x, -1, -2), info
    return _solve_left(A, B)


def _solve_left(A, B):
    vec = _solve_is_vector(A, B)
    b = B[..., None] if vec else B
    if b.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = "
                           f"B ({A.shape[-2]}x{A.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")
    batch = broadcast_shapes_checked([A.shape[:-2], b.shape[:-2]])
    Ab = jnp.broadcast_to(A, batch + A.shape[-2:])
    bb = jnp.broadcast_to(b, batch + b.shape[-2:])
    x = jnp.linalg.solve(Ab, bb)
    if vec:
        x = x[..., 0]
    return x, _lu_info(Ab)


def linalg_solve(A, B, *, left=True, out=None):
    """Mirrors `torch.linalg.solve`."""
    x, info = call(OPS["linalg_solve_ex"], (A, B, left, False))
    bad = _first_bad(info._value(), None)
    if bad is not None:
        raise _LinAlgError(f"torch.linalg.solve: {_batch_prefix(bad[0], info.dim() > 0)}The "
                           f"solver failed because the input matrix is singular.")
    if out is not None:
        out.resize_(x.shape)
        return out.copy_(x)
    return x


_register("linalg_solve", linalg_solve, method=False)


# ---- cholesky -------------------------------------------------------------------------

_chol_sym = _gf.sym_grad(lambda a: jax.lax.linalg.cholesky(a, symmetrize_input=False))


@op("linalg_cholesky_ex", method=False, family=F, promote=None,
    returns=_nt("linalg_cholesky_ex", ["L", "info"]))
def linalg_cholesky_ex(A, *, upper=False, check_errors=False):
    _square(A, "linalg.cholesky")
    if A.size == 0:
        return A, jnp.zeros(A.shape[:-2], jnp.int32)
    L = _chol_sym(A)
    bad = ~jnp.isfinite(jnp.diagonal(L, axis1=-2, axis2=-1))
    if jnp.iscomplexobj(bad):
        bad = bad.real
    info = jnp.where(jnp.any(bad, axis=-1), jnp.argmax(bad, axis=-1) + 1, 0).astype(jnp.int32)
    L = jnp.where(jnp.any(bad, axis=-1)[..., None, None], jnp.zeros_like(L), L)
    if upper:
        L = jnp.conj(jnp.swapaxes(L, -1, -2))
    return L, info


def linalg_cholesky(A, *, upper=False, out=None):
    """Mirrors `torch.linalg.cholesky`."""
    L, info = call(OPS["linalg_cholesky_ex"], (A, upper, False))
    bad = _first_bad(info._value(), None)
    if bad is not None:
        i, k = bad
        m = np.asarray(A._value()).reshape((-1,) + tuple(A.shape[-2:]))[i]
        for k in range(1, m.shape[0] + 1):
            try:
                np.linalg.cholesky(np.tril(m[:k, :k]) + np.tril(m[:k, :k], -1).conj().T)
            except np.linalg.LinAlgError:
                break
        raise _LinAlgError(f"linalg.cholesky: {_batch_prefix(i, A.dim() > 2)}The factorization "
                           f"could not be completed because the input is not positive-definite "
                           f"(the leading minor of order {k} is not positive-definite).")
    if out is not None:
        out.resize_(L.shape)
        return out.copy_(L)
    return L


_register("linalg_cholesky", linalg_cholesky, method=False)


def cholesky(input, upper=False, *, out=None):
    """Mirrors the deprecated `torch.cholesky`."""
    return linalg_cholesky(input, upper=upper, out=out)


_register("cholesky", cholesky)


# ---- decompositions ------------------------------------------------------------------------

def _need_matrix(a, name):
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _need_float(a, name)


@op("linalg_qr", method=False, family=F, promote=None,
    returns=_nt("linalg_qr", ["Q", "R"]))
def linalg_qr(A, mode="reduced"):
    if mode not in ("reduced", "r", "complete"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    _need_matrix(A, "linalg.qr")
    if mode == "r":
        r = jnp.linalg.qr(A, mode="r")
        return jnp.zeros((0,), A.dtype), r
    return tuple(jnp.linalg.qr(A, mode=mode))


@op(family=F, promote=None, returns=_nt("qr", ["Q", "R"]))
def qr(input, some=True):
    _need_matrix(input, "linalg.qr")
    return tuple(jnp.linalg.qr(input, mode="reduced" if some else "complete"))


@op("linalg_svd", method=False, family=F, promote=None,
    returns=_nt("linalg_svd", ["U", "S", "Vh"]))
def linalg_svd(A, full_matrices=True, *, driver=None):
    _need_matrix(A, "linalg.svd")
    return tuple(jnp.linalg.svd(A, full_matrices=full_matrices))


@op(family=F, promote=None, returns=_nt("svd", ["U", "S", "V"]))
def svd(input, some=True, compute_uv=True):
    _need_matrix(input, "linalg.svd")
    if not compute_uv:
        s = jnp.linalg.svd(input, compute_uv=False)
        m, n = input.shape[-2:]
        b = input.shape[:-2]
        return (jnp.zeros(b + (m, m if not some else min(m, n)), input.dtype), s,
                jnp.zeros(b + (n, n if not some else min(m, n)), input.dtype))
    u, s, vh = jnp.linalg.svd(input, full_matrices=not some)
    return u, s, jnp.conj(jnp.swapaxes(vh, -1, -2))


@op("linalg_svdvals", method=False, family=F, promote=None)
def linalg_svdvals(A, *, driver=None):
    _need_matrix(A, "linalg.svd")
    return jnp.linalg.svd(A, compute_uv=False)


def _eigh_checks(A, name):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not (jnp.issubdtype(A.dtype, jnp.floating) or jnp.issubdtype(A.dtype,
                                                                     jnp.complexfloating)):
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{_nm(A)}'")


def _eigh(A, UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return _EIGH[UPLO](A)


# PyTorch's eigh gradient is symmetrized (the input is read as a Hermitian matrix)
_EIGH = {u: _gf.sym_grad(lambda a, u=u: tuple(jnp.linalg.eigh(a, UPLO=u, symmetrize_input=False)))
         for u in ("L", "U")}


@op("linalg_eigh", method=False, family=F, promote=None,
    returns=_nt("linalg_eigh", ["eigenvalues", "eigenvectors"]))
def linalg_eigh(A, UPLO="L"):
    _eigh_checks(A, "linalg.eigh")
    return _eigh(A, UPLO)


@op("linalg_eigvalsh", method=False, family=F, promote=None)
def linalg_eigvalsh(A, UPLO="L"):
    _eigh_checks(A, "linalg.eigh")
    return _eigh(A, UPLO)[0]


@op("linalg_eig", method=False, family=F, promote=None,
    returns=_nt("linalg_eig", ["eigenvalues", "eigenvectors"]))
def linalg_eig(A):
    _square(A, "linalg.eig")
    if A.size == 0:
        c = jnp.result_type(A.dtype, jnp.complex64)
        return jnp.zeros(A.shape[:-1], c), jnp.zeros(A.shape, c)
    # PyTorch differentiates the eigenvectors too (its formula assumes distinct eigenvalues)
    w, v = jax.lax.linalg.eig(A, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    return w, v


@op("linalg_eigvals", method=False, family=F, promote=None)
def linalg_eigvals(A):
    _square(A, "linalg.eig")
    return jnp.linalg.eigvals(A)


# ---- pseudo-inverse, rank, powers, exp -----------------------------------------------------

def _tol(s, A, atol, rtol):
    m, n = A.shape[-2:]
    eps = jnp.finfo(s.dtype).eps
    smax = jnp.max(s, axis=-1, keepdims=True, initial=0.0)
    if atol is None and rtol is None:
        return smax * (eps * max(m, n))
    a = 0.0 if atol is None else atol
    r = (eps * max(m, n) if atol is None else 0.0) if rtol is None else rtol
    return jnp.maximum(a, smax * r)


@op("linalg_pinv", scalars=("atol", "rtol"), method=False, family=F, promote=None)
def linalg_pinv(A, *, atol=None, rtol=None, hermitian=False):
    if A.ndim < 2 or not (jnp.issubdtype(A.dtype, jnp.floating) or
                          jnp.issubdtype(A.dtype, jnp.complexfloating)):
        shape = list(A.shape)
        raise RuntimeError(f"linalg.pinv({_nm(A)}{{{shape}}}): expected a tensor with 2 or more "
                           f"dimensions of float, double, cfloat or cdouble types")
    def value(A, atol, rtol):
        if hermitian:   # PyTorch reads the lower triangle only, through eigh
            v, w = jax.lax.linalg.eigh(A, lower=True, symmetrize_input=False)
            s = jnp.abs(w)
            tol = _tol(s, A, atol, rtol)
            winv = jnp.where(s > tol, 1 / jnp.where(s > tol, w, 1), 0).astype(v.dtype)
            return jnp.matmul(v * winv[..., None, :], _mH(v))
        u, s, vh = jnp.linalg.svd(A, full_matrices=False)
        tol = _tol(s, A, atol, rtol)
        sinv = jnp.where(s > tol, 1 / jnp.where(s > tol, s, 1), 0).astype(u.dtype)
        return jnp.matmul(_mH(vh) * sinv[..., None, :], _mH(u))
    return _constant_rank_pinv(value)(A, atol, rtol)


def _mH(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def _constant_rank_pinv(value):
    """`value` (a pseudo-inverse) differentiated as PyTorch does, assuming the rank stays put:
    dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P (no singular-vector terms,
    which blow up at the zero singular values of a rank-deficient input)."""
    f = jax.custom_jvp(value)

    @f.defjvp
    def _jvp(primals, tangents):
        (A, atol, rtol), (dA, _, _) = primals, tangents
        P = value(A, atol, rtol)
        dAh = _mH(dA)
        mm = jnp.matmul
        dP = -mm(mm(P, dA), P) + mm(mm(mm(P, _mH(P)), dAh), jnp.eye(A.shape[-2], dtype=A.dtype)
                                    - mm(A, P)) \
            + mm(mm(jnp.eye(A.shape[-1], dtype=A.dtype) - mm(P, A), dAh), mm(_mH(P), P))
        return P, dP
    return f


@op(scalars=("rcond",), family=F, promote=None)
def pinverse(input, rcond=1e-15):
    return linalg_pinv(input, rtol=rcond)


@op("linalg_matrix_rank", scalars=("atol", "rtol"), tensors=("A",), method=False, family=F,
    promote=None)
def linalg_matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    if not (jnp.issubdtype(A.dtype, jnp.floating) or jnp.issubdtype(A.dtype,
                                                                     jnp.complexfloating)):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_rank: The input tensor input must have at least 2 "
                           "dimensions.")
    s = jnp.abs(jnp.linalg.eigvalsh(A)) if hermitian else jnp.linalg.svd(A, compute_uv=False)
    return jnp.sum(s > _tol(s, A, atol, rtol), axis=-1).astype(jnp.int64)


def _matrix_power(A, n):
    _square(A, "linalg.matrix_power", need_float=False)
    if n < 0:
        _need_float(A, "linalg.inv")
        A = jnp.linalg.inv(A)
        n = -n
    if A.dtype == jnp.bool_:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if n == 0:
        return jnp.broadcast_to(jnp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    result = None
    base = A
    while n:
        if n & 1:
            result = base if result is None else jnp.matmul(result, base)
        n >>= 1
        if n:
            base = jnp.matmul(base, base)
    return result


@op(family=F, promote=None, ints=("n",))
def matrix_power(input, n):
    return _matrix_power(input, operator.index(n))


@op("linalg_matrix_power", method=False, family=F, promote=None, ints=("n",))
def linalg_matrix_power(A, n):
    return _matrix_power(A, operator.index(n))


@op(family=F, promote=None)
def matrix_exp(input):
    _square(input, "linalg.matrix_exp")
    return jax.scipy.linalg.expm(input)


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
_lstsq_t = _nt("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


@op(tensors=("A", "B"), scalars=("rcond",), method=False, function=False, out=False, family=F,
    promote=None)
def _linalg_lstsq(A, B, rcond, driver):
    """Returns (solution, residuals, rank, singular values, full-rank flag); which of them
    PyTorch's `driver` computes decides their shapes (an empty tensor when it does not)."""
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, "
                           f"but got input's dtype {_nm(A)} and other's dtype {_nm(B)}")
    _need_float(A, "linalg.lstsq")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    vec = B.ndim == A.ndim - 1
    b = B[..., None] if vec else B
    if A.shape[-2] != b.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    if driver is not None and driver not in _LSTSQ_DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, "
                           "gelsd, gelss)")
    driver = driver or "gelsy"
    batch = broadcast_shapes_checked([A.shape[:-2], b.shape[:-2]])
    Ab = jnp.broadcast_to(A, batch + A.shape[-2:])
    bb = jnp.broadcast_to(b, batch + b.shape[-2:])
    u, s, vh = jnp.linalg.svd(Ab, full_matrices=False)
    m, n = A.shape[-2:]
    eps = jnp.finfo(s.dtype).eps
    rc = eps * max(m, n) if rcond is None else rcond
    cut = s > jnp.max(s, axis=-1, keepdims=True, initial=0.0) * rc
    sinv = jnp.where(cut, 1 / jnp.where(cut, s, 1), 0).astype(u.dtype)
    pinv = jnp.matmul(jnp.conj(jnp.swapaxes(vh, -1, -2)) * sinv[..., None, :],
                      jnp.conj(jnp.swapaxes(u, -1, -2)))
    x = jnp.matmul(pinv, bb)
    rank = jnp.sum(cut, axis=-1).astype(jnp.int64)
    empty = jnp.zeros((0,), s.dtype)
    if m > n and driver != "gelsy":
        r = jnp.matmul(Ab, x) - bb
        res = jnp.sum(jnp.real(r * jnp.conj(r)), axis=-2)
    else:
        res = empty
    full = jnp.all(rank == min(m, n))
    if vec:
        x = x[..., 0]
    return (x, res, rank if driver != "gels" else jnp.zeros((0,), jnp.int64),
            s if driver in ("gelsd", "gelss") else empty, full)


def linalg_lstsq(A, B, rcond=None, *, driver=None):
    """Mirrors `torch.linalg.lstsq`: the residuals are only returned for full-rank inputs (a
    host check of the ranks), the singular values are not differentiable."""
    x, res, rank, sv, full = call(OPS["_linalg_lstsq"], (A, B, rcond, driver))
    if res.numel() and not bool(full.item()):
        res = res.new_empty((0,))
    return _lstsq_t(x, res, rank, sv.detach())


_register("linalg_lstsq", linalg_lstsq, method=False)


# ---- norms ------------------------------------------------------------------------------------

def _reduce_dims(x, dim):
    if dim is None:
        return tuple(range(x.ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(_wrap_dim(d, x.ndim) for d in dims)


def _vector_norm(x, ord, dim, keepdim, dtype, name="linalg.vector_norm"):
    if dtype is not None:
        x = x.astype(dtype.np)
    _need_float(x, name)
    axes = _reduce_dims(x, dim)
    a = _gf.abs(x)
    rd = a.dtype
    if x.ndim == 0:
        axes = ()
    r = p_norm(opmath(a), ord, axes, keepdim)
    return r.astype(rd)


@op("linalg_vector_norm", method=False, family=F, promote=None)
def linalg_vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    return _vector_norm(x, ord, dim, keepdim, dtype)


_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _ord_str(ord):
    """An order as PyTorch's messages print it (a C++ double: 3.0 as "3")."""
    if isinstance(ord, float) and ord.is_integer():
        return str(int(ord))
    return str(ord)


def _check_norm_dtype(x, dtype, name):
    """PyTorch's checks of a norm's `dtype=` against its input's dtype."""
    if dtype is None:
        return
    src = dt._BY_NP[np.dtype(x.dtype)]
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                           f"{short_name(dtype)}")
    if src.is_complex != dtype.is_complex:
        kind = "complex" if src.is_complex else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got "
                           f"{short_name(dtype)}")
    if dt.promote_types(src, dtype) is not dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({short_name(src)}) should be "
                           f"convertible without narrowing to the specified dtype "
                           f"({short_name(dtype)})")


def _matrix_norm(A, ord, dim, keepdim, dtype):
    # PyTorch's order of checks: the order, the input, the dims, then `dtype`
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.matrix_norm: Order {_ord_str(ord)} not supported.")
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    _need_float(A, "linalg.matrix_norm")
    if ord in ("nuc", 2, -2) and A.dtype in (jnp.float16, jnp.bfloat16):   # by singular values
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got "
                           f"{_nm(A)}")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    d0, d1 = _wrap_dim(dims[0], A.ndim), _wrap_dim(dims[1], A.ndim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    _check_norm_dtype(A, dtype, "linalg.matrix_norm")
    if dtype is not None:
        A = A.astype(dtype.np)
    a = _gf.abs(A)
    rd = a.dtype
    a = opmath(a)
    if ord == "fro":
        r = _gf.sqrt0(jnp.sum(a * a, axis=(d0, d1), keepdims=keepdim))
    elif ord in (1, -1, math.inf, -math.inf):
        red, other = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = jnp.sum(a, axis=red, keepdims=True)
        f = jnp.max if ord > 0 else jnp.min
        r = f(s, axis=other, keepdims=True)
        if not keepdim:
            r = jnp.squeeze(r, axis=(d0, d1))
    else:
        m = jnp.moveaxis(A, (d0, d1), (-2, -1))
        s = jnp.linalg.svd(m, compute_uv=False)
        r = jnp.sum(s, -1) if ord == "nuc" else (jnp.max(s, -1) if ord == 2 else jnp.min(s, -1))
        if keepdim:
            r = jnp.expand_dims(r, tuple(sorted((d0, d1))))
    return r.astype(rd)


@op("linalg_matrix_norm", method=False, family=F, promote=None)
def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    return _matrix_norm(A, ord, dim, keepdim, dtype)


# the norms see float16/bfloat16 themselves (PyTorch's singular-value ones reject them) and
# accumulate in float32 on their own (`opmath`)
OPS["linalg_matrix_norm"].opmath = False


@op("linalg_norm", method=False, family=F, promote=None)
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    if dim is not None and not isinstance(dim, int) and len(dim) == 2 or \
            (dim is None and ord is not None and A.ndim == 2):
        return _matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim,
                            keepdim, dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{dim if isinstance(dim, int) else ' '.join(map(str, dim or ()))}")
    if dim is None and ord is not None and A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.ndim}D.")
    return _vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype)


OPS["linalg_norm"].opmath = False   # as linalg_matrix_norm's


@op("linalg_vecdot", tensors=("x", "y"), method=False, family=F, promote=None,
    ints=("dim",))
def linalg_vecdot(x, y, *, dim=-1):
    _need_float(x, "linalg.vecdot")
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {_nm(x)} and y of type {_nm(y)} instead")
    shape = broadcast_shapes_checked([x.shape, y.shape])
    d = _wrap_dim(dim, len(shape))
    return jnp.sum(jnp.conj(x) * y, axis=d)


# ---- chains -------------------------------------------------------------------------------

@op(tensors=(), lists=("tensors",), promote=None, method=False, function=False, out=False,
    family=F)
def _multi_dot(tensors, name):
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 "
                               f"is {_nm(tensors[0])} and tensor {i} {_nm(t)}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got "
                           f"{first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    mats = list(tensors)
    if first.ndim == 1:
        mats[0] = first[None, :]
    if last.ndim == 1:
        mats[-1] = last[:, None]
    for i in range(1, n):
        if mats[i - 1].shape[1] != mats[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes "
                               f"{list(tensors[i - 1].shape)} and {list(tensors[i].shape)} cannot "
                               f"be multiplied")
    r = jnp.linalg.multi_dot(mats)
    if first.ndim == 1:
        r = r[0]
    if last.ndim == 1:
        r = r[..., 0]
    return r


def linalg_multi_dot(tensors, *, out=None):
    """Mirrors `torch.linalg.multi_dot`."""
    return call(OPS["_multi_dot"], (tuple(tensors), "multi_dot"), out)


def chain_matmul(*matrices, out=None):
    """Mirrors the deprecated `torch.chain_matmul`."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning)
    if len(matrices) == 1:
        if matrices[0].dim() != 2:
            raise RuntimeError(f"chain_matmul(): Expected one or more 2D tensor but got a "
                               f"{matrices[0].dim()}D tensor")
        return matrices[0].clone()
    for t in matrices:
        if t.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {t.dim()}, expected 2 instead.")
    return linalg_multi_dot(matrices, out=out)


_register("linalg_multi_dot", linalg_multi_dot, method=False)
_register("chain_matmul", chain_matmul, method=False)


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """Mirrors `torch.linalg.diagonal` (a view)."""
    return A.diagonal(offset, dim1, dim2)


_register("linalg_diagonal", linalg_diagonal, method=False)


def linalg_matmul(input, other, *, out=None):
    return FUNCTIONS["matmul"](input, other, out=out)


_register("linalg_matmul", linalg_matmul, method=False)


# torch.norm (the legacy entry point), unless another family provides it
if "norm" not in FUNCTIONS:
    def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
        """Mirrors `torch.norm`."""
        if isinstance(p, str) and p in ("fro", "nuc"):
            if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) == 1):
                return call(OPS["linalg_vector_norm"], (input, 2, dim, keepdim, dtype), out)
            if dim is None:
                dim = (-2, -1)
            return call(OPS["linalg_matrix_norm"], (input, p, tuple(dim), keepdim, dtype), out)
        return call(OPS["linalg_vector_norm"],
                    (input, 2 if p is None else p, dim, keepdim, dtype), out)

    _register("norm", norm)


# ---- condition number, Cholesky solve ------------------------------------------------------------

_COND_ORDS = (None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf)


@op("linalg_cond", method=False, family=F, promote=None)
def linalg_cond(A, p=None):
    """Mirrors `torch.linalg.cond`: the ratio of singular values (p None/2/-2), else
    norm(A) * norm(inv(A)) (inf for singular matrices)."""
    if p not in _COND_ORDS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {_ord_str(p)}")
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p in (None, 2, -2):
        _need_float(A, "linalg.svd")
    else:
        _square(A, f"linalg.cond(ord={p})")
    real = jnp.finfo(A.dtype).dtype
    if A.size == 0:
        return jnp.zeros(A.shape[:-2], real)
    if p in (None, 2, -2):
        s = jnp.linalg.svd(A, compute_uv=False)
        hi, lo = s[..., 0], s[..., -1]
        return (hi / lo if p != -2 else lo / hi).astype(real)
    r = _matrix_norm(A, p, (-2, -1), False, None) * \
        _matrix_norm(jnp.linalg.inv(A), p, (-2, -1), False, None)
    return jnp.where(_lu_info(A) > 0, jnp.inf, r).astype(real)


@op(tensors=("input", "input2"), promote=None, family=F)
def cholesky_solve(input, input2, upper=False):
    """Mirrors `torch.cholesky_solve(B, L, upper)`: X with (L L^H) X = B (U^H U with upper)."""
    for a, nm in ((input, "b"), (input2, "u")):
        if a.ndim < 2:
            raise RuntimeError(f"{nm} should have at least 2 dimensions, but has {a.ndim} "
                               f"dimensions instead")
    if input.dtype != input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_nm(input)} and A of type {_nm(input2)} instead.")
    if not (jnp.issubdtype(input.dtype, jnp.inexact)):
        raise NotImplementedError(f"\"cholesky_solve_cpu\" not implemented for '{_nm(input)}'")
    n = input2.shape[-1]
    if input2.shape[-2] != n or input.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{input2.shape[-2]} by {n} but each b matrix is {input.shape[-2]} by "
                           f"{input.shape[-1]}")
    batch = broadcast_shapes_checked([input.shape[:-2], input2.shape[:-2]])
    b = jnp.broadcast_to(input, batch + input.shape[-2:])
    f = jnp.broadcast_to(input2, batch + input2.shape[-2:])
    lower = not upper
    # (F F^H) X = B with F lower; (F^H F) X = B with F upper: two triangular solves
    y = jax.lax.linalg.triangular_solve(f, b, left_side=True, lower=lower,
                                        transpose_a=upper, conjugate_a=upper)
    return jax.lax.linalg.triangular_solve(f, y, left_side=True, lower=lower,
                                           transpose_a=lower, conjugate_a=lower)


# ---- triangular solve, Cholesky inverse ------------------------------------------------------

def _tri_dtype_check(a):
    if not (jnp.issubdtype(a.dtype, jnp.inexact)) or a.dtype in (jnp.float16, jnp.bfloat16):
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_nm(a)}'")


@op("linalg_solve_triangular", tensors=("A", "B"), promote=None, method=False, family=F)
def _linalg_solve_triangular(A, B, upper, left=True, unitriangular=False):
    """The kernel of `torch.linalg.solve_triangular`: X with AX = B (XA = B with left=False),
    batch dimensions broadcast; the result has A's dtype, as in PyTorch."""
    _tri_dtype_check(A)
    B = B.astype(A.dtype)
    if B.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    _square(A, "linalg.solve_triangular")
    n = A.shape[-1]
    if (left and B.shape[-2] != n) or (not left and B.shape[-1] != n):
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {eq} ({A.shape[-2]}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    batch = broadcast_shapes_checked([A.shape[:-2], B.shape[:-2]])
    a = jnp.broadcast_to(A, batch + A.shape[-2:])
    b = jnp.broadcast_to(B, batch + B.shape[-2:])
    return jax.lax.linalg.triangular_solve(a, b, left_side=left, lower=not upper,
                                           unit_diagonal=unitriangular)


def linalg_solve_triangular(A, B, *, upper=None, left=True, unitriangular=False, out=None):
    """Mirrors `torch.linalg.solve_triangular` (`upper` is required, as in PyTorch)."""
    if upper is None:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: '
                        '"upper"')
    return call(OPS["linalg_solve_triangular"], (A, B, bool(upper), bool(left),
                                                   bool(unitriangular)), out=out)


_register("linalg_solve_triangular", linalg_solve_triangular, method=False)


@op(promote=None, family=F)
def cholesky_inverse(input, upper=False):
    """Mirrors `torch.cholesky_inverse(L, upper)`: the inverse of L L^H (U^H U with upper)."""
    if input.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 "
                           "dimensions.")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but they "
                           f"are {input.shape[-2]} by {input.shape[-1]} matrices")
    if not jnp.issubdtype(input.dtype, jnp.inexact) or input.dtype in (jnp.float16,
                                                                        jnp.bfloat16):
        raise NotImplementedError(f"\"cholesky_inverse_out_cpu\" not implemented for "
                                  f"'{_nm(input)}'")
    return _chol_inv(input, bool(upper))


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def _chol_inv(f, upper):
    eye = jnp.broadcast_to(jnp.eye(f.shape[-1], dtype=f.dtype), f.shape)
    lower = not upper
    # inv(F F^H) = F^-H F^-1 (F lower); inv(F^H F) = F^-1 F^-H (F upper)
    y = jax.lax.linalg.triangular_solve(f, eye, left_side=True, lower=lower,
                                        transpose_a=upper, conjugate_a=upper)
    return jax.lax.linalg.triangular_solve(f, y, left_side=True, lower=lower,
                                           transpose_a=lower, conjugate_a=lower)


def _chol_inv_fwd(f, upper):
    r = _chol_inv(f, upper)
    return r, (f, r)


def _chol_inv_bwd(upper, res, g):
    """PyTorch's formula: the gradient of inv(F F^H) with F read as a full matrix."""
    f, r = res
    common = r @ (g + jnp.conj(jnp.swapaxes(g, -1, -2))) @ r
    return (-(f @ common) if upper else -(common @ f),)


_chol_inv.defvjp(_chol_inv_fwd, _chol_inv_bwd)


from . import linalg_lu  # noqa: E402,F401  (LU-based ops; registers its rows)
