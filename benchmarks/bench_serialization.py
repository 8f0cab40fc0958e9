"""Checkpoint benchmark: save and load of a ~100 MB state dict (25 float32 tensors of 1M
elements + a few small ones), torchlike vs PyTorch vs a raw NumPy/JAX baseline (np.save of
the same bytes; np.load + jax.device_put), measured in the same run, in MB/s.

    python benchmarks/bench_serialization.py [--quick] [--mb 100]

Target: torchlike >= 0.8x PyTorch for both save and load. torchlike's save is atomic (temporary
file, fsync, rename); PyTorch's writes in place without fsync — reported separately as
`save (no fsync)` by timing the same torchlike write to an open file object.
"""
import argparse
import collections
import os
import statistics
import sys
import tempfile
import time

import jax
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import torchlike as tl  # noqa: E402


def best_of(fn, repeat):
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return min(runs), statistics.median(runs)


def make_state(lib, mb):
    rng = np.random.RandomState(0)
    n_big = max(1, mb // 4)
    sd = collections.OrderedDict()
    for i in range(n_big):
        sd[f"layer{i}.weight"] = lib.from_numpy(rng.randn(1024, 1024).astype(np.float32))
        sd[f"layer{i}.bias"] = lib.from_numpy(rng.randn(1024).astype(np.float32))
    sd["step"] = lib.tensor(10)
    return sd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--mb", type=int, default=100)
    args = ap.parse_args()
    repeat = 3 if args.quick else 7
    tsd = make_state(torch, args.mb)
    lsd = make_state(tl, args.mb)
    for v in lsd.values():  # the tensors' values live in JAX, as a trained model's do
        v._value().block_until_ready()
    nbytes = sum(v.numel() * v.element_size() for v in tsd.values())
    mb = nbytes / 1e6
    folder = tempfile.mkdtemp(prefix="bench-ser-")
    pt, pl, pn = (os.path.join(folder, n) for n in ("torch.pt", "tl.pt", "np.npy"))
    flat = np.concatenate([v.numpy().reshape(-1) for v in tsd.values() if v.dtype == torch.float32])

    def tl_load():
        out = tl.load(pl)
        for v in out.values():
            v._value().block_until_ready()

    def np_load():
        jax.device_put(np.load(pn)).block_until_ready()

    def tl_save_nofsync():
        with open(pl + ".plain", "wb") as f:
            tl.save(lsd, f)

    rows = {
        "save": {"torch": lambda: torch.save(tsd, pt), "torchlike": lambda: tl.save(lsd, pl),
                 "numpy": lambda: np.save(pn, flat)},
        "save (no fsync)": {"torch": lambda: torch.save(tsd, pt), "torchlike": tl_save_nofsync},
        "load": {"torch": lambda: torch.load(pt), "torchlike": tl_load, "numpy": np_load},
    }
    print(f"state dict: {len(tsd)} tensors, {mb:.1f} MB; best of {repeat} (MB/s, higher is "
          f"better)")
    for name, fns in rows.items():
        speed = {}
        for lib, fn in fns.items():
            fn()  # warm up (files exist, caches hot)
            best, _ = best_of(fn, repeat)
            speed[lib] = mb / best
        line = "  ".join(f"{lib} {s:7.0f}" for lib, s in speed.items())
        print(f"{name:16s} {line}   torchlike/torch = {speed['torchlike'] / speed['torch']:.2f}x")
    for p in (pt, pl, pn, pl + ".plain"):
        if os.path.exists(p):
            os.remove(p)
    os.rmdir(folder)


if __name__ == "__main__":
    main()
