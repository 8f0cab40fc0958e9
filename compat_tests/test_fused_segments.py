"""Large graphs' backward runs as a chain of segment programs (torchlike/autograd/fused.py):
gradients equal the node-by-node backward's and PyTorch's, and an unrolled loop compiles its
repeating stretch once however long it runs (stated facts, counted with compile_log)."""
import numpy as np
import pytest

from harness import check
import torchlike
from torchlike import compile_log
from torchlike.autograd import fused


@pytest.fixture
def small_segments(monkeypatch):
    monkeypatch.setattr(fused, "MAX_NODES", 12)
    monkeypatch.setattr(fused, "SEGMENT_MIN", 4)
    fused._ENTRIES.clear()
    fused._FAMILIES.clear()    # (a structure seen at other shapes is fused on first sight)
    yield
    fused._ENTRIES.clear()
    fused._FAMILIES.clear()


def _graphs(torch):
    """Graphs with branches, shared subexpressions, several leaves, a leaf used late and early,
    a multi-output node (unbind) and a non-scalar root."""
    torch.manual_seed(0)
    w = torch.randn(5, 5, dtype=torch.float64, requires_grad=True)
    b = torch.randn(5, dtype=torch.float64, requires_grad=True)
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)

    def rnn():
        h = x
        outs = []
        for t in range(9):
            h = torch.tanh(h @ w + b) * 0.9
            outs.append(h.sum(1))
        return torch.stack(outs).pow(2).sum() + (x * b).sum()

    def branches():
        a = x @ w
        parts = a.unbind(1)
        s = sum(p.sin() for p in parts)
        return (s * a.mean(1)).sum() + a.exp().mean() * b.sum()

    return (w, b, x), {"rnn": rnn, "branches": branches}


@pytest.mark.parametrize("name", ["rnn", "branches"])
def test_segmented_equals_node_by_node_and_torch(small_segments, name):
    grads = []
    for _ in range(3):      # node by node, then the segmented program (twice)
        leaves, graphs = _graphs(torchlike)
        graphs[name]().backward()
        grads.append([leaf.grad.numpy().copy() for leaf in leaves])
    for later in grads[1:]:
        for a, b in zip(grads[0], later):
            np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)

    def f(torch):
        leaves, graphs = _graphs(torch)
        graphs[name]().backward()
        return [leaf.grad for leaf in leaves]
    check(f)


def test_the_graph_really_ran_in_segments(small_segments, monkeypatch):
    chains = []
    original = fused._run_chain
    monkeypatch.setattr(fused, "_run_chain", lambda plan, *a: chains.append(len(plan)) or
                        original(plan, *a))
    for _ in range(2):
        leaves, graphs = _graphs(torchlike)
        graphs["rnn"]().backward()
    assert len(chains) == 1 and chains[0] > 2, chains


def test_unrolled_loop_compiles_a_bounded_number_of_segments():
    """A chain of 3 * n nodes: the number of segment programs does not grow with n."""
    torch = torchlike
    w = torch.randn(8, 8, requires_grad=True)

    def loss(n):
        h = torch.ones(2, 8)
        for _ in range(n):
            h = torch.tanh(h @ w) * 0.5
        return h.sum()

    programs = {}
    for n in (400, 1200):
        loss(n).backward()             # first sighting: node by node
        with compile_log.record() as log:
            loss(n).backward()         # second: the chain of segments
        programs[n] = [e for e in log.traces if e.name == "fused_backward_segment"]
        assert len(fused._ENTRIES[next(reversed(fused._ENTRIES))][0].plan) > 1
    assert 1 <= len(programs[1200]) <= 3, programs
