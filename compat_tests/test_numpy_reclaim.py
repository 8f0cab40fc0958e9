"""A tensor once read with `.numpy()` does not stay slow: its storage keeps sharing memory with
NumPy while any array made from it lives (PyTorch's aliasing, both ways), and goes back to a JAX
buffer once they are gone (torchlike/_core/storage.py, `reclaim`). Values against PyTorch; the
storage's state is a stated fact of torchlike's own."""
import gc

import numpy as np

from harness import check


def test_aliasing_kept_while_the_array_lives():
    def f(torch):
        t = torch.arange(6.).view(2, 3)
        a = t.numpy()
        t.add_(1)
        a[0, 0] = 100.0
        t.mul_(2)
        row = t[1]
        row.sub_(1)
        return t.clone(), a.tolist(), row.clone()
    check(f)


def test_logging_a_weight_then_training_on():
    def f(torch):
        torch.manual_seed(0)
        p = torch.nn.Parameter(torch.arange(4.))
        logged = []
        for i in range(5):
            logged.append(p.detach().numpy().copy())   # a weight read for a plot
            with torch.no_grad():
                p.add_(torch.ones(4), alpha=-0.1 * (i + 1))
        return p.detach().clone(), np.stack(logged).tolist()
    check(f)


def test_storage_goes_back_to_jax_once_the_array_is_gone():
    import torchlike as torch
    p = torch.arange(5.)
    a = p.numpy()
    p.add_(1)
    assert p._st._np is not None          # `a` still sees p's memory
    assert a[0] == 1.0
    del a
    gc.collect()
    p.add_(1)
    assert p._st._np is None and p._st._data is not None
    assert p.tolist() == [2.0, 3.0, 4.0, 5.0, 6.0]


def test_from_numpy_memory_is_kept_while_its_array_lives():
    import torchlike as torch
    arr = np.zeros(3)
    t = torch.from_numpy(arr)
    for _ in range(3):
        t.add_(1)
    assert arr.tolist() == [3.0, 3.0, 3.0]
    view = t.view(torch.int64)            # a second storage over the same memory
    del arr
    gc.collect()
    t.add_(1)
    assert t._st._np is not None          # still aliased by the int64 view's storage
    assert view.tolist() == np.full(3, 4.0).view(np.int64).tolist()


def test_views_of_a_reclaimed_storage_keep_their_layout():
    def f(torch):
        t = torch.arange(12.).view(3, 4)
        flat = t.view(-1)                   # made before sharing
        a = t.numpy()
        col = t[:, 1]                       # made while shared
        whole = t.reshape(12)               # a full-cover 1-D view made while shared
        del a
        t.add_(1)                           # reclaimed here
        return t.clone(), flat.clone(), col.clone(), whole.clone(), whole.is_contiguous()
    check(f)
