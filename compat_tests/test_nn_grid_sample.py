"""torch.nn.functional.grid_sample vs torch: values, input/grid gradients, warning, errors."""
import itertools
import warnings

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check

MODES = ("bilinear", "nearest", "bicubic")
PADS = ("zeros", "border", "reflection")
ALIGN = (False, True)


def _tol(dtype, mode):
    # float32 bicubic accumulates 16 taps x C channels into the grid gradient in a different
    # order than ATen's kernel: allow float32 summation noise there
    if dtype == np.float32 and mode == "bicubic":
        return dict(rtol=1e-4, atol=2e-5)
    return {}


def sample_body(x, g, grad_input=True, grad_grid=True, **kw):
    """Run grid_sample on fresh leaves; return output, the leaves' grads and the node name."""
    def f(torch):
        xt = torch.tensor(x.copy()).requires_grad_(grad_input)
        gt = torch.tensor(g.copy()).requires_grad_(grad_grid)
        y = torch.nn.functional.grid_sample(xt, gt, **kw)
        w = torch.tensor(np.random.RandomState(1).randn(*y.shape).astype(x.dtype))
        (y * w).sum().backward()
        return y, xt.grad, gt.grad, type(y.grad_fn).__name__
    return f


def _data2d(dtype):
    rs = np.random.RandomState(0)
    x = rs.randn(2, 3, 5, 6).astype(dtype)
    g = rs.uniform(-1.6, 1.6, (2, 4, 7, 2)).astype(dtype)  # ~30% out of range
    return x, g


def _data3d(dtype):
    rs = np.random.RandomState(2)
    x = rs.randn(2, 2, 3, 4, 5).astype(dtype)
    g = rs.uniform(-1.6, 1.6, (2, 3, 2, 4, 3)).astype(dtype)
    return x, g


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("align", ALIGN)
@pytest.mark.parametrize("pad", PADS)
@pytest.mark.parametrize("mode", MODES)
def test_grid_sample_2d(mode, pad, align, dtype):
    x, g = _data2d(dtype)
    check(sample_body(x, g, mode=mode, padding_mode=pad, align_corners=align),
          **_tol(dtype, mode))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("align", ALIGN)
@pytest.mark.parametrize("pad", PADS)
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_3d(mode, pad, align, dtype):
    x, g = _data3d(dtype)
    check(sample_body(x, g, mode=mode, padding_mode=pad, align_corners=align))


# exactly representable coordinates: pixel centres/corners, the [-1, 1] borders (where the clip
# gradient switches), nearest's half-way points (round half to even), reflections, far outside
_EXACT = np.array([-3.0, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0,
                   1.25, 1.5, 3.0, 0.1, 1e6, -1e7, 2.0, -2.0, 0.6, -0.6, 1.0 / 3, -1.1, 1.1,
                   0.9, -0.9, 0.375])


def _exact_grid(dtype):
    pts = _EXACT
    if dtype == np.float32:
        # far-away points reflect with float32 rounding that depends on ATen's instruction
        # selection (FMA contraction); keep them for float64 only
        pts = np.where(np.abs(pts) > 100, 4.5, pts)
    xs = np.resize(pts, 2 * 4 * 7)
    ys = np.resize(pts[::-1], 2 * 4 * 7)
    ys = np.roll(ys, 5)
    return np.stack([xs, ys], -1).reshape(2, 4, 7, 2).astype(dtype)


@pytest.mark.parametrize("align", ALIGN)
@pytest.mark.parametrize("pad", PADS)
@pytest.mark.parametrize("mode", MODES)
def test_grid_sample_2d_exact_points(mode, pad, align):
    x, _ = _data2d(np.float64)
    check(sample_body(x, _exact_grid(np.float64), mode=mode, padding_mode=pad,
                      align_corners=align))


