"""Jitted programs whose executables a later process loads whole, without tracing them again.

JAX's persistent cache (`disk_cache.py`) saves XLA's compile, but a program read from it is
still traced and lowered first, ~25 ms per program on a small CPU: more than the load itself,
and the most of a second run's start-up. `jit(fun, key)` makes a jitted function whose *key*
determines it (the op-table row and its static arguments, the kernels it composes...;
`factory` keys a cached builder by its name and arguments). Its cache misses go to a
`_Program`, which loads the executable for the operand types from `<cache>/programs`, or
compiles and stores it there, under a hash of: the key, the operand types, JAX's trace context
(x64, matmul precision...), the device kind, JAX's version, XLA_FLAGS and torchlike's own
source; the executable then enters JAX's C++ dispatch as jit's own would. A second process
deserializes them (~4 ms each) and never traces. Same folder rules and switch as the
compilation cache, with a size cap of its own.

Not used (the plain `jax.jit` call instead) with the caches off, with more than one device or
process, for arrays off JAX's default device (an executable is compiled for its devices),
inside a JAX trace (the call is staged into the outer program as a nested jit), and not on disk
for a key holding anything whose identity is not stable across processes (a user's function,
an object without a value-like repr).
"""
import enum
import functools
import hashlib
import os
import pickle
import time
import types
import weakref

import jax
import numpy as np
from jax._src import config as _config
from jax._src import core as _core

_CTX = _core.trace_ctx
_EVAL = _core.EvalTrace
_STATE = {"on": None, "store": None, "base": None, "loads": 0, "saves": 0}
_ALL = weakref.WeakSet()   # live programs, so that clear() can drop their executables
_STABLE_TYPES = (bool, int, float, complex, str, bytes, type(None))
_PACKAGES = ("torchlike", "jax", "jaxlib", "optax", "numpy")
_SUFFIX = ".prog"


class Unstable(Exception):
    """A key part whose identity does not carry over to another process."""


def stable(obj):
    """A text for `obj` that is the same in every process where `obj` means the same (values,
    torchlike's and its libraries' functions and types, Programs by their keys); raises
    Unstable otherwise."""
    t = type(obj)
    if t in _STABLE_TYPES:
        return repr(obj)
    if t is tuple or t is list:
        return ("(" if t is tuple else "[") + ",".join(map(stable, obj)) + ")"
    if isinstance(obj, (frozenset, set)):
        return "{" + ",".join(sorted(map(stable, obj))) + "}"
    if isinstance(obj, dict):
        return "{" + ",".join(sorted(stable(k) + ":" + stable(v) for k, v in obj.items())) + "}"
    prog = getattr(obj, "_torchlike_program", None)
    if prog is not None:
        return "P" + stable(prog.key)
    if isinstance(obj, functools.partial):
        return "partial(" + ",".join((stable(obj.func), stable(obj.args),
                                      stable(obj.keywords))) + ")"
    if isinstance(obj, np.dtype):
        return "np." + obj.str
    if isinstance(obj, enum.Enum):
        return repr(obj)
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return _named(obj)
    r = repr(obj)
    if " at 0x" in r or " object at " in r or type(obj).__module__.split(".")[0] \
            not in _PACKAGES:
        raise Unstable(obj)
    return type(obj).__qualname__ + ":" + r


def _named(obj):
    """A module-level function or class of torchlike or its libraries, by its dotted name."""
    mod = getattr(obj, "__module__", None) or ""
    qual = getattr(obj, "__qualname__", "")
    if mod.split(".")[0] not in _PACKAGES or "<locals>" in qual or "<lambda>" in qual or \
            getattr(obj, "__closure__", None):
        raise Unstable(obj)
    return mod + "." + qual


def _describe(a):
    """The operand-type part of a signature, as jit's dispatch sees it: an array (a JAX array
    on the default device, a NumPy array or scalar: shape, dtype, weak type), None, a tuple,
    list or dict (with sortable keys) of operands, a Python scalar (its type: weakly typed);
    raises Unstable for anything else."""
    t = type(a)
    if a is None:
        return None
    if t is tuple or t is list:
        return (t,) + tuple(map(_describe, a))
    if t is dict:
        return (dict,) + tuple((k, _describe(v)) for k, v in sorted(a.items()))
    if t in (bool, int, float, complex):
        return t
    if t is jax.ShapeDtypeStruct:   # (compile_ahead's operands)
        return ("a", a.shape, a.dtype, a.weak_type)
    aval = getattr(a, "aval", None)
    if aval is not None:
        if a.sharding != _home():   # an executable is compiled for its device
            raise Unstable(a)
        return ("a", aval.shape, aval.dtype, aval.weak_type)
    if isinstance(a, (np.ndarray, np.generic)):
        return ("a", a.shape, a.dtype, False)
    raise Unstable(a)


