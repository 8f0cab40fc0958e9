"""torch.nn losses (functional and module forms) against real PyTorch: values, gradients w.r.t.
input (and target where PyTorch differentiates it), dtypes, grad_fn names, warnings, errors and
reprs."""
import warnings

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import check, same_repr

R = np.random.RandomState(0)


def f32(*s):
    return R.randn(*s).astype(np.float32)


def f64(*s):
    return R.randn(*s)


def prob(*s):
    return R.uniform(0.05, 0.95, s).astype(np.float32)


def idx(hi, *s):
    return R.randint(0, hi, s).astype(np.int64)


def sign(*s):
    return np.where(R.rand(*s) > 0.5, 1.0, -1.0).astype(np.float32)


def _conv(lib, v):
    if isinstance(v, np.ndarray):
        return lib.tensor(v.copy())
    if isinstance(v, dict):
        return {k: _conv(lib, x) for k, x in v.items()}
    return v


def _run_loss(lib, call, args, kwargs, grads):
    ts = [_conv(lib, a) for a in args]
    for i in grads:
        ts[i].requires_grad_(True)
    out = call(lib, ts, _conv(lib, kwargs))
    res = [out]
    if grads:
        (out.sum() if out.dim() else out).backward()
        res.append([ts[i].grad for i in grads])
        res.append(type(out.grad_fn).__name__)
    return res


def check_functional(fname, args, kwargs=None, grads=(0,), **tol):
    kwargs = kwargs or {}
    check(lambda lib: _run_loss(lib, lambda lib, ts, kw: getattr(lib.nn.functional, fname)(*ts, **kw),
                                args, kwargs, grads), **tol)


def check_module(cls, args, ctor=None, grads=(0,), **tol):
    ctor = ctor or {}
    check(lambda lib: _run_loss(lib, lambda lib, ts, kw: getattr(lib.nn, cls)(**kw)(*ts),
                                args, ctor, grads), **tol)


RED = ["mean", "sum", "none"]

# (functional name, module name, args, functional kwargs (also the module's), grad indices)
CASES = []


def case(fname, cls, args, kw=None, grads=(0,), module_kw=True):
    CASES.append((fname, cls, args, kw or {}, grads, module_kw))


