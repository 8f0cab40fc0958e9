"""PyTorch's exception classes of its C core (`torch.AcceleratorError`,
`torch.OutOfMemoryError`, also `torch.cuda.OutOfMemoryError`): `RuntimeError`s, as PyTorch's."""


class AcceleratorError(RuntimeError):
    """Mirrors `torch.AcceleratorError`: an error an accelerator reported (CUDA's)."""


class OutOfMemoryError(RuntimeError):
    """Mirrors `torch.OutOfMemoryError` (`torch.cuda.OutOfMemoryError`)."""


AcceleratorError.__module__ = OutOfMemoryError.__module__ = "torch"
