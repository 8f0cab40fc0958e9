"""Mirrors `torch.utils.data.distributed.DistributedSampler`."""
import math

from .sampler import Sampler


class DistributedSampler(Sampler):
    """Mirrors `torch.utils.data.distributed.DistributedSampler`: the share of the (shuffled,
    padded or trimmed) indices for one of `num_replicas` ranks. torchlike has no process
    groups, so `num_replicas` and `rank` must be given (PyTorch reads them from
    `torch.distributed` when omitted and fails the same way without an initialised group)."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            raise ValueError("Default process group has not been initialized, please make "
                             "sure to call init_process_group.")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(self.dataset)
        if self.drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            import torchlike
            from .sampler import _permutation
            g = torchlike.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = _permutation(len(self.dataset), g)
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Mirrors `DistributedSampler.set_epoch`: reshuffle differently next pass."""
        self.epoch = epoch
