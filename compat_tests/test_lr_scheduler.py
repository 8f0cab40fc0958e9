"""torch.optim.lr_scheduler against real PyTorch: lr (and momentum) sequences over 100 epochs,
state dicts, save/restore, closed forms, warnings on call order, errors."""
import warnings

import pytest
import torch as real_torch

import torchlike
from harness import assert_same, check


def _optimizer(lib, cls="SGD", **kw):
    p = lib.zeros(2, requires_grad=True)
    q = lib.zeros(2, requires_grad=True)
    kw = kw or dict(lr=0.1, momentum=0.9)
    return getattr(lib.optim, cls)([{"params": [p]}, {"params": [q], "lr": 0.05}], **kw)


CASES = {
    "LambdaLR": lambda L, o: L.LambdaLR(o, lambda e: 0.95 ** e),
    "LambdaLR-list": lambda L, o: L.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.9 ** e]),
    "MultiplicativeLR": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.97),
    "StepLR": lambda L, o: L.StepLR(o, 7, 0.5),
    "MultiStepLR": lambda L, o: L.MultiStepLR(o, [10, 30, 30, 80], 0.3),
    "ConstantLR": lambda L, o: L.ConstantLR(o, 0.25, 13),
    "LinearLR": lambda L, o: L.LinearLR(o, 0.1, 0.9, 37),
    "ExponentialLR": lambda L, o: L.ExponentialLR(o, 0.97),
    "PolynomialLR": lambda L, o: L.PolynomialLR(o, 60, 2.0),
    "CosineAnnealingLR": lambda L, o: L.CosineAnnealingLR(o, 23, 0.001),
    "CosineAnnealingWarmRestarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, 7, 2, 0.001),
    "CyclicLR": lambda L, o: L.CyclicLR(o, 0.01, 0.1, 9, 5, mode="triangular2"),
    "CyclicLR-exp": lambda L, o: L.CyclicLR(o, [0.01, 0.02], 0.1, 6, mode="exp_range",
                                            gamma=0.99),
    "CyclicLR-fn": lambda L, o: L.CyclicLR(o, 0.01, 0.1, 4, scale_fn=lambda x: 0.5 ** x,
                                           scale_mode="iterations", cycle_momentum=False),
    "OneCycleLR": lambda L, o: L.OneCycleLR(o, 0.2, total_steps=100),
    "OneCycleLR-3": lambda L, o: L.OneCycleLR(o, [0.2, 0.3], epochs=10, steps_per_epoch=10,
                                              three_phase=True, anneal_strategy="linear"),
    "ChainedScheduler": lambda L, o: L.ChainedScheduler([L.ExponentialLR(o, 0.97),
                                                         L.StepLR(o, 10, 0.5)]),
    "SequentialLR": lambda L, o: L.SequentialLR(
        o, [L.LinearLR(o, 0.1, total_iters=10), L.CosineAnnealingLR(o, 50)], [10]),
}


def _with_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [f"{w.category.__name__}: {w.message}" for w in caught]


def _sequence(lib, make, cls="SGD", opt_kw=None, epochs=100):
    opt = _optimizer(lib, cls, **(opt_kw or {}))

    def go():
        sched = make(lib.optim.lr_scheduler, opt)
        seq = []
        for _ in range(epochs):
            opt.step()
            sched.step()
            seq.append([sched.get_last_lr(), [g.get("momentum") for g in opt.param_groups],
                        [g.get("betas") for g in opt.param_groups],
                        getattr(sched, "last_epoch", None)])
        return seq, sched.state_dict()
    (seq, sd), warned = _with_warnings(go)
    sd.pop("lr_lambdas", None)
    return {"seq": seq, "state_dict": sd, "warnings": warned,
            "groups": [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]}


def _exact(a, b):
    """Sequences must be float-identical to torch's (same float math), not just close."""
    assert a == b


@pytest.mark.parametrize("name", list(CASES))
def test_lr_sequence_100_epochs(name):
    e = _sequence(real_torch, CASES[name])
    a = _sequence(torchlike, CASES[name])
    _exact(e["seq"], a["seq"])
    _exact(e["warnings"], a["warnings"])
    assert_same(e["groups"], a["groups"])
    assert_same(e["state_dict"], a["state_dict"])


@pytest.mark.parametrize("name", ["OneCycleLR", "CyclicLR"])
def test_cycle_betas_of_adam(name):
    e = _sequence(real_torch, CASES[name], "Adam", dict(lr=0.1))
    a = _sequence(torchlike, CASES[name], "Adam", dict(lr=0.1))
    _exact(e["seq"], a["seq"])


def _plateau(lib, **kw):
    opt = _optimizer(lib)

    def go():
        s = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        seq = []
        for i in range(100):
            s.step(1.0 / (1 + (i % 17)) if kw.get("mode") != "max" else (i % 13))
            seq.append([s.get_last_lr(), s.num_bad_epochs, s.cooldown_counter, s.best])
        return seq, s.state_dict()
    return _with_warnings(go)


