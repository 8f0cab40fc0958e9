"""Fused eager: ops recorded into a segment and run as one cached XLA program when a value is
needed (docs/performance.md, "Fused eager").

With the mode on (`TORCHLIKE_FUSED_EAGER=1`, or `enable()`), a launch of an op-table kernel, of
an `apply_jax` program, of a graph's fused backward or of an optimizer's update does not run:
`launch` returns `Pending` stand-ins of its outputs (shape and dtype from the executable the
call would use, so shape and dtype errors still raise at the user's line) and appends the call
to this thread's `Segment`. Autograd nodes keep Pending operands. A storage holding a `Pending`
is read through `Storage._data`, which runs the segment first (`flush`); so does everything
that needs elements (`item`, printing, `numpy`, host copies, a node-by-node backward, code
outside the op table). Inside a JAX trace nothing is recorded.

A flushed segment is keyed by its structure: each call's kernel, where each operand comes from
(an earlier call's output, or an outside array of a given type), and which outputs are still
referenced. The first sighting of a key runs the calls one by one (what eager would have done;
no compile beyond the kernels'); the second compiles the segment into one program
(`programs.jit`, so a later process loads it whole) and later sightings call it. Outputs
nothing references any more are not computed as results, so XLA fuses them away.
A Pending of another thread's segment, read here, runs that segment from this thread: tensors
shared between threads should be read (or synchronised) by the thread that made them.
"""
import os
import sys
import threading
import weakref

import jax
from jax._src.array import ArrayImpl as _ARRAY

from . import layout as _layout, programs, xla_options
from .tracing import _CTX, _EVAL

_refs = sys.getrefcount
_weak = weakref.ref
ON = [os.environ.get("TORCHLIKE_FUSED_EAGER", "0") not in ("", "0")]
MAX_CALLS = int(os.environ.get("TORCHLIKE_FUSED_EAGER_MAX", "512"))
_X, _P = 0, 1   # operand sources: an outside array, an earlier call's output


class Pending:
    """A kernel output not computed yet: its shape and dtype (as a JAX array's), the segment
    call and output leaf that makes it; `value` once its segment has run. `owners`: weak
    references to the storages holding it, whose buffers become `value` then. `tkey`: (shape,
    dtype, weak type), its part of a segment's structure."""

    __slots__ = ("shape", "dtype", "tkey", "seg", "call", "leaf", "value", "owners")

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __repr__(self):
        return f"Pending({self.shape}, {self.dtype}, call {self.call})"


class Segment:
    """The calls recorded since the last flush: `calls` (kernel, operand template, output
    tree), `sig` (their structure, the cache key's first part), `outs` (each call's Pending
    leaves, held here so that liveness is a reference count), `ext` (outside operands)."""

    __slots__ = ("calls", "sig", "outs", "ext", "ext_ids")

    def __init__(self):
        self.calls = []
        self.sig = []
        self.outs = []
        self.ext = []
        self.ext_ids = {}


class _Current(threading.local):
    """Each thread records its own segment (its ops' program order)."""

    def __init__(self):
        self.seg = Segment()


_CUR = _Current()
_new = object.__new__
_AVALS = {}      # (kernel key, operand types) -> output tree and leaf types (see _abstract)
_KKEYS = {}      # kernel -> its key in a segment's structure
_SEEN = {}       # segment key -> 1 (seen once) or its compiled program
STATS = {"calls": 0, "flushes": 0, "programs": 0, "replays": 0, "stepwise": 0}


def enabled():
    return ON[0]


def enable(on=True):
    """Turn fused eager on or off (what was recorded runs first)."""
    flush()
    ON[0] = bool(on)


def _kernel_key(k):
    """What names kernel `k` in a segment key: its program key (stable across processes) when
    it has one, else the kernel itself."""
    prog = programs.program_of(k)
    return ("p", prog.key) if prog is not None else k


