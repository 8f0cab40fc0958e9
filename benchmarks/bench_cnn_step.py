"""Eager small-CNN training step (2 conv + 2 linear, 3x32x32, batch 32, SGD momentum 0.9):
torchlike against PyTorch eager and a jitted JAX step, measured in the same run.
Target (issue 4): <= 2.0x torch. The model code is identical for both libraries.

    python benchmarks/bench_cnn_step.py [--quick]
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


def make_model(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.fc1 = nn.Linear(32 * 8 * 8, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = nn.functional.max_pool2d(nn.functional.relu(self.conv1(x)), 2)
            x = nn.functional.max_pool2d(nn.functional.relu(self.conv2(x)), 2)
            x = x.flatten(1)
            return self.fc2(nn.functional.relu(self.fc1(x)))
    return Net()


def sgd_momentum(lib, params, bufs, lr=0.01, momentum=0.9):
    with lib.no_grad():
        for p, b in zip(params, bufs):
            b.mul_(momentum).add_(p.grad)
            p.sub_(b, alpha=lr)


def jax_step_fn(params_np):
    """The same step as one jitted JAX program (the floor for XLA on this machine)."""
    from jax import lax

    def conv(x, w, b):
        y = lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)),
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                     precision=lax.Precision.HIGHEST)
        return y + b[None, :, None, None]

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss_fn(ps, x, y):
        c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b = ps
        h = pool(jax.nn.relu(conv(x, c1w, c1b)))
        h = pool(jax.nn.relu(conv(h, c2w, c2b)))
        h = h.reshape(h.shape[0], -1)
        h = jax.nn.relu(h @ f1w.T + f1b)
        logits = h @ f2w.T + f2b
        return -jnp.take_along_axis(jax.nn.log_softmax(logits, 1), y[:, None], 1).mean()

    @jax.jit
    def step(ps, bufs, x, y):
        loss, g = jax.value_and_grad(loss_fn)(ps, x, y)
        bufs = [0.9 * b + gi for b, gi in zip(bufs, g)]
        return [p - 0.01 * b for p, b in zip(ps, bufs)], bufs, loss
    state = {"p": [jnp.asarray(a) for a in params_np],
             "b": [jnp.zeros(a.shape, jnp.float32) for a in params_np]}

    def run(x, y):
        state["p"], state["b"], loss = step(state["p"], state["b"], x, y)
        loss.block_until_ready()
    return run


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    n = 5 if p.parse_args().quick else 20
    rng = np.random.RandomState(0)
    x_np = rng.randn(32, 3, 32, 32).astype(np.float32)
    y_np = rng.randint(0, 10, size=32).astype(np.int64)

    states = {}
    for lib in (torch, tl):
        torch.manual_seed(0)
        model = make_model(lib)
        if lib is tl:
            sd = {k: tl.tensor(v.detach().numpy()) for k, v in states[torch][0].state_dict().items()}
            model.load_state_dict(sd)
        params = list(model.parameters())
        bufs = [lib.zeros_like(q) for q in params]
        x, y = lib.tensor(x_np), lib.tensor(y_np)
        loss_fn = lib.nn.CrossEntropyLoss()

        def step(model=model, params=params, bufs=bufs, x=x, y=y, lib=lib, loss_fn=loss_fn):
            model.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            sgd_momentum(lib, params, bufs)
            return loss
        states[lib] = (model, step)

    t_torch = per_call(states[torch][1], n)
    t_tl = per_call(lambda: states[tl][1]()._value().block_until_ready(), n)
    params_np = [p.detach().numpy() for p in states[torch][0].parameters()]
    jrun = jax_step_fn(params_np)
    xj, yj = jnp.asarray(x_np), jnp.asarray(y_np)
    t_jax = per_call(lambda: jrun(xj, yj), n)
    print(f"small CNN training step, batch 32 (us): torchlike {t_tl:.0f}  torch {t_torch:.0f}  "
          f"jitted JAX {t_jax:.0f}")
    print(f"  torchlike / torch = {t_tl / t_torch:.2f}x (target <= 2.0x);  jitted JAX / torch = "
          f"{t_jax / t_torch:.2f}x;  torchlike / jitted JAX = {t_tl / t_jax:.2f}x")


if __name__ == "__main__":
    main()
