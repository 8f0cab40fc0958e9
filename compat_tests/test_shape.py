"""Shape family: joining, tiling, flips, triangles, diagonals, searching — against real torch."""
import numpy as np
import pytest

from harness import check

import torchlike
from torchlike._ops.registry import OPS

DTYPES = ["int64", "float32", "float64", "bool"]


def _x(torch, shape, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-5, 6, size=shape)
    if dtype == "bool":
        a = a > 0
    return torch.tensor(a).to(getattr(torch, dtype))


def _f(torch, shape, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.standard_normal(shape)).to(getattr(torch, dtype))


# table of (name, expression) run under both libraries; `x`, `y`, `v` are prepared inputs
CASES = [
    "torch.cat([x, x])", "torch.cat([x, x], 1)", "torch.cat([x, x], -1)", "torch.cat((x, y))",
    "torch.concat([x, x], dim=1)", "torch.concatenate([x, x], axis=0) if False else torch.concatenate([x, x], 0)",
    "torch.cat([torch.ones(0), x, x.long()])", "torch.cat([x, x.t()], 1)",
    "torch.cat([x.double(), x.int()])", "torch.cat([x.bool(), x.abs().to(torch.uint8)])",
    "torch.cat([torch.ones(0)], 3)", "torch.cat([torch.ones(0), torch.ones(0)])",
    "torch.cat([torch.ones(2, 0), torch.ones(0)])", "torch.cat([x])",
    "torch.cat([])", "torch.cat([torch.tensor(1.)])", "torch.cat([x, torch.tensor(1.)])",
    "torch.cat([x, torch.ones(3, 3)], 1)", "torch.cat([x, torch.ones(2)])", "torch.cat([x], 2)",
    "torch.cat(x)", "torch.cat([x, 1])",
    "torch.stack([x, x])", "torch.stack([x, x], 2)", "torch.stack((x, x), -3)", "torch.stack([v, v.long()])",
    "torch.stack([torch.tensor(1.), torch.tensor(2)])", "torch.stack([])", "torch.stack([x], 3)",
    "torch.stack([torch.ones(2), torch.ones(3)])",
    "torch.hstack([x, x])", "torch.hstack([v, v])", "torch.hstack([torch.tensor(1), torch.tensor(2.)])",
    "torch.vstack([v, v])", "torch.vstack([x, v])", "torch.row_stack([v, torch.ones(1, 3)])",
    "torch.dstack([v, v])", "torch.dstack([x, x])", "torch.column_stack([v, x.t()])",
    "torch.column_stack([torch.tensor(1), torch.ones(2)])", "torch.hstack([])", "torch.vstack([])",
    "torch.dstack([])", "torch.column_stack([])",
    "torch.flip(x, (0,))", "torch.flip(x, [0, 1])", "torch.flip(x, (-1,))", "x.flip(0)", "x.flip(0, 1)",
    "x.flip([1])", "torch.flip(x, 0)", "torch.flip(x, (0, 0))", "torch.flip(torch.tensor(1.), (0,))",
    "torch.flip(x, (2,))", "torch.fliplr(x)", "torch.flipud(x)", "torch.fliplr(v)",
    "torch.flipud(torch.tensor(1.))",
    "torch.roll(x, 1)", "torch.roll(x, -1, 0)", "torch.roll(x, (1, 2), (0, 1))", "x.roll(1, 1)",
    "torch.roll(x, (1, 2), (0,))", "torch.roll(torch.tensor(1.), 1)", "torch.roll(x, 7, -1)",
    "torch.rot90(x)", "torch.rot90(x, 2)", "torch.rot90(x, -1)", "torch.rot90(x, 3, (1, 0))",
    "torch.rot90(x, 1, (0, 0))", "torch.rot90(x, 1, (0,))", "torch.rot90(v, 1)", "torch.rot90(x, 1, (0, 2))",
    "x.repeat(2, 1)", "x.repeat(2, 1, 2)", "x.repeat((2, 3))", "v.repeat(0)", "torch.tensor(1.).repeat(2, 3)",
    "x.repeat(2)", "x.repeat(-1, 2)", "x.repeat()",
    "torch.tile(x, (2,))", "x.tile(2, 2)", "torch.tile(v, (2, 2))", "x.tile((3,))",
    "torch.repeat_interleave(x, 2)", "torch.repeat_interleave(x, 2, 1)", "torch.repeat_interleave(x, 2, dim=-2)",
    "torch.repeat_interleave(v, torch.tensor([1, 0, 2]))", "torch.repeat_interleave(x, torch.tensor([1, 2]), 0)",
    "torch.repeat_interleave(torch.tensor([1, 2, 0]))", "x.repeat_interleave(3)",
    "torch.repeat_interleave(x, torch.tensor([2]), dim=1)", "torch.repeat_interleave(v, torch.tensor([[1, 2]]))",
    "torch.repeat_interleave(v, torch.tensor([1, 2]))", "torch.repeat_interleave(v, torch.tensor([1, -2, 1]))",
    "torch.repeat_interleave(torch.tensor([1., 2]))", "torch.repeat_interleave(v, -1)",
    "torch.repeat_interleave(v, 2, output_size=3)", "torch.repeat_interleave(v, 2, output_size=6)",
    "torch.repeat_interleave(v, torch.tensor([1, 2, 1]), output_size=5)",
    "torch.meshgrid(v, w, indexing='ij')", "torch.meshgrid(v, w, indexing='xy')", "torch.meshgrid([v, w], indexing='ij')",
    "torch.meshgrid(v, w)", "torch.meshgrid(v, w, v, indexing='xy')", "torch.meshgrid(torch.tensor(2.), v, indexing='ij')",
    "torch.meshgrid(x, indexing='ij')[0].shape if False else torch.meshgrid(v, indexing='ij')",
    "torch.meshgrid(indexing='ij')", "torch.meshgrid(v, v.long(), indexing='ij')", "torch.meshgrid(v, v, indexing='foo')",
    "torch.broadcast_tensors(x, v)", "torch.broadcast_tensors(x, torch.ones(3, 1, 1))", "torch.broadcast_tensors(x, x.t())",
    "torch.broadcast_shapes((2, 3), (3, 1, 1))", "torch.broadcast_shapes()", "torch.broadcast_shapes(2, (3, 1))",
    "torch.broadcast_shapes((2, 3), (3, 2))", "torch.broadcast_shapes((2, 3), (-1,))", "torch.broadcast_shapes((0,), (1,))",
    "torch.atleast_1d(torch.tensor(1.))", "torch.atleast_1d(x)", "torch.atleast_2d(torch.tensor(1.))", "torch.atleast_2d(v)",
    "torch.atleast_3d(torch.tensor(1.))", "torch.atleast_3d(v)", "torch.atleast_3d(x)", "torch.atleast_3d(torch.ones(1, 2, 3, 4))",
    "torch.atleast_1d(torch.tensor(1.), v)", "torch.atleast_2d([torch.tensor(1.), v])",
    "torch.tril(x)", "torch.tril(x, 1)", "torch.triu(x, -1)", "torch.triu(torch.ones(2, 3, 3))", "x.tril(-5)",
    "x.clone().tril_()", "x.clone().triu_(1)", "torch.tril(v)", "torch.triu(v)",
    "torch.diag(v)", "torch.diag(v, 1)", "torch.diag(v, -2)", "torch.diag(x)", "torch.diag(x, 1)", "torch.diag(x, 5)",
    "torch.diag(torch.ones(2, 2, 2))", "torch.diag(torch.tensor(1.))",
    "torch.diag_embed(x)", "torch.diag_embed(x, 1)", "torch.diag_embed(x, -1, 0, 2)", "torch.diag_embed(x, 0, -1, -2)",
    "torch.diag_embed(x, 0, 1, 1)", "torch.diagflat(x)", "torch.diagflat(v, -1)", "torch.diagflat(torch.tensor(2.))",
    "torch.block_diag(x, v)", "torch.block_diag()", "torch.block_diag(v.long(), torch.tensor(2.5))",
    "torch.block_diag(v.long(), v.int())", "torch.block_diag(v, torch.ones(2, 2, 2))", "torch.block_diag(x, torch.ones(0, 2))",
    "torch.cartesian_prod(v)", "torch.cartesian_prod(v, w)", "torch.cartesian_prod(v, w, v)", "torch.cartesian_prod(x)",
    "torch.cartesian_prod()", "torch.cartesian_prod(v, w.long())",
    "torch.combinations(v)", "torch.combinations(v, 3)", "torch.combinations(v, with_replacement=True)",
    "torch.combinations(v, 0)", "torch.combinations(v, 5)", "torch.combinations(v, -1)", "torch.combinations(x)",
    "torch.trace(x)", "torch.trace(x.t())", "torch.trace(torch.ones(3))", "torch.trace(x.bool())",
    "torch.narrow_copy(x, 1, 1, 2)", "torch.narrow_copy(x, -1, -2, 2)", "x.narrow_copy(0, 1, 1)",
    "torch.narrow_copy(x, 0, 1, 5)",
    "torch.diff(v)", "torch.diff(x)", "torch.diff(x, dim=0)", "torch.diff(x, n=2)", "torch.diff(x, n=0)", "torch.diff(x, n=5)",
    "torch.diff(x, prepend=x, append=x)", "torch.diff(x, dim=0, append=torch.ones(1, 3))",
    "torch.diff(torch.tensor(1.))", "torch.diff(x, n=-1)", "torch.diff(x, dim=0, append=torch.ones(3))",
    "torch.diff(torch.tensor([True, False, False]))", "torch.diff(torch.tensor([1, 2, 4]), prepend=torch.tensor([1.]))",
    "torch.diff(torch.tensor([1, 2], dtype=torch.uint8))", "torch.diff(x, append=torch.ones(2, 1, dtype=torch.float64))",
    "torch.searchsorted(s, torch.tensor([[2, 4], [0, 9]]))", "torch.searchsorted(s, torch.tensor([3, 5]), right=True)",
    "torch.searchsorted(s, torch.tensor([3, 5]), side='right')", "torch.searchsorted(s, 3)", "torch.searchsorted(s, torch.tensor(3))",
    "torch.searchsorted(s, torch.tensor([3.5]))", "torch.searchsorted(s, torch.tensor([3]), out_int32=True)",
    "torch.searchsorted(torch.tensor([5, 3, 1]), torch.tensor([3, 4]), sorter=torch.tensor([2, 1, 0]))",
    "torch.searchsorted(torch.tensor([[1, 3, 5], [2, 4, 6]]), torch.tensor([[2, 4], [1, 7]]))",
    "torch.searchsorted(torch.tensor([[1, 3, 5]]), torch.tensor([[2, 4], [1, 1]]))",
    "torch.searchsorted(s, torch.tensor([3]), side='foo')", "torch.searchsorted(s, torch.tensor([3]), side='left', right=True)",
    "torch.bucketize(torch.tensor([[1, 3], [6, 0]]), s)", "torch.bucketize(torch.tensor([1, 3]), s, right=True)",
    "torch.bucketize(3, s)", "torch.bucketize(torch.tensor([3]), torch.ones(2, 2))",
    "torch.bucketize(torch.tensor([2.5]), s, out_int32=True)",
    "torch.cdist(f1, f2)", "torch.cdist(f1, f2, p=1)", "torch.cdist(f1, f2, p=0)", "torch.cdist(f1, f2, p=float('inf'))",
    "torch.cdist(f1, f2, p=3)", "torch.cdist(f1, f2, compute_mode='use_mm_for_euclid_dist')",
    "torch.cdist(f1.double(), f2.double(), p=1.5)", "torch.cdist(torch.ones(5, 1, 2, 3), torch.ones(4, 3, 3))",
    "torch.cdist(f1, torch.ones(4, 2))", "torch.cdist(v, v)", "torch.cdist(x.long(), x.long())",
    "torch.cdist(f1, f2, p=-1)", "torch.cdist(f1, f2, compute_mode='foo')", "torch.cdist(f1.double(), f2)",
    "torch.cdist(torch.ones(5, 2, 3), torch.ones(2, 4, 3))",
]


