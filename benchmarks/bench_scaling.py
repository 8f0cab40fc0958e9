"""Scaling benchmarks: torchlike's time per unit of work against PyTorch's, as the problem grows.
The target is the same at every size: torchlike's time per node / per element <= 2x PyTorch's.

    python benchmarks/bench_scaling.py [--quick] [--only chain|views] [--timeout S]

Every measurement runs in a fresh `sys.executable` child that prints one JSON line: PyTorch with
torch.set_num_threads(1) and OMP_NUM_THREADS=1, torchlike (`import torchlike as torch`) with
JAX's default threads and an EMPTY persistent compilation cache (TORCHLIKE_CACHE_DIR set to a
new temporary folder, removed afterwards), as in bench_shapes.py. Compile counts come from
`torchlike.compile_log.counts()`. Each child has a timeout (default 900 s, 300 s with --quick);
a child that hits it, or fails, gets a row saying so.

1. chain: backward of a chain of N autograd nodes, N = 10, 100, 1000, 10000, 50000 (--quick:
   10, 100, 1000, 5000), built like an unrolled recurrent cell:
       w = torch.randn(16, 16, requires_grad=True); h = torch.ones(4, 16)
       N // 3 times: h = torch.tanh(h @ w) * 0.5        (3 nodes each)
       h.sum().backward()                                (+1 node)
   torchlike, one child per N: forward time of the first call, backward of the first sighting
   of the graph (node by node), backward of the second sighting (torchlike compiles its fused
   backward there: one program, or for graphs over 512 nodes a chain of segment programs),
   steady backward (median of the next few), traces/compiles during the second backward and
   during the steady ones. compile = 2nd-sighting backward - steady backward.
   PyTorch, one child per N: forward and backward, median of a few after one warm-up.
   Target: steady backward per node <= 2x torch's.
2. views: a view + backward of tensors of 10^3 .. 10^8 elements (--quick: up to 10^7):
       x = torch.randn(n_rows, 3 * width, requires_grad=True)    # x.numel() ~ the target
       q = x.split(width, 1)[0]; v = q.view(n_rows, width // 12, 12).transpose(1, 2)
       loss = (v * 2).sum(); loss.backward()
   width is 384 where the size allows it (a multiple of 12 otherwise). One child per library
   and size (sizes run one after the other, so only one big tensor set lives at a time): view
   creation alone (per-call median over repeats, first calls excluded) and one whole
   forward + backward step (median over a few steps after 2 warm-up steps, torchlike's
   blocked on x.grad). Target: step time per element <= 2x torch's.
"""
import argparse
import os
import statistics
import sys
import time

import children

CHAIN_N = (10, 100, 1000, 10000, 50000)
CHAIN_N_QUICK = (10, 100, 1000, 5000)
VIEW_SIZES = tuple(10 ** k for k in range(3, 9))
VIEW_SIZES_QUICK = tuple(10 ** k for k in range(3, 8))


# ------------------------------------------------------------------------------------------
# child side: `torch` is PyTorch or torchlike
# ------------------------------------------------------------------------------------------

def _sync(lib, t):
    """Wait for `t`'s value (torchlike dispatches asynchronously; PyTorch CPU does not)."""
    if lib != "torch" and t is not None:
        t._value().block_until_ready()


def _graph_nodes(loss):
    """Autograd nodes reachable from `loss` (AccumulateGrad leaves not counted)."""
    seen, stack = set(), [loss.grad_fn]
    while stack:
        f = stack.pop()
        if f is None or f in seen:
            continue
        seen.add(f)
        stack.extend(n for n, _ in f.next_functions)
    return sum(1 for f in seen if type(f).__name__ != "AccumulateGrad")


