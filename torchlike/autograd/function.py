"""Recording differentiable calls, and `torch.autograd.Function`.

`record(...)` attaches a node to the outputs of a kernel call; `apply_jax(fn, operands)` runs a
JAX function on tensors and records it (used by ops implemented outside the op table, by
create_graph backward passes, and by `Function`)."""
import functools

import jax
import numpy as np

from .._core import device_rules, grad_state, lazy, programs
from .._core.grad_state import FORWARD_AD as _FWAD
from .._core.device import jax_device, transfer
from .._core.tracing import tracing
from .._core import layout as _layout
from .._core.tensor import Tensor, wrap
from .graph import JaxNode, Node, TensorMeta, edge_of, node_class
from . import residuals, saved_tensors

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
           inplace=False, slots=None, res=None, saved_names=None):
    """Attach a node for `fn(*dyn)` to `outputs` (tensors). `tracked` lists (dyn index, tensor)
    for the operands that require grad; `slots` = (number of tensor inputs, position of each
    tracked one) lays out `next_functions` as PyTorch does; `res`: the call's saved residuals
    (see `residuals.run`). An entry of `all_tensors` may be (tensor, owner): a tensor PyTorch
    saves as a view of it, named in the version error after `owner` (node name, output nr);
    `saved_names`: PyTorch's name for each (`_saved_<name>`, see `saved_tensors`)."""
    diff = tuple(i for i, _ in tracked)
    inputs = [t for _, t in tracked]
    outs = [(o._size, o.dtype.np, _differentiable(o)) for o in outputs]
    node = node_class(name)(fn, dyn, diff, inputs, [], outs, single, slots, res)
    saved = []
    if save_policy in ("inputs", "both", "inputs+indices"):
        for k, t in enumerate(all_tensors):
            owner = None
            if type(t) is tuple:
                t, owner = t[0], (*t[1], True)
            if not (inplace and t is outputs[0]):
                saved.append((t, t._vc[0], owner or _owner(t),
                              saved_names[k] if saved_names is not None else None))
    for nr, o in enumerate(outputs):
        if outs[nr][2]:
            _set_grad_fn(o, node, nr)
    if any(o._st._phys is not None and o._natural for o in outputs):
        # computed padded (see _ops/bucketed): the cotangents come in the buffers' shapes
        node._ct_shapes = [tuple(o._st._phys.shape) if o._st._phys is not None and o._natural
                           else o._size for o in outputs]
    if save_policy in ("result", "both"):
        for nr, o in enumerate(outputs):
            if outs[nr][2]:
                saved.append((o, o._vc[0], (name, nr, True),
                              "result" if len(outputs) == 1 else f"result{nr}"))
    elif save_policy in ("indices", "inputs+indices") and len(outputs) > 1:
        o = outputs[1]   # (values, indices): the formula gathers through the indices
        saved.append((o, o._vc[0], None, "indices"))
    node._saved = saved
    if saved_tensors.HOOKS and saved:
        saved_tensors.pack_node(node)
    return node


def _owner(t):
    if t.grad_fn is None:
        return None
    meta = t._meta
    return (t.grad_fn.name(), meta.output_nr if meta is not None else 0)


