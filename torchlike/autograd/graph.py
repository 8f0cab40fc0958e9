"""Autograd graph nodes.

Every differentiable op records one node: PyTorch's node name (`MulBackward0`, ...), its
`next_functions`, and what its backward needs. A `JaxNode` keeps the op's jitted kernel and its
operands; its backward is the kernel's `jax.vjp`, jitted once per (kernel, differentiated
operands, outputs present) and reused by every later backward pass.
"""
import itertools
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .. import compile_log
from .._core import buckets, lazy, programs
from .._core.tensor import Tensor
from . import residuals, saved_tensors
from .residuals import substitute
from .anomaly_mode import _STATE as _ANOMALY

_seq = itertools.count()
_CLASSES = {}


def node_class(name, base=None):
    """The node class for PyTorch node name `name` (so `type(t.grad_fn).__name__` matches)."""
    base = base or JaxNode
    key = (name, base)
    cls = _CLASSES.get(key)
    if cls is None:
        cls = _CLASSES[key] = type(name, (base,), {"__slots__": (), "__module__": "torch"})
    return cls


class RemovableHandle:
    """Mirrors `torch.utils.hooks.RemovableHandle` (also published there): removes its hook from
    `hooks_dict` and from `extra_dict` (a dict or a list of dicts)."""

    _ids = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.id = next(RemovableHandle._ids)
        extra = [extra_dict] if isinstance(extra_dict, dict) else list(extra_dict or ())
        self._dicts = [weakref.ref(d) for d in [hooks_dict] + extra if d is not None]

    def remove(self):
        for ref in self._dicts:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.remove()


RemovableHandle.__module__ = "torch.utils.hooks"


class _HookDict(dict):
    __slots__ = ("__weakref__",)


class Node:
    """Mirrors `torch.autograd.graph.Node`."""

    __slots__ = ("next_functions", "_seq", "_pre_hooks", "_hooks", "_metadata", "_freed",
                 "__weakref__")

    def __init__(self, next_functions):
        self.next_functions = next_functions
        self._seq = next(_seq)
        self._pre_hooks = None
        self._hooks = None
        self._metadata = None
        self._freed = False
        if _ANOMALY["enabled"]:   # the forward call, for anomaly mode's reports
            from .anomaly_mode import forward_stack
            self._metadata = {"traceback_": forward_stack()}

    def name(self):
        return type(self).__name__

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        """Mirrors `Node.register_hook`: `fn(grad_inputs, grad_outputs)` after the node runs."""
        if self._hooks is None:
            self._hooks = _HookDict()
        h = RemovableHandle(self._hooks)
        self._hooks[h.id] = fn
        return h

    def register_prehook(self, fn):
        """Mirrors `Node.register_prehook`: `fn(grad_outputs)` before the node runs."""
        if self._pre_hooks is None:
            self._pre_hooks = _HookDict()
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h.id] = fn
        return h

    def _register_tensor_prehook(self, output_nr, fn):
        """A hook on one output's gradient (what `Tensor.register_hook` does on a non-leaf)."""
        def pre(grads):
            g = grads[output_nr]
            if g is None:
                return None
            r = fn(g)
            if r is None:
                return None
            grads = list(grads)
            grads[output_nr] = r
            return tuple(grads)
        return self.register_prehook(pre)

    def __call__(self, *grads):
        from .engine import _as_tensor_grads
        return _as_tensor_grads(self.apply(list(grads), False))

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    # subclasses implement: apply(grads: list of Tensor|None, create_graph) -> list per next_fn
    def apply(self, grads, create_graph):
        raise NotImplementedError

    def _release(self):
        self._freed = True


class AccumulateGrad(Node):
    """The sink for a leaf: accumulates into `variable.grad`."""

    __slots__ = ("_variable",)

    def __init__(self, variable):
        super().__init__(())
        self._variable = weakref.ref(variable)

    @property
    def variable(self):
        return self._variable()

    def apply(self, grads, create_graph):
        return []


AccumulateGrad.__module__ = "torch"


def accumulate_node(t):
    """The (cached) AccumulateGrad node of leaf `t`."""
    meta = t._meta
    if meta is None:
        meta = t._meta = TensorMeta()
    node = meta.accumulate
    if node is None:
        node = meta.accumulate = AccumulateGrad(t)
    return node


class TensorMeta:
    """Per-tensor autograd extras, created on first use."""

    __slots__ = ("accumulate", "hooks", "retains_grad", "output_nr", "post_acc_hooks")

    def __init__(self):
        self.accumulate = None
        self.hooks = None
        self.retains_grad = False
        self.output_nr = 0
        self.post_acc_hooks = None


def edge_of(t):
    """(node, output_nr) where the gradient for tensor `t` goes, or (None, 0)."""
    if t.grad_fn is not None:
        meta = t._meta
        return (t.grad_fn, meta.output_nr if meta is not None else 0)
    if t._requires_grad:
        return (accumulate_node(t), 0)
    return (None, 0)


