"""The drop-in runner: `python -m torchlike script.py [args...]` runs an unmodified PyTorch script
with `torch` (and every `torch.*` module) resolving to torchlike; `--check` lists the torch names
a script uses and which torchlike lacks, without running it."""
import ast
import importlib
import importlib.abc
import importlib.metadata
import importlib.util
import os
import re
import runpy
import sys
import traceback

from . import _missing

_SHIM = os.path.join(os.path.dirname(__file__), "_shim")
USAGE = ("usage: python -m torchlike [--check] script.py [args...]\n"
         "       python -m torchlike -m module [args...]")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # importlib has just set `__spec__` to the alias's (`torch.x`): give the module its own
        # back, so its relative imports don't warn `__package__ != __spec__.parent`
        if self.spec is not None:
            module.__spec__ = self.spec


class TorchAlias(importlib.abc.MetaPathFinder):
    """Resolves `torch` / `torch.x.y` to `torchlike` / `torchlike.x.y` (or to a stub that explains
    what is missing, for torch modules torchlike lacks)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        try:
            module = _missing.import_torchlike(fullname)
        except ModuleNotFoundError as e:
            if e.name is None or not _missing.torchlike_name(fullname).startswith(e.name):
                raise
            if fullname not in _missing.torch_table():
                return None
            module = _missing.stub_module(fullname)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


class _TorchDistribution(importlib.metadata.Distribution):
    """torchlike presented to `importlib.metadata` as the distribution `torch` (libraries read
    its version to decide what they may use)."""

    def read_text(self, filename):
        if filename == "METADATA":
            from .version import __version__
            return (f"Metadata-Version: 2.1\nName: torch\nVersion: {__version__}\n"
                    "Summary: torchlike, PyTorch's API on JAX, standing in for torch\n")
        return None

    def locate_file(self, path):
        return os.path.join(os.path.dirname(os.path.abspath(__file__)), str(path))


class TorchMetadata(importlib.abc.MetaPathFinder):
    """Answers `importlib.metadata.version('torch')`/`distribution('torch')` with torchlike,
    in this process only (nothing is written where pip would see it)."""

    def find_spec(self, fullname, path=None, target=None):
        return None

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        name = getattr(context, "name", None)
        if name is not None and name.lower().replace("-", "_") == "torch":
            return iter([_TorchDistribution()])
        return iter(())


def install_as_torch(subprocesses=True):
    """Make `import torch` give torchlike in this process (for notebooks), and, with
    `subprocesses`, in Python processes started from it (DataLoader workers, multiprocessing)."""
    if not any(isinstance(f, TorchAlias) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchAlias())
    if not any(isinstance(f, TorchMetadata) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchMetadata())
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[name]
    import torchlike
    sys.modules["torch"] = torchlike
    if subprocesses:
        # On the path too: multiprocessing's spawn hands its children the parent's sys.path.
        if _SHIM not in sys.path:
            sys.path.insert(0, _SHIM)
        paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
        if _SHIM not in paths:
            os.environ["PYTHONPATH"] = os.pathsep.join([_SHIM] + [p for p in paths if p])
    return torchlike


def _chain(exc):
    while exc is not None:
        yield exc
        exc = exc.__cause__ or exc.__context__


_IMPORT_FROM = re.compile(r"cannot import name '(\w+)' from '(torchlike[\w.]*)'")


def _lacking(exc):
    """The `NotAvailable` behind `exc` (also behind `from torch.x import y`'s ImportError)."""
    for e in _chain(exc):
        if isinstance(e, _missing.NotAvailable):
            return e
        m = isinstance(e, ImportError) and _IMPORT_FROM.match(str(e))
        if m:
            found = _missing.missing(_missing.torch_name(m.group(2)), m.group(1))
            if isinstance(found, _missing.NotAvailable):
                return found
    return None


def _user_traceback(tb):
    """`tb` without the runner's own frames (as `python script.py` would show it)."""
    while tb is not None and (tb.tb_frame.f_code.co_filename in (__file__, "<frozen runpy>")
                              or tb.tb_frame.f_code.co_filename.endswith("runpy.py")):
        tb = tb.tb_next
    return tb


def _report(exc, script):
    """Print a missing feature as one line (plus where the script touched it); anything else as
    Python would."""
    lacking = _lacking(exc)
    if lacking is None:
        traceback.print_exception(type(exc), exc, _user_traceback(exc.__traceback__))
        return
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if script and os.path.abspath(f.filename) == os.path.abspath(script)]
    if frames:
        f = frames[-1]
        print(f'  File "{f.filename}", line {f.lineno}, in {f.name}\n    {f.line}', file=sys.stderr)
    print(f"NotImplementedError: {lacking}", file=sys.stderr)


