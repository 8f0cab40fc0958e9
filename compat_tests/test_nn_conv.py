"""torch.nn convolution, pooling, upsampling, fold, shuffle modules and functionals vs torch."""
import numpy as np
import pytest

from harness import check, same_repr
from nn_harness import check_module


def R(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def grad_check(fn, *arrays, rtol=None, atol=None):
    """fn(lib, *tensors) on float leaves requiring grad; compare the output and leaf grads."""
    def body(lib):
        xs = [lib.tensor(a.copy()).requires_grad_(a.dtype.kind == "f") for a in arrays]
        out = fn(lib, *xs)
        outs = out if isinstance(out, tuple) else (out,)
        rng = np.random.RandomState(1)
        loss = 0
        for o in outs:
            if o.requires_grad:
                loss = loss + (o * lib.tensor(rng.randn(*o.shape).astype(np.float32))).sum()
        loss.backward()
        return out, [x.grad for x in xs]
    check(body, rtol=rtol, atol=atol)


# ---- conv modules ------------------------------------------------------------------------------

CONV = [
    (lambda nn: nn.Conv1d(3, 4, 3), (2, 3, 9)),
    (lambda nn: nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2), (2, 4, 11)),
    (lambda nn: nn.Conv1d(3, 4, 4, padding="same", bias=False), (3, 10)),
    (lambda nn: nn.Conv1d(3, 4, 3, padding=2, padding_mode="circular"), (2, 3, 7)),
    (lambda nn: nn.Conv2d(3, 8, 3, padding=1), (2, 3, 7, 6)),
    (lambda nn: nn.Conv2d(4, 8, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2),
                          groups=4), (2, 4, 9, 8)),
    (lambda nn: nn.Conv2d(3, 6, 3, padding="valid", stride=2), (3, 7, 7)),
    (lambda nn: nn.Conv2d(3, 6, (3, 4), padding="same", dilation=2), (1, 3, 8, 9)),
    (lambda nn: nn.Conv2d(3, 6, 3, padding=1, padding_mode="reflect"), (2, 3, 5, 6)),
    (lambda nn: nn.Conv2d(3, 6, 3, padding=(2, 1), padding_mode="replicate"), (2, 3, 5, 6)),
    (lambda nn: nn.Conv2d(2, 4, 3, padding="same", padding_mode="circular"), (1, 2, 5, 6)),
    (lambda nn: nn.Conv3d(2, 4, 3, padding=1, stride=(1, 2, 1)), (1, 2, 5, 6, 4)),
    (lambda nn: nn.Conv3d(2, 4, 2, groups=2, bias=False, padding_mode="reflect", padding=1),
     (2, 5, 4, 4)),
    (lambda nn: nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1), (2, 3, 6)),
    (lambda nn: nn.ConvTranspose1d(4, 6, 3, groups=2, dilation=2), (4, 5)),
    (lambda nn: nn.ConvTranspose2d(3, 4, 3), (2, 3, 5, 4)),
    (lambda nn: nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=(1, 0),
                                   output_padding=(1, 2), groups=2, bias=False, dilation=1),
     (2, 4, 4, 5)),
    (lambda nn: nn.ConvTranspose2d(2, 4, 3, stride=2, dilation=2, output_padding=1), (2, 3, 3)),
    (lambda nn: nn.ConvTranspose3d(2, 3, 2, stride=2, padding=(0, 1, 0)), (1, 2, 3, 3, 2)),
]


@pytest.mark.parametrize("i", range(len(CONV)))
def test_conv_modules(i):
    make, shape = CONV[i]
    check_module(make, [R(*shape)], rtol=1e-4, atol=1e-5)


def test_conv_transpose_output_size():
    def f(torch):
        torch.manual_seed(0)
        m = torch.nn.ConvTranspose2d(2, 3, 3, stride=2)
        w = torch.tensor(R(2, 3, 3, 3))
        with torch.no_grad():
            m.weight.copy_(w)
            m.bias.zero_()
        x = torch.tensor(R(1, 2, 4, 4, seed=2))
        return m(x, output_size=[10, 10]), m(x, output_size=(1, 3, 9, 10)).shape
    check(f, rtol=1e-4, atol=1e-5)
    check(lambda torch: torch.nn.ConvTranspose2d(2, 3, 3, stride=2)(
        torch.zeros(1, 2, 4, 4), output_size=[12, 12]))


def test_conv_init_stats():
    import torchlike
    torchlike.manual_seed(0)
    m = torchlike.nn.Conv2d(16, 32, 3)
    w = m.weight.detach().numpy()
    bound = 1 / np.sqrt(16 * 9)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound
    m = torchlike.nn.ConvTranspose2d(16, 4, 3, groups=2)
    assert tuple(m.weight.shape) == (16, 2, 3, 3)
    assert np.abs(m.weight.detach().numpy()).max() <= 1 / np.sqrt(2 * 9)


