"""The start method for DataLoader workers.

JAX runs thread pools once its backend is up, so `fork` from a process that has used JAX can
deadlock the child. Workers are therefore started from a *forkserver*: a clean process started
once per program, which imports JAX and NumPy (and torchlike, when importing torchlike leaves
the XLA backend off) and then forks one worker per request. A worker thus costs a fork, not a
new interpreter importing JAX. As under `spawn`, each worker runs the main script as
`__mp_main__` (so classes and functions defined in `__main__` unpickle, and scripts need the
`if __name__ == "__main__":` guard, as with PyTorch under spawn); `__main__` is deliberately not
preloaded in the server, since it usually imports torchlike and would start XLA's threads
there."""
import multiprocessing
import multiprocessing.forkserver as _fs

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
    if multiprocessing.parent_process() is not None:
        return
    if worker_context().get_start_method() == "forkserver":
        _fs.ensure_running()
