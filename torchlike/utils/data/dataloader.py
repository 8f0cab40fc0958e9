"""Mirrors `torch.utils.data.DataLoader`: batches from a dataset through a sampler and a
collate function, in the main process or in worker processes.

Workers are forked from a forkserver (see `_utils/context.py`) and talk to the main process over
one duplex pipe each: the main process sends (task, indices), the worker replies with the
collated batch, its tensors pickled as NumPy arrays and wrapped into JAX-backed tensors on
arrival. Tasks go to workers round-robin and batches are yielded in task order, as PyTorch's
`in_order=True`, so a map-style dataset gives the same batches for any `num_workers`. While
waiting, the main process also watches the workers' process sentinels, so a worker that dies
is reported at once ("DataLoader worker (pid(s) ...) exited unexpectedly")."""
import itertools
import math
import os
import warnings
from multiprocessing import connection as _mpc

from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, Sampler
from ._utils import transfer
from ._utils.collate import default_collate, default_convert
from ._utils.context import WORKER_NAME, start_server_early, stop_replay_here, worker_context
from ._utils.fetch import create_fetcher
from ._utils.worker import (ERROR, ITER_END, RESUMED, MP_STATUS_CHECK_INTERVAL,
                            _worker_loop)


class _InfiniteConstantSampler(Sampler):
    """Yields None forever: the index stream of an iterable-style dataset."""

    def __iter__(self):
        while True:
            yield None


def _cpu_count():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count()


_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
           "persistent_workers")


class DataLoader:
    """Mirrors `torch.utils.data.DataLoader`. `pin_memory` and `pin_memory_device` are
    accepted (there is no pinned host memory on JAX: batches stay ordinary CPU tensors); the
    default worker start method is a JAX-safe forkserver, not `fork`."""

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor "
                "to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = 1
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = 0

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == 1:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()
        if num_workers > 0 and multiprocessing_context is None:
            start_server_early()

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        if multiprocessing_context is not None:
            import multiprocessing as mp
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
            if isinstance(multiprocessing_context, str):
                valid = mp.get_all_start_methods()
                if multiprocessing_context not in valid:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid start method "
                        f"in {valid!r}, but got multiprocessing_context="
                        f"{multiprocessing_context!r}")
                multiprocessing_context = mp.get_context(multiprocessing_context)
            if not isinstance(multiprocessing_context, mp.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context "
                                "object or a string specifying the start method, but got "
                                f"multiprocessing_context={multiprocessing_context}")
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in _FROZEN:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self):
        if self._dataset_kind == 1:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = (length // self.batch_size if self.drop_last
                          else math.ceil(length / self.batch_size))
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        if not self.num_workers:
            return
        suggest = _cpu_count()
        if suggest is None or self.num_workers > suggest:
            cpuset = hasattr(os, "sched_getaffinity")
            part = ("DataLoader is not able to compute a suggested max number of worker in "
                    "current system." if suggest is None else
                    f"Our suggested max number of worker in current system is {suggest}"
                    f"{'' if cpuset else ' (`cpuset` is not taken into account)'}, which is "
                    "smaller than what this DataLoader is going to create.")
            warnings.warn(
                f"This DataLoader will create {self.num_workers} worker processes in total. "
                f"{part} Please be aware that excessive worker creation might get DataLoader "
                "running slow or even freeze, lower the worker number to avoid potential "
                "slowness/freeze if necessary.", stacklevel=2)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        from ... import empty, int64
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be "
                          "used as the device,ignore pin_memory_device="
                          f"'{loader.pin_memory_device}'.", stacklevel=3)
        if loader.pin_memory and not _accelerator_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        self._pin = bool(loader.pin_memory) and _accelerator_available()
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = empty((), dtype=int64).random_(generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        if self._sampler_iter is None:
            self._reset()
        data = self._next_data()
        if self._pin:
            data = pin_batch(data)
        self._num_yielded += 1
        if self._dataset_kind == 1 and self._IterableDataset_len_called is not None and \
                self._num_yielded > self._IterableDataset_len_called:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be "
                   f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                   f"{self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly "
                        "configuring the IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data."
                        "IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


def pin_batch(data):
    """PyTorch's pinning of a batch: tensors (and objects with `pin_memory`) inside mappings,
    named tuples and sequences; a plain tuple becomes a list, as in PyTorch."""
    import collections.abc as abc
    from ..._core.tensor import Tensor
    if isinstance(data, Tensor):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, abc.Mapping):
        items = {k: pin_batch(v) for k, v in data.items()}
        try:
            return type(data)(items)
        except TypeError:
            return items
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(pin_batch(v) for v in data))
    if isinstance(data, tuple):
        return [pin_batch(v) for v in data]
    if isinstance(data, abc.Sequence):
        items = [pin_batch(v) for v in data]
        try:
            return type(data)(items)
        except TypeError:
            return items
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data


