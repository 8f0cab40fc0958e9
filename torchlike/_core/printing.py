"""Tensor repr/str. Placeholder formatting until the PyTorch-exact printer lands."""
import numpy as np


def tensor_repr(t):
    a = np.asarray(t._value())
    body = np.array2string(a, separator=", ")
    return f"tensor({body})"
