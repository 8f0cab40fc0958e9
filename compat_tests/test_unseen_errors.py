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


# ---- losses ----------------------------------------------------------------------------------

def _logits(t):
    return t.arange(12.).reshape(4, 3) / 7


LOSSES = [
    lambda t: t.nn.CrossEntropyLoss()(_logits(t), t.tensor([0., 1., 2., 1.])),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3), t.ones(4, 2)),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3), t.tensor([0, 1, 2, 1], dtype=t.int32)),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3), t.tensor([0, 1, 3, 1])),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3), t.tensor([0, 1, -2, 1])),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3), t.tensor([0, 1, 2])),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3), t.zeros(4, 1, dtype=t.long)),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(3), t.tensor(1)),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3, dtype=t.float64), t.tensor([0, 1, 2, 1])),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3), t.tensor([True, False, True, False])),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3), t.tensor([0, 1, 2, 1], dtype=t.uint8)),
    lambda t: t.nn.CrossEntropyLoss(weight=t.ones(4))(t.ones(4, 3), t.tensor([0, 1, 2, 1])),
    lambda t: t.nn.CrossEntropyLoss(label_smoothing=1.5)(t.ones(4, 3), t.tensor([0, 1, 2, 1])),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(2, 3, 4, 4), t.zeros(2, 4, 5, dtype=t.long)),
    lambda t: t.nn.CrossEntropyLoss(reduction="avg")(t.ones(4, 3), t.tensor([0, 1, 2, 1])),
    # integer logits: PyTorch's log_softmax refuses them before any target check
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3, dtype=t.long), t.tensor([0, 1, 2, 1])),
    lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3, dtype=t.long), t.tensor([0, 1, 2])),
    lambda t: F(t).cross_entropy(t.ones(2, 3, 4, dtype=t.int32), t.zeros(2, 4, dtype=t.long)),
    lambda t: F(t).cross_entropy(t.ones(2, 3, dtype=t.bool), t.zeros(2, 3)),
    lambda t: F(t).cross_entropy(t.ones(3, dtype=t.long), t.zeros(3)),
    lambda t: F(t).cross_entropy(t.ones(4, 3, dtype=t.long), t.zeros(4, dtype=t.long),
                                 label_smoothing=0.1),
    lambda t: F(t).cross_entropy(t.ones(2, 3, dtype=t.long), t.zeros(2, 3, dtype=t.long)),
    # an unbatched input with a 1-element 1-D target
    lambda t: t.nn.CrossEntropyLoss()(t.tensor([0.2, 0.5, 0.3]), t.tensor([2])),
    lambda t: F(t).cross_entropy(t.ones(3), t.tensor([1]), reduction="none"),
    lambda t: F(t).cross_entropy(t.ones(3), t.tensor([1]), weight=t.tensor([1., 2., 3.])),
    lambda t: F(t).cross_entropy(t.ones(3), t.tensor([1, 2])),
    lambda t: F(t).cross_entropy(t.ones(3), t.tensor([], dtype=t.long)),
    lambda t: F(t).cross_entropy(t.ones(3), t.tensor([1]), label_smoothing=0.1),
    lambda t: F(t).nll_loss(t.ones(3), t.tensor([1])),
    lambda t: F(t).nll_loss(t.ones(3), t.tensor([1]), reduction="none"),
    lambda t: F(t).nll_loss(t.ones(3), t.tensor([-100])),
    lambda t: F(t).nll_loss(t.ones(3), t.tensor([5])),
    lambda t: F(t).nll_loss(t.ones(3), t.tensor([[1]])),
    lambda t: F(t).nll_loss(t.ones(3), t.tensor([1.])),
    lambda t: F(t).nll_loss(t.ones(3), t.tensor([1, 2]), weight=t.ones(2)),
    lambda t: t.nn.NLLLoss()(t.ones(4, 3), t.tensor([0, 1, 2, 1], dtype=t.int32)),
    lambda t: t.nn.NLLLoss()(t.ones(4, 3), t.tensor([0., 1., 2., 1.])),
    lambda t: t.nn.NLLLoss()(t.ones(4, 3), t.tensor([0, 1, 5, 1])),
    lambda t: t.nn.NLLLoss()(t.ones(4, 3), t.tensor([0, 1, 2])),
    lambda t: t.nn.NLLLoss()(t.ones(4, 3), t.zeros(4, 3, dtype=t.long)),
    lambda t: t.nn.NLLLoss(ignore_index=5)(t.ones(4, 3), t.tensor([0, 1, 5, 1])),
    lambda t: t.nn.MSELoss()(t.ones(4), t.ones(4, dtype=t.long)),
    lambda t: t.nn.MSELoss()(t.ones(4, 2), t.ones(3)),
    lambda t: t.nn.MSELoss()(t.ones(4), t.ones(4, dtype=t.float64)),
    lambda t: t.nn.L1Loss()(t.ones(4), t.ones(4, dtype=t.long)),
    lambda t: t.nn.BCELoss()(t.tensor([0.5, 1.5]), t.tensor([0., 1.])),
    lambda t: t.nn.BCELoss()(t.tensor([-0.5, 0.5]), t.tensor([0., 1.])),
    lambda t: t.nn.BCELoss()(t.tensor([0.5, 0.5]), t.tensor([0., 2.])),
    lambda t: t.nn.BCELoss()(t.tensor([0.5, 0.5]), t.tensor([0, 1])),
    lambda t: t.nn.BCELoss()(t.ones(4, 1) * 0.5, t.ones(4)),
    lambda t: t.nn.BCELoss()(t.ones(4) * 0.5, t.ones(4, dtype=t.float64)),
    lambda t: t.nn.BCELoss()(t.tensor([float("nan"), 0.5]), t.tensor([0., 1.])),
    lambda t: t.nn.BCEWithLogitsLoss()(t.ones(4, 1), t.ones(4)),
    lambda t: t.nn.BCEWithLogitsLoss(pos_weight=t.ones(3))(t.ones(4, 2), t.ones(4, 2)),
    lambda t: F(t).binary_cross_entropy_with_logits(t.ones(4, dtype=t.long),
                                                    t.ones(4, dtype=t.long)),
    lambda t: F(t).binary_cross_entropy_with_logits(t.ones(4, dtype=t.long), t.ones(4)),
]


