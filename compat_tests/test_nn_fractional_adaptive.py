"""Fractional max pooling (F.fractional_max_pool2d/3d, nn.FractionalMaxPool2d/3d) and
nn.AdaptiveLogSoftmaxWithLoss against real PyTorch."""
import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check, same_repr
from nn_harness import copy_weights

DTYPES = ["float32", "float64", "float16", "bfloat16"]


def _frac(lib, nd):
    F = lib.nn.functional
    return F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d


def _pool_and_grad(lib, nd, x, s, kernel, dtype="float32", grad=True, **kw):
    t = lib.tensor(x).to(getattr(lib, dtype))
    if grad:
        t.requires_grad_(True)
    samples = lib.tensor(s).to(getattr(lib, dtype))
    out, idx = _frac(lib, nd)(t, kernel, return_indices=True, _random_samples=samples, **kw)
    res = {"out": out, "idx": idx}
    if grad:
        w = lib.tensor(np.random.RandomState(1).randn(*out.shape).astype(np.float32))
        (out * w.to(out.dtype)).sum().backward()
        res["grad"] = t.grad
    return res


CASES_2D = [
    ((2, 3, 10, 12), 3, (6, 7)),
    ((2, 3, 10, 12), 3, (8, 10)),      # the largest output torch allows
    ((3, 10, 12), (2, 3), (5, 8)),     # unbatched
    ((1, 2, 50, 40), 2, (25, 31)),
    ((1, 1, 33, 97), 1, (30, 96)),
    ((2, 2, 9, 9), (4, 2), 1),         # single output along each dim
    ((2, 2, 9, 9), 2, (2, 8)),
    ((0, 3, 10, 12), 3, (6, 7)),       # empty batch
]

CASES_3D = [
    ((2, 3, 9, 10, 11), 2, (4, 5, 6)),
    ((2, 7, 8, 9), (3, 2, 1), (4, 4, 8)),  # unbatched
    ((1, 2, 9, 10, 11), 1, (8, 9, 10)),
    ((1, 2, 6, 7, 8), (2, 3, 2), 1),
    ((1, 1, 12, 5, 7), 3, (6, 2, 3)),
]


def _samples(shape, nd, seed=0, extra_batch=0):
    n = 1 if len(shape) == nd + 1 else shape[0]
    return np.random.RandomState(seed).rand(n + extra_batch, shape[-nd - 1], nd).astype(
        np.float32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES_2D + CASES_3D, ids=str)
def test_fractional_values_indices_grads(case, dtype):
    shape, k, o = case
    nd = 3 if case in CASES_3D else 2
    x = np.random.RandomState(2).randn(*shape).astype(np.float32)
    s = _samples(shape, nd)
    # half types: torch accumulates overlapping-window gradients in half, one add at a time
    tol = 2e-2 if dtype in ("float16", "bfloat16") else None
    check(lambda lib: _pool_and_grad(lib, nd, x, s, k, dtype, output_size=o), rtol=tol, atol=tol)
    # values and indices are exact in every dtype
    check(lambda lib: _pool_and_grad(lib, nd, x, s, k, dtype, grad=False, output_size=o),
          rtol=0, atol=0)


@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_more_samples_than_batch(nd):
    shape = (2, 3, 9, 10, 11)[: nd + 2]
    x = np.random.RandomState(3).randn(*shape).astype(np.float32)
    s = _samples(shape, nd, seed=4, extra_batch=3)
    check(lambda lib: _pool_and_grad(lib, nd, x, s, 2, output_size=(4,) * nd))


