"""Indexing: __getitem__/__setitem__ (views, strides, advanced indexing) and the gather/scatter
family, compared against real PyTorch."""
import numpy as np
import pytest

from harness import check

A = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)


def _x(torch):
    return torch.tensor(A.copy())


# ---- basic indexing: views -----------------------------------------------------------------------

BASIC = [
    "x[0]", "x[-1]", "x[1, 2]", "x[:, 2]", "x[:, -3]", "x[..., 1]", "x[0, ..., 4]", "x[None]",
    "x[:, None]", "x[..., None]", "x[None, 1, None, 2]", "x[1:]", "x[:1]", "x[5:]", "x[-10:1]",
    "x[:, ::2]", "x[:, 1::2, ::3]", "x[:, :, 1:3, 2:]", "x[:]", "x[...]", "x[()]", "x[..., ...]",
    "x[0, 0, 0, 0]", "x[0][1][2]", "x[:, :, :, None, None]", "x[torch.tensor(1)]",
    "x[:, torch.tensor(-1)]", "x[1, 1:2, None, ::2]", "x[:, 7:2]", "x[..., :0]",
    "x[np.int64(1)]", "x[1, -1, -1, -1]", "x.t()[1] if x.dim() == 2 else x[0].transpose(0, 1)[2]",
    "x[0].transpose(0, 2)[1:, ::2]", "x[0, 0, 0, 0][...]", "x[0, 0, 0, 0][None]",
]


@pytest.mark.parametrize("expr", BASIC)
def test_getitem_basic_view(expr):
    def f(torch):
        x = _x(torch)
        y = eval(expr)
        info = (y, y._base is not None, y.numel() and y.data_ptr() - x.data_ptr(), y.is_contiguous())
        if y.numel():
            y.view(-1)[0:1].fill_(-7) if y.is_contiguous() else y.fill_(-7)
        return info, x, x._version
    check(f, check_stride=True)


ADVANCED = [
    "x[[0, 1]]", "x[[1, 0, 1]]", "x[torch.tensor([0, -1])]", "x[:, [2, 0]]", "x[[0, 1], [1, 2]]",
    "x[[[0, 1], [1, 2]]]", "x[[0, 1], :, [1, 2]]", "x[:, [0, 1], :, 0]", "x[:, [0, 1], 0]",
    "x[[0, 1], 1, [0, 1]]", "x[:, torch.tensor(1), [0, 1]]", "x[[0, 1], None, [1, 2]]",
    "x[x > 60]", "x[x[..., 0] > 30]", "x[torch.tensor([True, False])]", "x[[True, False]]",
    "x[:, torch.tensor([True, False, True])]", "x[True]", "x[False]", "x[torch.tensor(True)]",
    "x[torch.tensor(False)]", "x[:, None, True]", "x[[]]", "x[torch.tensor([], dtype=torch.long)]",
    "x[torch.tensor([[0, 1], [1, 1]])]", "x[torch.tensor([0, 1], dtype=torch.int32)]",
    "x[[0], [1], [2], [3]]", "x[:, [[0], [2]], [1, 3]]", "x[..., [0, 4]]", "x[1:, [0, 2], ::2]",
    "x[0][[2, 0]]", "x[0, [1, 2], 2:4, [0, 1]]", "x[np.array([1, 0])]",
    "x[torch.tensor([[True, False, True], [False, True, True]])]",
    "x[:, :, torch.tensor([1, 3])][..., 2]",
    # one bool mask: a gather of its flat positions from the merged dims
    "x[0, x[0] > 40]", "x[1:, x[0, :, 0] > 2]", "x.transpose(0, 2)[x.transpose(0, 2) > 70]",
    "x[..., torch.tensor([True, False, True, False, True])]", "x[x > 1000]",
    "x[:, torch.ones(3, 4, dtype=torch.bool)]", "x.int()[x.int() % 3 == 0]",
    "(x > 50)[x < 60]",
]


@pytest.mark.parametrize("expr", ADVANCED)
def test_getitem_advanced_copy(expr):
    def f(torch):
        x = _x(torch)
        y = eval(expr)
        return y, y._base is None, y.is_contiguous()
    check(f)


