"""Model / training code as users write it (tutorial and GitHub style), checked against PyTorch:
each test pins a difference found by running such programs under both libraries."""
import os
import subprocess
import sys
import textwrap

import numpy as np

from harness import check

RS = np.random.RandomState(0)


def arr(*shape, dtype=np.float32):
    return RS.randn(*shape).astype(dtype)


def _run_script(tmp_path, source, *prefix):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(source))
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, *prefix, str(path.name)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def test_hinge_embedding_loss_broadcast_error_names_target_first():
    for a, b in [((5, 6), (5,)), ((5,), (5, 6)), ((2, 3), (4, 3))]:
        check(lambda torch: torch.nn.functional.hinge_embedding_loss(
            torch.ones(*a), torch.ones(*b)))


def test_runner_gives_the_script_its_absolute_path(tmp_path):
    """Warnings and tracebacks name the script by its absolute path, as `python script.py`."""
    source = """
        import warnings
        import torch
        import torch.nn.functional as F
        print(__file__)
        F.mse_loss(torch.ones(2, 3), torch.ones(3))
        raise ValueError("boom")
    """
    real = _run_script(tmp_path, source)
    ours = _run_script(tmp_path, source, "-m", "torchlike")
    assert real.stdout == ours.stdout
    assert str(tmp_path / "script.py") in real.stderr
    assert [l for l in real.stderr.splitlines() if "script.py" in l] == \
        [l for l in ours.stderr.splitlines() if "script.py" in l]