_FREED = ("Trying to backward through the graph a second time (or directly access saved "
          "tensors after they have already been freed). Saved intermediate values of the graph "
          "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
          "you need to backward through the graph a second time or if you need to access saved "
          "tensors after calling backward.")


_ATEN_TYPE = {"bool": "CPUBoolType", "bfloat16": "CPUBFloat16Type"}  # as PyTorch prints them


def _short_type(t):
    if t.dtype.name in _ATEN_TYPE:
        return _ATEN_TYPE[t.dtype.name]
    return f"torch.{t.dtype._tensor_type}" if t.dtype._tensor_type else str(t.dtype)


def modified_error(t, version, owner):
    """PyTorch's error for a saved tensor modified in place. `owner` = (node name, output nr,
    True) for a node's own saved output (named after that node); otherwise the tensor's current
    grad_fn is named, as PyTorch does (node names without the `Backward<n>` suffix)."""
    import re
    dims = ", ".join(str(s) for s in t._size)
    desc = f"[{_short_type(t)} [{dims}]]"
    if owner is not None and len(owner) == 3:
        name, nr = owner[0], owner[1]
    elif t.grad_fn is not None:
        name = t.grad_fn.name()
        nr = t._meta.output_nr if t._meta is not None else 0
    else:
        name = None
    if name is not None:
        short = re.sub(r"Backward(?:0|([0-9]+))$", lambda m: m.group(1) or "", name)
        desc += f", which is output {nr} of {short},"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {desc} is at version {t._vc[0]}; expected version {version} instead. Hint: "
        "enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")


class JaxNode(Node):
    """A node whose backward is the vjp of a JAX function of the saved operands."""

    __slots__ = ("_fn", "_dyn_", "_diff", "_inputs", "_saved", "_outs", "_single", "_slots",
                 "_out_diff", "_sig", "_ct_shapes", "_res_", "_packed", "_pending")

    def __init__(self, fn, dyn, diff, inputs, saved, outs, single, slots=None, res=None):
        edges = [edge_of(t) for t in inputs]
        if slots is not None:  # PyTorch lists an edge per tensor input, (None, 0) if untracked
            full = [(None, 0)] * slots[0]
            for pos, e in zip(slots[1], edges):
                full[pos] = e
            edges = full
        super().__init__(tuple(edges))
        self._slots = slots
        self._out_diff = tuple(o[2] for o in outs)
        self._fn = fn            # the forward: a function of the operand list `dyn`
        self._dyn = dyn          # operands (arrays / scalars), as the forward saw them
        self._diff = diff        # indices into dyn of the differentiated operands
        self._inputs = inputs    # the tensors at those indices
        self._saved = saved      # [(tensor, version, owner, PyTorch's name)] (saved_tensors)
        self._outs = outs        # [(shape, np dtype, differentiable)] per output
        self._single = single    # the forward returns one array (not a tuple)
        self._ct_shapes = None   # the outputs' buffer shapes where one is padded (see buckets)
        self._res = res          # the kernel's saved residuals, or None (see `residuals`)
        self._packed = None      # what saved-tensor hooks packed (see `saved_tensors`)
        self._pending = lazy.ON[0]   # operands may be fused eager's Pendings (see _core/lazy)
        # what the whole-graph backward program needs of this node (see `fused`)
        self._sig = (fn, diff, slots, self._out_diff, single, len(outs), res is not None)

    @property
    def _dyn(self):
        if self._pending:
            self._resolve()
        return self._dyn_

    @_dyn.setter
    def _dyn(self, v):
        self._dyn_ = v

    @property
    def _res(self):
        if self._pending:
            self._resolve()
        return self._res_

    @_res.setter
    def _res(self, v):
        self._res_ = v

    def _resolve(self):
        """The recorded operands and residuals as arrays (their segment runs if it has not)."""
        self._pending = False
        self._dyn_ = lazy.resolve_tree(self._dyn_)
        self._res_ = lazy.resolve_tree(self._res_)

    def _check_saved(self):
        if self._freed:
            raise RuntimeError(_FREED)
        for t, version, owner, _ in self._saved:
            if t._vc[0] != version:
                raise modified_error(t, version, owner)
        if self._packed is not None:
            saved_tensors.unpack_into(self)

    def __getattr__(self, attr):  # only what normal lookup misses: `_saved_<name>`...
        if attr.startswith(("_saved_", "_raw_saved_")):
            return saved_tensors.saved_attribute(self, attr)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

    def __dir__(self):  # PyTorch's attributes, not this class's internal slots
        inner = set(JaxNode.__slots__) | set(Node.__slots__) | {"_dyn", "_res"}
        return sorted({a for a in super().__dir__() if a not in inner} |
                      set(saved_tensors.saved_names(self)))

    def apply(self, grads, create_graph):
        self._check_saved()
        present = tuple(g is not None for g in grads)
        if not any(present):
            return [None] * len(self.next_functions)
        bwd = vjp_kernel(self._fn, self._diff, present, self._out_diff, self._single)
        cts = tuple(g for g in grads if g is not None)
        if create_graph:
            from .function import apply_jax
            operands = substitute(self._dyn, self._diff, self._inputs)
            return self._place(apply_jax(bwd_function(bwd, len(operands)),
                                         operands + list(cts), name="BackwardBackward0"))
        if self._ct_shapes is None and not any(g._st._phys is not None for g in cts):
            arrays = tuple(g._value() for g in cts)
        else:
            shapes = self._ct_shapes or [o[0] for o in self._outs]
            arrays = tuple(buckets.buffer_as(g, shapes[i])
                           for i, g in enumerate(grads) if g is not None)
        return self._place(self._padded(bwd(self._dyn, arrays, self._res)))

    def _padded(self, grads):
        """Gradients of padded inputs as tensors of the inputs' sizes over the padded buffers."""
        out = []
        for g, t in zip(grads, self._inputs):
            if g is not None and g.shape != t._size:
                g = buckets.padded_tensor(g, t._size, t._st.device,
                                          tuple(d for d, (a, b) in enumerate(zip(g.shape, t._size))
                                                if a != b))
            out.append(g)
        return out

    def _place(self, grads):
        """Gradients of the differentiated operands, aligned with `next_functions`."""
        if self._slots is None:
            return list(grads)
        out = [None] * self._slots[0]
        for pos, g in zip(self._slots[1], grads):
            out[pos] = g
        return out

    def _release(self):
        self._freed = True
        self._dyn = None
        self._res = None
        self._inputs = ()
        self._packed = None


