"""Print `stated.py` entries for the failing cases of a sweep that no entry explains yet.

    python compat_tests/opinfo/unexplained.py cases.json [--all]

(`--all`: every failing case, as if nothing were stated yet.)

Each entry is keyed `kind:dtype:variant` (with `:sample` for a sample CI does not run) and
says what differs, taken from the cases' details;
the reason, once found, replaces that text.
"""
import collections
import json
import os
import re
import sys

sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def what_differs(detail):
    """A short statement of a failing case's difference, from its detail."""
    rules = [
        (r"^missing: (.*)", lambda m: f"torchlike lacks {m.group(1)}"),
        (r"torch:\s+'?\"?(.*?)'?\"?\s+torchlike:\s+'?\"?(.*?)'?\"?$",
         lambda m: f"PyTorch's message is {m.group(1)[:90]!r}"),
        (r"^no error; PyTorch raises (\w+): (.*)",
         lambda m: f"torchlike does not raise PyTorch's {m.group(1)} ({m.group(2)[:70]!r})"),
        (r"^torch (\w+): (.*) / torchlike (\w+): (.*)",
         lambda m: f"PyTorch raises {m.group(1)} {m.group(2)[:70]!r}, torchlike {m.group(3)}"),
        (r"torchlike gave (\w+(?:Error|Exception|Available)): (.*)",
         lambda m: f"torchlike raises {m.group(1)}: {m.group(2)[:80]!r}"),
        (r"torchlike raised (\w+): (.*)",
         lambda m: f"torchlike raises {m.group(1)}: {m.group(2)[:80]!r}"),
        (r"torch gave (\w+): (.*?), torchlike gave",
         lambda m: f"PyTorch raises {m.group(1)} ({m.group(2)[:70]!r}), torchlike does not"),
        (r"dtype (\S+) vs (\S+)", lambda m: f"result dtype {m.group(2)}, PyTorch's {m.group(1)}"),
        (r"shape (\(.*?\)) vs (\(.*?\))",
         lambda m: f"result shape {m.group(2)}, PyTorch's {m.group(1)}"),
        (r"stride", lambda m: "result strides differ"),
        (r"(Not equal to tolerance|Arrays are not equal|nan location)",
         lambda m: "values differ"),
    ]
    for pattern, say in rules:
        m = re.search(pattern, detail)
        if m:
            return say(m)
    return detail[:100]


def main(path, everything=False):
    from opinfo import scope, stated
    if everything:
        stated.STATED.clear()
    from opinfo.cases import Case
    found = [Case(**c) for c in json.load(open(path))]
    entries = collections.defaultdict(dict)
    by_op = collections.defaultdict(list)
    for c in found:
        by_op[c.op].append(c)
    for op, cs in by_op.items():
        if all(not c.ok and c.detail.startswith("missing: ") for c in cs):
            entries[op]["*"] = what_differs(cs[0].detail)
    for c in found:
        if c.op in entries and "*" in entries[c.op]:
            continue
        if c.ok or stated.explains(c):
            continue
        key = f"{c.kind}:{c.dtype or '*'}:{c.variant}"
        if c.kind != "error" and c.index >= scope.CI["max_samples" if c.kind == "forward"
                                                    else "grad_samples"]:
            key += f":{c.index}"   # a sample CI does not run: stated on its own
        entries[c.op].setdefault(key, what_differs(c.detail))
    for op in sorted(entries):
        print(f"    {op!r}: {{")
        for key, reason in sorted(entries[op].items()):
            print(f"        {key!r}: {reason!r},")
        print("    },")


if __name__ == "__main__":
    main(sys.argv[1], "--all" in sys.argv[2:])