def _home():
    """The sharding of an array on JAX's default device: programs run there only (a CPU
    tensor beside a GPU default device gets the plain jitted call)."""
    home = _STATE.get("home")
    if home is None:
        home = _STATE["home"] = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    return home


def _sig_text(d):
    if d is None:
        return "-"
    if isinstance(d, type):
        return d.__name__
    if d[0] == "a":
        return f"{d[2]}{list(d[1])}" + ("~" if d[3] else "")
    if d[0] is dict:
        return "dict(" + ",".join(f"{k!r}:{_sig_text(v)}" for k, v in d[1:]) + ")"
    return d[0].__name__ + "(" + ",".join(map(_sig_text, d[1:])) + ")"


def _source_hash():
    """Hash of torchlike's source files (a changed kernel must not load an old program)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    h = hashlib.blake2b(digest_size=16)
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                h.update(os.path.relpath(path, root).encode() + b"\0")
                with open(path, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def _base():
    """What every disk key shares: versions, backend, flags, torchlike's source."""
    if _STATE["base"] is None:
        import jaxlib
        dev = jax.devices()[0]
        _STATE["base"] = "\n".join((
            jax.__version__, getattr(jaxlib, "__version__", ""), dev.platform,
            getattr(dev, "device_kind", ""), os.environ.get("XLA_FLAGS", ""),
            os.environ.get("LIBTPU_INIT_ARGS", ""), _source_hash()))
    return _STATE["base"]


def _context_text():
    """JAX's trace context (the configuration a trace depends on), as stable text."""
    parts = []
    for v in _config.trace_context():
        r = repr(v)
        parts.append(type(v).__name__ if " at 0x" in r else r)
    return ",".join(parts)


def enabled():
    """True when programs keep executables themselves (see the module docstring)."""
    on = _STATE["on"]
    if on is None:
        from .disk_cache import switched_off
        try:
            on = not switched_off() and jax.device_count() == 1 and jax.process_count() == 1
        except Exception:
            on = False
        _STATE["on"] = on
    return on


def _store():
    """The on-disk folder of programs (None when it cannot be made)."""
    store = _STATE["store"]
    if store is None:
        from .disk_cache import FileStore, _machine_tag, cache_folder, max_bytes
        folder = cache_folder("programs")
        if os.environ.get("TORCHLIKE_CACHE_DIR", ""):
            folder = os.path.join(folder, "programs")
        try:
            store = FileStore(os.path.join(folder, _machine_tag()), max_bytes(), _SUFFIX)
        except OSError:
            store = False
        _STATE["store"] = store
    return store or None


def _load(name, dkey):
    store = _store()
    data = store.get(dkey) if store is not None else None
    if data is None:
        return None
    from jax.experimental.serialize_executable import deserialize_and_load
    t0 = time.perf_counter()
    if b"lapack_" in data:
        _lapack_ready()
    try:
        payload, in_tree, out_tree = pickle.loads(data)
        exe = deserialize_and_load(payload, in_tree, out_tree)
    except Exception:   # a damaged or foreign entry: compiled again and rewritten
        return None
    _STATE["loads"] += 1
    from .. import compile_log
    from . import compile_budget
    compile_log.loaded(name, time.perf_counter() - t0)
    compile_budget.made()
    return exe


def _lapack_ready():
    """Load the LAPACK routines that JAX's CPU kernels call. JAX does it when it lowers a
    linear-algebra op; a program loaded whole is never lowered, and calling its LAPACK kernels
    before this crashes the process (a segmentation fault)."""
    if not _STATE.get("lapack"):
        from jax._src.lax.linalg import initialize_lapack
        initialize_lapack()
        _STATE["lapack"] = True