for r in RED:
    case("l1_loss", "L1Loss", [f32(3, 4), f32(3, 4)], {"reduction": r}, (0, 1))
    case("mse_loss", "MSELoss", [f32(3, 4), f32(3, 4)], {"reduction": r}, (0, 1))
    case("smooth_l1_loss", "SmoothL1Loss", [f32(3, 4) * 2, f32(3, 4)], {"reduction": r}, (0, 1))
    case("smooth_l1_loss", "SmoothL1Loss", [f32(3, 4), f32(3, 4)],
         {"reduction": r, "beta": 0.5}, (0, 1))
    case("smooth_l1_loss", "SmoothL1Loss", [f32(3, 4), f32(3, 4)],
         {"reduction": r, "beta": 0.0}, (0, 1))
    case("huber_loss", "HuberLoss", [f32(3, 4) * 2, f32(3, 4)], {"reduction": r}, (0, 1))
    case("huber_loss", "HuberLoss", [f32(3, 4) * 2, f32(3, 4)],
         {"reduction": r, "delta": 0.3}, (0, 1))
    case("l1_loss", None, [f32(3, 4), f32(3, 4)], {"reduction": r, "weight": prob(3, 4)}, (0, 1))
    case("mse_loss", None, [f32(3, 4), f32(3, 4)], {"reduction": r, "weight": prob(3, 4)}, (0,))
    case("huber_loss", None, [f32(3, 4), f32(3, 4)], {"reduction": r, "weight": prob(3, 4)}, (0,))
    # classification
    case("nll_loss", "NLLLoss", [f32(5, 4), idx(4, 5)], {"reduction": r})
    case("nll_loss", "NLLLoss", [f32(5, 4), idx(4, 5)], {"reduction": r, "weight": prob(4)})
    case("nll_loss", "NLLLoss", [f32(6, 4), np.array([0, 1, -100, 3, 2, -100])],
         {"reduction": r, "weight": prob(4)})
    case("nll_loss", "NLLLoss", [f32(6, 4), np.array([0, 1, 2, 3, 2, 1])],
         {"reduction": r, "ignore_index": 2})
    case("nll_loss", "NLLLoss", [f32(2, 3, 4), idx(3, 2, 4)], {"reduction": r})
    case("nll_loss", "NLLLoss", [f32(2, 3, 4, 5), idx(3, 2, 4, 5)],
         {"reduction": r, "weight": prob(3)})
    case("nll_loss", "NLLLoss", [f32(2, 3, 2, 2, 2), idx(3, 2, 2, 2, 2)], {"reduction": r})
    case("nll_loss", "NLLLoss", [f32(4), np.array(2)], {"reduction": r})
    case("cross_entropy", "CrossEntropyLoss", [f32(5, 4), idx(4, 5)], {"reduction": r})
    case("cross_entropy", "CrossEntropyLoss", [f32(5, 4), idx(4, 5)],
         {"reduction": r, "weight": prob(4)})
    case("cross_entropy", "CrossEntropyLoss", [f32(5, 4), np.array([0, -100, 3, 1, -100])],
         {"reduction": r, "weight": prob(4), "label_smoothing": 0.2})
    case("cross_entropy", "CrossEntropyLoss", [f32(5, 4), np.array([0, -100, 3, 1, -100])],
         {"reduction": r, "label_smoothing": 0.1})
    case("cross_entropy", "CrossEntropyLoss", [f32(5, 4), np.array([0, 1, 3, 1, 2])],
         {"reduction": r, "ignore_index": 1})
    case("cross_entropy", "CrossEntropyLoss", [f32(2, 3, 4, 5), idx(3, 2, 4, 5)],
         {"reduction": r, "weight": prob(3), "label_smoothing": 0.3})
    case("cross_entropy", "CrossEntropyLoss", [f32(2, 3, 4), idx(3, 2, 4)], {"reduction": r})
    case("cross_entropy", "CrossEntropyLoss", [f32(4), np.array(1)],
         {"reduction": r, "label_smoothing": 0.25})
    case("cross_entropy", "CrossEntropyLoss", [f32(5, 4), prob(5, 4)], {"reduction": r}, (0, 1))
    case("cross_entropy", "CrossEntropyLoss", [f32(5, 4), prob(5, 4)],
         {"reduction": r, "weight": prob(4), "label_smoothing": 0.2}, (0, 1))
    case("cross_entropy", "CrossEntropyLoss", [f32(2, 3, 4), prob(2, 3, 4)],
         {"reduction": r}, (0, 1))
    case("cross_entropy", "CrossEntropyLoss", [f32(4), prob(4)], {"reduction": r}, (0, 1))
    case("binary_cross_entropy", "BCELoss", [prob(3, 4), prob(3, 4)], {"reduction": r}, (0, 1))
    case("binary_cross_entropy", "BCELoss", [prob(3, 4), prob(3, 4)],
         {"reduction": r, "weight": prob(4)}, (0, 1))
    case("binary_cross_entropy", "BCELoss",
         [np.array([0.0, 1.0, 0.3, 1.0], np.float32), np.array([1.0, 0.0, 0.5, 1.0], np.float32)],
         {"reduction": r}, (0, 1))
    case("binary_cross_entropy_with_logits", "BCEWithLogitsLoss", [f32(3, 4), prob(3, 4)],
         {"reduction": r}, (0, 1))
    case("binary_cross_entropy_with_logits", "BCEWithLogitsLoss", [f32(3, 4) * 20, prob(3, 4)],
         {"reduction": r, "weight": prob(3, 1), "pos_weight": prob(4) * 3}, (0, 1))
    case("kl_div", "KLDivLoss", [f32(3, 4), prob(3, 4)], {"reduction": r}, (0, 1))
    case("kl_div", "KLDivLoss", [f32(3, 4), f32(3, 4)], {"reduction": r, "log_target": True},
         (0, 1))
    case("soft_margin_loss", "SoftMarginLoss", [f32(3, 4), sign(3, 4)], {"reduction": r})
    case("multilabel_soft_margin_loss", "MultiLabelSoftMarginLoss", [f32(3, 4), prob(3, 4)],
         {"reduction": r}, (0, 1))
    case("multilabel_soft_margin_loss", "MultiLabelSoftMarginLoss", [f32(3, 4), prob(3, 4)],
         {"reduction": r, "weight": prob(4)}, (0, 1))
    case("multilabel_margin_loss", "MultiLabelMarginLoss",
         [f32(3, 4), np.array([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 2, 0]])], {"reduction": r})
    case("multilabel_margin_loss", "MultiLabelMarginLoss", [f32(4), np.array([2, 2, -1, 0])],
         {"reduction": r})
    case("multi_margin_loss", "MultiMarginLoss", [f32(5, 4), idx(4, 5)], {"reduction": r})
    case("multi_margin_loss", "MultiMarginLoss", [f32(5, 4), idx(4, 5)],
         {"reduction": r, "p": 2, "margin": 0.7, "weight": prob(4)})
    case("multi_margin_loss", "MultiMarginLoss", [f32(4), np.array(3)], {"reduction": r})
    case("hinge_embedding_loss", "HingeEmbeddingLoss", [f32(3, 4), sign(3, 4)],
         {"reduction": r})
    case("hinge_embedding_loss", "HingeEmbeddingLoss", [f32(3, 4), sign(3, 4)],
         {"reduction": r, "margin": 0.3})
    case("cosine_embedding_loss", "CosineEmbeddingLoss", [f32(5, 4), f32(5, 4), sign(5)],
         {"reduction": r}, (0, 1))
    case("cosine_embedding_loss", "CosineEmbeddingLoss", [f32(5, 4), f32(5, 4), sign(5)],
         {"reduction": r, "margin": 0.2}, (0, 1))
    case("cosine_embedding_loss", "CosineEmbeddingLoss", [f32(4), f32(4),
         np.array(-1.0, np.float32)], {"reduction": r, "margin": -0.5}, (0, 1))
    case("margin_ranking_loss", "MarginRankingLoss", [f32(6), f32(6), sign(6)],
         {"reduction": r, "margin": 0.3}, (0, 1))
    case("triplet_margin_loss", "TripletMarginLoss", [f32(5, 4), f32(5, 4), f32(5, 4)],
         {"reduction": r}, (0, 1, 2))
    case("triplet_margin_loss", "TripletMarginLoss", [f32(5, 4), f32(5, 4), f32(5, 4)],
         {"reduction": r, "p": 1, "swap": True, "margin": 2.0}, (0, 1, 2))
    case("triplet_margin_loss", "TripletMarginLoss", [f32(5, 4), f32(5, 4), f32(5, 4)],
         {"reduction": r, "p": 3, "eps": 1e-3}, (0, 1, 2))
    case("triplet_margin_with_distance_loss", "TripletMarginWithDistanceLoss",
         [f32(5, 4), f32(5, 4), f32(5, 4)], {"reduction": r, "swap": True, "margin": 1.5},
         (0, 1, 2))
    case("poisson_nll_loss", "PoissonNLLLoss", [f32(3, 4), prob(3, 4) * 4], {"reduction": r},
         (0, 1))
    case("poisson_nll_loss", "PoissonNLLLoss", [prob(3, 4) * 3, prob(3, 4) * 4],
         {"reduction": r, "log_input": False, "full": True, "eps": 1e-3}, (0, 1))
    case("gaussian_nll_loss", None, [f32(3, 4), f32(3, 4), prob(3, 4)], {"reduction": r},
         (0, 1, 2))
    case("gaussian_nll_loss", None, [f32(3, 4), f32(3, 4), prob(3) * 1e-4],
         {"reduction": r, "full": True, "eps": 1e-3}, (0, 1, 2))
    case("gaussian_nll_loss", None, [f32(3, 4), f32(3, 4), prob(1, 4)],
         {"reduction": r, "full": True}, (0, 1, 2))
    case("gaussian_nll_loss", None, [f32(3, 4), f32(3, 4), 0.7], {"reduction": r}, (0, 1))

