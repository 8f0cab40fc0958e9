"""torch.nn normalization, dropout and embedding layers (modules and functional forms) and
torch.nn.utils.clip_grad_* against real PyTorch."""
import warnings

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check, same_repr
from nn_harness import check_module



def randn(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


X1 = randn(4, 3)
X1L = randn(4, 3, 6, seed=1)
X2 = randn(4, 3, 5, 5, seed=2)
X3 = randn(2, 3, 3, 4, 2, seed=3)

# ---- modules: forward, input and parameter gradients, reprs (train and eval) -----------------

MODULES = [
    ("BatchNorm1d(3)", X1), ("BatchNorm1d(3)", X1L), ("BatchNorm2d(3)", X2),
    ("BatchNorm3d(3)", X3), ("BatchNorm2d(3, affine=False)", X2),
    ("BatchNorm2d(3, track_running_stats=False)", X2), ("BatchNorm2d(3, momentum=None)", X2),
    ("BatchNorm2d(3, eps=1e-3, momentum=0.3)", X2), ("BatchNorm1d(3, bias=False)", X1L),
    ("InstanceNorm1d(3)", X1L), ("InstanceNorm1d(3, affine=True)", X1L),
    ("InstanceNorm2d(3, affine=True)", X2), ("InstanceNorm3d(3)", X3),
    ("InstanceNorm2d(3, affine=True, track_running_stats=True)", X2),
    ("InstanceNorm1d(3)", X1L[0]),  # no batch dim
    ("LayerNorm(5)", X2), ("LayerNorm([5, 5])", X2), ("LayerNorm([3, 5, 5], eps=1e-3)", X2),
    ("LayerNorm(6, elementwise_affine=False)", X1L), ("LayerNorm(6, bias=False)", X1L),
    ("GroupNorm(1, 3)", X2), ("GroupNorm(3, 3)", X2), ("GroupNorm(3, 3, affine=False)", X1L),
    ("GroupNorm(2, 4)", randn(2, 4, 7, seed=4)),
    ("RMSNorm(5)", X2), ("RMSNorm([5, 5], eps=1e-5)", X2),
    ("RMSNorm(6, elementwise_affine=False)", X1L),
    ("LocalResponseNorm(2)", X2), ("LocalResponseNorm(3, alpha=0.1, beta=0.5, k=2.0)", X1L),
    ("LocalResponseNorm(4)", X3),
]


def _perturbed(make):
    """Non-trivial affine parameters (torch's defaults are ones/zeros)."""
    def mk(nn):
        m = make(nn)
        lib = real_torch if nn is real_torch.nn else torchlike
        rs = np.random.RandomState(7)
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.tensor(rs.randn(*p.shape).astype(np.float32)))
        return m
    return mk


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("expr,x", MODULES, ids=[m[0] + str(m[1].shape) for m in MODULES])
def test_module(expr, x, train):
    check_module(_perturbed(lambda nn: eval("nn." + expr)), [x], train=train, rtol=1e-4,
                 atol=1e-5)


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5])
def test_cross_map_lrn2d_forward(size):
    # forward only: PyTorch's legacy hand-written backward is not the forward's derivative
    check_module(lambda nn: nn.CrossMapLRN2d(size, alpha=0.5, k=2), [randn(2, 6, 3, 3, seed=5)],
                 backward=False)


def _steps(lib, m, xs):
    outs = []
    for x in xs:
        t = lib.tensor(x).requires_grad_(True)
        out = m(t)
        (out * lib.tensor(randn(*out.shape, seed=9))).sum().backward()
        outs.append(out.detach())
    return outs


@pytest.mark.parametrize("expr", [
    "BatchNorm2d(3)", "BatchNorm2d(3, momentum=None)", "BatchNorm2d(3, momentum=0.5)",
    "BatchNorm1d(3)", "InstanceNorm2d(3, track_running_stats=True)",
    "InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=None)",
])
def test_running_stats_after_steps(expr):
    xs = [randn(4, 3, 5, 5, seed=s) * (s + 1) + s for s in range(4)]
    if expr.startswith("BatchNorm1d"):
        xs = [x[:, :, 0, 0] for x in xs]

    def f(torch):
        m = eval("torch.nn." + expr)
        outs = _steps(torch, m, xs)
        m.eval()
        outs.append(m(torch.tensor(xs[0])))
        return outs, dict(m.named_buffers()), {n: p.grad for n, p in m.named_parameters()}
    check(f, rtol=1e-4, atol=1e-5)


