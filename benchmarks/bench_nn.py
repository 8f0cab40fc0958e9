"""nn benchmarks: conv2d forward+backward, torchlike eager vs a raw `jax.jit` of the same
conv forward+backward vs PyTorch eager, measured in the same run.

    python benchmarks/bench_nn.py [--quick]

conv2d: input 16x32x64x64, weight 32x32x3x3 + bias, padding 1; loss = (y * g).sum(), gradients
for input, weight and bias. Target: torchlike <= 1.1x raw JAX.
"""
import argparse
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import torchlike as tl  # noqa: E402
from timing import per_call  # noqa: E402


def lib_step(lib, x, w, b, g):
    def step():
        for t in (x, w, b):
            t.grad = None
        y = lib.nn.functional.conv2d(x, w, b, padding=1)
        (y * g).sum().backward()
        return x.grad, w.grad, b.grad
    return step


def sync(lib, outs):
    if lib is tl:
        for o in outs:
            o._value().block_until_ready()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = 3 if args.quick else 10
    rng = np.random.RandomState(0)
    xs = rng.randn(16, 32, 64, 64).astype(np.float32)
    ws = (rng.randn(32, 32, 3, 3) * 0.05).astype(np.float32)
    bs = rng.randn(32).astype(np.float32)
    gs = rng.randn(16, 32, 64, 64).astype(np.float32)

    # raw JAX: one jitted program for forward (the loss value) + backward
    def loss(x, w, b, g):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)),
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                         precision=jax.lax.Precision.HIGHEST)
        y = y + b.reshape(1, -1, 1, 1)
        return (y * g).sum()

    grad = jax.jit(jax.value_and_grad(loss, argnums=(0, 1, 2)))
    jx, jw, jb, jg = map(jnp.asarray, (xs, ws, bs, gs))

    def jax_step():
        out = grad(jx, jw, jb, jg)
        jax.block_until_ready(out)

    res = {}
    for name, lib in (("torchlike", tl), ("torch", torch)):
        x = lib.tensor(xs).requires_grad_(True)
        w = lib.tensor(ws).requires_grad_(True)
        b = lib.tensor(bs).requires_grad_(True)
        g = lib.tensor(gs)
        step = lib_step(lib, x, w, b, g)

        def timed(step=step, lib=lib):
            sync(lib, step())
        res[name] = per_call(timed, n, repeat=3, warmup=2)
    res["raw jax.jit"] = per_call(jax_step, n, repeat=3, warmup=2)
    print(f"conv2d 16x32x64x64 k=3 fwd+bwd ({jax.devices()[0].platform}):")
    for k, v in res.items():
        print(f"  {k:12s} {v / 1e3:9.2f} ms")
    print(f"  torchlike / raw JAX = {res['torchlike'] / res['raw jax.jit']:.3f}x (target <= 1.1x)")
    print(f"  torchlike / torch   = {res['torchlike'] / res['torch']:.3f}x")


if __name__ == "__main__":
    main()