@pytest.mark.parametrize("make", [
    lambda nn: nn.Conv2d(3, 16, 3, padding=1),
    lambda nn: nn.Conv2d(3, 16, (3, 5), stride=2, padding="same" if False else 0, dilation=2,
                         groups=1, bias=False, padding_mode="reflect"),
    lambda nn: nn.Conv1d(4, 4, 3, padding="same", groups=4, padding_mode="circular"),
    lambda nn: nn.Conv3d(2, 4, 3, padding="valid"),
    lambda nn: nn.ConvTranspose2d(4, 8, 3, stride=2, output_padding=1, groups=2),
    lambda nn: nn.ConvTranspose1d(4, 8, 3, dilation=2, bias=False),
    lambda nn: nn.ConvTranspose3d(4, 8, 3),
    lambda nn: nn.Conv2d(0, 4, 3),
    lambda nn: nn.Conv2d(4, 4, 3, groups=0),
    lambda nn: nn.Conv2d(3, 4, 3, groups=2),
    lambda nn: nn.Conv2d(4, 3, 3, groups=2),
    lambda nn: nn.Conv2d(4, 4, 3, padding="same", stride=2),
    lambda nn: nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"),
])
def test_conv_repr_and_ctor_errors(make):
    same_repr(lambda torch: make(torch.nn))


def test_conv_bad_padding_mode_message():
    # the message prints a Python set, whose order follows the process's string hashes (it
    # differs from run to run in PyTorch too), so the elements are compared sorted
    import re

    import torch as real_torch

    import torchlike

    def message(lib, kwargs):
        try:
            lib.nn.Conv2d(4, 4, 3, **kwargs)
        except ValueError as e:
            return re.sub(r"\{([^}]*)\}", lambda m: "{" + ", ".join(sorted(
                m.group(1).split(", "))) + "}", str(e))
        return None
    for kwargs in ({"padding_mode": "mirror"}, {"padding": "full"}):
        assert message(real_torch, kwargs) == message(torchlike, kwargs) is not None


def test_conv_functional():
    x, w, b = R(2, 4, 8, 7), R(6, 2, 3, 3, seed=1), R(6, seed=2)
    grad_check(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1,
                                                         dilation=(1, 2), groups=2),
               x, w, b, rtol=1e-4, atol=1e-5)
    grad_check(lambda t, x, w: t.nn.functional.conv1d(x, w, padding="same"),
               R(2, 3, 9), R(5, 3, 4, seed=1), rtol=1e-4, atol=1e-5)
    grad_check(lambda t, x, w: t.nn.functional.conv3d(x, w, stride=2, padding=(1, 0, 1)),
               R(1, 2, 5, 4, 5), R(3, 2, 2, 3, 2, seed=1), rtol=1e-4, atol=1e-5)
    grad_check(lambda t, x, w, b: t.nn.functional.conv_transpose2d(x, w, b, 2, 1, 1, 2, 1),
               x, R(4, 3, 3, 3, seed=3), R(6, seed=4), rtol=1e-4, atol=1e-5)
    grad_check(lambda t, x, w: t.nn.functional.conv_transpose1d(x, w, None, 3, 2, 2, 1, 2),
               R(2, 3, 5), R(3, 2, 3, seed=5), rtol=1e-4, atol=1e-5)
    grad_check(lambda t, x, w: t.nn.functional.conv_transpose3d(x, w, stride=(1, 2, 1)),
               R(2, 3, 3, 4), R(2, 3, 2, 2, 2, seed=5), rtol=1e-4, atol=1e-5)
    check(lambda t: t.nn.functional.conv2d(t.tensor(x).double(), t.tensor(w).double(),
                                           groups=2), rtol=1e-10)


@pytest.mark.parametrize("fn", [
    lambda F, t: F.conv2d(t.zeros(2, 3), t.zeros(4, 3, 3, 3)),
    lambda F, t: F.conv2d(t.zeros(1, 4, 8, 8), t.zeros(16, 3, 3, 3)),
    lambda F, t: F.conv2d(t.zeros(1, 3, 8, 8).double(), t.zeros(16, 3, 3, 3)),
    lambda F, t: F.conv2d(t.zeros(1, 3, 8, 8), t.zeros(16, 3, 3, 3), t.zeros(16).double()),
    lambda F, t: F.conv2d(t.zeros(1, 3, 2, 2), t.zeros(16, 3, 3, 3)),
    lambda F, t: F.conv2d(t.zeros(1, 3, 8, 8), t.zeros(16, 3, 3, 3), stride=2, padding="same"),
    lambda F, t: F.conv2d(t.zeros(1, 3, 8, 8), t.zeros(16, 3, 3, 3), padding="foo"),
    lambda F, t: F.conv2d(t.zeros(1, 4, 8, 8), t.zeros(6, 2, 3, 3), groups=4),
    lambda F, t: F.conv1d(t.zeros(1, 4, 8), t.zeros(6, 4, 3), t.zeros(5)),
    lambda F, t: F.conv_transpose2d(t.zeros(1, 4, 8, 8), t.zeros(4, 2, 3, 3), output_padding=1),
    lambda F, t: F.conv_transpose1d(t.zeros(1, 4, 8), t.zeros(4, 2, 3), output_padding=2,
                                    stride=2),
    lambda F, t: F.conv_transpose2d(t.zeros(1, 3, 8, 8), t.zeros(4, 2, 3, 3)),
    lambda F, t: F.conv_transpose2d(t.zeros(3, 8), t.zeros(4, 2, 3, 3)),
    lambda F, t: F.conv3d(t.zeros(3, 8, 8), t.zeros(4, 3, 3, 3, 3)),
])
def test_conv_errors(fn):
    check(lambda t: fn(t.nn.functional, t))


