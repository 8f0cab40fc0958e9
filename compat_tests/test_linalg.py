"""Linear algebra family against real torch: products, errors, decompositions (by invariants)."""
import numpy as np
import pytest

from harness import check

from torchlike._ops.registry import OPS


def _r(torch, shape, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-4, 5, size=shape) if dtype in ("int64", "int32", "bool") else \
        rng.standard_normal(shape)
    if dtype == "bool":
        a = a > 0
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return torch.tensor(a).to(getattr(torch, dtype))


def _env(torch, dtype="float32"):
    e = dict(torch=torch)
    for name, shape, seed in (("a", (2, 3), 0), ("b", (3, 4), 1), ("v", (3,), 2), ("w", (3,), 3),
                              ("u", (2,), 4), ("ba", (2, 2, 3), 5), ("bb", (2, 3, 4), 6),
                              ("s", (3, 3), 7), ("bs", (2, 3, 3), 8), ("c", (2, 4), 9)):
        e[name] = _r(torch, shape, dtype, seed)
    if dtype not in ("int64", "bool"):
        e["spd"] = e["s"] @ e["s"].mT + 3 * torch.eye(3, dtype=e["s"].dtype)
        e["bspd"] = e["bs"] @ e["bs"].mT + 3 * torch.eye(3, dtype=e["s"].dtype)
    return e


