"""Fused eager (`TORCHLIKE_FUSED_EAGER=1`, `torchlike._core.lazy`): ops recorded into segments
and run as cached programs give PyTorch's values, errors, aliasing and in-place semantics, and
a repeated segment becomes one program."""
import numpy as np
import pytest

import torch as real_torch
import torchlike
from torchlike._core import lazy

from harness import assert_same, check


@pytest.fixture
def fused():
    was = lazy.ON[0]
    lazy.enable(True)
    try:
        yield lazy.STATS
    finally:
        lazy.enable(was)


def _delta(before):
    return {k: lazy.STATS[k] - before[k] for k in before}


A = np.random.default_rng(0).standard_normal((6, 5)).astype(np.float32)
W = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)


def _loop(lib, steps=4):
    x, w = lib.tensor(A), lib.tensor(W)
    outs = []
    for i in range(steps):
        h = (x @ w).relu() * 2 - 0.5
        h[1:, ::2].mul_(3)          # in-place through a strided view of a pending value
        s = h.softmax(-1).sum(0)
        x = x + 0.125
        outs.append(s)
    return outs, x


def test_repeated_segment_is_one_program_with_pytorchs_values(fused):
    before = dict(lazy.STATS)
    expected = _loop(real_torch)
    actual = _loop(torchlike)
    assert_same(expected, actual)
    d = _delta(before)
    assert d["calls"] >= 4 * 6, d
    # nothing was read inside the loop: the four steps are one segment, run when compared
    assert d["flushes"] == 1 and d["stepwise"] == 1, d
    # each step flushed on its own: the first runs call by call, the second compiles, the
    # third and fourth replay
    before = dict(lazy.STATS)
    x, w = torchlike.tensor(A), torchlike.tensor(W)
    tx, tw = real_torch.tensor(A), real_torch.tensor(W)
    for i in range(4):
        s, ts = [(a @ b).tanh().mul_(0.5).add(1).sum() for a, b in ((x, w), (tx, tw))]
        assert s.item() == pytest.approx(ts.item(), rel=1e-6)
    d = _delta(before)
    assert (d["stepwise"], d["programs"], d["replays"]) == (1, 1, 2), d


def test_errors_raise_at_the_call_before_anything_runs(fused):
    def f(lib):
        a = lib.ones(3, 4) * 2
        b = lib.ones(5)
        flushes = lazy.STATS["flushes"]
        try:
            return a + b
        finally:
            if lib is torchlike:
                assert lazy.STATS["flushes"] == flushes   # raised when recorded
    check(f)
    check(lambda lib: (lib.arange(6) * 2).add_(1.5))
    check(lambda lib: (lib.ones(2, 3) + 1) @ (lib.ones(2, 3) + 1))
    check(lambda lib: (lib.ones(4) + 1).view(3))


def test_aliasing_versions_and_storage(fused):
    def f(lib):
        x = lib.tensor(A) + 1
        v = x[2:, 1:4]
        v.add_(10)
        x.t()[0].mul_(-1)
        same = v.data_ptr() == x.data_ptr() + (2 * 5 + 1) * 4
        return x, v, x._version, v._version, same, v.is_contiguous()
    check(f)


def test_numpy_sharing_both_ways(fused):
    def f(lib):
        y = lib.tensor(A) * 2
        n = y.numpy()
        n[0, 0] = 7.0
        y.add_(1)
        return y, lib.tensor(n.copy())
    check(f)


def test_out_copy_and_casts(fused):
    def f(lib):
        a = lib.tensor(A) + 1
        o = lib.empty(6, 5)
        lib.mul(a, 3, out=o)
        i = lib.zeros(6, 5, dtype=lib.int64)
        i.copy_(a * 4)                     # a float result cast into an int64 buffer
        d = lib.zeros(6, 5, dtype=lib.float64)
        d += a
        h = (a.half() + 1).float()
        return o, i, d, h
    check(f)


