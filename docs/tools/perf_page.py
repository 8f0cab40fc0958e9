"""Benchmark tables for the performance page, from the recorded runs in docs/perf/results.json
(the same file `docs/perf/make_charts.py` draws its charts from). The first run's times are
shown; the ratio columns list every run, so the noise between runs is visible."""
import json
import os

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "perf", "results.json")
LIBS = ("torchlike", "torch", "jax")
HEADS = {"torchlike": "torchlike", "torch": "PyTorch", "jax": "jitted JAX"}


def load():
    with open(RESULTS) as f:
        return json.load(f)


def bench(run, bench_id):
    return next((b for b in run["benchmarks"] if b["id"] == bench_id), None)


def target_met(row):
    """Whether the row meets its target `{ref, times, plus}`: torchlike <= ref * times + plus
    (ref 'abs' compares with `plus` alone); None without a target."""
    t = row.get("target")
    if not t:
        return None
    ref = 0.0 if t["ref"] == "abs" else row[t["ref"]]
    return row["torchlike"] <= ref * t.get("times", 1.0) + t.get("plus", 0.0)


def target_text(t, unit):
    if t["ref"] == "abs":
        return f"≤ {t['plus']:g} {unit}"
    times = t.get("times", 1.0)
    s = f"≤ {HEADS[t['ref']]}" if times == 1 else f"≤ {times:g}× {HEADS[t['ref']]}"
    return s + (f" + {t['plus']:g} {unit}" if t.get("plus") else "")


def ratio(row, ref):
    return f"{row['torchlike'] / row[ref]:.2f}×" if row.get(ref) else "-"


def _num(v):
    return "-" if v is None else f"{v:,.2f}" if v < 100 else f"{v:,.0f}"


def _met(rows):
    met = {target_met(r) for r in rows}
    return "-" if met == {None} else "yes" if met == {True} else "**no**" if met == {False} \
        else "in some runs"


def markdown(bench_id):
    runs = [x for x in (bench(run, bench_id) for run in load()["runs"]) if x is not None]
    b = runs[0]
    libs = [lib for lib in LIBS if any(r.get(lib) is not None for r in b["rows"])]
    refs = [lib for lib in ("torch", "jax") if lib in libs]
    head = ["case"] + [f"{HEADS[lib]} ({b['unit']})" for lib in libs]
    head += [f"torchlike / {HEADS[ref]}" for ref in refs] + ["target", "met"]
    out = ["| " + " | ".join(head) + " |", "|---" + "|--:" * (len(head) - 3) + "|---|---|"]
    for r in b["rows"]:
        same = [x for run in runs for x in run["rows"] if x["name"] == r["name"]]
        cells = [r["name"]] + [_num(r.get(lib)) for lib in libs]
        cells += [", ".join(ratio(x, ref) for x in same) for ref in refs]
        cells += [target_text(r["target"], b["unit"]) if r.get("target") else "-", _met(same)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def runs_markdown(_arg=None):
    """The list of recorded runs (date, machine, versions)."""
    data = load()
    out = [f"{data['note']}", ""]
    out += [f"{i + 1}. {run['date']} — {run['machine']} — {run['versions']}"
            for i, run in enumerate(data["runs"])]
    return "\n".join(out)
