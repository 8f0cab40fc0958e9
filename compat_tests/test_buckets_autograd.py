"""Autograd through size classes (`torchlike/_core/buckets.py`, `_ops/bucketed.py`): training
whose batch size and length change runs forward and backward kernels compiled per size class on
padded buffers, with PyTorch's losses, gradients, hooks and `autograd.grad` results, and new
sizes within warm classes compile nothing (counted by torchlike.compile_log)."""
import numpy as np
import pytest
import torch as real_torch

import torchlike
from torchlike import compile_log
from harness import assert_same

# size classes are the op-by-op dispatcher's; fused eager does not bucket yet
pytestmark = pytest.mark.usefixtures("op_by_op")


def _net(lib, vocab=50, width=12, classes=7):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, width)
            self.body = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(),
                                      nn.Linear(2 * width, width))
            self.norm = nn.LayerNorm(width)
            self.head = nn.Linear(width, classes)

        def forward(self, x):
            return self.head(self.norm(self.body(self.emb(x))).mean(dim=1))

    rng = np.random.RandomState(0)
    net = Net()
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.tensor(rng.randn(*p.shape).astype(np.float32) * 0.3))
    return net


def _data(shapes, vocab=50, classes=7, seed=1):
    rng = np.random.RandomState(seed)
    return [(rng.randint(0, vocab, (b, t)).astype(np.int64),
             rng.randint(0, classes, b).astype(np.int64)) for b, t in shapes]