def run(argv):
    """Run `argv` = [script, args...] (or ['-m', module, args...]) as `python` would."""
    install_as_torch()
    if argv[0] == "-m":
        sys.argv = argv[1:]
        target, runner, script = argv[1], runpy.run_module, None
        sys.path.insert(0, os.getcwd())
        kwargs = {"run_name": "__main__", "alter_sys": True}
    else:
        script = argv[0]
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
        # `python script.py` gives the script's code (tracebacks, warnings) its absolute path
        target, runner, kwargs = os.path.abspath(script), runpy.run_path, {"run_name": "__main__"}
    try:
        runner(target, **kwargs)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported like Python, missing features in one line
        _report(exc, script)
        return 1
    return 0


# ---- --check ---------------------------------------------------------------------------------

def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return node.id, parts[::-1]
    return None, None


def used_names(source):
    """{torch dotted name: first line} used by `source` through `import torch...` bindings."""
    tree = ast.parse(source)
    alias = {}
    used = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "torch" or a.name.startswith("torch."):
                    if a.asname:
                        alias[a.asname] = a.name
                    else:
                        alias["torch"] = "torch"
                    used.setdefault(a.name, node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and (
                node.module == "torch" or node.module.startswith("torch.")):
            for a in node.names:
                if a.name != "*":
                    full = f"{node.module}.{a.name}"
                    alias[a.asname or a.name] = full
                    used.setdefault(full, node.lineno)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(getattr(node, "_parent", None),
                                                               ast.Attribute):
            base, parts = _dotted(node)
            if base in alias and not any(p.startswith("__") for p in parts):
                used.setdefault(".".join([alias[base]] + parts), node.lineno)
        for child in ast.iter_child_nodes(node):
            child._parent = node
    return used


def lacks(name):
    """The shortest prefix of torch name `name` that torchlike lacks, or None if it has it."""
    import torchlike
    parts = name.split(".")
    obj = torchlike
    for i in range(1, len(parts)):
        if not isinstance(obj, type(torchlike)):
            return None                         # past a module: an attribute of a class/function
        try:
            obj = getattr(obj, parts[i])
        except AttributeError:
            obj = _submodule(obj, parts[i])   # one imported explicitly (torch.utils.benchmark)
            if obj is None:
                return ".".join(parts[:i + 1])
    return None


def _submodule(module, name):
    import importlib
    try:
        return importlib.import_module(f"{module.__name__}.{name}")
    except ImportError:
        return None


def check(script):
    """Print the torch names `script` uses and those torchlike lacks; return how many it lacks."""
    with open(script) as f:
        used = used_names(f.read())
    names = sorted(used)
    gaps = {}
    for n in names:
        m = lacks(n)
        if m is not None:
            gaps.setdefault(m, used[n])
    print(f"{script}: uses {len(names)} torch names")
    for n in names:
        print(f"  {n}")
    if gaps:
        print(f"torchlike lacks {len(gaps)}:")
        for n, line in sorted(gaps.items()):
            known = "" if _missing.missing(n.rsplit(".", 1)[0], n.rsplit(".", 1)[1]).__class__ \
                is _missing.NotAvailable else "  (not a torch 2.13 name either)"
            print(f"  {n}  (line {line}){known}")
    else:
        print("torchlike has all of them")
    return len(gaps)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] == "--check":
        if len(argv) != 2:
            print(USAGE, file=sys.stderr)
            return 2
        return 1 if check(argv[1]) else 0
    return run(argv)


def main_exit():
    """Entry point of the `torchlike` console script."""
    sys.exit(main())
