"""Mirrors `torch.random`: seeding helpers and `fork_rng`."""
import contextlib

from ._ops.random import (  # noqa: F401
    Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Mirrors `torch.random.fork_rng`: restores the CPU (and CUDA) RNG state on exit."""
    if not enabled:
        yield
        return
    from ._ops import random as _r
    cpu = default_generator.clone_state()
    cuda = {i: g.clone_state() for i, g in _r._cuda_generators.items()}
    try:
        yield
    finally:
        default_generator.graphsafe_set_state(cpu)
        for i, st in cuda.items():
            _r._cuda_generators[i].graphsafe_set_state(st)