@pytest.mark.parametrize("seed", range(6))
def test_fractional_sample_edges(seed):
    # samples at 0 and just under 1, and many sizes: the interval formula's truncations
    rng = np.random.RandomState(seed)
    H, W = rng.randint(8, 40, 2)
    k = int(rng.randint(1, 4))
    oh, ow = int(rng.randint(1, H - k + 2)), int(rng.randint(1, W - k + 2))
    x = rng.randn(2, 3, H, W).astype(np.float32)
    s = rng.rand(2, 3, 2).astype(np.float32)
    s[0, 0] = 0.0
    s[0, 1] = np.float32(0.99999994)
    s[1, 0, 0] = 0.5
    check(lambda lib: _pool_and_grad(lib, 2, x, s, k, output_size=(oh, ow)))
    check(lambda lib: _pool_and_grad(lib, 2, x, s, k, "float64", output_size=(oh, ow)))


@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_ties_and_overlap(nd):
    # integer-valued input: many ties (first max in scan order) and overlapping windows
    shape = (2, 2, 9, 10, 11)[: nd + 2]
    x = np.random.RandomState(5).randint(0, 3, shape).astype(np.float32)
    s = _samples(shape, nd, seed=6)
    check(lambda lib: _pool_and_grad(lib, nd, x, s, 3, output_size=(5,) * nd))


def test_fractional_inf_and_nan():
    x = np.random.RandomState(7).randn(1, 2, 8, 8).astype(np.float32)
    x[0, 0, :4, :4] = -np.inf
    x[0, 1, 2, 3] = np.nan
    x[0, 1, 3, 3] = np.nan
    s = _samples(x.shape, 2, seed=8)
    check(lambda lib: _pool_and_grad(lib, 2, x, s, 3, grad=False, output_size=(4, 4)))


@pytest.mark.parametrize("nd,ratio", [(2, (0.5, 0.5)), (2, (0.3, 0.7)), (2, [0.5, 0.25]),
                                      (3, 0.5), (3, (0.5, 0.6, 0.4))])
def test_fractional_output_ratio(nd, ratio):
    shape = (2, 3, 9, 10, 11)[: nd + 2]
    x = np.random.RandomState(9).randn(*shape).astype(np.float32)
    s = _samples(shape, nd, seed=10)
    check(lambda lib: _pool_and_grad(lib, nd, x, s, 2, output_ratio=ratio))


def test_fractional_with_indices_names():
    x = np.random.RandomState(11).randn(2, 3, 10, 12).astype(np.float32)
    s = _samples(x.shape, 2)
    x3 = np.random.RandomState(12).randn(2, 3, 9, 10, 11).astype(np.float32)
    s3 = _samples(x3.shape, 3)

    def f(lib):
        F = lib.nn.functional
        a = F.fractional_max_pool2d_with_indices(lib.tensor(x), 3, (6, 7),
                                                 _random_samples=lib.tensor(s))
        b = F.fractional_max_pool3d_with_indices(lib.tensor(x3), 2, (4, 5, 6),
                                                 _random_samples=lib.tensor(s3))
        c = F.fractional_max_pool2d(lib.tensor(x), 3, (6, 7), None, False, lib.tensor(s))
        return a, b, c

    check(f)


def test_fractional_grad_fn_names():
    def f(lib):
        x = lib.randn(1, 2, 9, 9, requires_grad=True)
        y = lib.randn(1, 2, 9, 9, 9, requires_grad=True)
        return (type(lib.nn.functional.fractional_max_pool2d(x, 2, 4).grad_fn).__name__,
                type(lib.nn.functional.fractional_max_pool3d(y, 2, 4).grad_fn).__name__)

    check(f)


def _err_2d(lib, kernel=3, output_size=(6, 7), output_ratio=None, shape=(2, 3, 10, 12),
            samples_shape=(2, 3, 2), dtype="float32", sdtype=None):
    x = lib.ones(*shape, dtype=getattr(lib, dtype))
    s = lib.full(samples_shape, 0.5, dtype=getattr(lib, sdtype or dtype)) \
        if samples_shape is not None else None
    return lib.nn.functional.fractional_max_pool2d(x, kernel, output_size, output_ratio,
                                                   _random_samples=s)


