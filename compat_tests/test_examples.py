"""Every example is a plain PyTorch script: run it with real PyTorch (`python script.py`) and
through the runner (`python -m torchlike script.py`), and compare what they print where it is
deterministic (numbers within float32 tolerance; training runs from random initialisations are
compared on their deterministic lines and on reaching the accuracy/loss they promise)."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "examples")
SEEDS = sorted(f for f in os.listdir(os.path.join(ROOT, "seeds")) if f.endswith(".py"))
_NUM = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def run(script, *args, torchlike, cwd):
    cmd = [sys.executable] + (["-m", "torchlike"] if torchlike else []) + [script, *args]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def same_text(real, ours, rel=2e-4, abs_=2e-5):
    """Equal line by line, decimal numbers within tolerance (last printed digit may differ)."""
    a, b = real.splitlines(), ours.splitlines()
    assert len(a) == len(b), (real, ours)
    for la, lb in zip(a, b):
        assert _NUM.sub("#", la) == _NUM.sub("#", lb), (la, lb)
        for x, y in zip(_NUM.findall(la), _NUM.findall(lb)):
            assert abs(float(x) - float(y)) <= abs_ + rel * abs(float(x)), (la, lb)


@pytest.mark.parametrize("script", SEEDS)
def test_seed_program_prints_what_torch_prints(script):
    cwd = os.path.join(ROOT, "seeds")
    same_text(run(script, torchlike=False, cwd=cwd), run(script, torchlike=True, cwd=cwd))


def test_linear_regression_matches_torch_closely():
    real = run("linear_regression.py", torchlike=False, cwd=ROOT).splitlines()
    ours = run("linear_regression.py", torchlike=True, cwd=ROOT).splitlines()
    model_repr = [ln for ln in real if not ln.startswith(("step", "final"))]
    assert [ln for ln in ours if not ln.startswith(("step", "final"))] == model_repr
    # Different random initial weights (random streams differ), the same fit quality.
    assert float(ours[-1].split()[-1]) < 0.01 and float(real[-1].split()[-1]) < 0.01


def _deterministic(lines):
    return [ln for ln in lines if not ln.startswith(("epoch", "test accuracy", "step", "From"))]


def test_digits_cnn(tmp_path):
    args = ["--epochs", "4", "--out", str(tmp_path)]
    real = run("digits_cnn.py", *args, torchlike=False, cwd=ROOT).splitlines()
    ours = run("digits_cnn.py", *args, torchlike=True, cwd=ROOT).splitlines()
    saved = f"saved {tmp_path}/digits_cnn.pt; reloaded model gives the same accuracy: True"
    assert ours[-1] == real[-1] == saved
    assert _deterministic(ours) == _deterministic(real)
    accuracy = float(next(ln for ln in ours if ln.startswith("test accuracy")).split()[-1])
    assert accuracy >= 0.93, ours        # 12 epochs (the main job) reach >= 0.95
    assert (tmp_path / "training_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_char_transformer():
    args = ["--steps", "30", "--sample-chars", "24"]
    real = run("char_transformer.py", *args, torchlike=False, cwd=ROOT).splitlines()
    ours = run("char_transformer.py", *args, torchlike=True, cwd=ROOT).splitlines()
    header = ours[:next(i for i, ln in enumerate(ours) if ln.startswith("step"))]
    assert header == real[:len(header)] and len(header) == 3
    losses = [float(ln.split()[-1]) for ln in ours if ln.startswith("step")]
    assert losses[-1] < losses[0] - 0.5, ours
    sample = ours[ours.index("--- sample ---") + 1:]
    assert "\n".join(sample).startswith("From fairest creatures we desire")
    assert len("\n".join(sample)) == 32 + 24