def _operand(seg, v, template, types):
    """Record operand `v` of a call: where it comes from (`template`) and its type."""
    t = type(v)
    if t is Pending:
        if v.value is None and v.seg is seg:
            template.append((_P, v.call, v.leaf))
            types.append(v.tkey)
            return
        v = force(v)
    elif v is None:
        template.append(None)
        types.append(None)
        return
    elif t is tuple or t is list:
        sub_t, sub_k = [], []
        for x in v:
            _operand(seg, x, sub_t, sub_k)
        template.append(tuple(sub_t))
        types.append(tuple(sub_k))
        return
    shape = getattr(v, "shape", None)
    i = seg.ext_ids.get(id(v)) if shape else None
    if i is None or seg.ext[i] is not v:
        i = len(seg.ext)
        seg.ext.append(v)
        if shape:   # (see launch)
            seg.ext_ids[id(v)] = i
    template.append((_X, i))
    if shape is None:   # a Python number: traced as a weakly typed scalar
        types.append(type(v).__name__)
    else:
        types.append((shape, v.dtype, getattr(v, "weak_type", False)))


def launch(k, dyn):
    """Record `k(*dyn)` in the current segment; its outputs as `Pending`s in `k`'s output
    structure (a tuple or list where `k` returns one)."""
    if _CTX.trace.__class__ is not _EVAL:   # inside a JAX trace: staged into it as eager is
        return k(*resolve(dyn))
    seg = _CUR.seg
    calls = seg.calls
    n = len(calls)
    if n >= MAX_CALLS:
        flush()
        seg = _CUR.seg
        calls = seg.calls
        n = 0
    template, types = [], []
    ext, ext_ids = seg.ext, seg.ext_ids
    for v in dyn:   # (the common operands inline; _operand for the rest)
        t = type(v)
        if t is _ARRAY:
            # an array passed twice is one operand of the program; not so for scalars, which
            # are shared objects when their values are equal (see registry._device_scalar),
            # so that a segment's structure does not depend on values
            shape = v.shape
            i = ext_ids.get(id(v)) if shape else None
            if i is None or ext[i] is not v:
                i = len(ext)
                ext.append(v)
                if shape:
                    ext_ids[id(v)] = i
            template.append((_X, i))
            types.append((shape, v.dtype, v.weak_type))
        elif t is Pending and v.seg is seg and v.value is None:
            template.append((_P, v.call, v.leaf))
            types.append(v.tkey)
        else:
            _operand(seg, v, template, types)
    types = tuple(types)
    kkey = _KKEYS.get(k)
    if kkey is None:
        if len(_KKEYS) > 8192:
            _KKEYS.clear()
        kkey = _KKEYS[k] = _kernel_key(k)
    hit = _AVALS.get((kkey, types))
    if hit is None:
        hit = _abstract(k, kkey, types, dyn)
    tree, leaves, single = hit
    outs = []
    for j, (shape, dtype, tkey) in enumerate(leaves):
        p = _new(Pending)
        p.shape = shape
        p.dtype = dtype
        p.tkey = tkey
        p.seg = seg
        p.call = n
        p.leaf = j
        p.value = None
        p.owners = None
        outs.append(p)
    template = tuple(template)
    calls.append((k, template, tree))
    seg.sig.append((kkey, template, types))
    seg.outs.append(outs)
    return outs[0] if single else jax.tree.unflatten(tree, outs)


def _abstract(k, kkey, types, dyn):
    """(output tree, each leaf's (shape, dtype, type key), single leaf) of kernel `k` on
    operands `dyn` of types `types`, from its abstract evaluation (cached)."""
    if len(_AVALS) > 8192:
        _AVALS.clear()
    args = [_abstract_operand(v) for v in dyn]
    got = programs.output_types(k, args)   # the executable the call will use
    if got is None:
        out = jax.eval_shape(k, *args)
        leaves, tree = jax.tree.flatten(out)
        got = tree, [(a.shape, a.dtype, a.weak_type) for a in leaves]
    tree, leaves = got
    hit = _AVALS[(kkey, types)] = (
        tree, tuple((shape, dtype, (shape, dtype, weak)) for shape, dtype, weak in leaves),
        tree.num_leaves == 1 and tree.num_nodes == 1)
    return hit


def _abstract_operand(v):
    t = type(v)
    if t is Pending:
        if v.value is not None:
            return v.value
        shape, dtype, weak = v.tkey
        return jax.ShapeDtypeStruct(shape, dtype, weak_type=weak)
    if t is tuple or t is list:
        return tuple(_abstract_operand(x) for x in v)
    return v


def force(p):
    """The array of `p` (a Pending or an array), running its segment if it has not run."""
    if type(p) is not Pending:
        return p
    if p.value is None:
        flush(p.seg)
        if p.value is None:
            raise RuntimeError("torchlike: the fused eager segment computing this value failed "
                               "to run (see the error it raised before)")
    return p.value