def _save(dkey, exe):
    store = _store()
    if store is None:
        return
    from jax.experimental.serialize_executable import serialize
    if exe._params.const_args:   # (a loaded executable would be called without them)
        return
    try:
        data = pickle.dumps(serialize(exe), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:   # executables with host callbacks cannot be serialized
        return
    store.put(dkey, data, replace=True)
    _STATE["saves"] += 1


def _compile(prog, args, dyn, dkey):
    """Traces, lowers and compiles `prog`'s jitted function for `args` (`dyn`: the arrays
    among them) with a reason for compile_log (unless the function gives its own); see
    `_compile_jitted`."""
    from .. import compile_log
    key = prog.key if type(prog.key) is tuple and prog.key else (prog.key,)
    op = (prog.name, key[0]) if type(key[0]) is str else prog.name
    labels = ("program",) + tuple(f"key part {i}" for i in range(1, len(key)))
    entry = compile_log.note(prog.name, op, key, key, dyn, labels)
    try:
        return _compile_jitted(prog.jitted, args, dkey, prog.compile_options)
    finally:
        compile_log.withdraw(prog.name, entry)


def _compile_jitted(jitted, args, dkey, compile_options=None):
    """Traces, lowers and compiles `jitted` for `args` (with XLA `compile_options`); saves the
    executable under `dkey` unless it came out of JAX's persistent cache (such a copy cannot
    be serialized again)."""
    from .. import compile_log
    from .disk_cache import bypassed, uses_own_cache

    def compiled():
        lowered = jitted.lower(*args)
        return lowered.compile(compiler_options=compile_options) if compile_options else \
            lowered.compile()
    if dkey is None:
        return compiled()
    if uses_own_cache():
        with bypassed():
            exe = compiled()
        _save(dkey, exe)
        return exe
    hits = compile_log.counts()["cache_hits"]
    exe = compiled()
    if compile_log.counts()["cache_hits"] == hits:
        _save(dkey, exe)
    return exe


class _Program:
    """What a program keeps: its key, its plain jitted twin (for traces, and where programs
    are off), its executables per operand types, and its entry in JAX's C++ dispatch (the
    executables it hands there are called as fast as `jax.jit`'s own)."""

    __slots__ = ("key", "jitted", "name", "static", "options", "exes", "disk", "compile_options",
                 "__weakref__")

    def __init__(self, key, jitted, name, static, options, compile_options=None):
        self.key, self.jitted, self.name, self.options = key, jitted, name, options
        self.compile_options = compile_options
        self.static = static
        self.exes = {}
        self.disk = None   # the stable text of (key, options); False: not on disk
        _ALL.add(self)

    def cache_miss(self, *args, **kwargs):
        """Called by the C++ dispatch for operand types it has no executable for: returns
        (outputs, its fast-path entry or None, False)."""
        if kwargs or _CTX.trace.__class__ is not _EVAL or not enabled():
            return self.jitted(*args, **kwargs), None, False
        static = self.static
        if static:
            statics = tuple([args[i] for i in static])
            dyn = tuple([a for i, a in enumerate(args) if i not in static])
        else:
            statics, dyn = (), args
        try:
            types = tuple(map(_describe, dyn))
            sig = (statics, types)
            exe = self.exes.get(sig)
        except (Unstable, TypeError):   # (an unhashable static raises in jit too)
            return self.jitted(*args), None, False
        if exe is None:
            dkey = self._disk_key(types, statics)
            exe = _load(self.name, dkey) if dkey is not None else None
            if exe is None:
                exe = _compile(self, args, dyn, dkey)
            if len(self.exes) > 256:   # called at ever new shapes: keep the latest
                self.exes.clear()
            self.exes[sig] = exe
        try:
            params = exe._params
            outs, out_flat, args_flat = _Compiled.call(params, *dyn)
        except Exception:   # (JAX internals that differ; a real error is raised again here)
            return self.jitted(*args), None, False
        try:
            fast = _fastpath(exe._executable, params.out_tree, args_flat, out_flat, (), (),
                             None, params.const_args)
        except Exception:   # no C++ entry: later calls come back here, still without a trace
            fast = None
        return outs, fast, False

    def _disk_key(self, types, statics):
        if self.disk is None:
            try:
                self.disk = stable((self.key, self.options) + (
                    (self.compile_options,) if self.compile_options else ()))
            except Unstable:
                self.disk = False
        if self.disk is False:
            return None
        try:
            text = "\n".join((_base(), self.disk, stable(statics),
                              ",".join(map(_sig_text, types)), _context_text()))
        except Unstable:
            return None
        return hashlib.blake2b(text.encode(), digest_size=20).hexdigest()


def _dispatch_parts():
    """JAX's C++ dispatch pieces, or None where this JAX lacks them (programs are then plain
    jitted functions)."""
    if "parts" not in _STATE:
        try:
            import dataclasses
            from jax._src import pjit, stages, tree_util
            from jax._src.interpreters import pxla
            from jax._src.lib import _jax
            fields = [f.name for f in dataclasses.fields(pxla.JitGlobalCppCacheKeys)]
            _STATE["parts"] = (pjit, stages, tree_util, pxla, _jax, fields,
                               pjit.make_jit_cpp_cache(8192))
        except Exception:
            _STATE["parts"] = None
    return _STATE["parts"]


_Compiled = _fastpath = None


def _entry(fun, jitted, key, options, compile_options=None):
    """A C++ dispatch entry like `jax.jit`'s whose cache misses go to a `_Program`."""
    global _Compiled, _fastpath
    parts = _dispatch_parts()
    if parts is None:
        return jitted
    pjit, stages, tree_util, pxla, _jax, fields, cache = parts
    _Compiled, _fastpath = stages.Compiled, pjit._get_fastpath_data
    info = jitted._jit_info
    name = getattr(fun, "__name__", "program")
    prog = _Program(key, jitted, name, tuple(sorted(info.static_argnums)), options,
                    compile_options)
    cache_key = pxla.JitGlobalCppCacheKeys(**{f: getattr(info, f) for f in fields})
    f = _jax.pjit(name, fun, prog.cache_miss, info.static_argnums, info.static_argnames,
                  cache_key, tree_util.dispatch_registry, pxla.cc_shard_arg, cache)
    f = functools.wraps(fun)(f)
    f._fun, f._jit_info, f._torchlike_program = fun, info, prog
    return f


def jit(fun, key=None, compile_options=None, **options):
    """`jax.jit(fun, **options)`; when `key` (a value that determines `fun`) is given and the
    caches are on, with its executables kept by a `_Program` (see the module docstring),
    compiled with the XLA options `compile_options` (a program's own compiles only: a
    `jax.jit` option would forbid calling it inside another program)."""
    from .disk_cache import switched_off
    jitted = jax.jit(fun, **options)
    if key is None or switched_off():
        return jitted
    try:
        return _entry(fun, jitted, key, options, compile_options)
    except Exception:   # a JAX whose internals differ: the plain jitted function
        return jitted


def factory(builder):
    """Decorator for a cached builder of functions to jit, in place of `functools.lru_cache`
    with `return jax.jit(f)`: `builder(*args)` returns the function; the decorated builder
    returns its Program, one per arguments, keyed by the builder's dotted name and arguments."""
    name = builder.__module__ + "." + builder.__qualname__

    own = builder.__name__.strip("_")

    @functools.lru_cache(maxsize=None)
    @functools.wraps(builder)
    def make(*args, **kwargs):
        fun = builder(*args, **kwargs)
        if getattr(fun, "__name__", None) in _GENERIC and "<locals>" in \
                getattr(fun, "__qualname__", ""):
            fun.__name__ = own   # what compile_log reports: "mha_kernel", not "f"
        return jit(fun, (name, args, tuple(sorted(kwargs.items()))))
    return make


_GENERIC = frozenset(("f", "g", "fn", "fun", "func", "<lambda>", "kernel", "inner", "impl",
                      "wrapped", "run", "body", "op", "program"))


def compile_ahead(fn, *args):
    """Compiles (or loads) program `fn` for the operand types of `args` (arrays, or
    `jax.ShapeDtypeStruct`s) without running it, so that its first call finds the executable
    (safe from another thread). False, doing nothing, where `fn` is no program or programs
    are off: a plain jitted function's first call compiles."""
    prog = program_of(fn)
    if prog is None or prog.static or not enabled():
        return False
    types = tuple(map(_describe, args))
    sig = ((), types)
    if sig not in prog.exes:
        dkey = prog._disk_key(types, ())
        exe = _load(prog.name, dkey) if dkey is not None else None
        if exe is None:
            exe = _compile(prog, args, args, dkey)
        prog.exes[sig] = exe
    return True


def output_types(fn, args):
    """(output treedef, [(shape, dtype, weak type)] per output leaf) of program `fn` on
    operands of the types of `args` (arrays, `jax.ShapeDtypeStruct`s, Python scalars), from its
    executable for them, loaded or compiled now (the one its call will use: no second trace);
    None where `fn` is no program, takes static arguments or programs are off."""
    prog = program_of(fn)
    if prog is None or prog.static or not enabled():
        return None
    try:
        types = tuple(map(_describe, args))
    except Unstable:
        return None
    sig = ((), types)
    exe = prog.exes.get(sig)
    if exe is None:
        dkey = prog._disk_key(types, ())
        exe = _load(prog.name, dkey) if dkey is not None else None
        if exe is None:
            exe = _compile(prog, args, args, dkey)
        if len(prog.exes) > 256:
            prog.exes.clear()
        prog.exes[sig] = exe
    avals = getattr(exe._executable, "out_avals", None)
    if avals is None:
        return None
    return exe._params.out_tree, [(a.shape, a.dtype, a.weak_type) for a in avals]


def program_of(fn):
    """The `_Program` behind a jitted function made by `jit` (None for anything else)."""
    return getattr(fn, "_torchlike_program", None)


def clear():
    """Drops every program's executables (they are loaded or compiled again on next use)."""
    for p in list(_ALL):
        p.exes.clear()
    parts = _STATE.get("parts")
    if parts:
        parts[-1].clear()


def stats():
    """{'loads': executables read from disk, 'saves': executables written} in this process."""
    return {"loads": _STATE["loads"], "saves": _STATE["saves"]}