def test_batchnorm_eval_uses_running_stats_and_train_toggle():
    def f(torch):
        m = torch.nn.BatchNorm2d(3)
        x = torch.tensor(X2)
        m(x)
        m.eval()
        y = m(x * 2)
        nb = m.num_batches_tracked.clone()
        m.train()
        z = m(x)
        return y, nb, z, m.num_batches_tracked, m.running_mean, m.running_var
    check(f, rtol=1e-4, atol=1e-5)


def test_batchnorm_state_dict_and_buffers():
    def f(torch):
        m = torch.nn.BatchNorm1d(4)
        sd = m.state_dict()
        return (list(sd), [(n, b.dtype) for n, b in m.named_buffers()],
                [n for n, _ in m.named_parameters()], m.num_batches_tracked,
                torch.nn.BatchNorm1d(4, track_running_stats=False).state_dict())
    check(f)


@pytest.mark.parametrize("expr", [
    "BatchNorm2d(16)", "BatchNorm1d(3, eps=1e-3, momentum=None, affine=False)",
    "BatchNorm3d(4, track_running_stats=False, bias=False)", "InstanceNorm2d(3)",
    "InstanceNorm1d(3, affine=True, track_running_stats=True)", "LayerNorm(4)",
    "LayerNorm([3, 4], bias=False, elementwise_affine=True)", "GroupNorm(2, 4)",
    "GroupNorm(2, 4, affine=False)", "RMSNorm(4)", "RMSNorm([2, 3], eps=1e-6)",
    "LocalResponseNorm(2)", "CrossMapLRN2d(3, k=2)", "Dropout()", "Dropout(0.2, inplace=True)",
    "Dropout1d(0.1)", "Dropout2d()", "Dropout3d(0.3)", "AlphaDropout(0.2)",
    "FeatureAlphaDropout()", "Embedding(10, 3)", "Embedding(10, 3, padding_idx=-1, max_norm=1.0)",
    "Embedding(10, 3, norm_type=1.0, scale_grad_by_freq=True, sparse=True)",
    "EmbeddingBag(10, 3)", "EmbeddingBag(10, 3, mode='max', padding_idx=1)",
    "EmbeddingBag(10, 3, max_norm=2.0, norm_type=1.0, mode='sum')",
])
def test_reprs(expr):
    same_repr(lambda torch: eval("torch.nn." + expr))


def test_all_exported():
    for name in ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm",
                 "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm",
                 "RMSNorm", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                 "FeatureAlphaDropout", "Embedding", "EmbeddingBag", "CrossMapLRN2d"]:
        assert name in torchlike.nn.modules.__dict__ and hasattr(torchlike.nn, name), name
    for name in ["batch_norm", "layer_norm", "group_norm", "instance_norm", "rms_norm",
                 "local_response_norm", "dropout", "dropout1d", "dropout2d", "dropout3d",
                 "alpha_dropout", "feature_alpha_dropout", "embedding", "embedding_bag"]:
        assert hasattr(torchlike.nn.functional, name), name
    for name in ["clip_grad_norm_", "clip_grad_value_", "clip_grad_norm"]:
        assert hasattr(torchlike.nn.utils, name), name


# ---- module errors ----------------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "nn.BatchNorm2d(3)(torch.zeros(2, 3))", "nn.BatchNorm1d(3)(torch.zeros(2, 3, 4, 5))",
    "nn.BatchNorm3d(3)(torch.zeros(2, 3, 4, 5))", "nn.BatchNorm1d(3)(torch.zeros(1, 3))",
    "nn.BatchNorm1d(3)(torch.zeros(2, 4))", "nn.InstanceNorm2d(3)(torch.zeros(3, 4))",
    "nn.InstanceNorm1d(3, affine=True)(torch.zeros(2, 4, 5))",
    "nn.InstanceNorm1d(3)(torch.zeros(2, 3, 1))", "nn.GroupNorm(2, 5)",
    "nn.LayerNorm(4)(torch.zeros(2, 3))", "nn.LayerNorm([2, 4])(torch.zeros(2, 3, 4))",
    "nn.GroupNorm(2, 4)(torch.zeros(2, 4))", "nn.GroupNorm(1, 1)(torch.zeros(1, 1))",
    "nn.GroupNorm(2, 4)(torch.zeros(3))", "nn.LocalResponseNorm(2)(torch.zeros(2, 3))",
    "nn.Dropout(1.5)", "nn.Dropout(-0.1)", "nn.Embedding(5, 2, padding_idx=5)",
    "nn.Embedding(5, 2, padding_idx=-6)", "nn.EmbeddingBag(5, 2, padding_idx=7)",
    "nn.Embedding(5, 2)(torch.tensor([5]))", "nn.Embedding(5, 2)(torch.tensor([1.0]))",
    "nn.Embedding(5, 2)(torch.tensor([-1]))",
    "nn.Embedding.from_pretrained(torch.zeros(3))",
    "nn.Embedding(4, 2, _weight=torch.zeros(3, 2))",
])
def test_module_errors(expr):
    check(lambda torch: eval(expr, {"torch": torch, "nn": torch.nn}))


