"""Property test (hypothesis): random chains of view ops over a tensor that requires grad and is
itself a non-contiguous view (a transpose, a strided slice, an expand), then a weighted sum of the
last view and backward: PyTorch's values and gradients. Each view's backward node is translated
from the storage into its source's value (torchlike/autograd/function.py, `in_value_of`); the
test also checks that the layouts real programs make (transposes, slices, splits and views of
them) never fall back to per-element index work."""
import numpy as np
from hypothesis import given, settings, strategies as st

from harness import check
from test_views_property import _apply, steps

_STARTS = 4


def _start(torch, x, k):
    """A non-contiguous view of leaf `x` (3, 4, 5), by kind `k`."""
    if k == 0:
        return x.transpose(0, 2)
    if k == 1:
        return x[:, ::2, 1:]
    if k == 2:
        return x.permute(1, 2, 0)[1:, :, ::2]
    return x[:, :1].expand(3, 4, 5)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, _STARTS - 1), steps)
def test_random_view_chains_backward(start, chain):
    def f(torch):
        x = torch.arange(60., dtype=torch.float64).view(3, 4, 5).requires_grad_()
        v = _start(torch, x, start)
        for step in chain:
            v = _apply(v, step)
        w = torch.arange(float(v.numel()), dtype=torch.float64).view(v.shape) + 1
        (v * w).sum().backward()
        return v.detach().clone(), x.grad, type(v.grad_fn).__name__ if v.grad_fn else None
    check(f)


def test_gpt_attention_views_need_no_index_per_element():
    import torchlike as torch
    from torchlike.autograd import function
    calls = []
    original = function._relative_index
    function._relative_index = lambda *a: calls.append(a) or original(*a)
    try:
        b, t, c, h = 2, 6, 12, 3
        x = torch.randn(b, t, 3 * c, requires_grad=True)
        q, k, v = x.split(c, 2)
        q = q.view(b, t, h, c // h).transpose(1, 2)
        k = k.view(b, t, h, c // h).transpose(1, 2)
        v = v.view(b, t, h, c // h).transpose(1, 2)
        y = ((q @ k.transpose(-2, -1)).softmax(-1) @ v).transpose(1, 2).reshape(b, t, c)
        y[:, -1].narrow(1, 2, 5).unsqueeze(0).sum().backward()
        assert x.grad.shape == x.shape
    finally:
        function._relative_index = original
    assert calls == []


def test_view_of_large_noncontiguous_tensor_is_cheap():
    """The attention pattern at GPT sizes (batch 64, block 256, width 384) took ~190 ms per view
    with an index per element; translated, a view costs what any view costs."""
    import time
    import torchlike as torch
    q = torch.zeros(64, 256, 3 * 384, requires_grad=True).split(384, 2)[0]
    q.view(64, 256, 6, 64)
    t0 = time.perf_counter()
    for _ in range(20):
        q.view(64, 256, 6, 64)
    per_view = (time.perf_counter() - t0) / 20
    assert per_view < 2e-3, per_view


def test_views_of_views_copy_nothing(monkeypatch):
    """A view of a view of a tensor that requires grad reads no element: its node keeps zeros of
    the source's shape (the vjp of a read is linear), made once per shape. Reading every element
    per view cost 25 ms per split/view/transpose chain at 10^7 elements."""
    import torchlike as torch
    from torchlike._core import tensor as tensor_mod
    x = torch.randn(30, 36, requires_grad=True)
    x.split(12, 1)[0].view(30, 3, 4).transpose(1, 2)       # placeholders made here
    reads = []
    original = tensor_mod._read
    monkeypatch.setattr(tensor_mod, "_read", lambda t: reads.append(t._size) or original(t))
    for _ in range(3):
        v = x.split(12, 1)[0].view(30, 3, 4).transpose(1, 2)
    assert reads == []
    (v * torch.arange(12.).view(1, 4, 3)).sum().backward()
    expected = torch.zeros(30, 36)
    expected[:, :12] = torch.arange(12.).view(4, 3).t().reshape(12)
    assert torch.equal(x.grad, expected)
