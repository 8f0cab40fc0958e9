"""The seeds' DataLoader examples: an IterableDataset re-iterated per epoch, a Dataset whose items
are dicts (batched into a dict of batches), and a Dataset that also returns each sample's index."""
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset


class FakeIterableDataset(IterableDataset):
    def __init__(self, data):
        self.data = data
        self.count = 0

    def __iter__(self):
        print('Count:{}'.format(self.count))
        self.count += 1
        return iter(torch.cat([self.data, self.data]))


class FakeDataset(Dataset):
    def __init__(self, data):
        self.data = data

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return {'idx': index, 'data': self.data[index] * 10}


class MyDataset(Dataset):
    """The seed's index-returning dataset, over a small in-memory dataset instead of CIFAR-10."""

    def __init__(self):
        self.images = torch.arange(8 * 3 * 4 * 4, dtype=torch.float32).view(8, 3, 4, 4)
        self.labels = torch.arange(8) % 3

    def __getitem__(self, index):
        data, target = self.images[index], self.labels[index]
        return data, target, index

    def __len__(self):
        return len(self.images)


if __name__ == "__main__":
    fake_dataset = FakeIterableDataset(torch.arange(10))
    ld = DataLoader(fake_dataset, batch_size=3)
    for item in ld:
        print(item)

    ld = DataLoader(FakeDataset(torch.arange(10)), batch_size=3)
    for item in ld:
        print(item)

    loader = DataLoader(MyDataset(), batch_size=1, shuffle=True, num_workers=1)
    seen = []
    for batch_idx, (data, target, idx) in enumerate(loader):
        seen.append(idx.item())
        assert data.shape == (1, 3, 4, 4) and target.item() == idx.item() % 3
    print('every index seen once:', sorted(seen) == list(range(8)))
