"""Child-process targets for `test_multiprocessing_shared.py` (importable by spawned and
forkserver children, under real PyTorch or torchlike)."""


def update_and_reply(t, u, w, q, done):
    """Write into the tensors the parent passed (a view of a shared tensor, a tensor that was
    not shared), put a view on `q` with what arrived of a parameter (its gradient does not
    travel), stay alive until `done` (a shared-memory tensor needs its sender alive until it
    is received)."""
    t.add_(1)
    u.add_(1)
    q.put((t[1:], type(w).__name__, w.requires_grad, w.grad is None, w.is_shared()))
    done.wait(120)