def _err_3d(lib, kernel=2, output_size=(4, 4, 4), output_ratio=None, shape=(2, 3, 9, 10, 11),
            samples_shape=(2, 3, 3), dtype="float32", sdtype=None):
    x = lib.ones(*shape, dtype=getattr(lib, dtype))
    s = lib.full(samples_shape, 0.5, dtype=getattr(lib, sdtype or dtype)) \
        if samples_shape is not None else None
    return lib.nn.functional.fractional_max_pool3d(x, kernel, output_size, output_ratio,
                                                   _random_samples=s)


ERRORS = [
    (_err_2d, dict(output_size=None)),
    (_err_2d, dict(output_size=None, output_ratio=(0.5, 0.5, 0.5))),
    (_err_2d, dict(output_size=None, output_ratio=0.5)),
    (_err_2d, dict(output_size=None, output_ratio=[0.5])),
    (_err_2d, dict(output_size=(9, 10))),
    (_err_2d, dict(output_size=(8, 11))),
    (_err_2d, dict(kernel=11)),
    (_err_2d, dict(kernel=(3, 3, 3))),
    (_err_2d, dict(kernel=(3,))),
    (_err_2d, dict(output_size=(6, 7, 1))),
    (_err_2d, dict(output_size=(-1, 7))),
    (_err_2d, dict(output_size=2.5)),
    (_err_2d, dict(kernel=2.0)),
    (_err_2d, dict(samples_shape=(1, 3, 2))),
    (_err_2d, dict(samples_shape=(2, 4, 2))),
    (_err_2d, dict(samples_shape=(2, 3, 3))),
    (_err_2d, dict(samples_shape=(6, 2))),
    (_err_2d, dict(samples_shape=(2, 3, 2, 1))),
    (_err_2d, dict(sdtype="float64")),
    (_err_2d, dict(dtype="int64", sdtype="float32")),
    (_err_2d, dict(dtype="int64")),
    (_err_2d, dict(dtype="int64", samples_shape=None)),
    (_err_2d, dict(shape=(10, 12))),
    (_err_2d, dict(shape=(1, 2, 3, 10, 12))),
    (_err_2d, dict(shape=(2, 0, 10, 12), samples_shape=(2, 0, 2))),
    (_err_2d, dict(shape=(2, 3, 0, 12))),
    (_err_2d, dict(shape=(3, 10, 12), samples_shape=(3, 2))),
    (_err_3d, dict(output_size=None)),
    (_err_3d, dict(output_size=None, output_ratio=(0.5, 0.5))),
    (_err_3d, dict(output_size=(8, 9, 10))),
    (_err_3d, dict(output_size=(7, 9, 9))),
    (_err_3d, dict(output_size=(7, 8, 10))),
    (_err_3d, dict(kernel=(2, 2))),
    (_err_3d, dict(output_size=(4, 4))),
    (_err_3d, dict(samples_shape=(2, 3, 2))),
    (_err_3d, dict(samples_shape=(1, 3, 3))),
    (_err_3d, dict(samples_shape=(2, 2, 3))),
    (_err_3d, dict(samples_shape=(6, 3))),
    (_err_3d, dict(shape=(9, 10, 11))),
    (_err_3d, dict(shape=(1, 2, 3, 9, 10, 11))),
    (_err_3d, dict(shape=(2, 0, 9, 10, 11), samples_shape=(2, 0, 3))),
    (_err_3d, dict(dtype="int64")),
    (_err_3d, dict(dtype="bool")),
    (_err_3d, dict(sdtype="float64")),
]


@pytest.mark.parametrize("fn,kw", ERRORS, ids=[f"{f.__name__}-{k}" for f, k in ERRORS])
def test_fractional_errors(fn, kw):
    check(lambda lib: fn(lib, **kw))


def test_fractional_zero_output_and_kernel():
    x = np.random.RandomState(13).randn(2, 3, 10, 12).astype(np.float32)
    s = _samples(x.shape, 2)
    check(lambda lib: _pool_and_grad(lib, 2, x, s, 3, output_size=(0, 7)))
    check(lambda lib: _pool_and_grad(lib, 2, x, s, 0, grad=False, output_size=(6, 7)))