# ---- pooling modules ---------------------------------------------------------------------------

def ties(*shape):
    """Small integers: many equal values inside each window (max-pool tie breaking)."""
    return np.random.RandomState(3).randint(0, 3, size=shape).astype(np.float32)


POOL = [
    (lambda nn: nn.MaxPool1d(3), R(2, 3, 10)),
    (lambda nn: nn.MaxPool1d(3, stride=2, padding=1, dilation=2, ceil_mode=True), ties(2, 3, 11)),
    (lambda nn: nn.MaxPool1d(2, return_indices=True), ties(3, 9)),
    (lambda nn: nn.MaxPool2d(2), ties(2, 3, 6, 6)),
    (lambda nn: nn.MaxPool2d((3, 2), stride=(2, 1), padding=(1, 0), ceil_mode=True), R(2, 3, 7, 6)),
    (lambda nn: nn.MaxPool2d(3, stride=2, padding=1, dilation=(1, 2), return_indices=True),
     ties(2, 9, 10)),
    (lambda nn: nn.MaxPool2d(3, stride=1, ceil_mode=True, return_indices=True), ties(1, 2, 5, 5)),
    (lambda nn: nn.MaxPool3d(2, stride=(1, 2, 2), padding=1, return_indices=True),
     ties(1, 2, 4, 5, 5)),
    (lambda nn: nn.MaxPool3d((2, 3, 2), ceil_mode=True), R(2, 5, 7, 5)),
    (lambda nn: nn.AvgPool1d(3, stride=2, padding=1), R(2, 3, 10)),
    (lambda nn: nn.AvgPool1d(4, stride=3, padding=2, ceil_mode=True, count_include_pad=False),
     R(3, 11)),
    (lambda nn: nn.AvgPool2d(2), R(2, 3, 6, 7)),
    (lambda nn: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True), R(2, 3, 8, 7)),
    (lambda nn: nn.AvgPool2d((3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True,
                             count_include_pad=False), R(3, 8, 9)),
    (lambda nn: nn.AvgPool2d(3, padding=1, divisor_override=2), R(1, 2, 7, 7)),
    (lambda nn: nn.AvgPool3d(2, stride=(1, 2, 2), padding=1, count_include_pad=False),
     R(1, 2, 4, 5, 5)),
    (lambda nn: nn.AvgPool3d(3, stride=2, padding=1, ceil_mode=True, divisor_override=5),
     R(2, 6, 5, 6)),
    (lambda nn: nn.AdaptiveAvgPool1d(4), R(2, 3, 10)),
    (lambda nn: nn.AdaptiveAvgPool2d((3, None)), R(2, 3, 7, 5)),
    (lambda nn: nn.AdaptiveAvgPool2d(4), R(3, 5, 9)),
    (lambda nn: nn.AdaptiveAvgPool2d((5, 7)), R(1, 2, 3, 4)),
    (lambda nn: nn.AdaptiveAvgPool3d((2, 3, 1)), R(1, 2, 5, 7, 3)),
    (lambda nn: nn.AdaptiveMaxPool1d(3, return_indices=True), ties(2, 3, 10)),
    (lambda nn: nn.AdaptiveMaxPool2d((3, 2)), ties(2, 3, 7, 5)),
    (lambda nn: nn.AdaptiveMaxPool2d(4, return_indices=True), ties(3, 9, 6)),
    (lambda nn: nn.AdaptiveMaxPool3d((2, None, 3), return_indices=True), ties(1, 2, 5, 3, 7)),
    (lambda nn: nn.LPPool1d(2, 3, stride=2), R(2, 3, 10)),
    (lambda nn: nn.LPPool2d(2, (2, 3)), R(2, 3, 6, 7)),
    (lambda nn: nn.LPPool2d(1.5, 2, stride=1), np.abs(R(2, 3, 5, 5)) + 0.1),
    (lambda nn: nn.LPPool2d(float("inf"), 2), R(1, 2, 6, 6)),
    (lambda nn: nn.LPPool3d(2, 2), R(1, 2, 4, 4, 4)),
]


