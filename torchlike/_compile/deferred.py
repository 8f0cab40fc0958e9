"""Gradients a compiled step computes only if someone looks at them.

A training step usually starts with `zero_grad()`, so the `.grad` tensors the previous step left
are dropped unread. Writing them out of the XLA program is not free: outputs cannot stay in
the program's reused scratch memory, and for a small MLP that costs ~15% of the step. So a
compiled program whose only use of some outputs is to become new `.grad` tensors also runs as
a variant without them; the `.grad` tensors it leaves are `DeferredStorage`s that remember the
call's inputs, and the first read of any of them runs the full program on those inputs (the
same values: XLA:CPU and XLA:GPU are deterministic on one machine, random draws come from the
same key). After a read the entry stops deferring (the user looks at gradients).

While deferred grads live, their call's input buffers stay alive; they die with the grads,
usually inside the next call, whose program does not read them (`ReadTracked` tells which
storages a trace reads, so an unread deferred storage is passed as a placeholder).
"""
import jax.numpy as jnp

from .._core.storage import Storage

_DATA = Storage.__dict__["_data"]          # the slot itself, under the properties below


def _settle(st, value):
    """`st` becomes a plain `Storage` holding `value`."""
    _DATA.__set__(st, value)
    st._deferred = None
    st.__class__ = Storage


class DeferredStorage(Storage):
    """A storage whose buffer is output `k` of `Deferred` call `c` (`_deferred == (c, k,
    NumPy dtype)`); reading `_data` computes it, writing `_data` replaces it."""

    __slots__ = ()

    @property
    def _data(self):
        call, k, _ = self._deferred
        value = call.value(k)
        _settle(self, value)
        return value

    @_data.setter
    def _data(self, value):
        _settle(self, value)


def deferred_storage(call, k, shape, np_dtype, dtype, device):
    st = DeferredStorage.__new__(DeferredStorage)
    _DATA.__set__(st, None)
    st._deferred = (call, k, np_dtype)
    st._np = None
    st.resizable = True
    st.shared = False
    st.dtype = dtype
    st.device = device
    st.shape = shape
    st.numel = 1
    for n in shape:
        st.numel *= n
    st._ptr = None
    return st


class Deferred:
    """One call's deferred outputs: the program and the inputs that recompute them."""

    __slots__ = ("entry", "inputs", "outs")

    def __init__(self, entry, inputs):
        self.entry, self.inputs, self.outs = entry, inputs, None

    def value(self, k):
        if self.outs is None:
            self.entry.defer = False
            arrays, hv, gens = self.inputs
            self.outs = self.entry.jitted(arrays, hv, gens)
            self.inputs = None
        return self.outs[k]


_PLACEHOLDERS = {}


def placeholder(st):
    """An input for a deferred storage the program never reads (XLA drops it)."""
    key = (st.shape, st._deferred[2])
    a = _PLACEHOLDERS.get(key)
    if a is None:
        if len(_PLACEHOLDERS) > 64:
            _PLACEHOLDERS.clear()
        a = _PLACEHOLDERS[key] = jnp.zeros(*key)
    return a


class ReadTracked(Storage):
    """A storage during a trace: reading `_data` records it in `READS`."""

    __slots__ = ()

    @property
    def _data(self):
        READS.add(id(self))
        return _DATA.__get__(self)

    @_data.setter
    def _data(self, value):
        _DATA.__set__(self, value)


READS = set()
