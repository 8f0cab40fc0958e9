"""Mirrors `torch.backends.cpu`: `get_cpu_capability()` names the widest vector instruction
set of this CPU as PyTorch's does ('AVX512', 'AVX2' or 'DEFAULT' on x86; `ATEN_CPU_CAPABILITY`
overrides it). Libraries read it to pick their kernels (torchvision resizes uint8 images
natively where it says 'AVX2'); torchlike's kernels give the same results either way."""
import functools
import os
import platform

__all__ = ["get_cpu_capability"]
_AVX512 = ("avx512f", "avx512bw", "avx512vl", "avx512dq")


@functools.lru_cache(maxsize=None)
def _detected():
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64", "i386", "i686"):
        return "DEFAULT"
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("flags")), [])
    except OSError:
        return "DEFAULT"
    if all(x in flags for x in _AVX512):
        return "AVX512"
    if "avx2" in flags and "fma" in flags:
        return "AVX2"
    return "DEFAULT"


def get_cpu_capability():
    """Mirrors `torch.backends.cpu.get_cpu_capability`."""
    env = os.environ.get("ATEN_CPU_CAPABILITY", "").strip().upper()
    if env in ("DEFAULT", "AVX2", "AVX512"):
        return env
    return _detected()
