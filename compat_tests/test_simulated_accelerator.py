"""The accelerator tests (compat_tests/accelerator) in the simulated mode: a child process with
`TORCHLIKE_SIMULATED_CUDA=2`, where `cuda:0` and `cuda:1` are XLA CPU devices other than the
CPU's, so every device rule runs as on a two-GPU machine (see torchlike/_core/simulated.py).
The same tests run on a real GPU in benchmarks/gpu_check.sh."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_accelerator_suite_in_simulated_mode():
    env = dict(os.environ, TORCHLIKE_SIMULATED_CUDA="2", JAX_PLATFORMS="cpu")
    env.pop("PYTEST_XDIST_WORKER", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", os.path.join(HERE, "accelerator"), "-q",
         "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=os.path.dirname(HERE), env=env, capture_output=True, text=True, timeout=900)
    tail = proc.stdout[-6000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert passed and int(passed.group(1)) >= 70, tail
    assert not re.search(r"\d+ (failed|skipped|error)", proc.stdout), tail


def test_simulated_mode_stays_off_here():
    """The main suite runs with no accelerator: the CPU-only behaviour is what it checks."""
    import torchlike
    assert not torchlike.cuda.is_available()
