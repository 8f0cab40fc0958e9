"""Mirrors `torch.torch_version`: `TorchVersion`, the string type of `torch.__version__` that
also compares with version strings and tuples (`torch.__version__ >= (2, 0)`)."""
import re

_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+)*)(?:\+([0-9a-zA-Z.]+))?\s*$")


def _key(v):
    """(release numbers without trailing zeros, local part) ordered as PEP 440 orders them: a
    version with a local part (`+cpu`) follows the same release without one."""
    if isinstance(v, tuple):
        v = ".".join(str(x) for x in v)
    if not isinstance(v, str):
        return None
    m = _RELEASE.match(v)
    if m is None:
        raise ValueError(f"Invalid version: '{v}'")
    release = [int(x) for x in m.group(1).split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    return tuple(release), ((1, m.group(2)) if m.group(2) else (0, ""))


class TorchVersion(str):
    """Mirrors `torch.torch_version.TorchVersion` (release numbers and a local part)."""

    __hash__ = str.__hash__


def _compare(op):
    def method(self, other):
        k = _key(other)
        if k is None:
            return NotImplemented
        return op(_key(str(self)), k)
    return method


for _name, _op in (("__lt__", lambda a, b: a < b), ("__le__", lambda a, b: a <= b),
                   ("__gt__", lambda a, b: a > b), ("__ge__", lambda a, b: a >= b),
                   ("__eq__", lambda a, b: a == b), ("__ne__", lambda a, b: a != b)):
    setattr(TorchVersion, _name, _compare(_op))
TorchVersion.__module__ = "torch.torch_version"
