"""The persistent compilation cache, on by default: the second run of a script loads the XLA
programs the first compiled instead of compiling them again.

Where: `TORCHLIKE_CACHE_DIR`, else `$XDG_CACHE_HOME/torchlike/xla` (`~/.cache/torchlike/xla`),
in a subfolder per machine kind and JAX version (a program compiled for one CPU's features must
not run on another's). Off: `TORCHLIKE_COMPILE_CACHE=0`. Size cap: `TORCHLIKE_CACHE_MAX_MB`
(default 1024), least recently used entries evicted first.

JAX's own file cache, with a size cap, takes a lock file around every read and write and scans
the whole folder on every write (slower as the cache grows); without one it writes entries in
place, so a process sharing the folder (DataLoader workers, parallel test runs) can read a
half-written program. This cache writes each entry to a temporary file and renames it into
place (readers see a whole entry or none, no locks), marks use with the file's mtime, and
counts what it wrote, scanning the folder only when the count crosses the cap.
"""
import contextlib
import hashlib
import os
import platform
import tempfile
import threading

_DEFAULT_MB = 1024
_SUFFIX = "-cache"
_STATE = {"dir": None}
_BYPASS = threading.local()   # .on: this thread's compiles neither read nor write the cache


def _machine_tag():
    """Machine kind + JAX version: CPU model and feature flags, so a shared home folder never
    hands one machine's code to another."""
    import jax
    import jaxlib
    parts = [platform.machine(), platform.system(), jax.__version__,
             getattr(jaxlib, "__version__", "")]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags", "Features", "CPU part")):
                    parts.append(line.strip())
                if line.strip() == "":   # the first processor's block is enough
                    break
    except OSError:
        pass
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def switched_off():
    """True when TORCHLIKE_COMPILE_CACHE turns the on-disk caches off."""
    return os.environ.get("TORCHLIKE_COMPILE_CACHE", "1").strip().lower() in ("0", "off",
                                                                              "false", "no")


def cache_folder(default_sub):
    """TORCHLIKE_CACHE_DIR, else `~/.cache/torchlike/<default_sub>` (or under
    $XDG_CACHE_HOME)."""
    base = os.environ.get("TORCHLIKE_CACHE_DIR", "")
    if base:
        return base
    root = os.environ.get("XDG_CACHE_HOME", "") or os.path.join(os.path.expanduser("~"),
                                                                 ".cache")
    return os.path.join(root, "torchlike", default_sub)


def default_dir():
    return os.path.join(cache_folder("xla"), _machine_tag())


class FileStore:
    """A folder of entries named by key: each written whole (a temporary file renamed into
    place), read without locks, least recently used (by mtime) evicted past `max_bytes`."""

    def __init__(self, path, max_bytes, suffix=_SUFFIX):
        os.makedirs(path, exist_ok=True)
        self.dir = path
        self.max_bytes = max_bytes
        self.suffix = suffix
        self.written = None   # bytes in the folder, counted once on the first write

    def get(self, key):
        p = os.path.join(self.dir, key + self.suffix)
        try:
            with open(p, "rb") as f:
                data = f.read()
        except OSError:
            return None
        try:
            os.utime(p)
        except OSError:
            pass
        return data

    def put(self, key, value, replace=False):
        p = os.path.join(self.dir, key + self.suffix)
        if (os.path.exists(p) and not replace) or len(value) > self.max_bytes:
            return
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(value)
            os.replace(tmp, p)
        except OSError:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)
            return
        if self.written is None:
            self.written = self._scan()[0]
        else:
            self.written += len(value)
        if self.written > self.max_bytes:
            self.evict()

    def _scan(self):
        total, entries = 0, []
        try:
            with os.scandir(self.dir) as it:
                for e in it:
                    if e.name.endswith(self.suffix):
                        try:
                            st = e.stat()
                        except OSError:
                            continue
                        total += st.st_size
                        entries.append((st.st_mtime, e.path, st.st_size))
        except OSError:
            pass
        return total, entries

    def evict(self):
        """Removes least recently used entries down to 80% of the cap."""
        total, entries = self._scan()
        entries.sort()
        target = 0.8 * self.max_bytes
        for _, path, size in entries:
            if total <= target:
                break
            try:
                os.unlink(path)
                total -= size
            except OSError:
                pass
        self.written = total


def max_bytes():
    """The cap of each on-disk cache: TORCHLIKE_CACHE_MAX_MB (default 1024)."""
    return int(float(os.environ.get("TORCHLIKE_CACHE_MAX_MB", "") or _DEFAULT_MB) * 2 ** 20)


def _cache_class():
    """JAX's cache interface over a FileStore (defined lazily: it is a private JAX module)."""
    from jax._src.compilation_cache_interface import CacheInterface

    class AtomicFileCache(FileStore, CacheInterface):
        def __init__(self, path, max_bytes):
            import pathlib
            FileStore.__init__(self, path, max_bytes)
            self._path = pathlib.Path(path)

        def get(self, key):
            return None if getattr(_BYPASS, "on", False) else FileStore.get(self, key)

        def put(self, key, value):
            if not getattr(_BYPASS, "on", False):
                FileStore.put(self, key, value)

    return AtomicFileCache


@contextlib.contextmanager
def bypassed():
    """Compiles in the block neither read nor write this cache: for programs that `programs`
    stores itself (an executable JAX loaded from its cache cannot be serialized again: on
    XLA:CPU the copy fails when run, 'Function ... not found')."""
    before = getattr(_BYPASS, "on", False)
    _BYPASS.on = True
    try:
        yield
    finally:
        _BYPASS.on = before


def uses_own_cache():
    """True when JAX's persistent cache is this module's (False: none, or the user's own)."""
    return _STATE.get("cache") is not None


def enable():
    """Turns the cache on as configured by the environment (see the module docstring); a cache
    folder the user gave JAX directly is left alone. Returns the folder, or None."""
    import jax
    if switched_off():
        return None
    if jax.config.jax_compilation_cache_dir:
        return None
    try:
        path = default_dir()
        from jax._src import compilation_cache as cc
        cache = _cache_class()(path, max_bytes())
    except Exception:  # an unwritable folder, or a JAX without this interface: no cache
        return None
    cc.get_file_cache = lambda _path: (cache, path)
    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    _STATE["dir"] = path
    _STATE["cache"] = cache
    return path
