"""How much of the database a run covers: CI's share, and the whole sweep's."""
import torch as real_torch

# CI (about two minutes of the suite's time): every entry's first sample at float32 and int64
# through every variant, all its error inputs, the float64 gradient of its first sample.
CI = dict(dtypes=(real_torch.float32, real_torch.int64), max_samples=1, grad_samples=1)
# The sweep (compat_tests/opinfo/sweep.py): every dtype an entry lists on CPU, eight samples,
# each also non-contiguous.
FULL = dict(dtypes=None, max_samples=8, grad_samples=8, noncontiguous=True)
