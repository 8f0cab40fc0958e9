"""Recording differentiable calls, and `torch.autograd.Function`.

`record(...)` attaches a node to the outputs of a kernel call; `apply_jax(fn, operands)` runs a
JAX function on tensors and records it (used by ops implemented outside the op table, by
create_graph backward passes, and by `Function`)."""
import functools

import jax
import numpy as np

from .._core import grad_state
from .._core import layout as _layout
from .._core.tensor import Tensor, wrap
from .graph import JaxNode, Node, TensorMeta, edge_of, node_class
from .names import node_name, saves

_NONE = ()


def _set_grad_fn(t, node, nr):
    t.grad_fn = node
    t._requires_grad = True
    meta = t._meta
    if meta is None:
        if nr == 0:  # output_nr 0 is implied when a tensor has no meta: no allocation
            return
        meta = t._meta = TensorMeta()
    meta.output_nr = nr


def _differentiable(t):
    return t.dtype.is_floating_point or t.dtype.is_complex


def record(name, fn, dyn, tracked, outputs, single, save_policy="inputs", all_tensors=(),
           inplace=False, slots=None):
    """Attach a node for `fn(*dyn)` to `outputs` (tensors). `tracked` lists (dyn index, tensor)
    for the operands that require grad; `slots` = (number of tensor inputs, position of each
    tracked one) lays out `next_functions` as PyTorch does."""
    diff = tuple(i for i, _ in tracked)
    inputs = [t for _, t in tracked]
    outs = [(o._size, o.dtype.np, _differentiable(o)) for o in outputs]
    node = node_class(name)(fn, dyn, diff, inputs, [], outs, single, slots)
    saved = []
    if save_policy in ("inputs", "both"):
        for t in all_tensors:
            if not (inplace and t is outputs[0]):
                saved.append((t, t._vc[0], _owner(t)))
    for nr, o in enumerate(outputs):
        if outs[nr][2]:
            _set_grad_fn(o, node, nr)
    if save_policy in ("result", "both"):
        for nr, o in enumerate(outputs):
            if outs[nr][2]:
                saved.append((o, o._vc[0], (name, nr, True)))
    node._saved = saved
    return node


def _owner(t):
    if t.grad_fn is None:
        return None
    meta = t._meta
    return (t.grad_fn.name(), meta.output_nr if meta is not None else 0)


def apply_jax(fn, operands, name=None, device=None):
    """Run JAX function `fn` on `operands` (tensors are read; anything else passes through) and
    return its outputs as a tuple of tensors, recording a node when an operand requires grad."""
    dyn = []
    tracked = []
    grad_on = grad_state.ENABLED[0]
    for i, o in enumerate(operands):
        if isinstance(o, Tensor):
            dyn.append(o._value())
            if device is None:
                device = o.device
            if grad_on and o.requires_grad:
                tracked.append((i, o))
        elif isinstance(o, (tuple, list)) and any(isinstance(t, Tensor) for t in o):
            arrs = []
            for j, t in enumerate(o):
                arrs.append(t._value() if isinstance(t, Tensor) else t)
                if isinstance(t, Tensor) and grad_on and t.requires_grad:
                    tracked.append(((i, j), t))
            dyn.append(tuple(arrs))
        else:
            dyn.append(o)
    out = fn(*dyn)
    single = not isinstance(out, (tuple, list))
    outs = (out,) if single else tuple(out)
    tensors = tuple(wrap(a, device) if device is not None else wrap(a) for a in outs)
    if tracked:
        record(name or "JaxFunctionBackward0", fn, dyn, tracked, tensors, single, "none")
    return tensors


# ---- views ------------------------------------------------------------------------------------

def _read(size, stride):
    return _READERS_JIT(size, stride)


@functools.lru_cache(maxsize=None)
def _READERS_JIT(size, stride):
    def f(src, offset):
        return _layout.read_impl(src, offset, size, stride)
    return f


@functools.lru_cache(maxsize=None)
def _gather_fn(size):
    def f(src, index):
        return src.reshape(-1)[index]
    return f


def record_view(src, view, name):
    """Give `view` (a view of `src`, which requires grad) its backward node: the view read as a
    function of `src`'s value, so the gradient scatters back into `src`'s shape."""
    if _layout.is_contiguous(src._size, src._stride):
        # `src` is a contiguous run of the storage, so the view's strides hold in its value
        fn = _read(view._size, view._stride)
        dyn = [src._value(), view._offset - src._offset]
    else:
        fn = _gather_fn(view._size)
        dyn = [src._value(), _relative_index(src, view)]
    record(name, fn, dyn, [(0, src)], [view], True, "none")


def _relative_index(src, view):
    """For each element of `view`, its flat index among `src`'s elements (both strided over one
    storage)."""
    src_flat = _offsets(src._size, src._stride, src._offset).reshape(-1)
    order = np.argsort(src_flat, kind="stable")
    view_flat = _offsets(view._size, view._stride, view._offset)
    where = np.searchsorted(src_flat[order], view_flat)
    return order[where].astype(np.int64)


def _offsets(size, stride, offset):
    o = np.full((), offset, dtype=np.int64)
    for n, s in zip(size, stride):
        o = o[..., None] + np.arange(n, dtype=np.int64) * s
    return o


# ---- torch.autograd.Function ------------------------------------------------------------------