def test_instancenorm_num_features_warning():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torchlike.nn.InstanceNorm1d(3)(torchlike.zeros(2, 4, 5).normal_())
    assert any("does not match num_features" in str(x.message) for x in w)


# ---- functional forms -------------------------------------------------------------------------

def _t(lib, a, grad=False):
    t = lib.tensor(a)
    return t.requires_grad_(True) if grad else t


def _with_grads(fn):
    """Forward plus gradients of a weighted sum w.r.t. every tensor input that requires grad."""
    def f(torch, *a):
        out, leaves = fn(torch)
        w = torch.tensor(np.random.RandomState(3).randn(*out.shape).astype(np.float32))
        (out * w).sum().backward()
        return out, [t.grad for t in leaves]
    return f


W3 = randn(3, seed=10)
B3 = randn(3, seed=11)
RM = randn(3, seed=12)
RV = np.abs(randn(3, seed=13)) + 0.5


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("momentum", [0.1, 0.7])
def test_functional_batch_norm(training, momentum):
    def f(torch):
        x, w, b = _t(torch, X2, True), _t(torch, W3, True), _t(torch, B3, True)
        rm, rv = torch.tensor(RM), torch.tensor(RV)
        out = torch.nn.functional.batch_norm(x, rm, rv, w, b, training, momentum, 1e-4)
        w_ = torch.tensor(randn(*out.shape, seed=3))
        (out * w_).sum().backward()
        return out, x.grad, w.grad, b.grad, rm, rv, rm._version if False else 0
    check(f, rtol=1e-4, atol=1e-5)


def test_functional_batch_norm_no_running_stats_and_errors():
    check(_with_grads(lambda torch: (lambda x: (torch.nn.functional.batch_norm(
        x, None, None, training=True), [x]))(_t(torch, X1L, True))), rtol=1e-4, atol=1e-5)
    for expr in ["F.batch_norm(torch.zeros(2, 3), None, None, training=True, eps=0.0)",
                 "F.batch_norm(torch.zeros(2, 3), None, None, training=False, eps=-1.0)",
                 "F.batch_norm(torch.zeros(1, 3), None, None, training=True)",
                 "F.batch_norm(torch.zeros(4, 3), torch.zeros(2), torch.ones(2), training=True)"]:
        check(lambda torch: eval(expr, {"torch": torch, "F": torch.nn.functional}))


def test_functional_layer_group_rms_instance():
    def f(torch):
        F = torch.nn.functional
        x = _t(torch, X2, True)
        w = _t(torch, randn(5, 5, seed=5), True)
        b = _t(torch, randn(5, 5, seed=6), True)
        gw, gb = _t(torch, W3, True), _t(torch, B3, True)
        outs = [F.layer_norm(x, (5, 5), w, b, 1e-3), F.layer_norm(x, [5]),
                F.group_norm(x, 3, gw, gb), F.group_norm(x, 1),
                F.rms_norm(x, [5, 5], w), F.rms_norm(x, (5,), eps=1e-2),
                F.instance_norm(x, weight=gw, bias=gb),
                F.local_response_norm(x, 3, 1e-2, 0.6, 1.5)]
        total = sum((o * torch.tensor(randn(*o.shape, seed=i))).sum() for i, o in enumerate(outs))
        total.backward()
        return outs, [x.grad, w.grad, b.grad, gw.grad, gb.grad]
    check(f, rtol=1e-4, atol=1e-5)