def test_grid_sample_2d_exact_points_float32():
    x, _ = _data2d(np.float32)
    g = _exact_grid(np.float32)
    for mode, pad, align in [("nearest", "zeros", True), ("nearest", "reflection", False),
                             ("bilinear", "border", True), ("bilinear", "reflection", True),
                             ("bicubic", "zeros", False), ("bicubic", "reflection", True)]:
        check(sample_body(x, g, mode=mode, padding_mode=pad, align_corners=align),
              **_tol(np.float32, mode))


def test_grid_sample_3d_exact_points():
    x, _ = _data3d(np.float64)
    pts = np.resize(_EXACT, 2 * 3 * 2 * 4 * 3).reshape(2, 3, 2, 4, 3)
    for mode, pad, align in itertools.product(["bilinear", "nearest"], PADS, ALIGN):
        check(sample_body(x, pts, mode=mode, padding_mode=pad, align_corners=align))


def test_nearest_round_half_to_even():
    # W = 5, align_corners=True: x = (g + 1) * 2, so g = -0.75 -> 0.5 -> 0 and g = -0.25 -> 1.5 -> 2
    x = np.arange(5, dtype=np.float32).reshape(1, 1, 1, 5)
    g = np.array([[[[-0.75, 0.0], [-0.25, 0.0], [0.25, 0.0], [0.75, 0.0]]]], np.float32)
    check(lambda torch: torch.nn.functional.grid_sample(
        torch.tensor(x), torch.tensor(g), mode="nearest", align_corners=True))
    check(sample_body(x, g, mode="nearest", align_corners=True))


def test_nearest_grid_grad_is_zero():
    x, g = _data2d(np.float32)
    _, got = check(sample_body(x, g, mode="nearest", padding_mode="reflection",
                               align_corners=False))
    assert not np.any(np.asarray(got[2]._value()))


def test_one_side_requires_grad():
    x, g = _data2d(np.float64)
    check(sample_body(x, g, grad_grid=False, mode="bicubic", padding_mode="border",
                      align_corners=True))
    check(sample_body(x, g, grad_input=False, mode="bilinear", padding_mode="reflection",
                      align_corners=False))


@pytest.mark.parametrize("mode", MODES)
def test_size_one_dims(mode):
    rs = np.random.RandomState(5)
    x = rs.randn(1, 2, 1, 3)
    g = rs.uniform(-2, 2, (1, 3, 4, 2))
    for pad, align in itertools.product(PADS, ALIGN):
        check(sample_body(x, g, mode=mode, padding_mode=pad, align_corners=align))
    if mode != "bicubic":
        x3 = rs.randn(1, 2, 1, 1, 3)
        g3 = rs.uniform(-2, 2, (1, 3, 4, 2, 3))
        for pad, align in itertools.product(PADS, ALIGN):
            check(sample_body(x3, g3, mode=mode, padding_mode=pad, align_corners=align))


def test_defaults_and_empty():
    x, g = _data2d(np.float32)
    X, G = (lambda t: t.tensor(x)), (lambda t: t.tensor(g))
    check(lambda t: t.nn.functional.grid_sample(X(t), G(t)))  # align_corners=None -> False
    check(lambda t: t.nn.functional.grid_sample(X(t), G(t), "nearest", "border"))
    check(lambda t: t.nn.functional.grid_sample(X(t)[:0], G(t)[:0], align_corners=True))
    check(lambda t: t.nn.functional.grid_sample(X(t)[:, :0], G(t), align_corners=True))
    check(lambda t: t.nn.functional.grid_sample(X(t), G(t)[:, :0], mode="bicubic",
                                                align_corners=True))
    x3, g3 = _data3d(np.float32)
    check(lambda t: t.nn.functional.grid_sample(t.tensor(x3), t.tensor(g3)[:, :, :0]))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_reduced_precision(dtype, mode):
    rs = np.random.RandomState(3)
    x = rs.randn(1, 2, 4, 5)
    g = rs.uniform(-1.2, 1.2, (1, 3, 3, 2))
    check(lambda t: t.nn.functional.grid_sample(
        t.tensor(x).to(getattr(t, dtype)), t.tensor(g).to(getattr(t, dtype)), mode=mode,
        padding_mode="reflection", align_corners=False))


