"""Mirrors `torch.nn.utils.rnn`: `PackedSequence` and the pack / pad helpers.

Packing and padding are gathers with index arrays computed on the host from the (CPU)
lengths / batch sizes; each runs as one cached jitted JAX function through `apply_jax`, so
gradients flow back to the padded / packed data."""
from collections import namedtuple
from collections.abc import Iterable

import jax.numpy as jnp
import numpy as np

from ..._core.tensor import Tensor
from ...autograd.function import apply_jax
from ..._core import programs

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]


def _tl():
    import torchlike
    return torchlike


def _host(t):
    """A CPU int64 NumPy copy of a tensor (or sequence) of integers."""
    if isinstance(t, Tensor):
        return np.asarray(t._value()).astype(np.int64)
    return np.asarray(t, dtype=np.int64)


def _bind(optional, fn):
    return None if optional is None else fn(optional)


_PackedSequenceBase = namedtuple("PackedSequence_",
                                 ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    """Mirrors `torch.nn.utils.rnn.PackedSequence`: (data, batch_sizes, sorted_indices,
    unsorted_indices); every RNN module accepts one as input."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. "
                    "Instances of PackedSequence should never be created manually. "
                    "They should be instantiated by functions like pack_sequence "
                    "and pack_padded_sequences in nn.utils.rnn. "
                    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        else:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data[0], data[1]
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          _bind(self.sorted_indices, lambda t: t.pin_memory()),
                          _bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """Dtype / device conversion of `data` (indices follow the device); `self` if no-op."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = kwargs.get("non_blocking", False)
        sorted_indices = _bind(self.sorted_indices,
                               lambda t: t.to(data.device, non_blocking=non_blocking))
        unsorted_indices = _bind(self.unsorted_indices,
                                 lambda t: t.to(data.device, non_blocking=non_blocking))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        ex = _tl().tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        ex = _tl().tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=_tl().double)

    def float(self):
        return self.to(dtype=_tl().float)

    def half(self):
        return self.to(dtype=_tl().half)

    def long(self):
        return self.to(dtype=_tl().long)

    def int(self):
        return self.to(dtype=_tl().int)

    def short(self):
        return self.to(dtype=_tl().short)

    def char(self):
        return self.to(dtype=_tl().int8)

    def byte(self):
        return self.to(dtype=_tl().uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """Mirrors `torch.nn.utils.rnn.invert_permutation`."""
    if permutation is None:
        return None
    tl = _tl()
    output = tl.empty_like(permutation)
    output.scatter_(0, permutation, tl.arange(0, permutation.numel(), device=permutation.device))
    return output


# ---- kernels ----------------------------------------------------------------------------------

@programs.factory
def _gather_kernel():
    """rows of `x` (flattened over its first two dims) at `idx`."""
    def f(x, idx):
        return x.reshape((-1,) + x.shape[2:])[idx]
    return f


@programs.factory
def _pad_kernel():
    """`data` (N, *) gathered at `idx` (any shape) with index N reading `padding_value`."""
    def f(data, idx, padding_value):
        pad = jnp.full((1,) + data.shape[1:], padding_value).astype(data.dtype)
        return jnp.concatenate([data, pad], 0)[idx]
    return f


@programs.factory
def _pad_sequence_kernel(batch_first, left, T):
    def f(seqs, padding_value):
        dt = seqs[0].dtype
        trailing = seqs[0].shape[1:]
        rows = []
        for s in seqs:
            s = jnp.broadcast_to(s.astype(dt), (s.shape[0],) + trailing)
            pad = jnp.full((T - s.shape[0],) + trailing, padding_value).astype(dt)
            rows.append(jnp.concatenate([pad, s] if left else [s, pad], 0))
        return jnp.stack(rows, 0 if batch_first else 1)
    return f


def _on_host(sequences):
    """True when padding `sequences` is host work: CPU tensors, no gradient to record, no
    trace (a collate function's batches, whose lengths change every time: one kernel per set
    of lengths otherwise)."""
    from ..._core import grad_state
    from ..._core.tracing import tracing
    return not tracing() and all(isinstance(s, Tensor) and s.device.type == "cpu" and
                                 not (grad_state.ENABLED[0] and s.requires_grad)
                                 for s in sequences)


def _pad_sequence_host(sequences, batch_first, left, T, padding_value):
    """`pad_sequence` of CPU tensors on the host; the result is kept padded to a size class
    where its sizes keep changing (see `_core/buckets.py`)."""
    from ..._core import buckets
    from ..._core.device import put
    arrays = [buckets.host_value(s) for s in sequences]
    dt = arrays[0].dtype
    trailing = arrays[0].shape[1:]
    out = np.empty((len(arrays), T) + trailing, dt)
    out[...] = np.asarray(padding_value, np.float64).astype(dt)
    for i, a in enumerate(arrays):
        n = a.shape[0]
        rows = slice(T - n, T) if left else slice(0, n)
        out[i, rows] = np.broadcast_to(a.astype(dt), (n,) + trailing)
    if not batch_first:
        out = np.ascontiguousarray(out.swapaxes(0, 1))
    return buckets.settle_host(out, put, sequences[0].device)


def _lengths_of(batch_sizes):
    bs = _host(batch_sizes)
    B = int(bs[0]) if len(bs) else 0
    return (bs[None, :] > np.arange(B)[:, None]).sum(1).astype(np.int64)


def _padded_rows(batch_sizes, T):
    """(T, B): each padded position's row in the packed data, N where padding."""
    bs = _host(batch_sizes)
    B = int(bs[0]) if len(bs) else 0
    N = int(bs.sum())
    idx = np.full((T, B), N, dtype=np.int64)
    off = 0
    for t, n in enumerate(bs):
        idx[t, :n] = off + np.arange(n)
        off += n
    return idx


# ---- public functions -------------------------------------------------------------------------

def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Mirrors `torch.nn.utils.rnn.pack_padded_sequence`."""
    tl = _tl()
    if not isinstance(lengths, Tensor):
        lengths = tl.as_tensor(lengths, dtype=tl.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=tl.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = tl.sort(lengths, descending=True, stable=True)
        sorted_indices = sorted_indices.to(input.device)
    if lengths.dim() != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D cpu Long tensor")
    batch_dim = 0 if batch_first else 1
    if input.dim() <= batch_dim or input.dim() < 2:
        # PyTorch's index_select / size(batch_dim) error
        input.size(batch_dim)
    T = input.shape[1 if batch_first else 0]
    B = input.shape[batch_dim]
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    ln = _host(lengths)
    if len(ln) != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(ln)} (batch_size={B})")
    if len(ln) and ln[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    if np.any(ln[:-1] < ln[1:]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    if len(ln) and ln[0] > T:
        raise RuntimeError(f"Expected the longest sequence length ({ln[0]}) to be at most the "
                           f"padded length ({T})")
    src = np.arange(B) if sorted_indices is None else _host(sorted_indices)
    steps = int(ln[0]) if len(ln) else 0
    batch_sizes = np.array([(ln > t).sum() for t in range(steps)], dtype=np.int64)
    flat = []
    for t in range(steps):
        b = src[:batch_sizes[t]]
        flat.append(b * T + t if batch_first else t * B + b)
    flat = np.concatenate(flat).astype(np.int64) if flat else np.zeros(0, np.int64)
    (data,) = apply_jax(_gather_kernel(), [input, flat], name="PackPaddedSequenceBackward0")
    return PackedSequence(data, tl.as_tensor(batch_sizes, dtype=tl.int64, device="cpu"),
                          sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Mirrors `torch.nn.utils.rnn.pad_packed_sequence`: returns (padded, lengths)."""
    tl = _tl()
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length "
                "of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    idx = _padded_rows(sequence.batch_sizes, max_seq_length)
    lengths = _lengths_of(sequence.batch_sizes)
    if sequence.unsorted_indices is not None:
        un = _host(sequence.unsorted_indices)
        idx = idx[:, un]
        lengths = lengths[un]
    if batch_first:
        idx = np.ascontiguousarray(idx.T)
    (out,) = apply_jax(_pad_kernel(), [sequence.data, idx, padding_value],
                       name="PadPackedSequenceBackward0")
    return out, tl.as_tensor(lengths, dtype=tl.int64, device="cpu")


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Mirrors `torch.nn.utils.rnn.pad_sequence`."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    trailing = tuple(sequences[0].shape[1:])
    for s in sequences[1:]:
        st = tuple(s.shape[1:])
        full_a, full_b = (s.shape[0],) + trailing, (s.shape[0],) + st
        if len(full_b) > len(full_a):
            raise RuntimeError(f"The expanded size of the tensor ({len(full_a)}) must match the "
                               f"existing size ({len(full_b)})")
        # broadcast `s` into (len, *trailing) from the right, as `copy_` does
        for k in range(1, len(full_b) + 1):
            a, b = full_a[-k], full_b[-k]
            if a != b and b != 1:
                raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b "
                                   f"({b}) at non-singleton dimension {len(full_a) - k}")
    T = max(s.shape[0] for s in sequences)
    if _on_host(sequences):
        return _pad_sequence_host(sequences, batch_first, padding_side == "left", T,
                                  padding_value)
    fn = _pad_sequence_kernel(bool(batch_first), padding_side == "left", T)
    (out,) = apply_jax(fn, [list(sequences), padding_value], name="PadSequenceBackward0")
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Mirrors `torch.nn.utils.rnn.unpad_sequence` (transposes a time-major input in place,
    as PyTorch does)."""
    tl = _tl()
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = tl.arange(max_length, device=lengths.device)
    for seq, length in zip(padded_sequences, lengths, strict=True):
        mask = idx < length
        unpadded_sequences.append(seq[mask])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    """Mirrors `torch.nn.utils.rnn.pack_sequence`."""
    tl = _tl()
    lengths = tl.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Mirrors `torch.nn.utils.rnn.unpack_sequence`."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