@pytest.mark.parametrize("i", range(len(POOL)))
def test_pool_modules(i):
    make, x = POOL[i]
    check_module(make, [x], rtol=1e-4, atol=1e-5)


def test_max_unpool():
    def f(torch, nd, shape, out_size=None):
        F = torch.nn.functional
        x = torch.tensor(R(*shape)).requires_grad_(True)
        mp = getattr(torch.nn, f"MaxPool{nd}d")(2, stride=2, return_indices=True)
        up = getattr(torch.nn, f"MaxUnpool{nd}d")(2, stride=2)
        y, idx = mp(x)
        z = up(y, idx, output_size=out_size)
        (z * torch.arange(z.numel()).reshape(z.shape)).sum().backward()
        z2 = getattr(F, f"max_unpool{nd}d")(y, idx, 2, output_size=out_size)
        return z, z2, x.grad, repr(up)
    check(f, 1, (2, 3, 8))
    check(f, 2, (2, 3, 6, 7), [6, 7])
    check(f, 2, (3, 6, 6))
    check(f, 3, (1, 2, 4, 4, 5), (1, 2, 5, 4, 5))
    check(f, 2, (2, 3, 6, 6), [9, 9])
    check(lambda t: t.nn.functional.max_unpool2d(t.zeros(1, 1, 2, 2),
                                                 t.tensor([[[[0, 1], [2, 99]]]]), 2))


@pytest.mark.parametrize("make", [
    lambda nn: nn.MaxPool2d(3), lambda nn: nn.MaxPool2d((3, 2), 1, 1, 2, True, True),
    lambda nn: nn.MaxPool1d(2, padding=1), lambda nn: nn.MaxPool3d(2, ceil_mode=True),
    lambda nn: nn.AvgPool1d(3), lambda nn: nn.AvgPool2d(3, 2, 1),
    lambda nn: nn.AvgPool3d((1, 2, 3), divisor_override=3),
    lambda nn: nn.AdaptiveAvgPool2d((None, 3)), lambda nn: nn.AdaptiveMaxPool1d(4, True),
    lambda nn: nn.AdaptiveMaxPool3d(2), lambda nn: nn.AdaptiveAvgPool3d((1, 2, 3)),
    lambda nn: nn.MaxUnpool1d(2), lambda nn: nn.MaxUnpool2d(3, 2, 1),
    lambda nn: nn.MaxUnpool3d((1, 2, 3)), lambda nn: nn.LPPool1d(2, 3),
    lambda nn: nn.LPPool2d(1.5, (2, 3), 1, True), lambda nn: nn.LPPool3d(2, 2),
])
def test_pool_reprs(make):
    same_repr(lambda torch: make(torch.nn))


def test_pool_functional():
    x = ties(2, 3, 7, 8)
    grad_check(lambda t, x: t.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True), x)
    grad_check(lambda t, x: t.nn.functional.max_pool2d_with_indices(x, 2, ceil_mode=True), x)
    grad_check(lambda t, x: t.nn.functional.avg_pool2d(x, (2, 3), padding=1, ceil_mode=True,
                                                       count_include_pad=False), x)
    grad_check(lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (3, 5), True), x)
    grad_check(lambda t, x: t.nn.functional.adaptive_avg_pool1d(x[0], 3), x)
    grad_check(lambda t, x: t.nn.functional.lp_pool1d(x[0], 3, 2, ceil_mode=True),
               np.abs(x) + 0.5, rtol=1e-4)
    grad_check(lambda t, x: t.nn.functional.lp_pool2d(x, 2, 3, 2, ceil_mode=True),
               np.abs(x) + 0.5, rtol=1e-4)
    grad_check(lambda t, x: t.nn.functional.max_pool1d(x[0], 2, 1, 1), x)
    xi = np.random.RandomState(0).randint(-5, 5, size=(2, 3, 6, 6))
    check(lambda t: t.nn.functional.max_pool2d(t.tensor(xi), 2, return_indices=True))
    check(lambda t: t.nn.functional.max_pool2d(t.tensor(R(1, 2, 6, 6)).double(), 3, 2, 1))
    check(lambda t: t.nn.functional.avg_pool2d(t.tensor(R(1, 2, 6, 6)).double(), 3, 2, 1),
          rtol=1e-10)


