"""Tensor-core benchmarks: torchlike against PyTorch and raw JAX, measured in the same run.

    python benchmarks/bench_core.py [--quick]

Prints per-call microseconds and ratios for: small ops on 64x64 float32, view creation, a
1024x1024 matmul, loops whose scalar/index/slice/lr changes every iteration, and the first call
of a small op at a new shape. Targets (issue 2): small op <= jitted JAX call + 1 us; view <= 3 us;
matmul <= 1.05x JAX; changing-value loops <= 5x torch per iteration; first call <= 10 ms.
"""
import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np
import torch

import torchlike as tl
from timing import per_call


def block(x):
    if isinstance(x, tl.Tensor):
        x._value().block_until_ready()
    elif isinstance(x, jax.Array):
        x.block_until_ready()
    return x


def row(name, tl_us, torch_us, jax_us, target):
    jr = f"{tl_us / jax_us:5.2f}x" if jax_us else "   - "
    print(f"{name:<34}{tl_us:9.2f}{torch_us:9.2f}{jax_us if jax_us else float('nan'):9.2f}"
          f"  {tl_us / torch_us:6.2f}x  {jr}   {target}")


def small_ops(n):
    print(f"\n{'small op, 64x64 float32':<34}{'tl us':>9}{'torch':>9}{'jax':>9}  "
          f"{'vs torch':>7} {'vs jax':>6}   target")
    a_np = np.random.rand(64, 64).astype(np.float32)
    ta, tb = torch.tensor(a_np), torch.tensor(a_np)
    la, lb = tl.tensor(a_np), tl.tensor(a_np)
    ja, jb = jnp.asarray(a_np), jnp.asarray(a_np)
    jadd = jax.jit(lambda x, y: x + y)
    jmul = jax.jit(lambda x, y: x * y)
    jmm = jax.jit(jnp.matmul)
    jsum = jax.jit(jnp.sum)
    jcol = jax.jit(lambda x: x[:, 3])
    cases = [
        ("add  a + b", lambda: la + lb, lambda: ta + tb, lambda: jadd(ja, jb)),
        ("mul  a * b", lambda: la * lb, lambda: ta * tb, lambda: jmul(ja, jb)),
        ("matmul  a @ b", lambda: la @ lb, lambda: ta @ tb, lambda: jmm(ja, jb)),
        ("sum  a.sum()", lambda: la.sum(), lambda: ta.sum(), lambda: jsum(ja)),
        ("index  a[:, 3] (view)", lambda: la[:, 3], lambda: ta[:, 3], lambda: jcol(ja)),
        ("in-place  a.add_(b)", lambda: la.add_(lb), lambda: ta.add_(tb),
         lambda: jadd(ja, jb)),
    ]
    for name, f_tl, f_torch, f_jax in cases:
        t_tl, t_t, t_j = per_call(f_tl, n), per_call(f_torch, n), per_call(f_jax, n)
        row(name, t_tl, t_t, t_j, f"<= jax + 1us ({t_j + 1:.2f})")
        block(f_tl())


def views(n):
    print(f"\n{'view creation (no kernel)':<34}{'tl us':>9}{'torch':>9}")
    la, ta = tl.ones(64, 64), torch.ones(64, 64)
    for name, f_tl, f_t in [
        ("x.t()", lambda: la.t(), lambda: ta.t()),
        ("x.view(-1)", lambda: la.view(-1), lambda: ta.view(-1)),
        ("x.narrow(0, 3, 10)", lambda: la.narrow(0, 3, 10), lambda: ta.narrow(0, 3, 10)),
        ("x.unsqueeze(0)", lambda: la.unsqueeze(0), lambda: ta.unsqueeze(0)),
        ("x[3]", lambda: la[3], lambda: ta[3]),
    ]:
        t_tl, t_t = per_call(f_tl, n), per_call(f_t, n)
        row(name, t_tl, t_t, 0, "<= 3 us")


def big_matmul(n):
    print(f"\n{'1024x1024 float32 matmul':<34}{'tl us':>9}{'torch':>9}{'jax':>9}")
    a_np = np.random.rand(1024, 1024).astype(np.float32)
    la, ta, ja = tl.tensor(a_np), torch.tensor(a_np), jnp.asarray(a_np)
    jmm = jax.jit(jnp.matmul)
    t_tl = per_call(lambda: block(la @ la), n)
    t_t = per_call(lambda: ta @ ta, n)
    t_j = per_call(lambda: jmm(ja, ja).block_until_ready(), n)
    row("a @ a", t_tl, t_t, t_j, "<= 1.05x jax")


