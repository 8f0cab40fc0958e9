"""The Tensor shell runs on JAX tracers: a function using views and in-place ops through
torchlike gives the same result under `jax.jit` as eagerly (and as real PyTorch)."""
import jax
import numpy as np
import torch as real_torch

import torchlike
from harness import assert_same


def program(torch, x):
    """Views, in-place writes through views, scalar ops and reductions-free math."""
    y = x.view(4, 6)
    t = y.t()                      # a transposed view
    t.mul_(2)                      # in-place through the view, seen by x and y
    y.select(1, 3).add_(100)       # write a column through a select view
    z = y.narrow(0, 1, 2) * 0.5 + t.t().narrow(0, 0, 2)
    y.unsqueeze(0).squeeze(0).sub_(1, alpha=3)
    w = y.expand(2, 4, 6) + z.view(12).view(2, 6).unsqueeze(1)
    return x, z, w


def _run_traced(arr):
    x = torchlike.from_jax(arr)
    outs = program(torchlike, x)
    return tuple(o.jax() for o in outs)


def test_views_and_inplace_under_jit_match_eager_and_torch():
    a = np.arange(24, dtype=np.float32)
    eager = _run_traced(a.copy())
    jitted = jax.jit(_run_traced)(a.copy())
    for e, j in zip(eager, jitted):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-6)
    expected = program(real_torch, real_torch.tensor(a.copy()))
    actual = program(torchlike, torchlike.tensor(a.copy()))
    assert_same(expected, actual)
    for e, j in zip(expected, jitted):
        np.testing.assert_allclose(np.asarray(j), e.numpy(), rtol=1e-6)


def test_jit_traces_once_for_changing_scalars():
    def f(arr, s):
        x = torchlike.from_jax(arr)
        s = torchlike.from_jax(s)          # a 0-dim tensor holding the traced scalar
        x.view(2, 3).select(0, 1).mul_(s)
        return (x + s).jax()
    jf = jax.jit(f)
    a = np.ones(6, np.float32)
    for s in (1.0, 2.0, 3.0):
        expected = np.array([1, 1, 1, s, s, s]) + s
        np.testing.assert_allclose(np.asarray(jf(a, np.float32(s))), expected, rtol=1e-6)
    assert jf._cache_size() == 1
