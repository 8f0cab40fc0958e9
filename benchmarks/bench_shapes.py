"""Changing-shapes benchmarks: torchlike against PyTorch, each in a fresh child process, so that
torchlike's trace and compile costs (new XLA programs for every new operand shape) show.

    python benchmarks/bench_shapes.py [--quick] [--only sampling|charrnn|varshape|varshape_mlp]

Every scenario runs once under PyTorch (torch.set_num_threads(1), OMP_NUM_THREADS=1) and once
under torchlike (`import torchlike as torch`, JAX's default threads, as bench_core.py), each in
its own `sys.executable` child that prints one JSON line. torchlike children start with an
EMPTY persistent compilation cache (TORCHLIKE_CACHE_DIR set to a new temporary folder), so
their numbers are a first run's; the sampling scenario also runs a second torchlike process on
the folder the first one filled. Traces and compiles come from `torchlike.compile_log`; peak
memory is the child's ru_maxrss (import of the library included). Weights are set from a seeded
NumPy stream in both libraries, so the models compute the same function; sampled tokens may
still differ (the libraries' random streams differ).

1. sampling: a 2-layer, 64-wide, 4-head nanoGPT (vocab 65, block 64, tied head) generates 64
   tokens from a (1, 1) zero context with torch.multinomial, one token longer each step
   (nanoGPT's generate, no_grad, eval()). Cold first call (empty cache), first call in a second
   process (cache filled by the first), a warm second call in-process, peak memory.
   Targets: cold <= 3 s, second process <= 0.5 s, warm <= 2x torch, peak memory <= 2x torch.
2. charrnn: embedding 32 -> GRU 128 -> linear to 28 characters, trained 1,000 steps with Adam at
   batch 32 x 16 on a synthetic corpus of names; every 200 steps an evaluation at batch 100
   (no_grad) and 10 names sampled character by character (<= 12 chars, multinomial).
   Target: total <= 2x torch; traces and compiles in the fixed-shape stretch (steps 2..199) = 0.
   Each training scenario also runs a second torchlike process on the cache the first filled.
3. varshape: 200 batches of batch size U[1, 64] x length U[1, 128]: embedding(100, 64) ->
   TransformerEncoderLayer(64, 4, 128, batch_first=True) -> mean over the sequence -> linear to
   10 classes, cross-entropy, backward, SGD. Target: total <= 2x torch.
   varshape_mlp: the same with an MLP (64 -> 128 -> 64, GELU) over the last dim instead.

--quick shrinks everything (16 tokens, 100 training steps with evaluation every 50, 20 variable
batches) so that the whole file runs in minutes.
"""
import argparse
import os
import tempfile
import time

import children

SCENARIOS = ("sampling", "charrnn", "varshape", "varshape_mlp")


# ------------------------------------------------------------------------------------------
# child side: everything below runs with `torch` bound to PyTorch or to torchlike
# ------------------------------------------------------------------------------------------

def _init_from_numpy(torch, model, seed):
    """Same weights in both libraries: normal(0, 1/sqrt(fan_in)) matrices, norm weights 1,
    biases 0.01 * normal (named_parameters order is the same in both)."""
    import numpy as np
    rng = np.random.RandomState(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            shape = tuple(p.shape)
            if len(shape) >= 2:
                v = rng.standard_normal(shape) / np.sqrt(shape[-1])
            elif name.endswith("weight"):   # LayerNorm
                v = np.ones(shape)
            else:
                v = 0.01 * rng.standard_normal(shape)
            p.copy_(torch.tensor(v.astype(np.float32)))


def _gpt(torch):
    nn = torch.nn
    F = torch.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self, n_embd, n_head, block_size):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.n_head, self.n_embd = n_head, n_embd
            self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                                 .view(1, 1, block_size, block_size))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / (k.size(-1) ** 0.5))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class MLP(nn.Module):
        def __init__(self, n_embd):
            super().__init__()
            self.c_fc = nn.Linear(n_embd, 4 * n_embd)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * n_embd, n_embd)

        def forward(self, x):
            return self.c_proj(self.gelu(self.c_fc(x)))

    class Block(nn.Module):
        def __init__(self, n_embd, n_head, block_size):
            super().__init__()
            self.ln_1 = nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention(n_embd, n_head, block_size)
            self.ln_2 = nn.LayerNorm(n_embd)
            self.mlp = MLP(n_embd)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self, vocab_size=65, block_size=64, n_layer=2, n_head=4, n_embd=64):
            super().__init__()
            self.block_size = block_size
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(vocab_size, n_embd),
                wpe=nn.Embedding(block_size, n_embd),
                drop=nn.Dropout(0.0),
                h=nn.ModuleList([Block(n_embd, n_head, block_size) for _ in range(n_layer)]),
                ln_f=nn.LayerNorm(n_embd)))
            self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight   # weight tying

        def forward(self, idx):
            b, t = idx.size()
            pos = torch.arange(0, t, dtype=torch.long)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            return self.lm_head(x[:, [-1], :])   # inference: the last position only

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0):
            for _ in range(max_new_tokens):
                idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
                logits = self(idx_cond)
                logits = logits[:, -1, :] / temperature
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    return GPT


