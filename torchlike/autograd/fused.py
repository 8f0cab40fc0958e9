"""Whole-graph backward: a training loop builds the same graph every step, so the backward pass
of a graph seen before runs as ONE jitted XLA program (all node vjps fused), keyed by the graph's
structure (each node's kernel, differentiated operands, edges); a graph of more than MAX_NODES
runs as a chain of segment programs, so compile time stays bounded. The first sighting of a structure
runs node by node (no big compile for one-off graphs), unless the same graph was seen before at
other shapes (a training loop whose batch or sequence sizes change: the node vjps at the new
shapes would be compiled for nothing); graphs with hooks, custom Functions, CopySlices,
create_graph or autograd.grad go node by node too.

A program compiled on a structure's second sighting is compiled in a background thread (its
node vjps are compiled by then), and the backward goes on node by node until it is ready; off
with `TORCHLIKE_BACKGROUND_COMPILE=0`. `compile_log.settle()` (called by its counts and
records) waits for those compiles."""
import atexit
import os
import threading

import jax
import numpy as np

from .. import compile_log
from .._core import buckets, lazy, programs, xla_options
from .graph import AccumulateGrad, JaxNode, _make_vjp

BACKGROUND = [os.environ.get("TORCHLIKE_BACKGROUND_COMPILE", "1").strip().lower() not in
              ("0", "off", "false", "no")]
_ENTRIES = {}     # structure key -> [program or None until compiled, its compile thread]
_RUNNING = []     # compile threads started
_FAMILIES = {}    # structures with their kernels by name only (shape-free) seen -> True
_MAX_SEEN = 4096


def plan(roots):
    """(structure key, nodes in processing order, leaf AccumulateGrad nodes) or None when the
    graph has something only the node-by-node engine handles. The order is the reverse DFS
    postorder from the roots (a topological order, deterministic for a given structure). In the
    key, an edge is (i, output_nr) to node i of the order, or (~j, 0) to leaf j."""
    post = []
    leaves = []
    index = {}
    for root, _ in roots:
        if root in index:
            continue
        stack = [(root, iter(root.next_functions))]
        index[root] = None
        while stack:
            node, it = stack[-1]
            for nxt, _ in it:
                if nxt is not None and nxt not in index:
                    if type(nxt) is AccumulateGrad:
                        var = nxt.variable
                        meta = var._meta if var is not None else None
                        if var is None or (meta is not None and (meta.hooks or
                                                                 meta.post_acc_hooks)):
                            return None
                        index[nxt] = ~len(leaves)
                        leaves.append(nxt)
                        continue
                    if (type(nxt) is not JaxNode and not _fusable(nxt)) or \
                            nxt._pre_hooks or nxt._hooks or nxt._freed:
                        return None
                    index[nxt] = None
                    stack.append((nxt, iter(nxt.next_functions)))
                    break
            else:
                stack.pop()
                post.append(node)
    post.reverse()
    for i, node in enumerate(post):
        if (type(node) is not JaxNode and not _fusable(node)) or node._pre_hooks or \
                node._hooks or node._freed:
            return None
        index[node] = i
    specs = tuple([(node._sig, tuple([(index[nxt], nr) if nxt is not None else None
                                      for nxt, nr in node.next_functions]))
                   for node in post])
    root_spec = tuple([(index[n], nr) for n, nr in roots])
    return (specs, root_spec, len(leaves)), post, leaves


def _fusable(node):
    """A JaxNode whose backward is its kernel's vjp (a subclass with its own `apply`, one that
    raises PyTorch's 'not implemented' say, goes node by node)."""
    return isinstance(node, JaxNode) and type(node).apply is JaxNode.apply


def program_for(key, order, root_cts):
    """The jitted backward program of structure `key` (its nodes `order`, the roots'
    cotangents `root_cts`) if it was seen before and is compiled (on its second sighting, in
    the background; on its first, when its family was seen at other shapes), else None;
    counts the sighting. One dict lookup on the warm path: hashing a key costs."""
    entry = _ENTRIES.get(key)
    if entry is None:
        if len(_ENTRIES) > _MAX_SEEN:   # forget one-off structures, keep compiled programs
            for k in [k for k, e in _ENTRIES.items() if e[0] is None]:
                del _ENTRIES[k]
            _FAMILIES.clear()
        entry = _ENTRIES[key] = [None, None]
        family = _family(key)
        if family not in _FAMILIES:
            _FAMILIES[family] = True
            return None
        first = True
    else:
        first = False
    if entry[0] is None:
        if len(key[0]) > MAX_NODES:
            entry[0] = _Chain(key)
        else:
            program = programs.jit(_program(key), ("fused", key),
                                   **xla_options.whole_program(len(key[0])))
            # (under fused eager the program joins a segment whose structure it changes: made
            # now, so that a loop's segments settle at a fixed step)
            if not first and BACKGROUND[0] and not lazy.ON[0] and \
                    _compile_ahead(entry, program, order, root_cts):
                return None
            entry[0] = program
    if entry[1] is not None:
        if entry[1].is_alive():
            return None
        entry[1] = None
    return entry[0]


