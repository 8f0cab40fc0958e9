"""Fused eager against op-by-op eager, PyTorch eager and a jitted JAX function, in one run.

    python benchmarks/bench_fused_eager.py [--quick]

Each scenario reads a value back every step (`.item()` / `.tolist()`), so a step is one
segment; with fused eager on (`torchlike._core.lazy`) the steady state runs each step as one
program.

1. chain: 50 elementwise ops on a 64x64 tensor, then its sum read.
2. mlp: an MLP (784-256-256-10, batch 64) forward under no_grad, predictions read.
3. gru: greedy sampling from a hand-written GRU cell (hidden 128, 64 symbols), a token read
   per step.
4. sgd: SGD with momentum over an MLP's six parameters under no_grad (the update an optimizer
   step makes), one weight element read per step.
5. Training steps with autograd, the loss read: a hand-written GRU-cell language model, an MLP
   written with nn and optim, and a 50-op elementwise chain's forward and backward.
"""
import argparse

import jax
import jax.numpy as jnp
import numpy as np
import torch

import torchlike as tl
from torchlike._core import lazy
from timing import per_call

torch.set_num_threads(1)
R = np.random.RandomState(0)


def chain_fn(lib_or_jnp, x):
    for i in range(25):
        x = x * 1.001 + 0.01
    return x


def chain(lib):
    x = lib.tensor(R.randn(64, 64).astype(np.float32))
    return lambda: chain_fn(lib, x).sum().item()


def chain_jax():
    x = jnp.asarray(R.randn(64, 64).astype(np.float32))
    f = jax.jit(lambda x: chain_fn(jnp, x).sum())
    return lambda: float(f(x))


MLP = [(784, 256), (256,), (256, 256), (256,), (256, 10), (10,)]
MLP_W = [(R.randn(*s) * 0.05).astype(np.float32) for s in MLP]
MLP_X = R.randn(64, 784).astype(np.float32)


def mlp_fn(x, w1, b1, w2, b2, w3, b3, relu):
    h = relu(x @ w1 + b1)
    h = relu(h @ w2 + b2)
    return h @ w3 + b3


def mlp(lib):
    ps = [lib.tensor(w) for w in MLP_W]
    x = lib.tensor(MLP_X)

    def step():
        with lib.no_grad():
            return mlp_fn(x, *ps, lambda t: t.relu()).argmax(1).tolist()
    return step


def mlp_jax():
    ps = [jnp.asarray(w) for w in MLP_W]
    x = jnp.asarray(MLP_X)
    f = jax.jit(lambda x, *ps: mlp_fn(x, *ps, jax.nn.relu).argmax(1))
    return lambda: f(x, *ps).tolist()


H, V = 128, 64
GRU_W = [(R.randn(*s) * 0.1).astype(np.float32)
         for s in [(V, H), (H, 3 * H), (H, 3 * H), (3 * H,), (H, V)]]


def gru_cell(x, h, wi, wh, b):
    """A GRU cell written with tensor ops: slices of the gates, sigmoid, tanh."""
    gi = x @ wi + b
    gh = h @ wh
    r = (gi[:, :H] + gh[:, :H]).sigmoid()
    z = (gi[:, H:2 * H] + gh[:, H:2 * H]).sigmoid()
    n = (gi[:, 2 * H:] + r * gh[:, 2 * H:]).tanh()
    return (1 - z) * n + z * h


def gru(lib):
    emb, wi, wh, b, wo = [lib.tensor(w) for w in GRU_W]

    def sample():
        h = lib.zeros(1, H)
        tok = 0
        with lib.no_grad():
            for _ in range(16):
                h = gru_cell(emb[tok].unsqueeze(0), h, wi, wh, b)
                tok = (h @ wo).argmax().item()
        return tok
    return sample