def apply_jax(fn, operands, name=None, device=None, bucket=None, devices=None, saves=None):
    """Run JAX function `fn` on `operands` (tensors are read; anything else passes through) and
    return its outputs as a tuple of tensors, recording a node when an operand requires grad.
    `saves`: PyTorch's name for each operand its node saves (None for one it does not), so that
    backward checks their versions and `grad_fn._saved_<name>` gives them.
    `bucket`: (index, allowed) when `fn` maps over the dims `allowed(ndim)` of
    `operands[index]` (its results' leading dims), so that it runs on that operand padded to a
    size class (see `_core/buckets.py`), and its results may be. Operands on several devices
    follow PyTorch's rules (`device_rules.check_operands`, `devices` its `spec`)."""
    if not device_rules.agree(operands):
        operands = device_rules.check_operands(operands, devices)
    if bucket is not None and not lazy.ON[0]:
        res = _apply_bucketed(fn, operands, device, bucket, name)
        if res is not None:
            return res
    dyn = []
    tracked = []
    grad_on = grad_state.ENABLED[0]
    lazy_on = lazy.ON[0]
    for i, o in enumerate(operands):
        if isinstance(o, Tensor):
            dyn.append(lazy.read(o) if lazy_on else o._value())
            if device is None:
                device = o.device
            if grad_on and o.requires_grad:
                tracked.append((i, o))
        elif isinstance(o, (tuple, list)) and any(isinstance(t, Tensor) for t in o):
            arrs = []
            for j, t in enumerate(o):
                arrs.append((lazy.read(t) if lazy_on else t._value())
                            if isinstance(t, Tensor) else t)
                if isinstance(t, Tensor) and grad_on and t.requires_grad:
                    tracked.append(((i, j), t))
            dyn.append(tuple(arrs))
        else:
            dyn.append(o)
    if lazy_on:
        out, res = _launch(fn, dyn, tracked)
    else:
        out, res = residuals.run(fn, dyn, tracked)
    single = not isinstance(out, (tuple, list))
    outs = (out,) if single else tuple(out)
    tensors = tuple(wrap(a, device) if device is not None else wrap(a) for a in outs)
    if tracked:
        kept = [] if saves is None else [(o, n) for o, n in zip(operands, saves)
                                         if n is not None and isinstance(o, Tensor)]
        record(name or "JaxFunctionBackward0", fn, dyn, tracked, tensors, single,
               "inputs" if kept else "none", [o for o, _ in kept], res=res,
               saved_names=[n for _, n in kept])
    if _FWAD[0]:
        from . import forward_ad
        forward_ad.after_apply(fn, operands, dyn, tensors)
    return tensors


def _launch(fn, dyn, tracked):
    """`residuals.run` under fused eager: a program's call is recorded (with its residuals
    when it is differentiated), anything else runs now."""
    if programs.program_of(fn) is None:
        return residuals.run(fn, lazy.resolve(dyn), tracked)
    if tracked and residuals.applies(fn):
        try:
            return lazy.launch(residuals.forward_program(fn, tuple(i for i, _ in tracked)), dyn)
        except Exception:  # noqa: BLE001 - the plain call raises the kernel's own error
            pass
    return lazy.launch(fn, dyn), None


def _any_grad(operands):
    return any(isinstance(o, Tensor) and o._requires_grad for o in operands)


def _apply_bucketed(fn, operands, device, bucket, name):
    """`apply_jax` for a `fn` that maps over padded dims (see `apply_jax`), or None where the
    exact path (below) runs it: under autograd without padded operands."""
    from .._core import buckets
    from .._ops import bucketed
    index, allowed = bucket
    x = operands[index]
    device = device or x.device
    if buckets.any_padded(operands):
        res = bucketed.mapped(fn, operands, index, allowed, device, name)
        if res is not None:
            return res
        buckets.unpad_all(operands)
    if grad_state.ENABLED[0] and _any_grad(operands):
        return None
    out = fn(*[o._value() if isinstance(o, Tensor) else o for o in operands])
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return tuple(buckets.settle(fn, a, device) for a in outs)


# ---- views ------------------------------------------------------------------------------------

class _ViewFn:
    """A view's value as a function of its source's value (the kernel of the view's node):
    `read_impl` at (size, stride), or a gather of `size` by flat index. Named by value, so that
    the programs it is part of (its vjp, fused backwards) are kept on disk."""

    __slots__ = ("size", "stride", "__name__")

    def __init__(self, size, stride=None):
        self.size, self.stride = size, stride
        self.__name__ = "view_read" if stride is not None else "view_gather"

    def __call__(self, src, arg):
        if self.stride is None:
            return src.reshape(-1)[arg]
        return _layout.read_impl(src, arg, self.size, self.stride)

    def __repr__(self):
        return f"_ViewFn({self.size!r}, {self.stride!r})"


@functools.lru_cache(maxsize=None)
def _read(size, stride):
    return _ViewFn(size, stride)


@functools.lru_cache(maxsize=None)
def _gather_fn(size):
    return _ViewFn(size)


