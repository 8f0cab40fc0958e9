"""PyTorch's checkpoint container: an uncompressed zip whose records start on 64-byte
boundaries, written the way PyTorch's miniz-based `PyTorchStreamWriter` writes it and read the way
`PyTorchStreamReader` reads it (same layout, same error texts).

Layout of one record: local header (sizes 0, flags 0x0808 = data descriptor + UTF-8) + name +
an `FB` extra field of `Z` padding up to the 64-byte boundary + data + data descriptor. The
archive ends with the central directory, a zip64 end record and locator, and the end record.
"""
import struct
import zlib

import numpy as np

ALIGN = 64
_U32 = 0xFFFFFFFF
_MINIZ_HINT = (". This is an internal miniz error. If you are seeing this error, there is a high "
               "likelihood that your checkpoint file is corrupted. This can happen if the "
               "checkpoint was not saved properly, was transferred incorrectly, or the file was "
               "modified after saving.")
MAX_VERSION = 10


def _zip_error(what, why):
    return RuntimeError(f"PytorchStreamReader failed {what}: {why}{_MINIZ_HINT}")


class ZipWriter:
    """Writes records to `out` (anything with `write`) in PyTorch's layout; `finish()` writes
    the directory. Offsets count from where writing started, as PyTorch's writer does."""

    def __init__(self, out, archive_name):
        self._out = out
        self._prefix = archive_name + "/"
        self._pos = 0
        self._entries = []  # (name bytes, offset, size, crc)

    def _write(self, data):
        self._out.write(data)
        self._pos += len(data) if isinstance(data, bytes) else memoryview(data).nbytes

    def write_record(self, name, data, crc=None):
        """Add record `name` holding `data` (bytes or a uint8 array); `crc` may be given (an int
        or a callable returning it) when computed elsewhere."""
        fname = (self._prefix + name).encode("utf-8")
        view = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        size = len(view)
        offset = self._pos
        zip64 = size >= _U32 or offset >= _U32
        extra = struct.pack("<HHQQ", 1, 16, 0, 0) if zip64 else b""
        pad = (-(offset + 30 + len(fname) + len(extra))) % ALIGN
        if pad < 4:
            pad += ALIGN
        extra += b"FB" + struct.pack("<H", pad - 4) + b"Z" * (pad - 4)
        self._write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, 0x0808, 0, 0, 0, 0, 0, 0,
                                len(fname), len(extra)) + fname + extra)
        if size:
            self._write(view)
        if crc is None:
            crc = zlib.crc32(view)
        elif callable(crc):
            crc = crc()
        sizes = struct.pack("<QQ", size, size) if zip64 else struct.pack("<II", size, size)
        self._write(struct.pack("<II", 0x08074B50, crc) + sizes)
        self._entries.append((fname, offset, size, crc))

    def serialization_id(self):
        """A 40-digit id derived from the records written so far (PyTorch writes one too)."""
        crc = 0
        names = 0
        for fname, _, _, c in self._entries:
            crc = zlib.crc32(struct.pack("<I", c), crc)
            names = (names * 1000003 ^ zlib.crc32(fname)) & 0xFFFFFFFFFFFFFFFF
        return f"{crc:020d}{names:020d}"

    def finish(self):
        """Write the central directory and the end records."""
        cd_start = self._pos
        parts = []
        for fname, offset, size, crc in self._entries:
            extra = b""
            csize = usize = size
            off = offset
            if size >= _U32:
                extra += struct.pack("<QQ", size, size)
                csize = usize = _U32
            if offset >= _U32:
                extra += struct.pack("<Q", offset)
                off = _U32
            if extra:
                extra = struct.pack("<HH", 1, len(extra)) + extra
            parts.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0, 0, 0x0808, 0, 0, 0, crc,
                                     csize, usize, len(fname), len(extra), 0, 0, 0, 0, off)
                         + fname + extra)
        cd = b"".join(parts)
        self._write(cd)
        n = len(self._entries)
        eocd64 = self._pos
        self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, n, n, len(cd),
                                cd_start))
        self._write(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF),
                                min(len(cd), _U32), min(cd_start, _U32), 0))


