"""The docs' examples marked `accelerator` (```python accelerator): they need a GPU, so the
main docs test skips them; here they run with torchlike on the (simulated or real) accelerator,
and under real PyTorch too where it has CUDA. Their shown output is what CUDA PyTorch prints."""
import os

import pytest

from docs_blocks import ROOT, blocks, pages, run_python

ACCEL = [(os.path.relpath(p, ROOT), [b for b in blocks(p) if "accelerator" in b.flags])
         for p in pages()]
ACCEL = [(p, bl) for p, bl in ACCEL if bl]


def test_pages_have_accelerator_examples():
    assert any(p == os.path.join("docs", "devices.md") for p, _ in ACCEL)


@pytest.mark.parametrize("page,bl", ACCEL, ids=[p for p, _ in ACCEL])
def test_accelerator_blocks(page, bl, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import torch as real_torch
    modes = ["torchlike"] + (["torch"] if real_torch.cuda.is_available() else [])
    for mode in modes:
        failures = run_python(bl, mode, "_docs_accel_" + mode)
        assert not failures, "\n".join(failures)
