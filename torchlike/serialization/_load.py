"""`torch.load`: PyTorch's zip checkpoints and legacy streams, `weights_only=True` by default."""
import io
import mmap as _mmap
import os
import pickle
import re
import sys
import warnings

import numpy as np

from .._core import dtype as dt
from .._core.device import CPU, current_cuda_index, device, gpus
from .._core.storage import Storage, UntypedStorage
from . import _names
from ._pickler import storage_bytes
from ._rebuild import StorageRecord, TypedRef, aligned_empty
from ._save import MAGIC_NUMBER, PROTOCOL_VERSION
from ._weights_only import Unpickler as WeightsOnlyUnpickler
from ._zipfile import ZipReader

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.")
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
_TRUE = ("1", "y", "yes", "true")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Mirrors `torch.load`. `mmap=True` maps the file and lets tensors use the mapped bytes
    where JAX can adopt them (CPU), else reads them."""
    weights_only = _weights_only_mode(weights_only, pickle_module)
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                               "specified")
    elif pickle_module is None:
        pickle_module = pickle
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    is_path = isinstance(f, (str, os.PathLike))
    opened = open(f, "rb") if is_path else f
    try:
        if _is_zipfile(opened):
            buffer = None
            if mmap:
                if not is_path:
                    raise ValueError("f must be a file path in order to use the mmap argument")
                buffer = _mmap.mmap(opened.fileno(), 0, access=_mmap.ACCESS_COPY)
            reader = ZipReader(opened, buffer)
            if reader.has("constants.pkl"):
                if weights_only:
                    raise RuntimeError("Cannot use ``weights_only=True`` with TorchScript "
                                       "archives passed to ``torch.load``. " + UNSAFE_MESSAGE)
                raise RuntimeError("torchlike cannot load TorchScript archives")
            return _explained(weights_only, _load_zip, reader, map_location, weights_only,
                              pickle_module, pickle_load_args)
        if mmap:
            name = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError("mmap can only be used with files saved with "
                               f"`torch.save({name}_use_new_zipfile_serialization=True), please "
                               "torch.save your checkpoint with this option in order to use mmap.")
        return _explained(weights_only, _load_legacy, opened, map_location, weights_only,
                          pickle_module, pickle_load_args)
    finally:
        if is_path:
            opened.close()


def _weights_only_mode(weights_only, pickle_module):
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force:
        return True
    if force_no and not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since "
                      "the`weights_only` argument was not explicitly passed to `torch.load`, "
                      "forcing weights_only=False.", UserWarning, stacklevel=3)
        return False
    return weights_only


def _is_zipfile(f):
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    return head == b"PK\x03\x04"


def _explained(weights_only, fn, *args):
    """Run a load; a weights-only refusal gets PyTorch's explanation around it."""
    if not weights_only:
        return fn(*args)
    try:
        return fn(*args)
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(_weights_only_message(str(e))) from None


def _weights_only_message(message):
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
                "`weights_only=True` please check the recommended steps in the following error "
                "message.\n\tWeightsUnpickler error: " + message + _DOCS_MESSAGE)
    out = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        out += ("Please file an issue with the following so that we can make "
                "`weights_only=True` compatible with your use case: WeightsUnpickler error: ")
    return out + "\n\n" + message + _DOCS_MESSAGE


# ---- where storages go (map_location) -----------------------------------------------------------

def _device_for(location):
    """The device a storage tagged `location` is restored to (PyTorch's checks and errors)."""
    location = _ascii(location) if isinstance(location, (str, bytes)) else str(location)
    if location == "cpu":
        return CPU
    if location == "cuda" or re.match("cuda(:|[0-9]+)", location):
        if not gpus():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but "
                "torch.cuda.is_available() is False. If you are running on a CPU-only machine, "
                "please use torch.load with map_location=torch.device('cpu') to map your "
                "storages to the CPU.")
        index = device(location).index
        index = current_cuda_index() if index is None else index
        if index >= len(gpus()):
            raise RuntimeError(
                f"Attempting to deserialize object on CUDA device {index} but "
                f"torch.cuda.device_count() is {len(gpus())}. Please use torch.load with "
                "map_location to map your storages to an existing device.")
        return device("cuda", index)
    raise RuntimeError("don't know how to restore data location of "
                       f"torch.storage.UntypedStorage (tagged with {location})")


class LoadingStorage(UntypedStorage):
    """The CPU storage a callable `map_location(storage, location)` receives; `cpu()`,
    `cuda()` and `to()` say where it should go."""

    __slots__ = ()

    def __init__(self, raw, dev=CPU):
        super().__init__(Storage.from_numpy_flat(raw, dt.uint8, dev))

    def _moved(self, dev):
        from .._core.device import canonical
        return LoadingStorage(self._st._np, canonical(dev))

    def cpu(self):
        return self._moved("cpu")

    def cuda(self, device=None, non_blocking=False):
        return self._moved("cuda" if device is None else
                           device if not isinstance(device, int) else f"cuda:{device}")

    def to(self, *, device, non_blocking=False):
        return self._moved(device)


