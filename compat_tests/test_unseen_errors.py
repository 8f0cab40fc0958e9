"""Bad input gets PyTorch's error: the mistakes users make most often (wrong shapes, wrong
dtypes, autograd and module misuse), each run under real torch and torchlike and compared
(exception type and message, and the warnings torch emits)."""
import warnings

import pytest

from harness import Raised, assert_same, check


def _with_warnings(fn, lib):
    """`fn(lib)`'s result (or exception) and the warnings it emitted."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = fn(lib)
        except Exception as e:  # noqa: BLE001 - compared below
            out = Raised(e)
    return [out, [(x.category.__name__, str(x.message)) for x in w]]


def check_warns(fn):
    import torch as real_torch

    import torchlike
    assert_same(_with_warnings(fn, real_torch), _with_warnings(fn, torchlike))


def F(t):
    return t.nn.functional


# ---- shape mismatches ------------------------------------------------------------------------

SHAPES = [
    lambda t: t.mm(t.ones(64, 100), t.ones(50, 10)),
    lambda t: t.matmul(t.ones(64, 100), t.ones(50, 10)),
    lambda t: t.ones(64, 100) @ t.ones(50, 10),
    lambda t: t.ones(3) @ t.ones(4),
    lambda t: t.ones(3) @ t.ones(4, 5),
    lambda t: t.ones(3, 4) @ t.ones(5),
    lambda t: t.ones(2, 3, 4) @ t.ones(2, 5, 6),
    lambda t: t.ones(2, 3, 4) @ t.ones(3, 4, 6),
    lambda t: t.tensor(1.) @ t.ones(3),
    lambda t: t.bmm(t.ones(2, 3, 4), t.ones(2, 5, 6)),
    lambda t: t.bmm(t.ones(2, 3, 4), t.ones(3, 4, 6)),
    lambda t: t.bmm(t.ones(3, 4), t.ones(4, 6)),
    lambda t: t.mm(t.ones(2, 3, 4), t.ones(4, 6)),
    lambda t: t.mm(t.ones(4), t.ones(4, 6)),
    lambda t: t.mv(t.ones(3, 4), t.ones(5)),
    lambda t: t.dot(t.ones(3), t.ones(4)),
    lambda t: t.addmm(t.ones(3), t.ones(2, 3), t.ones(4, 3)),
    lambda t: t.nn.Linear(50, 10)(t.ones(64, 100)),
    lambda t: t.nn.Linear(50, 10)(t.ones(100)),
    lambda t: t.nn.Linear(50, 10)(t.ones(2, 64, 100)),
    lambda t: F(t).linear(t.ones(3, 4), t.ones(5, 3)),
    lambda t: F(t).linear(t.ones(3, 4), t.ones(5, 4), t.ones(3)),
    lambda t: F(t).linear(t.tensor(1.), t.ones(5, 4)),
    lambda t: t.nn.Sequential(t.nn.Flatten(), t.nn.Linear(10, 2))(t.ones(4, 3, 2)),
    lambda t: t.nn.Conv2d(3, 8, 3)(t.ones(1, 1, 8, 8)),
    lambda t: t.nn.Conv2d(3, 8, 3)(t.ones(8, 8)),
    lambda t: t.nn.Conv2d(3, 8, 3)(t.ones(1, 1, 3, 8, 8)),
    lambda t: t.nn.Conv2d(3, 8, 5)(t.ones(1, 3, 2, 2)),
    lambda t: t.nn.Conv2d(3, 8, 3)(t.ones(3, 8, 8)).shape,
    lambda t: t.nn.Conv1d(3, 8, 3)(t.ones(2, 4, 8)),
    lambda t: t.nn.Conv1d(3, 8, 3)(t.ones(4, 8)),
    lambda t: t.nn.Conv3d(3, 8, 3)(t.ones(1, 2, 4, 4, 4)),
    lambda t: t.nn.ConvTranspose2d(3, 8, 3)(t.ones(1, 2, 4, 4)),
    lambda t: F(t).conv2d(t.ones(1, 3, 8, 8), t.ones(8, 3, 3)),
    lambda t: t.nn.Conv2d(3, 8, 3, groups=2),
    lambda t: t.nn.Conv2d(3, 8, 3, padding="same", stride=2),
    lambda t: t.nn.Conv2d(3, 8, 3, padding="foo"),
    lambda t: t.nn.MaxPool2d(5)(t.ones(1, 1, 3, 3)),
    lambda t: t.nn.MaxPool2d(2, padding=2)(t.ones(1, 1, 8, 8)),
    lambda t: t.nn.AvgPool2d(2)(t.ones(8)),
    lambda t: t.nn.BatchNorm2d(3)(t.ones(2, 4, 5, 5)),
    lambda t: t.nn.BatchNorm1d(3)(t.ones(2, 4)),
    lambda t: t.nn.BatchNorm2d(3)(t.ones(3, 5, 5)),
    lambda t: t.nn.BatchNorm1d(3)(t.ones(1, 3)),
    lambda t: t.nn.LayerNorm(5)(t.ones(2, 4)),
    # view / reshape
    lambda t: t.ones(3, 4).t().view(12),
    lambda t: t.ones(3, 4).t().view(-1),
    lambda t: t.ones(3, 4).view(5, -1),
    lambda t: t.ones(3, 4).view(-1, -1),
    lambda t: t.ones(3, 4).reshape(5, 3),
    lambda t: t.ones(3, 4).reshape(5, -1),
    lambda t: t.ones(3, 4).reshape(-2, 6),
    lambda t: t.ones(3, 4).view(6, -3),
    lambda t: t.ones(0, 4).reshape(-1, 0),
    lambda t: t.ones(0, 4).view(2, -1, 0),
    lambda t: t.ones(3, 4).view(-1, 0),
    lambda t: t.ones(3, 12).unflatten(1, (5, -1)),
    lambda t: t.ones(3, 12).unflatten(1, (-1, -1)),
    lambda t: t.ones(3, 12).unflatten(1, (-2, 6)),
    lambda t: t.ones(3, 0).unflatten(1, (-1, 0)),
    lambda t: t.ones(3, 0).unflatten(1, (5, -1)),
    lambda t: t.ones(3, 12).unflatten(-1, (3, 5)),
    lambda t: t.nn.Unflatten(1, (5, -1))(t.ones(3, 12)),
    lambda t: t.ones(3, 4).flatten(1, 0),
    # broadcasting, cat / stack, expand
    lambda t: t.ones(3, 4) + t.ones(3),
    lambda t: t.ones(2, 3) * t.ones(3, 2),
    lambda t: t.ones(3).add_(t.ones(2, 3)),
    lambda t: t.ones(2, 3, 4) - t.ones(2, 4, 3),
    lambda t: t.ones(3) == t.ones(4),
    lambda t: t.ones(3) < t.ones(4),
    lambda t: t.cat([t.ones(2, 3), t.ones(2, 4)]),
    lambda t: t.cat([t.ones(2, 3), t.ones(3, 3)], dim=1),
    lambda t: t.cat([t.ones(2, 3), t.ones(3)]),
    lambda t: t.cat([]),
    lambda t: t.cat([t.ones(2, 3), t.ones(2, 3)], dim=2),
    lambda t: t.cat([t.tensor(1.), t.tensor(2.)]),
    lambda t: t.cat(t.ones(2, 3)),
    lambda t: t.cat([t.ones(2), t.ones(2, dtype=t.long)]),
    lambda t: t.stack([t.ones(2, 3), t.ones(2, 4)]),
    lambda t: t.stack([t.ones(3), t.ones(4)], dim=1),
    lambda t: t.stack([]),
    lambda t: t.stack([t.ones(3), t.ones(3)], dim=3),
    lambda t: t.hstack([t.ones(2, 3), t.ones(3, 3)]),
    lambda t: t.vstack([t.ones(2, 3), t.ones(3, 4)]),
    lambda t: t.ones(3, 2).expand(3, 4),
    lambda t: t.ones(3, 2).expand(2),
    lambda t: t.ones(3).expand(-1, 3),
    lambda t: t.ones(3).expand_as(t.ones(2, 4)),
    lambda t: t.broadcast_to(t.ones(3), (4, 2)),
    lambda t: t.where(t.ones(3, dtype=t.bool), t.ones(3), t.ones(4)),
    lambda t: t.where(t.ones(3), t.ones(3), t.ones(3)),
    lambda t: t.ones(3, 4).masked_fill(t.ones(3, dtype=t.bool), 0),
    lambda t: t.ones(3, 4).masked_fill(t.ones(3, 4), 0),
    lambda t: t.ones(3, 4).masked_fill(t.ones(3, 4, dtype=t.bool), t.ones(2)),
    lambda t: t.ones(3, 4).copy_(t.ones(3, 5)),
    # dims out of range
    lambda t: t.ones(3, 4).sum(2),
    lambda t: t.ones(3, 4).softmax(2),
    lambda t: t.ones(3).argmax(1),
    lambda t: t.ones(3, 4).transpose(0, 2),
    lambda t: t.ones(3, 4).permute(0),
    lambda t: t.ones(3, 4).permute(0, 0),
    lambda t: t.ones(3, 4).squeeze(3),
    lambda t: t.ones(3, 4).unsqueeze(4),
    lambda t: t.ones(3, 4).narrow(1, 2, 3),
    lambda t: t.ones(3, 4).split([2, 3], 1),
    lambda t: t.ones(3, 4).chunk(0),
    lambda t: t.ones(3, 4).repeat(2),
]


@pytest.mark.parametrize("fn", SHAPES)
def test_shape_mismatch(fn):
    check(fn)


# ---- dtype mistakes --------------------------------------------------------------------------

DTYPES = [
    lambda t: t.dot(t.ones(3), t.ones(3, dtype=t.float64)),
    lambda t: t.mm(t.ones(3, 3), t.ones(3, 3, dtype=t.float64)),
    lambda t: t.ones(3, 3) @ t.ones(3, 3, dtype=t.float64),
    lambda t: t.ones(3, 3, dtype=t.long) @ t.ones(3, 3),
    lambda t: t.bmm(t.ones(2, 3, 5, dtype=t.float64), t.ones(2, 5, 4)),
    # Linear on float64 / integer input (with a bias PyTorch runs addmm, without one mm)
    lambda t: t.nn.Linear(5, 10)(t.ones(3, 5, dtype=t.float64)),
    lambda t: t.nn.Linear(5, 10)(t.ones(3, 5, dtype=t.long)),
    lambda t: t.nn.Linear(5, 10)(t.ones(5, dtype=t.long)),
    lambda t: t.nn.Linear(5, 10)(t.ones(2, 3, 5, dtype=t.long)),
    lambda t: t.nn.Linear(5, 10, bias=False)(t.ones(3, 5, dtype=t.float64)),
    lambda t: t.nn.Linear(50, 10)(t.ones(64, 100, dtype=t.float64)),
    lambda t: F(t).linear(t.ones(3, 5), t.ones(4, 5, dtype=t.float16), t.ones(4)),
    lambda t: F(t).linear(t.ones(3, 5), t.ones(4, 5), t.ones(4, dtype=t.float64)),
    lambda t: F(t).linear(t.ones(3, 5, dtype=t.float16), t.ones(4, 5), t.ones(4, dtype=t.float64)),
    lambda t: F(t).linear(t.ones(5, dtype=t.float64), t.ones(4, 5)),
    # conv: the bias dtype is checked before the weight's; the transposed kernels cast the bias
    lambda t: t.nn.Conv2d(3, 8, 3)(t.ones(1, 3, 8, 8, dtype=t.float64)),
    lambda t: t.nn.Conv2d(3, 8, 3)(t.ones(1, 3, 8, 8, dtype=t.long)),
    lambda t: t.nn.Conv2d(3, 8, 3)(t.ones(1, 3, 8, 8, dtype=t.uint8)),
    lambda t: t.nn.Conv2d(3, 8, 3, bias=False)(t.ones(1, 3, 8, 8, dtype=t.float64)),
    lambda t: F(t).conv2d(t.ones(1, 3, 6, 6), t.ones(4, 3, 3, 3, dtype=t.float64),
                          t.ones(4, dtype=t.float64)),
    lambda t: F(t).conv1d(t.ones(1, 3, 6), t.ones(4, 3, 3), t.ones(4, dtype=t.float64)),
    lambda t: F(t).conv_transpose2d(t.ones(1, 3, 6, 6), t.ones(3, 4, 3, 3),
                                    t.ones(4, dtype=t.float64)),
    lambda t: F(t).conv_transpose2d(t.ones(1, 3, 6, 6, dtype=t.float64), t.ones(3, 4, 3, 3),
                                    t.ones(4)),
    lambda t: F(t).conv2d(t.ones(1, 3, 6, 6, dtype=t.long), t.ones(4, 3, 3, 3, dtype=t.long)),
]


@pytest.mark.parametrize("fn", DTYPES)
def test_dtype_mistake(fn):
    check(fn)


def test_conv_transpose_cast_bias_grad():
    def f(t):
        b = t.ones(4, dtype=t.float64, requires_grad=True)
        w = t.ones(3, 4, 3, 3, requires_grad=True)
        y = F(t).conv_transpose2d(t.ones(1, 3, 6, 6), w, b)
        y.sum().backward()
        return y, b.grad, w.grad
    check(f)


# ---- indexing --------------------------------------------------------------------------------

INDEXING = [
    lambda t: t.ones(3)[5],
    lambda t: t.ones(3)[-4],
    lambda t: t.ones(3, 4)[0, 4],
    lambda t: t.ones(3)[0, 0],
    lambda t: t.ones(3)[t.tensor([0, 5])],
    lambda t: t.ones(3, 4)[:, t.tensor([0, 5])],
    lambda t: t.ones(3)[t.tensor([True, False])],
    lambda t: t.ones(3)[t.tensor([0., 1.])],
    lambda t: t.ones(3)[1.0],
    # the bounds error names the position in the index, not the dim left after selects
    lambda t: t.ones(3, 4, 5)[0, 9],
    lambda t: t.ones(3, 4, 5)[0, 0, 9],
    lambda t: t.ones(3, 4, 5)[None, 0, 9],
    lambda t: t.ones(3, 4, 5)[..., 9],
    lambda t: t.ones(3, 4, 5)[0, ..., 9],
    lambda t: t.ones(3, 4, 5)[0, None, 9],
    lambda t: t.ones(3, 4, 5)[0, t.tensor(9)],
    lambda t: t.ones(3, 4, 5)[t.tensor([0]), 0, 9],
    lambda t: t.ones(3, 4, 5)[0, t.tensor([9])],
    lambda t: t.ones(3, 4, 5)[t.tensor([0]), t.tensor([9])],
    lambda t: t.ones(3, 4, 5)[:, :, [1, 7]],
    lambda t: t.ones(3).__setitem__(5, 1.),
    lambda t: t.ones(3, 4, 5).__setitem__((0, 9), 1.),
    lambda t: t.ones(3, 4, 5).__setitem__((slice(None), [0, 9]), 1.),
    lambda t: t.ones(3, 4).__setitem__(0, t.ones(3)),
    # index_select: PyTorch's dim-1 kernel words its bounds error differently
    lambda t: t.index_select(t.ones(3), 0, t.tensor([0, 5])),
    lambda t: t.index_select(t.ones(3, 4), 0, t.tensor([-1])),
    lambda t: t.ones(3, 4).index_select(1, t.tensor([0, 5])),
    lambda t: t.ones(3, 4).index_select(1, t.tensor([-1], dtype=t.int32)),
    lambda t: t.index_select(t.ones(2, 3, 4), 2, t.tensor([4])),
    lambda t: t.index_select(t.ones(2, 3, 4), 1, t.tensor([4])),
    lambda t: t.index_select(t.tensor(1.), 0, t.tensor([0, 0])),
    lambda t: t.index_select(t.tensor(1.), 0, t.tensor([], dtype=t.long)),
    lambda t: t.index_select(t.tensor(1.), 0, t.tensor([3])),
    lambda t: t.index_select(t.tensor(1.), 0, t.tensor([0])),
    lambda t: t.index_select(t.ones(3), 0, t.tensor([0.])),
    # gather / scatter
    lambda t: t.gather(t.ones(3, 4), 1, t.zeros(4, 4, dtype=t.long)),
    lambda t: t.gather(t.ones(3, 4), 1, t.full((3, 1), 5)),
    lambda t: t.gather(t.ones(3, 4), 1, t.zeros(3, dtype=t.long)),
    lambda t: t.gather(t.ones(3, 4), 1, t.zeros(3, 1, dtype=t.int32)),
    lambda t: t.gather(t.ones(3, 4), 1, t.zeros(3, 1)),
    lambda t: t.zeros(3, 4).scatter(1, t.zeros(4, 4, dtype=t.long), 1.),
    lambda t: t.zeros(3, 4).scatter(1, t.zeros(3, 4, dtype=t.long), t.ones(3, 2)),
    lambda t: t.zeros(3, 4).scatter(1, t.full((3, 1), 7), 1.),
    lambda t: t.zeros(3, 4).scatter_(1, t.zeros(3, 1, dtype=t.long),
                                     t.ones(3, 1, dtype=t.float64)),
    lambda t: t.zeros(3, 4).scatter_add(1, t.zeros(3, 5, dtype=t.long), t.ones(3, 5)),
    lambda t: t.zeros(3, 4).scatter(1, t.zeros(3, 1), 1.),
    lambda t: t.take_along_dim(t.ones(3, 4), t.zeros(2, 2, dtype=t.long), 1),
]


@pytest.mark.parametrize("fn", INDEXING)
def test_indexing(fn):
    check(fn)
