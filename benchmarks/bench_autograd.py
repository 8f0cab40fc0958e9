"""Autograd benchmarks: torchlike eager against PyTorch eager (and a jitted JAX step for
reference), measured in the same run.

    python benchmarks/bench_autograd.py [--quick]

1. An MLP training step (784-256-256-10, batch 64, cross-entropy, SGD with momentum 0.9),
   written as a PyTorch user would (nn.Sequential, nn.CrossEntropyLoss, optim.SGD) and again in
   plain tensor ops (identical code for both libraries). Target: <= 1.5x torch.
2. Backward of a 50-op elementwise chain on 1,000 elements. Target: <= 1.0x torch.
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


def mlp_setup(lib, seed=0):
    rng = np.random.RandomState(seed)
    shapes = [(784, 256), (256,), (256, 256), (256,), (256, 10), (10,)]
    params = [lib.tensor((rng.randn(*s) * 0.05).astype(np.float32), requires_grad=True)
              for s in shapes]
    bufs = [lib.zeros(*s) for s in shapes]
    x = lib.tensor(rng.randn(64, 784).astype(np.float32))
    y = lib.tensor(rng.randint(0, 10, size=64).astype(np.int64))
    return params, bufs, x, y


def mlp_step(lib, params, bufs, x, y, lr=0.01):
    w1, b1, w2, b2, w3, b3 = params
    h = (x @ w1 + b1).relu()
    h = (h @ w2 + b2).relu()
    logits = h @ w3 + b3
    onehot = (y.unsqueeze(1) == lib.arange(10)).to(logits.dtype)
    loss = -(logits.log_softmax(1) * onehot).sum(1).mean()
    for p in params:
        p.grad = None
    loss.backward()
    with lib.no_grad():
        for p, buf in zip(params, bufs):
            buf.mul_(0.9).add_(p.grad)
            p.sub_(buf, alpha=lr)
    return loss


def nn_setup(lib, seed=0):
    """The same MLP step as a PyTorch user writes it: nn.Sequential, nn.CrossEntropyLoss,
    torch.optim.SGD(momentum=0.9); identical initial weights in both libraries."""
    rng = np.random.RandomState(seed)
    model = lib.nn.Sequential(lib.nn.Linear(784, 256), lib.nn.ReLU(), lib.nn.Linear(256, 256),
                              lib.nn.ReLU(), lib.nn.Linear(256, 10))
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor((rng.randn(*p.shape) * 0.05).astype(np.float32)))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = lib.tensor(rng.randn(64, 784).astype(np.float32))
    y = lib.tensor(rng.randint(0, 10, size=64).astype(np.int64))
    return model, lib.nn.CrossEntropyLoss(), opt, x, y


def nn_step(model, criterion, opt, x, y):
    opt.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    opt.step()
    return loss


def jax_mlp():
    rng = np.random.RandomState(0)
    shapes = [(784, 256), (256,), (256, 256), (256,), (256, 10), (10,)]
    params = [jnp.asarray((rng.randn(*s) * 0.05).astype(np.float32)) for s in shapes]
    bufs = [jnp.zeros(s, jnp.float32) for s in shapes]
    x = jnp.asarray(rng.randn(64, 784).astype(np.float32))
    y = jnp.asarray(rng.randint(0, 10, size=64))

    def loss_fn(ps):
        w1, b1, w2, b2, w3, b3 = ps
        h = jax.nn.relu(x @ w1 + b1)
        h = jax.nn.relu(h @ w2 + b2)
        logits = h @ w3 + b3
        return -jnp.take_along_axis(jax.nn.log_softmax(logits, 1), y[:, None], 1).mean()

    @jax.jit
    def step(ps, bs):
        loss, g = jax.value_and_grad(loss_fn)(ps)
        bs = [0.9 * b + gi for b, gi in zip(bs, g)]
        ps = [p - 0.01 * b for p, b in zip(ps, bs)]
        return ps, bs, loss

    state = {"p": params, "b": bufs}

    def run():
        state["p"], state["b"], loss = step(state["p"], state["b"])
        loss.block_until_ready()
    return run


def chain(lib, x):
    y = x
    for i in range(50):
        y = (y * 1.01).sin() if i % 2 else y + 0.5
    return y.sum()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    n = 20 if args.quick else 100
    print(f"torchlike autograd benchmark  jax {jax.__version__}  torch {torch.__version__}")

    tnn, lnn = nn_setup(torch), nn_setup(tl)
    t_torch = per_call(lambda: nn_step(*tnn), n)
    t_tl = per_call(lambda: nn_step(*lnn)._value().block_until_ready(), n)
    t_jax = per_call(jax_mlp(), n)
    print(f"\nMLP step 784-256-256-10, batch 64, CrossEntropyLoss, optim.SGD momentum 0.9 "
          f"(us per step)")
    print(f"  torchlike eager {t_tl:10.1f}   torch eager {t_torch:10.1f}   jitted JAX {t_jax:10.1f}")
    print(f"  torchlike / torch = {t_tl / t_torch:.2f}x  (target <= 1.5x);  "
          f"torchlike / jitted JAX = {t_tl / t_jax:.2f}x")

    tstate = mlp_setup(torch)
    lstate = mlp_setup(tl)
    t_torch = per_call(lambda: mlp_step(torch, *tstate), n)
    t_tl = per_call(lambda: mlp_step(tl, *lstate)._value().block_until_ready(), n)
    print(f"\nThe same step in plain tensor ops with a hand-written momentum update (us per step)")
    print(f"  torchlike eager {t_tl:10.1f}   torch eager {t_torch:10.1f}   "
          f"ratio {t_tl / t_torch:.2f}x")

    xt = torch.linspace(0, 1, 1000, requires_grad=True)
    xl = tl.linspace(0, 1, 1000, requires_grad=True)

    def back_torch():
        xt.grad = None
        chain(torch, xt).backward()

    def back_tl():
        xl.grad = None
        chain(tl, xl).backward()
        xl.grad._value().block_until_ready()

    lt = chain(torch, xt)
    ll = chain(tl, xl)

    def only_backward(lib, x):
        def f():
            x.grad = None
            loss = chain(lib, x)
            t0 = time.perf_counter()
            loss.backward()
            if lib is tl:
                x.grad._value().block_until_ready()
            return time.perf_counter() - t0
        for _ in range(3):
            f()
        return statistics.median(f() for _ in range(n)) * 1e6

    fb_t, fb_l = per_call(back_torch, n), per_call(back_tl, n)
    b_t, b_l = only_backward(torch, xt), only_backward(tl, xl)
    print(f"\n50-op elementwise chain on 1,000 elements (us)")
    print(f"  forward+backward: torchlike {fb_l:9.1f}   torch {fb_t:9.1f}   ratio {fb_l / fb_t:.2f}x")
    print(f"  backward only:    torchlike {b_l:9.1f}   torch {b_t:9.1f}   ratio {b_l / b_t:.2f}x"
          f"  (target <= 1.0x)")


if __name__ == "__main__":
    main()