def _compile_ahead(entry, program, order, root_cts):
    """Starts compiling `program` for the operand types of this call in a background thread
    (where programs are on); True when started."""
    if programs.program_of(program) is None or not programs.enabled():
        return False
    operands = jax.tree.map(_operand_type, ([(n._dyn_, n._res_) for n in order], root_cts))

    def work():
        try:
            programs.compile_ahead(program, *operands)
        except Exception:  # noqa: BLE001 - its first call compiles it, raising what it raises
            pass
    thread = threading.Thread(target=work, name="torchlike fused backward compile", daemon=True)
    entry[0], entry[1] = program, thread
    _RUNNING.append(thread)
    thread.start()
    return True


def _operand_type(a):
    if type(a) is lazy.Pending:
        shape, dtype, weak = a.tkey
        return jax.ShapeDtypeStruct(shape, dtype, weak_type=weak)
    if isinstance(a, (jax.Array, np.ndarray, np.generic)):
        aval = getattr(a, "aval", None)
        return jax.ShapeDtypeStruct(a.shape, a.dtype,
                                    weak_type=bool(aval is not None and aval.weak_type))
    return a


def settle():
    """Waits for the background compiles started so far."""
    while _RUNNING:
        _RUNNING.pop().join()


compile_log._SETTLERS.append(settle)
atexit.register(settle)


def _family(key):
    """`key` with each node's kernel by name: the same graph at other shapes (its kernels are
    other programs there) has the same family."""
    specs, root_spec, n_leaves = key
    return tuple([((getattr(sig[0], "__name__", None),) + sig[1:], edges)
                  for sig, edges in specs]), root_spec, n_leaves


def run(program, order, root_cts):
    """Leaf gradients (arrays or None) of the planned graph, through its program."""
    if type(program) is _Chain:
        return program.run(order, root_cts)
    if lazy.ON[0] and programs.program_of(program) is not None:
        # fused eager: the backward joins the segment that computes its operands
        return lazy.launch(program, ([(n._dyn_, n._res_) for n in order], root_cts))
    return program([(n._dyn, n._res) for n in order], root_cts)


def _run_nodes(specs, saved, bufs, add):
    """The vjps of `specs` in order (inside a trace), each from its node's (operands, residuals)
    in `saved`: each node's summed cotangents in `bufs`, its input gradients handed to
    `add(edge, g)`."""
    for i, ((fn, diff, slots, out_diff, single, n_out, _), edges) in enumerate(specs):
        cts = bufs[i]
        present = tuple(c is not None for c in cts)
        if not any(present):
            continue
        grads = _make_vjp(fn, diff, present, out_diff, single)(
            saved[i][0], tuple(c for c in cts if c is not None), saved[i][1])
        if slots is not None:
            placed = [None] * slots[0]
            for pos, g in zip(slots[1], grads):
                placed[pos] = g
            grads = placed
        for edge, g in zip(edges, grads):
            if edge is not None and g is not None:
                add(edge, g)


def _accumulate_into(store, k, g):
    store[k] = g if store[k] is None else buckets.add_buffers(store[k], g)


def _program(key):
    specs, root_spec, n_leaves = key

    def program(dyns, root_cts):
        compile_log.note("fused_backward", "fused_backward", key,
                         (f"graph of {len(specs)} nodes",), jax.tree.leaves((dyns, root_cts)),
                         ("structure",))
        bufs = [[None] * sig[5] for sig, _ in specs]
        leaf = [None] * n_leaves

        def add(target, g):
            i, nr = target
            if i < 0:
                _accumulate_into(leaf, ~i, g)
            else:
                _accumulate_into(bufs[i], nr, g)

        for target, ct in zip(root_spec, root_cts):
            add(target, ct)
        _run_nodes(specs, dyns, bufs, add)
        return leaf
    program.__name__ = "fused_backward"
    return program


# ---- graphs too large for one program ---------------------------------------------------------
# XLA's compile time grows with the program (about 6.5 ms per node here), so a graph of more than
# MAX_NODES runs as a chain of segment programs. A segment is keyed by its structure relative to
# its first node, and a segment starts where the node that started the previous one recurs
# (after SEGMENT_MIN nodes; at once if it never recurred), so an unrolled loop compiles its
# repeating stretch once however long it runs.

