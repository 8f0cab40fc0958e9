"""Compiled code of the functions torchlike generates on import, kept on disk.

The op table's functions, methods, in-place twins and operators are generated as Python source
and compiled on every import: ~700 functions, ~0.6 s of a ~3 s import on this project's CPU.
Their code objects are kept in one marshal file
(`<cache>/code/generated-<python tag>-<bytecode magic>.marshal`, in the cache folder of
`disk_cache`), keyed by a hash of each source and file name, so a later
import loads them (~20 ms) instead of compiling them, as Python's own `.pyc` files spare it
compiling a module's source. A source that changed has another key and is compiled again;
the file holds what the last import used. Off with the persistent cache
(`TORCHLIKE_COMPILE_CACHE=0`).
"""
import hashlib
import marshal
import os
import sys
import tempfile

_STATE = {"loaded": None, "used": {}, "new": 0, "compiled": 0}


def _path():
    from .disk_cache import cache_folder, switched_off
    if switched_off():
        return None
    from importlib.util import MAGIC_NUMBER   # the bytecode format
    tag = f"{sys.implementation.cache_tag or 'python'}-{MAGIC_NUMBER.hex()}"
    folder = cache_folder("code")
    if os.environ.get("TORCHLIKE_CACHE_DIR", ""):
        folder = os.path.join(folder, "code")
    return os.path.join(folder, f"generated-{tag}.marshal")


def _load():
    codes = {}
    path = _path()
    if path is not None:
        try:
            with open(path, "rb") as f:
                data = marshal.load(f)
            if isinstance(data, dict):
                codes = data
        except (OSError, EOFError, ValueError, TypeError):
            pass
    _STATE["loaded"] = codes
    return codes


def compiled(source, filename):
    """`compile(source, filename, "exec")`, from the file when an earlier import kept it."""
    codes = _STATE["loaded"]
    if codes is None:
        codes = _load()
    key = hashlib.blake2b(f"{filename}\0{source}".encode(), digest_size=16).digest()
    used = _STATE["used"]
    code = used.get(key) or codes.get(key)   # (the same source may come more than once)
    if code is None:
        code = compile(source, filename, "exec")
        _STATE["new"] += 1
        _STATE["compiled"] += 1
    used[key] = code
    return code


def save():
    """Write the code objects this import used, when some were compiled anew (a temporary file
    renamed into place: a reader sees a whole file or the old one)."""
    path = _path()
    used = _STATE["used"]
    if path is None or not _STATE["new"] or not used:
        return False
    tmp = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            marshal.dump(used, f)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        return False
    _STATE["new"] = 0
    return True


def stats():
    """(code objects used, of them compiled in this process)."""
    return len(_STATE["used"]), _STATE["compiled"]
