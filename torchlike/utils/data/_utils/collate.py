"""Mirrors `torch.utils.data._utils.collate`: `default_collate`, `default_convert` and the
extensible `collate(batch, collate_fn_map=...)` they are built on.

Same dtypes as PyTorch: Python ints collate to int64 (bools to bool), floats to float64, NumPy
scalars and arrays keep their dtype; strings stay a list; mappings, named tuples and sequences
are collated field by field."""
import collections.abc
import copy
import re

import numpy as np

from ...._core.tensor import Tensor

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def _torch():
    from .... import as_tensor, stack, tensor, float64
    return as_tensor, stack, tensor, float64


def _rebuild_mapping(elem, fn):
    """`elem`'s mapping type holding `fn(key)` for each key (a plain dict if that fails)."""
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update({key: fn(key) for key in elem})
            return clone
        return type(elem)({key: fn(key) for key in elem})
    except TypeError:
        return {key: fn(key) for key in elem}


def _rebuild_sequence(elem, values):
    """`elem`'s sequence type holding `values` (a list if that fails)."""
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(elem)(list(values))
    except TypeError:
        return list(values)


def default_convert(data):
    """Mirrors `torch.utils.data.default_convert`: NumPy arrays/scalars to tensors, recursively
    (used when automatic batching is off)."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and \
                np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _torch()[0](data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, lambda key: default_convert(data[key]))
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """Mirrors `torch.utils.data._utils.collate.collate`: dispatch on the first element's type
    through `collate_fn_map`, then recurse into mappings, named tuples and sequences."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(
            elem, lambda key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map))
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Stack the tensors along a new dimension 0."""
    return _torch()[1](batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    as_tensor = _torch()[0]
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _torch()[0](np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    _, _, tensor, float64 = _torch()
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return _torch()[2](batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Mirrors `torch.utils.data.default_collate`: a list of samples to one batch, with the
    samples' structure (e.g. a dict of samples gives a dict of batches)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
