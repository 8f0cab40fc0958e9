"""Mirrors `torch.fft`: the `fft_*` rows of the op table under their short names."""
from ._core.tensor import Tensor  # noqa: F401 - torch.fft.Tensor, as PyTorch's module has it
from ._ops.registry import FUNCTIONS as _F

_NAMES = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
          "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftshift",
          "ifftshift", "fftfreq", "rfftfreq")
for _n in _NAMES:
    globals()[_n] = _F["fft_" + _n]

del _n
