"""Model / training code as users write it (tutorial and GitHub style), checked against PyTorch:
each test pins a difference found by running such programs under both libraries."""
import os
import subprocess
import sys
import textwrap
import warnings

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


def _warnings_of(fn):
    """`fn(torch)` -> a function giving (category name, message, filename) of each warning."""
    def run(torch):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            out = fn(torch)
        return out, [(w.category.__name__, str(w.message), os.path.basename(w.filename))
                     for w in got]
    return run


def test_deprecated_upsample_functions_warn_at_the_caller():
    x = arr(1, 2, 3, 3)
    check(_warnings_of(lambda torch: torch.nn.functional.upsample(
        torch.tensor(x), scale_factor=2)))
    check(_warnings_of(lambda torch: torch.nn.functional.upsample_nearest(
        torch.tensor(x), size=(4, 5))))
    check(_warnings_of(lambda torch: torch.nn.functional.upsample_bilinear(
        torch.tensor(x), scale_factor=2)))
    check(_warnings_of(lambda torch: torch.nn.Upsample(scale_factor=2)(torch.tensor(x))))