def test_getitem_advanced_copy_is_independent():
    def f(torch):
        x = _x(torch)
        y = x[[0, 1]]
        y.fill_(0)
        return x.sum(), y
    check(f)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float64", "uint8", "float16"])
def test_getitem_dtypes(dtype):
    def f(torch):
        x = torch.arange(12).view(3, 4).to(getattr(torch, dtype))
        return x[1], x[:, 1:3], x[[0, 2], [1, 3]], x[x.long() > 4] if dtype != "bool" else x[x]
    check(f)


ERRORS = [
    "x[5]", "x[:, 5]", "x[-3]", "x[1.5]", "x[0, 0, 0, 0, 0]", "x[None, 0, 0, 0, 0, 0]",
    "x[::-1]", "x[::0]", "x[:, ::-2]", "torch.tensor(3.)[0]", "x[[0, 5]]", "x[:, [0, 7]]",
    "x[[0, 1], [1, 7]]", "x[:, :, [9]]", "x[[0, 1], [0, 1, 2]]", "x[torch.tensor([0., 1.])]",
    "x[torch.ones(3, dtype=torch.bool)]", "x[:, torch.tensor([True, False])]", "x[{1}]",
    "x[torch.tensor([-3])]", "torch.tensor(3.)[:]", "torch.tensor(3.)[None, 0]",
    "torch.tensor(3.)[[0]]", "torch.tensor(3.)[..., 0]",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_getitem_errors(expr):
    check(lambda torch: eval(expr, {"x": _x(torch), "torch": torch}))


def test_getitem_reuses_kernel_for_new_index_values():
    import torchlike
    from torchlike._ops import indexing
    x = torchlike.arange(10.)
    x[torchlike.tensor([1, 2])]
    n = indexing._gather_kernel.cache_info().currsize
    for i in range(5):
        assert x[torchlike.tensor([i, i + 1])].tolist() == [float(i), float(i + 1)]
    assert indexing._gather_kernel.cache_info().currsize == n


# ---- setitem -----------------------------------------------------------------------------------

SETS = [
    ("x[0] = 1", None), ("x[:, 1] = -2.5", None), ("x[..., 0] = torch.arange(3.)", None),
    ("x[1:] = torch.ones(1, 3, 4, 5)", None), ("x[0] = torch.ones(1, 1, 3, 4, 5)", None),
    ("x[0] = torch.arange(5)", None), ("x[0, 0] = torch.tensor(7)", None),
    ("x[0, 0] = torch.tensor(7.5, dtype=torch.float64)", None), ("x[:, :, 1] = True", None),
    ("x[[0, 1]] = 3.", None), ("x[[1, 0], [0, 2]] = torch.arange(10.).view(2, 1, 5)", None),
    ("x[x > 50] = 0", None), ("x[x > 50] = torch.tensor(-1.)", None),
    ("x[:, [0, 2], :, 1] = torch.tensor([[1.], [2.]])", None),
    ("x[torch.tensor(True)] = 9", None), ("x[..., [0, 4]] = torch.ones(2)", None),
    ("x[0][1][2] = 5", None), ("x[0].t()[1] = torch.ones(4)", None),
    ("x[:, 1][:, [0, 3]] = -1", None), ("x[None, 0, None] = 4", None),
    ("x[[0, 1]] = torch.ones(1, 1, 2, 3, 4, 5)", None),
    ("x[:, ::2, 1::2] = torch.arange(2.)", None),
    # errors
    ("x[0] = torch.ones(2, 4, 5)", None), ("x[0] = torch.ones(2, 3, 4, 5)", None),
    ("x[0] = [1, 2]", None), ("x[[0, 1]] = torch.ones(3)", None),
    ("x[[0, 1]] = torch.ones(2, 3, 4, 5, dtype=torch.long)", None),
    ("x[x > 3] = torch.ones(3)", None), ("x[::-1] = 1", None), ("x[5] = 1", None),
    ("x[[0, 5]] = 1", None),
]


@pytest.mark.parametrize("stmt", [s for s, _ in SETS])
def test_setitem(stmt):
    def f(torch):
        x = _x(torch)
        base = x.view(-1)
        exec(stmt, {"x": x, "torch": torch})
        return x, base, x._version > 0
    check(f)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float64"])
def test_setitem_casts(dtype):
    def f(torch):
        x = torch.zeros(6, dtype=getattr(torch, dtype))
        x[0] = 2.7
        x[1:3] = torch.tensor([1.9, 0.])
        x[torch.tensor([4])] = 1
        x[torch.tensor([True, False, False, False, False, True])] = 1
        return x
    check(f)


def test_setitem_through_view_of_view():
    def f(torch):
        x = torch.zeros(4, 5)
        v = x[1:]
        w = v[:, 2:]
        w[0] = 1
        w[[1, 2], [0, 2]] = torch.tensor([5., 6.])
        v.t()[0, 2] = 9
        return x, v, w, x._version
    check(f)


def test_seed_snippets():
    def f(torch):
        tt = torch.arange(10.)
        other = torch.arange(10.) * 10
        tt[[1, 3, 4]] = other[[1, 3, 4]]
        x = torch.zeros(8)
        y = torch.arange(8.)
        x[-3:] = y[-3:]
        idx = torch.tensor([3, 7, 2])
        bool_mask = torch.zeros(10)
        bool_mask[idx] = 1
        dist = torch.zeros(3, 3)
        triu = torch.triu_indices(3, 3, 1)
        values = torch.tensor([1., 2., 3.])
        dist[triu[0], triu[1]] = values
        return tt, x, bool_mask, dist
    check(f)


# ---- gather / scatter --------------------------------------------------------------------------

B = np.arange(12, dtype=np.float64).reshape(3, 4)
IDX = np.array([[0, 2, 1, 0], [2, 2, 0, 1]])


def _b(torch, dtype="float32"):
    return torch.tensor(B.copy()).to(getattr(torch, dtype))


@pytest.mark.parametrize("dtype", ["float32", "int64", "float64", "int32"])
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_gather(dtype, dim):
    def f(torch):
        x = _b(torch, dtype)
        idx = torch.tensor(IDX[:, :3]) if dim in (0, -2) else torch.tensor([[0, 3], [2, 2], [1, 0]])
        return torch.gather(x, dim, idx), x.gather(dim, idx[:1])
    check(f)


@pytest.mark.parametrize("expr", [
    "torch.gather(x, 1, torch.tensor([[0], [2]], dtype=torch.int32))",
    "torch.gather(x, 1, torch.tensor([0, 1]))", "torch.gather(x, 0, torch.tensor([[0, 1, 2, 0, 1]]))",
    "torch.gather(x, 1, torch.tensor([[5]]))", "torch.gather(x, 1, torch.tensor([[-1]]))",
    "torch.gather(x, 2, torch.tensor([[0]]))", "torch.gather(torch.tensor(5.), 0, torch.tensor(0))",
    "torch.gather(x, 1, torch.tensor([[1.]]))", "x.scatter(1, torch.tensor([[0.]]), 2.)",
    "x.scatter_add(1, torch.tensor([[0.]]), x)", "x.scatter_reduce(1, torch.tensor([[0.]]), x, 'sum')",
    "x.scatter_(1, torch.tensor([[0]]), torch.tensor(1.))",
    "x.scatter(1, torch.tensor([[0]], dtype=torch.int32), 2.)",
    "x.index_select(1, torch.tensor([0], dtype=torch.int16))",
])
def test_gather_edge(expr):
    check(lambda torch: eval(expr, {"x": _b(torch), "torch": torch}))


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("reduce", [None, "add", "multiply"])
def test_scatter(dtype, dim, reduce):
    def f(torch):
        x = _b(torch, dtype)
        idx = torch.tensor([[0, 2, 1, 0], [2, 1, 0, 1]]) if dim == 0 else \
            torch.tensor([[0, 3, 1], [2, 1, 0], [3, 0, 2]])
        src = torch.arange(20).view(4, 5).to(x.dtype) + 1
        kw = {} if reduce is None else {"reduce": reduce}
        a = torch.scatter(x, dim, idx, src, **kw)
        b = x.scatter(dim, idx, 3, **kw)
        v = x[:2]
        c = x.scatter_(dim, idx[:1], src, **kw)
        return a, b, c is x, x, v
    check(f)


def test_scatter_value_kw_and_errors():
    check(lambda torch: _b(torch).scatter(1, torch.tensor([[0], [2]]), value=5.))
    for expr in ["x.scatter_(1, torch.tensor([[0], [2]]), torch.ones(2, 1, dtype=torch.long))",
                 "x.scatter_(1, torch.tensor([[0, 1, 2, 0, 1]]), torch.ones(1, 2))",
                 "x.scatter_(1, torch.tensor([[5]]), 2.)",
                 "x.scatter_(1, torch.tensor([[0]], dtype=torch.int32), 2.)",
                 "x.scatter_(1, torch.tensor([[0]]), 2., reduce='foo')",
                 "x.scatter(1, torch.tensor([0]), 2.)", "x.scatter(3, torch.tensor([[0]]), 2.)"]:
        check(lambda torch: eval(expr, {"x": _b(torch), "torch": torch}))


@pytest.mark.parametrize("dtype", ["float32", "int64", "float64"])
@pytest.mark.parametrize("dim", [0, -1])
def test_scatter_add(dtype, dim):
    def f(torch):
        x = _b(torch, dtype)
        idx = torch.tensor([[0, 0, 1, 2], [2, 0, 0, 0]]) if dim == 0 else \
            torch.tensor([[0, 0, 3], [1, 1, 1], [3, 0, 3]])
        src = torch.arange(20).view(4, 5).to(x.dtype)
        return torch.scatter_add(x, dim, idx, src), x.scatter_add_(dim, idx, src), x
    check(f)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_scatter_reduce(reduce, include_self, dtype):
    def f(torch):
        x = _b(torch, dtype) - 5
        idx = torch.tensor([[0, 0, 3], [1, 1, 1], [3, 0, 3]])
        src = (torch.arange(20).view(4, 5) * 3 % 7 - 2).to(x.dtype)
        a = x.scatter_reduce(1, idx, src, reduce, include_self=include_self)
        b = torch.scatter_reduce(x, 0, idx, src, reduce, include_self=include_self)
        x.scatter_reduce_(-1, idx, src, reduce, include_self=include_self)
        return a, b, x
    check(f)


def test_scatter_reduce_errors():
    check(lambda torch: _b(torch).scatter_reduce(1, torch.tensor([[0]]), torch.ones(1, 1), "foo"))


# ---- index_* -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(dtype, dim):
    def f(torch):
        x = _b(torch, dtype)
        return (torch.index_select(x, dim, torch.tensor([2, 0, 2])),
                x.index_select(dim, torch.tensor([1], dtype=torch.int32)),
                x.index_select(dim, torch.tensor(0)), x.t().index_select(dim, torch.tensor([1])))
    check(f)


@pytest.mark.parametrize("expr", [
    "torch.index_select(x, 1, torch.tensor([[0]]))", "torch.index_select(x, 1, torch.tensor([2.]))",
    "torch.index_select(x, 1, torch.tensor([5]))", "torch.index_select(x, 1, torch.tensor([-1]))",
    "torch.index_select(torch.tensor(3.), 0, torch.tensor([0]))", "torch.index_select(x, 2, torch.tensor([0]))",
])
def test_index_select_edge(expr):
    check(lambda torch: eval(expr, {"x": _b(torch), "torch": torch}))


@pytest.mark.parametrize("dtype", ["float32", "int64", "float64"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_add_copy_fill(dtype, dim):
    def f(torch):
        x = _b(torch, dtype)
        n = 2
        src_shape = [3, 4]
        src_shape[dim] = n
        src = torch.arange(8).view(*src_shape).to(x.dtype) + 1
        idx = torch.tensor([2, 0])
        a = torch.index_add(x, dim, idx, src, alpha=2)
        b = x.index_copy(dim, idx, src)
        c = x.index_fill(dim, torch.tensor([1, -1]), -3)
        d = x.index_fill(dim, idx, torch.tensor(7))
        v = x[1:]
        x.index_add_(dim, torch.tensor([1, 1]), src)
        y = _b(torch, dtype)
        y.index_copy_(dim, idx, src)
        z = _b(torch, dtype)
        z.index_fill_(dim, idx, 2.5)
        return a, b, c, d, x, v, y, z
    check(f)


@pytest.mark.parametrize("expr", [
    "x.index_add(1, torch.tensor([0, 1]), torch.ones(3, 3))",
    "x.index_add(1, torch.tensor([0, 1]), torch.ones(3, 2, dtype=torch.long))",
    "x.index_add(1, torch.tensor([0, 5]), torch.ones(3, 2))",
    "x.index_add(1, torch.tensor([0, 1.]), torch.ones(3, 2))",
    "x.index_add(1, torch.tensor([[0, 1]]), torch.ones(3, 2))",
    "x.index_copy(1, torch.tensor([0, 1]), torch.ones(3, 3))",
    "x.index_copy(1, torch.tensor([0, 5]), torch.ones(3, 2))",
    "x.index_copy(1, torch.tensor([0, 1]), torch.ones(3, 2, dtype=torch.long))",
    "x.index_copy(1, torch.tensor([0, 1], dtype=torch.int32), torch.ones(3, 2))",
    "x.index_fill(1, torch.tensor([0, 1]), torch.tensor([1., 2]))",
    "x.index_fill(1, torch.tensor([0, 5]), 2)", "x.index_fill(1, torch.tensor([0, 1.]), 2)",
    "x.index_reduce(1, torch.tensor([0, 0]), torch.ones(3, 2), 'sum')",
])
def test_index_ops_errors(expr):
    check(lambda torch: eval(expr, {"x": _b(torch), "torch": torch}))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_index_reduce(reduce, include_self, dtype):
    def f(torch):
        x = _b(torch, dtype) - 4
        src = (torch.arange(9).view(3, 3) * 5 % 7 - 3).to(x.dtype)
        idx = torch.tensor([0, 3, 0])
        a = x.index_reduce(1, idx, src, reduce, include_self=include_self)
        x.index_reduce_(-1, idx, src, reduce, include_self=include_self)
        return a, x
    check(f)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(accumulate):
    def f(torch):
        x = _b(torch)
        a = x.index_put((torch.tensor([0, 2]),), torch.tensor(5.), accumulate=accumulate)
        b = torch.index_put(x, [torch.tensor([0, 1]), torch.tensor([3, 1])],
                            torch.tensor([1., 2.]), accumulate)
        c = x.index_put((torch.tensor([True, False, True]),), torch.arange(4.), accumulate)
        d = x.index_put((torch.tensor([[0], [2]]), torch.tensor([1, 2])), torch.ones(2), accumulate)
        v = x[1]
        x.index_put_((torch.tensor([1]), torch.tensor([2])), torch.tensor([9.]), accumulate)
        return a, b, c, d, x, v
    check(f)


def test_index_put_accumulate_repeated_and_errors():
    check(lambda torch: _b(torch).index_put([torch.tensor([0, 0]), torch.tensor([1, 1])],
                                            torch.tensor(5.), accumulate=True))
    check(lambda torch: _b(torch).index_put((torch.tensor([0, 1]),), torch.tensor(5)))
    check(lambda torch: _b(torch).index_put((torch.tensor([0, 1]),), 5.))
    check(lambda torch: _b(torch).index_put((torch.tensor([0]), None), torch.tensor(1.)))
    check(lambda torch: _b(torch).index_put_((torch.tensor([0, 7]),), torch.tensor(5.)))


# ---- masked ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_masked_fill(dtype):
    def f(torch):
        x = _b(torch, dtype)
        m = torch.tensor([True, False, True, False])
        a = x.masked_fill(m, 2)
        b = torch.masked_fill(x, x.float() > 5, torch.tensor(-1.5))
        c = torch.ones(4).to(x.dtype).masked_fill(torch.tensor([[True], [False]]), 0)
        v = x[:, 1:]
        x.masked_fill_(m, 1)
        return a, b, c, x, v
    check(f)


@pytest.mark.parametrize("expr", [
    "x.masked_fill(torch.tensor([1., 0, 1, 0]), 2)",
    "x.masked_fill(torch.tensor([1, 0, 1, 0]), 2)",
    "x.masked_fill(torch.tensor([True, False, True, True]), torch.tensor([2., 3]))",
    "x.masked_fill(torch.tensor([True, False]), 2)",
    "torch.ones(4).masked_fill_(torch.ones(2, 4, dtype=torch.bool), 2)",
    "x.masked_scatter(torch.tensor([True, False, True, False]), torch.arange(10., 13))",
    "x.masked_scatter(torch.tensor([True, False, True, False]), torch.arange(10, 18))",
    "x.masked_scatter(torch.tensor([1, 0, 1, 0]), torch.arange(10., 18))",
    "x.masked_select(torch.tensor([1, 0, 1, 0]))",
])
def test_masked_errors(expr):
    check(lambda torch: eval(expr, {"x": _b(torch), "torch": torch}))


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_masked_scatter_select(dtype):
    def f(torch):
        x = _b(torch, dtype)
        m = torch.tensor([True, False, True, True])
        src = torch.arange(100, 120).view(4, 5).to(x.dtype)
        a = x.masked_scatter(m, src)
        b = torch.masked_scatter(torch.zeros(4).to(x.dtype), torch.tensor([[True], [False]]), src)
        c = torch.masked_select(x, x.float() > 4)
        d = x.masked_select(m)
        e = torch.masked_select(torch.ones(4), torch.ones(2, 4, dtype=torch.bool))
        v = x[1]
        x.masked_scatter_(x.float() > 6, src)
        return a, b, c, d, e, x, v
    check(f)


# ---- take / put / nonzero ----------------------------------------------------------------------

def test_take_and_take_along_dim():
    def f(torch):
        x = _b(torch)
        return (x.take(torch.tensor([[0, -1], [5, 11]])), torch.take(x.t(), torch.tensor([1, 4])),
                torch.take_along_dim(x, torch.tensor([[0], [2], [3]]), 1),
                torch.take_along_dim(x, torch.tensor([[0, 11]])),
                torch.take_along_dim(x, torch.tensor([[1, 0, 2, 0]]), 0),
                torch.take_along_dim(x, torch.tensor([[1], [0]]).view(1, 2).t(), -1)
                if False else x.take_along_dim(torch.tensor([[2, 1]]), dim=0))
    check(f)


@pytest.mark.parametrize("expr", [
    "x.take(torch.tensor([12]))", "x.take(torch.tensor([-13]))", "x.take(torch.tensor([1.]))",
    "x.take(torch.tensor([1], dtype=torch.int32))",
    "torch.take_along_dim(x, torch.tensor([[0.]]), 1)",
    "torch.take_along_dim(x, torch.tensor([0]), 1)",
    "torch.take_along_dim(x, torch.tensor([[0, 1], [1, 2]]), 1)",
])
def test_take_errors(expr):
    check(lambda torch: eval(expr, {"x": _b(torch), "torch": torch}))


@pytest.mark.parametrize("accumulate", [False, True])
def test_put(accumulate):
    def f(torch):
        x = _b(torch)
        a = x.put(torch.tensor([0, 5, -1]), torch.tensor([9., 8, 7]), accumulate=accumulate)
        b = torch.put(x, torch.tensor([[1, 2]]), torch.tensor([1., 2]), accumulate)
        v = x[2]
        x.put_(torch.tensor([11, 3]), torch.tensor([-1., -2]), accumulate)
        return a, b, x, v
    check(f)


@pytest.mark.parametrize("expr", [
    "x.put_(torch.tensor([0, 12]), torch.tensor([9., 8]))",
    "x.put_(torch.tensor([0, 5]), torch.tensor([9., 8, 7]))",
    "x.put_(torch.tensor([0, 5]), torch.tensor([9, 8]))",
    "x.put(torch.tensor([0, 0]), torch.tensor([9., 8]), accumulate=True)",
])
def test_put_edge(expr):
    check(lambda torch: eval(expr, {"x": _b(torch), "torch": torch}))


@pytest.mark.parametrize("expr", [
    "torch.nonzero(x)", "x.nonzero()", "torch.nonzero(x > 5, as_tuple=True)",
    "torch.nonzero(torch.tensor(3))", "torch.nonzero(torch.tensor(0), as_tuple=True)",
    "torch.nonzero(torch.tensor(3), as_tuple=True)", "torch.argwhere(x % 3 == 0)",
    "torch.argwhere(torch.tensor(3))", "torch.nonzero(torch.zeros(2, 0))",
    "x.t().nonzero(as_tuple=True)",
])
def test_nonzero(expr):
    check(lambda torch: eval(expr, {"x": _b(torch), "torch": torch}))


@pytest.mark.parametrize("expr", [
    "torch.select_scatter(x, torch.ones(4), 0, 0)", "torch.select_scatter(x, torch.ones(3), 1, -1)",
    "torch.select_scatter(x, torch.ones(2), 0, 0)", "torch.select_scatter(x, torch.ones(4), 0, 5)",
    "torch.select_scatter(x, torch.ones(4, dtype=torch.long), 0, 0)",
    "torch.slice_scatter(x, torch.ones(3, 2), 1, 1, 3)", "torch.slice_scatter(x, torch.ones(3, 3), 1, 1)",
    "torch.slice_scatter(x, torch.ones(3, 2), 1, 0, None, 2)", "torch.slice_scatter(x, torch.ones(2, 4))",
    "torch.diagonal_scatter(x, torch.ones(3))", "torch.diagonal_scatter(x, torch.ones(4))",
    "torch.diagonal_scatter(x, torch.ones(3, dtype=torch.long), 1)",
    "torch.diagonal_scatter(x, torch.ones(2), -1)", "x.select_scatter(torch.ones(4), 0, 1)",
    "(lambda y: (y, x))(torch.slice_scatter(x, torch.zeros(1, 4), 0, 2))",
])
def test_embed_scatters(expr):
    check(lambda torch: eval(expr, {"x": _b(torch), "torch": torch}))


@pytest.mark.parametrize("stmt", [
    "x[[-1, 0]] = torch.tensor([5., 6.])", "x[torch.tensor([1, 0, 1], dtype=torch.uint8)] = 2",
    "x[True] = 1", "x[False] = 1", "x[:, [True, False, True, False]] = -1",
    "x[[0, 2], 1:3] = torch.tensor([[1., 2.], [3., 4.]])", "x[1:, [0, 3]] = torch.tensor([7., 8.])",
    "x[x > 100] = 1", "x[0] = 1 + 2j", "x[[1]] = 3 + 4j", "x[0] = 1 + 0j",
    "x[torch.tensor([1, 0, 1], dtype=torch.uint8), 0] = 2",
    # a bool mask and a number: one masked write on the device
    "x[1:, torch.tensor([True, False, True, True])] = 5", "x[0, x[0] > 1] = -3",
    "x.t()[x.t() > 4] = 0.5", "x[x > 100] = 2", "x[..., torch.tensor([False, True, False, True])] = 9",
    "x[x > 5] = float('inf')", "x[x > 5] = True",
    "y = torch.arange(12).view(3, 4); y[y % 2 == 0] = 7; x[y > 6] = y.sum().item()",
    "y = x > 3; y[y] = False; x[y] = 1",
    "y = torch.arange(12).view(3, 4); y[y > 3] = 2.7",
    "x[torch.ones(3, 4, 1, dtype=torch.bool)] = 1",
])
def test_setitem_more(stmt):
    def f(torch):
        x = torch.arange(12.).view(3, 4)
        exec(stmt, {"x": x, "torch": torch})
        return x
    check(f)


def test_indexing_numpy_shared_storage():
    def f(torch):
        a = np.arange(12.).reshape(3, 4)
        x = torch.from_numpy(a)
        x[[0, 2], 1] = 50.
        x[1, 1:] = torch.tensor([7., 8., 9.])
        x.index_fill_(1, torch.tensor([0]), -1.)
        return x, a.tolist(), x[:, [0, 1]], x[1]
    check(f)


# ---- bool accumulation, empty gathers, negative take_along_dim indices, error messages --------

def _bools(torch):
    return torch.tensor([[True, False, False], [False, False, True]])


INDEXING_FIXES = [
    lambda torch: torch.zeros(2, 3, dtype=torch.bool).scatter_add(
        1, torch.tensor([[0, 0, 2], [1, 1, 1]]), _bools(torch)),
    lambda torch: torch.ones(2, 3, dtype=torch.bool).scatter_reduce(
        1, torch.tensor([[0, 0, 2], [1, 1, 1]]), _bools(torch), "prod"),
    lambda torch: torch.zeros(2, 3, dtype=torch.bool).scatter_reduce(
        1, torch.tensor([[0, 0, 2], [1, 1, 1]]), _bools(torch), "sum", include_self=False),
    lambda torch: torch.zeros(2, 3, dtype=torch.bool).scatter(
        1, torch.tensor([[0, 0, 2], [1, 1, 1]]), _bools(torch), reduce="add"),
    lambda torch: torch.ones(2, 3, dtype=torch.bool).scatter(
        1, torch.tensor([[0, 0, 2], [1, 1, 1]]), _bools(torch), reduce="multiply"),
    lambda torch: torch.zeros(2, 3, dtype=torch.bool).put(
        torch.tensor([0, 0, 4]), torch.tensor([True, False, True]), accumulate=True),
    lambda torch: torch.zeros(2, 3, dtype=torch.bool).index_put(
        (torch.tensor([0, 0]),), torch.tensor([True, False, True]), accumulate=True),
    lambda torch: torch.gather(torch.zeros(5), 0, torch.zeros(2, 0, dtype=torch.uint8)),
    lambda torch: torch.gather(torch.zeros(2, 2), 1, torch.zeros(3, 0)),
    lambda torch: torch.gather(torch.zeros(2, 2), 1, torch.zeros(2, 2, dtype=torch.int64),
                               out=torch.zeros(2, 2, dtype=torch.float64)),
    lambda torch: torch.take_along_dim(torch.arange(6.).reshape(2, 3),
                                       torch.tensor([[-1, 0], [-3, 2]]), 1),
    lambda torch: torch.take_along_dim(torch.arange(6.), torch.tensor([-1, -6])),
    lambda torch: torch.index_select(torch.zeros(3, 6), 1, torch.tensor([0, 1]),
                                     out=torch.zeros(6).expand(2, 6)),
    lambda torch: torch.zeros(3, 2).index_add(0, torch.tensor([0, 1]), torch.ones(2)),
    lambda torch: torch.zeros(2).masked_fill(torch.tensor(True), torch.tensor(1j)),
    lambda torch: torch.zeros(2, dtype=torch.int32).masked_fill(torch.tensor(True),
                                                                torch.tensor(2j)),
    lambda torch: torch.zeros(5).masked_scatter_(torch.ones(5, 5, dtype=torch.bool),
                                                 torch.ones(5, 5)),
    lambda torch: torch.nonzero_static(torch.tensor([1., 0, 2]), size=4, fill_value=7),
    lambda torch: torch.nonzero_static(torch.tensor([[1., 0], [2, 3]]), size=2),
    lambda torch: torch.nonzero_static(torch.tensor(1.), size=3),
    lambda torch: torch.nonzero_static(torch.tensor([1.]), size=-1),
    lambda torch: torch.unravel_index(torch.tensor([7, -1, 4]), (2, 3)),
    lambda torch: torch.unravel_index(torch.tensor(5), 3),
    lambda torch: torch.unravel_index(torch.tensor([1.5]), (2, 3)),
    lambda torch: torch.unravel_index(torch.tensor([1]), (2, -3)),
    lambda torch: torch.as_strided_scatter(torch.zeros(3, 3), torch.ones(2, 2), (2, 2), (1, 2), 1),
]


@pytest.mark.parametrize("fn", INDEXING_FIXES)
def test_indexing_fixes(fn):
    check(fn)


def test_index_put_empty_mask_grad():
    def f(torch):
        x = torch.zeros(3, 3, dtype=torch.float64, requires_grad=True)
        v = torch.ones(3, dtype=torch.float64, requires_grad=True)
        r = torch.index_put(x, (torch.zeros(3, dtype=torch.bool),), v, accumulate=True)
        return torch.autograd.grad(r.sum(), (x, v))
    check(f)
