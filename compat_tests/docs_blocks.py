"""The code blocks of the docs pages, extracted and run (used by `test_docs.py`).

A page's ```python blocks run in order in one namespace (a fresh module, so classes defined in
a block pickle). Blocks with `>>> ` lines are doctest sessions whose shown output is compared;
a block without them is a plain script that must run without error (with `sys.argv` = [page]).
Object addresses are shown as `<X object at ...>`. Flags after the language in the info string
(`python torchlike-only`, or `{ .python .torchlike-only }`):
- `torchlike-only`: a block about torchlike itself (jax interop, the runner, torchlike's own
  random numbers), left out of the run under real PyTorch;
- `torchlike-lacks`: a script that uses a feature torchlike does not have yet; it must run under
  PyTorch and raise NotImplementedError under torchlike;
- `runner`: a script that imports ecosystem libraries (torchvision), run not in-process but by
  the page's ```console block under `python -m torchlike`. A line `--8<-- "path"` (pymdownx.snippets) stands for the file's text.

```console blocks are shell sessions: each `$ command` runs in the repository root and its
output (stdout and stderr together) must equal the lines shown under it, with the repository's
absolute path shown as `...`.
"""
import builtins
import contextlib
import doctest
import importlib
import io
import os
import re
import subprocess
import sys
import types
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")

_OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)[ \t]*$")
_SNIPPET = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$')
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")
_KEYVAL = re.compile(r'\w+=("[^"]*"|\'[^\']*\'|\S+)')


@dataclass
class Block:
    page: str       # path relative to the repository root
    line: int       # 1-based line of the opening fence
    lang: str
    flags: frozenset
    source: str

    @property
    def is_session(self):
        return any(line.lstrip().startswith(">>>") for line in self.source.splitlines())


def parse_info(info):
    """(language, flags) of a fence info string: `python torchlike-only` or `{ .python .x }`."""
    info = _KEYVAL.sub(" ", info.strip())
    if info.startswith("{"):
        words = [w[1:] for w in info.strip("{} ").split() if w.startswith(".")]
    else:
        words = info.split()
    return (words[0] if words else ""), frozenset(words[1:])


def _snippets(text):
    out = []
    for line in text.splitlines(keepends=True):
        m = _SNIPPET.match(line)
        if m:
            with open(os.path.join(ROOT, m.group(1))) as f:
                out.append(f.read())
        else:
            out.append(line)
    return "".join(out)


def blocks(path):
    """Every fenced block of the markdown file `path`, in order."""
    rel = os.path.relpath(path, ROOT)
    with open(path) as f:
        lines = f.read().splitlines()
    found, i = [], 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = len(m.group("indent")), m.group("fence")
        lang, flags = parse_info(m.group("info"))
        body, j = [], i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence)
                                      and set(lines[j].strip()) == {fence[0]}):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        found.append(Block(rel, i + 1, lang, flags, _snippets("\n".join(body) + "\n")))
        i = j + 1
    return found


def pages():
    """Every markdown page under docs/, sorted."""
    out = []
    for d, _, files in os.walk(DOCS):
        out += [os.path.join(d, f) for f in files if f.endswith(".md")]
    return sorted(out)


# ---- running python blocks ------------------------------------------------------------------

def _torch_as_torchlike():
    """A `__builtins__` whose `__import__` resolves `torch` / `torch.x` to torchlike the way the
    drop-in runner does, without touching `sys.modules['torch']` (real torch stays importable
    for the rest of the test session)."""
    from torchlike import _runner
    alias = _runner.TorchAlias()

    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        if level or not (name == "torch" or name.startswith("torch.")):
            return builtins.__import__(name, globals, locals, fromlist, level)
        parts = name.split(".")
        for k in range(1, len(parts) + 1):
            spec = alias.find_spec(".".join(parts[:k]))
            if spec is None:
                raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        mod = spec.loader.module
        return mod if fromlist else importlib.import_module("torchlike")

    ns = dict(vars(builtins))
    ns["__import__"] = _import
    return ns


def _run_script(b, where, globs, lacking):
    argv = sys.argv
    sys.argv = [b.page]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(b.source, where, "exec"), globs)  # noqa: S102
    except NotImplementedError as e:
        if not lacking:
            return [f"{where}: script block raised {type(e).__name__}: {e}"]
        return []
    except Exception as e:  # noqa: BLE001 - reported as a failure of the block
        return [f"{where}: script block raised {type(e).__name__}: {e}"]
    finally:
        sys.argv = argv
    return [f"{where}: marked torchlike-lacks but ran under torchlike: update the page"] \
        if lacking else []


class _Checker(doctest.OutputChecker):
    """doctest's comparison, with object addresses shown as `at ...` (`<X object at ...>`) and
    tabs expanded (doctest expands them in the shown output)."""

    def check_output(self, want, got, optionflags):
        return super().check_output(want, _ADDRESS.sub(" at ...>", got).expandtabs(),
                                    optionflags)


def _accelerator(mode):
    """Whether the library of `mode` sees an accelerator (blocks marked `accelerator` need one:
    compat_tests/accelerator runs them in the simulated mode, and on a real GPU)."""
    if mode == "torch":
        import torch
        return torch.cuda.is_available()
    import torchlike
    return torchlike.cuda.is_available()


def run_python(page_blocks, mode, name):
    """Run the python blocks of one page with `torch` = real torch (mode 'torch') or torchlike
    (mode 'torchlike'); return a list of failure reports (empty when every block passed)."""
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    globs = mod.__dict__
    if mode == "torchlike":
        globs["__builtins__"] = _torch_as_torchlike()
    parser, failures = doctest.DocTestParser(), []
    runner = doctest.DocTestRunner(checker=_Checker(), verbose=False)
    try:
        for b in page_blocks:
            if b.lang != "python" or (mode == "torch" and "torchlike-only" in b.flags):
                continue
            if "accelerator" in b.flags and not _accelerator(mode):
                continue   # run by compat_tests/accelerator (simulated mode, or a real GPU)
            if "runner" in b.flags:
                continue   # a script the page's ```console block runs under the runner
            where = f"{b.page}:{b.line}"
            if b.is_session:
                test = parser.get_doctest(b.source, {}, where, b.page, b.line)
                test.globs = globs            # share the page's namespace across blocks
                report = io.StringIO()
                result = runner.run(test, out=report.write, clear_globs=False)
                if result.failed:
                    failures.append(report.getvalue())
            else:
                failures += _run_script(b, where, globs,
                                        mode == "torchlike" and "torchlike-lacks" in b.flags)
    finally:
        sys.modules.pop(name, None)
    return failures


# ---- running console blocks -----------------------------------------------------------------

def console_sessions(block):
    """[(command, expected output lines)] of a ```console block."""
    out = []
    for line in block.source.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line.rstrip())
    return out


def run_console(block):
    """Failure reports of one ```console block (each command's output must be as shown)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("PYTHONPATH", None)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    failures = []
    for cmd, expected in console_sessions(block):
        r = subprocess.run(["bash", "-c", cmd], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        got = [line.rstrip().replace(ROOT, "...") for line in r.stdout.splitlines()]
        while expected and not expected[-1]:
            expected = expected[:-1]
        if got != expected:
            failures.append(f"{block.page}:{block.line}: $ {cmd}\nexpected:\n"
                            + "\n".join(expected) + "\ngot:\n" + "\n".join(got))
    return failures
