"""In-place ops inside a graph, as PyTorch: leaves that require grad refuse them, a non-leaf's
history is rebased onto the op's node, and an in-place op on a view rebases the view's base
through a CopySlices node (the base's gradient outside the view region passes through; inside
it, through the op)."""

import jax

from .._core import layout
from .._core.tensor import Tensor
from .function import _read, record, record_view
from .graph import JaxNode, Node, edge_of, node_class, TensorMeta
from .._core import programs


def check_inplace_allowed(t):
    """PyTorch's errors for in-place ops on leaves that require grad (and their views)."""
    if t.grad_fn is None and t._requires_grad:
        if t._base is not None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    base = t._base
    if base is not None and base.grad_fn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def rebase_history(self, name, fn, dyn, tracked, res):
    """Write `res` into `self` and make the op node (`fn` over `dyn`) its new history."""
    base = self._base
    if base is None or base is self:
        self._assign(res)
        return record(name, fn, dyn, tracked, [self], True, "none", inplace=True)
    # a view: the op node sees the view's old value; the base's history becomes CopySlices
    op_node = node_class(name)(fn, dyn, tuple(i for i, _ in tracked),
                               [t for _, t in tracked],
                               [], [(self._size, self.dtype.np, True)], True)
    self._assign(res)
    copy_slices(base, self, op_node)
    return op_node


class CopySlices(Node):
    """Mirrors PyTorch's CopySlices: gradient of a base after an in-place op on a view of it."""

    __slots__ = ("_op", "_size", "_stride", "_offset", "_base_shape", "_inputs", "_num_outputs")

    def apply(self, grads, create_graph):
        g = grads[0]
        if g is None:
            return [None] * len(self.next_functions)
        ct = g._value()
        ct_view = _region_read(self._size, self._stride)(ct, self._offset)
        from .engine import _as_tensor_grads
        from .._core.tensor import wrap
        op_grads = self._op.apply([wrap(ct_view, g.device)], create_graph)
        op_grads = _as_tensor_grads(op_grads)
        first = op_grads[0] if op_grads and self._op._diff and self._op._diff[0] == 0 else None
        rest = op_grads[1:] if first is not None else op_grads
        if first is None:
            new_ct = _region_write(self._size, self._stride)(ct, self._offset, jax.numpy.zeros(
                self._size, ct.dtype))
        else:
            new_ct = _region_write(self._size, self._stride)(ct, self._offset, first._value())
        return [wrap(new_ct, g.device)] + list(rest)

    def _release(self):
        self._freed = True
        self._op._release()


@programs.factory
def _region_read(size, stride):
    return lambda ct, off: layout.read_impl(ct, off, size, stride)


@programs.factory
def _region_write(size, stride):
    return lambda ct, off, v: layout.write_impl(ct, off, v, size, stride)


def copy_slices(base, view, op_node):
    if not layout.is_contiguous(base._size, base._stride):
        raise NotImplementedError("torchlike: an in-place op on a view of a non-contiguous "
                                  "tensor that is part of an autograd graph is not available yet")
    diff = op_node._diff
    # the op's first input is the view itself: its gradient goes into the region
    other = [e for i, e in zip(diff, op_node.next_functions) if i != 0]
    node = CopySlices.__new__(CopySlices)
    Node.__init__(node, (edge_of(base),) + tuple(other))
    node._op = op_node
    node._size = view._size
    node._stride = view._stride
    node._offset = view._offset - base._offset
    node._base_shape = base._size
    node._inputs = [base] + [t for i, t in zip(diff, op_node._inputs) if i != 0]
    node._num_outputs = 1
    base.grad_fn = node
    base._requires_grad = True
    meta = base._meta
    if meta is None:
        meta = base._meta = TensorMeta()
    meta.output_nr = 0
    # the view's own history is now "a view of the rebased base"
    view.grad_fn = None
    view._requires_grad = False
    record_view(base, view, "AsStridedBackward0")


def inplace_apply(self, name, fn, operands, saved=(), save_result=False):
    """An in-place update `self <- fn(self, *operands)` (a JAX function of their values) that
    keeps autograd's history: used by copy_, fill_, zero_ and the indexing writes. `saved` lists
    the operand tensors PyTorch's formula keeps (checked against later in-place changes), and
    `save_result` adds `self` after the update."""
    from .._core import grad_state
    check_inplace_allowed(self)
    dyn = [self._value()] + [o._value() if isinstance(o, Tensor) else o for o in operands]
    res = fn(*dyn)
    if grad_state.FORWARD_AD[0]:
        from . import forward_ad
        forward_ad.after_inplace(fn, [self] + list(operands), dyn)
    tracked = []
    if grad_state.ENABLED[0]:
        if self._requires_grad:
            tracked.append((0, self))
        tracked.extend((i + 1, o) for i, o in enumerate(operands)
                       if isinstance(o, Tensor) and o._requires_grad)
    if not tracked:
        self._assign(res)
        return self
    node = rebase_history(self, name, fn, dyn, tracked, res)
    if saved or save_result:
        save_for_check(node, saved, self if save_result else None)
    return self


def save_for_check(node, tensors, result=None, names=None):
    """Register `tensors` (and output `result`) as saved by `node`, so that backward raises
    PyTorch's version-counter error if one was modified in place since; `names`: PyTorch's
    (`grad_fn._saved_<name>`)."""
    from .function import _owner
    names = names or (None,) * len(tensors)
    extra = [(t, t._vc[0], _owner(t), n) for t, n in zip(tensors, names)
             if isinstance(t, Tensor)]
    if result is not None:
        extra.append((result, result._vc[0], (node.name(), 0), None))
    node._saved = list(node._saved or ()) + extra
