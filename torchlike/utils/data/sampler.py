"""Mirrors `torch.utils.data.sampler`. The random samplers draw from the generators as
PyTorch's do (a seeded run shuffles in PyTorch's order)."""
import itertools


class Sampler:
    """Mirrors `torch.utils.data.Sampler`: subclasses provide `__iter__` (and `__len__`)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError

    def __class_getitem__(cls, item):
        return cls


class SequentialSampler(Sampler):
    """Mirrors `torch.utils.data.SequentialSampler`: 0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _torch():
    import torchlike
    return torchlike


def _permutation(n, generator):
    """`torch.randperm(n, generator=generator)` as a list."""
    return _torch().randperm(n, generator=generator).tolist()


class RandomSampler(Sampler):
    """Mirrors `torch.utils.data.RandomSampler`: a fresh permutation per pass (with
    `replacement`, uniform draws); `num_samples` longer than the data chains permutations."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        torch = _torch()
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator()
            generator.manual_seed(seed)
        if self.replacement:  # in batches of 32 draws, as PyTorch's sampler
            for size in [32] * (self.num_samples // 32) + [self.num_samples % 32]:
                yield from torch.randint(high=n, size=(size,), dtype=torch.int64,
                                         generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _permutation(n, generator)
        yield from _permutation(n, generator)[: self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """Mirrors `torch.utils.data.SubsetRandomSampler`: `indices` in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _permutation(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Mirrors `torch.utils.data.WeightedRandomSampler`: indices drawn with probability
    proportional to `weights` (via `torchlike.multinomial`)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or \
                num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        torch = _torch()
        weights_tensor = torch.as_tensor(weights, dtype=torch.double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        rand_tensor = _torch().multinomial(self.weights, self.num_samples, self.replacement,
                                           generator=self.generator)
        yield from iter(rand_tensor.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Mirrors `torch.utils.data.BatchSampler`: lists of `batch_size` indices from `sampler`."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