def test_dead_intermediates_are_not_results(fused):
    x = torchlike.tensor(A)
    for _ in range(3):
        y = ((x * 2).exp() - 1).sum(1)
        keep = y.clone()
        del y
        lazy.flush()
    key = next(k for k, v in lazy._SEEN.items() if v != 1 and k[0][0][0] == _mul_key(x))
    assert len(key[1]) == 1, key[1]   # only `keep` is a result of the program
    np.testing.assert_allclose(keep.numpy(), (np.exp(A * 2) - 1).sum(1), rtol=1e-6)


def _mul_key(x):
    before = len(lazy.current().sig)
    x * 2
    k = lazy.current().sig[before][0]
    lazy.flush()
    return k


def test_module_inference_loop(fused):
    def make(lib):
        lib.manual_seed(0)
        nn = lib.nn
        return nn.Sequential(nn.Linear(5, 16), nn.LayerNorm(16), nn.GELU(), nn.Dropout(0.5),
                             nn.Linear(16, 3), nn.Softmax(-1)).eval()
    tm, lm = make(real_torch), make(torchlike)
    before = dict(lazy.STATS)
    with real_torch.no_grad(), torchlike.no_grad():
        for i in range(4):
            x = A + i
            assert_same(tm(real_torch.tensor(x)), lm(torchlike.tensor(x)), rtol=1e-5, atol=1e-6)
    d = _delta(before)
    assert d["programs"] >= 1 and d["replays"] >= 2, d


def test_random_streams_and_autograd_unchanged(fused):
    def f(lib):
        lib.manual_seed(3)
        a = lib.randn(4, 3) + 1
        b = lib.rand(4, 3) * a
        idx = lib.randint(0, 4, (5,))
        w = lib.tensor(W[:3], requires_grad=True)
        loss = ((b @ w).tanh() * 2).sum()
        loss.backward()
        return a, b, idx, loss, w.grad
    check(f, rtol=1e-5, atol=1e-6)


def test_size_cap_cuts_segments(fused, monkeypatch):
    monkeypatch.setattr(lazy, "MAX_CALLS", 8)
    before = dict(lazy.STATS)

    def f(lib):
        x = lib.tensor(A)
        for i in range(20):
            x = x * 1.01 + 0.5
        return x
    check(f)
    assert _delta(before)["flushes"] >= 4


def test_switch_flushes_what_was_recorded():
    was = lazy.ON[0]
    lazy.enable(True)
    try:
        x = torchlike.tensor(A) + 1
        assert type(x._st._raw) is lazy.Pending
    finally:
        lazy.enable(was)
    assert type(x._st._raw) is not lazy.Pending
    np.testing.assert_array_equal(x.numpy(), A + 1)


def _train(lib, steps):
    lib.manual_seed(0)
    nn = lib.nn
    m = nn.Sequential(nn.Linear(5, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 3))
    opt = lib.optim.AdamW(m.parameters(), lr=0.05)
    x = lib.tensor(A)
    y = lib.tensor([0, 1, 2, 1, 0, 2])
    losses, counts = [], []
    for i in range(steps):
        before = dict(lazy.STATS)
        loss = nn.functional.cross_entropy(m(x), y)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        counts.append(_delta(before))
    return losses, [p.detach().clone() for p in m.parameters()], counts


def test_training_step_is_one_program(fused):
    """Forward, backward, gradient clipping and the AdamW update: PyTorch's losses and
    parameters, and once settled each step is one program run at `loss.item()`."""
    tl_losses, tl_params, counts = _train(torchlike, 8)
    t_losses, t_params, _ = _train(real_torch, 8)
    np.testing.assert_allclose(tl_losses, t_losses, rtol=1e-5)
    assert_same(t_params, tl_params, rtol=1e-5, atol=1e-6)
    for c in counts[4:]:
        assert (c["flushes"], c["replays"], c["programs"], c["stepwise"]) == (1, 1, 0, 0), counts


def test_threads_record_their_own_segments(fused):
    import threading
    results, errors = {}, []

    def work(k):
        try:
            x = torchlike.full((64,), float(k))
            for _ in range(50):
                x = x * 1.5 - k
            results[k] = x.sum().item()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(4):
        x = real_torch.full((64,), float(k))
        for _ in range(50):
            x = x * 1.5 - k
        assert results[k] == pytest.approx(x.sum().item(), rel=1e-6)