class FunctionCtx:
    """Mirrors the `ctx` object given to `Function.forward`/`backward`."""

    def __init__(self):
        self.to_save = ()
        self._saved = None
        self._versions = None
        self.needs_input_grad = ()
        self.materialize_grads = True
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self._freed = False

    def save_for_backward(self, *tensors):
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        if self._freed:
            from .graph import _FREED
            raise RuntimeError(_FREED)
        if self._saved is None:
            return tuple(self.to_save)
        for (t, version), orig in zip(self._versions, self._saved):
            if t is not None and t._vc[0] != version:
                from .graph import _short_type
                dims = ", ".join(str(s) for s in t._size)
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: [{_short_type(t)} [{dims}]] is at version "
                    f"{t._vc[0]}; expected version {version} instead. Hint: enable anomaly "
                    "detection to find the operation that failed to compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True).")
        return tuple(self._saved)

    @property
    def saved_variables(self):
        import warnings
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning)
        return self.saved_tensors


class FunctionNode(Node):
    """The node of a custom `Function`: its backward is the user's `backward(ctx, ...)`."""

    __slots__ = ("_ctx", "_cls", "_outs", "_inputs", "_num_outputs")

    def apply(self, grads, create_graph):
        ctx = self._ctx
        if ctx._freed:
            from .graph import _FREED
            raise RuntimeError(_FREED)
        from .. import zeros
        gs = []
        for g, (size, dtype, device) in zip(grads, self._outs):
            if g is None and ctx.materialize_grads:
                g = zeros(size, dtype=dtype, device=device)
            gs.append(g)
        with grad_state_ctx(create_graph):
            res = self._cls.backward(ctx, *gs)
        if not isinstance(res, tuple):
            res = (res,)
        n = len(self.next_functions)
        if len(res) < n:
            raise RuntimeError(f"function {type(self).__name__} returned an incorrect number of "
                               f"gradients (expected {n}, got {len(res)})")
        for extra in res[n:]:
            if extra is not None:
                raise RuntimeError(f"function {type(self).__name__} returned an incorrect number"
                                   f" of gradients (expected {n}, got {len(res)})")
        out = []
        for (nxt, _), g, inp in zip(self.next_functions, res[:n], self._inputs):
            if nxt is None or g is None:
                out.append(None)
                continue
            if not isinstance(g, Tensor):
                raise TypeError(f"expected Tensor or None as gradient, got {type(g).__name__}")
            if inp is not None and g._size != inp[0]:
                if g.numel() == 1 and not inp[0]:
                    g = g.reshape(())
                else:
                    raise RuntimeError(f"Function {type(self).__name__} returned an invalid "
                                       f"gradient at index {len(out)} - got "
                                       f"{list(g._size)} but expected shape compatible with "
                                       f"{list(inp[0])}")
            out.append(g)
        return out

    def _release(self):
        self._freed = True
        self._ctx._freed = True
        self._ctx._saved = None


class grad_state_ctx:
    def __init__(self, enabled):
        self.enabled = enabled

    def __enter__(self):
        self.prev = grad_state.ENABLED[0]
        grad_state.ENABLED[0] = bool(self.enabled)

    def __exit__(self, *a):
        grad_state.ENABLED[0] = self.prev


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (FunctionNode,), {"__slots__": ()})


class Function(metaclass=_FunctionMeta):
    """Mirrors `torch.autograd.Function`: static `forward(ctx, ...)` / `backward(ctx, ...)`."""

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      f"are all static, so you should invoke them on the class itself. "
                      f"Instantiating an autograd function will raise an error in a future "
                      f"version of PyTorch.", DeprecationWarning, stacklevel=2)

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement either the forward or setup_context "
                                  "method for your custom autograd.Function to use it with "
                                  "autograd.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with autograd.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        grad_on = grad_state.ENABLED[0]
        needs = tuple(isinstance(a, Tensor) and a.requires_grad and grad_on for a in args)
        ctx.needs_input_grad = needs
        with grad_state_ctx(False):
            out = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        if not any(needs):
            return out
        edges = tuple(edge_of(a) if isinstance(a, Tensor) and a.requires_grad else (None, 0)
                      for a in args)
        node = cls._backward_cls.__new__(cls._backward_cls)
        Node.__init__(node, edges)
        node._ctx = ctx
        node._cls = cls
        node._inputs = [(a._size,) if isinstance(a, Tensor) else None for a in args]
        node._outs = [(o._size, o.dtype, o.device) if isinstance(o, Tensor) else ((), None, None)
                      for o in outs]
        node._num_outputs = len(outs)
        nondiff = {id(t) for t in ctx.non_differentiable}
        dirty = {id(t) for t in ctx.dirty_tensors}
        inputs_by_id = {id(a) for a in tensor_args}
        new_outs = []
        for nr, o in enumerate(outs):
            if not isinstance(o, Tensor):
                new_outs.append(o)
                continue
            if id(o) in inputs_by_id and id(o) not in dirty:
                o = o.view_as(o)  # an input returned as-is becomes a view, as in PyTorch
            if id(o) in nondiff or not _differentiable(o):
                new_outs.append(o)
                continue
            if id(o) in dirty:
                o._vc[0] += 1
            _set_grad_fn(o, node, nr)
            new_outs.append(o)
        ctx._saved = tuple(ctx.to_save)
        ctx._versions = [(t, t._vc[0]) if isinstance(t, Tensor) else (None, 0)
                         for t in ctx._saved]
        return new_outs[0] if single else tuple(new_outs)


def once_differentiable(fn):
    """Mirrors `torch.autograd.function.once_differentiable`: backward runs without recording."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_state_ctx(False):
            return fn(ctx, *args)
    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        self.inplace = inplace


NestedIOFunction = Function
