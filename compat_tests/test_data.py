"""torch.utils.data in the main process (num_workers=0), PyTorch against torchlike: batches
(values, dtypes, structure) for dataset/sampler/collate combinations with shuffle=False, the
validation errors, and the properties of the shuffled orders (which are not PyTorch's numbers:
torchlike's random streams differ)."""
import collections
import contextlib
import io
import warnings

import numpy as np
import pytest

import torchlike
from harness import check

Point = collections.namedtuple("Point", ["x", "y"])


def _data(torch):
    return torch.utils.data


def _loader_output(torch, make):
    """Everything observable from iterating the loader twice, plus len()."""
    loader = make(torch)
    out = [list(loader), list(loader)]
    try:
        out.append(len(loader))
    except TypeError as e:
        out.append(f"TypeError: {e}")
    return out


def _map_ds(torch, n, fn):
    """A map-style dataset of `n` samples `fn(torch, i)`, subclassing the library's Dataset."""
    class DS(_data(torch).Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            return fn(torch, i)
    return DS()


def _tensor_ds(torch):
    x = torch.arange(40, dtype=torch.float32).reshape(10, 4)
    return _data(torch).TensorDataset(x, torch.arange(10) * 3, (torch.arange(10) % 2).bool())


CASES = {
    "tensor_dataset": lambda t: _data(t).DataLoader(_tensor_ds(t), batch_size=4),
    "tensor_dataset_drop_last": lambda t: _data(t).DataLoader(_tensor_ds(t), batch_size=3,
                                                              drop_last=True),
    "tensor_dataset_batch_none": lambda t: _data(t).DataLoader(_tensor_ds(t), batch_size=None),
    "python_numbers_strings": lambda t: _data(t).DataLoader(
        _map_ds(t, 5, lambda torch, i: (i, i / 2, i % 2 == 0, f"s{i}", b"b")), batch_size=2),
    "numpy_arrays_scalars": lambda t: _data(t).DataLoader(
        _map_ds(t, 5, lambda torch, i: (np.full((2,), i, np.float32), np.int16(i),
                                        np.float64(i) / 3, np.bool_(i % 2))), batch_size=2),
    "dict_samples": lambda t: _data(t).DataLoader(
        _map_ds(t, 7, lambda torch, i: {"idx": i, "data": torch.arange(3)[i % 3] * 10}),
        batch_size=3),
    "namedtuple_samples": lambda t: _data(t).DataLoader(
        _map_ds(t, 4, lambda torch, i: Point(torch.tensor([i, -i]), float(i))), batch_size=3),
    "nested": lambda t: _data(t).DataLoader(
        _map_ds(t, 4, lambda torch, i: {"a": [torch.ones(2) * i, {"b": (i, [i, i + 1])}],
                                        "c": Point(i, "z")}), batch_size=2),
    "custom_collate": lambda t: _data(t).DataLoader(
        _map_ds(t, 5, lambda torch, i: torch.tensor(float(i))), batch_size=2,
        collate_fn=lambda b: (len(b), torch_sum(b))),
    "batch_none_convert": lambda t: _data(t).DataLoader(
        _map_ds(t, 3, lambda torch, i: {"a": np.arange(i + 1), "b": (np.float32(i), "s")}),
        batch_size=None),
    "sequential_sampler": lambda t: _data(t).DataLoader(
        _tensor_ds(t), sampler=_data(t).SequentialSampler(range(7)), batch_size=3),
    "custom_index_sampler": lambda t: _data(t).DataLoader(
        _tensor_ds(t), sampler=[9, 0, 5, 5, -1], batch_size=2),
    "batch_sampler": lambda t: _data(t).DataLoader(
        _tensor_ds(t), batch_sampler=_data(t).BatchSampler(range(9, -1, -1), 4, True)),
    "batch_sampler_lists": lambda t: _data(t).DataLoader(
        _tensor_ds(t), batch_sampler=[[1, 2], [0], [9, 8, 7]]),
    "subset": lambda t: _data(t).DataLoader(
        _data(t).Subset(_tensor_ds(t), [8, 2, 5, 1, 0]), batch_size=2),
    "concat": lambda t: _data(t).DataLoader(
        _tensor_ds(t) + _data(t).Subset(_tensor_ds(t), [3, 4]), batch_size=5),
    "stack_tuple": lambda t: _data(t).DataLoader(
        _data(t).StackDataset(_tensor_ds(t), range(10, 20)), batch_size=4),
    "stack_dict": lambda t: _data(t).DataLoader(
        _data(t).StackDataset(a=_tensor_ds(t), b=list("abcdefghij")), batch_size=4),
    "distributed_no_shuffle": lambda t: [
        list(_data(t).DataLoader(_tensor_ds(t), batch_size=2,
                                 sampler=_data(t).DistributedSampler(
                                     range(10), num_replicas=3, rank=r, shuffle=False,
                                     drop_last=d)))
        for r in range(3) for d in (False, True)],
}


def torch_sum(b):
    return sum(float(v) for v in b)


@pytest.mark.parametrize("case", list(CASES))
def test_batches_match_torch(case):
    check(_loader_output, CASES[case])


def _iter_cases(t):
    class Stream(_data(t).IterableDataset):
        def __init__(self, data):
            self.data = data

        def __iter__(self):
            return iter(self.data)

        def __len__(self):
            return len(self.data)
    d = _data(t)
    return [
        list(d.DataLoader(Stream(list(range(7))), batch_size=3)),
        list(d.DataLoader(Stream(list(range(7))), batch_size=3, drop_last=True)),
        list(d.DataLoader(Stream([{"a": i} for i in range(3)]), batch_size=None)),
        list(d.DataLoader(Stream([1, 2]) + Stream([3]), batch_size=2)),
        list(d.DataLoader(d.ChainDataset([Stream([1.5]), Stream([2.5, 3.5])]), batch_size=2)),
        len(d.DataLoader(Stream(list(range(7))), batch_size=3)),
        len(d.ChainDataset([Stream([1]), Stream([2, 3])])),
    ]


def test_iterable_datasets_match_torch():
    check(_iter_cases)


def _printed(torch, seed_code):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        seed_code(torch)
    return buf.getvalue()


def _seed_iterable(torch):
    """shared/seeds/002: FakeIterableDataset (verbatim apart from the imports)."""
    IterableDataset, DataLoader = torch.utils.data.IterableDataset, torch.utils.data.DataLoader

    class FakeIterableDataset(IterableDataset):
        def __init__(self, data):
            self.data = data
            self.count = 0

        def __iter__(self):
            print('Count:{}'.format(self.count))
            self.count += 1
            return iter(torch.cat([self.data, self.data]))

    fake_dataset = FakeIterableDataset(torch.arange(10))
    ld = DataLoader(fake_dataset, batch_size=3)
    for item in ld:
        print(item)


def _seed_dict(torch):
    """shared/seeds/002: a Dataset whose __getitem__ returns a dict."""
    Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader

    class FakeDataset(Dataset):
        def __init__(self, data):
            self.data = data

        def __len__(self):
            return len(self.data)

        def __getitem__(self, index):
            return {'idx': index, 'data': self.data[index] * 10}

    fake_dataset = FakeDataset(torch.arange(10))
    ld = DataLoader(fake_dataset, batch_size=3)
    for item in ld:
        print(item)


SEED_OUTPUT = {
    _seed_iterable: "Count:0\ntensor([0, 1, 2])\ntensor([3, 4, 5])\ntensor([6, 7, 8])\n"
                    "tensor([9, 0, 1])\ntensor([2, 3, 4])\ntensor([5, 6, 7])\ntensor([8, 9])\n",
    _seed_dict: "{'idx': tensor([0, 1, 2]), 'data': tensor([ 0, 10, 20])}\n"
                "{'idx': tensor([3, 4, 5]), 'data': tensor([30, 40, 50])}\n"
                "{'idx': tensor([6, 7, 8]), 'data': tensor([60, 70, 80])}\n"
                "{'idx': tensor([9]), 'data': tensor([90])}\n",
}


@pytest.mark.parametrize("seed_code", list(SEED_OUTPUT), ids=["iterable", "dict"])
def test_seed_dataloader_examples_print_the_seed_output(seed_code):
    expected, actual = check(_printed, seed_code)
    assert actual == expected == SEED_OUTPUT[seed_code]  # the seed's own printed text


def _collate_direct(torch):
    d = torch.utils.data
    out = []
    for batch in ([1, 2], [1.0, 2], [True, False], ["a", "b"], [np.float16(1), np.float16(2)],
                  [np.zeros((2, 2), np.int32), np.ones((2, 2), np.int32)],
                  [{"k": 1, "j": [2.0]}, {"k": 3, "j": [4.0]}], [(1, "x"), (2, "y")],
                  [Point(1, 2.0), Point(3, 4.0)], [[1, 2], [3]], [object()],
                  [np.array(["a"]), np.array(["b"])], [torch.zeros(2), torch.zeros(3)]):
        try:
            out.append(d.default_collate(batch))
        except Exception as e:  # noqa: BLE001
            out.append(f"{type(e).__name__}: {e}".replace(str(object), "object"))
    for data in (np.arange(3), {"a": np.float32(2), "b": (np.int8(1), "s")}, [np.bool_(1)],
                 np.array(["x"]), 3, "str", Point(np.int64(1), 2)):
        out.append(d.default_convert(data))
    return out


def test_default_collate_and_convert():
    check(_collate_direct)


def _dataset_ops(torch):
    d = torch.utils.data
    ds = _tensor_ds(torch)
    cat = d.ConcatDataset([ds, d.Subset(ds, [0, 1])])
    out = [len(cat), cat.cumulative_sizes, cat[-1], cat[10], ds[3], len(ds), ds[[1, 2]],
           d.Subset(ds, [4, 5])[[0, 1]], d.StackDataset(ds, ds)[2],
           [len(s) for s in d.random_split(range(10), [3, 7])],
           [len(s) for s in d.random_split(range(10), [0.3, 0.3, 0.4])],
           [len(s) for s in d.random_split(range(5), [0.5, 0.5])]]
    for bad in (lambda: cat[-13], lambda: d.ConcatDataset([]),
                lambda: d.TensorDataset(torch.zeros(2), torch.zeros(3)),
                lambda: d.StackDataset(ds, x=ds), lambda: d.StackDataset(ds, range(3)),
                lambda: d.StackDataset(), lambda: d.random_split(range(10), [3, 3]),
                lambda: d.random_split(range(10), [1.5, -0.5]), lambda: d.Dataset()[0],
                lambda: ds[10], lambda: list(d.ChainDataset([range(3)]))):
        try:
            out.append(bad())
        except Exception as e:  # noqa: BLE001
            out.append(f"{type(e).__name__}: {e}")
    return out


def test_dataset_classes_match_torch():
    check(_dataset_ops)


def _errors(torch):
    d = torch.utils.data
    ds = _tensor_ds(torch)
    out = []
    for bad in (
            lambda: d.DataLoader(ds, num_workers=-1),
            lambda: d.DataLoader(ds, timeout=-1),
            lambda: d.DataLoader(ds, prefetch_factor=2),
            lambda: d.DataLoader(ds, persistent_workers=True),
            lambda: d.DataLoader(ds, shuffle=True, sampler=range(3)),
            lambda: d.DataLoader(ds, batch_sampler=[[0]], batch_size=2),
            lambda: d.DataLoader(ds, batch_size=None, drop_last=True),
            lambda: d.DataLoader(ds, multiprocessing_context="spawn"),
            lambda: d.DataLoader(ds, num_workers=1, multiprocessing_context="nope"),
            lambda: d.DataLoader(ds, num_workers=1, multiprocessing_context=3),
            lambda: setattr(d.DataLoader(ds), "batch_size", 3),
            lambda: d.RandomSampler(ds, replacement=1),
            lambda: d.RandomSampler(ds, num_samples=0),
            lambda: d.WeightedRandomSampler([1.0], 0),
            lambda: d.WeightedRandomSampler([1.0], 2, replacement=0),
            lambda: d.WeightedRandomSampler([[1.0]], 2),
            lambda: d.BatchSampler(range(3), 0, False),
            lambda: d.BatchSampler(range(3), 2, None),
            lambda: d.DistributedSampler(range(3), num_replicas=2, rank=2),
            lambda: list(d.DataLoader(ds, sampler=[10], batch_size=1)),
            lambda: list(d.DataLoader(_map_ds(torch, 2, lambda t, i: [1] * (i + 1)),
                                      batch_size=2)),
    ):
        try:
            out.append(bad())
        except Exception as e:  # noqa: BLE001
            out.append(f"{type(e).__name__}: {e}")
    return out


def test_argument_errors_match_torch():
    check(_errors)


def _iterable_errors(torch):
    d = torch.utils.data

    class S(d.IterableDataset):
        def __iter__(self):
            return iter([1])
    out = []
    for kw in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        try:
            d.DataLoader(S(), **kw)
        except ValueError as e:
            out.append(str(e).split(", but got")[0])
    try:
        len(d.DataLoader(S()))
    except TypeError as e:
        out.append(type(e).__name__)
    return out


def test_iterable_dataset_errors_match_torch():
    check(_iterable_errors)


def test_pin_memory_and_loader_options_accepted():
    def f(torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = list(torch.utils.data.DataLoader(_tensor_ds(torch), batch_size=5,
                                                   pin_memory=True))
        return out, [str(x.message) for x in w]
    check(f)


# ---- shuffled orders: permutations, reproducible from a seeded generator ----------------------

def _epoch(loader):
    return [b[1].tolist() for b in loader]


def test_shuffle_each_epoch_is_a_permutation_and_seed_reproduces_it():
    d = torchlike.utils.data
    ds = d.TensorDataset(torchlike.arange(50).float(), torchlike.arange(50))
    loader = d.DataLoader(ds, batch_size=8, shuffle=True)
    epochs = [_epoch(loader) for _ in range(3)]
    for e in epochs:
        assert [len(b) for b in e] == [8] * 6 + [2]
        assert sorted(sum(e, [])) == list(range(50))
    assert epochs[0] != epochs[1] != epochs[2]
    runs = []
    for _ in range(2):
        g = torchlike.Generator().manual_seed(7)
        seeded = d.DataLoader(ds, batch_size=8, shuffle=True, generator=g)
        runs.append([_epoch(seeded), _epoch(seeded)])
    assert runs[0] == runs[1] and runs[0][0] != runs[0][1]
    torchlike.manual_seed(3)
    a = _epoch(loader)
    torchlike.manual_seed(3)
    assert _epoch(loader) == a  # the global seed also reproduces it
    for xb, yb in d.DataLoader(ds, batch_size=8, shuffle=True):  # fast path keeps rows aligned
        assert xb.dtype == torchlike.float32 and yb.dtype == torchlike.int64
        assert xb.tolist() == [float(v) for v in yb.tolist()]


def test_random_samplers_properties():
    d = torchlike.utils.data
    g = lambda: torchlike.Generator().manual_seed(11)  # noqa: E731
    rs = d.RandomSampler(range(10), num_samples=25, generator=g())
    idx = list(rs)
    assert len(idx) == len(rs) == 25 and sorted(idx[:20]) == sorted(list(range(10)) * 2)
    assert list(d.RandomSampler(range(10), num_samples=25, generator=g())) == idx
    rep = list(d.RandomSampler(range(5), replacement=True, num_samples=40, generator=g()))
    assert len(rep) == 40 and set(rep) <= set(range(5)) and len(set(rep)) > 1
    sub = list(d.SubsetRandomSampler([3, 30, 300, 3000], generator=g()))
    assert sorted(sub) == [3, 30, 300, 3000]
    w = list(d.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50, generator=g()))
    assert len(w) == 50 and set(w) == {1, 3} and w.count(3) > w.count(1)
    w2 = list(d.WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False, generator=g()))
    assert sorted(w2) == [0, 1, 2, 3]
    assert list(d.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50, generator=g())) == w


