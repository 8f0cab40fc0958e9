"""Mirrors `torch.nn.modules.utils`: the argument helpers modules (and libraries) use to
expand `kernel_size=3` into `(3, 3)`."""
import collections.abc
from itertools import repeat

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _expand(x, n):
    """`x` as an n-tuple: an iterable (not a string) as its tuple, else `x` repeated."""
    if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
        return tuple(x)
    return tuple(repeat(x, n))


def _ntuple(n, name="parse"):
    """Mirrors `torch.nn.modules.utils._ntuple`: a function expanding to n-tuples."""
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """Mirrors `torch.nn.modules.utils._reverse_repeat_tuple`: `t` reversed, each element
    repeated `n` times ((1, 2), 2 -> (2, 2, 1, 1))."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """Mirrors `torch.nn.modules.utils._list_with_default`: None entries of `out_size` taken
    from the trailing dims of `defaults`."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Mirrors `torch.nn.modules.utils.consume_prefix_in_state_dict_if_present`: strips
    `prefix` from the keys (and from `_metadata`'s), in place."""
    keys = list(state_dict.keys())
    for key in keys:
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                metadata[key[len(prefix):]] = metadata.pop(key)
