"""Mirrors `torch.Size`: a tuple of ints with `numel()` and PyTorch's repr."""
import math


class _SizeMeta(type):
    """`Size` prints as PyTorch's class does: `<class 'torch.Size'>`."""

    def __repr__(cls):
        if cls.__name__ == "Size" and cls.__module__ == __name__:
            return "<class 'torch.Size'>"
        return super().__repr__()


class Size(tuple, metaclass=_SizeMeta):
    """Mirrors `torch.Size`."""

    __slots__ = ()

    def __new__(cls, seq=()):
        return tuple.__new__(cls, (int(s) for s in seq))

    def numel(self):
        return math.prod(self)

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))
