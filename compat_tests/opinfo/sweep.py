"""Run PyTorch's whole OpInfo database through torchlike and write every case to a JSON file.

    python compat_tests/opinfo/sweep.py [--dtypes float32,float64] [--ops abs,add] [-o out.json]

The report (`summary`) gives the pass rates the API-coverage page shows.
"""
import argparse
import dataclasses
import json
import os
import sys
import time

# compat_tests, not this folder, is where the harness's modules are found
sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--profile", choices=("full", "ci"), default="full")
    p.add_argument("--dtypes", default="")
    p.add_argument("--ops", default="")
    p.add_argument("--no-grads", action="store_true")
    p.add_argument("-o", "--output", default="opinfo_cases.json")
    p.add_argument("--summary", default="",
                   help="also write the per-entry pass counts here (the coverage page reads "
                        "compat_tests/opinfo/results.json)")
    a = p.parse_args(argv)
    import torch as real_torch
    from opinfo import cases, load_op_db, scope
    op_db = load_op_db()

    settings = dict(scope.CI if a.profile == "ci" else scope.FULL)
    if a.dtypes:
        settings["dtypes"] = [getattr(real_torch, d) for d in a.dtypes.split(",")]
    wanted = set(a.ops.split(",")) - {""}
    out, start = [], time.time()
    for op in op_db:
        if wanted and op.name not in wanted and op.full_name not in wanted:
            continue
        t = time.time()
        try:
            found = cases.op_cases(op, grads=not a.no_grads, **settings)
        except Exception as e:  # noqa: BLE001 - the harness itself failed on this entry
            found = [cases.Case(op.full_name, "", "harness", "", 0, False, repr(e)[:300])]
        out += [dataclasses.asdict(c) for c in found]
        bad = sum(not c.ok for c in found)
        print(f"{op.full_name:40s} {len(found):4d} cases {bad:4d} failing {time.time() - t:6.2f}s",
              flush=True)
    with open(a.output, "w") as f:
        json.dump(out, f)
    print(f"{len(out)} cases in {time.time() - start:.0f}s")
    if a.summary:
        from opinfo import results
        with open(a.summary, "w") as f:
            label = a.profile + (f" ({a.dtypes.replace(',', ', ')})" if a.dtypes else "")
            json.dump(results.summarise(out, label), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