def _restorer(map_location):
    """`restore(raw, location) -> StorageRecord` for a `map_location` argument."""
    if map_location is None:
        return lambda raw, loc: StorageRecord(raw, _device_for(loc))
    if isinstance(map_location, dict):
        return lambda raw, loc: StorageRecord(raw, _device_for(map_location.get(loc, loc)))
    if isinstance(map_location, (str, bytes, device)):
        return lambda raw, loc: StorageRecord(raw, _device_for(map_location))

    def restore(raw, loc):
        given = raw if raw is not None else aligned_empty(0)
        result = map_location(LoadingStorage(given), loc)
        if result is None:
            return StorageRecord(raw, _device_for(loc))
        moved = storage_bytes(result._st) if raw is not None else None
        return StorageRecord(moved, result.device)
    return restore


def _ascii(s):
    return s.decode("ascii") if isinstance(s, bytes) else s


def _dtype_of(storage_type):
    return dt.uint8 if storage_type is UntypedStorage else storage_type.dtype


# ---- unpickling ---------------------------------------------------------------------------------

def _unpickle(file, persistent_load, weights_only, pickle_module, pickle_load_args):
    if weights_only:
        return WeightsOnlyUnpickler(file, encoding=pickle_load_args["encoding"],
                                    persistent_load=persistent_load).load()

    class TorchlikeUnpickler(pickle_module.Unpickler):
        """Resolves torch's globals to torchlike's objects (trusted files only)."""

        def find_class(self, module, name):
            if type(name) is str and name in _names.STORAGE_TYPES:
                return _names.STORAGE_TYPES[name]
            module = "torch._tensor" if module == "torch.tensor" else module
            obj = _names.resolve(module, name)
            return obj if obj is not None else super().find_class(module, name)

    unpickler = TorchlikeUnpickler(file, **pickle_load_args)
    if persistent_load is not None:
        unpickler.persistent_load = persistent_load
    return unpickler.load()


def _load_zip(reader, map_location, weights_only, pickle_module, pickle_load_args):
    restore = _restorer(map_location)
    byteorder = "little"
    if reader.has("byteorder"):
        byteorder = reader.read("byteorder").decode()
        if byteorder not in ("little", "big"):
            raise ValueError("Unknown endianness type: " + byteorder)
    records = {}

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = _ascii(saved_id[0])
        if typename != "storage":
            raise AssertionError("Unknown typename for persistent_load, expected 'storage' but "
                                 f"got '{typename}'")
        storage_type, key, location, numel = saved_id[1:]
        dtype = _dtype_of(storage_type)
        record = records.get(key)
        if record is None:
            nbytes = numel * dtype.itemsize
            raw = reader.read_array(f"data/{key}")
            if raw.nbytes != nbytes:
                raise RuntimeError(f"record size ({raw.nbytes} bytes) does not match expected "
                                   f"size ({nbytes} bytes = {nbytes} elements * 1 bytes/element) "
                                   "for dtype Byte")
            if byteorder != sys.byteorder and dtype.itemsize > 1:
                raw = raw.view(dtype.np).byteswap().view(np.uint8)
            record = records[key] = restore(raw, _ascii(location))
        return TypedRef(record, dtype, numel)

    data = io.BytesIO(reader.read("data.pkl"))
    return _unpickle(data, persistent_load, weights_only, pickle_module, pickle_load_args)


def _load_legacy(f, map_location, weights_only, pickle_module, pickle_load_args):
    """PyTorch's pre-1.6 stream (see `_save._write_legacy`)."""
    try:
        f.seek(f.tell())
    except (io.UnsupportedOperation, AttributeError) as e:
        raise type(e)(f"{e}. You can only torch.load from a file that is seekable. Please "
                      "pre-load the data into a buffer like io.BytesIO and try to load from it "
                      "instead.") from None
    restore = _restorer(map_location)

    def unpickle(persistent_load=None):
        return _unpickle(f, persistent_load, weights_only, pickle_module, pickle_load_args)

    if unpickle() != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = unpickle()
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    unpickle()  # system info
    records = {}

    def persistent_load(saved_id):
        typename = _ascii(saved_id[0])
        if typename == "module":
            return saved_id[1]
        if typename != "storage":
            raise RuntimeError(f"Unknown saved id type: {saved_id[0]}")
        storage_type, key, location, numel, view = saved_id[1:]
        dtype = _dtype_of(storage_type)
        if key not in records:
            records[key] = (restore(None, _ascii(location)), dtype)
        base = 0
        if view is not None:
            _, base, numel = view
        return TypedRef(records[key][0], dtype, numel, base)

    result = unpickle(persistent_load)
    for key in unpickle():
        record, dtype = records[key]
        count = int.from_bytes(f.read(8), "little")
        raw = aligned_empty(count * dtype.itemsize)
        if f.readinto(memoryview(raw)) != raw.nbytes:
            raise RuntimeError("storage data is truncated; corrupt file?")
        record.fill(raw)
    return result
