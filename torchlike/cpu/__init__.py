"""Mirrors `torch.cpu`: the CPU device module (always available, one device) and its `amp`."""


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def is_initialized():
    return True


def set_device(device):
    """A no-op, as in PyTorch."""


def synchronize(device=None):
    """A no-op: torchlike's CPU ops are synchronous."""
