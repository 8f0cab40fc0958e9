"""Outer autograd through a torch.func transform.

When an argument of a transformed function requires grad (and grad mode is on), the whole
transformed call is differentiated once more with `jax.vjp`, and its tensor results get one node,
`FuncTransformBackward0`, whose backward is that pullback: `.backward()` on a result of `vmap`,
`grad`, `jacrev`... reaches the arguments' `.grad`, as in PyTorch (e.g. training an ensemble
through `vmap`). First order only: a `create_graph=True` backward through the node raises. Tensors
the function closes over are constants to it (PyTorch would track them too)."""
import functools

import jax
import jax.numpy as jnp
import numpy as np

from .._core import grad_state
from .._core.tensor import Tensor, wrap
from ..autograd.function import _set_grad_fn
from ..autograd.graph import _FREED, Node, edge_of
from . import _pytree
from ._bridge import as_tensor, conj_if_complex, is_float, torch_errors

_DOUBLE = ("torchlike: a create_graph=True backward through a torch.func transform's result is "
           "not supported; compose the transforms instead (e.g. grad(grad(f)))")


class FuncTransformBackward0(Node):
    """The node of a transform's results: backward is the transformed call's `jax.vjp`."""

    __slots__ = ("_pullback", "_outs")

    def __init__(self, inputs, pullback, outs):
        super().__init__(tuple(edge_of(t) for t in inputs))
        self._pullback = pullback
        self._outs = outs    # [(shape, np dtype, differentiable)] per tensor output

    def apply(self, grads, create_graph):
        if self._freed:
            raise RuntimeError(_FREED)
        if create_graph:
            raise RuntimeError(_DOUBLE)
        cts = []
        for g, (shape, dtype, diff) in zip(grads, self._outs):
            if not diff:
                cts.append(np.zeros(shape, jax.dtypes.float0))
            elif g is None:
                cts.append(jnp.zeros(shape, dtype))
            else:
                cts.append(conj_if_complex(g._value().astype(dtype)))
        return [conj_if_complex(g) for g in self._pullback(cts)]

    def _release(self):
        self._freed = True
        self._pullback = None


def through_autograd(call):
    """Wrap a transformed function `call(*args, **kwargs)` so that its results are recorded
    in torchlike's autograd graph when an argument requires grad."""
    @functools.wraps(call)
    def wrapper(*args, **kwargs):
        if not grad_state.ENABLED[0]:
            return call(*args, **kwargs)
        leaves, spec = _pytree.flatten((args, kwargs))
        tracked = [i for i, x in enumerate(leaves)
                   if isinstance(x, Tensor) and x.requires_grad and is_float(x)]
        if not tracked:
            return call(*args, **kwargs)
        box = {}

        def f(*arrays):
            new = list(leaves)
            for i, a in zip(tracked, arrays):
                new[i] = as_tensor(a, leaves[i])
            a, k = _pytree.unflatten(new, spec)
            flat, box["spec"] = _pytree.flatten(call(*a, **k))
            box["flat"] = flat
            box["devices"] = [r.device for r in flat if isinstance(r, Tensor)]
            return [r._value() for r in flat if isinstance(r, Tensor)]

        with torch_errors():
            outs, pullback = jax.vjp(f, *[leaves[i]._value() for i in tracked])
        tensors = [wrap(o, d) for o, d in zip(outs, box["devices"])]
        metas = [(o.shape, o.dtype, is_float(t)) for o, t in zip(outs, tensors)]
        if any(m[2] for m in metas):
            node = FuncTransformBackward0([leaves[i] for i in tracked], pullback, metas)
            for nr, (t, m) in enumerate(zip(tensors, metas)):
                if m[2]:
                    _set_grad_fn(t, node, nr)
        it = iter(tensors)
        return _pytree.unflatten([next(it) if isinstance(r, Tensor) else r for r in box["flat"]],
                                 box["spec"])
    return wrapper