@pytest.mark.parametrize("fn", LOSSES)
def test_loss(fn):
    check(fn)


@pytest.mark.parametrize("fn", [
    lambda t: t.nn.MSELoss()(t.ones(4, 1), t.ones(4)),
    lambda t: t.nn.L1Loss()(t.ones(3, 2), t.ones(3)),
    lambda t: t.nn.MSELoss()(_logits(t), t.ones(4, 3)),
])
def test_loss_warnings(fn):
    check_warns(fn)


@pytest.mark.parametrize("target", ["long", "int32", "bool", "uint8", "float64", "float16"])
@pytest.mark.parametrize("pos_weight", [False, True])
@pytest.mark.parametrize("weight", [False, True])
def test_bce_with_logits_target_dtype(target, pos_weight, weight):
    # PyTorch computes (1 - target).mul_(input) in place: integer targets can't hold the result
    check(lambda t: F(t).binary_cross_entropy_with_logits(
        t.ones(4), t.ones(4, dtype=getattr(t, target)), weight=t.ones(4) if weight else None,
        pos_weight=t.ones(4) if pos_weight else None), rtol=1e-6)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("dtypes", [("long", "long"), ("int32", "int32"), ("long", "float32"),
                                    ("float32", "long"), ("bool", "bool"), ("long", "int32")])
@pytest.mark.parametrize("reduction", ["mean", "none", "sum"])
def test_regression_loss_integer_operands(name, dtypes, reduction):
    a, b = dtypes
    check(lambda t: getattr(F(t), name)(t.ones(4, dtype=getattr(t, a)),
                                        t.ones(4, dtype=getattr(t, b)), reduction=reduction))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
def test_regression_loss_integer_operands_weighted(name):
    check(lambda t: getattr(F(t), name)(t.ones(4, dtype=t.long), t.ones(4, dtype=t.long),
                                        weight=t.ones(4)))


