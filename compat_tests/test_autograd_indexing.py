"""Autograd through indexing: gather/scatter, index_*, masked_*, take/put, *_scatter, advanced
`__getitem__`/`__setitem__`, in-place writes on views of non-leaves, PyTorch's in-place errors,
the version-counter check, and in-place random fills."""
import numpy as np
import pytest

from compat_tests.harness import check

_R = np.random.default_rng(0)
X = _R.standard_normal((3, 4)).astype(np.float32)
S = _R.standard_normal((2, 4)).astype(np.float32)
S3 = _R.standard_normal((3, 4)).astype(np.float32)
V = _R.standard_normal((4,)).astype(np.float32)
X64 = _R.standard_normal((4, 5)).astype(np.float64)
I = np.array([[0, 1, 2, 0], [2, 1, 0, 0]])          # duplicate targets along dim 0
I_UNIQ = np.array([[0, 1, 2, 0], [2, 0, 1, 1]])     # one write per target
TIES = np.array([[1., 2., 2., 0.], [2., 0., 3., 0.], [0., 1., 2., 0.]], np.float32)
TIE_SRC = np.array([[2., 2., 3., 0.], [2., 1., 3., 5.]], np.float32)


def name_of(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


def run_grad(torch, fn, arrays, seed=1):
    """Inputs that require grad from `arrays`; returns (result, grad_fn name, their grads)
    after `backward` with a fixed upstream gradient."""
    xs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y = fn(torch, *xs)
    g = torch.tensor(np.random.default_rng(seed).standard_normal(tuple(y.shape))).to(y.dtype)
    name = name_of(y)
    y.backward(g)
    return y.detach(), name, [x.grad for x in xs]


def nonleaf(fn):
    """Run `fn(torch, y, *rest)` on the non-leaf `y = x * 1` (so in-place ops are allowed)."""
    return lambda torch, x, *rest: fn(torch, x * 1, *rest)


def T(torch, a):
    return torch.tensor(a)


# (id, fn(torch, *inputs), inputs)
CASES = [
    # gather / take_along_dim
    ("gather0", lambda t, x: x.gather(0, T(t, I)), [X]),
    ("gather1", lambda t, x: x.gather(1, T(t, [[0, 0], [3, 1], [2, 2]])), [X]),
    ("gather_neg", lambda t, x: x.gather(-1, T(t, [[3, 3, 3]]).T.contiguous()), [X]),
    ("gather_f64", lambda t, x: t.gather(x, 1, T(t, [[4, 4], [0, 1], [2, 2], [1, 0]])), [X64]),
    ("take_along_dim", lambda t, x: t.take_along_dim(x, T(t, I), 0), [X]),
    ("take_along_dim_none", lambda t, x: t.take_along_dim(x, T(t, [0, 5, 5, 11])), [X]),
    ("take_along_dim_bcast", lambda t, x: t.take_along_dim(x, T(t, [[1], [0], [1]]), 1), [X]),
    # scatter family
    ("scatter_src", lambda t, x, s: x.scatter(0, T(t, I_UNIQ), s), [X, S]),
    ("scatter_src_dup", lambda t, x, s: x.scatter(0, T(t, I), s * 0 + 2), [X, S]),
    ("scatter_src_dim1", lambda t, x, s: x.scatter(1, T(t, [[3, 0], [1, 2]]), s), [X, S]),
    ("scatter_value", lambda t, x: x.scatter(0, T(t, I), 1.5), [X]),
    ("scatter_value_kw", lambda t, x: t.scatter(x, 1, T(t, [[0], [3], [1]]), value=-2.0), [X]),
    ("scatter_add", lambda t, x, s: x.scatter_add(0, T(t, I), s), [X, S]),
    ("scatter_add_dim1", lambda t, x, s: t.scatter_add(x, 1, T(t, [[3, 3, 0]]), s[:1, :3]),
     [X, S]),
] + [
    (f"scatter_reduce_{r}_{inc}",
     (lambda r, inc: lambda t, x, s: x.scatter_reduce(0, T(t, I), s, r, include_self=inc))(r, inc),
     [X, S])
    for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)
] + [
    (f"scatter_reduce_ties_{r}_{inc}",
     (lambda r, inc: lambda t, x, s: x.scatter_reduce(0, T(t, I), s, r, include_self=inc))(r, inc),
     [TIES, TIE_SRC])
    for r in ("prod", "amax", "amin", "mean") for inc in (True, False)
] + [
    # index_* along a dim
    ("index_select0", lambda t, x: x.index_select(0, T(t, [2, 0, 2, 2])), [X]),
    ("index_select1", lambda t, x: t.index_select(x, 1, T(t, [3, 0, 3])), [X]),
    ("index_select_int32", lambda t, x: x.index_select(1, T(t, [1, 1]).int()), [X]),
    ("index_add", lambda t, x, s: x.index_add(0, T(t, [0, 2, 0]), s, alpha=2), [X, S3]),
    ("index_add_dim1", lambda t, x, s: x.index_add(1, T(t, [3, 3, 0]), s[:, :3]), [X, S3]),
    ("index_copy", lambda t, x, s: x.index_copy(0, T(t, [2, 0]), s[:2]), [X, S3]),
    ("index_copy_dup", lambda t, x, s: x.index_copy(1, T(t, [1, 1]), s[:, :1].expand(3, 2) * 1),
     [X, S3]),
    ("index_fill", lambda t, x: x.index_fill(1, T(t, [0, 2, 0]), -1.0), [X]),
    ("index_fill_tensor", lambda t, x, v: x.index_fill(0, T(t, [0, 2, 0]), v.sum()), [X, V]),
] + [
    (f"index_reduce_{r}_{inc}",
     (lambda r, inc: lambda t, x, s: x.index_reduce(0, T(t, [0, 2, 0]), s, r,
                                                    include_self=inc))(r, inc),
     [TIES, np.concatenate([TIE_SRC, TIES[:1]])])
    for r in ("prod", "mean", "amax", "amin") for inc in (True, False)
] + [
    # index_put
    ("index_put", lambda t, x, s: x.index_put((T(t, [2, 0]),), s), [X, S]),
    ("index_put_bcast", lambda t, x, v: x.index_put((T(t, [2, 0]),), v), [X, V]),
    ("index_put_dup_values", lambda t, x, v: x.index_put((T(t, [1, 1]),), v * 0 + 3), [X, V]),
    ("index_put_acc", lambda t, x, s: x.index_put((T(t, [0, 2, 0]),), s[:1], accumulate=True),
     [X, S]),
    ("index_put_2d", lambda t, x, v: x.index_put((T(t, [0, 2]), T(t, [3, 1])), v[:2]), [X, V]),
    ("index_put_acc_2d", lambda t, x, v: t.index_put(x, (T(t, [0, 0]), T(t, [3, 3])), v[:1],
                                                     True), [X, V]),
    ("index_put_scalar_value", lambda t, x, v: x.index_put((T(t, [1]),), v[0]), [X, V]),
    # masked
    ("masked_fill", lambda t, x: x.masked_fill(T(t, X > 0), 2.0), [X]),
    ("masked_fill_tensor", lambda t, x, v: x.masked_fill(T(t, X > 0), v[1]), [X, V]),
    ("masked_fill_bcast_mask", lambda t, x: x.masked_fill(T(t, V > 0), 0.5), [X]),
    ("masked_fill_bcast_self", lambda t, v: v.masked_fill(T(t, X > 0), 0.5), [V]),
    ("masked_scatter", lambda t, x, s: x.masked_scatter(T(t, X > 0), s), [X, S3]),
    ("masked_scatter_bcast", lambda t, v, s: v.masked_scatter(T(t, X > 0), s), [V, S3]),
    ("masked_select", lambda t, x: x.masked_select(T(t, X > 0)), [X]),
    ("masked_select_bcast", lambda t, v: t.masked_select(v, T(t, X > 0)), [V]),
    # flat take / put
    ("take", lambda t, x: x.take(T(t, [[0, 5], [5, 11]])), [X]),
    ("take_neg", lambda t, x: t.take(x, T(t, [-1, 0, -1])), [X]),
    ("put", lambda t, x, v: x.put(T(t, [0, 5, 11]), v[:3]), [X, V]),
    ("put_acc", lambda t, x, v: x.put(T(t, [5, 5, 11, 0]), v, accumulate=True), [X, V]),
    ("put_dup_values", lambda t, x, v: x.put(T(t, [5, 5]), v[:2] * 0 + 1), [X, V]),
    # embeds
    ("select_scatter", lambda t, x, s: t.select_scatter(x, s[0], 0, 1), [X, S]),
    ("select_scatter_dim1", lambda t, x, s: t.select_scatter(x, s[0, :3], 1, -1), [X, S]),
    ("slice_scatter", lambda t, x, s: t.slice_scatter(x, s, 0, 1), [X, S]),
    ("slice_scatter_step", lambda t, x, s: t.slice_scatter(x, s[:1, :2].expand(3, 2) * 1, 1,
                                                            0, 4, 2), [X, S]),
    ("diagonal_scatter", lambda t, x, s: t.diagonal_scatter(x, s[0, :3]), [X, S]),
    ("diagonal_scatter_off", lambda t, x, s: t.diagonal_scatter(x, s[0, :2], 2), [X, S]),
    ("diagonal_scatter_neg", lambda t, x, s: t.diagonal_scatter(x, s[1, :2], -1, 0, 1), [X, S]),
    # advanced __getitem__
    ("getitem_list", lambda t, x: x[[0, 2, 0]], [X]),
    ("getitem_tensor", lambda t, x: x[T(t, [[0, 2], [2, 2]])], [X]),
    ("getitem_mask", lambda t, x: x[T(t, X > 0)], [X]),
    ("getitem_row_mask", lambda t, x: x[T(t, [True, False, True])], [X]),
    ("getitem_slice_adv", lambda t, x: x[1:, [0, 3, 3]], [X]),
    ("getitem_adv_slice", lambda t, x: x[[2, 2], 1:], [X]),
    ("getitem_two_adv", lambda t, x: x[[0, 2, 2], [1, 1, 3]], [X]),
    ("getitem_none_adv", lambda t, x: x[None, [1, 1]], [X]),
    ("getitem_ellipsis_adv", lambda t, x: x[..., [3, 0, 3]], [X]),
    ("getitem_int_adv", lambda t, x: x[1, [3, 0, 3]], [X]),
    ("getitem_3d_split", lambda t, x: x.reshape(2, 3, 2)[[0, 1], :, [1, 1]], [X]),
    ("getitem_bool_scalar", lambda t, x: x[True], [X]),
    # basic __getitem__ names
    ("getitem_select", lambda t, x: x[1], [X]),
    ("getitem_slice", lambda t, x: x[1:], [X]),
    ("getitem_full_slice", lambda t, x: x[:], [X]),
    ("getitem_ellipsis", lambda t, x: x[...], [X]),
    ("getitem_none", lambda t, x: x[None], [X]),
    ("getitem_int_slice", lambda t, x: x[0, 1:], [X]),
    ("getitem_slice_int", lambda t, x: x[:, 2], [X]),
    ("getitem_0dim_tensor", lambda t, x: x[t.tensor(2)], [X]),
]