@pytest.mark.parametrize("fn", [
    lambda F, t: F.max_pool2d(t.zeros(3, 8), 2),
    lambda F, t: F.max_pool2d(t.zeros(1, 3, 8, 8), 3, padding=2),
    lambda F, t: F.max_pool2d(t.zeros(1, 3, 2, 2), 3),
    lambda F, t: F.max_pool1d(t.zeros(8), 2),
    lambda F, t: F.max_pool1d(t.zeros(2, 3, 2), 3),
    lambda F, t: F.max_pool3d(t.zeros(3, 8, 8), 2),
    lambda F, t: F.avg_pool2d(t.zeros(1, 3, 8, 8), 3, padding=2),
    lambda F, t: F.avg_pool2d(t.zeros(1, 3, 2, 2), 3),
    lambda F, t: F.avg_pool1d(t.zeros(8), 2),
    lambda F, t: F.avg_pool1d(t.zeros(1, 3, 8), 3, padding=2),
    lambda F, t: F.adaptive_avg_pool2d(t.zeros(8), 2),
    lambda F, t: F.adaptive_max_pool2d(t.zeros(8), 2),
    lambda F, t: F.adaptive_avg_pool1d(t.zeros(1, 2, 3, 8), 2),
    lambda F, t: F.adaptive_avg_pool2d(t.zeros(1, 2, 3, 8), (2,)),
])
def test_pool_errors(fn):
    check(lambda t: fn(t.nn.functional, t))


# ---- upsampling ---------------------------------------------------------------------------------

UP = [
    (lambda nn: nn.Upsample(scale_factor=2), (2, 3, 5)),
    (lambda nn: nn.Upsample(size=7), (2, 3, 5)),
    (lambda nn: nn.Upsample(size=(7, 3)), (1, 2, 5, 4)),
    (lambda nn: nn.Upsample(scale_factor=1.7), (1, 2, 5, 4)),
    (lambda nn: nn.Upsample(scale_factor=(0.6, 2.5), mode="nearest-exact"), (1, 2, 5, 4)),
    (lambda nn: nn.Upsample(size=(3, 5, 2), mode="nearest-exact"), (1, 2, 4, 3, 5)),
    (lambda nn: nn.Upsample(scale_factor=2.5, mode="linear"), (2, 3, 5)),
    (lambda nn: nn.Upsample(size=3, mode="linear", align_corners=True), (2, 3, 5)),
    (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), (2, 3, 4, 5)),
    (lambda nn: nn.Upsample(size=(7, 3), mode="bilinear", align_corners=True), (1, 2, 4, 5)),
    (lambda nn: nn.Upsample(scale_factor=1.3, mode="bilinear", recompute_scale_factor=True),
     (1, 2, 4, 5)),
    (lambda nn: nn.Upsample(scale_factor=(1.5, 0.7), mode="bicubic"), (1, 2, 5, 6)),
    (lambda nn: nn.Upsample(size=(6, 4), mode="bicubic", align_corners=True), (1, 2, 5, 3)),
    (lambda nn: nn.Upsample(scale_factor=2, mode="trilinear"), (1, 2, 3, 2, 4)),
    (lambda nn: nn.Upsample(size=(2, 5, 3), mode="trilinear", align_corners=True),
     (1, 2, 3, 2, 4)),
    (lambda nn: nn.Upsample(size=(3, 4), mode="area"), (1, 2, 7, 9)),
    (lambda nn: nn.Upsample(scale_factor=0.5, mode="area"), (1, 2, 7, 9)),
    (lambda nn: nn.UpsamplingNearest2d(scale_factor=3), (1, 2, 3, 2)),
    (lambda nn: nn.UpsamplingBilinear2d(size=(5, 4)), (1, 2, 3, 2)),
]


@pytest.mark.parametrize("i", range(len(UP)))
def test_upsample_modules(i):
    make, shape = UP[i]
    check_module(make, [R(*shape)], rtol=1e-4, atol=1e-5)


def test_interpolate_functional():
    x = R(1, 2, 5, 6)
    for kw in [dict(scale_factor=2.3, mode="bilinear"),
               dict(size=(4, 9), mode="bicubic"),
               dict(scale_factor=(1.5, 0.5), mode="nearest"),
               dict(scale_factor=0.75, mode="nearest-exact", recompute_scale_factor=True),
               dict(size=(3, 3), mode="area")]:
        grad_check(lambda t, x: t.nn.functional.interpolate(x, **kw), x, rtol=1e-4, atol=1e-5)
    check(lambda t: t.nn.functional.interpolate(t.tensor(x).double(), scale_factor=1.5,
                                                mode="bicubic", align_corners=True), rtol=1e-9)
    check(lambda t: t.nn.functional.upsample_bilinear(t.tensor(x), scale_factor=2))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size,out", [((40, 48), (20, 24)), ((7, 5), (13, 9)), ((64, 50), (9, 31)),
                                      ((5, 6), (5, 17)), ((30, 30), (3, 100))])
def test_interpolate_antialias(mode, align, size, out):
    """`antialias=True`: the filter widened by the downscale factor, float64 and float32 (and
    its gradient), as PyTorch's."""
    x = R(2, 3, *size)
    grad_check(lambda t, x: t.nn.functional.interpolate(x, size=out, mode=mode, antialias=True,
                                                        align_corners=align), x,
               rtol=1e-5, atol=1e-5)
    check(lambda t: t.nn.functional.interpolate(t.tensor(x).double(), size=out, mode=mode,
                                                antialias=True, align_corners=align), rtol=1e-12)