PRODUCTS = [
    "a @ b", "v @ w", "a @ v", "u @ a", "ba @ bb", "ba @ b", "a @ bb", "v @ bb", "ba @ v",
    "torch.ones(5, 1, 2, 3, dtype=a.dtype) @ bb", "torch.matmul(a, b)", "a.matmul(b)",
    "torch.mm(a, b)", "torch.bmm(ba, bb)", "torch.mv(a, v)", "torch.dot(v, w)", "torch.vdot(v, w)",
    "torch.inner(a, a)", "torch.inner(v, w)", "torch.inner(torch.tensor(2, dtype=a.dtype), a)",
    "torch.outer(u, v)", "torch.ger(u, v)", "torch.addmm(c, a, b)", "torch.addmm(c[0], a, b, beta=2, alpha=3)",
    "torch.addmv(u, a, v, beta=0, alpha=2)", "torch.addr(a, u, v)", "torch.baddbmm(c, ba, bb, alpha=2)",
    "torch.addbmm(c, ba, bb, beta=3)", "c.clone().addmm_(a, b)", "torch.einsum('ij,jk->ik', a, b)",
    "torch.einsum('ij,jk', [a, b])", "torch.einsum('ii', s)", "torch.einsum('bij,bjk->bik', ba, bb)",
    "torch.einsum('i,j->ij', v, w)", "torch.einsum('...ij->...ji', ba)",
    "torch.tensordot(a, b, 1)", "torch.tensordot(ba, bb, ([0, 2], [0, 1]))", "torch.tensordot(a, a, 2)",
    "torch.tensordot(a, b, dims=([1], [0]))", "torch.kron(a, u)", "torch.kron(a, s)",
    "torch.linalg.matmul(a, b)", "torch.linalg.multi_dot([a, b, b.t()])", "torch.linalg.multi_dot([u, a, v])",
    "torch.chain_matmul(a, b, b.t())", "torch.cross(s, s.flip(0), dim=1)", "torch.cross(v, w)",
    "torch.linalg.cross(s, w)", "torch.linalg.cross(s, s, dim=0)", "torch.linalg.cross(v, w)",
]
PRODUCT_ERRORS = [
    "a @ a", "torch.tensor(1.) @ a", "a @ torch.tensor(1.)", "torch.ones(3) @ torch.ones(4)",
    "torch.ones(3) @ torch.ones(3, dtype=torch.long)", "a @ torch.ones(3, 2, dtype=torch.float64)",
    "torch.ones(2, 3) @ torch.ones(4)", "torch.ones(4) @ torch.ones(2, 3)",
    "torch.ones(2, 2, 3) @ torch.ones(3, 2, 4)", "torch.ones(2, 2, 3) @ torch.ones(2, 4, 2)",
    "torch.ones(2, 2, 3) @ torch.ones(2, 3, 2, dtype=torch.float64)", "torch.ones(2, 3, 4) @ torch.ones(5)",
    "torch.ones(5) @ torch.ones(2, 3, 4)", "torch.ones(2, 3) @ torch.ones(3, dtype=torch.float64)",
    "torch.ones(3, dtype=torch.bool) @ torch.ones(3, dtype=torch.bool)",
    "torch.ones(2, 3, dtype=torch.bool) @ torch.ones(3, 2, dtype=torch.bool)",
    "torch.mm(torch.ones(3), a)", "torch.mm(a, torch.ones(3))", "torch.bmm(a, a)",
    "torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2))", "torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 3))",
    "torch.mv(a, torch.ones(4))", "torch.mv(torch.ones(3), torch.ones(3))", "torch.dot(a, a)",
    "torch.dot(torch.ones(3), torch.ones(3, dtype=torch.long))", "torch.vdot(a, a)",
    "torch.inner(torch.ones(2, 3), torch.ones(4, 2))", "torch.outer(a, a)", "torch.addmm(torch.ones(3), a, a)",
    "torch.addmm(torch.ones(3, 4), a, torch.ones(3, 4))",
    "torch.einsum('ij,jk->ik', a, torch.ones(3, 2, dtype=torch.float64))", "torch.einsum('ij,jk->ik', a, torch.ones(4, 2))",
    "torch.einsum('ijk', a)", "torch.tensordot(a, a.double(), ([1], [1]))", "torch.tensordot(a, a, ([1], [0]))",
    "torch.cross(torch.ones(2, 3), torch.ones(3, 2))", "torch.cross(torch.ones(2, 4), torch.ones(2, 4))",
    "torch.linalg.cross(torch.ones(3, 3), torch.ones(3), dim=0)", "torch.cross(torch.ones(3), torch.ones(3, dtype=torch.long))",
    "torch.linalg.cross(torch.ones(2, 3), torch.ones(4, 3))", "torch.linalg.multi_dot([a])",
    "torch.linalg.multi_dot([torch.ones(3), torch.ones(3)])", "torch.chain_matmul(a)",
]
DECOMP = [
    "torch.det(s)", "torch.det(bs)", "s.det()", "torch.linalg.det(s)", "torch.logdet(spd)", "torch.logdet(-torch.eye(2))",
    "torch.slogdet(s)", "torch.linalg.slogdet(bs)", "torch.inverse(s)", "torch.linalg.inv(bs)", "torch.linalg.inv_ex(s)",
    "torch.linalg.solve(s, v)", "torch.linalg.solve(bs, s)", "torch.linalg.solve(s, a, left=False)",
    "torch.linalg.solve(bs, torch.ones(2, 3, dtype=s.dtype))", "torch.linalg.solve_ex(s, v)",
    "torch.linalg.cholesky(spd)", "torch.cholesky(spd)", "torch.linalg.cholesky(bspd, upper=True)",
    "torch.linalg.cholesky_ex(spd)", "torch.matrix_power(s, 3)", "torch.matrix_power(s, 0)", "torch.matrix_power(s, -2)",
    "torch.linalg.matrix_power(bs, 2)", "torch.matrix_exp(s * 0.1)", "torch.linalg.matrix_exp(bs * 0.1)",
    "torch.linalg.svdvals(a)", "torch.linalg.svd(a)[1]", "torch.svd(a)[1]", "torch.linalg.eigvalsh(spd)",
    "torch.linalg.eigh(spd)[0]", "torch.linalg.eigvalsh(spd, UPLO='U')", "torch.linalg.pinv(a)", "torch.pinverse(b)",
    "torch.linalg.pinv(spd, hermitian=True)", "torch.linalg.matrix_rank(a)", "torch.linalg.matrix_rank(torch.ones(3, 3, dtype=a.dtype))",
    "torch.linalg.matrix_rank(s, atol=1.0, rtol=0.0)",
    "torch.linalg.lstsq(b.t(), c.t()).solution", "torch.linalg.lstsq(b.t(), torch.ones(4, dtype=a.dtype))[0]",
    "torch.linalg.vector_norm(a)", "torch.linalg.vector_norm(a, 1, dim=1)", "torch.linalg.vector_norm(a, float('inf'))",
    "torch.linalg.vector_norm(a, 0)", "torch.linalg.vector_norm(a, -float('inf'), dim=0, keepdim=True)",
    "torch.linalg.vector_norm(a, 3.5, dim=(0, 1))", "torch.linalg.vector_norm(torch.tensor(-2.0))",
    "torch.linalg.matrix_norm(a)", "torch.linalg.matrix_norm(a, 'nuc')", "torch.linalg.matrix_norm(a, 1)",
    "torch.linalg.matrix_norm(a, -1)", "torch.linalg.matrix_norm(a, float('inf'))", "torch.linalg.matrix_norm(bs, 2)",
    "torch.linalg.matrix_norm(bs, -2, keepdim=True)", "torch.linalg.matrix_norm(bs, 'fro', dim=(0, 2))",
    "torch.linalg.norm(a)", "torch.linalg.norm(v, 3)", "torch.linalg.norm(a, 'fro')", "torch.linalg.norm(a, 2)",
    "torch.linalg.norm(ba, dim=(1, 2))", "torch.linalg.norm(ba, dim=1)", "torch.norm(a)", "torch.norm(a, dim=1)",
    "torch.norm(a, p=1)", "torch.linalg.vecdot(a, a)", "torch.linalg.vecdot(ba, a, dim=-1)",
    "torch.linalg.diagonal(bs)", "torch.linalg.diagonal(bs, offset=1)",
    "torch.linalg.cond(s)", "torch.linalg.cond(bs, 'fro')", "torch.linalg.cond(s, -1)",
    "torch.cholesky_solve(a.mT, torch.linalg.cholesky(spd))",
    "torch.cholesky_solve(b, torch.linalg.cholesky(bspd, upper=True), upper=True)",
    "torch.linalg.solve_triangular(torch.linalg.cholesky(spd), b, upper=False)",
    "torch.linalg.solve_triangular(torch.linalg.cholesky(bspd).mT, s, upper=True, left=False)",
    "torch.linalg.solve_triangular(torch.linalg.cholesky(spd), bb, upper=False, unitriangular=True)",
    "torch.linalg.solve_triangular(torch.linalg.cholesky(spd), b.double(), upper=False)",
    "torch.cholesky_inverse(torch.linalg.cholesky(bspd))",
    "torch.cholesky_inverse(torch.linalg.cholesky(spd, upper=True), upper=True)",
]
DECOMP_ERRORS = [
    "torch.det(a)", "torch.det(torch.ones(3, 3, dtype=torch.long))", "torch.det(torch.ones(3))", "torch.inverse(a)",
    "torch.linalg.inv(torch.zeros(2, 2))", "torch.linalg.inv(torch.stack([torch.eye(2), torch.zeros(2, 2)]))",
    "torch.linalg.cholesky(torch.zeros(2, 2))", "torch.linalg.cholesky(torch.stack([torch.eye(2), -torch.eye(2)]))",
    "torch.linalg.cholesky(torch.diag(torch.tensor([1., 2., -1.])))",
    "torch.linalg.solve(torch.zeros(2, 2), torch.ones(2))",
    "torch.linalg.solve(torch.stack([torch.eye(2), torch.zeros(2, 2)]), torch.ones(2, 2))",
    "torch.matrix_power(a, 2)", "torch.matrix_power(torch.ones(2, 2, dtype=torch.long), -1)",
    "torch.linalg.norm(torch.ones(2, dtype=torch.long))", "torch.linalg.vector_norm(torch.ones(2, dtype=torch.long))",
    "torch.linalg.matrix_norm(torch.ones(3))", "torch.linalg.norm(a, 'fro', dim=1)", "torch.linalg.matrix_norm(a, ord=3)",
    "torch.linalg.eigh(a)", "torch.linalg.svd(torch.ones(2, 2, dtype=torch.long))", "torch.linalg.qr(a, mode='foo')",
    "torch.linalg.vecdot(torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long))",
    "torch.linalg.matrix_rank(torch.ones(2, 2, dtype=torch.long))", "torch.linalg.pinv(torch.ones(2, 3, dtype=torch.long))",
    "torch.slogdet(a)", "torch.linalg.matrix_exp(torch.ones(2, 2, dtype=torch.long))",
    "torch.linalg.eigvalsh(torch.eye(2, dtype=torch.long))", "torch.linalg.matrix_exp(a)",
    "torch.linalg.cond(torch.ones(3))", "torch.linalg.cond(a, 'nuc')",
    "torch.cholesky_solve(torch.ones(3), torch.eye(3))",
    "torch.linalg.solve_triangular(s, b)", "torch.linalg.solve_triangular(s, v, upper=False)",
    "torch.linalg.solve_triangular(s, a, upper=False)", "torch.linalg.solve_triangular(a, b, upper=False)",
    "torch.linalg.solve_triangular(s, a.mT, upper=False, left=False)",
    "torch.linalg.solve_triangular(s.long(), b.long(), upper=False)",
    "torch.cholesky_inverse(v)", "torch.cholesky_inverse(a)", "torch.cholesky_inverse(s.long())",
]


