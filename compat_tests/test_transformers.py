"""transformers, safetensors, timm, torchmetrics and einops on torchlike, unmodified, under the
drop-in runner, against the same libraries on real PyTorch.

`ecosystem_scripts/transformers_workload.py` (tiny GPT-2, Llama with grouped-query attention and
BERT: losses, logits, gradients, AdamW steps, greedy/sampled/beam generation, save_pretrained and
from_pretrained through safetensors) runs under `python -m torchlike` and on real PyTorch (with
torchvision's operators defined, see `torchvision_scripts/real_torchvision.py`: transformers
imports torchvision when it is installed), and every result is compared; so does
`ecosystem_scripts/timm_metrics_workload.py` (timm's resnet18/ViT/ConvNeXt forward, backward and
eval, torchmetrics' classification and regression metrics over batches, einops). safetensors
files cross between the libraries both ways."""
import os
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "ecosystem_scripts")
REAL = os.path.join(HERE, "torchvision_scripts", "real_torchvision.py")


def _start(args, cwd, runner):
    env = dict(os.environ, OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("PYTHONPATH", None)
    cmd = [sys.executable] + (["-m", "torchlike"] if runner else [REAL]) + args
    return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(p):
    out, err = p.communicate(timeout=900)
    assert p.returncode == 0, err[-4000:]
    return out


def _run(args, cwd, runner):
    return _finish(_start(args, cwd, runner))


def _both(tmp_path_factory, script):
    """The script's results under torchlike and on real PyTorch (the two run side by side)."""
    runs = {}
    for runner, name in ((True, "torchlike"), (False, "torch")):
        d = tmp_path_factory.mktemp(name)
        runs[name] = (d, _start([os.path.join(SCRIPTS, script), str(d / "r.npz"), str(d)],
                                str(d), runner))
    out = {}
    for name, (d, p) in runs.items():
        _finish(p)
        out[name] = dict(np.load(d / "r.npz"))
    return out


def _compare(results, tol):
    ours, real = results["torchlike"], results["torch"]
    assert sorted(ours) == sorted(real)
    bad = []
    for key, a in real.items():
        b = ours[key]
        rtol, atol = tol(key)
        if a.shape != b.shape or a.dtype != b.dtype:
            bad.append(f"{key}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}")
        elif a.dtype.kind == "f":
            atol = 1e-4 * np.abs(a).max() if atol is None else atol   # relative to the scale
            if not np.allclose(b, a, rtol=rtol, atol=atol):
                bad.append(f"{key}: max diff {np.abs(a - b).max()}")
        elif not np.array_equal(a, b):
            bad.append(f"{key}: {a.tolist()} vs {b.tolist()}")
    assert not bad, "\n".join(bad)
    return ours


def test_transformers_same_results_as_real_pytorch(tmp_path_factory):
    ours = _compare(_both(tmp_path_factory, "transformers_workload.py"),
                    lambda key: (1e-4, 2e-6))
    assert ours["gpt2_greedy"].shape == (2, 8) and ours["llama_beam"].shape[1] == 8


def test_timm_torchmetrics_einops_same_results_as_real_pytorch(tmp_path_factory):
    """Gradients through deep convolution stacks are compared at 1e-4 of their largest element
    (float32 sums in another order)."""
    ours = _compare(_both(tmp_path_factory, "timm_metrics_workload.py"),
                    lambda key: (1e-3, None) if key.endswith("_grad") else (1e-4, 2e-6))
    assert ours["metric_confmat"].sum() == 20


def test_safetensors_files_cross_both_ways(tmp_path):
    """A file real PyTorch wrote is read by torchlike (every dtype, values and shapes), and the
    file torchlike writes back is read by real PyTorch with the same tensors and metadata."""
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file
    g = torch.Generator().manual_seed(0)
    tensors = {"w": torch.randn(3, 4, generator=g), "h": torch.randn(5, generator=g).half(),
               "bf": torch.randn(2, 3, generator=g).bfloat16(),
               "i": torch.arange(7, dtype=torch.int64), "m": torch.tensor([True, False, True]),
               "u": torch.arange(5, dtype=torch.uint8), "s": torch.tensor(2.5),
               "e": torch.zeros(0, 3), "d": torch.randn(2, 2, generator=g).double()}
    save_file(tensors, tmp_path / "real.safetensors")
    out = _run([os.path.join(SCRIPTS, "safetensors_roundtrip.py"),
                str(tmp_path / "real.safetensors"), str(tmp_path / "read.npz"),
                str(tmp_path / "ours.safetensors")], str(tmp_path), True)
    assert "shared views saved" not in out and "RuntimeError" in out
    read = np.load(tmp_path / "read.npz")
    for k, v in tensors.items():
        ref = (v.float() if v.dtype == torch.bfloat16 else v).numpy()
        assert read[k].dtype == ref.dtype and read[k].shape == ref.shape, k
        assert np.array_equal(read[k], ref), k
    back = load_file(tmp_path / "ours.safetensors")
    assert sorted(back) == sorted(tensors)
    for k, v in tensors.items():
        assert back[k].dtype == v.dtype and torch.equal(back[k], v), k
    with safe_open(tmp_path / "ours.safetensors", framework="pt") as f:
        assert f.metadata() == {"from": "torchlike"}
