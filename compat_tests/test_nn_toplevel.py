"""PyTorch's top-level aliases of nn ops (`torch.conv2d`, `torch.selu`, ...), called with
positional arguments as PyTorch scripts do, compared with torch (values and gradients)."""
import numpy as np
import pytest

from harness import check

R = np.random.RandomState(0)
X = R.randn(2, 4, 6, 6).astype(np.float32)
V = R.randn(3, 5).astype(np.float32)


def _run(call, x_np):
    def f(torch):
        x = torch.tensor(x_np, requires_grad=True)
        y = call(torch, x)
        first = y[0] if isinstance(y, tuple) else y
        (first * torch.linspace(-1, 1, first.numel()).view(first.shape)).sum().backward()
        return y, x.grad
    return f


CASES = {
    "selu": (lambda t, x: t.selu(x), V), "celu": (lambda t, x: t.celu(x, 0.7), V),
    "prelu": (lambda t, x: t.prelu(x, t.tensor([0.2])), V),
    "rrelu": (lambda t, x: t.rrelu(x, 0.1, 0.3, False), V),
    "hardshrink": (lambda t, x: t.hardshrink(x, 0.4), V),
    "bilinear": (lambda t, x: t.bilinear(x, x, t.ones(2, 5, 5) * 0.1), V),
    "cosine_similarity": (lambda t, x: t.cosine_similarity(x, x.flip(0), 1), V),
    "pairwise_distance": (lambda t, x: t.pairwise_distance(x, x * 2), V),
    "pdist": (lambda t, x: t.pdist(x), V),
    "conv2d": (lambda t, x: t.conv2d(x, t.ones(3, 4, 3, 3) * 0.1, None, 1, 1), X),
    "conv1d": (lambda t, x: t.conv1d(x.flatten(2), t.ones(2, 4, 3) * 0.1), X),
    "conv_transpose2d": (lambda t, x: t.conv_transpose2d(x, t.ones(4, 2, 3, 3) * 0.1), X),
    "max_pool2d": (lambda t, x: t.max_pool2d(x, 2), X),
    "max_pool1d": (lambda t, x: t.max_pool1d(x.flatten(2), 3), X),
    "avg_pool1d": (lambda t, x: t.avg_pool1d(x.flatten(2), 3), X),
    "adaptive_avg_pool1d": (lambda t, x: t.adaptive_avg_pool1d(x.flatten(2), 5), X),
    "pixel_shuffle": (lambda t, x: t.pixel_shuffle(x, 2), X),
    "pixel_unshuffle": (lambda t, x: t.pixel_unshuffle(x, 2), X),
    "channel_shuffle": (lambda t, x: t.channel_shuffle(x, 2), X),
    "dropout_eval": (lambda t, x: t.dropout(x, 0.3, False), X),
    "layer_norm": (lambda t, x: t.layer_norm(x, (6, 6)), X),
    "group_norm": (lambda t, x: t.group_norm(x, 2), X),
}


@pytest.mark.parametrize("name", list(CASES))
def test_toplevel_nn_alias(name):
    call, x = CASES[name]
    check(_run(call, x))