@pytest.mark.parametrize("dtype", ["long", "int32", "bool", "uint8"])
@pytest.mark.parametrize("fn", [
    lambda t, x: F(t).dropout(x),
    lambda t, x: F(t).dropout(x, 1.0),
    lambda t, x: F(t).dropout2d(x),
    lambda t, x: F(t).alpha_dropout(x, training=True),
    lambda t, x: F(t).feature_alpha_dropout(x, training=True),
    lambda t, x: F(t).dropout(x, inplace=True),
    lambda t, x: t.nn.Dropout()(x),
    lambda t, x: F(t).dropout(x, training=False),
])
def test_dropout_integer_input(dtype, fn):
    check(lambda t: fn(t, t.ones(2, 3, 4, dtype=getattr(t, dtype))))


# ---- other dtype mistakes --------------------------------------------------------------------

MORE_DTYPES = [
    lambda t: F(t).one_hot(t.tensor([0, -1, 2])),
    lambda t: F(t).one_hot(t.tensor([0., 1.])),
    lambda t: F(t).one_hot(t.tensor([0, 3]), 3),
    lambda t: F(t).one_hot(t.tensor([0, 1], dtype=t.int32)),
    lambda t: F(t).one_hot(t.tensor([], dtype=t.long)),
    lambda t: t.nn.Embedding(10, 3)(t.tensor([1., 2.])),
    lambda t: t.nn.Embedding(10, 3)(t.tensor([1, 2], dtype=t.int32)).shape,
    lambda t: t.nn.Embedding(10, 3)(t.tensor([1, 10])),
    lambda t: t.nn.Embedding(10, 3)(t.tensor([-1])),
    lambda t: F(t).embedding(t.tensor([1., 2.]), t.ones(10, 3)),
    lambda t: t.ones(3, dtype=t.long).add_(t.ones(3) * 0.5),
    lambda t: t.ones(3, dtype=t.long).mul_(1.5),
    lambda t: t.ones(3, dtype=t.long).div_(2),
    lambda t: t.ones(3, dtype=t.long).__iadd__(t.ones(3)),
    lambda t: t.ones(3, dtype=t.long).sqrt_(),
    lambda t: t.ones(3, dtype=t.bool).add_(1),
    lambda t: t.add(t.ones(3), 1, out=t.ones(3, dtype=t.long)),
    lambda t: t.ones(3).add_(t.ones(3, dtype=t.complex64)),
    lambda t: t.ones(3, dtype=t.int32).sub_(0.5),
    lambda t: t.ones(3, dtype=t.long).clamp_(t.tensor(0.5)),
    lambda t: t.ones(3, dtype=t.long).masked_fill(t.ones(3, dtype=t.bool), 0.5),
    lambda t: t.ones(3, dtype=t.long).index_put_((t.tensor([0]),), t.tensor([0.5])),
    lambda t: t.ones(3, dtype=t.long).softmax(0),
    lambda t: t.ones(3, dtype=t.long).mean(),
    lambda t: F(t).log_softmax(t.ones(3, dtype=t.long), 0),
    lambda t: t.relu(t.ones(3, dtype=t.bool)),
    lambda t: t.sigmoid(t.ones(3, dtype=t.long)),
    lambda t: t.ones(3, dtype=t.long).std(),
    lambda t: F(t).logsigmoid(t.ones(3, dtype=t.long)),
]


@pytest.mark.parametrize("fn", MORE_DTYPES)
def test_more_dtype_mistakes(fn):
    check(fn)


def test_setitem_float_into_long():
    def f(t):
        x = t.ones(3, dtype=t.long)
        x[0] = 2.7
        return x
    check(f)


# ---- autograd mistakes -----------------------------------------------------------------------

def _backward_twice(op):
    def f(t):
        x = t.ones(3, 3, requires_grad=True)
        y = op(t, x).sum()
        y.backward()
        y.backward()
    return f


def _grad_twice(t):
    x = t.ones(3, requires_grad=True)
    y = (x * x).sum()
    t.autograd.grad(y, x)
    t.autograd.grad(y, x)