def _accelerator_available():
    from ... import cuda
    return cuda.is_available()


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = create_fetcher(self._dataset_kind == 1, self._dataset,
                                       self._auto_collation, self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()
        return self._fetcher.fetch(index)


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Workers over pipes; see the module docstring."""

    def __init__(self, loader):
        stop_replay_here()
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        if self._prefetch_factor <= 0:
            raise AssertionError(
                "prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        ctx = loader.multiprocessing_context or worker_context()
        payload, self._files = transfer.dumps(dict(
            dataset=self._dataset, iterable=self._dataset_kind == 1,
            auto_collation=self._auto_collation, collate_fn=self._collate_fn,
            drop_last=self._drop_last, base_seed=self._base_seed,
            worker_init_fn=loader.worker_init_fn, num_workers=self._num_workers), share=True)
        self._shutdown = False
        self._workers, self._conns = [], []
        try:
            for i in range(self._num_workers):
                mine, theirs = ctx.Pipe(duplex=True)
                w = ctx.Process(target=_worker_loop, args=(theirs, payload, i), daemon=True,
                                name=f"{WORKER_NAME}-{i}")
                w.start()
                theirs.close()
                self._workers.append(w)
                self._conns.append(mine)
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_worker = {}
        self._active = [True] * self._num_workers
        self._cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for conn in self._conns:
                conn.send("resume")
            for w in range(self._num_workers):
                while self._receive(w)[0] != RESUMED:
                    pass
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        if len(self._task_worker) >= self._prefetch_factor * self._num_workers:
            return
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            w = next(self._cycle)
            if self._active[w]:
                break
        else:
            return
        try:
            self._conns[w].send((index,))
        except OSError as e:  # the worker's end is gone: it died
            self._raise_dead(w, e)
        self._task_worker[self._send_idx] = w
        self._send_idx += 1

    def _dead_workers_error(self, cause=None):
        dead = [w for w in self._workers if not w.is_alive()]
        if not dead:
            return None
        details = "; ".join(_death_reason(w) for w in dead)
        pids = ", ".join(str(w.pid) for w in dead)
        err = RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")
        err.__cause__ = RuntimeError(details)
        return err

    def _raise_dead(self, w, cause):
        """Worker `w`'s pipe broke: report the dead worker(s) (waiting for the exit to be
        visible, since the pipe can close a moment before the process is reaped)."""
        self._workers[w].join(timeout=MP_STATUS_CHECK_INTERVAL)
        err = self._dead_workers_error(cause)
        if err is None:
            raise cause
        self._shutdown_workers()
        raise err from err.__cause__

    def _receive(self, w):
        """The next reply of worker `w`, waiting at most `timeout` (if set) and failing fast
        when any worker process dies."""
        conn = self._conns[w]
        sentinels = [p.sentinel for p in self._workers]
        waited = 0.0
        while True:
            step = MP_STATUS_CHECK_INTERVAL
            if self._timeout > 0:
                step = min(step, self._timeout - waited)
            ready = _mpc.wait([conn] + sentinels, step)
            if conn in ready:
                try:
                    return transfer.loads(conn.recv_bytes())
                except (EOFError, OSError) as e:
                    self._raise_dead(w, e)
            if ready:
                err = self._dead_workers_error()
                if err is not None:
                    self._shutdown_workers()
                    raise err from err.__cause__
            waited += step
            if self._timeout > 0 and waited >= self._timeout:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx and \
                    not self._active[self._task_worker[self._rcvd_idx]]:
                del self._task_worker[self._rcvd_idx]
                self._rcvd_idx += 1
            if self._rcvd_idx >= self._send_idx:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            w = self._task_worker[self._rcvd_idx]
            kind, data = self._receive(w)
            if kind == ITER_END:
                self._active[w] = False
                self._try_put_index()
                continue
            del self._task_worker[self._rcvd_idx]
            self._rcvd_idx += 1
            self._try_put_index()
            if kind == ERROR:
                data.reraise()
            return data

    def _shutdown_workers(self):
        if getattr(self, "_shutdown", True):
            return
        self._shutdown = True
        for conn in self._conns:
            try:
                conn.send("stop")
            except OSError:
                pass
        for w in self._workers:  # idle workers exit at once; a busy one gets a moment
            w.join(timeout=1.0)
            if w.is_alive():
                w.terminate()
                w.join()
        for conn in self._conns:
            conn.close()
        transfer.cleanup(self._files)

    def __del__(self):
        self._shutdown_workers()


def _death_reason(w):
    code = w.exitcode
    if code is not None and code < 0:
        import signal
        try:
            name = signal.strsignal(-code)
        except ValueError:
            name = f"signal {-code}"
        return f"DataLoader worker (pid {w.pid}) is killed by signal: {name}."
    return (f"DataLoader worker (pid {w.pid}) exited unexpectedly with exit code {code}. "
            "Details are lost due to multiprocessing. Rerunning with num_workers=0 may give "
            "better error trace.")


class _DatasetKind:
    """Mirrors `torch.utils.data.dataloader._DatasetKind`."""
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        return create_fetcher(kind == _DatasetKind.Iterable, dataset, auto_collation,
                              collate_fn, drop_last)
