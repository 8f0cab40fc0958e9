"""What the accelerator tests compare with: real PyTorch on CUDA where the machine has one
(the GPU check), else PyTorch's documented CUDA behaviour as stated in each test, with values
from real PyTorch on the CPU (a result's values do not depend on its device)."""
import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import Raised, assert_same, run

REAL_CUDA = real_torch.cuda.is_available()


def needs_gpus(n):
    """Skip where the machine has fewer than `n` GPUs (a real one-GPU machine; the simulated
    mode has two)."""
    have = torchlike.cuda.device_count()
    if have < n:
        pytest.skip(f"needs {n} GPUs, this machine has {have}")


def device_of(x):
    return str(x.device) if hasattr(x, "device") else None


def check_error(fn, stated_type, stated_msg):
    """`fn(torch)` raises PyTorch's CUDA error: real CUDA PyTorch's where present, else the
    stated one (its text is PyTorch's, quoted in the test)."""
    got = run(fn, torchlike)
    assert isinstance(got, Raised), f"torchlike gave {got!r}, expected {stated_type}"
    if REAL_CUDA:
        assert_same(run(fn, real_torch), got)
    else:
        assert (got.type, got.msg) == (stated_type, stated_msg), got


def check_value(fn, stated_device):
    """`fn(torch)` gives PyTorch's values on PyTorch's device (`stated_device` without CUDA)."""
    got = run(fn, torchlike)
    assert not isinstance(got, Raised), got
    if REAL_CUDA:
        want = run(fn, real_torch)
        assert device_of(got) == device_of(want)
    else:
        want = run(lambda torch: fn(_CpuOnly(torch)), real_torch)
        assert device_of(got) == stated_device
    assert_same(want, got)


class _CpuOnly:
    """Real PyTorch with every `device=` and `.to(...)` pointed at the CPU: the values a
    CUDA run would give, on a machine without one."""

    def __init__(self, torch):
        self._torch = torch

    def __getattr__(self, name):
        attr = getattr(self._torch, name)
        if callable(attr) and not isinstance(attr, type) and name not in ("device",):
            def call(*args, **kwargs):
                if "device" in kwargs:
                    kwargs["device"] = "cpu"
                return attr(*args, **kwargs)
            return call
        return attr


def close(a, b):
    """Values of two tensors (any devices) agree to float32 tolerance."""
    np.testing.assert_allclose(np.asarray(a.detach().cpu().numpy()),
                               np.asarray(b.detach().cpu().numpy()), rtol=2e-5, atol=1e-6)