def test_functional_instance_norm_running_stats():
    def f(torch):
        rm, rv = torch.tensor(RM), torch.tensor(RV)
        x = torch.tensor(X2)
        a = torch.nn.functional.instance_norm(x, rm, rv, momentum=0.3)
        b = torch.nn.functional.instance_norm(x, rm, rv, use_input_stats=False)
        return a, b, rm, rv
    check(f, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_norm_dtypes(dtype):
    def f(torch):
        F = torch.nn.functional
        d = getattr(torch, dtype)
        x = torch.tensor(X2).to(d)
        return (F.layer_norm(x, (5,)), F.group_norm(x, 3), F.rms_norm(x, (5,)),
                F.batch_norm(x, None, None, training=True))
    tol = {"float64": (1e-7, 1e-8), "float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2)}[dtype]
    check(f, rtol=tol[0], atol=tol[1])


@pytest.mark.parametrize("expr", [
    "F.layer_norm(torch.zeros(2, 3), (4,))", "F.layer_norm(torch.zeros(2, 3), [])",
    "F.layer_norm(torch.zeros(2, 3), (3,), torch.ones(4))",
    "F.group_norm(torch.zeros(2, 5, 3), 2)", "F.group_norm(torch.zeros(2), 1)",
    "F.group_norm(torch.zeros(2, 4, 3), 2, torch.ones(3))",
    "F.rms_norm(torch.zeros(2, 3), (2,))", "F.local_response_norm(torch.zeros(3), 2)",
    "F.instance_norm(torch.zeros(2, 3, 1))",
])
def test_functional_norm_errors(expr):
    check(lambda torch: eval(expr, {"torch": torch, "F": torch.nn.functional}))


# ---- dropout ----------------------------------------------------------------------------------

DROPOUTS = ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d",
            "dropout3d"]


@pytest.mark.parametrize("name", DROPOUTS)
def test_dropout_eval_and_p0_identity(name):
    for lib in (real_torch, torchlike):
        x = lib.ones(2, 3, 4, 5)
        fn = getattr(lib.nn.functional, name)
        if name in ("dropout1d",):
            x = lib.ones(2, 3, 4)
        if name in ("dropout3d",):
            x = lib.ones(2, 3, 4, 5, 2)
        assert fn(x, 0.5, training=False) is x
        assert fn(x, 0.0, training=True) is x


@pytest.mark.parametrize("name", DROPOUTS)
@pytest.mark.parametrize("p", [-0.1, 1.1])
def test_dropout_p_errors(name, p):
    check(lambda torch: getattr(torch.nn.functional, name)(torch.ones(2, 3, 4), p, True))


@pytest.mark.parametrize("name", DROPOUTS)
@pytest.mark.parametrize("training", [True, False])
def test_dropout_nan_p_is_refused_by_the_kernel(name, training):
    """NaN passes the functions' own range check; the kernel's refuses it, in eval mode too."""
    check(lambda torch: getattr(torch.nn.functional, name)(torch.ones(2, 3, 4), float("nan"),
                                                           training))
    check(lambda torch: torch.nn.Dropout(float("nan")).train(training)(torch.ones(0)))


def test_dropout_input_dim_errors():
    check(lambda torch: torch.nn.functional.dropout1d(torch.ones(2, 3, 4, 5), 0.5))
    check(lambda torch: torch.nn.functional.feature_alpha_dropout(torch.ones(3), 0.5, True))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torchlike.nn.functional.dropout2d(torchlike.ones(2, 3), 0.5)
        torchlike.nn.functional.dropout2d(torchlike.ones(2, 3, 4), 0.5)
        torchlike.nn.functional.dropout3d(torchlike.ones(2, 3, 4), 0.5)
    msgs = [str(x.message) for x in w]
    assert any("Received a 2-D input to dropout2d" in m for m in msgs)
    assert any("Received a 3D input to dropout2d" in m for m in msgs)
    assert any("Received a 3-D input to dropout3d" in m for m in msgs)


def test_dropout_p1_zeros_and_grad():
    def f(torch):
        x = torch.randn(3, 4).requires_grad_(True) if False else \
            torch.tensor(X1).requires_grad_(True)
        y = torch.nn.functional.dropout(x, 1.0)
        y.sum().backward()
        return y, x.grad, type(y.grad_fn).__name__
    check(f)


def test_dropout_statistics():
    torchlike.manual_seed(0)
    x = torchlike.ones(200, 500)
    y = torchlike.nn.functional.dropout(x, 0.3).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    # module: train vs eval
    m = torchlike.nn.Dropout(0.5)
    assert abs((m(x).numpy() != 0).mean() - 0.5) < 0.01
    m.eval()
    assert m(x) is x
    # gradient is the same mask, scaled
    xr = torchlike.ones(100, 100, requires_grad=True)
    yr = torchlike.nn.functional.dropout(xr, 0.4)
    yr.sum().backward()
    np.testing.assert_allclose(xr.grad.numpy(), yr.detach().numpy())
    assert type(yr.grad_fn).__name__ == "MulBackward0"


@pytest.mark.parametrize("name,shape,dims", [
    ("dropout1d", (50, 40, 6), (2,)), ("dropout2d", (50, 40, 3, 4), (2, 3)),
    ("dropout3d", (50, 40, 2, 3, 2), (2, 3, 4)), ("dropout1d", (40, 6), (1,)),
    ("dropout3d", (40, 2, 3, 2), (1, 2, 3)),
])
def test_feature_dropout_whole_channels(name, shape, dims):
    torchlike.manual_seed(1)
    y = getattr(torchlike.nn.functional, name)(torchlike.ones(*shape), 0.4).numpy()
    assert y.shape == shape
    lo, hi = y.min(axis=dims), y.max(axis=dims)
    np.testing.assert_array_equal(lo, hi)  # channels dropped or kept whole
    assert abs((lo != 0).mean() - 0.6) < 0.05
    np.testing.assert_allclose(np.unique(y), [0, 1 / 0.6], rtol=1e-6)


def test_alpha_dropout_statistics():
    torchlike.manual_seed(2)
    x = torchlike.randn(400, 500)
    y = torchlike.nn.functional.alpha_dropout(x, 0.2, True)
    ya = y.numpy()
    assert abs(ya.mean()) < 0.02 and abs(ya.std() - 1) < 0.02
    # dropped elements take one value: the SELU saturation, affinely transformed
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha ** 2 * 0.2 + 1) * 0.8)
    dropped = -alpha * a + alpha * a * 0.2
    assert abs((np.isclose(ya, dropped, atol=1e-6)).mean() - 0.2) < 0.01
    m = torchlike.nn.AlphaDropout(0.2)
    m.eval()
    assert m(x) is x
    y2 = torchlike.nn.functional.feature_alpha_dropout(torchlike.randn(300, 200, 4), 0.3, True)
    v = y2.numpy()
    col_dropped = np.all(np.isclose(v, v[:, :, :1]), axis=2)
    assert abs(col_dropped.mean() - 0.3) < 0.02


