"""Whole-graph backward: a training loop builds the same graph every step, so the backward pass
of a graph seen before runs as ONE jitted XLA program (all node vjps fused), keyed by the graph's
structure (each node's kernel, differentiated operands, edges). The first sighting of a structure
runs node by node (no big compile for one-off graphs); graphs with hooks, custom Functions,
CopySlices, create_graph or autograd.grad go node by node too."""
import jax

from .. import compile_log
from .graph import AccumulateGrad, JaxNode, _make_vjp

_ENTRIES = {}     # structure key -> [jitted program, or None until its second sighting]
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
                    if (type(nxt) is not JaxNode and not isinstance(nxt, JaxNode)) or \
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
        if not isinstance(node, JaxNode) or node._pre_hooks or node._hooks or node._freed:
            return None
        index[node] = i
    specs = tuple([(node._sig, tuple([(index[nxt], nr) if nxt is not None else None
                                      for nxt, nr in node.next_functions]))
                   for node in post])
    root_spec = tuple([(index[n], nr) for n, nr in roots])
    return (specs, root_spec, len(leaves)), post, leaves


def program_for(key):
    """The jitted backward program of structure `key` if it was seen before (compiled on its
    second sighting), else None; counts the sighting. One dict lookup: hashing a key costs."""
    entry = _ENTRIES.get(key)
    if entry is None:
        if len(_ENTRIES) > _MAX_SEEN:   # forget one-off structures, keep compiled programs
            for k in [k for k, e in _ENTRIES.items() if e[0] is None]:
                del _ENTRIES[k]
        _ENTRIES[key] = [None]
        return None
    if entry[0] is None:
        entry[0] = jax.jit(_program(key))
    return entry[0]


def run(program, order, root_cts):
    """Leaf gradients (arrays or None) of the planned graph, through its program."""
    return program([n._dyn for n in order], root_cts)


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
                i = ~i
                leaf[i] = g if leaf[i] is None else leaf[i] + g
            else:
                b = bufs[i]
                b[nr] = g if b[nr] is None else b[nr] + g

        for target, ct in zip(root_spec, root_cts):
            add(target, ct)
        for i, ((fn, diff, slots, out_diff, single, n_out), edges) in enumerate(specs):
            cts = bufs[i]
            present = tuple(c is not None for c in cts)
            if not any(present):
                continue
            grads = _make_vjp(fn, diff, present, out_diff, single)(
                dyns[i], tuple(c for c in cts if c is not None))
            if slots is not None:
                placed = [None] * slots[0]
                for pos, g in zip(slots[1], grads):
                    placed[pos] = g
                grads = placed
            for edge, g in zip(edges, grads):
                if edge is not None and g is not None:
                    add(edge, g)
        return leaf
    program.__name__ = "fused_backward"
    return program