def _train(lib, net, data, log=None):
    opt = lib.optim.SGD(net.parameters(), lr=0.5)
    losses = []
    for i, (x, y) in enumerate(data):
        if log is not None:
            log.append(compile_log.counts()["compiles"])
        out = net(lib.from_numpy(x))
        loss = lib.nn.functional.cross_entropy(out, lib.from_numpy(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses, [p.detach().clone() for p in net.parameters()], out


WARM = [(3, 5), (9, 17), (20, 30), (6, 11), (31, 29), (17, 3)]   # every size in class 32 x 32
NEW = [(5, 9), (29, 21), (12, 31), (23, 7)]


def test_varying_batch_and_length_training_matches_pytorch_and_compiles_per_class():
    data = _data(WARM + NEW)
    expected = _train(real_torch, _net(real_torch), data)
    counts = []
    actual = _train(torchlike, _net(torchlike), data, counts)
    assert_same(expected[0], actual[0], rtol=1e-5, atol=1e-6)
    assert_same(expected[1], actual[1], rtol=1e-4, atol=1e-5)
    assert actual[2]._st._phys is not None          # the logits were computed padded
    counts.append(compile_log.counts()["compiles"])
    new = np.diff(counts)[len(WARM):]
    assert list(new) == [0] * len(NEW), new


def test_known_graph_at_new_size_classes_compiles_its_fused_backward_not_node_vjps():
    """A training graph seen before at other size classes is fused on its first sighting at
    new ones: the node-by-node vjps there would be compiled for nothing."""
    shapes = [(3, 5), (9, 17), (20, 30), (6, 11), (40, 9), (50, 20), (45, 3)]
    data = _data(shapes)
    expected = _train(real_torch, _net(real_torch), data)
    net = _net(torchlike)
    opt = torchlike.optim.SGD(net.parameters(), lr=0.5)
    losses, compiled = [], []
    for x, y in data:
        with compile_log.record() as log:
            loss = torchlike.nn.functional.cross_entropy(net(torchlike.from_numpy(x)),
                                                         torchlike.from_numpy(y))
            opt.zero_grad()
            loss.backward()
            opt.step()
        losses.append(loss)
        compiled.append([e.name for e in log.compiles + log.loads])
    assert_same(expected[0], losses, rtol=1e-5, atol=1e-6)
    assert_same(expected[1], [p.detach() for p in net.parameters()], rtol=1e-4, atol=1e-5)
    # batch 40 is a new class (64 x 32): its first step compiles the fused backward directly
    vjps = [n for n in compiled[4] if n.endswith("_backward") and n != "fused_backward"]
    assert "fused_backward" in compiled[4] and not vjps, compiled[4]
    assert compiled[5:] == [[], []], compiled[5:]


def _padded_input(lib, n, width=5, seed=3):
    """A host-made tensor at a line whose sizes change (padded in torchlike from the 2nd on)."""
    rng = np.random.RandomState(seed)
    made = []
    for m in (n + 3, n):
        made.append(lib.tensor(rng.randn(m, width).astype(np.float32)))
    return made[-1]


OPS = {
    "softmax": lambda lib, h: lib.softmax(h, 1) * h,
    "log_softmax_dim0": lambda lib, h: lib.log_softmax(h, 0),
    "max_dim": lambda lib, h: h.max(1).values,
    "amax": lambda lib, h: h.amax(0),
    "amin": lambda lib, h: h.amin(1),
    "mean": lambda lib, h: h.mean(),
    "mean_dim": lambda lib, h: h.mean(0, keepdim=True) * h,
    "sum_dim": lambda lib, h: h.sum(1) ** 2,
    "prod": lambda lib, h: (h.tanh() + 2).prod(0),
    "matmul": lambda lib, h: h @ h.t(),
    "matmul_contract": lambda lib, h: h.t() @ h,
    "log_of_square": lambda lib, h: lib.log(h * h + 1e-3),
    "sqrt_abs": lambda lib, h: (h.abs() + 1e-3).sqrt(),
    "layer_norm": lambda lib, h: lib.nn.functional.layer_norm(h, (5,)),
    "cross_entropy": lambda lib, h: lib.nn.functional.cross_entropy(
        h, lib.arange(h.shape[0]) % 5),
    "nll_sum": lambda lib, h: lib.nn.functional.nll_loss(
        lib.log_softmax(h, 1), lib.arange(h.shape[0]) % 5, reduction="sum"),
    "cross_entropy_none": lambda lib, h: lib.nn.functional.cross_entropy(
        h, lib.arange(h.shape[0]) % 5, reduction="none"),
    "no_rule_mixed": lambda lib, h: lib.cumsum(h, 1) + h.sum(1, keepdim=True),
}


@pytest.mark.parametrize("n", [2, 9])
@pytest.mark.parametrize("name", sorted(OPS))
def test_gradients_through_ops_on_padded_operands(name, n):
    def run(lib):
        x = _padded_input(lib, n)
        w = lib.linspace(-1.0, 1.5, 5).requires_grad_()
        h = x * w + 0.25
        y = OPS[name](lib, h)
        (y * lib.linspace(0.5, 2.0, y.numel()).reshape(y.shape)).sum().backward()
        return [y, w.grad]
    assert_same(run(real_torch), run(torchlike), rtol=1e-5, atol=1e-6)


def test_hooks_retain_grad_and_autograd_grad_see_real_sizes():
    def run(lib):
        x = _padded_input(lib, 6)
        w = lib.linspace(-1.0, 1.5, 5).requires_grad_()
        h = x * w
        seen = []
        h.register_hook(lambda g: seen.append(g * 1))
        h.retain_grad()
        y = (lib.softmax(h, 1) * lib.cumsum(h, 0)).sum()
        (gh,) = lib.autograd.grad(y, h, retain_graph=True)
        y.backward()
        return [gh, h.grad, seen[0], w.grad]
    assert_same(run(real_torch), run(torchlike), rtol=1e-5, atol=1e-6)


def test_a_padded_tensor_that_starts_requiring_grad_is_a_leaf_of_its_real_size():
    def run(lib):
        x = _padded_input(lib, 7)
        x.requires_grad_()
        (x.exp() * 2).sum().backward()
        return [x.grad, x.grad.shape, x.is_leaf]
    assert_same(run(real_torch), run(torchlike), rtol=1e-6)


def _transformer(lib, dropout, causal=False):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(50, 16)
            self.body = nn.TransformerEncoderLayer(16, 2, 32, dropout=dropout, batch_first=True)
            self.head = nn.Linear(16, 7)

        def forward(self, x, pad=None):
            mask = None
            if causal:
                mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
            h = self.body(self.emb(x), src_mask=mask, src_key_padding_mask=pad, is_causal=causal)
            return self.head(h.mean(dim=1))

    lib.manual_seed(0)
    net = Net()
    rng = np.random.RandomState(0)
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.tensor(rng.randn(*p.shape).astype(np.float32) * 0.3))
    return net


def _train_transformer(lib, net, data, with_pad):
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    losses = []
    lib.manual_seed(1)
    for x, y in data:
        xb = lib.from_numpy(x)
        pad = (xb == 0) if with_pad else None     # token 0 is padding
        loss = lib.nn.functional.cross_entropy(net(xb, pad), lib.from_numpy(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses, [p.detach().clone() for p in net.parameters()]


@pytest.mark.parametrize("with_pad,causal", [(False, False), (True, False), (False, True)])
def test_transformer_layer_training_at_changing_sizes_matches_pytorch(with_pad, causal):
    data = _data(WARM[:4] + NEW[:2])
    if with_pad:
        for x, _ in data:
            x[:, 0] = np.maximum(x[:, 0], 1)      # no row of only padding
    expected = _train_transformer(real_torch, _transformer(real_torch, 0.0, causal), data,
                                  with_pad)
    actual = _train_transformer(torchlike, _transformer(torchlike, 0.0, causal), data, with_pad)
    assert_same(expected, actual, rtol=1e-4, atol=1e-5)


def test_dropout_at_changing_sizes_equals_the_unbucketed_run():
    from torchlike._core import buckets
    data = _data(WARM[:4] + NEW[:2])
    bucketed = _train_transformer(torchlike, _transformer(torchlike, 0.2), data, False)
    buckets.ENABLED[0] = False
    try:
        exact = _train_transformer(torchlike, _transformer(torchlike, 0.2), data, False)
    finally:
        buckets.ENABLED[0] = True
    assert_same([t.detach() for t in exact[0]] + exact[1],
                [t.detach() for t in bucketed[0]] + bucketed[1], rtol=1e-4, atol=1e-5)


def _double_backward(lib, h, w):
    (g,) = lib.autograd.grad((lib.tanh(h) ** 2).sum(), w, create_graph=True)
    (g * g).sum().backward()
    return [g]


def _custom_function(lib, h, w):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g
    y = Square.apply(h)
    (y.sum(1) * lib.arange(float(h.shape[0]))).sum().backward()
    return [y]


def _checkpointed(lib, h, w):
    import importlib
    checkpoint = importlib.import_module(lib.__name__ + ".utils.checkpoint").checkpoint
    y = checkpoint(lambda a: lib.tanh(a * 2 + 1), h, use_reentrant=False)
    y.sum().backward()
    return [y]


def _in_place_chain(lib, h, w):
    h = h * 1
    h += 1
    h.mul_(2)
    h[1:3] = 0.5
    h.clamp_(min=-1)
    y = lib.softmax(h, 1)
    (y * y).sum().backward()
    return [h, y]


def _views(lib, h, w):
    v = h.view(3, -1)
    z = h.reshape(-1)[:7]
    (v.sum() + (z * z).sum() + h[2:5].sum() + h.t().sum(0).pow(2).sum()).backward()
    return [v, z]


@pytest.mark.parametrize("case", [_double_backward, _custom_function, _checkpointed,
                                  _in_place_chain, _views], ids=lambda f: f.__name__[1:])
def test_autograd_features_on_padded_intermediates(case):
    def run(lib):
        x = _padded_input(lib, 9)
        w = lib.linspace(-1.0, 1.5, 5).requires_grad_()
        out = case(lib, x * w, w)
        return out + [w.grad]
    assert_same(run(real_torch), run(torchlike), rtol=1e-5, atol=1e-6)