# ---- without _random_samples: torchlike's generator (shapes and statistics only) -------------

@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_random_samples_generated(nd):
    shape = (4, 3, 20, 21, 22)[: nd + 2]
    x = torchlike.randn(*shape)
    F = torchlike.nn.functional
    f = F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d
    outs = (10,) * nd
    torchlike.manual_seed(0)
    a, ia = f(x, 2, outs, return_indices=True)
    torchlike.manual_seed(0)
    b, ib = f(x, 2, outs, return_indices=True)
    c, ic = f(x, 2, outs, return_indices=True)
    assert tuple(a.shape) == (4, 3) + outs and str(ia.dtype).endswith("int64")
    assert np.array_equal(np.asarray(ia._value()), np.asarray(ib._value()))
    assert not np.array_equal(np.asarray(ia._value()), np.asarray(ic._value()))
    # every output is the input value its index points at
    xf = np.asarray(x._value()).reshape(4, 3, -1)
    av, iv = np.asarray(a._value()).reshape(4, 3, -1), np.asarray(ia._value()).reshape(4, 3, -1)
    assert np.array_equal(np.take_along_axis(xf, iv, -1), av)
    # same as passing explicit samples drawn the same way
    torchlike.manual_seed(0)
    s = torchlike.rand(4, 3, nd)
    d, idd = f(x, 2, outs, return_indices=True, _random_samples=s)
    assert np.array_equal(np.asarray(idd._value()), np.asarray(ia._value()))
    # statistics: over many draws each output index is spread over its possible positions
    seen = set()
    for _ in range(20):
        seen.add(tuple(f(x, 2, outs, return_indices=True)[1][0, 0].flatten().tolist()))
    assert len(seen) > 5
    # unbatched input draws samples for one batch
    u = f(x[0], 2, outs)
    assert tuple(u.shape) == (3,) + outs


def test_fractional_ratio_generated_shape():
    def f(lib):
        x = lib.randn(2, 3, 17, 23)
        y = lib.randn(2, 3, 9, 10, 11)
        F = lib.nn.functional
        return (F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.7)).shape,
                F.fractional_max_pool3d(y, 2, output_ratio=0.5).shape,
                F.fractional_max_pool3d(y[0], 2, output_ratio=0.5).shape)

    check(f)


# ---- modules ---------------------------------------------------------------------------------

MODULE_CASES = [
    (2, dict(kernel_size=3, output_size=(6, 7))),
    (2, dict(kernel_size=(2, 3), output_size=5, return_indices=True)),
    (2, dict(kernel_size=2, output_ratio=0.5)),
    (2, dict(kernel_size=2, output_ratio=(0.5, 0.3), return_indices=True)),
    (3, dict(kernel_size=2, output_size=(4, 5, 6), return_indices=True)),
    (3, dict(kernel_size=(1, 2, 3), output_ratio=0.5)),
]


@pytest.mark.parametrize("nd,kw", MODULE_CASES, ids=str)
def test_fractional_module(nd, kw):
    shape = (2, 3, 10, 12, 13)[: nd + 2]
    x = np.random.RandomState(14).randn(*shape).astype(np.float32)
    s = _samples(shape, nd, seed=15)

    def f(lib):
        cls = lib.nn.FractionalMaxPool2d if nd == 2 else lib.nn.FractionalMaxPool3d
        m = cls(**kw, _random_samples=lib.tensor(s))
        t = lib.tensor(x, requires_grad=True)
        out = m(t)
        o = out[0] if isinstance(out, tuple) else out
        o.sum().backward()
        return {"out": out, "grad": t.grad, "repr": repr(m), "buffers": dict(m.named_buffers()),
                "attrs": (m.kernel_size, m.output_size, m.output_ratio, m.return_indices)}

    check(f)


