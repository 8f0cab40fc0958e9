"""The start method for DataLoader workers.

JAX runs thread pools once its backend is up, so `fork` from a process that has used JAX can
deadlock the child. Workers are therefore started from a *forkserver*: a clean process started
once per program, which imports JAX and NumPy (and torchlike, when importing torchlike leaves
the XLA backend off) and then forks one worker per request. A worker thus costs a fork, not a
new interpreter importing JAX. As under `spawn`, each worker runs the main script as
`__mp_main__` (so classes and functions defined in `__main__` unpickle); `__main__` is
deliberately not preloaded in the server, since it usually imports torchlike and would start
XLA's threads there.

A script without the `if __name__ == "__main__":` guard works as it does with PyTorch's `fork`
workers: a worker's re-run of the main script is silent and stops at the first place the script
starts DataLoader workers, where the parent stood when it started its first workers, so the
definitions a worker needs exist (PyTorch's spawn-based platforms need the guard; Linux's fork
does not). Functions the workers need that the re-run does not define travel by value
(`functions.py`)."""
import multiprocessing
import multiprocessing.forkserver as _fs
import multiprocessing.spawn as _spawn
import os
import sys
import types

from jax._src import xla_bridge as _xb

# This module is imported while `import torchlike` runs: if JAX's backend is still off here,
# importing torchlike does not start it, and the forkserver can preload torchlike safely.
IMPORT_LEAVES_BACKEND_OFF = not _xb._backends
PRELOAD = ["jax", "jax.numpy", "numpy"] + (["torchlike"] if IMPORT_LEAVES_BACKEND_OFF else [])


def worker_context():
    """The forkserver context (preload set if the server is not running yet); `spawn` where
    the platform has no forkserver."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    server = _fs._forkserver
    if server._forkserver_pid is None and server._preload_modules != PRELOAD:
        server.set_forkserver_preload(PRELOAD)
    return multiprocessing.get_context("forkserver")


def start_server_early():
    """Start the forkserver now (it imports in the background), so that the first epoch's
    workers find it ready. Only from a main process: a worker re-running the main script as
    `__mp_main__` must not start servers of its own."""
    if multiprocessing.parent_process() is not None or _REPLAYING[0]:
        return
    if worker_context().get_start_method() == "forkserver":
        _fs.ensure_running()


WORKER_NAME = "DataLoaderWorker"  # process names `DataLoaderWorker-<id>`


class _ReplayStopped(BaseException):
    """Ends a worker's re-run of an unguarded main script (see the module docstring)."""


_REPLAYING = [False]


def stop_replay_here():
    """Called where a DataLoader starts its workers: inside a worker's re-run of the main
    script, the re-run ends here."""
    if _REPLAYING[0]:
        raise _ReplayStopped


_fixup_main_from_path = _spawn._fixup_main_from_path


def _replay_main(main_path):
    """`multiprocessing.spawn`'s main-module set-up, for DataLoader workers: the script runs as
    `__mp_main__` with its output silenced, up to where it starts DataLoader workers."""
    current = sys.modules["__main__"]
    if not multiprocessing.current_process().name.startswith(WORKER_NAME) or \
            not main_path.endswith(".py") or getattr(current, "__file__", None) == main_path:
        return _fixup_main_from_path(main_path)
    _spawn.old_main_modules.append(current)
    module = types.ModuleType("__mp_main__")
    module.__file__ = main_path
    sys.modules["__main__"] = sys.modules["__mp_main__"] = module
    with open(main_path, "rb") as f:
        code = compile(f.read(), main_path, "exec")
    saved = sys.stdout, sys.stderr
    _REPLAYING[0] = True
    try:
        with open(os.devnull, "w") as null:
            sys.stdout = sys.stderr = null
            try:
                exec(code, module.__dict__)  # noqa: S102 - the user's own script, as spawn runs it
            except _ReplayStopped:
                pass
    finally:
        sys.stdout, sys.stderr = saved
        _REPLAYING[0] = False


_spawn._fixup_main_from_path = _replay_main
