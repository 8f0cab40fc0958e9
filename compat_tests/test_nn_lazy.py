"""Lazy modules (LazyConv*/LazyConvTranspose*/LazyBatchNorm*/LazyInstanceNorm*, LazyModuleMixin,
UninitializedParameter/UninitializedBuffer) and SyncBatchNorm against real PyTorch."""
import copy
import math
import pickle

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check, same_repr
from nn_harness import check_module, copy_weights


def randn(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def lib_of(nn):
    return real_torch if nn is real_torch.nn else torchlike


def state_summary(m):
    """Keys and (for placeholders) reprs / (for tensors) shapes of a state dict."""
    return [(k, repr(v) if type(v).__name__.startswith("Uninitialized") else tuple(v.shape))
            for k, v in m.state_dict().items()]


def lazy_info(m):
    return {
        "type": type(m).__name__,
        "repr": repr(m),
        "has_uninit": m.has_uninitialized_params() if hasattr(m, "has_uninitialized_params")
        else None,
        "hook": hasattr(m, "_initialize_hook"),
        "params": [(n, type(p).__name__, repr(p) if type(p).__name__.startswith("Uninit")
                    else tuple(p.shape), p.requires_grad) for n, p in m.named_parameters()],
        "buffers": [(n, type(b).__name__, repr(b) if type(b).__name__.startswith("Uninit")
                     else tuple(b.shape), str(b.dtype)) for n, b in m.named_buffers()],
        "state": state_summary(m),
    }


# ---- (ctor, input shape) cases ------------------------------------------------------------------

CONV_CASES = [
    ("LazyConv1d(4, 3)", (2, 3, 9)),
    ("LazyConv1d(4, 3)", (3, 9)),  # unbatched
    ("LazyConv1d(6, 3, stride=2, padding=1, groups=3, bias=False)", (2, 3, 9)),
    ("LazyConv1d(4, 3, padding='same', dilation=2, padding_mode='reflect')", (2, 2, 9)),
    ("LazyConv2d(4, 3)", (2, 3, 6, 7)),
    ("LazyConv2d(4, (2, 3), stride=(2, 1), padding=(1, 0), padding_mode='circular')",
     (2, 2, 6, 7)),
    ("LazyConv2d(6, 3, groups=2, dilation=2)", (2, 4, 8, 8)),
    ("LazyConv2d(4, 3)", (3, 6, 7)),  # unbatched
    ("LazyConv3d(4, 2)", (2, 3, 4, 5, 4)),
    ("LazyConv3d(2, (1, 2, 3), padding='valid', bias=False)", (1, 2, 3, 4, 5)),
    ("LazyConvTranspose1d(4, 3)", (2, 3, 7)),
    ("LazyConvTranspose1d(4, 3, stride=2, padding=1, output_padding=1, groups=2)", (2, 4, 7)),
    ("LazyConvTranspose2d(4, 3)", (2, 3, 5, 6)),
    ("LazyConvTranspose2d(6, (3, 2), stride=2, dilation=2, bias=False)", (2, 3, 5, 6)),
    ("LazyConvTranspose2d(4, 3)", (3, 5, 6)),  # unbatched
    ("LazyConvTranspose3d(2, 2, stride=2)", (1, 3, 3, 4, 3)),
]

NORM_CASES = [
    ("LazyBatchNorm1d()", (4, 3)),
    ("LazyBatchNorm1d()", (4, 3, 6)),
    ("LazyBatchNorm1d(affine=False)", (4, 3, 6)),
    ("LazyBatchNorm1d(bias=False, momentum=None)", (4, 3)),
    ("LazyBatchNorm2d()", (4, 3, 5, 5)),
    ("LazyBatchNorm2d(eps=1e-3, momentum=0.3)", (4, 3, 5, 5)),
    ("LazyBatchNorm2d(track_running_stats=False)", (4, 3, 5, 5)),
    ("LazyBatchNorm3d()", (2, 3, 3, 4, 2)),
    ("LazyInstanceNorm1d()", (4, 3, 6)),
    ("LazyInstanceNorm1d(affine=False, track_running_stats=False)", (4, 3, 6)),
    ("LazyInstanceNorm2d()", (4, 3, 5, 5)),
    ("LazyInstanceNorm2d(affine=False)", (4, 3, 5, 5)),
    ("LazyInstanceNorm2d(bias=False, track_running_stats=False)", (4, 3, 5, 5)),
    ("LazyInstanceNorm3d()", (2, 3, 3, 4, 2)),
    ("LazyInstanceNorm3d()", (3, 3, 4, 3)),  # unbatched, num_features = shape[1] = 3
]

ALL_CASES = CONV_CASES + NORM_CASES


def build(nn, ctor):
    return eval("nn." + ctor, {"nn": nn})


@pytest.mark.parametrize("ctor,shape", ALL_CASES)
def test_lazy_before_and_after_first_forward(ctor, shape):
    """Type, repr, placeholders, state dict before; the same after materialisation (the
    module has become the regular class); forward/backward with torch's weights copied in."""
    x = randn(*shape, seed=len(ctor))

    def before(torch):
        return lazy_info(build(torch.nn, ctor))

    check(before)

    def after(torch):
        m = build(torch.nn, ctor)
        with torch.no_grad():
            m(torch.tensor(x))
        return lazy_info(m)

    check(after)

    for train in (True, False):
        def make(nn):
            m = build(nn, ctor)
            with lib_of(nn).no_grad():
                m(lib_of(nn).tensor(x))
            return m
        check_module(make, [x], train=train, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("ctor,shape", NORM_CASES)
def test_lazy_norm_running_stats_over_steps(ctor, shape):
    """Several training steps starting from the lazy module: running stats and outputs."""
    xs = [randn(*shape, seed=s) for s in range(3)]

    def fn(torch):
        m = build(torch.nn, ctor)
        outs = [m(torch.tensor(a)) for a in xs]
        m.eval()
        outs.append(m(torch.tensor(xs[0])))
        return outs, dict(m.state_dict()), type(m).__name__

    check(fn)


@pytest.mark.parametrize("ctor,shape", ALL_CASES)
def test_lazy_materialised_shapes_and_dtypes(ctor, shape):
    def fn(torch):
        m = build(torch.nn, ctor).double()
        info_before = lazy_info(m)
        m(torch.tensor(randn(*shape)).double())
        return info_before, [(n, tuple(p.shape), p.dtype) for n, p in m.named_parameters()], \
            [(n, tuple(b.shape), b.dtype) for n, b in m.named_buffers()]

    check(fn)


def test_lazy_conv_default_init_distribution():
    """The materialised weight/bias follow the regular class' init: U(-1/sqrt(fan_in), ...)."""
    for ctor, shape, fan_in in [("LazyConv2d(32, 3)", (1, 16, 5, 5), 16 * 9),
                                ("LazyConv1d(64, 5, groups=2)", (1, 8, 9), 4 * 5),
                                ("LazyConvTranspose2d(8, 3)", (1, 32, 4, 4), 8 * 9),
                                ("LazyConvTranspose1d(6, 4, groups=3)", (1, 30, 5), 2 * 4)]:
        m = build(torchlike.nn, ctor)
        m(torchlike.tensor(randn(*shape)))
        bound = 1 / math.sqrt(fan_in)
        w = m.weight.detach().numpy()
        b = m.bias.detach().numpy()
        assert np.abs(w).max() <= bound + 1e-7 and np.abs(w).max() > 0.9 * bound, ctor
        assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound, ctor
        assert np.abs(b).max() <= bound + 1e-7, ctor
        assert len(np.unique(w)) > 0.99 * w.size  # not constant


def test_lazy_norm_default_init():
    def fn(torch):
        m = torch.nn.LazyBatchNorm2d()
        m.eval()
        m(torch.ones(2, 5, 3, 3))
        n = torch.nn.LazyInstanceNorm1d()
        n(torch.ones(2, 4, 3))
        return dict(m.state_dict()), dict(m.named_parameters()), dict(n.state_dict())

    check(fn)


# ---- errors ----------------------------------------------------------------------------------

ERROR_CASES = [
    ("LazyConv2d(4, 3)", (5, 5)),
    ("LazyConv2d(4, 3)", (1, 2, 3, 5, 5)),
    ("LazyConv1d(4, 3)", (2, 3, 4, 5)),
    ("LazyConv3d(4, 3)", (2, 2, 2)),
    ("LazyConvTranspose2d(4, 3)", (2, 5)),
    ("LazyConv2d(4, 3, groups=2)", (2, 3, 5, 5)),
    ("LazyConvTranspose2d(4, 3, groups=2)", (2, 3, 5, 5)),
    ("LazyBatchNorm2d()", (2, 3, 4)),
    ("LazyBatchNorm1d()", (2, 3, 4, 5)),
    ("LazyBatchNorm3d()", (2, 3, 4, 5)),
    ("LazyInstanceNorm1d()", (3, 6)),  # num_features = shape[1]: mismatch once it is a norm
    ("LazyInstanceNorm2d()", (2, 3, 4)),  # unbatched: num_features = 3 vs channel dim 2
    ("LazyInstanceNorm2d()", (2, 3)),
]


@pytest.mark.parametrize("ctor,shape", ERROR_CASES)
def test_lazy_errors(ctor, shape):
    """The error, and what state the module is left in."""
    def fn(torch):
        m = build(torch.nn, ctor)
        try:
            m(torch.tensor(randn(*shape)))
            err = None
        except Exception as e:  # noqa: BLE001
            err = (type(e).__name__, str(e))
        return err, lazy_info(m)

    check(fn)


def test_lazy_constructor_errors():
    for ctor in ["LazyConv2d(4, 3, groups=0)", "LazyConv2d(5, 3, groups=2)",
                 "LazyConv2d(4, 3, padding='full')",
                 "LazyConv2d(4, 3, stride=2, padding='same')",
                 "LazyConvTranspose2d(4, 3, padding_mode='reflect')"]:
        check(lambda torch: repr(build(torch.nn, ctor)))


def test_initialize_parameters_directly():
    """initialize_parameters materialises without switching the class; forward switches."""
    x = randn(2, 3, 6, 6)

    def fn(torch):
        res = []
        for ctor in ["LazyConv2d(4, 3)", "LazyBatchNorm2d()", "LazyInstanceNorm2d()",
                     "LazyConvTranspose2d(2, 3)"]:
            m = build(torch.nn, ctor)
            m.initialize_parameters(torch.tensor(x))
            a = lazy_info(m)
            m.initialize_parameters(torch.tensor(randn(2, 5, 6, 6)))  # no-op now
            b = lazy_info(m)
            m(torch.tensor(x))
            res.append((a, b, lazy_info(m)))
        return res

    check(fn)


def test_lazy_wrong_channels_after_materialisation():
    def fn(torch):
        m = torch.nn.LazyConv2d(4, 3)
        m(torch.zeros(1, 3, 5, 5))
        return m(torch.zeros(1, 2, 5, 5))

    check(fn)


# ---- state dicts, copying, dtypes ------------------------------------------------------------

def test_load_state_dict_into_lazy_module():
    def fn(torch):
        full = torch.nn.Sequential(torch.nn.LazyConv2d(4, 3), torch.nn.LazyBatchNorm2d(),
                                   torch.nn.LazyConvTranspose2d(2, 2))
        full(torch.tensor(randn(2, 3, 6, 6)))
        lazy = torch.nn.Sequential(torch.nn.LazyConv2d(4, 3), torch.nn.LazyBatchNorm2d(),
                                   torch.nn.LazyConvTranspose2d(2, 2))
        before = state_summary(lazy)
        lazy.load_state_dict(full.state_dict())
        mid = lazy_info(lazy[0]), lazy_info(lazy[1]), repr(lazy)
        x = torch.tensor(randn(2, 3, 6, 6, seed=1))
        full.eval()
        lazy.eval()
        same = [bool((a == b).all()) for a, b in zip(lazy.state_dict().values(),
                                                     full.state_dict().values())]
        return before, mid, bool((lazy(x) == full(x)).all()), same, repr(lazy), \
            state_summary(lazy)

    check(fn)


def test_load_lazy_state_dict_into_lazy_module():
    def fn(torch):
        a = torch.nn.LazyBatchNorm1d()
        b = torch.nn.LazyBatchNorm1d()
        res = b.load_state_dict(a.state_dict())
        return tuple(res), lazy_info(b)

    check(fn)


def test_load_uninitialized_into_initialized_errors():
    def fn(torch):
        a = torch.nn.LazyConv1d(2, 3)
        b = torch.nn.Conv1d(3, 2, 3)
        return b.load_state_dict(a.state_dict())

    e, a = check(fn)
    assert type(e).__name__ == "Raised"


def test_deepcopy_and_pickle_lazy_module():
    def fn(torch):
        m = torch.nn.LazyConv2d(4, 3)
        c = copy.deepcopy(m)
        p = pickle.loads(pickle.dumps(torch.nn.UninitializedParameter()))
        info_c = lazy_info(c)
        c(torch.zeros(1, 2, 5, 5))
        return info_c, lazy_info(c), lazy_info(m), repr(p), type(p).__name__, p.requires_grad

    check(fn)


def test_lazy_module_to_dtype_keeps_placeholders():
    def fn(torch):
        m = torch.nn.LazyBatchNorm1d().to(torch.float64)
        m2 = torch.nn.LazyConv1d(2, 3, dtype=torch.float64)
        m3 = torch.nn.LazyBatchNorm1d(dtype=torch.float16)
        out = [lazy_info(m), m.weight.dtype, m.running_mean.dtype, m2.weight.dtype,
               m3.running_var.dtype, m3.num_batches_tracked.dtype]
        m(torch.tensor(randn(4, 3)).double())
        m2(torch.tensor(randn(2, 5, 7)).double())
        out += [lazy_info(m), lazy_info(m2), m.weight.dtype, m.running_var.dtype]
        return out

    check(fn)


def test_lazy_in_model_trains_like_torch():
    """A model of lazy modules: dry run, weights copied from torch, one SGD step."""
    x = randn(4, 3, 8, 8)

    def make(nn):
        lib = lib_of(nn)
        m = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(),
                          nn.LazyConvTranspose2d(2, 2, stride=2), nn.LazyInstanceNorm2d(),
                          nn.Flatten(), nn.LazyLinear(5))
        with lib.no_grad():
            m(lib.tensor(x))
        return m

    tm = make(real_torch.nn)
    lm = copy_weights(make(torchlike.nn), tm)
    assert repr(tm) == repr(lm)

    def step(lib, m):
        out = m(lib.tensor(x))
        out.pow(2).mean().backward()
        with lib.no_grad():
            for p in m.parameters():
                p -= 0.1 * p.grad
        return out, dict(m.state_dict())

    from harness import assert_same
    assert_same(step(real_torch, tm), step(torchlike, lm), 1e-4, 1e-5)


# ---- UninitializedParameter / UninitializedBuffer ----------------------------------------------

def test_uninitialized_parameter_basics():
    def fn(torch):
        p = torch.nn.UninitializedParameter()
        q = torch.nn.UninitializedParameter(requires_grad=False, dtype=torch.float64)
        b = torch.nn.UninitializedBuffer()
        out = [repr(p), repr(q), repr(b), p.requires_grad, q.requires_grad, b.requires_grad,
               q.dtype, isinstance(p, torch.nn.Parameter), isinstance(b, torch.nn.Parameter),
               isinstance(b, torch.nn.Buffer), isinstance(b, torch.Tensor),
               torch.nn.UninitializedParameter.cls_to_become.__name__,
               torch.nn.UninitializedBuffer.cls_to_become.__name__]
        try:
            p.shape
        except RuntimeError as e:
            out.append(str(e))
        p.materialize((2, 3))
        q.materialize((4,), dtype=torch.float32)
        b.materialize((3,))
        out += [type(p).__name__, p.shape, p.requires_grad, type(q).__name__, q.dtype,
                q.requires_grad, type(b).__name__, b.shape, b.dtype]
        return out

    check(fn)


def test_is_lazy():
    from torchlike.nn.parameter import is_lazy as tl_is_lazy
    from torch.nn.parameter import is_lazy as t_is_lazy
    assert tl_is_lazy(torchlike.nn.UninitializedParameter()) is t_is_lazy(
        real_torch.nn.UninitializedParameter())
    assert tl_is_lazy(torchlike.nn.UninitializedBuffer()) is True
    assert tl_is_lazy(torchlike.nn.Parameter(torchlike.zeros(1))) is False


# ---- SyncBatchNorm -------------------------------------------------------------------------------

SYNC_CASES = [
    ("SyncBatchNorm(3)", (4, 3)),
    ("SyncBatchNorm(3)", (4, 3, 6)),
    ("SyncBatchNorm(3)", (4, 3, 5, 5)),
    ("SyncBatchNorm(3)", (2, 3, 3, 4, 2)),
    ("SyncBatchNorm(3)", (2, 3, 2, 2, 2, 2)),  # any rank >= 2
    ("SyncBatchNorm(3, affine=False)", (4, 3, 5, 5)),
    ("SyncBatchNorm(3, bias=False)", (4, 3, 5)),
    ("SyncBatchNorm(3, track_running_stats=False)", (4, 3, 5, 5)),
    ("SyncBatchNorm(3, momentum=None)", (4, 3, 5, 5)),
    ("SyncBatchNorm(3, eps=1e-3, momentum=0.3, process_group=None)", (4, 3, 5, 5)),
]


@pytest.mark.parametrize("ctor,shape", SYNC_CASES)
@pytest.mark.parametrize("train", [True, False])
def test_sync_batchnorm_module(ctor, shape, train):
    x = randn(*shape, seed=len(shape))
    check_module(lambda nn: build(nn, ctor), [x], train=train)


@pytest.mark.parametrize("ctor,shape", SYNC_CASES)
def test_sync_batchnorm_running_stats(ctor, shape):
    xs = [randn(*shape, seed=s) for s in range(3)]

    def fn(torch):
        m = build(torch.nn, ctor)
        outs = [m(torch.tensor(a)) for a in xs]
        m.eval()
        outs.append(m(torch.tensor(xs[1])))
        return outs, dict(m.state_dict()), repr(m), m.process_group

    check(fn)


def test_sync_batchnorm_errors():
    for shape in [(3,), (), (4, 0), (4, 0, 3)]:
        def fn(torch):
            return torch.nn.SyncBatchNorm(3)(torch.zeros(shape))
        check(fn)

    def fn(torch):
        return torch.nn.SyncBatchNorm(3)(torch.zeros(4, 2, 5))
    check(fn)

    def fn(torch):
        return torch.nn.SyncBatchNorm(3, track_running_stats=False).eval()(
            torch.tensor(randn(4, 3)))
    check(fn)


def test_sync_batchnorm_repr_and_class():
    same_repr(lambda torch: torch.nn.SyncBatchNorm(7, eps=1e-4, affine=False))

    def fn(torch):
        m = torch.nn.SyncBatchNorm(3)
        return (isinstance(m, torch.nn.modules.batchnorm._BatchNorm),
                isinstance(m, torch.nn.BatchNorm2d), [n for n, _ in m.named_parameters()],
                [n for n, _ in m.named_buffers()])

    check(fn)


def _bn_model(nn):
    return nn.Sequential(
        nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
        nn.Sequential(nn.BatchNorm2d(4, affine=False, momentum=None), nn.Identity()),
        nn.Flatten(1), nn.Linear(4 * 4 * 4, 6), nn.BatchNorm1d(6, bias=False),
    )


def test_convert_sync_batchnorm():
    x = randn(4, 3, 6, 6)

    def fn(torch):
        torch.manual_seed(0)
        model = _bn_model(torch.nn)
        for _ in range(2):
            model(torch.tensor(x))  # non-trivial running stats before converting
        model[6].eval()
        old = {n: p for n, p in model.named_parameters()}
        old_bufs = {n: b for n, b in model.named_buffers()}
        conv = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
        shared = ([conv.get_parameter(n) is p for n, p in old.items()],
                  [conv.get_buffer(n) is b for n, b in old_bufs.items()])
        types = [type(m).__name__ for m in conv.modules()]
        training = [m.training for m in conv.modules()]
        sd = state_summary(conv)
        return repr(conv), types, training, shared, conv is model, sd

    e, a = check(fn)
    assert "SyncBatchNorm" in e[1]


def test_convert_sync_batchnorm_outputs_match_torch():
    x = randn(4, 3, 6, 6, seed=3)
    for train in (True, False):
        def make(nn):
            m = _bn_model(nn)
            return nn.SyncBatchNorm.convert_sync_batchnorm(m)
        check_module(make, [x], train=train, rtol=1e-4, atol=1e-5)


def test_convert_sync_batchnorm_top_level_and_lazy():
    def fn(torch):
        bn = torch.nn.BatchNorm3d(5, eps=1e-3)
        bn.qconfig = "q"
        s = torch.nn.SyncBatchNorm.convert_sync_batchnorm(bn, process_group=None)
        s2 = torch.nn.SyncBatchNorm.convert_sync_batchnorm(s)
        other = torch.nn.SyncBatchNorm.convert_sync_batchnorm(torch.nn.InstanceNorm2d(3))
        lazy = torch.nn.LazyBatchNorm1d()
        lazy(torch.ones(2, 4))
        s3 = torch.nn.SyncBatchNorm.convert_sync_batchnorm(lazy)
        return (repr(s), s.qconfig, s.weight is bn.weight, repr(s2), s2 is s,
                s2.weight is s.weight, repr(other), type(other).__name__, repr(s3))

    check(fn)


def test_lazy_load_state_dict_missing_unexpected_and_assign():
    def fn(torch):
        a = torch.nn.LazyBatchNorm1d()
        sd = a.state_dict()
        del sd["bias"]
        sd["extra"] = torch.zeros(1)
        try:
            a.load_state_dict(sd)
            err = None
        except RuntimeError as e:
            err = str(e)
        res = tuple(a.load_state_dict(sd, strict=False))
        m = torch.nn.LazyConv2d(3, 2)
        m2 = torch.nn.LazyConv2d(3, 2)
        m2(torch.zeros(1, 2, 4, 4))
        r2 = tuple(m.load_state_dict(m2.state_dict(), assign=True))
        return err, res, lazy_info(a), r2, lazy_info(m), bool((m.weight == m2.weight).all())

    check(fn)