def _retain(t):
    x = t.ones(3, requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    return x.grad


def _linear_twice(t):
    m = t.nn.Linear(3, 2)
    y = m(t.ones(4, 3)).relu().sum()
    y.backward()
    y.backward()


def _leaf(t):
    return t.ones(3, requires_grad=True)


def _exec(code):
    """A statement run with `t` and a fresh leaf `x` (requires grad) in scope."""
    def f(t):
        env = {"t": t, "x": _leaf(t)}
        exec(code, env)
        return env.get("out")
    return f


def _modify_saved(t):
    x = t.ones(3, requires_grad=True)
    y = x.exp()
    z = y.sum()
    y.add_(1)
    z.backward()


def _modify_saved_sigmoid(t):
    x = t.ones(3, requires_grad=True)
    y = x.sigmoid()
    z = (y * 2).sum()
    y.mul_(2)
    z.backward()


def _modify_saved_relu(t):
    x = t.ones(3, requires_grad=True)
    y = x * 1
    z = y * y
    y.relu_()
    z.sum().backward()


def _modify_saved_operand(t):
    a = t.ones(3, requires_grad=True)
    b = t.ones(3) * 2
    c = a * b
    b.add_(1)
    c.sum().backward()


def _no_grad_backward(t):
    x = t.ones(3, requires_grad=True)
    with t.no_grad():
        y = (x * 2).sum()
    y.backward()


def _param_inplace(t):
    m = t.nn.Linear(2, 2)
    m.weight.mul_(2)


def _param_inplace_no_grad(t):
    m = t.nn.Linear(2, 2)
    with t.no_grad():
        m.weight.mul_(2)
    return m.weight.requires_grad


AUTOGRAD = [
    _backward_twice(lambda t, x: x * x),
    _backward_twice(lambda t, x: x.exp()),
    _backward_twice(lambda t, x: x @ x),
    _linear_twice, _grad_twice, _retain, _modify_saved, _modify_saved_sigmoid,
    _modify_saved_relu, _modify_saved_operand, _no_grad_backward, _param_inplace,
    _param_inplace_no_grad,
    _exec("(x * 2).backward()"),
    _exec("t.autograd.grad(x * 2, x)"),
    _exec("(t.ones(3) * 2).sum().backward()"),
    _exec("out = t.ones(3, dtype=t.long).requires_grad_()"),
    _exec("out = t.tensor([1, 2], requires_grad=True)"),
    _exec("out = t.ones(3, dtype=t.long, requires_grad=True)"),
    _exec("y = t.ones(3, dtype=t.long); y.requires_grad = True"),
    _exec("x += 1"),
    _exec("x.add_(1)"),
    _exec("x[0] = 5"),
    _exec("x.zero_()"),
    _exec("y = t.ones(3, 3, requires_grad=True); y[0].mul_(2)"),
    _exec("out = x.numpy()"),
    _exec("out = (x * 2).numpy()"),
    _exec("out = x.tolist()"),
    _exec("out = x.detach().numpy().tolist()"),
    _exec("out = t.ones(3).item()"),
    _exec("out = t.ones(0).item()"),
    _exec("y = x * 2; y.sum().backward(); out = y.grad"),
    _exec("out = t.ones(3).grad"),
    _exec("t.autograd.grad((x * 2).sum(), t.ones(3))"),
    _exec("t.autograd.grad((x * 2).sum(), t.ones(3, requires_grad=True))"),
    _exec("t.autograd.grad(t.ones(3).sum(), x)"),
    _exec("(x * 2).backward(t.ones(4))"),
    _exec("(x * 2).backward(t.ones(3, dtype=t.float64)); out = x.grad"),
    _exec("y = x.detach(); y.add_(1); out = x"),
    _exec("x.grad = t.ones(4)"),
    _exec("x.grad = t.ones(3, dtype=t.float64)"),
    _exec("y = x * 2; y.requires_grad = False"),
]


@pytest.mark.parametrize("fn", AUTOGRAD)
def test_autograd_mistake(fn):
    check(fn)


# ---- Python protocol misuse ------------------------------------------------------------------

PROTOCOL = [
    lambda t: float(t.ones(3)),
    lambda t: int(t.ones(3)),
    lambda t: len(t.tensor(1.)),
    lambda t: bool(t.ones(3)),
    lambda t: 1 if t.ones(3) > 0 else 0,
    lambda t: bool(t.ones(0)),
    lambda t: list(t.tensor(1.)),
    lambda t: t.tensor(1.)[0],
]


@pytest.mark.parametrize("fn", PROTOCOL)
def test_protocol_misuse(fn):
    check(fn)


# ---- module mistakes -------------------------------------------------------------------------

def _load(make_model, make_source, edit=None, strict=True):
    def f(t):
        m = make_model(t)
        sd = make_source(t).state_dict()
        if edit is not None:
            sd = edit(t, sd)
        out = str(m.load_state_dict(sd, strict=strict))
        return out, {k: v for k, v in m.state_dict().items() if "running" in k or "batches" in k}
    return f


def _lin(t):
    return t.nn.Linear(2, 2)


def _drop(*keys):
    def edit(t, sd):
        for k in keys:
            del sd[k]
        return sd
    return edit


def _plain(*dropped):
    """A plain dict (no `_metadata`, as after renaming keys) without `dropped`."""
    return lambda t, sd: {k: v for k, v in sd.items() if k not in dropped}


def _bn_trained(t):
    m = t.nn.BatchNorm1d(2)
    m(t.arange(6.).reshape(3, 2))
    return m


MODULES = [
    _load(_lin, _lin, _drop("bias")),
    _load(_lin, _lin, _drop("bias"), strict=False),
    _load(lambda t: t.nn.Sequential(t.nn.Linear(2, 2)), _lin),
    _load(_lin, _lin, lambda t, sd: {**sd, "foo": t.ones(1)}),
    _load(_lin, _lin, lambda t, sd: {"foo": t.ones(1), "weight": sd["weight"]}, strict=False),
    _load(_lin, lambda t: t.nn.Linear(3, 2)),
    _load(_lin, lambda t: t.nn.Linear(3, 2), strict=False),
    _load(_lin, _lin, lambda t, sd: {"module." + k: v for k, v in sd.items()}),
    _load(_lin, _lin, lambda t, sd: {**sd, "bias": [1., 2.]}),
    _load(lambda t: t.nn.BatchNorm1d(2), lambda t: t.nn.BatchNorm1d(2),
          _drop("num_batches_tracked", "running_mean")),
    # BatchNorm fills num_batches_tracked into a state dict of an older version (or without
    # metadata): it is neither missing nor reset
    _load(lambda t: t.nn.Sequential(t.nn.Linear(2, 2), t.nn.BatchNorm1d(2)),
          lambda t: t.nn.Sequential(t.nn.Linear(3, 2), t.nn.Linear(2, 2))),
    _load(lambda t: t.nn.BatchNorm1d(2), lambda t: t.nn.BatchNorm1d(2),
          _plain("num_batches_tracked")),
    _load(_bn_trained, _bn_trained, _plain("num_batches_tracked")),
    _load(lambda t: t.nn.Sequential(t.nn.Conv2d(1, 2, 1), t.nn.BatchNorm2d(2)),
          lambda t: t.nn.Sequential(t.nn.Conv2d(1, 2, 1), t.nn.BatchNorm2d(2)),
          _plain("1.num_batches_tracked")),
    _load(lambda t: t.nn.BatchNorm1d(2, track_running_stats=False),
          lambda t: t.nn.BatchNorm1d(2), _plain()),
    _load(lambda t: t.nn.InstanceNorm1d(2, track_running_stats=True),
          lambda t: t.nn.BatchNorm1d(2), _plain("weight", "bias", "num_batches_tracked")),
    lambda t: t.nn.Linear(2, 2).load_state_dict([1, 2]),
    lambda t: t.nn.Linear(2, 2)(t.ones(2), t.ones(2)),
    lambda t: t.nn.Linear(2, 2)(),
    lambda t: t.nn.Linear(2, 2)(x=t.ones(2)),
    lambda t: t.nn.Sequential(t.nn.Linear(2, 2), t.nn.ReLU())[5],
    lambda t: t.nn.Sequential(t.nn.Linear(2, 2), t.nn.ReLU())[-3],
    lambda t: t.nn.Sequential(t.nn.Linear(2, 2))["a"],
    lambda t: t.nn.Sequential(t.nn.Linear(2, 2))(t.ones(2), t.ones(2)),
    lambda t: t.nn.Sequential(t.nn.Linear(2, 2), lambda x: x),
    lambda t: t.nn.Sequential([t.nn.Linear(2, 2)]),
    lambda t: t.nn.ModuleList([t.nn.Linear(2, 2)])[3],
    lambda t: t.nn.ModuleList().append(3),
    lambda t: t.nn.ModuleDict({"a": t.nn.Linear(2, 2)})["b"],
    lambda t: t.nn.ParameterList([t.nn.Parameter(t.ones(2))])[3],
    lambda t: t.nn.Module().add_module("a.b", t.nn.Linear(2, 2)),
    lambda t: t.nn.Linear(t.tensor(3), t.tensor(4)).weight.shape,
    lambda t: str(t.nn.Linear(3.0, 4)),
    lambda t: t.nn.Linear(-1, 4),
    lambda t: t.nn.Linear(t.ones(3, 4), 4),
    lambda t: t.nn.Linear(None, 4),
    lambda t: str(t.nn.Conv2d(t.tensor(3), 4, 3)),
    lambda t: t.nn.Conv2d(3.0, 4, 3),
    lambda t: t.nn.Conv2d(3, 4, -1),
    lambda t: t.nn.Embedding(-1, 3),
    lambda t: t.nn.BatchNorm2d(3.0),
]


@pytest.mark.parametrize("fn", MODULES)
def test_module_mistake(fn):
    check(fn)


@pytest.mark.parametrize("fn", [
    lambda t: t.nn.Conv2d(0, 4, 3).weight.shape,
    lambda t: t.nn.Conv2d(3, 0, 3).weight.shape,
    lambda t: t.nn.ConvTranspose2d(3, 0, 3).weight.shape,
    lambda t: t.nn.Conv1d(0, 4, 3).weight.shape,
    lambda t: t.nn.Linear(0, 4).weight.shape,
    lambda t: t.nn.Linear(4, 0).weight.shape,
    lambda t: t.nn.Embedding(0, 4).weight.shape,
])
def test_zero_element_init_warns(fn):
    check_warns(fn)


def _param(t):
    return t.ones(3, requires_grad=True)


OPTIM = [
    lambda t: t.optim.SGD([], lr=0.1),
    lambda t: t.optim.Adam(t.nn.ReLU().parameters()),
    lambda t: t.optim.SGD([_param(t) * 2], lr=0.1),
    lambda t: t.optim.SGD(_param(t), lr=0.1),
    lambda t: t.optim.SGD([_param(t)]),
    lambda t: t.optim.SGD([_param(t)], lr=-1),
    lambda t: t.optim.Adam([_param(t)], betas=(1.5, 0.9)),
    lambda t: (lambda x: t.optim.SGD([x, x], lr=0.1))(_param(t)),
    lambda t: (lambda x: t.optim.SGD([{"params": [x]}, {"params": [x]}], lr=0.1))(_param(t)),
    lambda t: t.optim.SGD([t.ones(3)], lr=0.1).param_groups[0]["lr"],
    lambda t: t.optim.SGD([t.ones(3, dtype=t.long)], lr=0.1).param_groups[0]["lr"],
    lambda t: t.optim.SGD({_param(t)}, lr=0.1),
    lambda t: t.optim.SGD(t.nn.Linear(2, 2), lr=0.1),
    lambda t: t.optim.SGD([_param(t)], lr=0.1, nesterov=True),
    lambda t: t.optim.SGD([_param(t)], lr=0.1, foo=1),
    lambda t: t.optim.SGD([_param(t)], lr=0.1).load_state_dict({"state": {}, "param_groups": []}),
    lambda t: (lambda x: (t.optim.SGD([x], lr=0.1).step(), x)[1])(_param(t)),
]


@pytest.mark.parametrize("fn", OPTIM)
def test_optimizer_mistake(fn):
    check_warns(lambda t: repr(fn(t)))


def _data(t):
    return t.utils.data


class _Stream:
    """An IterableDataset built for either library."""

    @staticmethod
    def make(t):
        class D(t.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))
        return D()


