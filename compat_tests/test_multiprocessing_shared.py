"""torch.multiprocessing shares tensors through shared memory, as the seeds' multiprocessing
best practices describe: `share_memory_()`/`is_shared()`, `Module.share_memory()`, tensors sent
through queues and process arguments arrive as views of the sender's memory (so a child's
in-place update is seen by the parent: the Hogwild pattern). Each
case runs under real PyTorch and torchlike (children started from a forkserver) and the results
are compared."""
import multiprocessing.forkserver as _fs

import numpy as np

from harness import check
from data_helpers import shared as H


def _ctx(torch):
    """The forkserver context; a server not started yet preloads both libraries (importing
    torchlike leaves JAX's backend off, so the server forks safely), so that a child costs a
    fork rather than a new interpreter importing them."""
    server = _fs._forkserver
    if server._forkserver_pid is None:
        server.set_forkserver_preload(["numpy", "jax", "torch", "torchlike",
                                       "data_helpers.shared"])
    return torch.multiprocessing.get_context("forkserver")


def test_child_writes_are_seen_by_the_parent():
    def f(torch):
        ctx = _ctx(torch)
        t = torch.arange(5.0)
        before, ptr = t.is_shared(), t.data_ptr()
        same = t.share_memory_() is t
        u = torch.zeros(3)                      # moved to shared memory to be sent
        w = torch.nn.Parameter(torch.ones(3))
        (w * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
        q, done = ctx.Queue(), ctx.Event()
        p = ctx.Process(target=H.update_and_reply, args=(t[1:], u, w, q, done))
        p.start()
        v, *param = q.get(timeout=120)
        v[0] = 100                              # a view of the same memory, in this process
        out = (before, same, t.is_shared(), t.data_ptr() != ptr, t.clone(), u, u.is_shared(),
               param, w.grad, v.clone(), v.is_shared(), v.storage_offset())
        done.set()
        p.join()
        return out + (p.exitcode,)
    check(f)


def test_non_leaf_requiring_grad_refused():
    def f(torch):
        from multiprocessing.reduction import ForkingPickler
        y = torch.ones(2, requires_grad=True) * 2
        try:
            ForkingPickler.dumps(y)
        except RuntimeError as e:
            return str(e)
        return None
    check(f)


def test_shared_tensor_keeps_working_in_the_parent():
    """After sharing, ops and in-place updates read and write the shared memory."""
    def f(torch):
        t = torch.tensor(np.arange(6, dtype=np.float32).reshape(2, 3)).share_memory_()
        t.add_(1)
        t[0, 1] = -5
        return t * 2, t.sum(), t.numpy().tolist(), t.is_shared()
    check(f)


_BEST_PRACTICES = '''
import torch
import torch.multiprocessing as mp
import torch.nn as nn


def train(model, lock):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    x = torch.arange(12.0).reshape(6, 2) / 12
    for _ in range(4):
        with lock:
            optimizer.zero_grad()
            model(x).pow(2).mean().backward()
            optimizer.step()  # This will update the shared parameters


if __name__ == '__main__':
    num_processes = 2
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    print(model(torch.ones(1, 2)))
    # NOTE: this is required for the ``fork`` method to work
    model.share_memory()
    lock = mp.Lock()
    processes = []
    for rank in range(num_processes):
        p = mp.Process(target=train, args=(model, lock))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    print([p.exitcode for p in processes], mp.get_start_method())
    print(model.weight.data, model.bias.data)
'''


def test_best_practices_hogwild_with_the_default_start_method(tmp_path):
    """The seeds' multiprocessing best-practices pattern, unmodified under the runner: `fork`
    is the default start method, and JAX's runtime is up in the parent when the workers start
    (a forked child would deadlock in it), so torchlike starts them from its forkserver."""
    from harness import same_script_output
    out, _ = same_script_output(_BEST_PRACTICES, tmp_path)
    assert "[0, 0] fork" in out