def sgd(lib):
    ps = [lib.tensor(w) for w in MLP_W]
    gs = [lib.tensor(w * 0.01) for w in MLP_W]
    bufs = [lib.zeros(*w.shape) for w in MLP_W]

    def step():
        with lib.no_grad():
            for p, g, buf in zip(ps, gs, bufs):
                buf.mul_(0.9).add_(g)
                p.sub_(buf, alpha=0.01)
        return ps[-1][0].item()
    return step


def gru_train(lib):
    """A hand-written GRU-cell language model's training step (batch 32, 16 steps, hidden 128,
    64 symbols, SGD with momentum), its loss read."""
    g = np.random.RandomState(1)
    ps = [lib.tensor(w, requires_grad=True) for w in GRU_W]
    emb, wi, wh, b, wo = ps
    data = lib.tensor(g.randint(0, V, size=(32, 17)))
    opt = lib.optim.SGD(ps, lr=0.05, momentum=0.9)

    def step():
        h = lib.zeros(32, H)
        loss = 0
        for t in range(16):
            h = gru_cell(emb[data[:, t]], h, wi, wh, b)
            loss = loss + lib.nn.functional.cross_entropy(h @ wo, data[:, t + 1])
        return _update(opt, loss)
    return step


def _update(opt, loss):
    """The end of a training step: gradients, the optimizer's step, the loss read."""
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def mlp_train(lib):
    """An MLP training step as users write it (nn.Sequential, CrossEntropyLoss, SGD)."""
    lib.manual_seed(0)
    nn = lib.nn
    m = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                      nn.Linear(256, 10))
    opt = lib.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    x = lib.tensor(MLP_X)
    y = lib.tensor(np.random.RandomState(2).randint(0, 10, size=64))
    crit = nn.CrossEntropyLoss()

    def step():
        return _update(opt, crit(m(x), y))
    return step


def chain_backward(lib):
    """Forward and backward of a 50-op elementwise chain on 1,000 elements."""
    w = lib.tensor(np.linspace(0, 1, 1000, dtype=np.float32), requires_grad=True)

    def step():
        x = w
        for i in range(25):
            x = x * 1.001 + 0.01
        x.sum().backward()
        g = w.grad.sum().item()
        w.grad = None
        return g
    return step


# (name, scenario, its jitted JAX twin, calls timed per run, warm-up calls: fused eager
# settles a training step's segment by its fifth step and compiles it then)
SCENARIOS = [("chain (50 ops, 64x64)", chain, chain_jax, 200, 10),
             ("MLP forward, no_grad", mlp, mlp_jax, 100, 10),
             ("GRU-cell greedy sampling, 16 tokens", gru, None, 10, 4),
             ("SGD momentum update, 6 params", sgd, None, 200, 10),
             ("GRU-cell LM training step (32 x 16, hidden 128)", gru_train, None, 10, 10),
             ("MLP training step (nn, CrossEntropyLoss, SGD)", mlp_train, None, 50, 10),
             ("50-op chain, forward + backward", chain_backward, None, 100, 10)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    scale = 0.3 if args.quick else 1.0
    print("| scenario | PyTorch µs | jitted JAX µs | torchlike eager µs | fused eager µs | "
          "eager / PyTorch | fused / PyTorch |")
    print("|---|---|---|---|---|---|---|")
    for name, make, make_jax, n, warm in SCENARIOS:
        n = max(5, int(n * scale))
        t_torch = per_call(make(torch), n, warmup=warm)
        t_jax = per_call(make_jax(), n, warmup=warm) if make_jax else float("nan")
        lazy.enable(False)
        t_eager = per_call(make(tl), n, warmup=warm)
        lazy.enable(True)
        t_fused = per_call(make(tl), n, warmup=warm)
        lazy.enable(False)
        print(f"| {name} | {t_torch:.0f} | {t_jax:.0f} | {t_eager:.0f} | {t_fused:.0f} | "
              f"{t_eager / t_torch:.2f}x | {t_fused / t_torch:.2f}x |", flush=True)
    print("fused eager counts:", lazy.STATS)


if __name__ == "__main__":
    main()
