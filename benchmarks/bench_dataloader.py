"""DataLoader throughput: torchlike against PyTorch (and a raw JAX gather loop), same run.

    python benchmarks/bench_dataloader.py [--quick]

A 60,000 x 784 float32 TensorDataset with int64 labels, batch 64, shuffle=True, with 0 and 2
workers. Each timed epoch builds a new iterator, so with workers it includes starting them
(PyTorch forks; torchlike forks from its forkserver, started by the warm-up epoch). Prints
samples/s per library and the ratio torchlike / torch (target: >= 1 for 0 and 2 workers).
"""
import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import torchlike as tl

# PyTorch is imported inside main(): DataLoader workers run this script as __mp_main__ (as
# under spawn), and a training script would not import a second framework there.
torch = None

N, D, BATCH = 60000, 784, 64


def epoch_rate(loader):
    t0 = time.perf_counter()
    n = 0
    for xb, yb in loader:
        n += xb.shape[0]
    return n / (time.perf_counter() - t0)


def measure(lib, x, y, workers, epochs):
    ds = lib.utils.data.TensorDataset(lib.from_numpy(x), lib.from_numpy(y)) if lib is torch \
        else lib.utils.data.TensorDataset(lib.tensor(x), lib.tensor(y))
    loader = lib.utils.data.DataLoader(ds, batch_size=BATCH, shuffle=True, num_workers=workers)
    first = epoch_rate(loader)
    return first, statistics.median(epoch_rate(loader) for _ in range(epochs))


def raw_jax(x, y, epochs):
    """The floor for 0 workers: one jitted gather per tensor per batch from device arrays."""
    xj, yj = jnp.asarray(x), jnp.asarray(y)
    take = jax.jit(lambda a, i: jnp.take(a, i, axis=0))
    rates = []
    for _ in range(epochs + 1):
        t0 = time.perf_counter()
        perm = np.random.permutation(N)
        for s in range(0, N, BATCH):
            idx = perm[s:s + BATCH]
            xb, yb = take(xj, idx), take(yj, idx)
        yb.block_until_ready()
        rates.append(N / (time.perf_counter() - t0))
    return statistics.median(rates[1:])


def main():
    global torch
    import warnings
    import torch as real_torch
    torch = real_torch
    warnings.filterwarnings("ignore", message="os.fork")  # JAX's warning on PyTorch's fork
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    epochs = 1 if args.quick else 3
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, D), dtype=np.float32)
    y = rng.integers(0, 10, N).astype(np.int64)
    print(f"TensorDataset {N}x{D} float32 + int64 labels, batch {BATCH}, shuffle=True; "
          f"median of {epochs} epochs (first epoch in brackets)")
    print(f"{'workers':<9}{'torchlike/s':>13}{'torch/s':>13}{'tl/torch':>10}")
    for workers in (0, 2):
        tl_first, tl_rate = measure(tl, x, y, workers, epochs)
        th_first, th_rate = measure(torch, x, y, workers, epochs)
        print(f"{workers:<9}{tl_rate:13,.0f}{th_rate:13,.0f}{tl_rate / th_rate:9.2f}x"
              f"   [first epoch: {tl_first:,.0f} vs {th_first:,.0f}]")
    jr = raw_jax(x, y, epochs)
    print(f"raw JAX gather loop (0 workers floor): {jr:,.0f} samples/s")


if __name__ == "__main__":
    main()
