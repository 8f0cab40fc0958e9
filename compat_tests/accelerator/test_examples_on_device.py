"""The examples pick "cuda" when it is available, as PyTorch's own examples do: here they train
on the (simulated or real) accelerator through the drop-in runner."""
import os

from test_examples import run as run_example

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def run(script, *args):
    """The example through the drop-in runner (the environment's accelerator mode kept)."""
    return run_example(script, *args, torchlike=True, cwd=ROOT).splitlines()


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
