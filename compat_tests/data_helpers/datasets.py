"""Picklable datasets parameterised by the library's module name ("torch" or "torchlike")."""
import importlib
import os
import signal
import time


def lib(name):
    return importlib.import_module(name)


class Mixed:
    """Map-style: dict samples holding a tensor, a Python int, float and str."""

    def __init__(self, libname, n=10):
        self.libname, self.n = libname, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        torch = lib(self.libname)
        return {"x": torch.arange(3) + i, "i": i, "f": i / 4, "s": f"s{i}"}


class Sharded:
    """Iterable-style: each worker yields its own slice (by `get_worker_info`), with a
    different count per worker so that the interleaving after one worker ends is exercised."""

    def __init__(self, libname, n=11):
        self.libname, self.n = libname, n

    def __iter__(self):
        info = lib(self.libname).utils.data.get_worker_info()
        wid, nw = (info.id, info.num_workers) if info is not None else (0, 1)
        return iter(range(wid, self.n, nw))

    def __reduce__(self):  # the class is made per library at run time
        return make_sharded, (self.libname, self.n)


def make_sharded(libname, n=11):
    base = lib(libname).utils.data.IterableDataset
    cls = type("ShardedIterable", (Sharded, base), {"__module__": __name__})
    return cls(libname, n)


class Failing(Mixed):
    """Raises ValueError for sample 3."""

    def __getitem__(self, i):
        if i == 3:
            raise ValueError(f"bad sample {i}")
        return super().__getitem__(i)


class Dying(Mixed):
    """The worker process kills itself (SIGKILL) at sample 2."""

    def __getitem__(self, i):
        if i == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().__getitem__(i)


class Slow(Mixed):
    """Sleeps `delay` seconds per sample."""

    def __init__(self, libname, delay):
        super().__init__(libname)
        self.delay = delay

    def __getitem__(self, i):
        time.sleep(self.delay)
        return super().__getitem__(i)


class Indexed:
    """The seed's 'batch with its dataset indices' pattern: (data, target, index)."""

    def __init__(self, libname, n=6):
        self.libname, self.n = libname, n

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        torch = lib(self.libname)
        return torch.full((2,), float(index)), index % 3, index


class InitFn:
    """A worker_init_fn: stores (worker id, num_workers) in the worker's dataset copy."""

    def __init__(self, libname):
        self.libname = libname

    def __call__(self, worker_id):
        info = lib(self.libname).utils.data.get_worker_info()
        info.dataset.init_id = (worker_id, info.num_workers, info.id)


class Recording(Mixed):
    """Samples carry what `InitFn` stored in this worker's copy of the dataset."""

    init_id = None

    def __getitem__(self, i):
        return {"i": i, "init": list(self.init_id) if self.init_id else [-1, -1, -1]}


def send_tensor(q, done, libname):
    """Child process: put a tensor and a dict of tensors on queue `q`, then wait for `done`
    (PyTorch's shared-memory tensors need the sender alive until they are received)."""
    torch = lib(libname)
    q.put((torch.arange(6, dtype=torch.float64).reshape(2, 3),
           {"b": torch.tensor([True, False])}))
    done.wait(120)


def raise_in_child(i, message):
    """A `spawn`/`start_processes` target that fails in process 1."""
    if i == 1:
        raise ValueError(message)