MAX_NODES = 512
SEGMENT_MIN = 128
_SEGMENTS = {}    # relative segment structure -> jitted segment program


class _Segment:
    __slots__ = ("start", "stop", "incoming", "outgoing", "leaves", "program")


def _segments(key):
    """The segment plan of graph `key` (a list of `_Segment`)."""
    specs, root_spec, _ = key
    n = len(specs)
    cuts = [0]
    anchor, recurred = specs[0][0], False
    for i in range(1, n):
        length = i - cuts[-1]
        same = specs[i][0] == anchor
        if length >= MAX_NODES or (length >= SEGMENT_MIN and (same or not recurred)):
            cuts.append(i)
            anchor, recurred = specs[i][0], False
        elif same:
            recurred = True
    cuts.append(n)
    fed = set(t for t in root_spec if t[0] >= 0)   # node inputs fed from outside a segment
    plan = []
    for a, b in zip(cuts, cuts[1:]):
        seg = _Segment()
        seg.start, seg.stop = a, b
        seg.incoming = tuple(sorted(t for t in fed if a <= t[0] < b))
        out, leaves, rel = set(), set(), []
        for sig, edges in specs[a:b]:
            redges = []
            for e in edges:
                if e is None:
                    redges.append(None)
                elif e[0] < 0:
                    leaves.add(~e[0])
                    redges.append(e)
                elif e[0] < b:
                    redges.append((e[0] - a, e[1]))
                else:
                    out.add(e)
                    redges.append((e[0] - a, e[1]))
            rel.append((sig, tuple(redges)))
        fed |= out
        seg.outgoing = tuple(sorted(out))
        seg.leaves = tuple(sorted(leaves))
        skey = (tuple(rel), tuple((i - a, nr) for i, nr in seg.incoming),
                tuple((i - a, nr) for i, nr in seg.outgoing), seg.leaves)
        prog = _SEGMENTS.get(skey)
        if prog is None:
            if len(_SEGMENTS) > _MAX_SEEN:
                _SEGMENTS.clear()
            prog = _SEGMENTS[skey] = programs.jit(_segment_program(skey), ("segment", skey),
                                                      **xla_options.whole_program(len(rel)))
        seg.program = prog
        plan.append(seg)
    return plan


def _segment_program(skey):
    specs, incoming, outgoing, leaves = skey
    n = len(specs)
    out_ix = {t: k for k, t in enumerate(outgoing)}
    leaf_ix = {j: k for k, j in enumerate(leaves)}

    def segment(dyns, cts_in):
        compile_log.note("fused_backward_segment", "fused_backward_segment", skey,
                         (f"segment of {n} nodes",), jax.tree.leaves((dyns, cts_in)),
                         ("structure",))
        bufs = [[None] * sig[5] for sig, _ in specs]
        outs = [None] * len(outgoing)
        leaf = [None] * len(leaves)

        def add(target, g):
            i, nr = target
            if i < 0:
                _accumulate_into(leaf, leaf_ix[~i], g)
            elif i < n:
                _accumulate_into(bufs[i], nr, g)
            else:
                _accumulate_into(outs, out_ix[target], g)

        for (i, nr), ct in zip(incoming, cts_in):
            if ct is not None:
                _accumulate_into(bufs[i], nr, ct)
        _run_nodes(specs, dyns, bufs, add)
        return outs, leaf
    segment.__name__ = "fused_backward_segment"
    return segment


class _Chain:
    """A large graph's backward: its segment programs, run in order."""

    __slots__ = ("key", "plan")

    def __init__(self, key):
        self.key = key
        self.plan = _segments(key)

    def run(self, order, root_cts):
        return _run_chain(self.plan, self.key, order, root_cts)


def _run_chain(plan, key, order, root_cts):
    """Leaf gradients of the planned graph through its chain of segment programs; the
    cotangents that cross a segment boundary are summed between them."""
    _, root_spec, n_leaves = key
    pending = {}
    for t, ct in zip(root_spec, root_cts):
        pending[t] = ct if t not in pending else pending[t] + ct
    leaf = [None] * n_leaves
    for t in root_spec:          # a root that is itself a leaf
        if t[0] < 0:
            _accumulate_into(leaf, ~t[0], pending.pop(t))
    for seg in plan:
        cts_in = [pending.pop(t, None) for t in seg.incoming]
        outs, leaves = seg.program([(n._dyn, n._res) for n in order[seg.start:seg.stop]],
                                   cts_in)
        for t, g in zip(seg.outgoing, outs):
            if g is not None:
                pending[t] = g if t not in pending else buckets.add_buffers(pending[t], g)
        for j, g in zip(seg.leaves, leaves):
            if g is not None:
                _accumulate_into(leaf, j, g)
    return leaf