def _run(expr, dtype, **kw):
    check(lambda torch: eval(expr, _env(torch, dtype)), **kw)


@pytest.mark.parametrize("expr", PRODUCTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex64"])
def test_products(expr, dtype):
    _run(expr, dtype, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("expr", PRODUCT_ERRORS + DECOMP_ERRORS)
def test_errors(expr):
    _run(expr, "float32")


@pytest.mark.parametrize("expr", DECOMP)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_decompositions(expr, dtype):
    _run(expr, dtype, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("expr", ["torch.det(s)", "torch.linalg.inv(s)", "torch.linalg.solve(s, v)",
                                  "torch.linalg.svdvals(a)", "torch.linalg.eigvalsh(spd)",
                                  "torch.linalg.vector_norm(a)", "torch.linalg.matrix_norm(a)",
                                  "torch.slogdet(s)", "torch.linalg.vecdot(a, a)", "torch.linalg.pinv(a)"])
def test_complex(expr):
    _run(expr.replace("spd", "(s @ s.mH + 3 * torch.eye(3))"), "complex128", rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("upper", [False, True])
def test_triangular_solve_and_cholesky_inverse_gradients(upper):
    """PyTorch's gradients: solve_triangular's A gradient stays in A's triangle;
    cholesky_inverse's treats its input as a full matrix (PyTorch's formula)."""
    def f(torch):
        e = _env(torch)
        L = torch.linalg.cholesky(e["bspd"], upper=upper).requires_grad_()
        B = e["b"].clone().requires_grad_()
        X = torch.linalg.solve_triangular(L, B, upper=upper)
        Y = torch.cholesky_inverse(L, upper=upper)
        gx = torch.autograd.grad((X * X).sum(), (L, B))
        (gy,) = torch.autograd.grad((Y * torch.arange(9.0).reshape(3, 3)).sum(), L)
        return X, Y, gx, gy, X.grad_fn.name(), Y.grad_fn.name()
    check(f, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("which", ["A", "B", "X", "L", "Y"])
def test_triangular_solve_and_cholesky_inverse_saved_tensors(which):
    """What their backward keeps (A and the solution; the input and the result), by the error
    an in-place change of it raises at backward."""
    def f(torch):
        a = (torch.eye(3) * 2).requires_grad_() * 1
        b = torch.ones(3, 2, requires_grad=True) * 1
        x = torch.linalg.solve_triangular(a, b, upper=False)
        y = torch.cholesky_inverse(a)
        {"A": a, "B": b, "X": x, "L": a, "Y": y}[which].mul_(2)
        (x if which in "ABX" else y).sum().backward()
        return "ok"
    check(f)


def _rec(torch, fn):
    """Reconstruction/invariant checks (decompositions are unique only up to signs)."""
    return fn(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_decomposition_invariants(dtype):
    def f(torch):
        e = _env(torch, dtype)
        a, s, bs = e["a"], e["s"], e["bs"]
        out = []
        for mode in ("reduced", "complete"):
            q, r = torch.linalg.qr(a.mT, mode=mode)
            out += [(q @ r), q.shape, r.shape, torch.triu(r).sub(r).abs().sum()]
        q, r = torch.qr(bs)
        out.append(q @ r)
        for full in (True, False):
            U, S, Vh = torch.linalg.svd(a, full_matrices=full)
            out += [U.shape, S, Vh.shape, (U[..., :2] * S.to(U.dtype)) @ Vh[..., :2, :]]
        U, S, V = torch.svd(a)
        out += [U.shape, S, V.shape, (U * S.to(U.dtype)) @ V.mH]
        h = s @ s.mH + torch.eye(3, dtype=s.dtype)
        w, vecs = torch.linalg.eigh(h)
        out += [w, (vecs * w.to(vecs.dtype)) @ vecs.mH]
        L = torch.linalg.cholesky(h)
        out.append(L @ L.mH)
        return out
    check(f, rtol=1e-4, atol=1e-4)


def test_eig_general():
    def f(torch):
        m = torch.tensor([[2., 1.], [0., 3.]])
        w = torch.linalg.eigvals(m)
        lam, vecs = torch.linalg.eig(m)
        return w.abs().sum(), (m.to(vecs.dtype) @ vecs - vecs * lam).abs().max() < 1e-5
    check(f)


def test_inplace_and_out():
    def f(torch):
        a = torch.arange(4.).reshape(2, 2)
        a @= torch.eye(2) * 2
        o = torch.empty(0)
        torch.mm(a, a, out=o)
        t = torch.ones(2, 2)
        t.baddbmm_(torch.ones(1, 2, 3), torch.ones(1, 3, 2)) if False else t.addmm_(a, a, alpha=2)
        return a, o, t
    check(f)


def test_int_matmul_and_shapes():
    def f(torch):
        x = torch.arange(12).reshape(3, 4)
        return x @ x.t(), x.t() @ x, torch.arange(3) @ x, x @ torch.arange(4), torch.empty(0, 3) @ x
    check(f)


def test_every_linalg_row_covered():
    names = {n for n, r in OPS.items() if r is not None and r.family == "linalg"
             and not n.startswith("_")}
    text = " ".join(PRODUCTS + PRODUCT_ERRORS + DECOMP + DECOMP_ERRORS + LU_AND_MORE) + \
        " linalg_qr qr linalg_svd svd linalg_eigh linalg_eig linalg_eigvals"
    text = text.replace("torch.linalg.", "torch.linalg_")
    missing = [n for n in names if n not in text]
    assert not missing, missing



# torch.norm's string orders: "fro" over at most two dims is the vector 2-norm, anything else a
# matrix norm (checked as linalg.matrix_norm checks: order, input, dims, then dtype)
NORM_ROUTES = [
    "torch.norm(x4, p='fro', dim=[1, 2, 3])", "x4.norm('fro', (0, 1, 2, 3), keepdim=True)",
    "torch.norm(x4, 'fro', [1, 2, 3], dtype=torch.float64)", "torch.norm(x4, 'fro', [1, 2])",
    "torch.norm(x4, 'fro', 1)", "torch.norm(x4, 'fro', [1])", "torch.norm(x4, 'fro', [])",
    "torch.norm(x4, 'fro')", "torch.norm(x4, 'nuc', [1, 2, 3])", "torch.norm(x4, 'nuc', [1])",
    "torch.norm(x4, 'nuc', [0, 3], keepdim=True)", "torch.norm(x4, 'nuc')",
    "torch.norm(a, 'nuc')", "torch.norm(v, 'nuc')", "torch.norm(x4, 'nuc', (1, -3))",
    "torch.norm(x4, 'abc')", "torch.norm(x4, 'abc', [1, 2])", "torch.norm(x4, None)",
    "torch.norm(x4, None, [1, 2, 3])", "torch.norm(a.half(), 'nuc')",
    "torch.norm(x4.half(), 'fro', [1, 2, 3])", "torch.norm(a.long(), 'fro', [0, 1, 1])",
    "torch.norm(a.cfloat(), 'nuc', dtype=torch.float32)",
    "torch.linalg.matrix_norm(a, 'fro', (0, 0))", "torch.linalg.matrix_norm(a, 2, (1, -1))",
    "torch.linalg.matrix_norm(a, 'abc', (0,))", "torch.linalg.matrix_norm(a, 3.0, (0, 5))",
    "torch.linalg.matrix_norm(a.half(), 'nuc', (0,))", "torch.linalg.matrix_norm(a.half(), 1)",
    "torch.linalg.matrix_norm(a.bfloat16(), -2)", "torch.linalg.matrix_norm(a, dtype=torch.half)",
    "torch.linalg.matrix_norm(a, 'nuc', dtype=torch.long)",
    "torch.linalg.matrix_norm(a, dtype=torch.complex64)",
    "torch.linalg.matrix_norm(a.cfloat(), 1, dtype=torch.complex128)",
    "torch.linalg.norm(a.half(), 2)", "torch.linalg.cond(a, 3.0)",
]


@pytest.mark.parametrize("expr", NORM_ROUTES)
def test_norm_routes(expr):
    def f(torch):
        env = _env(torch)
        env["x4"] = _r(torch, (2, 3, 4, 5), seed=10)
        return eval(expr, env)
    check(f)


# LU family, tensorinv/tensorsolve/vander, and the fixes below the OpInfo CI profile's first two
# samples: empty batches, size-1 contracted dims, in-place shape messages, lstsq result shapes
LU_AND_MORE = [
    "torch.linalg.lu_factor(bs)", "torch.linalg.lu_factor_ex(bs)", "torch.linalg.lu(a)",
    "torch.linalg.lu(a.mT)", "torch.lu(bs, get_infos=True)", "torch.lu_unpack(*torch.linalg.lu_factor(a))",
    "torch.lu_unpack(*torch.linalg.lu_factor(bs), unpack_data=False)",
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(bs), b[:, :2].expand(2, 3, 2))",
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(s), b[:, :3], adjoint=True)",
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(s), b[:, :3].mT, left=False)",
    "torch.lu_solve(b[:, :2], *torch.linalg.lu_factor(s))",
    "torch.triangular_solve(b, s)", "torch.triangular_solve(b, bs, upper=False, transpose=True)",
    "torch.linalg.lu_factor(torch.zeros(2, 3, 3))", "torch.linalg.lu_factor(v)",
    "torch.linalg.lu_factor(s.long())", "torch.lu_unpack(s, torch.ones(3))",
    "torch.triangular_solve(b.long(), s.long())", "torch.triangular_solve(b, a)",
    "torch.linalg.vander(v)", "torch.linalg.vander(v.long(), N=4)", "torch.linalg.vander(v[0], N=2)",
    "torch.linalg.vander(v, N=1)", "torch.linalg.tensorinv(torch.eye(6, dtype=a.dtype).reshape(2, 3, 6) + 0.1 * b.reshape(-1)[:6], ind=2)",
    "torch.linalg.tensorsolve(torch.eye(6, dtype=a.dtype).reshape(2, 3, 6) + 0.1, a, dims=(0, 2))",
    "torch.linalg.inv(torch.ones(2, 0, 0))", "torch.linalg.inv_ex(torch.ones(0, 0))",
    "torch.linalg.cholesky(torch.ones(0, 0))", "torch.linalg.det(torch.ones(2, 0, 0))",
    "torch.tensordot(torch.ones(1, 1, 1), ba, dims=([0, 1], [2, 0]))",
    "torch.matmul(torch.ones(5, 5, 0), torch.ones(0, 5))",
    "torch.linalg.cross(ba, ba[..., :1])", "torch.linalg.cross(ba.half(), bs.half()[:, :2], dim=2)",
    "torch.ones(1).addmm_(a, b)", "torch.ones(()).addmv_(a, v)", "torch.ones(3).addmv_(a, v)",
    "torch.ones(2, 1).addmv_(a, v)", "torch.ones(1).baddbmm_(ba, bb)", "torch.ones(1).addr_(u, v)",
    "torch.ones(3, 1).addr_(u, v)", "torch.ones(1).addbmm_(ba, bb)", "torch.ones(4).addbmm_(ba, bb)",
    "torch.addmv(torch.ones(()), a, w[:2])", "torch.addbmm(c, ba, bb)",
    "torch.addbmm(c.half(), ba.half() * 9, bb.half() * 9)", "torch.addbmm(c.short(), ba.short(), bb.short())",
    "torch.addr(a.half(), u.half() * 3, v.half() * 3, beta=0.6, alpha=0.2)",
    "torch.addbmm(torch.ones(2, 2, 4), ba, bb)",
    "torch.linalg.lstsq(s, b, driver='gelsd')", "torch.linalg.lstsq(s, b, driver='gels')",
    "torch.linalg.lstsq(b.mT, torch.ones(4, 2), driver='gelss')", "torch.linalg.lstsq(b.mT, torch.ones(4))",
    "torch.linalg.lstsq(v, v)", "torch.linalg.lstsq(s, b, driver='foo')",
    "torch.linalg.pinv(s + s.mT.conj(), hermitian=True)",
    "torch.linalg.pinv(bs.cdouble(), hermitian=True)",
    "torch.geqrf(b.mT)", "torch.linalg.householder_product(*torch.geqrf(b.mT))",
    "torch.orgqr(*torch.geqrf(bs))", "torch.ormqr(*torch.geqrf(b.mT), b[:, :2].expand(4, 2).clone())",
    "torch.ormqr(*torch.geqrf(s), b.mT, left=False, transpose=True)",
    "torch.linalg.eig(torch.ones(0, 0))",
]


@pytest.mark.parametrize("expr", LU_AND_MORE)
def test_lu_and_more(expr):
    check(lambda torch: eval(expr, _env(torch)))


def test_lstsq_fields_grad():
    """The singular values PyTorch returns are not differentiable; solution and residuals are."""
    def f(torch):
        A = _r(torch, (4, 3), "float64").requires_grad_()
        r = torch.linalg.lstsq(A, _r(torch, (4, 2), "float64", 1), driver="gelsd")
        (g,) = torch.autograd.grad(r.solution.sum() + r.residuals.sum(), A)
        return g, r.singular_values.requires_grad, r.rank
    check(f)


def test_pinv_rank_deficient_grad():
    def f(torch):
        a = _r(torch, (3, 2), "float64").requires_grad_()
        (g,) = torch.autograd.grad(torch.linalg.pinv(a @ a.mT).sum(), a)
        return g
    check(f)
