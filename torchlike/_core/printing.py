"""Tensor repr/str. Placeholder formatting until the PyTorch-exact printer lands."""
import numpy as np


def tensor_repr(t):
    a = np.asarray(t._value())
    body = np.array2string(a, separator=", ")
    return f"tensor({body})"


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Mirrors `torch.set_printoptions` (to be completed with the exact printer)."""
    raise NotImplementedError("torch.set_printoptions is not available in torchlike yet")


def get_printoptions():
    """Mirrors `torch.get_printoptions`."""
    raise NotImplementedError("torch.get_printoptions is not available in torchlike yet")