def test_fractional_module_generated_and_repr():
    def f(lib):
        m2 = lib.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))
        m3 = lib.nn.FractionalMaxPool3d(2, output_size=4, return_indices=True)
        a = m2(lib.randn(2, 3, 12, 14))
        b, i = m3(lib.randn(3, 9, 9, 9))
        return (repr(m2), repr(m3), a.shape, b.shape, i.dtype, list(m2.state_dict()),
                m2.kernel_size, m3.kernel_size, m3.output_size)

    check(f)


MODULE_ERRORS = [
    (2, dict(kernel_size=2)),
    (2, dict(kernel_size=2, output_size=3, output_ratio=0.5)),
    (2, dict(kernel_size=2, output_ratio=1.5)),
    (2, dict(kernel_size=2, output_ratio=(0.5, 1))),
    (2, dict(kernel_size=2, output_ratio=0)),
    (3, dict(kernel_size=0, output_ratio=0.5)),
    (3, dict(kernel_size=(2, 0, 1), output_ratio=0.5)),
    (3, dict(kernel_size=2, output_ratio=(0.5, 0.5, 1.0))),
    (3, dict(kernel_size=2)),
    (3, dict(kernel_size=2, output_size=2, output_ratio=0.5)),
]


@pytest.mark.parametrize("nd,kw", MODULE_ERRORS, ids=str)
def test_fractional_module_errors(nd, kw):
    def f(lib):
        cls = lib.nn.FractionalMaxPool2d if nd == 2 else lib.nn.FractionalMaxPool3d
        return repr(cls(**kw))

    check(f)


# ---- AdaptiveLogSoftmaxWithLoss --------------------------------------------------------------

ASM_CASES = [
    dict(in_features=16, n_classes=20, cutoffs=[4, 10]),
    dict(in_features=16, n_classes=20, cutoffs=[4, 10], head_bias=True),
    dict(in_features=32, n_classes=50, cutoffs=(5, 15, 30), div_value=2.0),
    dict(in_features=8, n_classes=10, cutoffs=[9], div_value=1.0, head_bias=True),
    dict(in_features=12, n_classes=7, cutoffs=[1, 2, 3], div_value=3.0),
]


def _make_asm(kw):
    def make(nn):
        real_torch.manual_seed(0)
        return nn.AdaptiveLogSoftmaxWithLoss(**kw)
    return make


def _pair_modules(kw, dtype=None):
    make = _make_asm(kw)
    tm = make(real_torch.nn)
    lm = make(torchlike.nn)
    if dtype is not None:
        tm, lm = tm.to(getattr(real_torch, dtype)), lm.to(getattr(torchlike, dtype))
    copy_weights(lm, tm)
    return {real_torch: tm, torchlike: lm}


def _asm_check(kw, x, t, dtype=None, **tol):
    """Forward (output, loss), then backward of loss + <output, w>: input and parameter grads."""
    mods = _pair_modules(kw, dtype)

    def f(lib):
        m = mods[lib]
        xt = lib.tensor(x, requires_grad=True)
        res = m(xt, lib.tensor(t))
        w = lib.tensor(np.random.RandomState(0).randn(*res.output.shape)).to(res.output.dtype)
        (res.loss * 1.5 + (res.output * w).sum()).backward()
        return {"res": res, "type": type(res).__name__, "fields": res._fields,
                "grad": xt.grad, "pgrads": {n: p.grad for n, p in m.named_parameters()},
                "grad_fn": type(res.loss.grad_fn).__name__}

    check(f, **tol)


@pytest.mark.parametrize("kw", ASM_CASES, ids=str)
@pytest.mark.parametrize("batch", [1, 2, 37])
def test_asm_forward_backward(kw, batch):
    rng = np.random.RandomState(batch)
    x = rng.randn(batch, kw["in_features"]).astype(np.float32)
    t = rng.randint(0, kw["n_classes"], batch).astype(np.int64)
    _asm_check(kw, x, t, atol=1e-5)