def resolve(dyn):
    """`dyn` with every Pending replaced by its array (a flush when one has not run)."""
    out = None
    for i, v in enumerate(dyn):
        t = type(v)
        if t is Pending:
            v = force(v)
        elif (t is tuple or t is list) and any(type(x) is Pending for x in v):
            v = t(force(x) for x in v)
        else:
            continue
        if out is None:
            out = list(dyn)
        out[i] = v
    return dyn if out is None else out


def resolve_tree(x):
    """`x` (an operand, or a list or tuple of them, nested) with Pendings as arrays."""
    t = type(x)
    if t is Pending:
        return force(x)
    if t is list or t is tuple:
        return t(resolve_tree(v) for v in x)
    return x


def read(t):
    """Tensor `t`'s elements as an operand of a launch: the buffer itself (perhaps Pending)
    for a tensor in its storage's natural layout, a recorded strided read of it for a view,
    else its read (a NumPy-shared or padded storage)."""
    st = t._st
    d = st._raw
    if d is not None:
        if t._natural:
            return d
        if ON[0]:
            return launch(_layout.reader(t._size, t._stride), (d, t._offset))
    return t._value()


def own(p, storage):
    """Note that `storage` holds Pending `p` (its buffer becomes `p.value` at the flush)."""
    if p.owners is None:
        p.owners = [_weak(storage)]
    else:
        p.owners.append(_weak(storage))


def current():
    """This thread's segment."""
    return _CUR.seg


def flush(seg=None):
    """Run segment `seg` (this thread's when None; see the module docstring)."""
    if seg is None:
        seg = _CUR.seg
    if not seg.calls:
        return
    if seg is _CUR.seg:
        _CUR.seg = Segment()
    try:
        if _CTX.trace.__class__ is _EVAL:
            _run(seg)
        else:   # read inside a JAX trace: the values are concrete, computed now
            with jax.ensure_compile_time_eval():
                _run(seg)
    finally:
        seg.calls = []
        seg.sig = []
        seg.outs = []
        seg.ext = []
        seg.ext_ids = {}


def _run(seg):
    STATS["flushes"] += 1
    STATS["calls"] += len(seg.calls)
    live = []
    for n, outs in enumerate(seg.outs):
        for j in range(len(outs)):
            # referenced by `outs` and getrefcount's argument only: nobody needs it
            if _refs(outs[j]) > 2:
                live.append((n, j))
    live = tuple(live)
    if not live:
        return
    key = (tuple(seg.sig), live)
    entry = _SEEN.get(key)
    if entry is None:
        if len(_SEEN) > 4096:
            _SEEN.clear()
        _SEEN[key] = 1
        values = _stepwise(seg, live)
        STATS["stepwise"] += 1
    else:
        if entry == 1:
            entry = _SEEN[key] = _program(seg, key)
            STATS["programs"] += 1
        else:
            STATS["replays"] += 1
        values = entry(*seg.ext)
    for (n, j), v in zip(live, values):
        p = seg.outs[n][j]
        p.value = v
        if p.owners:
            for ref in p.owners:
                st = ref()
                if st is not None and st._raw is p:
                    st._raw = v
            p.owners = None


def _run_calls(calls, ext, call):
    """Every call's output leaves, operands taken from `ext` and earlier outputs; `call`
    invokes a kernel."""
    results = []

    def operand(t):
        if t is None:
            return None
        if not t or type(t[0]) is not int:
            return tuple(operand(x) for x in t)
        if t[0] == _X:
            return ext[t[1]]
        return results[t[1]][t[2]]

    for k, template, tree in calls:
        out = call(k, [operand(t) for t in template])
        results.append(jax.tree.leaves(out))
    return results


def _stepwise(seg, live):
    results = _run_calls(seg.calls, seg.ext, lambda k, args: k(*args))
    return [results[n][j] for n, j in live]


def _program(seg, key):
    calls = tuple(seg.calls)

    def segment(*ext):
        results = _run_calls(calls, ext, lambda k, args: k(*args))
        return [results[n][j] for n, j in key[1]]

    segment.__name__ = "fused_eager_segment"
    return programs.jit(segment, ("torchlike.lazy.segment",) + key,
                        **xla_options.whole_program(len(calls)))