def _env(torch, dtype="float32"):
    return dict(torch=torch, x=_x(torch, (2, 3), dtype), y=_x(torch, (4, 3), dtype, 1),
                v=_x(torch, (3,), dtype, 2), w=_x(torch, (2,), dtype, 3),
                s=torch.tensor([1, 3, 5, 7]), f1=_f(torch, (3, 4)), f2=_f(torch, (5, 4), seed=1))


@pytest.mark.parametrize("expr", CASES)
def test_cases(expr):
    check(lambda torch: eval(expr, _env(torch)))


DTYPE_CASES = ["torch.cat([x, y])", "torch.stack([x, x], 1)", "torch.hstack([x, v.reshape(1, 3).expand(2, 3)])",
               "torch.flip(x, (0, 1))", "torch.roll(x, 1, 1)", "torch.rot90(x)", "x.repeat(2, 2)",
               "torch.tile(x, (2,))", "torch.repeat_interleave(x, 2, 0)", "torch.tril(x)", "torch.triu(x)",
               "torch.diag(x)", "torch.diag(v)", "torch.diag_embed(x)", "torch.diagflat(v)",
               "torch.block_diag(x, v)", "torch.combinations(v)", "torch.trace(x)", "torch.diff(x)",
               "torch.narrow_copy(x, 1, 0, 2)", "torch.fliplr(x)", "torch.flipud(x)",
               "torch.cartesian_prod(v, w)", "torch.meshgrid(v, w, indexing='ij')",
               "torch.searchsorted(torch.sort(v).values, x)", "torch.bucketize(x, torch.sort(v).values)"]


