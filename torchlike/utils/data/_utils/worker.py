"""Mirrors `torch.utils.data._utils.worker`: `get_worker_info`, and the loop each DataLoader
worker process runs (seeding, `worker_init_fn`, fetching, reporting errors)."""
import random
import sys
import traceback

import numpy as np

MP_STATUS_CHECK_INTERVAL = 5.0

# reply kinds sent by a worker: (kind, payload)
DATA, ERROR, ITER_END, RESUMED = range(4)

_worker_info = None


class WorkerInfo:
    """Mirrors `torch.utils.data.get_worker_info()`'s result: id, num_workers, seed, dataset
    (this worker's copy)."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


def get_worker_info():
    """Mirrors `torch.utils.data.get_worker_info`: None in the main process."""
    return _worker_info


class KeyErrorMessage(str):
    """A str whose repr is itself (KeyError reprs its argument)."""

    __slots__ = ()

    def __repr__(self):
        return self


class ExceptionWrapper:
    """Mirrors `torch._utils.ExceptionWrapper`: an exception's type and formatted traceback,
    re-raised elsewhere as "Caught <Type> <where>.\\nOriginal Traceback ..."."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - exception types that need other arguments
            raise RuntimeError(msg) from None
        raise exception


def _seed_worker(base_seed, worker_id):
    from .... import manual_seed
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(np.random.SeedSequence([worker_id, base_seed & ((1 << 64) - 1)])
                   .generate_state(4))
    return seed


def _worker_loop(conn, payload, worker_id):
    """Entry point of a worker process: serve (task, index) requests arriving on `conn`."""
    global _worker_info
    from . import transfer
    from .fetch import create_fetcher
    transfer._NUMPY_BACKED[0] = True
    where = f"in DataLoader worker process {worker_id}"

    def reply(kind, obj):
        conn.send_bytes(transfer.dumps((kind, obj))[0])

    try:
        cfg = transfer.loads(payload)
        del payload
        seed = _seed_worker(cfg["base_seed"], worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=cfg["num_workers"], seed=seed,
                                  dataset=cfg["dataset"])
        new_fetcher = lambda: create_fetcher(  # noqa: E731
            cfg["iterable"], cfg["dataset"], cfg["auto_collation"], cfg["collate_fn"],
            cfg["drop_last"])
        init_error, fetcher = None, None
        try:
            if cfg["worker_init_fn"] is not None:
                cfg["worker_init_fn"](worker_id)
            fetcher = new_fetcher()
        except Exception:  # noqa: BLE001 - reported with the first request, as PyTorch
            init_error = ExceptionWrapper(where=where)
        ended = False
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                return  # the main process is gone
            if type(msg) is not tuple:  # control: "stop" or "resume"; a task is (index,)
                if msg == "stop":
                    return
                ended = False
                try:
                    fetcher = new_fetcher()
                except Exception:  # noqa: BLE001
                    init_error = ExceptionWrapper(where=where)
                reply(RESUMED, None)
                continue
            if ended:
                continue
            if init_error is not None:
                data, init_error = (ERROR, init_error), None
            else:
                try:
                    data = (DATA, fetcher.fetch(msg[0]))
                except StopIteration:
                    if not cfg["iterable"]:
                        data = (ERROR, ExceptionWrapper(where=where))
                    else:
                        data, ended = (ITER_END, None), True
                except Exception:  # noqa: BLE001
                    data = (ERROR, ExceptionWrapper(where=where))
            try:
                reply(*data)
            except (BrokenPipeError, EOFError, ConnectionResetError):
                return
            except Exception:  # noqa: BLE001 - e.g. an unpicklable batch
                reply(ERROR, ExceptionWrapper(where=where))
            del data
    except KeyboardInterrupt:
        pass