# float64 variants
case("mse_loss", "MSELoss", [f64(3, 4), f64(3, 4)], {}, (0, 1))
case("cross_entropy", "CrossEntropyLoss", [f64(5, 4), idx(4, 5)], {"label_smoothing": 0.1})
case("binary_cross_entropy_with_logits", "BCEWithLogitsLoss", [f64(3, 4), f64(3, 4) ** 2 / 9],
     {}, (0, 1))
case("kl_div", "KLDivLoss", [f32(3, 4), prob(3, 4)], {"reduction": "batchmean"}, (0, 1))
case("kl_div", "KLDivLoss", [f32(3, 4), f32(3, 4)], {"reduction": "batchmean", "log_target": True},
     (0, 1))
case("nll_loss", "NLLLoss", [f32(5, 4), idx(4, 5).astype(np.uint8)], {})


def _ids():
    return [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


@pytest.mark.parametrize("fname,cls,args,kw,grads,module_kw", CASES, ids=_ids())
def test_functional(fname, cls, args, kw, grads, module_kw):
    check_functional(fname, args, kw, grads)


@pytest.mark.parametrize("fname,cls,args,kw,grads,module_kw",
                         [c for c in CASES if c[1] is not None],
                         ids=[i for i, c in zip(_ids(), CASES) if c[1] is not None])
def test_module(fname, cls, args, kw, grads, module_kw):
    check_module(cls, args, kw, grads)


def test_gaussian_module():
    check_module("GaussianNLLLoss", [f32(3, 4), f32(3, 4), prob(3, 1)], {"full": True}, (0, 1, 2))
    check_module("GaussianNLLLoss", [f32(3, 4), f32(3, 4), prob(3)], {"reduction": "sum"}, (0,))


# ---- the seed: NLLLoss / CrossEntropyLoss with class weights ----------------------------------

def _seed_setup(lib):
    a = lib.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=lib.float32)
    target = lib.tensor([0, 1, 2])
    return a, target, lib.nn.functional.log_softmax(a, 1) if hasattr(
        lib.nn.functional, "log_softmax") and lib.nn.functional.log_softmax is not None \
        else a - a.exp().sum(1, keepdim=True).log()


