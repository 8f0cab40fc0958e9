"""`torch.save`: PyTorch's zip checkpoint (or its legacy stream with
`_use_new_zipfile_serialization=False`), written atomically when `f` is a path."""
import io
import os
import pickle
import secrets
import stat
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor

from ._names import storage_type_of
from ._pickler import Pickler, StorageTable, storage_bytes
from ._zipfile import ZipWriter

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_PARALLEL_CRC_BYTES = 8 << 20


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Mirrors `torch.save`. A path is written to a temporary file in the same folder, fsynced,
    then renamed over the target, so an interrupted save leaves the previous file intact
    (PyTorch writes in place). `pickle_module` is accepted and not used: the metadata pickler
    must be torchlike's own (it writes torch's global names)."""
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'write' attribute")

    def write(out, archive_name):
        if _use_new_zipfile_serialization:
            _write_zip(obj, out, archive_name, pickle_protocol, not _disable_byteorder_record)
        else:
            _write_legacy(obj, out, pickle_protocol)

    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        _atomic_write(path, lambda out: write(out, _archive_name(path)))
    else:
        write(f, "archive")
        if hasattr(f, "flush"):
            f.flush()


def _archive_name(path):
    """PyTorch names the folder inside the zip after the file (ASCII names only)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem if stem.isascii() else "archive"


def _atomic_write(path, write):
    if os.path.islink(path):
        path = os.path.realpath(path)
    folder = os.path.dirname(path)
    if folder and not os.path.isdir(folder):
        raise RuntimeError(f"Parent directory {folder} does not exist.")
    if os.path.isdir(path):
        raise RuntimeError("[enforce fail at inline_container.cc:747] . open file failed with "
                           "strerror: Is a directory")
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
    try:
        if os.path.exists(path):
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_folder(folder or ".")


def _fsync_folder(folder):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _pickle(obj, protocol, table):
    buf = io.BytesIO()
    Pickler(buf, protocol, table).dump(obj)
    return buf.getvalue()


def _write_zip(obj, out, archive_name, protocol, byteorder_record):
    table = StorageTable()
    data_pkl = _pickle(obj, protocol, table)
    w = ZipWriter(out, archive_name)
    w.write_record("data.pkl", data_pkl)
    w.write_record(".format_version", b"1")
    w.write_record(".storage_alignment", b"64")
    if byteorder_record:
        w.write_record("byteorder", sys.byteorder.encode())
    arrays = [(key, storage_bytes(st)) for key, st in table.storages]
    total = sum(a.nbytes for _, a in arrays)
    if total >= _PARALLEL_CRC_BYTES:  # checksum on a second thread while the bytes are written
        with ThreadPoolExecutor(1) as pool:
            crcs = [pool.submit(zlib.crc32, a) for _, a in arrays]
            for (key, a), crc in zip(arrays, crcs):
                w.write_record(f"data/{key}", a, crc.result)
    else:
        for key, a in arrays:
            w.write_record(f"data/{key}", a)
    w.write_record("version", b"3\n")
    w.write_record(".data/serialization_id", w.serialization_id().encode())
    w.finish()


def _write_legacy(obj, out, protocol):
    """PyTorch's pre-1.6 stream: magic number, protocol version, system info, the pickle, the
    storage keys, then each storage as an int64 element count and its bytes."""
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        pickle.dump(header, out, protocol=protocol)
    table = StorageTable(legacy=True)
    out.write(_pickle(obj, protocol, table))
    by_key = dict(table.storages)
    keys = sorted(by_key)
    pickle.dump(keys, out, protocol=protocol)
    for key in keys:
        st = by_key[key]
        a = storage_bytes(st)
        count = st.numel if storage_type_of(st.dtype) is not None else st.nbytes
        out.write(count.to_bytes(8, sys.byteorder))
        out.write(memoryview(a))
