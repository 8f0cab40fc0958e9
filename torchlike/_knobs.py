"""PyTorch's global runtime knobs that live in its C core: thread counts, warn-always, flush
denormal. Each mirrors PyTorch's argument checks (its builtins' arity errors included) and reads
back what was set; what each changes in torchlike is said in its docstring.

XLA sizes its CPU thread pool when its backend starts and cannot resize it afterwards, so the
thread counts are recorded, not applied (XLA's own default is one thread per core)."""
import os
import platform

_STATE = {"threads": None, "interop": None, "interop_set": False, "warn_always": False,
          "flush_denormal": False}
_INT32 = (-2 ** 31, 2 ** 31 - 1)
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


def _builtin_args(name, args, kwargs, n):
    """PyTorch's C builtins' arity errors (`torch.set_num_threads()` ...)."""
    if kwargs:
        raise TypeError(f"torch.{name}() takes no keyword arguments")
    if len(args) != n:
        want = "no arguments" if n == 0 else "exactly one argument"
        raise TypeError(f"torch.{name}() takes {want} ({len(args)} given)")


def _tp_name(v):
    """CPython's `tp_name` of `v`'s type, as PyTorch's messages print it ('numpy.bool')."""
    t = type(v)
    return f"numpy.{t.__name__}" if t.__module__ == "numpy" else t.__name__


def _count(name, args, kwargs):
    _builtin_args(name, args, kwargs, 1)
    (n,) = args
    import numpy as np
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise RuntimeError(f"{name} expects an int, but got {_tp_name(n)}")
    if not _INT32[0] <= n <= _INT32[1]:
        raise ValueError("Overflow when unpacking long")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return int(n)


def _flag(what, name, args, kwargs=None, builtin=True):
    if builtin:
        _builtin_args(name, args, kwargs or {}, 1)
    (b,) = args
    if type(b) is not bool:
        raise RuntimeError(f"{what} expects a bool, but got {_tp_name(b)}")
    return b


def _default_threads():
    """PyTorch's default intra-op thread count. Its x86 CPU build sizes OpenMP by MKL, which
    reads MKL_NUM_THREADS, else OMP_NUM_THREADS, and never exceeds the physical cores; elsewhere
    the variable is taken as is. Without one, the physical cores (PyTorch asks cpuinfo; here
    Linux's CPU topology over the CPUs this process may use, else `os.cpu_count()`)."""
    cores = _physical_cores()
    for var in ("MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        v = os.environ.get(var, "")
        if v.isdigit() and int(v) > 0:
            return min(int(v), cores) if _X86 else int(v)
    return cores


def _physical_cores():
    try:
        cpus = os.sched_getaffinity(0)
    except AttributeError:
        return os.cpu_count() or 1
    cores = set()
    for c in cpus:
        base = f"/sys/devices/system/cpu/cpu{c}/topology/"
        try:
            with open(base + "physical_package_id") as f, open(base + "core_id") as g:
                cores.add((f.read().strip(), g.read().strip()))
        except OSError:
            return len(cpus) or 1
    return len(cores) or len(cpus) or 1


def set_num_threads(*args, **kwargs):
    """Mirrors `torch.set_num_threads(int)`. Recorded for `get_num_threads`; XLA's CPU thread
    pool is fixed when its backend starts, so torchlike's kernels do not change."""
    _STATE["threads"] = _count("set_num_threads", args, kwargs)


def get_num_threads(*args, **kwargs):
    """Mirrors `torch.get_num_threads()`: what `set_num_threads` set, else PyTorch's default
    (see `_default_threads`)."""
    _builtin_args("get_num_threads", args, kwargs, 0)
    if _STATE["threads"] is None:
        _STATE["threads"] = _default_threads()
    return _STATE["threads"]


def set_num_interop_threads(*args, **kwargs):
    """Mirrors `torch.set_num_interop_threads(int)`: allowed once, as in PyTorch (torchlike has
    no inter-op pool; the value is only recorded)."""
    n = _count("set_num_interop_threads", args, kwargs)
    if _STATE["interop_set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has "
                           "started or set_num_interop_threads called")
    _STATE["interop"], _STATE["interop_set"] = n, True


def get_num_interop_threads(*args, **kwargs):
    """Mirrors `torch.get_num_interop_threads()`: the value set, else the physical cores."""
    _builtin_args("get_num_interop_threads", args, kwargs, 0)
    if _STATE["interop"] is None:
        _STATE["interop"] = _physical_cores()
    return _STATE["interop"]


def set_warn_always(b, /):
    """Mirrors `torch.set_warn_always` (read back by `is_warn_always_enabled`). In PyTorch it
    repeats its C++ warn-once warnings; torchlike's warnings all go through Python's `warnings`
    module, whose filters decide repeats, so the flag is only recorded."""
    _STATE["warn_always"] = _flag("setWarnOnlyOnce", "set_warn_always", (b,), builtin=False)


def is_warn_always_enabled():
    """Mirrors `torch.is_warn_always_enabled`."""
    return _STATE["warn_always"]


def set_flush_denormal(*args, **kwargs):
    """Mirrors `torch.set_flush_denormal(mode)`: True where PyTorch supports the mode (x86 and
    AArch64), and the mode is recorded. Divergence: XLA's kernels do not follow it (whether a
    subnormal survives is XLA's choice per kernel)."""
    _STATE["flush_denormal"] = _flag("flush_denormal", "set_flush_denormal", args, kwargs)
    return _X86 or platform.machine().lower() in ("aarch64", "arm64")