def record_view(src, view, name):
    """Give `view` (a view of `src`, which requires grad) its backward node: the view read as a
    function of `src`'s value, so the gradient scatters back into `src`'s shape. The view's
    layout is translated from the storage into `src`'s value (O(ndim) host work, however many
    elements), so the node is a slice/reshape/transpose of that value; only a `src` whose own
    elements interleave or overlap in memory needs an index per element."""
    if _layout.is_contiguous(src._size, src._stride):
        # `src` is a contiguous run of the storage, so the view's strides hold in its value
        fn = _read(view._size, view._stride)
        dyn = [_primal(src), view._offset - src._offset]
    else:
        moved = in_value_of(src, view)
        if moved is not None:
            fn = _read(view._size, moved[0])
            dyn = [_primal(src), moved[1]]
        else:
            fn = _gather_fn(view._size)
            dyn = [_primal(src), _relative_index(src, view)]
    record(name, fn, dyn, [(0, src)], [view], True, "none")


_PLACEHOLDERS = {}   # (size, dtype, device) -> zeros standing in for a view source's value


def _primal(src):
    """What a view node keeps of its source: the vjp of a read is linear, so only the value's
    shape matters. A source that covers its storage gives its buffer (free); any other (a view
    of a view: `x.split(...)[0].view(...)`) would need a strided copy of every element per view,
    so it gets zeros of its shape, made once per shape (host zeros put on the device: no
    program to compile)."""
    data = src._st._raw
    if src._natural and data is not None:
        return data
    if tracing():    # inside a trace the read is free, and no cached array may enter it
        return src._value()
    if type(data) is lazy.Pending:
        device = jax_device(src._st.device)
    else:
        device = next(iter(data.devices())) if data is not None else None
    key = (src._size, src.dtype, device)
    z = _PLACEHOLDERS.get(key)
    if z is None:
        if len(_PLACEHOLDERS) >= 64:
            _PLACEHOLDERS.clear()
        z = _PLACEHOLDERS[key] = transfer(np.zeros(src._size, src.dtype.np), device)
    return z


def _digits(x, dims):
    """`x` (a storage distance) as per-dim steps of `dims` ((stride, dim) pairs, strides
    descending), greedily; None when a remainder is left."""
    out = {}
    for s, k in dims:
        q = x // s
        x -= q * s
        if q:
            out[k] = q
    return out if x == 0 else None


def in_value_of(src, view):
    """(strides, offset) of `view`'s elements within `src`'s value (its elements in row-major
    order), both strided over one storage; None unless `src`'s strides form a mixed radix (each
    larger than everything the smaller ones reach, so every address has one decomposition) and
    the view's addresses decompose without carries. O(ndim), whatever the sizes."""
    dims = sorted(((s, k) for k, (n, s) in enumerate(zip(src._size, src._stride))
                   if n > 1 and s > 0), reverse=True)
    reach = 0
    for s, k in reversed(dims):
        if s <= reach:
            return None
        reach += s * (src._size[k] - 1)
    rel = view._offset - src._offset
    if rel < 0:
        return None
    top = _digits(rel, dims)
    if top is None:
        return None
    value_stride = _layout.contiguous_strides(src._size)
    offset = sum(q * value_stride[k] for k, q in top.items())
    strides = []
    for n, s in zip(view._size, view._stride):
        if n == 1 or s == 0:
            strides.append(0 if n != 1 else 1)
            continue
        steps = _digits(s, dims)
        if steps is None:
            return None
        strides.append(sum(q * value_stride[k] for k, q in steps.items()))
        for k, q in steps.items():
            top[k] = top.get(k, 0) + q * (n - 1)
    if 0 in view._size:
        return tuple(strides), 0
    if any(q >= src._size[k] for k, q in top.items()):
        return None
    return tuple(strides), offset