def test_seed_nll_weights():
    def none(lib):
        a, target, log_prob = _seed_setup(lib)
        crit = lib.nn.NLLLoss(weight=lib.tensor([0.2, 0.4, 1], dtype=lib.float32),
                              reduction="none")
        return crit(log_prob, target)
    same_repr(none)
    e, _ = check(none)
    assert repr(e) == "tensor([0.4815, 0.5630, 0.4076])"

    def mean(lib):
        a, target, log_prob = _seed_setup(lib)
        loss = lib.nn.NLLLoss(weight=lib.tensor([0.2, 0.4, 1]), reduction="none")(log_prob, target)
        c2 = lib.nn.NLLLoss(weight=lib.tensor([0.2, 0.4, 1], dtype=lib.float32))
        return [(loss / (0.2 + .4 + 1)).sum(), c2(log_prob, target)]
    same_repr(mean)
    e, _ = check(mean)
    assert repr(e[1]) == "tensor(0.9076)"


def test_seed_cross_entropy_weights():
    def f(lib):
        a, target, _ = _seed_setup(lib)
        crit = lib.nn.CrossEntropyLoss(weight=lib.tensor([0.2, 0.4, 1]), reduction="none")
        c2 = lib.nn.CrossEntropyLoss(weight=lib.tensor([0.2, 0.4, 1], dtype=lib.float32))
        return [crit(a, target), c2(a, target)]
    same_repr(f)
    check(f)


# ---- reprs, attributes, buffers ---------------------------------------------------------------

MODULES = ["L1Loss", "NLLLoss", "PoissonNLLLoss", "GaussianNLLLoss", "KLDivLoss", "MSELoss",
           "BCELoss", "BCEWithLogitsLoss", "HingeEmbeddingLoss", "MultiLabelMarginLoss",
           "SmoothL1Loss", "HuberLoss", "SoftMarginLoss", "CrossEntropyLoss",
           "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss", "MarginRankingLoss",
           "MultiMarginLoss", "TripletMarginLoss", "CTCLoss"]


