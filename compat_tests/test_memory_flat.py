"""Memory stays flat: a training loop with periodic sampling (other shapes, no_grad) and a
weight read with .numpy() holds the same resident memory from its warm-up on (kernel, fused
program and scalar caches bounded, no graph or buffer kept alive). Measured in a fresh process."""
import json
import os
import subprocess
import sys

_SCRIPT = os.path.join(os.path.dirname(__file__), "runner_scripts", "memory_flat.py")


def test_training_with_sampling_does_not_grow():
    r = subprocess.run([sys.executable, _SCRIPT], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    marks = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(marks) == 11
    warm = marks[2]                      # after 100 steps and two samplings
    assert max(marks[2:]) - warm < 8, marks
