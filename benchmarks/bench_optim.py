"""optimizer.step() over 100 parameters of 256x256: torchlike vs torch (default and foreach) vs a
hand-written jitted optax update over the same arrays (raw JAX, for reference). The ratio is
torchlike / torch's default; "1thr" is PyTorch limited to one intra-op thread (a conservative
reference on a loaded machine, where PyTorch's thread pool can oversubscribe the cores).

    python benchmarks/bench_optim.py
"""
import os
import sys

import jax
import numpy as np
import optax
import torch

sys.path.insert(0, os.path.dirname(__file__))
import torchlike  # noqa: E402
from timing import per_call  # noqa: E402

N_PARAMS, SHAPE, N = 100, (256, 256), 50
CASES = [("SGD momentum", "SGD", dict(lr=0.01, momentum=0.9),
          lambda: optax.sgd(0.01, momentum=0.9)),
         ("Adam", "Adam", dict(lr=1e-3), lambda: optax.adam(1e-3))]


def _arrays():
    rng = np.random.RandomState(0)
    return ([rng.randn(*SHAPE).astype(np.float32) for _ in range(N_PARAMS)],
            [rng.randn(*SHAPE).astype(np.float32) * 1e-2 for _ in range(N_PARAMS)])


def _setup(lib, cls, kw, ws, gs, **extra):
    ps = [lib.tensor(w, requires_grad=True) for w in ws]
    for p, g in zip(ps, gs):
        p.grad = lib.tensor(g)
    return getattr(lib.optim, cls)(ps, **kw, **extra)


def _raw_jax(make_tx, ws, gs):
    tx = make_tx()
    params = [jax.numpy.asarray(w) for w in ws]
    grads = [jax.numpy.asarray(g) for g in gs]
    state = [tx.init(params)]

    @jax.jit
    def update(params, grads, state):
        u, state = tx.update(grads, state, params)
        return optax.apply_updates(params, u), state

    def step():
        params[:], state[0] = update(params, grads, state[0])
        jax.block_until_ready(params)
    return step


def main():
    ws, gs = _arrays()
    print(f"optimizer.step() over {N_PARAMS} params of {SHAPE[0]}x{SHAPE[1]} float32 "
          f"(us per step, median of 5 x {N})")
    threads = torch.get_num_threads()
    print(f"{'case':14s} {'torchlike':>10s} {'torch':>10s} {'foreach':>10s} {'torch 1thr':>10s} "
          f"{'raw JAX':>10s} {'ratio':>6s} {'vs foreach':>10s} {'vs 1thr':>8s}")
    for name, cls, kw, make_tx in CASES:
        t_opt = _setup(torch, cls, kw, ws, gs)
        f_opt = _setup(torch, cls, kw, ws, gs, foreach=True)
        l_opt = _setup(torchlike, cls, kw, ws, gs)

        def tl_step():
            l_opt.step()
            jax.block_until_ready(l_opt.param_groups[0]["params"][-1]._value())

        tl = per_call(tl_step, N)
        tt = per_call(t_opt.step, N)
        tf = per_call(f_opt.step, N)
        torch.set_num_threads(1)      # reference: PyTorch without intra-op threads
        t1 = per_call(t_opt.step, N)
        torch.set_num_threads(threads)
        raw = per_call(_raw_jax(make_tx, ws, gs), N)
        print(f"{name:14s} {tl:10.0f} {tt:10.0f} {tf:10.0f} {t1:10.0f} {raw:10.0f} "
              f"{tl / tt:6.2f} {tl / tf:10.2f} {tl / t1:8.2f}")


if __name__ == "__main__":
    main()
