"""The docs site's examples are tested: every ```python block of every docs page runs (in page
order, one namespace per page) with `torch` bound to torchlike and its shown output is compared;
the same blocks, except those marked `torchlike-only`, run under real PyTorch and must show the
same output there too; ```console sessions (the drop-in runner) run in a subprocess. Pages run in
a fresh temporary directory (files they write stay there)."""
import os

import pytest
import torch as real_torch

import torchlike
from docs_blocks import ROOT, blocks, pages, run_console, run_python

PAGES = [os.path.relpath(p, ROOT) for p in pages()]


def _page_blocks(page):
    return blocks(os.path.join(ROOT, page))


def _restore_defaults(lib):
    lib.set_default_dtype(lib.float32)
    lib.set_grad_enabled(True)


def _runs(page, mode):
    return any(b.lang == "python" and "runner" not in b.flags and
               (mode == "torchlike" or "torchlike-only" not in b.flags)
               for b in _page_blocks(page))


RUNS = [(p, m) for p in PAGES for m in ("torchlike", "torch") if _runs(p, m)]


@pytest.mark.parametrize("page,mode", RUNS, ids=[f"{p}-{m}" for p, m in RUNS])
def test_python_blocks(page, mode, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bl = _page_blocks(page)
    name = "_docs_" + os.path.splitext(os.path.basename(page))[0].replace("-", "_") + "_" + mode
    lib = torchlike if mode == "torchlike" else real_torch
    try:
        failures = run_python(bl, mode, name)
    finally:
        _restore_defaults(lib)
    assert not failures, "\n".join(failures)


CONSOLE = [(p, b) for p in PAGES for b in _page_blocks(p) if b.lang == "console"]


@pytest.mark.parametrize("block", [b for _, b in CONSOLE],
                         ids=[f"{p}:{b.line}" for p, b in CONSOLE])
def test_console_blocks(block):
    failures = run_console(block)
    assert not failures, "\n".join(failures)


def test_blocks_are_fenced_as_documented():
    """Every fence names a language; shell commands are not fenced as python."""
    for page in PAGES:
        for b in _page_blocks(page):
            assert b.lang, f"{page}:{b.line}: fence without a language"
            if b.lang == "python":
                first = b.source.lstrip().split("\n", 1)[0]
                assert not first.startswith(("$ ", "pip ", "python -m", "python3 ")), \
                    f"{page}:{b.line}: a shell command in a python block (use bash/console)"


# ---- generated pages ------------------------------------------------------------------------

def _load(path, name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _tools():
    return _load("docs/tools/hooks.py", "_docs_hooks")


def test_coverage_page_is_generated_from_the_report():
    hooks = _tools()
    with open(os.path.join(ROOT, "docs", "coverage.md")) as f:
        page = hooks.render(f.read())
    assert "<!-- generated" not in page
    for label, (universe, has, tested) in hooks.coverage_page.counts().items():
        assert f"| {label} | {universe} | {has} |" in page
    for label, universe, lib in hooks.coverage_page.categories():
        missing = [n for n in universe if not hasattr(lib, n)]
        assert f"{label}: {len(missing)} missing" in page
        assert all(f"`{n}`" in page for n in missing)


def test_performance_page_tables_and_charts_match_the_results(tmp_path):
    hooks = _tools()
    make_charts = _load("docs/perf/make_charts.py", "_docs_make_charts")
    with open(os.path.join(ROOT, "docs", "performance.md")) as f:
        text = f.read()
    page = hooks.render(text)
    runs = hooks.perf_page.load()["runs"]
    assert "<!-- generated" not in page
    for b in runs[0]["benchmarks"]:
        assert f"<!-- generated: perf {b['id']} -->" in text, f"benchmark {b['id']} not shown"
        assert f"](perf/{b['id']}.svg)" in text
        assert os.path.exists(os.path.join(ROOT, "docs", "perf", f"{b['id']}.svg"))
        for r in b["rows"]:
            assert f"| {r['name']} |" in page
            same = [x for run in runs if hooks.perf_page.bench(run, b["id"]) is not None
                    for x in hooks.perf_page.bench(run, b["id"])["rows"] if x["name"] == r["name"]]
            ratios = ", ".join(hooks.perf_page.ratio(x, "torch") for x in same)
            assert f"| {ratios} |" in page
    made = make_charts.main(str(tmp_path))
    assert sorted(os.path.basename(p) for p in made) == \
        sorted(f"{b['id']}.svg" for b in runs[0]["benchmarks"])


def test_flagged_fences_render_with_a_title():
    hooks = _tools()
    out = hooks.render("```python torchlike-only\n>>> 1\n1\n```\n")
    assert out.startswith('``` { .python .torchlike-only title="torchlike only" }\n')
