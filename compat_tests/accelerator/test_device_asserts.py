"""Index checks on an accelerator are PyTorch's CUDA ones: made on the device, reported as
"CUDA error: device-side assert triggered" (`torch.AcceleratorError`, a RuntimeError) by the
next call that waits for the device, never by reading indices back to the host at the op.
(Stated behaviour: PyTorch's CUDA embedding and nll_loss kernels assert on bad indices, and
CUDA errors surface asynchronously. Real CUDA PyTorch is not run here: a device-side assert
leaves its CUDA context unusable for the rest of the process.)"""
import numpy as np
import pytest

import torchlike as torch

F = torch.nn.functional
CUDA_ASSERT = "CUDA error: device-side assert triggered"


@pytest.mark.parametrize("sync", ["item", "tolist", "cpu", "repr", "synchronize"])
def test_bad_embedding_index_surfaces_at_the_next_sync(sync):
    emb = torch.nn.Embedding(5, 3).to("cuda")
    out = emb(torch.tensor([1, 7], device="cuda"))      # the op itself returns
    assert out.shape == (2, 3)
    wait = {"item": lambda: out.sum().item(), "tolist": out.tolist, "cpu": out.cpu,
            "repr": lambda: repr(out), "synchronize": torch.cuda.synchronize}[sync]
    with pytest.raises(torch.AcceleratorError, match=CUDA_ASSERT) as info:
        wait()
    assert isinstance(info.value, RuntimeError)
    assert emb(torch.tensor([4], device="cuda")).sum().item() == emb.weight[4].sum().item()


def test_bad_class_target_and_ignore_index():
    x = torch.randn(4, 3, device="cuda")
    ok = F.cross_entropy(x, torch.tensor([0, 1, 2, -100], device="cuda"))
    assert np.isfinite(ok.item())
    bad = F.nll_loss(x.log_softmax(1), torch.tensor([0, 3, 1, 1], device="cuda"))
    with pytest.raises(RuntimeError, match=CUDA_ASSERT):
        bad.item()


def test_cpu_checks_stay_at_the_op():
    with pytest.raises(IndexError, match="index out of range in self"):
        torch.nn.Embedding(5, 3)(torch.tensor([7]))


def test_training_step_reads_nothing_back(monkeypatch):
    """An eager step on the accelerator (embeddings, attention, cross-entropy, AdamW) reads no
    device array back to the host until the loss is asked for."""
    import jax
    torch.manual_seed(0)
    emb, pos = torch.nn.Embedding(65, 32).cuda(), torch.nn.Embedding(16, 32).cuda()
    ln, head = torch.nn.LayerNorm(32).cuda(), torch.nn.Linear(32, 65).cuda()
    params = [p for m in (emb, pos, ln, head) for p in m.parameters()]
    opt = torch.optim.AdamW(params, lr=1e-3)
    x = torch.randint(0, 65, (4, 16), device="cuda")
    y = torch.randint(0, 65, (4, 16), device="cuda")

    def step():
        h = ln(emb(x) + pos(torch.arange(16, device="cuda")))
        mask = torch.ones(16, 16, device="cuda").tril() == 0
        att = (h @ h.transpose(1, 2)).masked_fill(mask, float("-inf")).softmax(-1)
        loss = F.cross_entropy(head(att @ h).view(-1, 65), y.view(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        return loss

    for _ in range(3):
        step()
    reads = []
    for name in ("asarray", "array"):
        orig = getattr(np, name)

        def counting(a, *args, _orig=orig, **kwargs):
            if isinstance(a, jax.Array):
                reads.append(a.shape)
            return _orig(a, *args, **kwargs)
        monkeypatch.setattr(np, name, counting)
    loss = step()
    assert reads == []
    monkeypatch.undo()
    assert np.isfinite(loss.item())


def test_advanced_indexing_checks_on_the_device():
    """`x[idx]` and `x[idx] = v` with an index tensor on the accelerator: negative indices work,
    an out-of-range one surfaces at the next sync (PyTorch's CUDA index kernel asserts)."""
    x = torch.arange(6.0, device="cuda").reshape(3, 2)
    assert x[torch.tensor([-1, 0], device="cuda")].tolist() == [[4.0, 5.0], [0.0, 1.0]]
    y = x[torch.tensor([3], device="cuda")]
    with pytest.raises(torch.AcceleratorError, match=CUDA_ASSERT):
        y.tolist()
    x[torch.tensor([0, -1], device="cuda")] = 7.0
    assert x.tolist() == [[7.0, 7.0], [2.0, 3.0], [7.0, 7.0]]
    x[torch.tensor([-4], device="cuda")] = 1.0
    with pytest.raises(torch.AcceleratorError, match=CUDA_ASSERT):
        torch.cuda.synchronize()
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        torch.arange(6.0).reshape(3, 2)[torch.tensor([3])]     # on the CPU: at the op