def _relative_index(src, view):
    """For each element of `view`, its flat index among `src`'s elements (both strided over one
    storage): host work over every element, for the layouts `in_value_of` cannot translate."""
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
    """Mirrors the `ctx` given to `Function.forward`/`backward` (for a Function applied to
    tensors, `ctx` is the node itself, `y.grad_fn`, as in PyTorch)."""

    def __init__(self):
        self._ctx_init()

    def _ctx_init(self):
        self.to_save = ()
        self._saved = None
        self.needs_input_grad = ()
        self.materialize_grads = True
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self._ctx_freed = False

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs):
        import warnings
        warnings.warn("mark_shared_storage is deprecated. Tensors with shared storages are "
                      "automatically tracked. Note that calls to `set_()` are not tracked",
                      DeprecationWarning, stacklevel=2)

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        if self._ctx_freed:
            from .graph import _FREED
            raise RuntimeError(_FREED)
        if self._saved is None:
            return tuple(self.to_save)
        from .graph import modified_error
        for t, version, owner in self._saved:
            if t is not None and t._vc[0] != version:
                raise modified_error(t, version, owner)
        packed = getattr(self, "_packed", None)
        if packed is not None:  # saved-tensor hooks: unpacked on every access, as in PyTorch
            return tuple(None if p is None else saved_tensors.unpacked(p) for p in packed)
        return tuple(t for t, _, _ in self._saved)

    @property
    def saved_variables(self):
        import warnings
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors


class FunctionNode(Node, FunctionCtx):
    """The node of a custom `Function` (also its `ctx`): backward is the user's
    `backward(ctx, *grads)`."""

    def apply(self, grads, create_graph):
        if self._ctx_freed:
            from .graph import _FREED
            raise RuntimeError(_FREED)
        from .. import zeros
        gs = []
        for g, meta in zip(grads, self._outs):
            if g is None and self.materialize_grads and meta is not None:
                g = zeros(meta[0], dtype=meta[1], device=meta[2])
            gs.append(g)
        with grad_state_ctx(create_graph):
            res = self._cls.backward(self, *gs)
        if not isinstance(res, tuple):
            res = (res,)
        name = type(self).__name__
        n = len(self._args)
        if len(res) != n:
            if len(res) < n or any(r is not None for r in res[n:]):
                raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                                   f"(expected {n}, got {len(res)})")
            res = res[:n]
        out = []
        for pos, (g, meta) in enumerate(zip(res, self._args)):
            if meta is None:  # not a tensor input
                if g is not None:
                    raise RuntimeError(f"function {name} returned a gradient different than None"
                                       f" at position {pos + 1}, but the corresponding forward "
                                       "input was not a Variable")
                continue
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            if g is not None:
                g = _fit_grad(g, meta, name, len(out))
            out.append(g)
        return [g if nxt is not None else None
                for g, (nxt, _) in zip(out, self.next_functions)]

    def _release(self):
        self._freed = True
        self._ctx_freed = True
        self._saved = None
        self._packed = None

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


def _fit_grad(g, meta, name, index):
    """PyTorch's checks on a gradient a custom backward returned: a gradient with extra
    broadcast dimensions is summed to the input's shape; dtype is cast to the input's."""
    size, dtype = meta
    if g._size != size:
        gs, n = tuple(g._size), len(size)
        ok = len(gs) >= n and all(a == b or a == 1 for a, b in zip(size, gs[len(gs) - n:]))
        if not ok:
            raise RuntimeError(f"Function {name} returned an invalid gradient at index {index} - "
                               f"got {list(gs)} but expected shape compatible with {list(size)}")
        lead = len(gs) - n
        if lead:
            g = g.sum(tuple(range(lead)))
        dims = tuple(i for i, (a, b) in enumerate(zip(size, g._size)) if a == 1 and b != 1)
        if dims:
            g = g.sum(dims, keepdim=True)
        g = g.reshape(size)
    if g.dtype is not dtype:
        g = g.to(dtype)
    return g


class grad_state_ctx:
    def __init__(self, enabled):
        self.enabled = enabled

    def __enter__(self):
        self.prev = grad_state.ENABLED[0]
        grad_state.ENABLED[0] = bool(self.enabled)

    def __exit__(self, *a):
        grad_state.ENABLED[0] = self.prev


class FunctionMeta(type):
    """Gives each Function subclass its node class `<Name>Backward`."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (FunctionNode,),
                                 {"__module__": "torch.autograd.function"})


_FunctionMeta = FunctionMeta


def _bind_kwargs(cls, args, kwargs):
    """Keyword arguments of `apply` placed by `forward`'s signature (as PyTorch does)."""
    import inspect
    fwd = cls.forward
    sig = inspect.signature(fwd)
    params = list(sig.parameters.values())
    if not _has_setup_context(cls):
        params = params[1:]
    sig = sig.replace(parameters=params)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args), dict(bound.kwargs)


def _has_setup_context(cls):
    return getattr(cls, "setup_context", None) is not _no_setup_context