@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
@pytest.mark.parametrize("out", [(20, 24), (13, 9), (40, 60), (81, 97), (40, 48), (3, 100)])
def test_interpolate_uint8_fixed_point(antialias, mode, out):
    """uint8 images resize in PyTorch's fixed-point arithmetic (each pass rounded and clamped):
    bit for bit, except bicubic without antialiasing, whose rare last-unit differences are a
    stated divergence (see `_uint8_table`)."""
    x = np.random.RandomState(0).randint(0, 256, (2, 3, 40, 48)).astype(np.uint8)

    def f(t):
        return t.nn.functional.interpolate(t.tensor(x), size=out, mode=mode, antialias=antialias)
    if mode == "bicubic" and not antialias:
        import torch
        import torchlike
        a = f(torch).numpy().astype(int)
        b = f(torchlike).numpy().astype(int)
        assert b.dtype == a.dtype and np.abs(a - b).max() <= 2 and (a != b).mean() < 0.02
        return
    check(f, rtol=0, atol=0)


def test_interpolate_scale_factor_antialias():
    x = R(1, 2, 17, 23)
    for sf in (0.5, 0.3, 2.5, (0.4, 1.7)):
        check(lambda t: t.nn.functional.interpolate(t.tensor(x), scale_factor=sf, mode="bilinear",
                                                    antialias=True), rtol=1e-5, atol=1e-6)
    check(lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 4, 4), size=2, mode="nearest",
                                                antialias=True))
    check(lambda t: t.nn.functional.interpolate(t.zeros(1, 4, 4), size=2, mode="linear",
                                                antialias=True))
    check(lambda t: t.nn.functional.interpolate(t.zeros(1, 1, 4, 4), size=2, mode="lanczos"))
    check(lambda t: type(t.nn.functional.interpolate(
        t.zeros(1, 1, 4, 4, requires_grad=True), size=2, mode="bicubic",
        antialias=True).grad_fn).__name__)


@pytest.mark.parametrize("kw", [
    dict(scale_factor=2, mode="bilinear", shape=(1, 1, 4)),
    dict(size=(2,), shape=(1, 1, 4, 4)),
    dict(size=2, scale_factor=2, shape=(1, 1, 4)),
    dict(shape=(1, 1, 4)),
    dict(size=3, mode="nearest", align_corners=True, shape=(1, 1, 4)),
    dict(size=3, recompute_scale_factor=True, shape=(1, 1, 4)),
    dict(size=3, mode="linear", shape=(1, 4)),
    dict(scale_factor=(2, 2), shape=(1, 1, 4)),
])
def test_interpolate_errors(kw):
    kw = dict(kw)
    shape = kw.pop("shape")
    check(lambda t: t.nn.functional.interpolate(t.zeros(*shape), **kw))


@pytest.mark.parametrize("make", [
    lambda nn: nn.Upsample(scale_factor=2), lambda nn: nn.Upsample(size=(3, 4), mode="bilinear"),
    lambda nn: nn.Upsample(scale_factor=(2, 3)), lambda nn: nn.UpsamplingNearest2d(size=4),
    lambda nn: nn.UpsamplingBilinear2d(scale_factor=2),
])
def test_upsample_reprs(make):
    same_repr(lambda torch: make(torch.nn))


# ---- fold / unfold / shuffles -------------------------------------------------------------------

MISC = [
    (lambda nn: nn.Unfold(2), (2, 3, 4, 5)),
    (lambda nn: nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), (2, 3, 5, 6)),
    (lambda nn: nn.Unfold(3, padding=1), (2, 4, 4)),
    (lambda nn: nn.Fold((4, 5), 2), (2, 12, 12)),
    (lambda nn: nn.Fold((5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), (2, 18, 12)),
    (lambda nn: nn.Fold(4, 3, padding=1, stride=2), (9, 4)),
    (lambda nn: nn.PixelShuffle(2), (2, 8, 3, 4)),
    (lambda nn: nn.PixelShuffle(3), (9, 2, 2)),
    (lambda nn: nn.PixelUnshuffle(2), (2, 3, 4, 6)),
    (lambda nn: nn.PixelUnshuffle(3), (2, 2, 3, 3, 6)),
    (lambda nn: nn.ChannelShuffle(2), (2, 6, 3, 2)),
    (lambda nn: nn.ChannelShuffle(3), (2, 6, 5)),
]


@pytest.mark.parametrize("i", range(len(MISC)))
def test_misc_modules(i):
    make, shape = MISC[i]
    check_module(make, [R(*shape)])