def test_dropout_inplace():
    torchlike.manual_seed(3)
    x = torchlike.ones(50, 60)
    y = torchlike.nn.functional.dropout(x, 0.5, inplace=True)
    assert y is x and abs((x.numpy() == 0).mean() - 0.5) < 0.03
    # in place on a leaf that requires grad: PyTorch's error
    check(lambda torch: torch.nn.functional.dropout(
        torch.ones(3, requires_grad=True), 0.5, inplace=True))
    # in place on a non-leaf records the mask
    a = torchlike.ones(40, 40, requires_grad=True)
    b = a * 1
    torchlike.nn.Dropout(0.5, inplace=True)(b)
    b.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.detach().numpy())


def test_dropout_module_check_module_eval():
    for expr in ["Dropout(0.3)", "Dropout2d(0.3)", "AlphaDropout(0.3)", "FeatureAlphaDropout()"]:
        check_module(lambda nn: eval("nn." + expr), [X2], train=False)


# ---- embedding --------------------------------------------------------------------------------

IDX = np.array([[1, 2, 4, 5], [4, 3, 2, 9]], dtype=np.int64)
IDX_REP = np.array([[0, 2, 0, 5], [2, 2, 7, 9]], dtype=np.int64)


@pytest.mark.parametrize("kw", [
    {}, {"padding_idx": 2}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
    {"padding_idx": 0, "scale_grad_by_freq": True},
])
@pytest.mark.parametrize("idx", [IDX, IDX_REP, IDX_REP[0]])
def test_embedding_module(kw, idx):
    check_module(lambda nn: nn.Embedding(10, 3, **kw), [idx])


