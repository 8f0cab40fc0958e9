"""Which XLA programs torchlike traces and compiles, and why (a torchlike extension).

PyTorch compiles nothing; torchlike traces and compiles an XLA program for every new kernel key
or operand shape. This module counts every trace and compile in the process (JAX's own
monitoring events, so nothing escapes it) and, when switched on, reports each one with the
reason torchlike knows: which op, which part of its kernel key or which operand type changed,
and the user's line that asked for it.

    TORCHLIKE_LOG_COMPILES=1 python -m torchlike train.py   # one stderr line per event

    import torchlike
    torchlike.compile_log.enable()              # the same from Python; disable() stops it
    with torchlike.compile_log.record() as log:  # collect the events of a block
        step()
    log.traces, log.compiles                     # lists of Event
    torchlike.compile_log.counts()               # process totals since import
"""
import contextlib
import os
import sys
import threading

import jax.monitoring

_TRACE = "/jax/core/compile/jaxpr_trace_duration"
_COMPILE = "/jax/core/compile/backend_compile_duration"
_CACHE_HIT = "/jax/compilation_cache/cache_hits"

ON = [False]          # events are reported (a stream or a record() block is open)
_STREAM = [None]      # where enable() writes, None: nowhere
_RECORDERS = []       # open record() blocks
_TOTALS = {"traces": 0, "compiles": 0, "compile_seconds": 0.0, "cache_hits": 0}
_INSTALLED = [False]
_HITS = [0]           # persistent-cache hits whose duration event has not come yet
_PENDING = {}         # fun_name -> [notes of traces in progress] (a stack: traces nest)
_SEEN = {}            # op name -> {kernel id: operand types last traced}
_LOCK = threading.Lock()
_SHOWN = 4            # changed operands named in one reason
_KEPT = 8             # operand types remembered per kernel, to name the closest
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_JAX_DIR = os.path.dirname(os.path.abspath(jax.__file__)) + os.sep


class Event:
    """One trace, compile or load: `kind` ('trace', 'compile', or 'load' for a program read
    from the persistent compilation cache), `name` (the op or program),
    `reason` (what changed, when torchlike knows), `where` (the user's file:line, for traces
    torchlike took a note of) and `seconds`."""

    __slots__ = ("kind", "name", "reason", "where", "seconds")

    def __init__(self, kind, name, reason, where, seconds):
        self.kind, self.name, self.reason, self.where, self.seconds = \
            kind, name, reason, where, seconds

    def __repr__(self):
        where = f" at {self.where}" if self.where else ""
        reason = f": {self.reason}" if self.reason else ""
        return f"{self.kind} {self.name}{where}{reason} ({self.seconds * 1e3:.1f} ms)"


class Record:
    """The events of one `record()` block."""

    def __init__(self):
        self.events = []

    @property
    def traces(self):
        return [e for e in self.events if e.kind == "trace"]

    @property
    def compiles(self):
        return [e for e in self.events if e.kind == "compile"]

    @property
    def loads(self):
        return [e for e in self.events if e.kind == "load"]


def counts():
    """Process totals: traces, compiles, compile_seconds (XLA backend compile time) and
    cache_hits (programs loaded from the persistent compilation cache instead of compiled),
    background compiles started so far included (see `settle`)."""
    settle()
    return dict(_TOTALS)


_SETTLERS = []   # functions that wait for work started in the background


def settle():
    """Waits for the compiles torchlike started in the background (fused backward programs
    compiled while the backward runs node by node), so that counts and records attribute
    them to the code that started them."""
    for wait in list(_SETTLERS):
        wait()


def enable(stream=None):
    """Report every trace and compile on `stream` (default: sys.stderr), one line each."""
    _STREAM[0] = stream if stream is not None else sys.stderr
    ON[0] = True


def disable():
    _STREAM[0] = None
    ON[0] = bool(_RECORDERS)


@contextlib.contextmanager
def record():
    """Collects the trace and compile events of the block (see `Record`); background work
    started before it is waited for first (see `settle`)."""
    settle()
    r = Record()
    _RECORDERS.append(r)
    ON[0] = True
    try:
        yield r
    finally:
        _RECORDERS.remove(r)
        ON[0] = bool(_RECORDERS) or _STREAM[0] is not None


def _user_line():
    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_filename
        if not (name.startswith(_PACKAGE) or name.startswith(_JAX_DIR) or name.startswith("<")):
            return f"{os.path.basename(name)}:{f.f_lineno}"
        f = f.f_back
    return None


def _type_str(x):
    aval = getattr(x, "aval", None)
    if aval is not None and hasattr(aval, "str_short"):
        return aval.str_short(short_dtypes=True)
    return type(x).__name__


def _types(operands):
    out = []
    for x in operands:
        if isinstance(x, (tuple, list)):
            out.append("(" + ", ".join(_type_str(a) for a in x) + ")")
        elif x is not None:
            out.append(_type_str(x))
        else:
            out.append("-")
    return tuple(out)


def _diff_key(new, old, labels):
    parts = []
    for label, a, b in zip(labels, new, old):
        if a != b:
            if type(a) is tuple and type(b) is tuple and len(a) == len(b) and len(a) > 1:
                parts.append(_diff_key(a, b, [f"{label}[{i}]" for i in range(len(a))]))
            else:
                parts.append(f"{label} {_short(b)} -> {_short(a)}")
    return "; ".join(parts)