DATA = [
    lambda t: _data(t).DataLoader(list(range(10)), batch_size=0),
    lambda t: _data(t).DataLoader(list(range(10)), batch_size=-1),
    lambda t: _data(t).DataLoader(list(range(10)), batch_size=2.5),
    lambda t: _data(t).DataLoader(list(range(10)), shuffle=True,
                                  sampler=_data(t).SequentialSampler(range(10))),
    lambda t: _data(t).DataLoader(list(range(10)), batch_size=2,
                                  batch_sampler=_data(t).BatchSampler(range(10), 2, False)),
    lambda t: _data(t).DataLoader(list(range(10)), drop_last=True,
                                  batch_sampler=_data(t).BatchSampler(range(10), 2, False)),
    lambda t: _data(t).DataLoader(list(range(10)), num_workers=-1),
    lambda t: _data(t).DataLoader(list(range(10)), timeout=-1),
    lambda t: _data(t).DataLoader(list(range(10)), prefetch_factor=2),
    lambda t: _data(t).DataLoader(list(range(10)), persistent_workers=True),
    lambda t: len(_data(t).DataLoader(list(range(10)), shuffle="yes")),
    lambda t: _data(t).DataLoader(list(range(10)), batch_size=None, drop_last=True).drop_last,
    lambda t: list(_data(t).DataLoader([t.ones(2), t.ones(3)], batch_size=2)),
    lambda t: list(_data(t).DataLoader([[1, 2], [3]], batch_size=2)),
    lambda t: list(_data(t).DataLoader([None, None], batch_size=2)),
    lambda t: len(_data(t).DataLoader(_Stream.make(t))),
    lambda t: _data(t).DataLoader(_Stream.make(t), shuffle=True),
    lambda t: _data(t).random_split(range(10), [3, 3]),
    lambda t: _data(t).random_split(range(10), [0.5, 0.6]),
    lambda t: _data(t).Subset(list(range(3)), [5])[0],
    lambda t: _data(t).TensorDataset(t.ones(3), t.ones(4)),
    lambda t: _data(t).BatchSampler(range(10), 0, False),
    lambda t: _data(t).RandomSampler(range(10), num_samples=0),
    lambda t: list(_data(t).WeightedRandomSampler([1., -1.], 2)),
]


