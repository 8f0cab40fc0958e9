"""Mirrors `torch.nn.attention`: the attention backend choices (`SDPBackend`, `sdpa_kernel`)
and `flex_attention`. torchlike's `scaled_dot_product_attention` is one XLA kernel whichever
backend is asked for, so `sdpa_kernel` records the choice and changes no result."""
import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """Mirrors `torch.nn.attention.SDPBackend`."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_CHOSEN = [tuple(SDPBackend)[1:]]


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Mirrors `torch.nn.attention.sdpa_kernel` (the choice is recorded; see the module
    docstring)."""
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = tuple(backends)
    for b in backends:
        if not isinstance(b, SDPBackend):
            raise AssertionError("Backend must be an instance of SDPBackend")
    prev, _CHOSEN[0] = _CHOSEN[0], backends
    try:
        yield {}
    finally:
        _CHOSEN[0] = prev


from . import flex_attention  # noqa: E402,F401