def _short(value, limit=80):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _dims(t):
    head, _, rest = t.partition("[")
    return head, rest.rstrip("]").split(",") if rest else []


def _distance(types, old):
    """How far two operand-type lists are: differing dims, 100 per differing dtype or rank."""
    d = 100 * abs(len(types) - len(old))
    for a, b in zip(types, old):
        (da, sa), (db, sb) = _dims(a), _dims(b)
        d += 100 if da != db or len(sa) != len(sb) else sum(x != y for x, y in zip(sa, sb))
    return d


def _closest_change(types, known):
    """What changed from the closest operand types this kernel was traced for before (a kernel
    called from several places has several), as 'operand i old -> new; ...'."""
    def changes(old):
        out = [f"operand {i} {b} -> {a}" for i, (a, b) in enumerate(zip(types, old)) if a != b]
        if len(types) != len(old):
            out.append(f"{len(old)} -> {len(types)} operands")
        return out
    if not known:
        return "same types (cache cleared)"
    best = changes(min(reversed(known), key=lambda old: _distance(types, old)))
    if len(best) > _SHOWN:
        best[_SHOWN:] = [f"and {len(best) - _SHOWN} more"]
    return "; ".join(best) or "same types (cache cleared)"


def note(fun_name, op, kernel_id, key, operands, key_labels=("key",)):
    """Called by a kernel while JAX traces it (so never on a cached call): remembers why, so
    that the trace event that follows is reported with a reason. `key` is the kernel's cache
    key (a tuple of parts named by `key_labels`), `operands` its traced operands. Returns the
    note (see `withdraw`)."""
    types = _types(operands)
    with _LOCK:
        seen = _SEEN.setdefault(op, {})
        before = seen.get(kernel_id)
        if before is None:
            others = [k for k in seen if k != kernel_id]
            if others:
                old_key = seen[others[-1]][0]
                reason = "new kernel key: " + (_diff_key(key, old_key, key_labels) or "same parts")
            else:
                reason = "first call"
            if types:
                shown = types if len(types) <= 2 * _SHOWN else types[:2 * _SHOWN] + ("...",)
                reason += " (" + ", ".join(shown) + ")"
            before = seen[kernel_id] = (key, [])
        else:
            reason = "new operand types: " + _closest_change(types, before[1])
        known = before[1]
        if types in known:
            known.remove(types)
        known.append(types)
        del known[:-_KEPT]
        if len(_SEEN) > 4096:
            _SEEN.clear()
        stack = _PENDING.setdefault(fun_name, [])
        if len(stack) > 64:  # traces that never reported (an exception inside JAX)
            del stack[:-64]
        entry = (reason, _user_line())
        stack.append(entry)
        return entry


def withdraw(fun_name, entry):
    """Drops a note `note` returned if no trace took it (the kernel noted a reason of its own,
    or nothing was traced)."""
    with _LOCK:
        stack = _PENDING.get(fun_name)
        if stack:
            for i in range(len(stack) - 1, -1, -1):
                if stack[i] is entry:
                    del stack[i]
                    break


def _emit(event):
    for r in _RECORDERS:
        r.events.append(event)
    stream = _STREAM[0]
    if stream is not None:
        try:
            stream.write(f"torchlike: {event!r}\n")
        except Exception:  # a closed stream never breaks the program
            pass


def _on_event(event, duration, **kwargs):
    if event == _TRACE:
        _TOTALS["traces"] += 1
        name = kwargs.get("fun_name", "?")
        pending = _PENDING.get(name)
        reason, where = pending.pop() if pending else (None, None)
        if ON[0]:
            _emit(Event("trace", name, reason, where, duration))
    elif event == _COMPILE:
        loaded = _HITS[0] > 0   # JAX times a load from the persistent cache as a compile
        if loaded:
            _HITS[0] -= 1
        else:
            _TOTALS["compiles"] += 1
            _TOTALS["compile_seconds"] += duration
        if ON[0]:
            name = kwargs.get("fun_name", "?")
            if name.startswith("jit(") and name.endswith(")"):
                name = name[4:-1]
            _emit(Event("load" if loaded else "compile", name, None, None, duration))


def loaded(name, seconds):
    """A program torchlike read whole from its own on-disk cache (no trace, no compile)."""
    _TOTALS["cache_hits"] += 1
    if ON[0]:
        _emit(Event("load", name, None, None, seconds))


def _on_plain_event(event, **kwargs):
    if event == _CACHE_HIT:
        _TOTALS["cache_hits"] += 1
        _HITS[0] += 1


def install():
    """Registers the listeners (idempotent); TORCHLIKE_LOG_COMPILES=1 turns reporting on."""
    if _INSTALLED[0]:
        return
    _INSTALLED[0] = True
    jax.monitoring.register_event_duration_secs_listener(_on_event)
    jax.monitoring.register_event_listener(_on_plain_event)
    if os.environ.get("TORCHLIKE_LOG_COMPILES", "0") not in ("", "0"):
        enable()
