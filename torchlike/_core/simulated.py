"""The simulated-accelerator mode: `cuda:N` on XLA's CPU devices, for tests without a GPU.

With `TORCHLIKE_SIMULATED_CUDA=N` in the environment (N >= 1, read when torchlike is first
imported), XLA's host platform is split into N + 1 devices (JAX's real multi-device support):
the first is torchlike's CPU, the others are `cuda:0` ... `cuda:N-1`, and JAX's default device
is `cuda:0`, as it is on a GPU machine. Every device rule then runs as on a GPU: placement,
transfers, mixed-device errors, 0-dim CPU scalars, where optimizer state lives, `map_location`,
pinning. Arithmetic stays XLA:CPU's (reduced floats compute as on a CPU, matmuls in full
float32), and `torch.cuda.get_device_name` says the devices are simulated.
"""
import os

import jax

ENV = "TORCHLIKE_SIMULATED_CUDA"
NAME = "Simulated CUDA (XLA CPU device)"


def _count():
    v = os.environ.get(ENV, "").strip()
    if not v or v == "0":
        return 0
    if not v.isdigit():
        raise RuntimeError(f"{ENV} must be a device count, got {v!r}")
    return int(v)


COUNT = _count()


def apply():
    """Splits the host platform before JAX starts its CPU backend (torchlike's import)."""
    if COUNT:
        jax.config.update("jax_num_cpu_devices", COUNT + 1)


def devices():
    """The simulated accelerators (empty unless the mode is on)."""
    if not COUNT:
        return ()
    cpus = jax.devices("cpu")
    if len(cpus) < COUNT + 1:
        raise RuntimeError(f"{ENV}={COUNT}: JAX's CPU backend started before torchlike could "
                           f"split it (import torchlike before running anything in JAX)")
    return tuple(cpus[1:COUNT + 1])


def make_default():
    """JAX's default device becomes cuda:0, as on a GPU machine (after the first import)."""
    if COUNT:
        jax.config.update("jax_default_device", devices()[0])