@pytest.mark.parametrize("expr", DTYPE_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes(expr, dtype):
    if "sort" in expr:
        expr = expr.replace("torch.sort(v).values", "vs")

    def f(torch):
        env = _env(torch, dtype)
        env["vs"] = torch.tensor(sorted(set(env["v"].tolist()))).to(env["v"].dtype)
        return eval(expr, env)
    check(f)


def test_out_and_inplace():
    def f(torch):
        x = _x(torch, (2, 3))
        o = torch.empty(0)
        torch.cat([x, x], out=o)
        o2 = torch.empty(4, 3, dtype=torch.float64)
        torch.vstack([x, x], out=o2)
        t = x.clone()
        t.t().tril_()
        o3 = torch.empty(0, dtype=torch.long)
        r = torch.cat([x, x], out=o3)
        return o, o2, t, r
    check(f)


def test_meshgrid_views_share_storage():
    def f(torch):
        a, b = torch.arange(3.), torch.arange(2.)
        g = torch.meshgrid(a, b, indexing="xy")
        return [t.stride() for t in g], [t.shape for t in g], g[0].data_ptr() == a.data_ptr()
    check(f)


def test_every_shape_row_has_a_case():
    names = {n for n, r in OPS.items() if r is not None and r.family == "shape"
             and not n.startswith("_")}
    text = " ".join(CASES + DTYPE_CASES)
    missing = [n for n in names if n not in text]
    assert not missing, missing
    for n in names:
        assert hasattr(torchlike, n) or hasattr(torchlike.Tensor, n)


# ---- view/shape op fixes: keyword dims, 0-d inputs, PyTorch's error messages -----------------

SHAPE_FIXES = [
    lambda torch: torch.arange(6.).reshape(2, 3).flip(dims=(1,)),
    lambda torch: torch.arange(6.).reshape(2, 3).flip(dims=[0, 1]),
    lambda torch: torch.tensor(3.).transpose(0, -1),
    lambda torch: torch.tensor(3.).transpose(0, 1),
    lambda torch: torch.tensor(3.).transpose_(0, 0),
    lambda torch: torch.zeros(2, 3, 4).movedim((0, 2, -3), (1, 0, 2)),
    lambda torch: torch.zeros(2, 3, 4).movedim((1, 0, 2), (0, 2, -3)),
    lambda torch: torch.zeros(10).narrow(0, 0, -1),
    lambda torch: torch.arange(12.).reshape(3, 4).narrow(1, torch.tensor(1), 2),
    lambda torch: torch.zeros(3, 4).narrow(1, torch.tensor([1, 2]), 2),
    lambda torch: torch.zeros(3, 4).narrow(1, torch.tensor(True), 2),
    lambda torch: torch.narrow_copy(torch.zeros(2, 3), 2, 0, 0),
    lambda torch: torch.unbind(torch.tensor(1.), 0),
    lambda torch: torch.roll(torch.zeros(5), ()),
    lambda torch: torch.roll(torch.tensor(1.), 0, 0),
    lambda torch: torch.hsplit(torch.tensor(1.), 1),
    lambda torch: torch.vsplit(torch.zeros(4), 2),
    lambda torch: torch.dsplit(torch.zeros(4, 4), 2),
    lambda torch: torch.hsplit(torch.zeros(4, 4), 0),
    lambda torch: torch.vsplit(torch.zeros(4, 4), "abc"),
    lambda torch: torch.tensor_split(torch.arange(7.), torch.tensor(3)),
    lambda torch: torch.arange(5.).sum_to_size(()),
    lambda torch: torch.ones(2, 3, dtype=torch.uint8).sum_to_size(1, 3),
    lambda torch: torch.ones(2, 3, dtype=torch.bool).sum_to_size(1, 3),
    lambda torch: torch.tensor(True).sum_to_size(()),
    lambda torch: torch.ones(2, 3, dtype=torch.int8).sum_to_size(2, 3),
]


@pytest.mark.parametrize("fn", SHAPE_FIXES)
def test_shape_fixes(fn):
    check(fn)


# the `*_copy` twins of the view ops, `unsafe_split`/`unsafe_chunk`
VIEW_COPIES = [
    lambda torch: torch.expand_copy(torch.arange(3.).reshape(1, 3), (2, 3)),
    lambda torch: torch.diagonal_copy(torch.arange(9.).reshape(3, 3), 1),
    lambda torch: torch.alias_copy(torch.arange(3.)),
    lambda torch: torch.as_strided_copy(torch.arange(9.), (2, 2), (1, 2), 1),
    lambda torch: torch.view_copy(torch.arange(6.), (2, 3)),
    lambda torch: torch.permute_copy(torch.arange(6.).reshape(2, 3), (1, 0)),
    lambda torch: torch.split_with_sizes_copy(torch.arange(6.), [2, 4]),
    lambda torch: torch.unbind_copy(torch.arange(6.).reshape(2, 3), 1),
    lambda torch: torch.unfold_copy(torch.arange(6.), 0, 2, 1),
    lambda torch: torch.squeeze_copy(torch.zeros(1, 3, 1), 0),
    lambda torch: torch.unsqueeze_copy(torch.arange(3.), 1),
    lambda torch: torch.transpose_copy(torch.arange(6.).reshape(2, 3), 0, 1),
    lambda torch: torch.t_copy(torch.arange(6.).reshape(2, 3)),
    lambda torch: torch.t_copy(torch.arange(6.).reshape(2, 3)).is_contiguous(),
    lambda torch: torch.t_copy(torch.zeros(2, 3, 4)),
    lambda torch: torch.unsafe_chunk(torch.arange(7.), 3),
    lambda torch: torch.arange(7.).unsafe_split(3),
    lambda torch: torch.unsafe_split(torch.arange(6.), [2, 4]),
    lambda torch: torch.unsafe_split_with_sizes(torch.arange(6.), [2, 4]),
]


@pytest.mark.parametrize("fn", VIEW_COPIES)
def test_view_copies(fn):
    check(fn)


def test_view_copy_out():
    def f(torch):
        out = torch.empty(3, 2)
        r = torch.transpose_copy(torch.arange(6.).reshape(2, 3), 0, 1, out=out)
        return r is out, out
    check(f)