def child_chain(lib, n):
    import numpy as np
    torch, _ = children.import_lib(lib)
    torch.manual_seed(0)
    w = torch.randn(16, 16, requires_grad=True)
    steady_reps = 3 if n > 20000 else 5

    def forward():
        t0 = time.perf_counter()
        h = torch.ones(4, 16)
        for _ in range(n // 3):
            h = torch.tanh(h @ w) * 0.5
        loss = h.sum()
        _sync(lib, loss)
        return loss, time.perf_counter() - t0

    def backward(loss):
        w.grad = None
        t0 = time.perf_counter()
        loss.backward()
        _sync(lib, w.grad)
        return time.perf_counter() - t0

    def grad():
        return np.asarray(w.grad.detach().numpy(), dtype=np.float64)

    res = {}
    loss, res["fwd_first_s"] = forward()
    res["nodes"] = _graph_nodes(loss)
    if lib == "torch":
        res["bwd_first_s"] = backward(loss)
        fw, bw = [], []
        for _ in range(steady_reps):
            loss, f = forward()
            fw.append(f)
            bw.append(backward(loss))
        res["fwd_s"], res["bwd_s"] = statistics.median(fw), statistics.median(bw)
    else:
        c0 = children.counts(lib)
        res["bwd_first_s"] = backward(loss)
        res["first_counts"] = children.diff(children.counts(lib), c0)
        g_first = grad()
        loss, res["fwd_second_s"] = forward()
        c0 = children.counts(lib)
        res["bwd_second_s"] = backward(loss)
        res["second_counts"] = children.diff(children.counts(lib), c0)
        fw, bw = [], []
        c0 = children.counts(lib)
        for _ in range(steady_reps):
            loss, f = forward()
            fw.append(f)
            bw.append(backward(loss))
        res["steady_counts"] = children.diff(children.counts(lib), c0)
        res["fwd_s"], res["bwd_s"] = statistics.median(fw), statistics.median(bw)
        g = grad()
        both = np.isfinite(g) & np.isfinite(g_first)
        scale = max(np.abs(g_first[both]).max(), 1e-30) if both.any() else 1.0
        res["fused_vs_nodewise"] = (float(np.abs(g - g_first)[both].max() / scale)
                                    if both.any() else None)
    g = grad()
    res["grad_finite"] = bool(np.isfinite(g).all())
    res["grad_absmax"] = float(np.abs(g[np.isfinite(g)]).max()) if np.isfinite(g).any() else None
    res["steady_reps"] = steady_reps
    return res


def view_shape(target):
    """(n_rows, width) with x = (n_rows, 3 * width) holding ~target elements; width a multiple
    of 12, 384 where at least 8 rows fit, else about square."""
    if target >= 8 * 3 * 384:
        width = 384
    else:
        width = max(12, 12 * round((target / 3) ** 0.5 / 12))
    return max(1, round(target / (3 * width))), width


def child_views(lib, target, quick):
    torch, _ = children.import_lib(lib)
    from timing import per_call
    n_rows, width = view_shape(target)
    torch.manual_seed(0)
    x = torch.randn(n_rows, 3 * width, requires_grad=True)
    _sync(lib, x)
    numel = x.numel()

    def make_view():
        q = x.split(width, 1)[0]
        return q.view(n_rows, width // 12, 12).transpose(1, 2)

    def step():
        x.grad = None
        v = make_view()
        loss = (v * 2).sum()
        loss.backward()
        _sync(lib, x.grad)

    calls = 300 if quick else 1000
    view_us = per_call(make_view, calls, repeat=5, warmup=max(3, calls // 20))
    t0 = time.perf_counter()
    step()
    first_s = time.perf_counter() - t0
    step()                                   # second warm-up step
    reps = 20 if numel <= 10 ** 6 else (5 if numel <= 10 ** 7 else 3)
    if quick:
        reps = max(3, reps // 2)
    c0 = children.counts(lib)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    counts = children.diff(children.counts(lib), c0)
    g = x.grad
    ok = (g is not None and tuple(g.shape) == (n_rows, 3 * width)
          and abs(float(g.sum().item()) - 2.0 * n_rows * width) <= 1e-3 * n_rows * width)
    return dict(n_rows=n_rows, width=width, numel=numel, view_us=view_us,
                step_first_s=first_s, step_s=statistics.median(times), reps=reps,
                steady_counts=counts, grad_ok=bool(ok))


def child_main(lib, series, arg, quick):
    res = child_chain(lib, int(arg)) if series == "chain" else child_views(lib, int(arg), quick)
    children.report(res)


# ------------------------------------------------------------------------------------------
# parent side
# ------------------------------------------------------------------------------------------

def run_child(lib, series, arg, quick, timeout):
    """One child; returns (result dict or None, error string or None)."""
    res, err, _ = children.run(__file__, [lib, series, arg] + (["--quick"] if quick else []),
                               lib, timeout)
    return res, err


def _ms(v):
    if v is None:
        return "-"
    return f"{v * 1e3:.2f}" if v < 0.1 else f"{v * 1e3:.1f}" if v < 100 else f"{v * 1e3:.0f}"


def _x(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


def _cnt(c):
    return "-" if c is None else f"{c['traces']}/{c['compiles']}"


def series_chain(quick, timeout, notes):
    ns = CHAIN_N_QUICK if quick else CHAIN_N
    print("\n1. chain: backward of N autograd nodes, h = tanh(h @ w) * 0.5 repeated N//3 times, "
          "h (4, 16), w (16, 16)")
    runs = []
    for n in ns:
        t, err_t = run_child("torch", "chain", n, quick, timeout)
        l, err_l = run_child("torchlike", "chain", n, quick, timeout)
        runs.append((n, t, err_t, l, err_l))
        sys.stdout.flush()

    print("\n1a. torchlike, fresh process, empty compile cache (ms; tr/co = traces/compiles)")
    print(f"{'N':>6}{'nodes':>7}{'fwd 1st':>9}{'bwd 1st':>10}{'1st/torch':>10}"
          f"{'bwd 2nd':>10}{'compile':>10}{'steady':>9}{'tr/co 1st':>10}{'tr/co 2nd':>10}"
          f"{'XLA s 2nd':>10}{'tr/co st':>9}")
    for n, t, err_t, l, err_l in runs:
        if l is None:
            print(f"{n:>6}  torchlike child {err_l}")
            continue
        comp = l["bwd_second_s"] - l["bwd_s"]
        sc = l["second_counts"]
        print(f"{n:>6}{l['nodes']:>7}{_ms(l['fwd_first_s']):>9}{_ms(l['bwd_first_s']):>10}"
              f"{_x(l['bwd_first_s'], t and t['bwd_s']):>10}{_ms(l['bwd_second_s']):>10}"
              f"{_ms(comp):>10}{_ms(l['bwd_s']):>9}{_cnt(l['first_counts']):>10}"
              f"{_cnt(sc):>10}{sc['compile_seconds']:>10.2f}{_cnt(l['steady_counts']):>9}")

    print("\n1b. steady state against PyTorch (fwd, bwd: ms, median; us/node: steady backward "
          "per node)")
    print(f"{'N':>6}{'nodes':>7}{'torch fwd':>10}{'tl fwd':>9}{'torch bwd':>10}{'tl bwd':>9}"
          f"{'ratio':>8}{'torch us/node':>14}{'tl us/node':>11}{'<= 2x':>7}")
    for n, t, err_t, l, err_l in runs:
        if t is None:
            print(f"{n:>6}  torch child {err_t}")
        if l is None:
            print(f"{n:>6}  torchlike child {err_l}")
        if t is None and l is None:
            continue
        nodes = (t or l)["nodes"]
        tb, lb = get(t, "bwd_s"), get(l, "bwd_s")
        ok = "-" if None in (tb, lb) else ("yes" if lb <= 2 * tb else "NO")
        tpn = f"{tb / nodes * 1e6:.2f}" if tb is not None else "-"
        lpn = f"{lb / nodes * 1e6:.2f}" if lb is not None else "-"
        print(f"{n:>6}{nodes:>7}{_ms(get(t, 'fwd_s')):>10}{_ms(get(l, 'fwd_s')):>9}"
              f"{_ms(tb):>10}{_ms(lb):>9}{_x(lb, tb):>8}{tpn:>14}{lpn:>11}{ok:>7}")
    for n, t, err_t, l, err_l in runs:
        if t and l:
            if t["nodes"] != l["nodes"]:
                notes.append(f"chain N={n}: graph nodes torch {t['nodes']}, torchlike "
                             f"{l['nodes']}")
            fin = (f"w.grad finite: torch {t['grad_finite']}, torchlike {l['grad_finite']}; "
                   f"max |finite w.grad| torch {t['grad_absmax']:.3g}, torchlike "
                   f"{l['grad_absmax']:.3g}" if t["grad_absmax"] is not None and
                   l["grad_absmax"] is not None else
                   f"w.grad finite: torch {t['grad_finite']}, torchlike {l['grad_finite']}")
            fv = l.get("fused_vs_nodewise")
            notes.append(f"chain N={n}: {fin}; torchlike fused vs node-by-node w.grad max rel "
                         f"diff {'-' if fv is None else f'{fv:.1e}'}; peak RSS torch "
                         f"{t['maxrss_mb']:.0f} MB, torchlike {l['maxrss_mb']:.0f} MB")


def get(d, key):
    return None if d is None else d.get(key)


def series_views(quick, timeout, notes):
    sizes = VIEW_SIZES_QUICK if quick else VIEW_SIZES
    print("\n2. views: x (n_rows, 3*width); q = x.split(width, 1)[0]; "
          "v = q.view(n_rows, width//12, 12).transpose(1, 2); (v * 2).sum().backward()")
    print("   view: creating v (us per call); step: forward + backward, median after 2 warm-ups "
          "(ms, and ns per element of x); ratio = torchlike / torch")
    print(f"{'target':>7}{'x shape':>14}{'numel':>11}{'view torch':>11}{'view tl':>9}"
          f"{'ratio':>8}{'step torch':>11}{'step tl':>9}{'ns/el torch':>12}{'ns/el tl':>10}"
          f"{'ratio':>8}{'<= 2x':>7}")
    for target in sizes:
        t, err_t = run_child("torch", "views", target, quick, timeout)
        l, err_l = run_child("torchlike", "views", target, quick, timeout)
        label = f"1e{len(str(target)) - 1}"
        if t is None:
            print(f"{label:>7}  torch child {err_t}")
        if l is None:
            print(f"{label:>7}  torchlike child {err_l}")
        if t is None and l is None:
            continue
        r = t or l
        shape = f"{r['n_rows']}x{3 * r['width']}"
        numel = r["numel"]
        ts, ls = get(t, "step_s"), get(l, "step_s")
        tv, lv = get(t, "view_us"), get(l, "view_us")
        ok = "-" if None in (ts, ls) else ("yes" if ls <= 2 * ts else "NO")
        tns = f"{ts / numel * 1e9:.3f}" if ts is not None else "-"
        lns = f"{ls / numel * 1e9:.3f}" if ls is not None else "-"
        print(f"{label:>7}{shape:>14}{numel:>11}"
              f"{(f'{tv:.2f}' if tv is not None else '-'):>11}"
              f"{(f'{lv:.2f}' if lv is not None else '-'):>9}{_x(lv, tv):>8}"
              f"{_ms(ts):>11}{_ms(ls):>9}{tns:>12}{lns:>10}{_x(ls, ts):>8}{ok:>7}")
        sys.stdout.flush()
        if l:
            c = l["steady_counts"]
            notes.append(f"views {label}: torchlike first step {l['step_first_s'] * 1e3:.0f} ms "
                         f"(empty cache), steady steps traces/compiles {_cnt(c)}; grad check "
                         f"torch {get(t, 'grad_ok')}, torchlike {l['grad_ok']}; peak RSS torch "
                         f"{(t['maxrss_mb'] if t else float('nan')):.0f} MB, torchlike "
                         f"{l['maxrss_mb']:.0f} MB; steps timed {l['reps']}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", choices=("chain", "views"))
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds per child (default 900, 300 with --quick)")
    p.add_argument("--child", nargs=3, metavar=("LIB", "SERIES", "ARG"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child_main(*args.child, args.quick)
        return
    timeout = args.timeout or (300 if args.quick else 900)
    print(f"scaling benchmark{' (--quick)' if args.quick else ''}  {children.versions()}  "
          f"cpus {os.cpu_count()}  load avg {os.getloadavg()[0]:.2f}  (each measurement in a "
          f"fresh child process; torch 1 thread; torchlike with an empty compile cache)")
    print(f"target: torchlike time per node / per element <= 2x PyTorch's at every size; "
          f"child timeout {timeout:.0f} s")
    notes = []
    t0 = time.perf_counter()
    if args.only in (None, "chain"):
        series_chain(args.quick, timeout, notes)
    if args.only in (None, "views"):
        series_views(args.quick, timeout, notes)
    children.print_notes(notes)
    print(f"\nbenchmark wall time {time.perf_counter() - t0:.0f} s  (load avg at the end "
          f"{os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