@pytest.mark.parametrize("fn", DATA)
def test_data_mistake(fn):
    check(fn)


# ---- misc ------------------------------------------------------------------------------------

MISC = [
    lambda t: t.tensor([[1, 2], [3]]),
    lambda t: t.tensor([[[1, 2], [3, 4]], [[1, 2], [3]]]),
    lambda t: t.tensor([1, [2, 3]]),
    lambda t: t.tensor([[1, 2], 3]),
    lambda t: t.tensor([t.ones(2), t.ones(2)]),
    lambda t: t.tensor([t.ones(1), t.ones(1)]),
    lambda t: t.tensor([t.tensor(1.), t.tensor(2.)]),
    lambda t: t.tensor(["a"]),
    lambda t: t.tensor("a"),
    lambda t: t.tensor([None]),
    lambda t: t.tensor({"a": 1}),
    lambda t: t.tensor({1, 2}),
    lambda t: t.tensor([2 ** 64]),
    lambda t: t.tensor([1.5], dtype=t.long),
    lambda t: t.from_numpy([1, 2]),
    lambda t: t.as_tensor([[1], [2, 3]]),
    lambda t: t.FloatTensor([[1], [2, 3]]),
    lambda t: t.arange(0, 10, 0),
    lambda t: t.arange(10, 0, 1),
    lambda t: t.arange(0, 10, -1),
    lambda t: t.arange(0, float("inf")),
    lambda t: t.arange(0, float("nan")),
    lambda t: t.linspace(0, 1, -1),
    lambda t: t.zeros(-1),
    lambda t: t.zeros(2, -3),
    lambda t: t.ones(2.5),
    lambda t: t.ones((2, 2.0)),
    lambda t: t.empty(-2),
    lambda t: t.full((-1,), 1.),
    lambda t: t.randn(-1),
    lambda t: t.rand(2, -1),
    lambda t: t.zeros("3"),
    lambda t: t.zeros(None),
    lambda t: t.eye(-1),
    lambda t: t.randint(5, 5, (3,)),
    lambda t: t.randint(5, 2, (3,)),
    lambda t: t.randint(0, (3,)),
    lambda t: t.randint(-1, (3,)),
    lambda t: t.randperm(-1),
    lambda t: t.multinomial(t.tensor([-1., 1.]), 1),
    lambda t: t.multinomial(t.tensor([0., 0.]), 1),
    lambda t: t.multinomial(t.tensor([1., 1.]), 3),
    # PyTorch's with-replacement kernel (more than one sample) words its checks differently
    lambda t: t.multinomial(t.tensor([1., -1.]), 2, True),
    lambda t: t.multinomial(t.tensor([[1., 1.], [1., -1.]]), 2, True),
    lambda t: t.multinomial(t.tensor([1., float("nan")]), 2, True),
    lambda t: t.multinomial(t.tensor([float("inf"), -1.]), 2, True),
    lambda t: t.multinomial(t.tensor([0., 0.]), 2, True),
    lambda t: t.multinomial(t.tensor([1., -1.]), 1, True),
    lambda t: t.multinomial(t.tensor([1., -1.]), 2, False),
    lambda t: t.normal(0., -1., (3,)),
    lambda t: t.normal(t.zeros(3), -t.ones(3)),
    lambda t: t.ones(3).uniform_(1, 0),
    lambda t: t.bernoulli(t.tensor([1.5])),
    lambda t: t.ones(3).bernoulli_(1.5),
    lambda t: t.ones(3).to("cuda"),
    lambda t: t.ones(3).cuda(),
    lambda t: t.ones(3).to("cuda:1"),
    lambda t: t.ones(3, device="cuda"),
    lambda t: t.nn.Linear(2, 2).cuda(),
    lambda t: t.nn.Linear(2, 2).to("cuda"),
    lambda t: t.ones(3).to("gpu"),
    lambda t: t.device("foo"),
    lambda t: t.device("cpu:x"),
    lambda t: t.device("cuda", -1),
    lambda t: t.cuda.is_available(),
    lambda t: t.cuda.device_count(),
    lambda t: t.cuda.current_device(),
    lambda t: t.cuda.get_device_name(),
    lambda t: t.cuda.synchronize(),
    lambda t: t.Generator(device="cuda"),
    lambda t: t.ones(3).is_cuda,
    lambda t: iter(t.tensor(1)),
    lambda t: int(t.tensor([2.7])),
    lambda t: [1, 2, 3][t.tensor(1.)],
    lambda t: [1, 2, 3][t.tensor(1)],
    lambda t: [1, 2, 3][t.tensor([1])],
    lambda t: list(range(t.tensor(3))),
    lambda t: list(range(t.tensor(3.))),
    lambda t: "a" in t.ones(2),
    lambda t: t.ones(2) + "a",
    lambda t: t.ones(2) + None,
    lambda t: round(t.tensor(1.2345), 2),
    lambda t: "{:.2f}".format(t.ones(2)),
    lambda t: "{:.2f}".format(t.tensor(1.5)),
    lambda t: complex(t.ones(2)),
    lambda t: t.ones(3).__index__(),
    lambda t: t.ones(3).size(1),
    lambda t: t.ones(3).shape[1],
    lambda t: t.ones(2, 3, 4).t(),
    lambda t: t.ones(3, requires_grad=True)[0:2].detach_(),
    # matrix transposes of a vector
    lambda t: t.ones(3).mT,
    lambda t: t.ones(3).mH,
    lambda t: t.ones(3).H,
    lambda t: t.ones(2, 3, 4).H,
    lambda t: t.ones(2, 3).H,
    lambda t: t.ones(2, 3, 4).mT,
    lambda t: t.ones(2, 3, 4, dtype=t.complex64).mH,
    lambda t: t.ones(2, 3, dtype=t.complex64).H,
]


@pytest.mark.parametrize("fn", MISC)
def test_misc_mistake(fn):
    check(fn)