def test_random_split_and_distributed_sampler_shuffle():
    d = torchlike.utils.data
    parts = d.random_split(range(20), [0.5, 0.25, 0.25],
                           generator=torchlike.Generator().manual_seed(1))
    again = d.random_split(range(20), [10, 5, 5], generator=torchlike.Generator().manual_seed(1))
    assert [list(p) for p in parts] == [list(p) for p in again]
    assert sorted(sum((list(p) for p in parts), [])) == list(range(20))
    samplers = [d.DistributedSampler(range(10), num_replicas=3, rank=r, seed=5)
                for r in range(3)]
    first = [list(s) for s in samplers]
    assert all(len(x) == 4 for x in first) and set(sum(first, [])) == set(range(10))
    assert first == [list(s) for s in samplers]
    for s in samplers:
        s.set_epoch(1)
    assert [list(s) for s in samplers] != first


def test_fast_path_equals_per_sample_path():
    """The TensorDataset batch gather gives exactly what per-sample indexing + stack gives."""
    d = torchlike.utils.data
    x = torchlike.randn(30, 3, 2)
    ds = d.TensorDataset(x, torchlike.arange(30, dtype=torchlike.int16), x[:, 0, 0] > 0)
    sampler = list(range(29, -1, -3)) + [-1, -30]
    fast = list(d.DataLoader(ds, batch_size=4, sampler=sampler))
    slow = list(d.DataLoader(ds, batch_size=4, sampler=sampler,
                             collate_fn=lambda b: d.default_collate(b)))
    sub = d.Subset(ds, list(range(30)))
    via_subset = list(d.DataLoader(sub, batch_size=4, sampler=sampler))
    for f, s, v in zip(fast, slow, via_subset):
        for a, b, c in zip(f, s, v):
            assert a.dtype == b.dtype == c.dtype and a.shape == b.shape == c.shape
            assert np.array_equal(a.numpy(), b.numpy()) and np.array_equal(a.numpy(), c.numpy())