@pytest.mark.parametrize("name", MODULES)
def test_repr_and_attrs(name):
    same_repr(lambda lib: getattr(lib.nn, name)())
    check(lambda lib: {k: v for k, v in vars(getattr(lib.nn, name)()).items()
                       if not k.startswith("_") and k != "training"})


def test_weighted_buffers():
    def f(lib):
        m = lib.nn.CrossEntropyLoss(weight=lib.tensor([1.0, 2.0]), label_smoothing=0.1,
                                    ignore_index=3, reduction="sum")
        b = lib.nn.BCEWithLogitsLoss(pos_weight=lib.tensor([2.0]))
        return [repr(m), m.reduction, m.ignore_index, m.label_smoothing,
                list(m.state_dict().keys()), m.weight, list(b.state_dict().keys()),
                [n for n, _ in lib.nn.NLLLoss().named_buffers()]]
    check(f)


def test_all_exported():
    import torchlike.nn.functional as TF
    for name in ["l1_loss", "mse_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
                 "binary_cross_entropy_with_logits", "kl_div", "smooth_l1_loss", "huber_loss",
                 "soft_margin_loss", "multilabel_soft_margin_loss", "multilabel_margin_loss",
                 "multi_margin_loss", "hinge_embedding_loss", "cosine_embedding_loss",
                 "margin_ranking_loss", "triplet_margin_loss",
                 "triplet_margin_with_distance_loss", "poisson_nll_loss", "gaussian_nll_loss",
                 "ctc_loss"]:
        assert callable(getattr(TF, name)), name
    for name in MODULES + ["TripletMarginWithDistanceLoss"]:
        assert isinstance(getattr(torchlike.nn, name), type), name


# ---- warnings ---------------------------------------------------------------------------------

def _warnings(fn, lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn(lib)
    return [out, [(x.category.__name__, str(x.message)) for x in w]]


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.mse_loss(lib.ones(3, 4), lib.ones(4)),
    lambda lib: lib.nn.functional.l1_loss(lib.ones(3, 1), lib.ones(4)),
    lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(3, 4), lib.ones(1, 4)),
    lambda lib: lib.nn.functional.huber_loss(lib.ones(2, 4), lib.ones(4)),
    lambda lib: lib.nn.MSELoss()(lib.ones(2, 3), lib.zeros(3)),
    lambda lib: lib.nn.functional.kl_div(lib.zeros(2, 3), lib.ones(2, 3) / 3),
    lambda lib: lib.nn.KLDivLoss()(lib.zeros(2, 3), lib.ones(2, 3) / 3),
    lambda lib: lib.nn.functional.kl_div(lib.zeros(2, 3), lib.ones(2, 3) / 3, reduce=False),
    lambda lib: lib.nn.functional.mse_loss(lib.ones(3), lib.zeros(3), size_average=False),
    lambda lib: lib.nn.functional.nll_loss(lib.zeros(2, 3), lib.tensor([0, 1]), reduce=False),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 1]),
                                                size_average=False, reduce=True),
    lambda lib: lib.nn.MSELoss(size_average=False).reduction,
    lambda lib: lib.nn.NLLLoss(reduce=False).reduction,
    lambda lib: lib.nn.L1Loss(size_average=True, reduce=False).reduction,
    lambda lib: lib.nn.functional.mse_loss(lib.ones(3), lib.zeros(3), reduction="elementwise_mean"),
])
def test_warnings(fn):
    check(lambda lib: _warnings(fn, lib))


# ---- errors -----------------------------------------------------------------------------------