def test_embedding_max_norm_renorm_in_place():
    def f(torch):
        m = torch.nn.Embedding(10, 3, max_norm=1.0)
        with torch.no_grad():
            m.weight.copy_(torch.tensor(randn(10, 3, seed=4) * 2))
        out = m(torch.tensor(IDX_REP))
        out.sum().backward()
        m2 = torch.nn.Embedding(10, 3, max_norm=0.5, norm_type=1.0)
        with torch.no_grad():
            m2.weight.copy_(torch.tensor(randn(10, 3, seed=5)))
        out2 = m2(torch.tensor(IDX))
        return out, m.weight, m.weight.grad, out2, m2.weight
    check(f, rtol=1e-5, atol=1e-6)


def test_embedding_padding_row_zero_and_init_stats():
    m = torchlike.nn.Embedding(1000, 16, padding_idx=3)
    w = m.weight.detach().numpy()
    assert (w[3] == 0).all()
    rest = np.delete(w, 3, axis=0)
    assert abs(rest.mean()) < 0.02 and abs(rest.std() - 1) < 0.02


def test_embedding_from_pretrained():
    def f(torch):
        w = torch.tensor(randn(5, 3, seed=8))
        a = torch.nn.Embedding.from_pretrained(w)
        b = torch.nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
        out = b(torch.tensor([[1, 2], [3, 1]]))
        out.sum().backward()
        c = torch.nn.EmbeddingBag.from_pretrained(w, mode="sum")
        return (a.weight.requires_grad, b.weight.requires_grad, a(torch.tensor([0, 4])),
                out, b.weight.grad, c.weight.requires_grad,
                c(torch.tensor([[0, 1], [2, 3]])), repr(a), repr(b))
    check(f)


def test_functional_embedding():
    def f(torch):
        w = torch.tensor(randn(10, 3, seed=9)).requires_grad_(True)
        out = torch.nn.functional.embedding(torch.tensor(IDX_REP), w, padding_idx=2)
        (out * torch.tensor(randn(2, 4, 3, seed=1))).sum().backward()
        return out, w.grad, type(out.grad_fn).__name__
    check(f)


BAG_INPUT = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0, 7], dtype=np.int64)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", [
    {"offsets": [0, 4]}, {"offsets": [0, 3, 3, 8]}, {"offsets": [0, 2, 10]},
    {"offsets": [0, 4, 10], "include_last_offset": True},
    {"offsets": [0, 4, 4, 10], "include_last_offset": True},
    {"offsets": [0, 3, 7], "padding_idx": 2}, {"two_d": True}, {"two_d": True, "padding_idx": 4},
])
def test_embedding_bag(mode, case):
    def f(torch):
        w = torch.tensor(randn(10, 3, seed=9)).requires_grad_(True)
        if case.get("two_d"):
            inp, offsets = torch.tensor(BAG_INPUT.reshape(2, 5)), None
        else:
            inp, offsets = torch.tensor(BAG_INPUT), torch.tensor(case["offsets"])
        out = torch.nn.functional.embedding_bag(
            inp, w, offsets, mode=mode, include_last_offset=case.get("include_last_offset", False),
            padding_idx=case.get("padding_idx"))
        (out * torch.tensor(randn(*out.shape, seed=2))).sum().backward()
        return out, w.grad
    check(f, rtol=1e-5, atol=1e-6)


def test_embedding_bag_per_sample_weights_and_module():
    def f(torch):
        w = torch.tensor(randn(10, 3, seed=9)).requires_grad_(True)
        psw = torch.tensor(randn(10, seed=3)).requires_grad_(True)
        out = torch.nn.functional.embedding_bag(torch.tensor(BAG_INPUT), w,
                                                torch.tensor([0, 4, 6]), mode="sum",
                                                per_sample_weights=psw)
        (out * torch.tensor(randn(*out.shape, seed=2))).sum().backward()
        return out, w.grad, psw.grad
    check(f, rtol=1e-5, atol=1e-6)
    for kw in [{}, {"mode": "sum"}, {"mode": "max"}, {"padding_idx": 2}]:
        check_module(lambda nn: nn.EmbeddingBag(10, 3, **kw), [IDX_REP])


