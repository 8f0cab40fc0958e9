"""The examples pick "cuda" when it is available, as PyTorch's own examples do: here they train
on the (simulated or real) accelerator through the drop-in runner."""
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def run(script, *args):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    cmd = [sys.executable, "-m", "torchlike", script, *args]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.splitlines()


def test_digits_cnn_on_device(tmp_path):
    out = run("digits_cnn.py", "--epochs", "3", "--out", str(tmp_path))
    assert out[-1] == f"saved {tmp_path}/digits_cnn.pt; reloaded model gives the same " \
                      f"accuracy: True"
    accuracy = float(next(ln for ln in out if ln.startswith("test accuracy")).split()[-1])
    assert accuracy >= 0.85, out


def test_char_transformer_on_device():
    out = run("char_transformer.py", "--steps", "60", "--sample-chars", "40")
    losses = [float(ln.split()[-1]) for ln in out if ln.startswith("step")]
    assert losses[-1] < losses[0] - 0.5, out
    assert len(out[-1]) >= 40, out