def changing_values(n):
    print(f"\n{'loops, value changes each iter':<34}{'tl us':>9}{'torch':>9}")
    la, ta = tl.ones(64, 64), torch.ones(64, 64)
    lg, tg = tl.ones(64, 64), torch.ones(64, 64)
    it = {"i": 0}

    def nxt():
        it["i"] += 1
        return it["i"]

    vals = _Fresh()
    cases = [
        ("x.mul_(scalar_i)", lambda: la.mul_(vals[nxt()]), lambda: ta.mul_(vals[nxt()])),
        ("x.mul_(0.999) (recurring value)", lambda: la.mul_(0.999), lambda: ta.mul_(0.999)),
        ("x * scalar_i", lambda: la * vals[nxt()], lambda: ta * vals[nxt()]),
        ("p.add_(g, alpha=-lr_i)", lambda: la.add_(lg, alpha=-vals[nxt()] * 1e-3),
         lambda: ta.add_(tg, alpha=-vals[nxt()] * 1e-3)),
        ("x[i] + 1", lambda: la[nxt() % 64] + 1, lambda: ta[nxt() % 64] + 1),
        ("x[i:i+8].add_(1)", lambda: la[nxt() % 56:nxt() % 56 + 8].add_(1),
         lambda: ta[nxt() % 56:nxt() % 56 + 8].add_(1)),
        ("x.narrow(0, i, 8).sum()", lambda: la.narrow(0, nxt() % 56, 8).sum(),
         lambda: ta.narrow(0, nxt() % 56, 8).sum()),
    ]
    for name, f_tl, f_t in cases:
        t_tl, t_t = per_call(f_tl, n), per_call(f_t, n)
        row(name, t_tl, t_t, 0, "<= 5x torch")


class _Fresh:
    """vals[i]: a value never seen before (like a decaying learning rate)."""

    def __init__(self):
        self.k = 0

    def __getitem__(self, i):
        self.k += 1
        return 1.0 + 1e-9 * self.k


_FIRST_CALL_CHILD = r"""
import sys, time
import jax, jax.numpy as jnp, numpy as np
import torch, torchlike as tl
shape = (int(sys.argv[1]), 53)
# the process's first compile also builds JAX's MLIR context and imports its lowering modules
# (~30 ms, once per process): paid here, at another shape, by both torchlike and raw JAX
(tl.ones(3, 7) + tl.ones(3, 7))._value().block_until_ready()
jax.jit(lambda a: a + 1)(jnp.ones((3, 7))).block_until_ready()
FAST = {"xla_backend_optimization_level": 0, "xla_cpu_use_fusion_emitters": False}
out = []
for name, f_tl, f_t, f_j in [
        ("a + b", lambda s: tl.ones(*s) + tl.ones(*s), lambda s: torch.ones(*s) + torch.ones(*s),
         lambda a, b: a + b),
        ("a * 2.5", lambda s: tl.ones(*s) * 2.5, lambda s: torch.ones(*s) * 2.5,
         lambda a, b: a * 2.5),
        ("a.sum()", lambda s: tl.ones(*s).sum(), lambda s: torch.ones(*s).sum(),
         lambda a, b: a.sum())]:
    x = tl.ones(*shape)
    t0 = time.perf_counter(); r = f_tl(shape); r._value().block_until_ready()
    t_tl = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter(); f_t(shape); t_t = (time.perf_counter() - t0) * 1e3
    times = []
    for i, opts in enumerate((None, FAST)):  # each at a shape new to it
        a = np.ones((shape[0] + 1 + i, 53), np.float32)
        t0 = time.perf_counter(); jax.jit(f_j, compiler_options=opts)(a, a).block_until_ready()
        times.append((time.perf_counter() - t0) * 1e3)
    out.append(f"{name}|{t_tl:.2f}|{t_t:.3f}|{times[0]:.2f}|{times[1]:.2f}")
print(";".join(out))
"""


def first_call():
    """First call of a small op at a never-seen shape, in a fresh process whose one-time JAX
    set-up is done: once with an empty persistent compilation cache (cold) and once more with
    the cache that run left (a second run of the same script). Raw JAX's first call of the same
    op at a new shape is timed in the same process, with XLA's default options and with its
    fastest-compiling ones (optimisation level 0, no fusion emitters), which torchlike does not
    use: they change results in the last bits (tanh, arctan, fused multiply-adds) and run large
    elementwise kernels up to 30x slower."""
    import os
    import random
    import subprocess
    import sys
    import tempfile
    print(f"\n{'first call at a new shape':<34}{'tl ms':>9}{'torch':>9}{'jax':>9}  "
          f"{'vs jax':>6}  {'jax, fastest XLA':>16}")
    rows_dim = str(random.randint(100, 5000))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TORCHLIKE_CACHE_DIR=cache)
        for label in ("cold", "warm cache"):
            out = subprocess.run([sys.executable, "-c", _FIRST_CALL_CHILD, rows_dim], env=env,
                                 capture_output=True, text=True, check=True).stdout.strip()
            for item in out.split(";"):
                name, t_tl, t_t, t_j, t_fast = (item.split("|")[0],) + tuple(
                    float(v) for v in item.split("|")[1:])
                print(f"{name + ' (' + label + ')':<34}{t_tl:9.2f}{t_t:9.3f}{t_j:9.2f}  "
                      f"{t_tl / t_j:5.2f}x  {t_fast:16.2f}   target <= 10 ms")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    n = 300 if args.quick else 3000
    print(f"torchlike benchmark  jax {jax.__version__}  torch {torch.__version__}  "
          f"device {jax.devices()[0].platform}")
    first_call()
    small_ops(n)
    views(n * 3)
    big_matmul(5 if args.quick else 20)
    changing_values(n)


if __name__ == "__main__":
    main()
