"""The batched fast path behind `TensorDataset._fast_batch`: one row gather per tensor instead
of one indexing op per sample plus a stack (each of which is a JAX dispatch)."""

import jax.numpy as jnp
import numpy as np

from ...._core import programs
from ...._core.tensor import Tensor, wrap


@programs.factory
def _take_kernel():
    return lambda a, idx: jnp.take(a, idx, axis=0, mode="clip")


def _rows(indices, n):
    """The indices as an int64 array, negatives wrapped; None unless all are plain in-range
    Python/NumPy integers (then the slow path raises PyTorch's own error)."""
    try:
        idx = np.fromiter(indices, dtype=np.int64, count=len(indices))
    except (TypeError, ValueError, OverflowError):
        return None
    if not all(type(i) is int or isinstance(i, np.integer) for i in indices):
        return None
    if idx.size and (idx.min() < -n or idx.max() >= n):
        return None
    return np.where(idx < 0, idx + n, idx)


def gather_rows(tensors, indices):
    """`default_collate([tuple(t[i] for t in tensors) for i in indices])`, or None."""
    if not indices or not all(type(t) is Tensor and t.dim() > 0 and not t.requires_grad
                              for t in tensors):
        return None
    idx = _rows(indices, tensors[0].size(0))
    if idx is None:
        return None
    from .worker import get_worker_info
    in_worker = get_worker_info() is not None
    return [_gather(t, idx, in_worker) for t in tensors]


def _gather(t, idx, in_worker):
    st = t._st
    if st._np is not None and t.device.type == "cpu":
        rows = np.take(t.numpy(), idx, axis=0)
        if in_worker:  # stays NumPy: it is pickled to the main process as an array anyway
            from ...._ops.creation import from_numpy
            return from_numpy(rows)
        return wrap(jnp.asarray(rows), t.device, t.dtype)
    return wrap(_take_kernel()(t._value(), idx), t.device, t.dtype)
