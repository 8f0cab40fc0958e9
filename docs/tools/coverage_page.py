"""The API coverage page's tables, generated at docs-build time from the op table
(`torchlike._ops.registry.OPS`) and the coverage report (`compat_tests/api_coverage.py`, which
imports real PyTorch to know its public names)."""
import collections
import contextlib
import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _api_coverage():
    sys.path.insert(0, os.path.join(ROOT, "compat_tests"))
    import api_coverage
    return api_coverage


def categories():
    """[(label, torch's public names, the torchlike object they are looked up on)]."""
    import torchlike
    ac = _api_coverage()
    return [("torch functions", ac.torch_functions(), torchlike),
            ("Tensor attributes", ac.tensor_attributes(), torchlike.Tensor),
            ("nn.Module classes", ac.nn_modules(), torchlike.nn),
            ("nn.functional", ac.functional_functions(), torchlike.nn.functional)]


def counts():
    """{label: (torch has, torchlike has, differentially tested)} from the coverage report."""
    with contextlib.redirect_stdout(io.StringIO()):
        return _api_coverage().report(False)


def op_table_rows():
    """[(family, kernel rows)] of the op table, plus the composed entries (no kernel of their
    own: views, creation functions, ops built from other ops)."""
    from torchlike._ops import registry
    fam = collections.Counter(row.family for row in registry.OPS.values() if row is not None)
    composed = sum(row is None for row in registry.OPS.values())
    return sorted(fam.items(), key=lambda kv: (-kv[1], kv[0])) + [("composed / views", composed)]


def _pct(a, b):
    return f"{100 * a / b:.0f}%" if b else "-"


def opinfo_section():
    """PyTorch's OpInfo database through torchlike, from the last sweep's results.json."""
    _api_coverage()
    from opinfo import results, stated
    summary = results.load()
    t = results.totals(summary)
    out = ["", "### PyTorch's operator database", "",
           f"PyTorch's OpInfo database (`op_db`, {t['entries']} entries) driven through both "
           f"libraries by `compat_tests/opinfo/sweep.py` ({summary['scope']} sweep of "
           f"{summary['date']}, commit {summary['commit']}): every sample input (up to 8) through "
           "the function, method, in-place and operator variants at every dtype the entry lists "
           "on CPU (of those named in the scope, when it names some), the error inputs, and "
           "float64 gradients. CI runs each entry's first samples "
           "(`compat_tests/test_opinfo.py`). Of the entries, torchlike has "
           f"{t['has']} and {t['pass_fully']} of those pass every case.", "",
           "| cases of the entries torchlike has | pass | of | |", "|---|--:|--:|--:|"]
    for kind, (ok, n) in t["kinds"].items():
        out.append(f"| {kind} | {ok} | {n} | {results.pct(ok, n)} |")
    out += ["", f"Output strides differ from PyTorch's in {t['strides_differ']} of the "
            f"{t['forward_passed']} passing forward cases.", "",
            f'??? note "Entries with failing cases: {sum(1 for e in summary["entries"].values() if not e["missing"] and any(e[k][0] != e[k][1] for k in results.KINDS))}"',
            "", "    | entry | forward | error | grad | stated |", "    |---|--:|--:|--:|---|"]
    for name, e in summary["entries"].items():
        if e["missing"] or all(e[k][0] == e[k][1] for k in results.KINDS):
            continue
        cells = [f"{e[k][0]}/{e[k][1]}" if e[k][1] else "" for k in results.KINDS]
        why = "; ".join(sorted(set(stated.for_op(name).values())))[:160].replace("|", "/")
        out.append(f"    | `{name}` | " + " | ".join(cells) + f" | {why} |")
    missing = [n for n, e in summary["entries"].items() if e["missing"]]
    out += ["", f'??? note "Entries torchlike lacks: {len(missing)}"', "",
            "    " + ", ".join(f"`{n}`" for n in missing), ""]
    return out


def markdown(_arg=None):
    c = counts()
    out = ["| | PyTorch 2.13 has | torchlike has | | differentially tested | |",
           "|---|--:|--:|--:|--:|--:|"]
    for label, (universe, has, tested) in c.items():
        out.append(f"| {label} | {universe} | {has} | {_pct(has, universe)} | {tested} | "
                   f"{_pct(tested, has)} of those |")
    out += ["", "### The op table", "",
            "Rows of `torchlike/_ops/registry.py`'s table by family (each row generates the "
            "function, the method, the in-place twin, the `out=` variant and operators):", "",
            "| family | entries |", "|---|--:|"]
    out += [f"| {fam} | {n} |" for fam, n in op_table_rows()]
    out += opinfo_section()
    out += ["", "### Missing names", ""]
    for label, universe, lib in categories():
        missing = sorted(n for n in universe if not hasattr(lib, n))
        names = ", ".join(f"`{n}`" for n in missing) or "none"
        out += [f'??? note "{label}: {len(missing)} missing"', "", f"    {names}", ""]
    return "\n".join(out)
