"""Mirrors `torch.utils.data.dataset`: map-style and iterable-style datasets and their
combinators (`TensorDataset`, `StackDataset`, `ConcatDataset`, `ChainDataset`, `Subset`,
`random_split`)."""
import bisect
import itertools
import math
import warnings

from ...random import default_generator


class Dataset:
    """Mirrors `torch.utils.data.Dataset`: subclasses implement `__getitem__` (and usually
    `__len__`); `a + b` concatenates."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])

    def __class_getitem__(cls, item):  # Dataset[int] in user annotations
        return cls


class IterableDataset(Dataset):
    """Mirrors `torch.utils.data.IterableDataset`: subclasses implement `__iter__`; in a
    DataLoader worker, `get_worker_info()` tells the replica which shard to yield."""

    def __iter__(self):
        raise NotImplementedError

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Mirrors `torch.utils.data.TensorDataset`: sample `i` is `tuple(t[i] for t in tensors)`.

    A DataLoader with the default collate gathers a whole batch with one indexing op per tensor
    (`_fast_batch`), which gives the same batch as indexing sample by sample and stacking."""

    def __init__(self, *tensors):
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)

    def _fast_batch(self, indices):
        """`default_collate([self[i] for i in indices])` as one gather per tensor, or None when
        that shortcut does not apply (a subclass's `__getitem__`, autograd, odd indices)."""
        if type(self).__getitem__ is not TensorDataset.__getitem__:
            return None
        from ._utils.gather import gather_rows
        return gather_rows(self.tensors, indices)


class StackDataset(Dataset):
    """Mirrors `torch.utils.data.StackDataset`: samples of several same-length datasets, as a
    tuple (positional) or a dict (keywords)."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        named = isinstance(self.datasets, dict)
        items = self.datasets.items() if named else enumerate(self.datasets)
        samples = [{} if named else [] for _ in indices]
        for key, d in items:
            col = _batch_items(d, indices, nested=True)
            for s, v in zip(samples, col):
                if named:
                    s[key] = v
                else:
                    s.append(v)
        return samples if named else [tuple(s) for s in samples]

    def __len__(self):
        return self._length


def _batch_items(dataset, indices, nested=False):
    """`dataset.__getitems__(indices)` where defined, else one `dataset[i]` per index."""
    getitems = getattr(dataset, "__getitems__", None)
    if callable(getitems):
        items = getitems(indices)
        if nested and len(items) != len(indices):
            raise ValueError("Nested dataset's output size mismatch."
                             f" Expected {len(indices)}, got {len(items)}")
        return items
    return [dataset[i] for i in indices]


class ConcatDataset(Dataset):
    """Mirrors `torch.utils.data.ConcatDataset`."""

    @staticmethod
    def cumsum(sequence):
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self):
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Mirrors `torch.utils.data.ChainDataset`: iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """Mirrors `torch.utils.data.Subset`: the samples of `dataset` at `indices`."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        return _batch_items(self.dataset, [self.indices[i] for i in indices])

    def __len__(self):
        return len(self.indices)

    def _fast_batch(self, indices):
        inner = getattr(self.dataset, "_fast_batch", None)
        if inner is None or type(self).__getitems__ is not Subset.__getitems__ or \
                callable(getattr(self.dataset, "__getitems__", None)):
            return None
        return inner([self.indices[i] for i in indices])


def random_split(dataset, lengths, generator=default_generator):
    """Mirrors `torch.utils.data.random_split`: lengths or fractions; the permutation comes
    from `torchlike.randperm(generator=...)`."""
    from ... import randperm
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(len(dataset) * frac))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, n in enumerate(lengths):
            if n == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              f"This might result in an empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - n:end])
            for end, n in zip(itertools.accumulate(lengths), lengths)]

