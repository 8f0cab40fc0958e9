"""Mirrors `torch.signal.windows`: the window functions (defined in `windows.py`, as PyTorch's
are)."""
from .windows import (  # noqa: F401
    bartlett, blackman, cosine, exponential, gaussian, general_cosine, general_hamming, hamming,
    hann, kaiser, nuttall)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