def child_sampling(lib, quick):
    torch, import_s = children.import_lib(lib)
    n_tokens = 16 if quick else 64
    c0 = children.counts(lib)
    t0 = time.perf_counter()
    GPT = _gpt(torch)
    torch.manual_seed(1337)
    model = GPT()
    _init_from_numpy(torch, model, 0)
    model.eval()
    build_s = time.perf_counter() - t0
    c1 = children.counts(lib)

    torch.manual_seed(1337)
    t0 = time.perf_counter()
    out1 = model.generate(torch.zeros((1, 1), dtype=torch.long), n_tokens).tolist()[0]
    first_s = time.perf_counter() - t0
    c2 = children.counts(lib)
    torch.manual_seed(1337)
    t0 = time.perf_counter()
    out2 = model.generate(torch.zeros((1, 1), dtype=torch.long), n_tokens).tolist()[0]
    warm_s = time.perf_counter() - t0
    c3 = children.counts(lib)
    with torch.no_grad():   # the same function in both libraries?
        probe = model(torch.tensor([[1, 2, 3, 4, 5]]))[0, -1, :4].tolist()
    return dict(import_s=import_s, build_s=build_s, first_s=first_s, warm_s=warm_s,
                build_counts=children.diff(c1, c0), first_counts=children.diff(c2, c1),
                warm_counts=children.diff(c3, c2), tokens=out1, tokens_again=out2, probe=probe)


def _names_corpus(n, seed):
    import numpy as np
    rng = np.random.RandomState(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, rng.randint(3, 11))) for _ in range(n)]


