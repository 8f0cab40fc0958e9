"""Sending functions that pickle cannot name (lambdas, functions defined inside other
functions) to DataLoader workers: by value, as their code object plus defaults and closure,
bound to their module's globals in the worker (its `__mp_main__` for the main script).

PyTorch's fork-started workers inherit such functions (`collate_fn=lambda b: ...`); workers
started from a forkserver receive them pickled, and this makes that work."""
import importlib
import marshal
import sys
import types

_EMPTY = object()  # an unfilled closure cell


def _named(f):
    """Whether pickle can find `f` by module and qualified name."""
    obj = sys.modules.get(f.__module__)
    for part in f.__qualname__.split("."):
        obj = getattr(obj, part, None)
    return obj is f


def reduce(f):
    """`reducer_override` for a plain function: NotImplemented (pickle by name) where pickle
    can name it, else a by-value reduction whose state (defaults, closure, attributes) is set
    after the function exists, so a function reachable from its own closure pickles too."""
    if _named(f):
        return NotImplemented
    code = f.__code__
    cells = tuple(_contents(c) for c in f.__closure__ or ())
    state = (f.__defaults__, f.__kwdefaults__, cells, f.__dict__, _main_globals(f))
    return (_make, (marshal.dumps(code), f.__module__, f.__name__, f.__qualname__,
                    len(code.co_freevars)), state, None, None, _set_state)


def _main_globals(f):
    """The main script's globals `f`'s code reads, at their values now (a fork-started worker
    sees the parent's; a worker's re-run of the script may have stopped before defining them);
    modules are left to the worker's own imports."""
    if f.__module__ != "__main__":
        return {}
    names, todo = set(), [f.__code__]
    while todo:
        code = todo.pop()
        names.update(code.co_names)
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    g = f.__globals__
    return {n: g[n] for n in names if n in g and not isinstance(g[n], types.ModuleType)}


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return _EMPTY


def _make(code, module, name, qualname, nfree):
    mod = sys.modules.get(module) or importlib.import_module(module)
    closure = tuple(types.CellType() for _ in range(nfree)) or None
    f = types.FunctionType(marshal.loads(code), mod.__dict__, name, None, closure)
    f.__qualname__ = qualname
    return f


def _set_state(f, state):
    defaults, kwdefaults, cells, attrs, main_globals = state
    f.__globals__.update(main_globals)
    f.__defaults__, f.__kwdefaults__ = defaults, kwdefaults
    for cell, value in zip(f.__closure__ or (), cells):
        if value is not _EMPTY:
            cell.cell_contents = value
    f.__dict__.update(attrs)