F_ERR = [
    ("nll_loss", [f32(3, 4), np.array([0, 1, 5])], {}),
    ("nll_loss", [f32(3, 4), np.array([0, -1, 2])], {}),
    ("cross_entropy", [f32(3, 4), np.array([0, 1, 4])], {}),
    ("cross_entropy", [f32(3, 4), np.array([0, 1, 7])], {"ignore_index": 7}),
    ("nll_loss", [f32(3, 4), np.array([0, 1])], {}),
    ("nll_loss", [f32(3, 4), np.array([0.0, 1.0, 2.0], np.float32)], {}),
    ("nll_loss", [f32(3, 4), np.array([0, 1, 2], np.int32)], {}),
    ("nll_loss", [f32(3, 4), np.array([0, 1, 2])], {"weight": prob(3)}),
    ("nll_loss", [f32(3, 4), np.array([0, 1, 2])], {"reduction": "bad"}),
    ("nll_loss", [f64(3, 4), np.array([0, 1, 2])], {"weight": prob(4)}),
    ("nll_loss", [f32(2, 3, 4, 5), idx(3, 2, 4, 4)], {}),
    ("nll_loss", [f32(2, 3, 4), idx(3, 2, 5)], {}),
    ("nll_loss", [f32(3, 4), idx(3, 3, 2)], {}),
    ("nll_loss", [np.array(1.0, np.float32), np.array(0)], {}),
    ("cross_entropy", [f32(3, 4), idx(3, 3, 5)], {}),
    ("cross_entropy", [f32(3, 4), np.array([0, 1, 2])], {"label_smoothing": 1.5}),
    ("cross_entropy", [f32(3, 4), np.array([0, 1, 2])], {"reduction": "foo"}),
    ("cross_entropy", [f32(3, 4), idx(3, 3, 4)], {}),
    ("cross_entropy", [f32(3, 4), prob(3, 4)], {"ignore_index": 1}),
    ("binary_cross_entropy", [np.array([0.0, 1.5], np.float32), prob(2)], {}),
    ("binary_cross_entropy", [prob(2), np.array([0.0, 1.5], np.float32)], {}),
    ("binary_cross_entropy", [prob(3), prob(2)], {}),
    ("binary_cross_entropy", [prob(3), prob(3).astype(np.float64)], {}),
    ("binary_cross_entropy", [prob(3), prob(3)], {"reduction": "avg"}),
    ("binary_cross_entropy_with_logits", [f32(3), prob(2)], {}),
    ("binary_cross_entropy_with_logits", [f32(3, 2), prob(3, 2)], {"pos_weight": prob(3)}),
    ("kl_div", [f32(2, 3), prob(2, 3)], {"reduction": "foo"}),
    ("mse_loss", [f32(3, 4), f32(5)], {}),
    ("mse_loss", [f32(3, 4), f32(3, 4)], {"reduction": "foo"}),
    ("mse_loss", [f32(3, 4), f32(3, 4)], {"weight": prob(4)}),
    ("l1_loss", [f32(3, 4), f32(3, 4)], {"weight": prob(3, 4), "reduction": "foo"}),
    ("smooth_l1_loss", [f32(3), f32(3)], {"beta": -1.0}),
    ("huber_loss", [f32(3), f32(3)], {"delta": 0.0}),
    ("soft_margin_loss", [f32(3), f32(2)], {}),
    ("multilabel_soft_margin_loss", [f32(2, 3), prob(2, 3)], {"reduction": "foo"}),
    ("multilabel_margin_loss", [f32(2, 3), np.array([[0, 1, 3], [2, -1, 0]])], {}),
    ("multilabel_margin_loss", [f32(2, 3), np.array([[0, 1], [2, -1]])], {}),
    ("multi_margin_loss", [f32(2, 3), np.array([0, 3])], {}),
    ("multi_margin_loss", [f32(2, 3), np.array([0])], {}),
    ("multi_margin_loss", [f32(2, 3), np.array([0, 1])], {"p": 3}),
    ("multi_margin_loss", [f32(2, 3), np.array([0, 1])], {"weight": prob(2)}),
    ("multi_margin_loss", [f32(2, 3), np.array([0, 1])], {"weight": prob(2, 3)}),
    ("cosine_embedding_loss", [f32(2, 3), f32(2, 3), sign(3)], {}),
    ("cosine_embedding_loss", [f32(2, 3), f32(2, 3), sign(2, 1)], {}),
    ("cosine_embedding_loss", [f32(3), f32(3), sign(1)], {}),
    ("margin_ranking_loss", [f32(3), f32(3), sign(1, 3)], {}),
    ("triplet_margin_loss", [f32(2, 3), f32(2, 3), f32(3)], {}),
    ("triplet_margin_loss", [f32(2, 3), f32(2, 3), f32(2, 3)], {"margin": 0.0}),
    ("triplet_margin_with_distance_loss", [f32(2, 3), f32(2, 3), f32(3)], {}),
    ("triplet_margin_with_distance_loss", [f32(2, 3), f32(2, 3), f32(2, 3)], {"reduction": "x"}),
    ("poisson_nll_loss", [f32(3), f32(3)], {"reduction": "foo"}),
    ("gaussian_nll_loss", [f32(2, 3), f32(2, 3), prob(3)], {}),
    ("gaussian_nll_loss", [f32(2, 3), f32(2, 3), -prob(2, 3)], {}),
    ("gaussian_nll_loss", [f32(2, 3), f32(2, 3), -1.0], {}),
    ("gaussian_nll_loss", [f32(2, 3), f32(2, 3), prob(2, 3)], {"reduction": "foo"}),
]


