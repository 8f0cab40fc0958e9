"""Mirrors `torch.distributed` as it is on a PyTorch build without distributed support:
`is_available()` is False and no process group is ever initialised, so libraries take their
single-process paths. (torchlike's distributed runtime, on JAX's, is issue "torch.distributed";
until then every other name raises `NotAvailable`.)"""


def is_available():
    """Mirrors `torch.distributed.is_available`: False (no distributed runtime yet)."""
    return False


def is_initialized():
    """Mirrors `torch.distributed.is_initialized`: False."""
    return False


def is_torchelastic_launched():
    """Mirrors `torch.distributed.is_torchelastic_launched`: whether `TORCHELASTIC_RUN_ID` is
    set (it is not, as nothing launches torchlike's processes that way yet)."""
    import os
    return os.getenv("TORCHELASTIC_RUN_ID") is not None
