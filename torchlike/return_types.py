"""Mirrors `torch.return_types`: the named tuples multi-output ops return.

Each type is a `namedtuple` whose `__module__` is `torch.return_types` and whose repr matches
PyTorch's structseq repr (`torch.return_types.max(\\nvalues=...,\\nindices=...)`). Other op
families can add their own with `make(name, fields)`.
"""
import collections

__all__ = []


def _repr(self):
    name = type(self).__name__
    body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
    return f"torch.return_types.{name}(\n{body})"


def make(name, fields):
    """Create (or return the existing) `torch.return_types.<name>` named tuple type."""
    existing = globals().get(name)
    if isinstance(existing, type) and getattr(existing, "_fields", None) == tuple(fields):
        return existing
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "torch.return_types"
    cls.__qualname__ = name
    cls.__repr__ = _repr
    cls.__str__ = _repr
    globals()[name] = cls
    __all__.append(name)
    return cls


for _name in ("max", "min", "sort", "topk", "kthvalue", "mode", "median", "nanmedian",
              "cummax", "cummin"):
    make(_name, ("values", "indices"))
make("aminmax", ("min", "max"))
del _name