@pytest.mark.parametrize("fname,args,kw", F_ERR, ids=[f"{e[0]}-{i}" for i, e in enumerate(F_ERR)])
def test_errors(fname, args, kw):
    check(lambda lib: getattr(lib.nn.functional, fname)(*[_conv(lib, a) for a in args],
                                                        **_conv(lib, kw)))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.MultiMarginLoss(p=3),
    lambda lib: lib.nn.MultiMarginLoss(weight=lib.ones(2, 2)),
    lambda lib: lib.nn.TripletMarginLoss(margin=-1.0),
    lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=0),
    lambda lib: lib.nn.CrossEntropyLoss()(lib.zeros(2, 3), lib.tensor([0, 3])),
    lambda lib: lib.nn.BCELoss()(lib.tensor([2.0]), lib.tensor([1.0])),
])
def test_module_errors(fn):
    check(fn)


# ---- edge values ------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.nll_loss(lib.zeros(2, 4), lib.tensor([-100, -100])),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(2, 4), lib.tensor([-100, -100])),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(0, 4), lib.zeros(0, dtype=lib.long)),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(0, 4), lib.zeros(0, 4)),
    lambda lib: lib.nn.functional.mse_loss(lib.zeros(0), lib.zeros(0)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([0.0, 1.0]),
                                                       lib.tensor([1.0, 0.0])),
    lambda lib: lib.nn.functional.kl_div(lib.tensor(0.5), lib.tensor(0.3), reduction="batchmean"),
    lambda lib: lib.nn.functional.mse_loss(lib.tensor([1.0, 2.0]), lib.tensor([1, 3])),
    lambda lib: lib.nn.functional.mse_loss(lib.tensor([1.0, 2.0]),
                                           lib.tensor([1.0, 3.0], dtype=lib.float64)),
    lambda lib: lib.nn.functional.l1_loss(lib.tensor([1.0, 2.0], requires_grad=True),
                                          lib.tensor([1.0, 3.0])),
])
def test_edges(fn):
    check(fn)


def test_l1_grad_at_zero():
    def f(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        lib.nn.functional.l1_loss(x, lib.tensor([1.0, 0.0, 3.0])).backward()
        return x.grad
    check(f)


def test_triplet_custom_distance():
    data = (f32(4, 3), f32(4, 3), f32(4, 3))

    def f(lib):
        a, p, n = (lib.tensor(x.copy(), requires_grad=True) for x in data)
        dist = lambda x, y: 1.0 - lib.nn.functional.cosine_similarity(x, y)  # noqa: E731
        out = lib.nn.functional.triplet_margin_with_distance_loss(
            a, p, n, distance_function=dist, swap=True)
        out.backward()
        return [out, a.grad, p.grad, n.grad]
    if not hasattr(torchlike.nn.functional, "cosine_similarity"):
        pytest.skip("cosine_similarity not there yet")
    check(f)


# ---- CTC --------------------------------------------------------------------------------------

def _ctc(lib, targets, il, tl, T=12, N=3, C=5, **kw):
    rng = np.random.RandomState(1)
    x = lib.tensor(rng.randn(T, N, C).astype(np.float32), requires_grad=True)
    lp = x.log_softmax(2)
    out = lib.nn.functional.ctc_loss(lp, lib.tensor(targets), lib.tensor(il), lib.tensor(tl), **kw)
    out.sum().backward()
    return [out, x.grad]


@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"reduction": "none"},
                                {"blank": 4}, {"zero_infinity": True, "reduction": "none"}])
