"""Draw the performance page's charts (one SVG per benchmark) from the first recorded run in
docs/perf/results.json.

    python docs/perf/make_charts.py [OUT_DIR]     # default: docs/perf/
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = (("torchlike", "torchlike", "#e8590c"), ("torch", "PyTorch", "#495057"),
        ("jax", "jitted JAX", "#4dabf7"))
plt.rcParams.update({"svg.hashsalt": "torchlike-docs", "svg.fonttype": "none",
                     "font.size": 9})


def chart(bench, path):
    """Grouped horizontal bars, one group per case, log time axis."""
    rows = bench["rows"][::-1]
    libs = [lib for lib in LIBS if any(r.get(lib[0]) is not None for r in rows)]
    h = 0.8 / len(libs)
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(rows) * len(libs) / 2 + 1.2))
    for k, (key, label, color) in enumerate(libs):
        ys = [i + (len(libs) - 1 - 2 * k) * h / 2 for i in range(len(rows))]
        vals = [r.get(key) or 0 for r in rows]
        ax.barh(ys, vals, height=h, color=color, label=label)
    ax.set_yticks(range(len(rows)), [r["name"] for r in rows])
    ax.set_xscale("log")
    ax.set_xlabel(f"{bench['unit']} (log scale, lower is faster)")
    ax.set_title(bench["title"], loc="left")
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def main(out_dir=HERE):
    with open(os.path.join(HERE, "results.json")) as f:
        results = json.load(f)
    paths = []
    for bench in results["runs"][0]["benchmarks"]:
        paths.append(os.path.join(out_dir, f"{bench['id']}.svg"))
        chart(bench, paths[-1])
    return paths


if __name__ == "__main__":
    for p in main(*sys.argv[1:]):
        print(p)