class ZipReader:
    """Reads a PyTorch checkpoint archive from a seekable binary file, or from a buffer (an
    `mmap`, whose record views are then returned without copying)."""

    def __init__(self, f, buffer=None):
        self._f = f
        self._buf = buffer
        f.seek(0, 2)
        self._size = f.tell()
        self._records = self._read_directory()
        names = list(self._records)
        self.prefix = names[0].split("/", 1)[0] + "/" if names else ""
        for n in names:
            if not n.startswith(self.prefix):
                raise RuntimeError("[enforce fail at inline_container.cc:340] . file in archive "
                                   f"is not in a subdirectory {self.prefix}: {n}")
        self._records = {n[len(self.prefix):]: v for n, v in self._records.items()}
        self._check_version()

    def _pread(self, offset, n):
        if self._buf is not None:
            return bytes(self._buf[offset:offset + n])
        self._f.seek(offset)
        return self._f.read(n)

    def _read_directory(self):
        tail_len = min(self._size, 22 + 0xFFFF)
        tail = self._pread(self._size - tail_len, tail_len)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) - at < 22:
            raise _zip_error("reading zip archive", "failed finding central directory")
        eocd = self._size - tail_len + at
        _, _, _, _, count, cd_size, cd_off, _ = struct.unpack("<IHHHHIIH", tail[at:at + 22])
        loc = tail[at - 20:at] if at >= 20 else b""
        if loc[:4] == b"PK\x06\x07":
            z64 = struct.unpack("<IIQI", loc)[2]
            rec = self._pread(z64, 56)
            if rec[:4] != b"PK\x06\x06" or len(rec) < 56:
                raise _zip_error("reading zip archive", "invalid header or archive is corrupted")
            count, cd_size, cd_off = struct.unpack("<QQQ", rec[32:56])
        if cd_off + cd_size > eocd:
            raise _zip_error("reading zip archive", "failed finding central directory")
        cd = self._pread(cd_off, cd_size)
        records = {}
        pos = 0
        for _ in range(count):
            if cd[pos:pos + 4] != b"PK\x01\x02" or pos + 46 > len(cd):
                raise _zip_error("reading zip archive", "invalid header or archive is corrupted")
            (_, _, _, flags, method, _, _, _, csize, usize, nlen, xlen, clen, _, _, _,
             off) = struct.unpack("<IHHHHHHIIIHHHHHII", cd[pos:pos + 46])
            name = cd[pos + 46:pos + 46 + nlen].decode("utf-8" if flags & 0x800 else "cp437")
            extra = cd[pos + 46 + nlen:pos + 46 + nlen + xlen]
            usize, csize, off = _zip64_fields(extra, usize, csize, off)
            records[name] = (off, csize, usize, method)
            pos += 46 + nlen + xlen + clen
        return records

    def _check_version(self):
        name = ".data/version" if ".data/version" in self._records else "version"
        if name not in self._records:
            raise RuntimeError('Expected hasRecord("version") to be true, but got false.  (Could '
                               'this error message be improved?  If so, please report an '
                               'enhancement request to PyTorch.)')
        text = self.read(name).decode("latin1")
        try:
            version = int(text.strip())
        except ValueError:
            raise RuntimeError("[enforce fail at inline_container.cc:215] . Couldn't parse the "
                               f"version {text} as Long Long.") from None
        if version > MAX_VERSION:
            raise RuntimeError(
                f"[enforce fail at inline_container.cc:230] . Attempted to read a PyTorch file "
                f"with version {version}, but the maximum supported version for reading is "
                f"{MAX_VERSION}. The version of your PyTorch installation may be too old, please "
                "upgrade PyTorch to latest version to mitigate this issue.")

    def names(self):
        return list(self._records)

    def has(self, name):
        return name in self._records

    def size(self, name):
        return self._records[name][2]

    def _locate(self, name):
        if name not in self._records:
            raise _zip_error(f"locating file {name}", "file not found")
        off, csize, usize, method = self._records[name]
        head = self._pread(off, 30)
        if len(head) < 30 or head[:4] != b"PK\x03\x04":
            raise _zip_error(f"reading file {name}", "invalid header or archive is corrupted")
        nlen, xlen = struct.unpack("<HH", head[26:30])
        start = off + 30 + nlen + xlen
        if start + csize > self._size:
            raise _zip_error(f"reading file {name}", "invalid header or archive is corrupted")
        return start, csize, usize, method

    def read(self, name):
        """The bytes of record `name`."""
        start, csize, usize, method = self._locate(name)
        data = self._pread(start, csize)
        return zlib.decompress(data, -15) if method == 8 else data

    def read_array(self, name):
        """Record `name` as a 64-byte-aligned uint8 array (a view of the buffer when mapped)."""
        from ._rebuild import aligned_empty
        start, csize, usize, method = self._locate(name)
        if method == 8:
            out = aligned_empty(usize)
            out[:] = np.frombuffer(self.read(name), np.uint8)
            return out
        if self._buf is not None:
            view = np.frombuffer(self._buf, np.uint8, csize, start)
            if view.ctypes.data % ALIGN == 0:
                return view
        out = aligned_empty(csize)
        self._f.seek(start)
        got = self._f.readinto(memoryview(out)) if hasattr(self._f, "readinto") else None
        if got is None:
            data = self._f.read(csize)
            got = len(data)
            out[:got] = np.frombuffer(data, np.uint8)
        if got != csize:
            raise _zip_error(f"reading file {name}", "invalid header or archive is corrupted")
        return out


def _zip64_fields(extra, usize, csize, off):
    pos = 0
    while pos + 4 <= len(extra):
        tag, n = struct.unpack("<HH", extra[pos:pos + 4])
        if tag == 1:
            vals = list(struct.unpack(f"<{n // 8}Q", extra[pos + 4:pos + 4 + n // 8 * 8]))
            if usize == _U32 and vals:
                usize = vals.pop(0)
            if csize == _U32 and vals:
                csize = vals.pop(0)
            if off == _U32 and vals:
                off = vals.pop(0)
        pos += 4 + n
    return usize, csize, off
