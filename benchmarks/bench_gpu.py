"""The GPU benchmarks of benchmarks/gpu_check.sh: torchlike against CUDA PyTorch and raw jitted
JAX on the same accelerator, each contender in a fresh child process.

    python benchmarks/bench_gpu.py [--quick] [--json FILE]

1. small op: `y = y + b` and `y.clamp(min=0)` on 64x64 float32, 2,000 calls, device
   synchronized at the end; microseconds per call. Target: torchlike <= a jitted JAX call + 2 us.
1b. one kernel's compile (a 1024² matmul, a GELU, a layer norm), with XLA's defaults and with
   GPU autotuning off: the first-call cost of every eager op there.
3. eager training steps: an MLP (784-1024-1024-10, batch 128, SGD with momentum) and a small CNN
   (two 3x3 conv + ReLU + max-pool stages at 32 and 64 channels on 3x32x32, linear to 10, batch
   64, SGD); median of 30 steps after 5 warm-up ones, each ending with `loss.item()`. Target:
   torchlike <= 1.5x PyTorch. torchlike runs twice: op by op ("torchlike") and under fused eager
   ("tl_fused", TORCHLIKE_FUSED_EAGER=1: the step recorded and run as a few cached programs).
2. GPT training step (benchmarks/bench_real_sizes.py's nanoGPT: 6 layers, 384 wide, 6 heads,
   block 256, batch 64, AdamW), 20 steps from the same CPU-seeded weights and batches: PyTorch
   eager and `torch.compile`, torchlike eager and `torchlike.compile`, and the hand-written
   `jax.jit` + optax step. Targets: losses equal to PyTorch's over the 20 steps; torchlike
   compiled <= torch.compile's time per step and <= 1.1x the JAX step.

Each library uses the accelerator it sees ("cuda" for PyTorch and torchlike, JAX's default
device), else the CPU (a dry run of this script on a machine without a GPU; --quick shrinks the
sizes for that). Ratios are only comparable within one run on one machine.
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_real_sizes as real  # noqa: E402
import children  # noqa: E402

CALLS = 2000


def _device(torch):
    return "cuda" if torch.cuda.is_available() else "cpu"


def _sync(torch):
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def child_small(lib):
    if lib == "jax":
        import jax
        import jax.numpy as jnp
        add = jax.jit(lambda y, b: y + b)
        clamp = jax.jit(lambda y: jnp.maximum(y, 0))
        y = jnp.ones((64, 64), jnp.float32)
        b = jnp.full((64, 64), 1e-6, jnp.float32)
        out = {}
        for name, f in (("add", lambda y: add(y, b)), ("clamp", clamp)):
            for _ in range(100):
                y = f(y)
            y.block_until_ready()
            t0 = time.perf_counter()
            for _ in range(CALLS):
                y = f(y)
            y.block_until_ready()
            out[name] = (time.perf_counter() - t0) / CALLS * 1e6
        return dict(us=out, device=str(jax.devices()[0]))
    torch, _ = children.import_lib(lib)
    dev = _device(torch)
    y = torch.ones(64, 64, device=dev)
    b = torch.full((64, 64), 1e-6, device=dev)
    out = {}
    for name, f in (("add", lambda y: y + b), ("clamp", lambda y: y.clamp(min=0))):
        for _ in range(100):
            y = f(y)
        _sync(torch)
        t0 = time.perf_counter()
        for _ in range(CALLS):
            y = f(y)
        _sync(torch)
        out[name] = (time.perf_counter() - t0) / CALLS * 1e6
    return dict(us=out, device=dev)


COMPILE_VARIANTS = {"default": {}, "autotune 0": {"xla_gpu_autotune_level": 0}}


def child_compile():
    """Seconds to compile one kernel on the accelerator, per XLA option set: what each eager
    op's first call costs there (on an H200, about 1.3 s a kernel for the GPT's first step)."""
    import jax
    import jax.numpy as jnp
    x = jnp.ones((1024, 1024), jnp.float32)
    v = jnp.ones((8192, 384), jnp.float32)
    kernels = {"matmul 1024": (lambda a: a @ a, x), "gelu 1024x1024": (jax.nn.gelu, x),
               "layer norm 8192x384": (lambda a: (a - a.mean(-1, keepdims=True)) /
                                       jnp.sqrt(a.var(-1, keepdims=True) + 1e-5), v)}
    out = {}
    for variant, opts in COMPILE_VARIANTS.items():
        for name, (f, a) in kernels.items():
            g = jax.jit(lambda a, f=f, tag=variant: f(a))   # a new function: no cache hit
            t0 = time.perf_counter()
            try:
                g.lower(a).compile(compiler_options=opts or None)
                out[f"{name} / {variant}"] = time.perf_counter() - t0
            except Exception as e:   # an option this XLA does not have
                out[f"{name} / {variant}"] = f"{type(e).__name__}: {str(e)[:80]}"
    return dict(seconds=out, device=str(jax.devices()[0]))


def _mlp(torch):
    nn = torch.nn
    return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                         nn.Linear(1024, 10)), (128, 784)


def _cnn(torch):
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * 8 * 8, 10)), (64, 3, 32, 32)


def child_step(lib, model, quick):
    torch, _ = children.import_lib("torch" if lib == "torch" else "torchlike")
    dev = _device(torch)
    torch.manual_seed(0)
    net, shape = (_mlp if model == "mlp" else _cnn)(torch)
    net.to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(0)
    data = [(torch.randn(*shape, generator=g).to(dev),
             torch.randint(0, 10, (shape[0],), generator=g).to(dev)) for _ in range(4)]

    def step(i):
        x, y = data[i % len(data)]
        t0 = time.perf_counter()
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        v = loss.item()
        return time.perf_counter() - t0, v

    first, _ = step(0)
    for i in range(5):
        step(i)
    times = [step(i)[0] for i in range(10 if quick else 30)]
    return dict(first_s=first, step_s=statistics.median(times), device=dev)


GPT_OVER = dict(batch=64, warmup=4, timed=15)            # 20 steps in all
GPT_QUICK = dict(batch=4, block=64, warmup=2, timed=3)   # a dry run on a CPU


def child_gpt(variant, quick):
    over = GPT_QUICK if quick else GPT_OVER
    if variant == "jax":
        res = real.child_jax("gpt", quick, over)
        import jax
        res["device"] = str(jax.devices()[0])
        return res
    lib = "torch" if variant.startswith("torch") else "torchlike"
    torch, _ = children.import_lib(lib)
    dev = _device(torch)
    res = real.child_torchlike_or_torch(lib, variant, "gpt", quick, dev, over)
    res["device"] = dev
    return res


def child_main(args, quick):
    kind = args[0]
    if kind == "small":
        res = child_small(args[1])
    elif kind == "compile":
        res = child_compile()
    elif kind in ("mlp", "cnn"):
        res = child_step(args[1], kind, quick)
    else:
        res = child_gpt(args[1], quick)
    children.report(res)


def _run(kind, who, quick, timeout):
    lib = "torch" if who == "torch" or who.startswith("torch_") else "torchlike"
    env = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}   # beside PyTorch's allocator
    if who == "tl_fused":
        env["TORCHLIKE_FUSED_EAGER"] = "1"
    args = [kind, who] + (["--quick"] if quick else [])
    res, err, wall = children.run(__file__, args, lib, timeout, extra_env=env)
    if err:
        print(f"  {kind} {who}: FAILED ({err.strip().splitlines()[-1][:200] if err else ''})",
              flush=True)
    return res


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json", help="also write the results to this file")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child_main(args.child, args.quick)
        return
    print(f"GPU benchmarks{' (--quick)' if args.quick else ''}  {children.versions()}", flush=True)
    out = {}
    small = {lib: _run("small", lib, args.quick, args.timeout)
             for lib in ("torch", "jax", "torchlike", "tl_fused")}
    out["small"] = small
    if small["torch"] and small["jax"] and small["torchlike"]:
        print(f"\n1. small op (us per call; devices {[small[k]['device'] for k in small if small[k]]})")
        for op in ("add", "clamp"):
            t, j, tl = (small[k]["us"][op] for k in ("torch", "jax", "torchlike"))
            print(f"  {op:<6} torch {t:7.2f}  jax {j:7.2f}  torchlike {tl:7.2f}  "
                  f"torchlike - jax {tl - j:+6.2f}  (target <= +2)  "
                  f"{'met' if tl - j <= 2 else 'MISSED'}", flush=True)
        if small["tl_fused"]:
            print(f"  fused eager (recorded, run as programs at the end): "
                  f"{small['tl_fused']['us']}", flush=True)
    comp = _run("compile", "jax", args.quick, args.timeout)
    out["compile"] = comp
    if comp:
        print(f"\n1b. one kernel's compile (s; {comp['device']}; JAX_COMPILATION_CACHE off)")
        for k, v in comp["seconds"].items():
            print(f"  {k:<32} {v if isinstance(v, str) else f'{v:.3f}'}", flush=True)
    _save(args.json, out)
    # the eager steps before the GPT section, the long one (a timeout keeps what finished)
    print("\n3. eager training steps (median ms per step)")
    for model in ("mlp", "cnn"):
        r = {who: _run(model, who, args.quick, args.timeout)
             for who in ("torch", "torchlike", "tl_fused")}
        out[model] = r
        if not r["torch"]:
            continue
        for who in ("torchlike", "tl_fused"):
            if r[who]:
                ratio = r[who]["step_s"] / r["torch"]["step_s"]
                print(f"  {model}  torch {r['torch']['step_s'] * 1e3:8.2f}  {who:<9} "
                      f"{r[who]['step_s'] * 1e3:8.2f}  ratio {ratio:5.2f}  (target <= 1.5)  "
                      f"{'met' if ratio <= 1.5 else 'MISSED'}  first step "
                      f"{r[who]['first_s']:.1f} s", flush=True)
        _save(args.json, out)
    print("\n2. GPT training step (median ms per step; first step s; losses vs PyTorch eager)")
    # --quick (a dry run on a CPU) leaves out torch.compile: inductor's CPU compile of the GPT
    # takes minutes there
    variants = ("torch", "tl_eager", "tl_compiled", "jax") if args.quick else \
        ("torch", "torch_compiled", "tl_eager", "tl_compiled", "jax")
    g = {v: _run("gpt", v, args.quick, args.timeout) for v in variants}
    out["gpt"] = g
    ref = g.get("torch")
    for v, r in g.items():
        if not r:
            continue
        diff = max(abs(a - b) for a, b in zip(r["losses"], ref["losses"])) if ref else None
        print(f"  {v:<15} {r['step_s'] * 1e3:8.2f} ms  first {r['first_s']:6.1f} s  "
              f"max |loss - torch| {diff if diff is None else f'{diff:.2e}'}  "
              f"({len(r['losses'])} steps, {r.get('device')})", flush=True)
    if g.get("tl_compiled") and g.get("torch_compiled") and g.get("jax"):
        a = g["tl_compiled"]["step_s"]
        print(f"  compiled / torch.compile {a / g['torch_compiled']['step_s']:.2f} (target <= 1.0)"
              f"  compiled / jax {a / g['jax']['step_s']:.2f} (target <= 1.1)")
    _save(args.json, out)
    # last, so that a timeout loses nothing else: the GPT step under fused eager
    r = _run("gpt", "tl_fused", args.quick, args.timeout)
    if r:
        g["tl_fused"] = r
        diff = max(abs(a - b) for a, b in zip(r["losses"], ref["losses"])) if ref else None
        print(f"\n  GPT tl_fused {r['step_s'] * 1e3:8.2f} ms  first {r['first_s']:6.1f} s  "
              f"max |loss - torch| {diff if diff is None else f'{diff:.2e}'}", flush=True)
    _save(args.json, out)


def _save(path, out):
    """Results so far (a timeout keeps what finished)."""
    if path:
        with open(path, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