@pytest.mark.parametrize("fn,arrays", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_op_gradients(fn, arrays):
    check(lambda torch: run_grad(torch, fn, arrays))


def _setitem(index, value):
    def fn(torch, x, *rest):
        y = x * 2
        v = value(torch, *rest) if callable(value) else value
        y[index(torch) if callable(index) else index] = v
        return y
    return fn


SETITEM = [
    ("int_scalar", _setitem(0, 0.0), [X]),
    ("seed_snippet", _setitem(0, 0), [X]),
    ("slice_scalar", _setitem(slice(1, None), 5.0), [X]),
    ("full_slice_scalar", _setitem(slice(None), 5.0), [X]),
    ("ellipsis_scalar", _setitem(Ellipsis, 5.0), [X]),
    ("full_slice_row", _setitem(slice(None), lambda t, v: v), [X, V]),
    ("ellipsis_0dim", _setitem(Ellipsis, lambda t, v: v[2]), [X, V]),
    ("int_tensor", _setitem(1, lambda t, v: v), [X, V]),
    ("slice_col", _setitem((slice(None), 1), lambda t, s: s[0, :3]), [X, S]),
    ("int_0dim_value", _setitem((0, slice(1, 3)), lambda t, v: v[0]), [X, V]),
    ("none_index", _setitem(None, lambda t, v: v), [X, V]),
    ("list_scalar", _setitem([0, 2], 5.0), [X]),
    ("list_tensor", _setitem([0, 2], lambda t, s: s), [X, S]),
    ("list_dup_tensor", _setitem([1, 1], lambda t, v: v * 0 + 4), [X, V]),
    ("list_bcast", _setitem([0, 2], lambda t, v: v), [X, V]),
    ("mask_scalar", _setitem(lambda t: t.tensor(X > 0), -1.0), [X]),
    ("mask_tensor", _setitem(lambda t: t.tensor(X > 0), lambda t, v: v[1]), [X, V]),
    ("slice_list", _setitem((slice(1, None), [0, 2]), 7.0), [X]),
    ("slice_list_tensor", _setitem((slice(1, None), [0, 2]), lambda t, s: s[:, :2]), [X, S]),
    ("list_slice", _setitem(([0, 2], slice(1, None)), lambda t, v: v[:3]), [X, V]),
    ("ellipsis_list", _setitem((Ellipsis, [3, 0]), lambda t, s: s[0, :2]), [X, S]),
    ("colon_list", _setitem((slice(None), [3, 0]), 2.5), [X]),
    ("none_list", _setitem((None, [0, 2]), lambda t, v: v), [X, V]),
    ("two_lists", _setitem(([0, 2], [1, 3]), lambda t, v: v[:2]), [X, V]),
    ("bool_true", _setitem(True, 1.0), [X]),
    ("tensor_index_0dim", _setitem(lambda t: t.tensor(1), 3.0), [X]),
]


@pytest.mark.parametrize("fn,arrays", [c[1:] for c in SETITEM], ids=[c[0] for c in SETITEM])
def test_setitem_gradients(fn, arrays):
    check(lambda torch: run_grad(torch, fn, arrays))


def _chain(*steps):
    def fn(torch, x, *rest):
        y = x * 2
        for s in steps:
            s(torch, y, *rest)
        return y
    return fn


INPLACE = [
    ("view_iadd_then_setitem",
     _chain(lambda t, y: y[1:, 0].__iadd__(1), lambda t, y: y.__setitem__([0, 2], 5.0)), [X]),
    ("view_iadd", _chain(lambda t, y: y[1:, 0].__iadd__(1)), [X]),
    ("view_imul", _chain(lambda t, y: y[:, 1:3].__imul__(3)), [X]),
    ("scatter_", _chain(lambda t, y, s: y.scatter_(0, T(t, I_UNIQ), s)), [X, S]),
    ("scatter_value_", _chain(lambda t, y: y.scatter_(1, T(t, [[0], [2], [2]]), 4.0)), [X]),
    ("scatter_add_", _chain(lambda t, y, s: y.scatter_add_(0, T(t, I), s)), [X, S]),
    ("scatter_reduce_amax_", _chain(lambda t, y, s: y.scatter_reduce_(0, T(t, I), s, "amax")),
     [X, S]),
    ("scatter_reduce_prod_", _chain(lambda t, y, s: y.scatter_reduce_(0, T(t, I), s, "prod",
                                                                      include_self=False)),
     [X, S]),
    ("index_add_", _chain(lambda t, y, s: y.index_add_(0, T(t, [1, 1, 0]), s, alpha=-1)),
     [X, S3]),
    ("index_copy_", _chain(lambda t, y, s: y.index_copy_(0, T(t, [2, 0]), s[:2])), [X, S3]),
    ("index_fill_", _chain(lambda t, y: y.index_fill_(1, T(t, [1, 3]), 0.0)), [X]),
    ("index_fill_tensor_", _chain(lambda t, y, v: y.index_fill_(1, T(t, [1, 3]), v[0])),
     [X, V]),
    ("index_reduce_", _chain(lambda t, y, s: y.index_reduce_(0, T(t, [1, 1, 0]), s, "mean")),
     [X, S3]),
    ("index_put_", _chain(lambda t, y, v: y.index_put_((T(t, [2, 0]),), v)), [X, V]),
    ("index_put_acc_", _chain(lambda t, y, v: y.index_put_((T(t, [2, 2]),), v, True)), [X, V]),
    ("masked_fill_", _chain(lambda t, y: y.masked_fill_(T(t, X > 0), 0.0)), [X]),
    ("masked_fill_tensor_", _chain(lambda t, y, v: y.masked_fill_(T(t, X < 0), v[3])), [X, V]),
    ("masked_scatter_", _chain(lambda t, y, s: y.masked_scatter_(T(t, X > 0), s)), [X, S3]),
    ("put_", _chain(lambda t, y, v: y.put_(T(t, [1, 6]), v[:2])), [X, V]),
    ("put_acc_", _chain(lambda t, y, v: y.put_(T(t, [1, 1, 6, 0]), v, accumulate=True)),
     [X, V]),
    # in-place indexing ops on views of a non-leaf: CopySlices
    ("view_masked_fill_", _chain(lambda t, y: y[1:].masked_fill_(T(t, X[1:] > 0), 1.0)), [X]),
    ("view_index_add_", _chain(lambda t, y, s: y[:, 1:].index_add_(1, T(t, [0, 0]),
                                                                    s[:, :2])), [X, S3]),
    ("view_scatter_", _chain(lambda t, y, s: y[1:].scatter_(0, T(t, [[1, 0, 0, 1]]), s[:1])),
     [X, S]),
    ("view_index_put_", _chain(lambda t, y, v: y[2].index_put_((T(t, [0, 3]),), v[:2])),
     [X, V]),
    ("view_setitem_adv", _chain(lambda t, y, v: y[1].__setitem__([0, 0, 3], v[:3] * 0 + 1)),
     [X, V]),
    ("view_put_", _chain(lambda t, y, v: y[1:].put_(T(t, [0, 7]), v[:2])), [X, V]),
    ("view_fill_", _chain(lambda t, y: y[0].fill_(3.0)), [X]),
    ("view_zero_", _chain(lambda t, y: y[:, 0].zero_()), [X]),
    ("view_copy_", _chain(lambda t, y, v: y[2].copy_(v)), [X, V]),
    ("chain_of_writes", _chain(lambda t, y, v: y.__setitem__(0, v),
                               lambda t, y, v: y.__setitem__((slice(None), 1), 0.0),
                               lambda t, y, v: y.index_put_((T(t, [2]),), v[1:2] * 2, True)),
     [X, V]),
    # a tensor that does not require grad receiving a source that does
    ("plain_target_scatter_", lambda t, s: t.zeros(3, 4).scatter_(0, T(t, I_UNIQ), s), [S]),
    ("plain_target_setitem", lambda t, v: (lambda z: (z.__setitem__([0, 2], v), z)[1])(
        t.zeros(3, 4)), [V]),
    ("plain_view_setitem", lambda t, v: (lambda z: (z[1:].__setitem__(0, v), z)[1])(
        t.zeros(3, 4)), [V]),
]


@pytest.mark.parametrize("fn,arrays", [c[1:] for c in INPLACE], ids=[c[0] for c in INPLACE])
def test_inplace_gradients(fn, arrays):
    check(lambda torch: run_grad(torch, fn, arrays))


def test_grad_fn_of_view_after_inplace():
    def fn(torch):
        x = torch.tensor(X, requires_grad=True)
        y = x * 2
        v = y[1:]
        v.index_fill_(1, torch.tensor([0]), 1.0)
        return name_of(y), name_of(v), v.is_leaf, y.is_leaf
    check(fn)


# ---- PyTorch's errors ---------------------------------------------------------------------------

LEAF_ERRORS = [
    ("scatter_", lambda t, x: x.scatter_(0, T(t, I), 1.0)),
    ("scatter_add_", lambda t, x: x.scatter_add_(0, T(t, I), t.ones(2, 4))),
    ("index_put_", lambda t, x: x.index_put_((T(t, [0]),), t.tensor(1.0))),
    ("index_add_", lambda t, x: x.index_add_(0, T(t, [0]), t.ones(1, 4))),
    ("index_fill_", lambda t, x: x.index_fill_(0, T(t, [0]), 1.0)),
    ("masked_fill_", lambda t, x: x.masked_fill_(T(t, X > 0), 1.0)),
    ("masked_scatter_", lambda t, x: x.masked_scatter_(T(t, X > 0), t.ones(12))),
    ("put_", lambda t, x: x.put_(T(t, [0]), t.ones(1))),
    ("setitem_int", lambda t, x: x.__setitem__(0, 1.0)),
    ("setitem_full_slice", lambda t, x: x.__setitem__(slice(None), 1.0)),
    ("setitem_ellipsis", lambda t, x: x.__setitem__(Ellipsis, t.ones(4))),
    ("setitem_list", lambda t, x: x.__setitem__([0, 1], 1.0)),
    ("setitem_mask", lambda t, x: x.__setitem__(T(t, X > 0), 1.0)),
    ("setitem_slice_list", lambda t, x: x.__setitem__((slice(1, None), [0]), 1.0)),
    ("view_fill_", lambda t, x: x[0].fill_(1.0)),
    ("view_index_fill_", lambda t, x: x[1:].index_fill_(0, T(t, [0]), 1.0)),
    ("view_iadd", lambda t, x: x[:, 1].__iadd__(1)),
    ("uniform_", lambda t, x: x.uniform_()),
    ("normal_", lambda t, x: x.normal_(0, 2)),
    ("bernoulli_", lambda t, x: x.bernoulli_(0.5)),
    ("view_normal_", lambda t, x: x[0].normal_()),
]


@pytest.mark.parametrize("fn", [c[1] for c in LEAF_ERRORS], ids=[c[0] for c in LEAF_ERRORS])
def test_leaf_errors(fn):
    def run(torch):
        x = torch.tensor(X, requires_grad=True)
        fn(torch, x)
        return x
    check(run)


@pytest.mark.parametrize("fn", [c[1] for c in LEAF_ERRORS], ids=[c[0] for c in LEAF_ERRORS])
def test_leaf_writes_allowed_under_no_grad(fn):
    def run(torch):
        torch.manual_seed(0)
        x = torch.tensor(X, requires_grad=True)
        with torch.no_grad():
            fn(torch, x)
        return x.requires_grad, x.is_leaf, x.grad_fn is None, x._version > 0
    check(run)


def test_index_put_on_leaf_requires_grad_error_message():
    check(lambda torch: torch.tensor(X, requires_grad=True).index_put_(
        (torch.tensor([0]),), torch.tensor(1.0), accumulate=True))


def test_scatter_reduce_argument_is_not_differentiable():
    def run(torch, form):
        x = torch.tensor(X, requires_grad=True)
        if form == "value":
            y = x.scatter(0, torch.tensor(I), 2.0, reduce="add")
        else:
            y = x.scatter(0, torch.tensor(I), torch.ones(2, 4), reduce="multiply")
        name = name_of(y)
        try:
            y.sum().backward()
        except RuntimeError as e:
            return name, str(e)
        return name, None
    check(run, "value")
    check(run, "tensor")


def test_scatter_reduce_backward_raises_every_time():
    """A graph seen again (whose backward would otherwise run fused) keeps its node's error."""
    def run(torch):
        errors = []
        for n in (2, 2, 2, 3, 3):
            x = torch.ones(n + 1, 4, requires_grad=True)
            y = x.scatter(0, torch.zeros(1, 4, dtype=torch.long), 2.0, reduce="add")
            try:
                (y * 2).sum().backward()
                errors.append(None)
            except RuntimeError as e:
                errors.append(str(e))
        return errors
    check(run)


def test_out_argument_with_grad():
    check(lambda torch: torch.gather(torch.tensor(X, requires_grad=True), 0,
                                     torch.tensor([[0]]), out=torch.empty(1, 1)))
    check(lambda torch: torch.index_select(torch.tensor(X), 0, torch.tensor([0]),
                                           out=torch.empty(1, 4, requires_grad=True)))


# ---- version counter ----------------------------------------------------------------------------

SAVED = [
    # (op, what is modified afterwards)
    ("gather", "self"), ("gather", "index"), ("index_select", "index"),
    ("index_select", "self"), ("take", "self"), ("take", "index"), ("masked_select", "self"),
    ("masked_select", "mask"), ("scatter", "index"), ("scatter", "self"),
    ("scatter_reduce", "self"), ("scatter_reduce", "src"), ("scatter_reduce", "out"),
    ("index_reduce", "out"), ("index_reduce", "src"), ("index_add", "src"),
    ("masked_fill", "mask"), ("masked_fill", "self"), ("getitem", "index"), ("getitem", "self"),
    ("getitem_mask", "mask"), ("put", "src"), ("index_put", "src"), ("index_put", "index"),
]


def _saved_case(torch, op, what):
    x = torch.tensor(X, requires_grad=True)
    src_leaf = torch.tensor(S3, requires_grad=True)
    a = x * 1
    s = src_leaf * 1
    i = torch.tensor(I)
    j = torch.tensor([0, 2, 0])
    m = torch.tensor(X > 0)
    y = {
        "gather": lambda: a.gather(0, i),
        "index_select": lambda: a.index_select(0, j),
        "take": lambda: a.take(j),
        "masked_select": lambda: a.masked_select(m),
        "scatter": lambda: a.scatter(0, i, s[:2]),
        "scatter_reduce": lambda: a.scatter_reduce(0, i, s[:2], "amax"),
        "index_reduce": lambda: a.index_reduce(0, j, s, "prod"),
        "index_add": lambda: a.index_add(0, j, s),
        "masked_fill": lambda: a.masked_fill(m, 1.0),
        "getitem": lambda: a[j],
        "getitem_mask": lambda: a[m],
        "put": lambda: a.put(j, s[0, :3]),
        "index_put": lambda: a.index_put((j,), s),
    }[op]()
    target = {"self": a, "src": s, "index": i if op in ("gather", "scatter", "scatter_reduce")
              else j, "mask": m, "out": y}[what]
    with torch.no_grad():
        if target.dtype == torch.bool:
            target.logical_not_()
        else:
            target.add_(1)
    try:
        y.sum().backward()
    except RuntimeError as e:
        # the node named in the message's "output 0 of ..." part is checked by the core tests
        return "modified by an inplace operation" in str(e), str(e).split("]")[0]
    return x.grad, src_leaf.grad


@pytest.mark.parametrize("op,what", SAVED, ids=[f"{o}-{w}" for o, w in SAVED])
def test_version_counter(op, what):
    check(_saved_case, op, what)


def test_version_counter_message_on_leaf_input():
    def run(torch):
        x = torch.tensor(X, requires_grad=True)
        y = x.gather(0, torch.tensor(I))
        with torch.no_grad():
            x.mul_(2)
        y.sum().backward()
    check(run)


# ---- in-place random fills ----------------------------------------------------------------------

RANDOM = ["uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_",
          "log_normal_", "cauchy_"]


@pytest.mark.parametrize("method", RANDOM)
def test_random_fill_on_non_leaf(method):
    def run(torch):
        torch.manual_seed(0)
        x = torch.tensor(X, requires_grad=True)
        y = x * 2
        getattr(y, method)(*((0.5,) if method == "geometric_" else ()))
        name = name_of(y)
        (y * 3).sum().backward()
        return name, x.grad
    check(run)


@pytest.mark.parametrize("args,name", [((), "random_()"), ((5,), "random_(to)"),
                                       ((1, 5), "random_(from, to)")])
def test_random_names(args, name):
    def run(torch):
        y = torch.tensor(X, requires_grad=True) * 1
        y.random_(*args)
        return name_of(y)
    check(run)


def test_bernoulli_tensor_p_name():
    def run(torch):
        y = torch.tensor(X, requires_grad=True) * 1
        y.bernoulli_(torch.full((3, 4), 0.5))
        return name_of(y)
    check(run)


def test_random_fill_on_view_of_non_leaf():
    def run(torch):
        x = torch.tensor(X, requires_grad=True)
        y = x * 2
        y[1:].uniform_()
        name = name_of(y)
        y.sum().backward()
        return name, x.grad
    check(run)


def test_weight_init_patterns():
    def run(torch):
        torch.manual_seed(0)
        w = torch.empty(3, 4, requires_grad=True)
        with torch.no_grad():
            w.uniform_(-1, 1)
        a = (w.requires_grad, w.is_leaf, w.grad_fn is None)
        w.data.normal_(0, 0.5)
        b = (w.requires_grad, w.is_leaf, w.grad_fn is None)
        w.sum().backward()
        return a, b, w.grad
    check(run)


def test_seed_snippet():
    def run(torch):
        x = torch.tensor(X, requires_grad=True)
        y = x * 2
        y[0] = 0
        y.sum().backward()
        return y.detach(), name_of(y), x.grad
    check(run)


def test_double_backward_through_gather_and_index():
    def run(torch):
        x = torch.tensor(X.astype(np.float64), requires_grad=True)
        y = (x[[0, 2, 0]] ** 2).sum() + (x.gather(1, torch.tensor(I.T[:3])) ** 3).sum()
        g, = torch.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return g.detach(), x.grad
    check(run)


def test_new_index_values_compile_nothing_with_grad():
    """Index arrays are traced operands of cached kernels: forward and backward of every op
    compile once per shape, not once per index value."""
    from compat_tests.test_no_recompile import count_compiles, restart_compile_budget
    import torchlike as torch
    restart_compile_budget()

    def step(k):
        x = torch.tensor(X, requires_grad=True)
        s = torch.tensor(S, requires_grad=True)
        i = torch.tensor((I + k) % 3)
        j = torch.tensor([k % 3, (k + 1) % 3])
        y = x * 1
        y[j] = 0.5 * k
        y[k % 3] = s[0]
        out = (x.gather(0, i).sum() + x.scatter_reduce(0, i, s, "amax").sum()
               + x.index_select(1, j).sum() + x[j].sum() + x.index_put((j,), s).sum()
               + x.scatter(0, i, s).sum() + x.take(j).sum() + y.sum()
               + x.index_add(0, j, s, alpha=k).sum())
        out.backward()
        return x.grad

    for k in range(3):
        step(k)
    with count_compiles() as seen:
        for k in range(3, 8):
            step(k)
    assert not seen, f"{len(seen)} compiles/traces for new index values"


EXTRA = [
    ("complex_gather", lambda t, x: x.gather(0, T(t, I)),
     [(X[:, :4] + 1j * X[::-1]).astype(np.complex64)]),
    ("complex_index_put", lambda t, x, v: x.index_put((T(t, [1, 1]),), v, True),
     [(X + 1j * X).astype(np.complex64), (V - 2j * V).astype(np.complex64)]),
    ("setitem_other_dtype_value", _setitem(slice(0, 2), lambda t, v: v.double()), [X, V]),
    ("getitem_of_setitem", lambda t, x, v: _setitem([2, 0], lambda t, v: v)(t, x, v)[[1, 2]],
     [X, V]),
    ("f64_scatter_reduce_mean", lambda t, x: x.scatter_reduce(1, T(t, [[0, 0, 4]] * 4), x[:, :3]
                                                              * 2, "mean", include_self=False),
     [X64]),
]


@pytest.mark.parametrize("fn,arrays", [c[1:] for c in EXTRA], ids=[c[0] for c in EXTRA])
def test_extra_gradients(fn, arrays):
    check(lambda torch: run_grad(torch, fn, arrays))


def test_double_backward_through_writes():
    def run(torch):
        x = torch.tensor(X.astype(np.float64), requires_grad=True)
        y = x * x
        y[[0, 2]] = y[[1, 1]] * 3
        z = y.scatter_reduce(0, torch.tensor(I), y[:2] ** 2, "prod")
        g, = torch.autograd.grad(z.sum(), x, create_graph=True)
        g.pow(2).sum().backward()
        return g.detach(), x.grad
    check(run)
