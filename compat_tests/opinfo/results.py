"""The sweep's per-entry pass counts (results.json), and the report drawn from them."""
import collections
import datetime
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results.json")
KINDS = ("forward", "error", "grad")


def summarise(cases, scope):
    """{entry: {kind: [passed, total], "missing": bool, "strides_differ": n}} plus provenance."""
    entries = collections.defaultdict(lambda: {k: [0, 0] for k in KINDS})
    missing = collections.defaultdict(lambda: True)
    strides = collections.Counter()
    for c in cases:
        e = entries[c["op"]]
        if c["kind"] in KINDS:
            e[c["kind"]][0] += bool(c["ok"])
            e[c["kind"]][1] += 1
        missing[c["op"]] &= (not c["ok"]) and c["detail"].startswith("missing: ")
        strides[c["op"]] += c["kind"] == "forward" and c["ok"] and not c["stride_ok"]
    for name, e in entries.items():
        e["missing"] = missing[name]
        e["strides_differ"] = strides[name]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                            capture_output=True, text=True).stdout.strip()
    return {"scope": scope, "date": datetime.date.today().isoformat(), "commit": commit,
            "entries": dict(sorted(entries.items()))}


def load(path=RESULTS):
    with open(path) as f:
        return json.load(f)


def totals(summary):
    """{kind: [passed, total]} over the entries torchlike has, and the entry counts."""
    sums = {k: [0, 0] for k in KINDS}
    has = [e for e in summary["entries"].values() if not e["missing"]]
    for e in has:
        for k in KINDS:
            sums[k][0] += e[k][0]
            sums[k][1] += e[k][1]
    full = sum(all(e[k][0] == e[k][1] for k in KINDS) for e in has)
    forward_ok = sums["forward"][0]
    strides = sum(e["strides_differ"] for e in has)
    return {"kinds": sums, "entries": len(summary["entries"]), "has": len(has),
            "missing": len(summary["entries"]) - len(has), "pass_fully": full,
            "strides_differ": strides, "forward_passed": forward_ok}


def pct(a, b):
    return f"{100 * a / b:.1f}%" if b else "-"
