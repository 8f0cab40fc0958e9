"""API-coverage report: which public names of `torch` and `torch.Tensor` torchlike has, and
which of those the differential suite exercises.

    python compat_tests/api_coverage.py [--missing]

"has": the name exists on `torchlike` / `torchlike.Tensor`.
"tested": the name also appears in a compat test as `torch.NAME`, `.NAME(`, `.NAME` or, for an
op-table row, is covered by a table-driven test that iterates the registry by family (the
families listed in TABLE_DRIVEN below) — a static scan of the test sources, so it counts what
the tests name, not what merely runs.
"""
import argparse
import inspect
import os
import re
import sys

import torch

import torchlike
from torchlike._ops import registry

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# test files whose tests iterate registry.OPS by family (so every row of the family is tested)
TABLE_DRIVEN = {"test_pointwise.py": "pointwise", "test_reduction.py": "reduction",
                "test_shape.py": "shape", "test_linalg.py": "linalg",
                "test_indexing.py": "indexing"}
OPERATOR_DUNDERS = {
    "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__",
    "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__", "__rfloordiv__",
    "__ifloordiv__", "__mod__", "__rmod__", "__imod__", "__pow__", "__rpow__", "__ipow__",
    "__matmul__", "__rmatmul__", "__and__", "__rand__", "__iand__", "__or__", "__ror__",
    "__ior__", "__xor__", "__rxor__", "__ixor__", "__lshift__", "__rlshift__", "__ilshift__",
    "__rshift__", "__rrshift__", "__irshift__", "__eq__", "__ne__", "__lt__", "__le__",
    "__gt__", "__ge__", "__neg__", "__pos__", "__abs__", "__invert__", "__getitem__",
    "__setitem__", "__len__", "__iter__", "__bool__", "__float__", "__int__", "__index__",
    "__complex__", "__array__", "__repr__", "__format__", "__deepcopy__", "__reduce_ex__",
    "__hash__", "__contains__",
}


def torch_functions():
    names = set()
    for n in dir(torch):
        if n.startswith("_"):
            continue
        obj = getattr(torch, n)
        if inspect.isbuiltin(obj) or inspect.isfunction(obj):
            names.add(n)
    return names


def tensor_attributes():
    names = {n for n in dir(torch.Tensor) if not n.startswith("_")}
    names |= {n for n in OPERATOR_DUNDERS if hasattr(torch.Tensor, n)}
    return names


def scan_tests():
    text = {}
    for fn in sorted(os.listdir(HERE)):
        if fn.startswith("test_") and fn.endswith(".py"):
            with open(os.path.join(HERE, fn)) as f:
                text[fn] = f.read()
    words = set()
    for src in text.values():
        words |= set(re.findall(r"\btorch\.(\w+)", src))
        words |= set(re.findall(r"\.(\w+)\b", src))
        words |= set(re.findall(r"[\"'](\w+)[\"']", src))
    table = set()
    for fn, fam in TABLE_DRIVEN.items():
        if fn in text:
            for name, row in registry.OPS.items():
                if row is not None and getattr(row, "family", None) == fam:
                    # an alias is the very same generated callable as its row's name
                    for n in (name,) + tuple(getattr(row, "aliases", ())):
                        table.add(n)
                        table.add(n + "_")
    return words, table


def dunder_tested(n, words):
    symbols = {"__add__": "+", "__sub__": "-", "__mul__": "*", "__truediv__": "/",
               "__matmul__": "@", "__getitem__": "[", "__setitem__": "] =", "__pow__": "**"}
    return n in words or n.strip("_") in words or n in symbols


def nn_modules():
    return {n for n in dir(torch.nn) if inspect.isclass(getattr(torch.nn, n)) and
            issubclass(getattr(torch.nn, n), torch.nn.Module)}


def functional_functions():
    F = torch.nn.functional
    return {n for n in dir(F) if not n.startswith("_") and callable(getattr(F, n)) and
            not inspect.isclass(getattr(F, n)) and not inspect.ismodule(getattr(F, n))}


def report(show_missing):
    words, table = scan_tests()
    out = {}
    for label, universe, lib in (("torch functions", torch_functions(), torchlike),
                                 ("Tensor attributes", tensor_attributes(), torchlike.Tensor),
                                 ("nn.Module classes", nn_modules(), torchlike.nn),
                                 ("nn.functional", functional_functions(),
                                  torchlike.nn.functional)):
        has = {n for n in universe if hasattr(lib, n)}
        tested = {n for n in has if n in table or n in words or
                  (n.startswith("__") and dunder_tested(n, words))}
        out[label] = (len(universe), len(has), len(tested))
        print(f"{label:<18} torch has {len(universe):5d}   torchlike has {len(has):5d}   "
              f"differentially tested {len(tested):5d}")
        if show_missing:
            print("  missing:", " ".join(sorted(universe - has)))
            print("  untested:", " ".join(sorted(has - tested)))
    return out


def opinfo_report(show_missing):
    """PyTorch's OpInfo database through torchlike: pass rates from the last sweep
    (compat_tests/opinfo/sweep.py --summary compat_tests/opinfo/results.json)."""
    from opinfo import results
    summary = results.load()
    t = results.totals(summary)
    print(f"OpInfo database ({summary['scope']} sweep, {summary['date']}, {summary['commit']}): "
          f"{t['entries']} entries, torchlike has {t['has']}, {t['pass_fully']} pass fully")
    for kind, (ok, n) in t["kinds"].items():
        print(f"  {kind:<8} {ok:6d} / {n:6d} cases pass  {results.pct(ok, n)}")
    print(f"  strides differ in {t['strides_differ']} of {t['forward_passed']} passing forward cases")
    if show_missing:
        for name, e in summary["entries"].items():
            if e["missing"]:
                print(f"  missing: {name}")
            elif any(e[k][0] != e[k][1] for k in results.KINDS):
                print(f"  {name}: " + "  ".join(f"{k} {e[k][0]}/{e[k][1]}"
                                                for k in results.KINDS if e[k][1]))
    return t


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--missing", action="store_true")
    report(p.parse_args().missing)
    opinfo_report(p.parse_args().missing)
    sys.exit(0)