def child_charrnn(lib, quick):
    import numpy as np
    torch, import_s = children.import_lib(lib)
    nn, F = torch.nn, torch.nn.functional
    steps, every = (100, 50) if quick else (1000, 200)
    batch, seq, eval_batch, n_samples, max_len = 32, 16, 100, 10, 12
    chars = ".abcdefghijklmnopqrstuvwxyz "       # '.' ends a name; vocab 28
    stoi = {c: i for i, c in enumerate(chars)}
    vocab, end = len(chars), 0

    def encode(names):
        return np.array([stoi[c] for c in "".join(s + "." for s in names)], np.int64)

    train = encode(_names_corpus(4000, 1))
    held = encode(_names_corpus(500, 2))
    rng = np.random.RandomState(3)

    def windows(data, n):
        offs = rng.randint(0, len(data) - seq - 1, n)
        x = np.stack([data[o:o + seq] for o in offs])
        y = np.stack([data[o + 1:o + seq + 1] for o in offs])
        return x, y

    batches = [windows(train, batch) for _ in range(steps)]
    eval_x, eval_y = windows(held, eval_batch)

    class CharRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, 32)
            self.rnn = nn.GRU(32, 128, num_layers=1, batch_first=True)
            self.head = nn.Linear(128, vocab)

        def forward(self, x, h=None):
            out, h = self.rnn(self.emb(x), h)
            return self.head(out), h

    t0 = time.perf_counter()
    torch.manual_seed(1337)
    model = CharRNN()
    _init_from_numpy(torch, model, 0)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    build_s = time.perf_counter() - t0

    def sample_name():
        h = None
        ix = torch.tensor([[end]])
        out = []
        for _ in range(max_len):
            logits, h = model(ix, h)
            probs = F.softmax(logits[:, -1, :], dim=-1)
            ix = torch.multinomial(probs, num_samples=1)
            c = ix.item()
            if c == end:
                break
            out.append(chars[c])
        return "".join(out)

    fixed = {"traces": None, "compiles": None, "steps": None}
    rec = None
    if lib != "torch":
        from torchlike import compile_log
    evals, samples, losses = [], [], []
    c0 = children.counts(lib)
    t_start = time.perf_counter()
    for step in range(steps):
        if lib != "torch" and step == 2:
            rec_cm = compile_log.record()
            rec = rec_cm.__enter__()
        model.train()
        x, y = batches[step]
        xb, yb = torch.from_numpy(x), torch.from_numpy(y)
        logits, _ = model(xb)
        loss = F.cross_entropy(logits.view(-1, vocab), yb.view(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0 or step == steps - 1:
            losses.append(loss.item())
        if rec is not None and step == every - 1:   # steps 2 .. every-1: one fixed shape
            rec_cm.__exit__(None, None, None)
            fixed = {"traces": len(rec.traces), "compiles": len(rec.compiles),
                     "steps": f"2..{step}"}
            rec = None
        if (step + 1) % every == 0:
            model.eval()
            with torch.no_grad():
                el, _ = model(torch.from_numpy(eval_x))
                evals.append(F.cross_entropy(el.view(-1, vocab),
                                             torch.from_numpy(eval_y).view(-1)).item())
                samples.append([sample_name() for _ in range(n_samples)])
    total_s = time.perf_counter() - t_start
    return dict(import_s=import_s, build_s=build_s, total_s=total_s,
                counts=children.diff(children.counts(lib), c0), fixed=fixed, first_loss=losses[0],
                last_loss=losses[-1], evals=evals, samples=samples[-1])


def child_varshape(lib, quick, kind):
    import numpy as np
    torch, import_s = children.import_lib(lib)
    nn, F = torch.nn, torch.nn.functional
    n_batches = 20 if quick else 200
    rng = np.random.RandomState(7)
    data = []
    for _ in range(n_batches):
        b, t = rng.randint(1, 65), rng.randint(1, 129)
        data.append((rng.randint(0, 100, (b, t)).astype(np.int64),
                     rng.randint(0, 10, b).astype(np.int64)))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(100, 64)
            if kind == "transformer":
                self.body = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
            else:
                self.body = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 64))
            self.head = nn.Linear(64, 10)

        def forward(self, x):
            return self.head(self.body(self.emb(x)).mean(dim=1))

    t0 = time.perf_counter()
    torch.manual_seed(1337)
    model = Net()
    _init_from_numpy(torch, model, 0)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    build_s = time.perf_counter() - t0
    c0 = children.counts(lib)
    losses = []
    t_start = time.perf_counter()
    for x, y in data:
        loss = F.cross_entropy(model(torch.from_numpy(x)), torch.from_numpy(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    total_s = time.perf_counter() - t_start
    shapes = sorted({x.shape for x, _ in data})
    return dict(import_s=import_s, build_s=build_s, total_s=total_s,
                counts=children.diff(children.counts(lib), c0), first_loss=losses[0], last_loss=losses[-1],
                mean_loss=float(np.mean(losses)), distinct_shapes=len(shapes))


def child_main(lib, scenario, quick):
    if scenario == "sampling":
        res = child_sampling(lib, quick)
    elif scenario == "charrnn":
        res = child_charrnn(lib, quick)
    elif scenario == "varshape":
        res = child_varshape(lib, quick, "transformer")
    else:
        res = child_varshape(lib, quick, "mlp")
    res["lib"] = lib
    children.report(res)


# ------------------------------------------------------------------------------------------
# parent side
# ------------------------------------------------------------------------------------------

def run_child(lib, scenario, quick, timeout, cache_dir=None):
    """One child process; returns (result dict or None, error string or None, wall seconds)."""
    return children.run(__file__, [lib, scenario] + (["--quick"] if quick else []), lib,
                        timeout, cache_dir)


HEAD = (f"{'measure':<36}{'torch':>10}{'torchlike':>11}{'ratio':>10}{'traces':>8}"
        f"{'compiles':>9}{'loads':>7}  {'target':<24}{'met':>4}")


def _fmt(v, unit):
    if v is None:
        return "-"
    return f"{v:.1f} MB" if unit == "MB" else f"{v:.3f} s" if v < 10 else f"{v:.1f} s"


def row(name, t, l, unit="s", counts=None, target="", ok=None):
    ratio = f"{l / t:.2f}x" if (t and l is not None) else "-"
    tr = str(counts["traces"]) if counts else "-"
    co = str(counts["compiles"]) if counts else "-"
    hi = str(counts["cache_hits"]) if counts and "cache_hits" in counts else "-"
    met = "-" if ok is None else ("yes" if ok else "NO")
    print(f"{name:<36}{_fmt(t, unit):>10}{_fmt(l, unit):>11}{ratio:>10}{tr:>8}{co:>9}{hi:>7}  "
          f"{target:<24}{met:>4}")


def failed_row(name, who, err):
    print(f"{name:<36}{who} child {err}")


def get(d, *keys):
    for k in keys:
        if d is None:
            return None
        d = d.get(k)
    return d


def scenario_sampling(quick, timeout, notes):
    n = 16 if quick else 64
    print(f"\n1. sampling: nanoGPT 2x64x4, {n} tokens from (1, 1), multinomial")
    print(HEAD)
    t, err_t, _ = run_child("torch", "sampling", quick, timeout)
    with tempfile.TemporaryDirectory(prefix="bench_shapes_cache_") as cache:
        l1, err_1, _ = run_child("torchlike", "sampling", quick, timeout, cache)
        l2, err_2, _ = run_child("torchlike", "sampling", quick, timeout, cache)
    for who, err in (("torch", err_t), ("torchlike (1st process)", err_1),
                     ("torchlike (2nd process)", err_2)):
        if err:
            failed_row("sampling", who, err)
    row("import", get(t, "import_s"), get(l1, "import_s"))
    row("model construction", get(t, "build_s"), get(l1, "build_s"),
        counts=get(l1, "build_counts"))
    tc, lc = get(t, "first_s"), get(l1, "first_s")
    row("generate, cold (empty cache)", tc, lc, counts=get(l1, "first_counts"),
        target="<= 3 s", ok=None if lc is None else lc <= 3.0)
    l2c = get(l2, "first_s")
    row("generate, 2nd process (cache)", tc, l2c, counts=get(l2, "first_counts"),
        target="<= 0.5 s", ok=None if l2c is None else l2c <= 0.5)
    tw, lw = get(t, "warm_s"), get(l1, "warm_s")
    row("generate, warm in-process", tw, lw, counts=get(l1, "warm_counts"),
        target="<= 2x torch", ok=None if None in (tw, lw) else lw <= 2 * tw)
    lw2 = get(l2, "warm_s")
    row("generate, warm (2nd process)", tw, lw2, counts=get(l2, "warm_counts"))
    tm, lm = get(t, "maxrss_mb"), get(l1, "maxrss_mb")
    row("peak RSS (1st process)", tm, lm, unit="MB", target="<= 2x torch",
        ok=None if None in (tm, lm) else lm <= 2 * tm)
    row("peak RSS (2nd process)", tm, get(l2, "maxrss_mb"), unit="MB")
    if t and l1:
        pd = max(abs(a - b) for a, b in zip(t["probe"], l1["probe"]))
        notes.append(f"sampling: same weights, logits probe max |diff| torch vs torchlike "
                     f"= {pd:.2e}")
        same = t["tokens"] == l1["tokens"]
        notes.append(f"sampling: tokens torch {t['tokens'][:12]}... torchlike "
                     f"{l1['tokens'][:12]}... ({'identical' if same else 'differ'})")
        if l2:
            notes.append("sampling: torchlike tokens reproducible across processes with the "
                         f"same seed: {l1['tokens'] == l2['tokens']}; in-process repeat: "
                         f"{l1['tokens'] == l1['tokens_again']} (torch: "
                         f"{t['tokens'] == t['tokens_again']})")


def _run_twice(scenario, quick, timeout):
    """torchlike's child run twice on one new cache folder: (first, its error, second, its
    error)."""
    with tempfile.TemporaryDirectory(prefix="bench_shapes_cache_") as cache:
        l, err_l, _ = run_child("torchlike", scenario, quick, timeout, cache)
        l2, err_2, _ = run_child("torchlike", scenario, quick, timeout, cache)
    return l, err_l, l2, err_2


def _train_rows(label, t, runs, err_t):
    l, err_l, l2, err_2 = runs
    for who, err in (("torch", err_t), ("torchlike", err_l), ("torchlike (2nd process)", err_2)):
        if err:
            failed_row(label, who, err)
    row("import", get(t, "import_s"), get(l, "import_s"))
    row("model + optimizer construction", get(t, "build_s"), get(l, "build_s"))
    tt, lt = get(t, "total_s"), get(l, "total_s")
    row("loop total (empty cache)", tt, lt, counts=get(l, "counts"), target="<= 2x torch",
        ok=None if None in (tt, lt) else lt <= 2 * tt)
    row("loop total, 2nd process (cache)", tt, get(l2, "total_s"), counts=get(l2, "counts"))
    row("peak RSS", get(t, "maxrss_mb"), get(l, "maxrss_mb"), unit="MB")


def scenario_charrnn(quick, timeout, notes):
    steps, every = (100, 50) if quick else (1000, 200)
    print(f"\n2. charrnn: emb 32 -> GRU 128 -> 28, Adam, {steps} steps at 32x16, "
          f"every {every}: eval at 100x16 + 10 sampled names")
    print(HEAD)
    t, err_t, _ = run_child("torch", "charrnn", quick, timeout)
    runs = _run_twice("charrnn", quick, timeout)
    l = runs[0]
    _train_rows("charrnn", t, runs, err_t)
    fx = get(l, "fixed")
    if fx:
        ok = fx["traces"] == 0 and fx["compiles"] == 0
        name = f"fixed-shape steps {fx['steps']}"
        print(f"{name:<36}{'-':>10}{'-':>11}{'-':>10}{fx['traces']:>8}{fx['compiles']:>9}"
              f"{'-':>7}  {'0 traces, 0 compiles':<24}{'yes' if ok else 'NO':>4}")
    if t and l:
        notes.append(f"charrnn: train loss first/last torch {t['first_loss']:.3f}/"
                     f"{t['last_loss']:.3f}, torchlike {l['first_loss']:.3f}/"
                     f"{l['last_loss']:.3f}; eval losses torch "
                     f"{[round(v, 3) for v in t['evals']]}, torchlike "
                     f"{[round(v, 3) for v in l['evals']]}")
        notes.append(f"charrnn: last sampled names torch {t['samples'][:5]}, torchlike "
                     f"{l['samples'][:5]}")


def scenario_varshape(quick, timeout, notes, kind):
    n = 20 if quick else 200
    name = "varshape" if kind == "transformer" else "varshape_mlp"
    body = ("TransformerEncoderLayer(64, 4, 128)" if kind == "transformer"
            else "MLP 64-128-64 GELU")
    print(f"\n3. {name}: {n} batches of U[1,64] x U[1,128] tokens, emb 64 -> {body} -> "
          f"mean -> 10, CE, SGD")
    print(HEAD)
    t, err_t, _ = run_child("torch", name, quick, timeout)
    runs = _run_twice(name, quick, timeout)
    l = runs[0]
    _train_rows(name, t, runs, err_t)
    if t and l:
        notes.append(f"{name}: {l['distinct_shapes']} distinct (batch, length) shapes; mean "
                     f"loss torch {t['mean_loss']:.4f}, torchlike {l['mean_loss']:.4f}"
                     + (" (dropout 0.1 in train mode: random streams differ)"
                        if kind == "transformer" else ""))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", choices=SCENARIOS)
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds per child (default 1800, 600 with --quick)")
    p.add_argument("--child", nargs=2, metavar=("LIB", "SCENARIO"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child_main(args.child[0], args.child[1], args.quick)
        return
    timeout = args.timeout or (600 if args.quick else 1800)
    print(f"changing-shapes benchmark{' (--quick)' if args.quick else ''}  {children.versions()}  "
          f"cpus {os.cpu_count()}  (each library in a fresh child process; torch 1 thread)")
    print("times in seconds; ratio = torchlike / torch; traces, compiles, loads "
          "(persistent-cache hits) are torchlike's within the measured part")
    notes = []
    t0 = time.perf_counter()
    todo = [args.only] if args.only else list(SCENARIOS)
    for s in todo:
        if s == "sampling":
            scenario_sampling(args.quick, timeout, notes)
        elif s == "charrnn":
            scenario_charrnn(args.quick, timeout, notes)
        elif s == "varshape":
            scenario_varshape(args.quick, timeout, notes, "transformer")
        else:
            scenario_varshape(args.quick, timeout, notes, "mlp")
    children.print_notes(notes)
    print(f"\nbenchmark wall time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