class _BwdFn:
    """A node's backward as a function of (operands..., cotangents...), so that with
    create_graph=True the backward pass is itself recorded (higher-order gradients)."""

    __slots__ = ("bwd", "n_dyn", "__weakref__")

    def __init__(self, bwd, n_dyn):
        self.bwd, self.n_dyn = bwd, n_dyn

    def __call__(self, *arrays):
        return tuple(self.bwd(list(arrays[:self.n_dyn]), tuple(arrays[self.n_dyn:])))


_BWD_FNS = {}


def bwd_function(bwd, n_dyn):
    """The cached `_BwdFn` for a backward kernel (stable identity: its own vjp is cached)."""
    key = (bwd, n_dyn)
    f = _BWD_FNS.get(key)
    if f is None:
        f = _BWD_FNS[key] = _BwdFn(bwd, n_dyn)
    return f


_VJPS = {}


def vjp_kernel(fn, diff, present, out_diff, single):
    """Cached jitted backward of `fn` w.r.t. operands `diff`, given the cotangents present."""
    key = (fn, diff, present, out_diff, single)
    k = _VJPS.get(key)
    if k is None:
        k = _VJPS[key] = programs.jit(_noted(_make_vjp(fn, diff, present, out_diff, single),
                                             (fn, diff, present, out_diff)), ("vjp",) + key)
    return k


def _noted(bwd, key):
    """`bwd` jitted on its own takes a note for compile_log when traced (inlined into the fused
    backward it is part of that program's trace instead)."""
    def noted(dyn, cts, res=None):
        compile_log.note(bwd.__name__, bwd.__name__, key, key[1:], tuple(dyn) + tuple(cts),
                         _VJP_PARTS)
        return bwd(dyn, cts, res)
    noted.__name__ = bwd.__name__
    return noted


_VJP_PARTS = ("differentiated operands", "cotangents present", "differentiable outputs")


def _make_vjp(fn, diff, present, out_diff, single):
    name = getattr(fn, "__name__", "kernel") + "_backward"

    def bwd(dyn, cts, res=None):
        out, pullback = residuals.vjp(fn, dyn, diff, res)
        outs = (out,) if single else tuple(out)
        it = iter(cts)
        full_ct = []
        for o, p, d in zip(outs, present, out_diff):
            if not d or not jnp.issubdtype(o.dtype, jnp.inexact):
                full_ct.append(np.zeros(o.shape, jax.dtypes.float0))
            elif p:
                c = next(it)
                if c.shape != o.shape:   # an exact gradient for a padded output, or back
                    c = buckets.pad_to(c, o.shape)
                full_ct.append(jnp.conj(c).astype(o.dtype))
            else:
                full_ct.append(jnp.zeros(o.shape, o.dtype))
        grads = pullback(full_ct[0] if single else tuple(full_ct))
        return tuple(_real_grad(g, None) for g in grads)
    bwd.__name__ = name
    return bwd


def _real_grad(g, primal):
    """PyTorch's gradients are the conjugate of JAX's cotangents (for real ones a no-op): the
    incoming cotangent is conjugated too, so torch_vjp(g) = conj(jax_vjp(conj(g)))."""
    return jnp.conj(g) if jnp.iscomplexobj(g) else g


from .saved_tensors import (disable_saved_tensors_hooks, save_on_cpu,  # noqa: E402,F401
                            saved_tensors_hooks)