@pytest.mark.parametrize("expr", [
    "F.embedding_bag(torch.tensor([[1, 2]]), w, torch.tensor([0]))",
    "F.embedding_bag(torch.tensor([1, 2]), w)",
    "F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([[0]]))",
    "F.embedding_bag(torch.tensor([[[1]]]), w)",
    "F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), mode='min')",
    "F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), mode='max', "
    "scale_grad_by_freq=True)",
    "F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), mode='mean', "
    "per_sample_weights=torch.ones(2))",
    "F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), per_sample_weights=torch.ones(3))",
    "F.embedding_bag(torch.tensor([1, 2]), torch.zeros(3), torch.tensor([0]))",
    "F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([1]))",
    "F.embedding_bag(torch.tensor([1, 12]), w, torch.tensor([0]))",
])
def test_embedding_bag_errors(expr):
    check(lambda torch: eval(expr, {"torch": torch, "F": torch.nn.functional,
                                    "w": torch.zeros(10, 3)}))


# ---- clip_grad --------------------------------------------------------------------------------

def _params(torch):
    ps = []
    for i, shape in enumerate([(3, 4), (5,), (2, 2, 2)]):
        p = torch.nn.Parameter(torch.tensor(randn(*shape, seed=20 + i)))
        p.grad = torch.tensor(randn(*shape, seed=30 + i) * 3)
        ps.append(p)
    ps.append(torch.nn.Parameter(torch.zeros(2)))  # no grad
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf"), "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm(norm_type, max_norm, foreach):
    def f(torch):
        ps = _params(torch)
        nt = float(norm_type) if norm_type == "inf" else norm_type
        total = torch.nn.utils.clip_grad_norm_(ps, max_norm, nt, foreach=foreach)
        return total, [p.grad for p in ps]
    check(f, rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_single_tensor_generator_and_errors():
    def f(torch):
        p = torch.nn.Parameter(torch.tensor(randn(4, seed=1)))
        p.grad = torch.tensor([3.0, 4.0, 0.0, 0.0])
        t = torch.nn.utils.clip_grad_norm_(p, 1.0)
        m = torch.nn.Linear(3, 2) if hasattr(torch.nn, "Linear") and False else None
        return t, p.grad, torch.nn.utils.clip_grad_norm_([], 1.0)
    check(f)

    def g(torch):
        p = torch.nn.Parameter(torch.ones(2))
        p.grad = torch.tensor([float("nan"), 1.0])
        return torch.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    check(g)

    def h(torch):
        p = torch.nn.Parameter(torch.ones(2))
        p.grad = torch.tensor([float("inf"), 1.0])
        t = torch.nn.utils.clip_grad_norm_([p], 1.0)
        return t, p.grad
    check(h)


def test_clip_grad_value():
    def f(torch):
        ps = _params(torch)
        r = torch.nn.utils.clip_grad_value_(ps, 0.7)
        r2 = torch.nn.utils.clip_grad_value_(ps[0], 0.1, foreach=True)
        return r, r2, [p.grad for p in ps]
    check(f)


def test_clip_grad_after_backward_on_module():
    def f(torch):
        m = torch.nn.LayerNorm(4)
        with torch.no_grad():
            m.weight.copy_(torch.tensor(randn(4, seed=3)))
        out = m(torch.tensor(randn(5, 4, seed=4)) * 10)
        (out * torch.tensor(randn(5, 4, seed=5)) * 10).sum().backward()
        total = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        return total, [p.grad for p in m.parameters()]
    check(f, rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_deprecated_alias():
    with pytest.warns(FutureWarning):
        p = torchlike.nn.Parameter(torchlike.ones(2))
        p.grad = torchlike.ones(2)
        torchlike.nn.utils.clip_grad_norm([p], 1.0)


# ---- OpInfo sweep regressions ------------------------------------------------------------------

def test_local_response_norm_integer_input():
    x = np.random.RandomState(0).randint(-9, 9, size=(2, 5, 4)).astype(np.int64)
    check(lambda t: t.nn.functional.local_response_norm(t.tensor(x), 3))


def test_batch_norm_empty_input_returns_before_shape_checks():
    def body(t):
        x = t.zeros(0, dtype=t.float64, requires_grad=True)
        out = t.nn.functional.batch_norm(x, t.zeros(0, dtype=t.float64),
                                         t.ones(0, dtype=t.float64), training=True)
        return out, t.autograd.grad(out.sum(), x)[0]
    check(body)
