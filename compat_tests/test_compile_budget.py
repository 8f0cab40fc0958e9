"""Stated fact: a process that compiles kernel after kernel (many shapes) keeps its memory-map
count bounded, because torchlike drops JAX's executable caches before Linux's vm.max_map_count
is reached (past it, XLA:CPU segfaults while compiling). Values stay right across the drop."""
import numpy as np
import pytest

import torchlike as torch
from torchlike._core import compile_budget


@pytest.mark.skipif(compile_budget.map_count() is None, reason="needs /proc (Linux)")
def test_many_shapes_keep_map_count_bounded(monkeypatch):
    base = compile_budget.map_count()
    limit = compile_budget._map_limit()
    # Pretend the cap is near: the process is already past the threshold. (A threshold some
    # mappings above the current count made the test depend on what ran before it: in a long
    # test worker, kernels evicted from earlier tests' caches unmap while new ones map, and the
    # count may not grow by that much.)
    monkeypatch.setattr(compile_budget, "CHECK_EVERY", 16)
    monkeypatch.setattr(compile_budget, "FRACTION", base / 2 / limit)
    clears = compile_budget._state["clears"]
    peak = base
    for n in range(1, 120):
        x = torch.arange(n, dtype=torch.float32)
        y = (x * 3.0 + 1.0).sin().sum()
        np.testing.assert_allclose(y.item(), np.sin(np.arange(n, dtype=np.float32) * 3 + 1).sum(),
                                   rtol=1e-4, atol=1e-4)
        peak = max(peak, compile_budget.map_count())
    assert compile_budget._state["clears"] > clears
    assert peak < base + 16 * 40   # at most one check interval past the count it started at
