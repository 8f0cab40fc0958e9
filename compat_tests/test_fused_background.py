"""The fused backward program of a graph seen twice is compiled in a background thread while
that backward runs node by node (torchlike/autograd/fused.py); the next backward runs it
without tracing anything. Gradients equal PyTorch's at every step."""
import numpy as np
import pytest

from harness import assert_same
import torch as real_torch
import torchlike
from torchlike import compile_log
from torchlike._core import programs
from torchlike.autograd import fused

X = np.random.RandomState(5).randn(4, 5).astype(np.float32)


def _steps(torch, between=lambda i: None):
    torch.manual_seed(0)
    lin = torch.nn.Linear(5, 3)
    x = torch.tensor(X)
    grads = []
    for i in range(3):
        lin.zero_grad()
        (torch.tanh(lin(x)) * 2 + x[:, :3]).pow(2).sum().backward()
        grads.append((lin.weight.grad.clone(), lin.bias.grad.clone()))
        between(i)
    return grads


@pytest.mark.usefixtures("op_by_op")   # fused eager compiles it on the spot (see fused.py)
def test_second_sighting_compiles_in_the_background(monkeypatch):
    fused._ENTRIES.clear()
    fused._FAMILIES.clear()
    started = []
    real_ahead = fused._compile_ahead

    def spy(entry, program, order, root_cts):
        ok = real_ahead(entry, program, order, root_cts)
        started.append((ok, entry))
        return ok
    monkeypatch.setattr(fused, "_compile_ahead", spy)
    logs = []

    def between(i):
        if i == 1:
            assert len(started) == 1 and started[0][0], "the second backward starts it"
            compile_log.settle()
            program = started[0][1][0]
            assert programs.program_of(program).exes, "compiled, not yet run"
            logs.append(compile_log.record())
            logs.append(logs[0].__enter__())
    try:
        got = _steps(torchlike, between)
    finally:
        if logs:
            logs[0].__exit__(None, None, None)
    assert logs[1].traces == [] and logs[1].compiles == []   # the third ran the program
    assert fused._ENTRIES and all(e[1] is None for e in fused._ENTRIES.values())
    assert_same(_steps(real_torch), got)


def test_switched_off_compiles_on_the_call(monkeypatch):
    fused._ENTRIES.clear()
    fused._FAMILIES.clear()
    monkeypatch.setattr(fused, "BACKGROUND", [False])
    with compile_log.record() as log:
        got = _steps(torchlike)
    # traced then, or loaded from the disk cache (the test above compiled the same program)
    assert [e.name for e in log.events if e.kind in ("trace", "load")].count(
        "fused_backward") == 1
    assert not fused._RUNNING
    assert_same(_steps(real_torch), got)
