"""Plans (`torchlike/_ops/bucket_plans.py`): a bucket rule's host work is recorded once per
operand signature and replayed. Replayed calls give PyTorch's values and shapes: the same sizes
again, operands that share a storage or not, Python scalars of other values, autograd (never
replayed), and the replayed path is the one taken (counted)."""
import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import assert_same
from torchlike._ops import bucket_plans

# size classes are the op-by-op dispatcher's; fused eager does not bucket yet
pytestmark = pytest.mark.usefixtures("op_by_op")


def _padded(lib, n, width=13):
    """A tensor of n rows computed by a kernel that has seen other row counts (so padded)."""
    w = lib.tensor(np.random.RandomState(n).randn(width, width).astype(np.float32))
    for m in (n + 3, n):
        y = lib.tensor(np.arange(m * width, dtype=np.float32).reshape(m, width) / 50) @ w
    return y, w


@pytest.fixture
def replays(monkeypatch):
    bucket_plans._PLANS.clear()
    runs = []
    real_run = bucket_plans.Plan.run

    def run(self, args):
        runs.append(self)
        return real_run(self, args)
    monkeypatch.setattr(bucket_plans.Plan, "run", run)
    return runs


def _ops(lib, y, z, w, s):
    return [y + z, y * s, lib.softmax(y, 1), y.sum(0), y.mean(1), y.amax(0), y.argmax(1),
            lib.nn.functional.gelu(z) - y, y @ w, (y > s).any(1)]


def test_replayed_calls_match_pytorch(replays):
    results = {}
    for lib in (real_torch, torchlike):
        with lib.no_grad():
            out = []
            for n, s in ((5, 2.0), (9, 2.0), (5, 3.0), (9, 2.0), (5, 2.0)):
                lib.manual_seed(0)
                y, w = _padded(lib, n)
                z = y * 1
                out.append(_ops(lib, y, z, w, s) + _ops(lib, y, y, w, s))
        results[lib] = out
    assert_same(results[real_torch], results[torchlike])
    assert replays, "the repeated sizes ran their plans"


def test_operands_that_share_a_storage_are_part_of_the_signature(replays):
    with torchlike.no_grad():
        y, _ = _padded(torchlike, 6)
        z = y * 2
        first = y + y          # recorded with one storage twice
        second = y + z         # same sizes, two storages: another plan
        third = z + z
    assert y._st._phys is not None
    np.testing.assert_array_equal(second.numpy(), y.numpy() * 3)
    np.testing.assert_array_equal(third.numpy(), z.numpy() * 2)
    np.testing.assert_array_equal(first.numpy(), y.numpy() * 2)
    assert len(replays) == 1   # only `z + z` replays `y + y`'s plan


def test_calls_recorded_by_autograd_are_not_replayed(replays):
    y, w = _padded(torchlike, 7)
    w.requires_grad_(True)
    for _ in range(2):
        out = y @ w
        assert out.grad_fn is not None
        out.sum().backward()
    assert not replays
    yt, wt = _padded(real_torch, 7)
    wt.requires_grad_(True)
    (yt @ wt).sum().backward()
    (yt @ wt).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_a_signed_zero_scalar_is_its_own_signature(replays):
    """-0.0 == 0.0 (and hashes alike) but multiplies to other signs of zero."""
    def fn(lib):
        with lib.no_grad():
            y, _ = _padded(lib, 6)
            return [y * 0.0, y * -0.0, y * (0.0 + 0j), y * complex(-0.0, 0.0)]
    expected, actual = fn(real_torch), fn(torchlike)
    for e, a in zip(expected, actual):
        assert_same(e, a)
        np.testing.assert_array_equal(np.signbit(e.numpy().real), np.signbit(a.numpy().real))
