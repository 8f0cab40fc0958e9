"""No compile per value: Python scalars, indices, slice starts and storage offsets are traced
kernel arguments, so loops whose values change every iteration compile nothing new.
(Stated fact, counted with JAX's own compile and trace events.)"""
import contextlib

import jax.monitoring
import pytest

import torchlike as torch
from torchlike._core import compile_budget

_EVENTS = ("/jax/core/compile/backend_compile_duration", "/jax/core/compile/jaxpr_trace_duration")


def restart_compile_budget():
    """The compile budget (torchlike/_core/compile_budget.py) drops JAX's caches every 256th
    compilation when the process has many kernels mapped, as a long test run does; one falling
    between a test's warm-up and its measured loop would recompile the warm-up's kernels. A test
    that counts compiles starts the budget's count afresh so it cannot fire inside the test."""
    compile_budget._state["compiles"] = 0


@pytest.fixture(autouse=True)
def no_budget_clear_inside():
    restart_compile_budget()
    yield


@contextlib.contextmanager
def count_compiles():
    """Counts XLA compilations and JAX traces that happen inside the block."""
    seen = []

    def listener(event, duration, **kw):
        if event in _EVENTS:
            seen.append(event)
    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield seen
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def test_changing_scalars_compile_nothing():
    x = torch.ones(7, 5)
    g = torch.ones(7, 5)
    for _ in range(4):              # warm-up: every kernel and argument form once
        x.mul_(1.5)
        x.add_(g, alpha=-0.01)
        (x * 2.0).sum()
    with count_compiles() as seen:
        for i in range(30):
            lr = 0.1 / (i + 1)      # a fresh value every iteration
            x.mul_(1.0 + 1e-3 * i)
            x.add_(g, alpha=-lr)
            (x * (0.5 + i)).sum()
    assert seen == []


def test_changing_index_and_slice_start_compile_nothing():
    x = torch.arange(64.).view(8, 8)
    for _ in range(4):
        (x[0] + 1).sum()
        x[0:3].add_(1)
        x.narrow(1, 0, 2).mul_(2)
        x[1, 2] = 5.0
    with count_compiles() as seen:
        for i in range(1, 6):
            (x[i] + 1).sum()        # select view: its offset is traced
            x[i:i + 3].add_(1)      # slice view written in place: offset traced
            x.narrow(1, i, 2).mul_(2)
            x[i, 2] = float(i)      # element write
    assert seen == []


def test_fill_values_compile_nothing():
    x = torch.zeros(6, 4)
    for _ in range(4):
        x.fill_(1.0)
        x[1] = 2.0
    with count_compiles() as seen:
        for v in range(20):
            x.fill_(0.25 * v)
            x[2] = 0.5 * v
    assert seen == []


def test_new_shape_does_compile():
    # the counter is live: a never-seen shape must be compiled
    with count_compiles() as seen:
        torch.ones(13, 171) * 3.0
    assert seen