@staticmethod
def _no_setup_context(ctx, inputs, output):
    raise NotImplementedError("setup_context is not implemented.")


_no_setup_context = _no_setup_context.__func__


class Function(metaclass=FunctionMeta):
    """Mirrors `torch.autograd.Function`: static `forward(ctx, ...)` / `backward(ctx, ...)` (or
    `forward(...)` plus `setup_context(ctx, inputs, output)`), used through `apply`."""

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      f"are all static, so you should invoke them on the class itself. "
                      f"Instantiating an autograd function will raise an error in a future "
                      f"version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: https://pytorch.org/docs/stable/autograd"
                           ".html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    setup_context = staticmethod(_no_setup_context)

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with autograd.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:
            args, kwargs = _bind_kwargs(cls, args, kwargs)
        grad_on = grad_state.ENABLED[0]
        needs = tuple(bool(grad_on and isinstance(a, Tensor) and a.requires_grad)
                      for a in args)
        node_cls = cls._backward_cls
        ctx = node_cls.__new__(node_cls)
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        Node.__init__(ctx, tuple(edge_of(a) if grad_on and a.requires_grad else (None, 0)
                                 for a in tensor_args))
        ctx._ctx_init()
        ctx.needs_input_grad = needs
        ctx._cls = cls
        with grad_state_ctx(False):
            if _has_setup_context(cls):
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        if not any(needs):
            return out
        ctx._args = [(a._size, a.dtype) if isinstance(a, Tensor) else None for a in args]
        ctx._outs = [(o._size, o.dtype, o.device) if isinstance(o, Tensor) else None
                     for o in outs]
        ctx._num_outputs = len(outs)
        nondiff = {id(t) for t in ctx.non_differentiable}
        dirty = {id(t) for t in ctx.dirty_tensors}
        inputs_by_id = {id(a) for a in tensor_args}
        new_outs = []
        out_ids = {}
        for nr, o in enumerate(outs):
            if not isinstance(o, Tensor):
                new_outs.append(o)
                continue
            if id(o) in dirty:
                if o.grad_fn is None and o._requires_grad:
                    raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                       "in-place operation.")
                o._vc[0] += 1  # PyTorch bumps the version of dirty outputs
            elif id(o) in inputs_by_id:
                with grad_state_ctx(False):
                    o = o.view_as(o)  # an input returned as-is becomes a view, as in PyTorch
            if id(o) in nondiff or not _differentiable(o):
                new_outs.append(o)
                continue
            _set_grad_fn(o, ctx, nr)
            out_ids[id(o)] = nr
            new_outs.append(o)
        name = cls.__name__
        saved = []
        for t in ctx.to_save:
            if t is None:
                saved.append((None, 0, None))
            elif id(t) in out_ids:
                saved.append((t, t._vc[0], (name, out_ids[id(t)], True)))
            else:
                saved.append((t, t._vc[0], None))
        ctx._saved = saved
        if saved_tensors.HOOKS:
            ctx._packed = saved_tensors.pack_entries(saved, *saved_tensors.HOOKS[-1])
        return new_outs[0] if single else tuple(new_outs)


class _DelayedError(Function):
    """Outputs whose backward raises (what `once_differentiable` returns under create_graph)."""

    @staticmethod
    def forward(ctx, msg, *tensors):
        ctx.msg = msg
        return tuple(t.detach() if t is not None else None for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.msg)


def once_differentiable(fn):
    """Mirrors `torch.autograd.function.once_differentiable`: backward runs without recording;
    differentiating its results again raises."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_state_ctx(False):
            outputs = fn(ctx, *args)
        if not grad_state.ENABLED[0]:
            return outputs
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        fake = []
        for o in outs:
            if isinstance(o, Tensor):
                o = o.detach()
                if _differentiable(o):
                    o.requires_grad_(True)
            fake.append(o)
        res = _DelayedError.apply("trying to differentiate twice a function that was marked "
                                  "with @once_differentiable", *fake)
        return res[0] if single else res
    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Accepted for compatibility (the legacy nested-IO Function base)."""


class BackwardCFunction(FunctionNode):
    """Mirrors `torch.autograd.function.BackwardCFunction` (the base of `<Name>Backward`)."""
