"""What the summaries are made of: NumPy values from tensors, arrays and numbers."""
import numpy as np


def to_numpy(x):
    """A NumPy array of a tensor (detached, on the host), an array, a number or a list."""
    from ..._core.tensor import Tensor
    if isinstance(x, Tensor):
        return x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, list):
        return np.asarray(x)
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar_value(x):
    """A Python float of a one-element value."""
    from ..._core.tensor import Tensor
    if isinstance(x, Tensor) and x.numel() != 1:
        # (PyTorch's message, its spacing included)
        raise AssertionError(f"Tensor should contain one element (0 dimensions).             "
                             f"Was given size: {x.numel()} and {x.dim()} dimensions.")
    a = to_numpy(x)
    if a.squeeze().ndim != 0:
        raise AssertionError("scalar should be 0D")
    return float(a.reshape(()) if a.size == 1 else a)


def to_hwc(a, dataformats):
    """An image array laid out as `dataformats` ("CHW", "HWC", "HW", "NCHW"...) as HWC with
    three or four channels (grey repeated; a batch tiled eight to a row)."""
    dataformats = dataformats.upper()
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(f"You can not use the same dimension shordhand twice. "
                             f"input_format: {dataformats}")
    if a.ndim != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different.         "
                             f"tensor shape: {a.shape}, input_format: {dataformats}")
    if len(dataformats) == 4:
        a = a.transpose([dataformats.index(c) for c in "NCHW"])
        return _tile(a).transpose(1, 2, 0)
    if len(dataformats) == 3:
        a = a.transpose([dataformats.index(c) for c in "HWC"])
        return np.concatenate([a] * 3, 2) if a.shape[2] == 1 else a
    a = a.transpose([dataformats.index(c) for c in "HW"])
    return np.stack([a] * 3, 2)


def _tile(batch, per_row=8):
    """NCHW images side by side, `per_row` to a row, as one CHW image (grey made RGB)."""
    if batch.shape[1] == 1:
        batch = np.concatenate([batch] * 3, 1)
    if batch.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, c, h, w = batch.shape
    cols = min(n, per_row)
    rows = -(-n // cols)
    canvas = np.zeros((c, h * rows, w * cols), dtype=batch.dtype)
    for i in range(n):
        r, col = divmod(i, cols)
        canvas[:, r * h:(r + 1) * h, col * w:(col + 1) * w] = batch[i]
    return canvas


def to_uint8(a):
    """Pixel values as bytes: float images are in [0, 1], byte images already in [0, 255]."""
    scale = 1 if a.dtype == np.uint8 else 255
    return (a.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
