"""How much of the database a run covers: CI's share, and the whole sweep's."""
import torch as real_torch

# CI: the first samples of every entry at three dtypes, with every variant; all error inputs;
# float64 gradients of the first samples.
CI = dict(dtypes=(real_torch.float32, real_torch.int64, real_torch.bool), max_samples=2,
          grad_samples=2)
# The sweep (compat_tests/opinfo/sweep.py): every dtype an entry lists on CPU, eight samples,
# each also non-contiguous.
FULL = dict(dtypes=None, max_samples=8, grad_samples=8, noncontiguous=True)
