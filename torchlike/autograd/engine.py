"""The backward engine: walks the recorded graph from the roots in dependency order, sums
gradients per node output, runs hooks, accumulates into leaves' `.grad` (or captures the
gradients `autograd.grad` asked for), and frees saved values unless `retain_graph`."""
import heapq

from .._core import grad_state, lazy
from .._core.tracing import tracing
from .._core.tensor import Tensor, wrap
from .anomaly_mode import _STATE as _ANOMALY, check_nan, report
from .graph import AccumulateGrad, accumulate_node, edge_of


def _as_tensor_grads(grads, like=None):
    """Raw gradient arrays from a node, as tensors on the arrays' devices."""
    from .._core.device import gpus
    out = []
    for g in grads:
        if g is None or isinstance(g, Tensor):
            out.append(g)
        elif gpus():
            from .._ops.interop import _torch_device
            out.append(wrap(g, _torch_device(g)))
        else:
            out.append(wrap(g))
    return out


def _num_outputs(node):
    outs = getattr(node, "_outs", None)
    if outs is not None:
        return len(outs)
    return getattr(node, "_num_outputs", 1)


_ONES = {}   # (shape, dtype, device) -> an immutable array of ones: the implicit root gradient


def _implicit_grad(t):
    if tracing():                   # a cached concrete array must not enter a trace
        from .. import ones_like
        return ones_like(t)
    key = (t._size, t.dtype, t.device)
    arr = _ONES.get(key)
    if arr is None:
        from .. import ones_like
        arr = _ONES[key] = ones_like(t)._value()
    return wrap(arr, t.device, t.dtype)


def _root_grads(tensors, grad_tensors):
    out = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not t.dtype.is_floating_point and not t.dtype.is_complex:
                raise RuntimeError(f"grad can be implicitly created only for real scalar "
                                   f"outputs but got {t.dtype}")
            g = _implicit_grad(t)
        elif not isinstance(g, Tensor):
            from .. import tensor as _tensor
            g = _tensor(g, dtype=t.dtype)
        if g._size != t._size:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{g.shape} and output[{i}] has a shape of {t.shape}.")
        out.append(g)
    return out


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=None,
                 accumulate=True, allow_unused=False):
    """Run backward from `tensors` with `grad_tensors`. With `accumulate`, leaves' `.grad`
    accumulate (only those in `inputs` when given); otherwise the gradients of `inputs` are
    returned (None where unreached)."""
    roots = []
    for i, t in enumerate(tensors):
        node, nr = edge_of(t)
        if node is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               f"a grad_fn")
        roots.append((node, nr))
    grads = _root_grads(tensors, grad_tensors)

    anomaly = _ANOMALY["enabled"]
    if inputs is None and accumulate and not create_graph and not anomaly and \
            _fused_backward(roots, grads, retain_graph):
        return None
    want = None
    captured = None
    if inputs is not None:
        want = {}
        for j, t in enumerate(inputs):
            if not t.requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            node, nr = edge_of(t)
            want.setdefault((node, nr), []).append(j)
        captured = [None] * len(inputs)

    # dependency counts over the reachable graph
    deps = {}
    seen = set()
    stack = [n for n, _ in roots]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
                if nxt not in seen:
                    stack.append(nxt)

    buffers = {}
    for (node, nr), g in zip(roots, grads):
        buf = buffers.setdefault(node, [None] * _num_outputs(node))
        buf[nr] = g if buf[nr] is None else buf[nr] + g

    prev = grad_state.ENABLED[0]
    grad_state.ENABLED[0] = bool(create_graph)
    try:
        ready = [(-n._seq, id(n), n) for n in {n for n, _ in roots} if deps.get(n, 0) == 0]
        heapq.heapify(ready)
        while ready:
            _, _, node = heapq.heappop(ready)
            buf = buffers.pop(node, None) or [None] * _num_outputs(node)
            if node._pre_hooks:
                for hook in list(node._pre_hooks.values()):
                    r = hook(tuple(buf))
                    if r is not None:
                        buf = list(r)
            if want is not None:
                for nr, g in enumerate(buf):
                    for j in want.get((node, nr), ()):
                        captured[j] = g if captured[j] is None or g is None else captured[j] + g
            if isinstance(node, AccumulateGrad):
                if accumulate and (want is None or (node, 0) in want):
                    _accumulate(node, buf[0], create_graph)
                continue
            if anomaly:
                try:
                    out = _as_tensor_grads(node.apply(buf, create_graph))
                    check_nan(node, out)
                except Exception:
                    report(node)
                    raise
            else:
                out = node.apply(buf, create_graph)
                out = _as_tensor_grads(out)
            if node._hooks:
                for hook in list(node._hooks.values()):
                    r = hook(tuple(out), tuple(buf))
                    if r is not None:
                        out = list(r)
            if not retain_graph:
                node._release()
            for (nxt, nr), g in zip(node.next_functions, out):
                if nxt is None:
                    continue
                if g is not None:
                    b = buffers.setdefault(nxt, [None] * _num_outputs(nxt))
                    b[nr] = g if b[nr] is None else b[nr] + g
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(ready, (-nxt._seq, id(nxt), nxt))
    finally:
        grad_state.ENABLED[0] = prev
    if inputs is not None and not accumulate:
        for j, g in enumerate(captured):
            if g is None and not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
        return captured
    return None


def _accumulate(node, g, create_graph):
    var = node.variable
    if var is None or g is None:
        return
    meta = var._meta
    if meta is not None and meta.hooks:
        for hook in list(meta.hooks.values()):
            r = hook(g)
            if r is not None:
                g = r
    if var._grad is None:
        # a fresh storage (sharing the immutable buffer): later in-place accumulation must not
        # write into a tensor the caller still holds (e.g. `backward(gradient=g)`)
        var._grad = g if create_graph else wrap(
            lazy.read(g) if lazy.ON[0] else g._value(), g.device, g.dtype)
    elif create_graph:
        var._grad = var._grad + g
    else:
        var._grad.add_(g)
    if meta is not None and meta.post_acc_hooks:
        for hook in list(meta.post_acc_hooks.values()):
            hook(var)


def _fused_backward(roots, grads, retain_graph):
    """Run a graph seen before as one jitted program (see `fused`); False to go node by node."""
    from . import fused
    planned = fused.plan(roots)
    if planned is None:
        return False
    key, order, leaves = planned
    root_cts = [lazy.read(g) if lazy.ON[0] else g._value() for g in grads]
    program = fused.program_for(key, order, root_cts)
    if program is None:
        return False
    for node in order:
        node._check_saved()
    leaf_grads = fused.run(program, order, root_cts)
    for node, g in zip(leaves, leaf_grads):
        if g is not None:
            var = node.variable
            _accumulate(node, wrap(g, var.device, var.dtype) if var is not None else None, False)
    if not retain_graph:
        for node in order:  # JaxNode._release, inlined: this loop runs every training step
            node._freed = True
            node._dyn = None
            node._res = None
            node._inputs = ()
            node._packed = None
    return True