@pytest.mark.parametrize("kw", [dict(patience=3, cooldown=2),
                                dict(mode="max", factor=0.5, threshold_mode="abs",
                                     threshold=0.5, min_lr=[0.01, 0.02], patience=1)])
def test_reduce_lr_on_plateau(kw):
    _exact(_plateau(real_torch, **kw), _plateau(torchlike, **kw))


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
                                  "ExponentialLR", "PolynomialLR", "CosineAnnealingLR",
                                  "CosineAnnealingWarmRestarts"])
def test_step_with_epoch_closed_form(name):
    def run(lib):
        opt = _optimizer(lib)

        def go():
            s = CASES[name](lib.optim.lr_scheduler, opt)
            out = []
            for epoch in (3, 10, 11, 40, 7, 99):
                opt.step()
                s.step(epoch)
                out.append(s.get_last_lr())
            return out
        return _with_warnings(go)
    _exact(run(real_torch), run(torchlike))


def test_call_order_warnings():
    def run(lib):
        def go():
            opt = _optimizer(lib)
            s = lib.optim.lr_scheduler.StepLR(opt, 2)
            s.step()                     # before optimizer.step(): warns
            s.get_lr()                   # outside step(): warns
            opt2 = _optimizer(lib)
            s2 = lib.optim.lr_scheduler.ExponentialLR(opt2, 0.9)
            opt2.step = lambda closure=None: None     # overridden after construction: warns
            s2.step()
            return s.get_last_lr()
        return _with_warnings(go)
    _exact(run(real_torch), run(torchlike))


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "OneCycleLR", "CyclicLR",
                                  "SequentialLR", "ChainedScheduler",
                                  "CosineAnnealingWarmRestarts"])
def test_state_dict_restore_continues(name):
    """Save after 30 epochs, rebuild optimizer + scheduler, load both, continue 30 epochs."""
    def run(lib):
        def go():
            opt = _optimizer(lib)
            s = CASES[name](lib.optim.lr_scheduler, opt)
            for _ in range(30):
                opt.step()
                s.step()
            osd, ssd = opt.state_dict(), s.state_dict()
            opt2 = _optimizer(lib)
            s2 = CASES[name](lib.optim.lr_scheduler, opt2)
            opt2.load_state_dict(osd)
            s2.load_state_dict(ssd)
            out = []
            for _ in range(30):
                opt2.step()
                s2.step()
                out.append(s2.get_last_lr())
            return out
        return _with_warnings(go)
    _exact(run(real_torch), run(torchlike))


SCHED_ERRORS = [
    lambda L, o: L.StepLR(object(), 3),
    lambda L, o: L.ConstantLR(o, factor=1.5),
    lambda L, o: L.LinearLR(o, start_factor=0),
    lambda L, o: L.LinearLR(o, end_factor=2.0),
    lambda L, o: L.LambdaLR(o, [lambda e: 1.0]),
    lambda L, o: L.MultiplicativeLR(o, [1.0, 2.0]),
    lambda L, o: L.CosineAnnealingWarmRestarts(o, 0),
    lambda L, o: L.CosineAnnealingWarmRestarts(o, 5, T_mult=0),
    lambda L, o: L.CosineAnnealingWarmRestarts(o, 5, eta_min="x"),
    lambda L, o: L.CyclicLR(o, 0.1, 1.0, mode="nope"),
    lambda L, o: L.CyclicLR(L.StepLR(o, 1).optimizer, [0.1], 1.0),
    lambda L, o: L.OneCycleLR(o, 0.1),
    lambda L, o: L.OneCycleLR(o, 0.1, total_steps=0),
    lambda L, o: L.OneCycleLR(o, 0.1, epochs=0, steps_per_epoch=3),
    lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10, pct_start=1.5),
    lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="tan"),
    lambda L, o: [L.OneCycleLR(o, 0.1, total_steps=2).step() for _ in range(3)],
    lambda L, o: L.ReduceLROnPlateau(o, factor=1.0),
    lambda L, o: L.ReduceLROnPlateau(o, mode="avg"),
    lambda L, o: L.ReduceLROnPlateau(o, threshold_mode="x"),
    lambda L, o: L.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda L, o: L.SequentialLR(o, [], []),
    lambda L, o: L.SequentialLR(o, [L.StepLR(o, 2), L.StepLR(o, 3)], []),
    lambda L, o: L.SequentialLR(o, [L.ReduceLROnPlateau(o)], []),
    lambda L, o: L.ChainedScheduler([]),
    lambda L, o: L.StepLR(o, 3, last_epoch=5),
]


@pytest.mark.parametrize("i", range(len(SCHED_ERRORS)))
def test_errors(i):
    def run(lib):
        result = SCHED_ERRORS[i](lib.optim.lr_scheduler, _optimizer(lib))
        return type(result).__name__
    check(run)
