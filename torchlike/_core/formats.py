"""`torch.layout` and `torch.memory_format`: the objects PyTorch names `torch.strided`,
`torch.contiguous_format`, `torch.channels_last`, ..., and what a memory format means for
strides (which dims vary fastest in memory)."""


class _Named:
    """An object printed as `torch.<name>` (PyTorch's layout and memory-format singletons)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


class layout(_Named):
    """Mirrors `torch.layout` (only strided tensors exist in torchlike)."""

    __slots__ = ()


class memory_format(_Named):
    """Mirrors `torch.memory_format`."""

    __slots__ = ()


layout.__module__ = memory_format.__module__ = "torch"  # <class 'torch.layout'>, as PyTorch's


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
_ALL = {o.name: o for o in (strided, contiguous_format, preserve_format, channels_last,
                            channels_last_3d)}


def _by_name(name):
    return _ALL[name]


# memory order of the dims (outermost first) for the channels-last formats
_ORDERS = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def dim_order(fmt, ndim):
    """The dims of an `ndim`-dim tensor in `fmt`'s memory order, outermost first (None for
    the row-major order); PyTorch's error for a channels-last format of the wrong rank."""
    if fmt is None or fmt is contiguous_format:
        return None
    if not isinstance(fmt, memory_format) or fmt is preserve_format:
        raise TypeError(f"expected a memory format, got {fmt!r}")
    rank, order = _ORDERS[fmt]
    if ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
    return order


def strides_for(size, order):
    """Dense strides for `size` laid out in `order` (outermost first), as PyTorch computes
    them (a size-0 or size-1 dim still multiplies by at least 1)."""
    stride = [0] * len(size)
    acc = 1
    for d in reversed(order):
        stride[d] = acc
        acc *= max(size[d], 1)
    return tuple(stride)


def is_dense_in(size, stride, order):
    """Whether (size, stride) is contiguous in `order`, size-1 dims ignored (PyTorch's
    `is_contiguous(memory_format=...)`)."""
    if 0 in size:
        return True
    expected = 1
    for d in reversed(order):
        if size[d] != 1:
            if stride[d] != expected:
                return False
            expected *= size[d]
    return True


def dense_strides(size, stride):
    """`stride` when the layout is non-overlapping and dense (what `preserve_format` keeps),
    else None."""
    dims = sorted((i for i in range(len(size)) if size[i] != 1), key=lambda i: stride[i])
    expect = 1
    for i in dims:
        if stride[i] != expect:
            return None
        expect *= size[i]
    return tuple(stride)


def order_of(stride):
    """Dims by decreasing stride (outermost first; ties keep their order)."""
    return tuple(sorted(range(len(stride)), key=lambda i: (-stride[i], i)))
