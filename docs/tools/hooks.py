"""mkdocs hooks for the docs site.

- A fence opened with flags, ```python torchlike-only (the form `compat_tests/test_docs.py`
  reads), is rendered as a python block with a title saying what the flag means (superfences
  needs its attribute form).
- A line `<!-- generated: NAME [ARG] -->` is replaced by the markdown that generator NAME makes
  (`coverage`: the API coverage tables; `perf ID`: a benchmark table from docs/perf/results.json;
  `perf_runs`: the list of recorded runs).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import coverage_page  # noqa: E402
import perf_page  # noqa: E402

GENERATORS = {"coverage": coverage_page.markdown, "perf": perf_page.markdown,
              "perf_runs": perf_page.runs_markdown}
TITLES = {"torchlike-only": "torchlike only",
          "torchlike-lacks": "uses a feature torchlike does not have yet",
          "accelerator": "on a GPU (tested on the simulated accelerator)",
          "runner": "run with python -m torchlike"}
_FENCE = re.compile(r"^(?P<head> *(?:`{3,}|~{3,}))[ \t]*python[ \t]+(?P<flag>[\w-]+)[ \t]*$", re.M)
_MARK = re.compile(r"^<!-- generated: (\w+)(?: ([\w.-]+))? -->[ \t]*$", re.M)


def render(markdown):
    """The page's markdown as the site shows it."""
    markdown = _FENCE.sub(lambda m: f'{m.group("head")} {{ .python .{m.group("flag")} '
                                    f'title="{TITLES[m.group("flag")]}" }}', markdown)
    return _MARK.sub(lambda m: GENERATORS[m.group(1)](m.group(2)), markdown)


def on_page_markdown(markdown, page, config, files):
    return render(markdown)
