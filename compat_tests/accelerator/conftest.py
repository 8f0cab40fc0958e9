"""Tests that need an accelerator: run on a real GPU, or in the simulated mode
(`TORCHLIKE_SIMULATED_CUDA=2`, see torchlike/_core/simulated.py), which
compat_tests/test_simulated_accelerator.py starts in a child process on every CI run. The main
run, where torchlike sees no accelerator, does not collect them."""
import torchlike

if not torchlike.cuda.is_available():
    collect_ignore_glob = ["test_*.py"]