@pytest.mark.parametrize("fn", [
    lambda F, t: F.pixel_shuffle(t.zeros(1, 3, 4, 4), 2),
    lambda F, t: F.pixel_shuffle(t.zeros(3, 4), 2),
    lambda F, t: F.pixel_unshuffle(t.zeros(1, 3, 5, 4), 2),
    lambda F, t: F.pixel_unshuffle(t.zeros(1, 3, 4, 5), 2),
    lambda F, t: F.channel_shuffle(t.zeros(1, 3, 4, 4), 2),
    lambda F, t: F.fold(t.zeros(1, 5, 9), (4, 4), 2),
    lambda F, t: F.fold(t.zeros(1, 8, 8), (4, 4), 2),
    lambda F, t: F.unfold(t.zeros(1, 2, 2, 2), 3),
    lambda F, t: F.affine_grid(t.zeros(2, 3, 3), (2, 1, 4, 4)),
])
def test_misc_errors(fn):
    check(lambda t: fn(t.nn.functional, t))


@pytest.mark.parametrize("make", [
    lambda nn: nn.Fold((4, 5), 2), lambda nn: nn.Unfold((2, 3), 2, 1, 2),
    lambda nn: nn.PixelShuffle(2), lambda nn: nn.PixelUnshuffle(3), lambda nn: nn.ChannelShuffle(4),
])
def test_misc_reprs(make):
    same_repr(lambda torch: make(torch.nn))


def test_affine_grid():
    th = R(2, 2, 3)
    for ac in (False, True):
        grad_check(lambda t, th: t.nn.functional.affine_grid(th, (2, 3, 4, 5), align_corners=ac),
                   th, rtol=1e-5, atol=1e-6)
    grad_check(lambda t, th: t.nn.functional.affine_grid(th, (2, 1, 3, 2, 4)), R(2, 3, 4))


def test_conv_net_end_to_end():
    def make(nn):
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.MaxPool2d(2),
                             nn.Conv2d(8, 4, 3, stride=2), nn.AdaptiveAvgPool2d(1))
    check_module(make, [R(2, 3, 12, 12)], rtol=1e-4, atol=1e-5)


def _pool_tie_inputs():
    rng = np.random.RandomState(0)
    ties = np.floor(rng.rand(2, 3, 7, 6) * 3).astype(np.float32)   # many tied maxima
    nans = ties.copy()
    nans[0, 0, 1, 1] = nans[1, 2, 3, 3] = nans[1, 2, 3, 4] = np.nan
    signed_zeros = np.where(rng.rand(1, 2, 5, 5) < 0.5, -0.0, 0.0).astype(np.float32)
    return {"ones": np.ones((1, 2, 5, 5), np.float32), "ties": ties, "nans": nans,
            "all_-inf": np.full((1, 1, 4, 4), -np.inf, np.float32), "signed_zeros": signed_zeros}


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
                                dict(kernel_size=3, stride=2, ceil_mode=True),
                                dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 0))])
