"""Mirrors `torch.backends.cudnn`: flags read back as set; torchlike never calls cuDNN itself."""
from .. import cuda as _cuda

enabled = True
benchmark = False
benchmark_limit = None
deterministic = False
allow_tf32 = True


def is_available():
    """Mirrors `torch.backends.cudnn.is_available` (a GPU is where XLA would use cuDNN)."""
    return _cuda.is_available()


def version():
    """Mirrors `torch.backends.cudnn.version`: None, torchlike links no cuDNN of its own."""
    return None


def is_acceptable(tensor):
    return is_available() and tensor.is_cuda
