"""Index checks on an accelerator, reported as PyTorch's CUDA kernels report them.

On the CPU PyTorch checks indices (embedding rows, class targets) on the host and raises at the
op (`IndexError: index out of range in self`); its CUDA kernels check them on the device and
fail with a device-side assert that surfaces at a later call that waits for the device:
"CUDA error: device-side assert triggered". torchlike does the same on an accelerator, so that
no op reads indices back to the host (a host read waits for all queued work): the op computes
an "any index bad" flag on the device and defers it here; the next call that waits for the
device anyway (`item()`, `tolist()`, a copy to the CPU, printing, `torch.cuda.synchronize()`,
an event record) checks the deferred flags first and raises `torch.AcceleratorError` (a
`RuntimeError`) with CUDA's text. With `CUDA_LAUNCH_BLOCKING=1` the flag is checked at the op,
as that setting makes PyTorch's CUDA errors surface there.
"""
import functools
import os

import jax
import jax.numpy as jnp

from . import lazy
from .tracing import tracing

MESSAGE = ("CUDA error: device-side assert triggered\nCUDA kernel errors might be "
           "asynchronously reported at some other API call, so the stacktrace below might be "
           "incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with "
           "`TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")

PENDING = []     # flags (0-d bool arrays on a device) not yet read
_LIMIT = 256     # deferred flags kept before they are read (bounded memory)


def on_device(t):
    """Whether `t`'s index checks are deferred (a tensor on an accelerator)."""
    return t._st.device.type == "cuda"


@functools.lru_cache(maxsize=None)
def _outside(ignore):
    """A kernel: whether any index lies outside [low, high) (values equal to `ignore`
    excepted)."""
    def f(idx, low, high):
        bad = (idx < low) | (idx >= high)
        if ignore is not None:
            bad = bad & (idx != ignore)
        return jnp.any(bad)
    return jax.jit(f)


def defer_range_check(index, n, ignore=None):
    """Defer the check that the values of tensor `index` lie in [0, n) (`ignore` excepted).
    Under fused eager the check is recorded with the op, not run at once."""
    if index.numel() and not tracing():
        _defer(lazy.read(index), 0, n, ignore, index._st.device)


def defer_range_check_array(index, low, high, ignore=None):
    """Defer the check that the values of array `index` (on an accelerator) lie in
    [low, high) (`ignore` excepted)."""
    if index.size and not tracing():
        from .device import of_jax_device
        _defer(index, low, high, ignore, of_jax_device(next(iter(index.devices()))))


def _defer(index, low, high, ignore, dev):
    """Queue the flag. Inside a JAX trace (`torch.compile`, `torch.func`) nothing is checked:
    the flag would be a traced value that no later call could read, and XLA's gathers clamp
    out-of-range indices there."""
    from .._ops.registry import weak_operand
    k, dyn = _outside(ignore), (index, weak_operand(low, dev), weak_operand(high, dev))
    PENDING.append(lazy.launch(k, dyn) if lazy.ON[0] else k(*dyn))
    if os.environ.get("CUDA_LAUNCH_BLOCKING") == "1" or len(PENDING) > _LIMIT:
        check()


def check():
    """Raise CUDA's device-side assert if a deferred check failed (reading the flags waits
    for the device, which every caller is about to do anyway)."""
    if not PENDING:
        return
    flags = PENDING[:]
    del PENDING[:]
    if any(bool(lazy.force(f)) for f in flags):
        from .._errors import AcceleratorError
        raise AcceleratorError(MESSAGE)
