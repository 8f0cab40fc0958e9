"""Property test (hypothesis): random chains of view ops, then a write through the last view,
give PyTorch's layout (size, stride, offset, contiguity) and PyTorch's base values."""
import numpy as np
from hypothesis import given, settings, strategies as st

from harness import check


def _apply(t, step):
    """Apply one view op described by `step` (a tuple of small ints) if it is valid here."""
    kind, a, b, c = step
    n = t.dim()
    if kind == 0 and n >= 2:
        return t.transpose(a % n, b % n)
    if kind == 1 and n >= 1:
        d = a % n
        size = t.shape[d]
        if size:
            start = b % size
            return t.narrow(d, start, 1 + c % (size - start))
    if kind == 2 and n >= 1:
        d = a % n
        if t.shape[d]:
            return t.select(d, b % t.shape[d])
    if kind == 3 and n < 5:
        return t.unsqueeze(a % (n + 1))
    if kind == 4:
        return t.squeeze()
    if kind == 5 and n >= 1:
        perm = list(np.random.RandomState(a).permutation(n))
        return t.permute(*perm)
    if kind == 6 and n >= 1:
        d = a % n
        size = t.shape[d]
        if size >= 1:
            k = 1 + b % size
            return t.unfold(d, k, 1 + c % k)
    if kind == 7 and n >= 1 and t.shape[-1] % 2 == 0 and t.is_contiguous():
        return t.view(*t.shape[:-1], 2, -1)
    if kind == 8 and n >= 1:
        return t.flatten() if t.is_contiguous() else t.reshape(-1)
    if kind == 9 and n >= 2:
        return t.diagonal(a % 3 - 1, 0, 1)
    return t


def _overlapping(v):
    """Whether two elements of the view share memory (e.g. overlapping unfold windows): PyTorch
    then processes shared elements once per alias, in an unspecified order, so such writes are
    not compared."""
    offsets = np.zeros((), dtype=np.int64)
    for n, s in zip(v.shape, v.stride()):
        offsets = (offsets[..., None] + np.arange(n) * s)
    return np.unique(offsets).size != offsets.size


steps = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 7), st.integers(0, 7),
                           st.integers(0, 7)), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(steps)
def test_random_view_chains(chain):
    def f(torch):
        base = torch.arange(60.).view(3, 4, 5)
        v = base
        for step in chain:
            v = _apply(v, step)
        layout = (tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(),
                  v.data_ptr() == base.data_ptr() + 4 * v.storage_offset())
        value = v.clone()
        if v.numel() and not _overlapping(v):
            v.mul_(-1)
        return layout, value, base
    check(f)
