"""Fresh child processes for benchmarks whose cold costs matter (compiles, imports, memory).

A benchmark script re-runs itself as `script --child ARGS...`; the child measures, then prints
one line `MARK + json` (see `report`), which the parent reads back (see `run`). PyTorch children
get one thread (OMP_NUM_THREADS=1, and `import_lib` sets torch's); torchlike children get a
persistent compilation cache of their own (a new empty folder unless one is given), so their
numbers are a first run's."""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

MARK = "BENCH_CHILD_JSON "


def import_lib(lib):
    """(torch or torchlike as `torch`, import seconds); PyTorch set to one thread."""
    t0 = time.perf_counter()
    if lib == "torch":
        import torch
        torch.set_num_threads(1)
    else:
        import torchlike as torch
    return torch, time.perf_counter() - t0


def counts(lib):
    """torchlike's trace/compile counters (None under PyTorch)."""
    if lib == "torch":
        return None
    from torchlike import compile_log
    return compile_log.counts()


def diff(after, before):
    if after is None:
        return None
    return {k: after[k] - before[k] for k in after}


def maxrss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0   # Linux: KiB


def report(result):
    """The child's last word: `result` with its peak memory, as one marked JSON line."""
    result["maxrss_mb"] = maxrss_mb()
    print(MARK + json.dumps(result), flush=True)


def run(script, args, lib, timeout, cache_dir=None, extra_env=None):
    """Run `script --child *args` in a fresh interpreter; returns (result dict or None, error
    string or None, wall seconds). `lib` 'torch' gets one thread; anything else gets the
    persistent compilation cache in `cache_dir` (a new folder, removed afterwards, if None)."""
    env = dict(os.environ, **(extra_env or {}))
    own_cache = None
    if lib == "torch":
        env["OMP_NUM_THREADS"] = "1"
    else:
        if cache_dir is None:
            cache_dir = own_cache = tempfile.mkdtemp(prefix="bench_cache_")
        env["TORCHLIKE_COMPILE_CACHE"] = "1"
        env["TORCHLIKE_CACHE_DIR"] = cache_dir
    cmd = [sys.executable, os.path.abspath(script), "--child", *[str(a) for a in args]]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s", time.perf_counter() - t0
    finally:
        if own_cache:
            shutil.rmtree(own_cache, ignore_errors=True)
    wall = time.perf_counter() - t0
    for line in reversed(p.stdout.splitlines()):
        if line.startswith(MARK):
            return json.loads(line[len(MARK):]), None, wall
    tail = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
    return None, f"failed (rc {p.returncode}): {tail[:200]}", wall


def versions():
    """'jax X  torch Y', read in a child (the parent imports neither)."""
    out = subprocess.run([sys.executable, "-c", "import jax, torch; print(jax.__version__, "
                          "torch.__version__)"], capture_output=True, text=True).stdout.split()
    return f"jax {out[0] if out else '?'}  torch {out[1] if len(out) > 1 else '?'}"


def print_notes(notes):
    if notes:
        print("\nnotes:")
        for n in notes:
            print("  " + n)
