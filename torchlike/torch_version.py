"""Mirrors `torch.torch_version`: `TorchVersion`, the string type of `torch.__version__` that
also compares with version strings and tuples (`torch.__version__ >=
(2, 0)`), ordering them as PEP 440 does, and falls back to plain string comparison for a
string that is not a version ('N/A', 'parrot'), as PyTorch's does."""
import re

_PEP440 = re.compile(
    r"""^\s*v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>\d+)?)?
    (?:-(?P<post_n1>\d+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>\d+)?)?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>\d+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$""",
    re.VERBOSE | re.IGNORECASE)
_PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc", "preview": "rc",
        "rc": "rc"}
_LOW, _HIGH = (-1,), (1,)   # below / above every (0, ...) part


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version."""


def _key(v):
    """The PEP 440 sort key of version string `v`."""
    m = _PEP440.match(v)
    if m is None:
        raise InvalidVersion(f"Invalid version: '{v}'")
    release = [int(x) for x in m.group("release").split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    pre_l, post, dev = m.group("pre_l"), None, None
    if m.group("post_n1") is not None:
        post = int(m.group("post_n1"))
    elif m.group("post_l") is not None:
        post = int(m.group("post_n2") or 0)
    if m.group("dev_l") is not None:
        dev = int(m.group("dev_n") or 0)
    if pre_l is None:
        # a dev release of X sorts before X's pre-releases; X itself after them
        pre = _LOW if post is None and dev is not None else _HIGH
    else:
        pre = (0, _PRE[pre_l.lower()], int(m.group("pre_n") or 0))
    local = _LOW
    if m.group("local"):
        local = (0,) + tuple((1, int(p), "") if p.isdigit() else (0, 0, p.lower())
                             for p in re.split(r"[-_.]", m.group("local")))
    return (int(m.group("epoch") or 0), tuple(release), pre,
            _LOW if post is None else (0, post), _HIGH if dev is None else (0, dev), local)


def _as_version(other):
    """`other` (a string or a tuple of numbers) as a version string. A `packaging` Version is
    neither (PyTorch recognises only its vendored copy's), so comparing with one raises
    TypeError as in PyTorch."""
    if isinstance(other, str):
        return other
    if isinstance(other, (tuple, list)):
        return ".".join(str(x) for x in other)
    raise InvalidVersion(other)


class TorchVersion(str):
    """Mirrors `torch.torch_version.TorchVersion`."""

    __slots__ = ()
    __hash__ = str.__hash__


def _compare(name, op):
    def method(self, other):
        try:
            return op(_key(str(self)), _key(_as_version(other)))
        except InvalidVersion:
            return getattr(str, name)(self, other)
    method.__name__ = name
    return method


for _name, _op in (("__lt__", lambda a, b: a < b), ("__le__", lambda a, b: a <= b),
                   ("__gt__", lambda a, b: a > b), ("__ge__", lambda a, b: a >= b),
                   ("__eq__", lambda a, b: a == b)):
    setattr(TorchVersion, _name, _compare(_name, _op))
TorchVersion.__module__ = "torch.torch_version"
