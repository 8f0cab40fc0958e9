"""`torchlike.compile` benchmarks: a whole training step as one XLA program, against a
hand-written `jax.jit` + optax step and PyTorch eager, measured in the same run.

    python benchmarks/bench_compile.py [--quick]

1. MLP step (784-256-256-10, batch 64, nn.CrossEntropyLoss, torch.optim.SGD momentum 0.9),
   written as a PyTorch user would (nn.Sequential / nn.Linear). Target: compiled <= 1.1x the
   hand-written jax.jit + optax step.
2. Small CNN step (2 conv + 2 linear, 3x32x32, batch 32, SGD momentum). Target <= 1.1x.
3. First-call time (trace + compile + run) of both: target compiled <= 2x hand-written JAX.
   The compiled step traces twice (the first call meets no `.grad` and no momentum buffer, the
   second one does), both calls are shown.
The steady-state timings interleave the two XLA contenders round by round (this machine is
shared); PyTorch eager is timed after them.
"""
import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax
import torch

import torchlike as tl


def mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def cnn(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.fc1 = nn.Linear(32 * 8 * 8, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            F = nn.functional
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            return self.fc2(F.relu(self.fc1(x.flatten(1))))
    return Net()


def user_step(lib, model):
    """The training step exactly as a PyTorch user writes it."""
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def jax_mlp_loss(ps, x, y):
    h = x
    for i in range(0, 6, 2):
        h = h @ ps[i].T + ps[i + 1]
        if i < 4:
            h = jax.nn.relu(h)
    return optax.softmax_cross_entropy_with_integer_labels(h, y).mean()


def jax_cnn_loss(ps, x, y):
    from jax import lax

    def conv(x, w, b):
        y = lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)),
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                     precision=lax.Precision.HIGHEST)
        return y + b[None, :, None, None]

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b = ps
    h = pool(jax.nn.relu(conv(x, c1w, c1b)))
    h = pool(jax.nn.relu(conv(h, c2w, c2b)))
    h = jax.nn.relu(h.reshape(h.shape[0], -1) @ f1w.T + f1b)
    return optax.softmax_cross_entropy_with_integer_labels(h @ f2w.T + f2b, y).mean()


def jax_step(loss_fn, params_np, donate=False):
    """The hand-written reference: jax.jit over value_and_grad + an optax SGD update (with
    `donate`, the parameter and optimizer-state buffers are donated to XLA, as torchlike.compile
    does from its steady state on)."""
    tx = optax.sgd(0.01, momentum=0.9)

    def step(ps, opt_state, x, y):
        loss, g = jax.value_and_grad(loss_fn)(ps, x, y)
        updates, opt_state = tx.update(g, opt_state, ps)
        return optax.apply_updates(ps, updates), opt_state, loss
    step = jax.jit(step, donate_argnums=(0, 1) if donate else ())
    ps = [jnp.asarray(a) for a in params_np]
    state = {"p": ps, "o": tx.init(ps)}

    def run(x, y):
        state["p"], state["o"], loss = step(state["p"], state["o"], x, y)
        loss.block_until_ready()
    return run


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def interleaved(fns, n, rounds=7):
    """Median over rounds of the mean time per call (us) of each fn, rounds interleaved."""
    for f in fns:
        for _ in range(3):
            f()
    runs = [[] for _ in fns]
    for _ in range(rounds):
        for f, r in zip(fns, runs):
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            r.append((time.perf_counter() - t0) / n * 1e6)
    return [statistics.median(r) for r in runs]


def bench(name, make, x_np, y_np, jax_loss, n):
    torch.manual_seed(0)
    tmodel = make(torch)
    params_np = [p.detach().numpy().copy() for p in tmodel.parameters()]
    lmodel = make(tl)
    lmodel.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in
                            tmodel.state_dict().items()})
    xj, yj = jnp.asarray(x_np), jnp.asarray(y_np)
    xt, yt = torch.tensor(x_np), torch.tensor(y_np)
    xl, yl = tl.tensor(x_np), tl.tensor(y_np)

    jrun = jax_step(jax_loss, params_np)
    t_jax_first = timed(lambda: jrun(xj, yj))
    jrun_d = jax_step(jax_loss, params_np, donate=True)
    cstep = tl.compile(user_step(tl, lmodel))
    t_c1 = timed(lambda: cstep(xl, yl)._value().block_until_ready())
    t_c2 = timed(lambda: cstep(xl, yl)._value().block_until_ready())
    tstep = user_step(torch, tmodel)

    t_c, t_jax, t_jax_d = interleaved(
        [lambda: cstep(xl, yl)._value().block_until_ready(), lambda: jrun(xj, yj),
         lambda: jrun_d(xj, yj)], n)
    # PyTorch's OpenMP threads keep spinning after its ops return, which would slow whatever
    # runs next: torch eager is timed on its own, after the XLA contenders
    (t_torch,) = interleaved([lambda: tstep(xt, yt)], n, rounds=3)
    print(f"\n{name} (us per step)")
    print(f"  torchlike.compile {t_c:9.1f}   jax.jit+optax {t_jax:9.1f}   torch eager "
          f"{t_torch:9.1f}")
    print(f"  compiled / hand-written JAX = {t_c / t_jax:.2f}x (target <= 1.1x);  "
          f"compiled / torch eager = {t_c / t_torch:.2f}x;  JAX / torch = {t_jax / t_torch:.2f}x")
    print(f"  hand-written JAX with donated buffers {t_jax_d:9.1f}  ->  compiled / it = "
          f"{t_c / t_jax_d:.2f}x")
    print(f"  first call (trace+compile+run): compiled {t_c1 * 1e3:.0f} ms (second call "
          f"{t_c2 * 1e3:.0f} ms)  hand-written JAX {t_jax_first * 1e3:.0f} ms  ->  "
          f"{t_c1 / t_jax_first:.2f}x (target <= 2x)")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    n = 10 if p.parse_args().quick else 50
    print(f"torchlike.compile benchmark  jax {jax.__version__}  torch {torch.__version__}")
    rng = np.random.RandomState(0)
    bench("MLP step 784-256-256-10, batch 64, SGD momentum", mlp,
          rng.randn(64, 784).astype(np.float32), rng.randint(0, 10, 64).astype(np.int64),
          jax_mlp_loss, n)
    bench("small CNN step (2 conv + 2 linear), 3x32x32, batch 32, SGD momentum", cnn,
          rng.randn(32, 3, 32, 32).astype(np.float32), rng.randint(0, 10, 32).astype(np.int64),
          jax_cnn_loss, max(n // 5, 4))


if __name__ == "__main__":
    main()
