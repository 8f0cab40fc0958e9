"""Whole-graph backward: a training loop builds the same graph every step, so the backward pass
of a graph seen before runs as ONE jitted XLA program (all node vjps fused), keyed by the graph's
structure (each node's kernel, differentiated operands, edges). The first sighting of a structure
runs node by node (no big compile for one-off graphs); graphs with hooks, custom Functions,
CopySlices, create_graph or autograd.grad go node by node too."""
import jax

from .graph import AccumulateGrad, JaxNode, _make_vjp

_SEEN = {}
_PROGRAMS = {}
_MAX_SEEN = 4096


def plan(roots):
    """(structure key, nodes in processing order, leaf AccumulateGrad nodes) or None when the
    graph has something only the node-by-node engine handles. The order is the reverse DFS
    postorder from the roots (a topological order, deterministic for a given structure)."""
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
                    index[nxt] = None
                    if type(nxt) is AccumulateGrad:
                        var = nxt.variable
                        meta = var._meta if var is not None else None
                        if var is None or (meta is not None and (meta.hooks or
                                                                 meta.post_acc_hooks)):
                            return None
                        index[nxt] = ("leaf", len(leaves))
                        leaves.append(nxt)
                        continue
                    if (not isinstance(nxt, JaxNode) or nxt._pre_hooks or nxt._hooks or
                            nxt._freed):
                        return None
                    stack.append((nxt, iter(nxt.next_functions)))
                    break
            else:
                stack.pop()
                post.append(node)
    order = post[::-1]
    for i, node in enumerate(order):
        if not isinstance(node, JaxNode) or node._pre_hooks or node._hooks or node._freed:
            return None
        index[node] = ("node", i)
    specs = tuple((node._fn, node._diff, node._slots, node._out_diff, node._single,
                   len(node._outs), tuple(index[nxt] + (nr,) if nxt is not None else None
                                          for nxt, nr in node.next_functions))
                  for node in order)
    root_spec = tuple(index[n] + (nr,) for n, nr in roots)
    return (specs, root_spec, len(leaves)), order, leaves


def run(key, order, root_cts):
    """Leaf gradients (arrays or None) of the planned graph, through the cached program."""
    prog = _PROGRAMS.get(key)
    if prog is None:
        prog = _PROGRAMS[key] = jax.jit(_program(key))
    return prog([n._dyn for n in order], root_cts)


def seen_before(key):
    n = _SEEN.get(key, 0)
    if len(_SEEN) > _MAX_SEEN:
        _SEEN.clear()
    _SEEN[key] = n + 1
    return n >= 1


def _program(key):
    specs, root_spec, n_leaves = key

    def program(dyns, root_cts):
        bufs = [[None] * spec[5] for spec in specs]
        leaf = [None] * n_leaves

        def add(target, g):
            kind, i, nr = target
            if kind == "leaf":
                leaf[i] = g if leaf[i] is None else leaf[i] + g
            else:
                b = bufs[i]
                b[nr] = g if b[nr] is None else b[nr] + g

        for target, ct in zip(root_spec, root_cts):
            add(target, ct)
        for i, (fn, diff, slots, out_diff, single, n_out, edges) in enumerate(specs):
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
    return program
