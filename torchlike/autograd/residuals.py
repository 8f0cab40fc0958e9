"""Saved residuals: a recorded composite kernel does not run its forward again in its backward.

A node's backward is the vjp of its kernel (see `graph.JaxNode`). Traced from the operands alone,
that vjp computes the forward again to get what it needs (an attention's probabilities, a norm's
statistics, a recurrent layer's every step), and XLA cannot share that work across programs. So
a kernel called under autograd runs as `forward(fn, diff)`: its result and JAX's residuals, the
values its pullback closes over (PyTorch's nodes save such tensors too); the node keeps them, and
its backward, inlined into a fused backward or run on its own, rebuilds the pullback from them
(`vjp`): the forward is traced again for the pullback's structure only, and XLA drops the
computation whose results go unused. Residuals that are operands themselves are not returned
(the backward takes them from the operands). Off with `TORCHLIKE_SAVED_RESIDUALS=0`.
"""
import os

import jax

from .._core import programs

ENABLED = [os.environ.get("TORCHLIKE_SAVED_RESIDUALS", "1").strip().lower() not in
           ("0", "off", "false", "no")]


def pick(dyn, i):
    """Operand `i` of `dyn`; `(i, j)` is element j of a tensor-list operand."""
    return dyn[i[0]][i[1]] if type(i) is tuple else dyn[i]


def substitute(dyn, diff, xs):
    """`dyn` with the operands at `diff` replaced by `xs`."""
    full = list(dyn)
    for i, x in zip(diff, xs):
        if type(i) is tuple:
            lst = list(full[i[0]])
            lst[i[1]] = x
            full[i[0]] = tuple(lst)
        else:
            full[i] = x
    return full


def applies(fn):
    """Whether calls of `fn` save residuals: a jitted kernel (one that runs eagerly may need
    concrete values), with the switch on."""
    return ENABLED[0] and (programs.program_of(fn) is not None or
                           hasattr(fn, "lower") and hasattr(fn, "trace"))


def _operand_ids(dyn):
    ids = set()
    for d in dyn:
        if isinstance(d, (tuple, list)):
            ids.update(id(x) for x in d)
        else:
            ids.add(id(d))
    return ids


def _traced_vjp(fn, dyn, diff):
    def f(*xs):
        return fn(*substitute(dyn, diff, xs))
    return jax.vjp(f, *[pick(dyn, i) for i in diff])


@programs.factory
def forward(fn, diff):
    """`fn`'s program for calls recorded by autograd: `(fn(*dyn), residuals)`."""
    def fwd(*dyn):
        out, pullback = _traced_vjp(fn, dyn, diff)
        ids = _operand_ids(dyn)
        return out, [r for r in jax.tree.leaves(pullback) if id(r) not in ids]
    fwd.__name__ = getattr(fn, "__name__", "kernel")
    return fwd


_PROGRAMS = {}


def forward_program(fn, diff):
    """`forward(fn, diff)` as a jitted program (what fused eager records, see _core/lazy)."""
    prog = _PROGRAMS.get((fn, diff))
    if prog is None:
        if len(_PROGRAMS) > 4096:
            _PROGRAMS.clear()
        own = programs.program_of(fn)   # its key names it across processes
        prog = _PROGRAMS[(fn, diff)] = programs.jit(
            forward(fn, diff), ("residuals.forward", fn if own is None else own.key, diff))
    return prog


def run(fn, dyn, tracked):
    """`(fn(*dyn), residuals or None)`: a call with operands `tracked` ((dyn index, tensor)
    pairs) that require grad runs `forward`, when `fn` `applies`."""
    if tracked and applies(fn):
        try:
            return forward(fn, tuple(i for i, _ in tracked))(*dyn)
        except Exception:  # noqa: BLE001 - the plain call raises the kernel's own error
            pass
    return fn(*dyn), None


def vjp(fn, dyn, diff, res):
    """`(fn(*dyn), pullback)` inside a trace, the pullback over the saved residuals `res` where
    they fit the trace's own (None: the forward is computed again)."""
    out, pullback = _traced_vjp(fn, dyn, diff)
    if res is None:
        return out, pullback
    leaves, tree = jax.tree.flatten(pullback)
    ids = _operand_ids(dyn)
    own = [r for r in leaves if id(r) not in ids]
    if len(own) != len(res) or any(getattr(a, "shape", None) != getattr(b, "shape", None) or
                                   getattr(a, "dtype", None) != getattr(b, "dtype", None)
                                   for a, b in zip(own, res)):
        return out, pullback
    saved = iter(res)
    return out, jax.tree.unflatten(tree, [r if id(r) in ids else next(saved) for r in leaves])