def test_ctc_padded(kw):
    tg = np.array([[1, 2, 2, 3], [3, 1, 0, 0], [2, 2, 2, 2]]) if kw.get("blank") != 4 else \
        np.array([[1, 2, 2, 3], [3, 1, 0, 0], [0, 0, 0, 0]])
    if kw.get("zero_infinity") is None and kw.get("blank") is None:
        tg = np.where(tg == 0, 1, tg)
    check(lambda lib: _ctc(lib, tg, np.array([12, 10, 6]), np.array([4, 2, 4]), **kw),
          rtol=1e-4, atol=1e-5)


def test_ctc_concatenated_and_module():
    tg = np.array([1, 2, 3, 4, 1, 1])
    check(lambda lib: _ctc(lib, tg, np.array([12, 12, 9]), np.array([3, 1, 2])),
          rtol=1e-4, atol=1e-5)
    same_repr(lambda lib: lib.nn.CTCLoss(blank=1, zero_infinity=True))


# ---- OpInfo sweep regressions ------------------------------------------------------------------

def _arr(*shape, seed=0, dtype=np.float32):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


def test_l1_loss_complex_is_real():
    a = (_arr(3, 4) + 1j * _arr(3, 4, seed=1)).astype(np.complex64)
    b = (_arr(3, 4, seed=2) + 1j * _arr(3, 4, seed=3)).astype(np.complex64)
    for red in ("mean", "sum", "none"):
        check(lambda t: t.nn.functional.l1_loss(t.tensor(a), t.tensor(b), reduction=red))


def test_triplet_and_pairwise_distance_dtypes():
    c = [(_arr(5, 4, seed=s) + 1j * _arr(5, 4, seed=s + 9)).astype(np.complex64)
         for s in range(3)]
    i = [np.random.RandomState(s).randint(-5, 5, size=(5, 4)).astype(np.int16) for s in range(3)]
    u = [np.random.RandomState(s).randint(0, 200, size=(5, 4)).astype(np.uint8)
         for s in range(3)]  # the integer difference wraps before the float promotion
    for xs in (c, i, u):
        check(lambda t: t.nn.functional.triplet_margin_loss(*[t.tensor(x) for x in xs]))
        check(lambda t: t.nn.functional.pairwise_distance(t.tensor(xs[0]), t.tensor(xs[1])))
    check(lambda t: t.nn.functional.triplet_margin_with_distance_loss(
        *[t.tensor(x) for x in i]))


def test_embedding_losses_give_target_no_grad():
    x = _arr(5, 3).astype(np.float64)
    y = np.array([1., -1, 1, -1, 1])

    def body(t, fn):
        a = t.tensor(x, requires_grad=True)
        tg = t.tensor(y, requires_grad=True)
        out = fn(t, a, tg)
        return t.autograd.grad(out, (a, tg), t.ones_like(out), allow_unused=True)
    for red in ("none", "mean"):
        check(lambda t: body(t, lambda t, a, tg: t.nn.functional.hinge_embedding_loss(
            a, tg[:, None], reduction=red)))
        check(lambda t: body(t, lambda t, a, tg: t.nn.functional.cosine_embedding_loss(
            a, a * 2 + 1, tg, reduction=red)))


def test_poisson_nll_broadcast_error_names_target_first():
    check(lambda t: t.nn.functional.poisson_nll_loss(t.tensor(_arr(5, 4)), t.tensor(_arr(5))))


def test_multi_margin_loss_float_target():
    check(lambda t: t.nn.functional.multi_margin_loss(t.tensor(_arr(5, 4)),
                                                      t.tensor(_arr(5))))