@pytest.mark.parametrize("name", list(_pool_tie_inputs()))
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_max_pool_gradient_at_ties_nans_and_padding(name, kw, dtype):
    """The gradient goes where PyTorch's indices point: the first of tied maxima, the last NaN,
    never padding (an all -inf window picks its first element)."""
    arr = _pool_tie_inputs()[name]

    def f(lib):
        x = lib.tensor(arr, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.nn.functional.max_pool2d(x, **kw)
        (y * lib.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
        return y, x.grad
    check(f)


# ---- argument checks and edge shapes (OpInfo sweep regressions) --------------------------------

@pytest.mark.parametrize("kw", [
    dict(stride=(-1,)), dict(padding=(-1,)), dict(dilation=(-1,)), dict(groups=0),
    dict(groups=-1, padding="same"), dict(groups=3), dict(padding=-1, stride=-1),
])
def test_conv2d_argument_checks(kw):
    check(lambda t: t.nn.functional.conv2d(t.tensor(R(2, 2, 4, 5)), t.tensor(R(2, 2, 1, 3)),
                                           **kw))


def test_conv_weight_rank_checks():
    check(lambda t: t.nn.functional.conv1d(t.tensor(R(1, 1, 4)), t.tensor(R(1, 2))))
    check(lambda t: t.nn.functional.conv2d(t.tensor(R(1, 1, 4, 3)), t.tensor(R(1, 2, 2)),
                                           padding="same"))


@pytest.mark.parametrize("fn,shape,kw", [
    ("max_pool1d", (0, 10), dict(kernel_size=1)),
    ("max_pool1d", (1, 10, 0), dict(kernel_size=1)),
    ("max_pool1d", (3, 3, 3), dict(kernel_size=1, stride=0)),
    ("max_pool1d", (3, 3, 3), dict(kernel_size=1, dilation=0)),
    ("max_pool1d", (0, 1, 49), dict(kernel_size=0)),
    ("max_pool1d", (0, 1, 49), dict(kernel_size=2, padding=-1, return_indices=True)),
    ("max_pool2d", (0, 1, 49), dict(kernel_size=2, padding=4)),
    ("max_pool2d", (2, 1, 10, 0), dict(kernel_size=1)),
    ("max_pool2d", (0, 1, 4, 4), dict(kernel_size=2)),
    ("max_pool3d", (0, 1, 2, 10), dict(kernel_size=1)),
    ("max_pool3d", (0, 1, 49, 50), dict(kernel_size=2, padding=-1)),
    ("avg_pool1d", (0, 3, 7), dict(kernel_size=2)),
    ("avg_pool1d", (1, 0, 10), dict(kernel_size=1)),
    ("avg_pool2d", (0, 1, 49), dict(kernel_size=(3, 2), padding=4)),
    ("avg_pool3d", (0, 1, 2, 3, 2), dict(kernel_size=1)),
    ("avg_pool3d", (1, 0, 4, 4), dict(kernel_size=1)),
])
def test_pool_shape_and_argument_checks(fn, shape, kw):
    check(lambda t: getattr(t.nn.functional, fn)(t.tensor(R(*shape)), **kw))


@pytest.mark.parametrize("fn,k", [("avg_pool1d", 2), ("avg_pool2d", 2), ("avg_pool3d", 2)])
def test_avg_pool_integer_truncates_toward_zero(fn, k):
    nd = int(fn[-2])
    x = np.random.RandomState(0).randint(-9, 9, size=(1, 2) + (5,) * nd).astype(np.int64)
    check(lambda t: getattr(t.nn.functional, fn)(t.tensor(x), k, padding=1))


@pytest.mark.parametrize("fn,out", [
    ("adaptive_avg_pool1d", ()), ("adaptive_avg_pool1d", (-1,)), ("adaptive_avg_pool1d", 3),
    ("adaptive_max_pool1d", (1, 2)), ("adaptive_max_pool1d", (-1,)),
    ("adaptive_avg_pool2d", (-1, 0)), ("adaptive_avg_pool2d", (1, 0)),
    ("adaptive_max_pool2d", (-1, 0)), ("adaptive_max_pool2d", (1, 2, 3)),
    ("adaptive_max_pool2d", (1, 0)),
    ("adaptive_avg_pool3d", (-1, 0, 2)), ("adaptive_max_pool3d", ()),
])
def test_adaptive_pool_output_size_checks(fn, out):
    nd = int(fn[-2])
    check(lambda t: getattr(t.nn.functional, fn)(t.tensor(R(*(1, 1) + (4,) * nd)), out))


@pytest.mark.parametrize("fn,shape", [("adaptive_avg_pool2d", (2, 2)),
                                      ("adaptive_max_pool3d", (2, 2, 2))])
def test_adaptive_pool_rank_checked_against_output_size(fn, shape):
    nd = int(fn[-2])
    check(lambda t: getattr(t.nn.functional, fn)(t.tensor(R(*shape)), (2,) * nd))


def test_zero_batch_pools_and_unfold():
    check(lambda t: t.nn.functional.adaptive_avg_pool1d(t.tensor(R(0, 8, 6)), 5))
    check(lambda t: t.nn.functional.adaptive_avg_pool3d(t.tensor(R(0, 8, 5, 7, 4)), (5, 7, 4)))
    check(lambda t: t.nn.functional.unfold(t.tensor(R(0, 1, 5, 5)), 2))
    grad_check(lambda t, x: t.nn.functional.unfold(x, 2), R(0, 1, 5, 5))


def test_max_unpool_indices_shape_check():
    for nd, shape, ishape in ((1, (8, 8), (8, 7)), (2, (1, 1, 4, 4), (1, 1, 4, 1))):
        check(lambda t: getattr(t.nn.functional, f"max_unpool{nd}d")(
            t.tensor(R(*shape)), t.zeros(ishape, dtype=t.int64), 2))


def test_max_unpool_grad_shared_indices():
    # overlapping windows pick the same max twice: PyTorch's backward gives both the gradient
    def fn(t, x):
        o, i = t.nn.functional.max_pool2d(x, 2, stride=1, return_indices=True)
        o = o.detach().requires_grad_(True)
        u = t.nn.functional.max_unpool2d(o, i, 2, stride=1)
        return t.autograd.grad(u, (o,), t.arange(16.).reshape(1, 1, 4, 4))[0]
    check(lambda t: fn(t, t.tensor(R(1, 1, 4, 4))))


def test_max_pool2d_with_indices_backward():
    def fn(t):
        x = t.tensor(R(1, 2, 3, 6))
        out, idx = t.nn.functional.max_pool2d(x, (2, 2), stride=1, return_indices=True)
        return t.ops.aten.max_pool2d_with_indices_backward(t.ones_like(out), x, [2, 2], [1, 1],
                                                           [0, 0], [1, 1], False, idx)
    check(fn)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("out", [(5, 7, 4), (5, 7, None)])
def test_adaptive_avg_pool3d_half_accumulation(dtype, out):
    x = np.random.RandomState(0).uniform(-9, 9, size=(3, 8, 8, 6)).astype(np.float32)
    check(lambda t: t.nn.functional.adaptive_avg_pool3d(t.tensor(x).to(getattr(t, dtype)), out),
          rtol=0, atol=0)
