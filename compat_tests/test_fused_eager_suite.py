"""The differential suite run the other way: a broad part of it (views, autograd,
custom Functions, saved tensors, optimizers, modules, random streams, the seeds' programs,
torch.func) in a fresh process with fused eager on (`TORCHLIKE_FUSED_EAGER=1`), where every op
outside a JAX trace is recorded and run as a segment program. The whole suite passes that way
too (`TORCHLIKE_FUSED_EAGER=1 python -m pytest compat_tests`); this part keeps it so on every
commit."""
import os
import re
import subprocess
import sys

_HERE = os.path.dirname(__file__)
_FILES = ["test_views.py", "test_autograd.py", "test_autograd_function.py", "test_saved_tensors.py",
          "test_optim.py", "test_nn_module.py", "test_random_streams.py", "test_seeds.py",
          "test_func.py"]


def test_suite_part_passes_with_fused_eager_on(tmp_path):
    # (a cache folder of its own: its programs must not crowd out the suite's, whose tests
    # count compiles)
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
         *[os.path.join(_HERE, f) for f in _FILES]],
        capture_output=True, text=True, timeout=1200, cwd=os.path.dirname(_HERE),
        env=dict(os.environ, TORCHLIKE_FUSED_EAGER="1", TORCHLIKE_CACHE_DIR=str(tmp_path)))
    tail = r.stdout[-6000:]
    assert r.returncode == 0, tail + r.stderr[-2000:]
    assert re.search(r"\d+ passed", tail) and not re.search(r"\d+ failed", tail), tail
