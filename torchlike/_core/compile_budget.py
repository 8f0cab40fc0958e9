"""Keeps the number of live XLA executables below what the operating system allows.

Every XLA:CPU executable maps a few memory regions of JIT-compiled code (measured here: 3-12 per
kernel), and Linux caps a process at `vm.max_map_count` regions (65,530 by default). An eager
program that meets many shapes (a test suite, variable sequence lengths) compiles one kernel per
op per shape; past the cap, the next compilation segfaults inside LLVM. So every `CHECK_EVERY`
compilations this counts the process's mappings, and above `FRACTION` of the cap it drops JAX's
compiled-program caches: the kernels still in use recompile on their next call.
"""
import jax
import jax.monitoring

CHECK_EVERY = 256
FRACTION = 0.5
_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
_state = {"compiles": 0, "clears": 0}


def _map_limit():
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def map_count():
    """The number of memory mappings of this process (None where /proc is not available)."""
    try:
        with open("/proc/self/maps", "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return None


def _on_event(event, duration, **kwargs):
    if event == _COMPILE_EVENT:
        made()


def made():
    """Counts one executable made (compiled, or loaded whole by `programs`); every
    CHECK_EVERY, drops the caches when the mappings near the cap."""
    _state["compiles"] += 1
    if _state["compiles"] % CHECK_EVERY:
        return
    limit, used = _map_limit(), map_count()
    if limit and used is not None and used > FRACTION * limit:
        jax.clear_caches()
        from . import programs
        programs.clear()
        _state["clears"] += 1


def install():
    """Registers the compile counter (idempotent)."""
    if not _state.get("installed"):
        jax.monitoring.register_event_duration_secs_listener(_on_event)
        _state["installed"] = True
