"""The queries of a device backend this build does not have (`torch.xpu`, `torch.mps`), as a
PyTorch build without it answers them: nothing is available, seeding is a no-op, and the
calls that need a device fail as PyTorch's do."""


def make(name, label):
    """The functions of `torch.<name>` on a build without it (`label`: 'XPU', 'MPS')."""
    def is_available():
        return False

    def device_count():
        return 0

    def is_initialized():
        return False

    def _seed(*args, **kwargs):
        return None

    def _absent(*args, **kwargs):
        raise AssertionError(f"Torch not compiled with {label} enabled")

    out = {"is_available": is_available, "device_count": device_count,
           "is_initialized": is_initialized, "manual_seed": _seed, "manual_seed_all": _seed,
           "seed": _seed, "seed_all": _seed, "empty_cache": _seed}
    for fn in ("current_device", "set_device", "synchronize", "get_device_name",
               "get_device_properties", "get_device_capability", "init", "current_stream",
               "memory_allocated", "max_memory_allocated", "get_rng_state", "set_rng_state"):
        out[fn] = _absent
    for k, f in out.items():
        f.__qualname__ = f.__name__ = k
        f.__doc__ = f"Mirrors `torch.{name}.{k}` on a build without {label}."
    return out
