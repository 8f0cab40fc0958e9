"""nn.functional entries not exercised elsewhere: 3-D and with-indices pooling variants, the
in-place activations, the legacy upsample names, channel shuffle — compared with torch (values,
indices and input gradients)."""
import numpy as np
import pytest

from harness import check

RNG = np.random.RandomState(0)
X1 = RNG.randn(2, 3, 9).astype(np.float32)
X2 = RNG.randn(2, 3, 8, 7).astype(np.float32)
X3 = RNG.randn(1, 2, 6, 5, 7).astype(np.float32)


def _grad_of(fn, x_np):
    def f(torch):
        x = torch.tensor(x_np, requires_grad=True)
        out = fn(torch.nn.functional, x)
        outs = out if isinstance(out, tuple) else (out,)
        first = outs[0]
        (first * torch.linspace(-1, 1, first.numel()).view(first.shape)).sum().backward()
        return outs, x.grad
    return f


CASES = {
    "adaptive_avg_pool3d": (lambda F, x: F.adaptive_avg_pool3d(x, (3, 2, 4)), X3),
    "adaptive_max_pool1d": (lambda F, x: F.adaptive_max_pool1d(x, 4), X1),
    "adaptive_max_pool1d_with_indices": (lambda F, x: F.adaptive_max_pool1d_with_indices(x, 4), X1),
    "adaptive_max_pool2d_with_indices": (lambda F, x: F.adaptive_max_pool2d_with_indices(x, (3, 2)), X2),
    "adaptive_max_pool3d": (lambda F, x: F.adaptive_max_pool3d(x, (2, 2, 3)), X3),
    "adaptive_max_pool3d_with_indices": (lambda F, x: F.adaptive_max_pool3d_with_indices(x, 2), X3),
    "avg_pool3d": (lambda F, x: F.avg_pool3d(x, 2, stride=1, ceil_mode=True), X3),
    "lp_pool3d": (lambda F, x: F.lp_pool3d(x, 2.0, 2), X3),
    "max_pool1d_with_indices": (lambda F, x: F.max_pool1d_with_indices(x, 3, 2), X1),
    "max_pool3d_with_indices": (lambda F, x: F.max_pool3d_with_indices(x, 2, 2), X3),
    "upsample": (lambda F, x: F.upsample(x, scale_factor=2, mode="nearest"), X2),
    "upsample_nearest": (lambda F, x: F.upsample_nearest(x, size=(5, 9)), X2),
    "upsample_bilinear": (lambda F, x: F.upsample_bilinear(x, size=(5, 9)), X2),
}


@pytest.mark.parametrize("name", list(CASES))
def test_pooling_and_upsample_variants(name):
    fn, x = CASES[name]
    check(_grad_of(fn, x))


INPLACE = {
    "celu_": lambda F, y: F.celu_(y),
    "selu_": lambda F, y: F.selu_(y),
    "elu_": lambda F, y: F.elu_(y),
    "hardtanh_": lambda F, y: F.hardtanh_(y, -0.5, 0.5),
    "leaky_relu_": lambda F, y: F.leaky_relu_(y, 0.2),
    "relu_": lambda F, y: F.relu_(y),
    "threshold_": lambda F, y: F.threshold_(y, 0.1, -2.0),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_activations_on_non_leaf(name):
    op = INPLACE[name]

    def f(torch):
        x = torch.tensor(X2, requires_grad=True)
        y = x * 1.5
        r = op(torch.nn.functional, y)
        (y * torch.linspace(-1, 1, y.numel()).view(y.shape)).sum().backward()
        # celu_ with alpha=1 is elu_ here, so its node is named EluBackward1 (torch: Celu...)
        name = type(y.grad_fn).__name__ if name_matters else None
        return r is y, y, x.grad, name
    name_matters = name != "celu_"
    check(f)


def test_rrelu_inplace_eval_is_leaky_relu():
    def f(torch):
        y = torch.tensor(X2) * 1.0
        r = torch.nn.functional.rrelu_(y, 0.1, 0.3, training=False)
        return r is y, y
    check(f)


def test_max_unpool_1d_and_3d_round_trip():
    def f(torch):
        F = torch.nn.functional
        x1 = torch.tensor(X1)
        p1, i1 = F.max_pool1d(x1, 3, 3, return_indices=True)
        x3 = torch.tensor(X3)
        p3, i3 = F.max_pool3d(x3, 2, 2, return_indices=True)
        return F.max_unpool1d(p1, i1, 3, 3), F.max_unpool3d(p3, i3, 2, 2, output_size=x3.shape)
    check(f)


def test_native_channel_shuffle():
    check(lambda torch: torch.nn.functional.native_channel_shuffle(
        torch.arange(2 * 6 * 2.).view(2, 6, 2), 3))