def test_asm_single_cluster_targets():
    kw = ASM_CASES[2]
    x = np.random.RandomState(3).randn(6, 32).astype(np.float32)
    for t in ([0, 1, 2, 3, 4, 0], [20, 21, 22, 25, 29, 16], [49, 30, 31, 40, 45, 48], [7] * 6):
        _asm_check(kw, x, np.array(t, np.int64), atol=1e-5)


def test_asm_unbatched_and_double():
    kw = ASM_CASES[1]
    x = np.random.RandomState(4).randn(16)
    for t in (3, 7, 15):
        _asm_check(kw, x.astype(np.float32), np.array(t, np.int64), atol=1e-5)
        _asm_check(kw, x, np.array(t, np.int64), dtype="float64")
    x2 = np.random.RandomState(5).randn(9, 16)
    _asm_check(kw, x2, np.random.RandomState(6).randint(0, 20, 9), dtype="float64")


@pytest.mark.parametrize("kw", ASM_CASES, ids=str)
def test_asm_log_prob_predict(kw):
    mods = _pair_modules(kw)
    x = np.random.RandomState(5).randn(40, kw["in_features"]).astype(np.float32) * 3

    def f(lib):
        m = mods[lib]
        t = lib.tensor(x, requires_grad=True)
        lp = m.log_prob(t)
        (lp * lib.tensor(np.random.RandomState(6).randn(*lp.shape).astype(np.float32))) \
            .sum().backward()
        return {"log_prob": lp, "predict": m.predict(lib.tensor(x)), "grad": t.grad,
                "pgrads": {n: p.grad for n, p in m.named_parameters()}}

    check(f, atol=1e-4)


def test_asm_predict_branches():
    kw = dict(in_features=8, n_classes=12, cutoffs=[3, 6], head_bias=True)
    x = np.random.RandomState(7).randn(10, 8).astype(np.float32)
    for bias in ([10, 10, 10, -10, -10], [-10, -10, -10, 10, 0], [-10, -10, -10, 0, 10],
                 [0, 0, 0, 0, 0]):
        mods = _pair_modules(kw)

        def f(lib):
            m = mods[lib]
            with lib.no_grad():
                m.head.bias.copy_(lib.tensor(np.array(bias, np.float32)))
            return m.predict(lib.tensor(x)), m.log_prob(lib.tensor(x)).argmax(1)

        check(f)


def test_asm_repr_and_names():
    for kw in ASM_CASES:
        same_repr(lambda lib: _make_asm(kw)(lib.nn))
        check(lambda lib: ([n for n, _ in _make_asm(kw)(lib.nn).named_parameters()],
                           [tuple(p.shape) for p in _make_asm(kw)(lib.nn).parameters()],
                           _make_asm(kw)(lib.nn).cutoffs, _make_asm(kw)(lib.nn).head_size,
                           _make_asm(kw)(lib.nn).shortlist_size,
                           _make_asm(kw)(lib.nn).n_clusters))


@pytest.mark.parametrize("cutoffs", [[], [4, 2], [0, 5], [5, 20], [5, 5, 8], [2.5, 8], [-1],
                                     [19, 20]])
def test_asm_bad_cutoffs(cutoffs):
    check(lambda lib: repr(lib.nn.AdaptiveLogSoftmaxWithLoss(16, 20, cutoffs)))


@pytest.mark.parametrize("xs,ts", [
    ((5, 16), [0, 1, 2, 3, 20]),
    ((5, 16), [0, 1, -1, 3, 4]),
    ((5, 16), [0, 1, 2]),
    ((5, 16, 1), [0, 1, 2, 3, 4]),
    ((16,), [[1]]),
    ((5, 16), 3),
    ((2, 16), [[1, 2], [3, 4]]),
    ((16,), 25),
])
def test_asm_bad_targets(xs, ts):
    mods = _pair_modules(ASM_CASES[0])
    x = np.random.RandomState(8).randn(*xs).astype(np.float32)

    def f(lib):
        return mods[lib](lib.tensor(x), lib.tensor(np.array(ts, np.int64)))

    check(f)