def test_align_corners_none_warns():
    x, g = _data2d(np.float32)
    got = []
    for lib in (real_torch, torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.functional.grid_sample(lib.tensor(x), lib.tensor(g))
        got.append([(a.category.__name__, str(a.message)) for a in w])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.functional.grid_sample(lib.tensor(x), lib.tensor(g), align_corners=False)
        assert not w
    assert got[0] == got[1] and len(got[0]) == 1 and got[0][0][0] == "UserWarning"


ERRORS = [
    # (input shape, input dtype, grid shape, grid dtype, kwargs)
    ((2, 3, 4, 5), "float32", (2, 6, 7, 2), "float32", dict(mode="foo")),
    ((2, 3, 4, 5), "float32", (2, 6, 7, 2), "float32", dict(padding_mode="foo")),
    ((2, 3, 4, 5), "float32", (2, 6, 7, 2), "float32", dict(mode="foo", padding_mode="bar")),
    ((2, 3, 4, 5), "float32", (2, 6, 7, 2), "float32", dict(mode=None)),
    ((2, 3, 4, 5), "float32", (2, 6, 7, 2), "float32", dict(align_corners=0)),
    ((3, 4, 5), "float32", (6, 7, 2), "float32", {}),
    ((2, 3, 4, 5), "float32", (6, 7, 2), "float32", {}),
    ((2, 3, 4, 5), "float32", (1, 6, 7, 2), "float32", {}),
    ((2, 3, 4, 5), "float32", (2, 6, 7, 3), "float32", {}),
    ((2, 3, 0, 5), "float32", (2, 6, 7, 2), "float32", {}),
    ((2, 3, 0, 5), "float32", (2, 6, 7, 3), "float32", {}),
    ((2, 3, 4, 5), "float32", (2, 1, 6, 7, 2), "float32", {}),
    ((2, 3, 4, 5, 6), "float32", (2, 2, 2, 2, 3), "float32", dict(mode="bicubic")),
    ((2, 3, 4, 5, 6), "float32", (2, 2, 2, 3), "float32", {}),
    ((2, 3, 4, 5, 6), "float32", (2, 2, 2, 2, 2, 3), "float32", {}),
    ((2, 3, 4, 5, 0), "float32", (2, 2, 2, 2, 3), "float32", dict(mode="bicubic")),
    ((2, 3, 4, 5, 6, 7), "float32", (2, 2, 2, 2, 2, 4), "float32", {}),
    ((2, 3, 4), "float32", (2, 2, 1), "float32", {}),
    ((2, 3, 4, 5), "float32", (2, 6, 7, 2), "float64", {}),
    ((2, 3, 4, 5), "float64", (2, 6, 7, 2), "float32", {}),
    ((2, 3, 4, 5), "float16", (2, 6, 7, 2), "float32", {}),
    ((2, 3, 4, 5), "int64", (2, 6, 7, 2), "int64", {}),
    ((2, 3, 4, 5), "int64", (2, 6, 7, 2), "float32", {}),
    ((2, 3, 4, 5), "float32", (2, 6, 7, 2), "int64", {}),
    ((2, 3, 4, 5, 6), "int64", (2, 2, 2, 2, 3), "float32", {}),
    ((2, 3, 4, 5, 6), "bool", (2, 2, 2, 2, 3), "bool", {}),
    ((2, 3, 4, 5, 6), "float32", (2, 2, 2, 2, 3), "float64", {}),
    ((2, 3, 4, 5, 6), "int64", (2, 2, 2, 2, 3), "int64", dict(mode="bicubic")),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    xs, xd, gs, gd, kw = ERRORS[i]
    kw = dict(kw)
    kw.setdefault("align_corners", False)

    def f(t):
        x = t.zeros(*xs).to(getattr(t, xd))
        g = t.zeros(*gs).to(getattr(t, gd))
        return t.nn.functional.grid_sample(x, g, **kw)
    expected, _ = check(f)
    assert type(expected).__name__ == "Raised"
