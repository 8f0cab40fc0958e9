"""Saved tensors: a node's `_saved_<name>`/`_raw_saved_<name>` attributes and the hooks of
`torch.autograd.graph` that pack them when the graph is recorded and unpack them when backward
(or the attribute) needs them.

A node keeps what PyTorch's formula saves (see `names.saves`) as entries of its `_saved`:
(tensor, version, owner, name). `name` is PyTorch's (`self`, `other`, `mat2`, `result`...).
With hooks registered (`saved_tensors_hooks`, `save_on_cpu`, `SavedTensor.register_hooks`), the
node holds `pack_hook(tensor)` for each entry in `_packed` and calls `unpack_hook` whenever the
value is needed; an input's unpacked value replaces the operand its backward reads.
Divergence: the unpacked value of a saved *output* (`result`) is checked but not read, since a
node's backward computes from its operands and its kernel's own residuals.
"""
from .._core.tensor import Tensor, _alias

# the stack of (pack_hook, unpack_hook) pairs registered by `saved_tensors_hooks`
HOOKS = []
# the message `disable_saved_tensors_hooks` raises with, or None
_DISABLED = [None]

_FREED_HOOKS = ("Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward.")


class saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Mirrors `torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook)`."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _DISABLED[0] is not None:
            raise RuntimeError(_DISABLED[0])
        HOOKS.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc):
        HOOKS.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - PyTorch's name
    """Mirrors `torch.autograd.graph.save_on_cpu(pin_memory=False, device_type='cuda')`: saved
    tensors are copied to the CPU when recorded and moved back to their device for backward."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            from .. import empty
            packed = empty(t.size(), dtype=t.dtype, layout=t.layout,
                           pin_memory=bool(pin_memory) and not t.is_sparse)
            packed.copy_(t)
            return t.device, packed

        def unpack(packed):
            device, t = packed
            return t.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Mirrors `torch.autograd.graph.disable_saved_tensors_hooks(error_message)`: inside it,
    registering saved-tensor hooks raises `RuntimeError(error_message)`."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if HOOKS:
            raise RuntimeError(self.error_message)
        self._prev = _DISABLED[0]
        _DISABLED[0] = self.error_message

    def __exit__(self, *exc):
        _DISABLED[0] = self._prev


class _Packed:
    """One entry's packed value and the hook that unpacks it."""

    __slots__ = ("value", "unpack")

    def __init__(self, value, unpack):
        self.value, self.unpack = value, unpack


def unpacked(packed):
    """The tensor `packed`'s unpack hook gives, as PyTorch checks it."""
    t = packed.unpack(packed.value)
    if not isinstance(t, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(t).__name__}")
    return t


def pack_entries(entries, pack_hook, unpack_hook):
    """`_Packed` values for saved entries (tensor, version, owner, name), in order."""
    return [None if e[0] is None else _Packed(pack_hook(e[0]), unpack_hook) for e in entries]


def pack_node(node):
    """Pack `node`'s saved tensors with the innermost registered hooks."""
    pack, unpack = HOOKS[-1]
    node._packed = (pack_entries(node._saved, pack, unpack), slots_of(node))


def _dyn_slot(node, t):
    for i, u in zip(node._diff, node._inputs):
        if u is t and type(i) is int:
            return i
    data = t._st._data
    if data is not None and t._natural:
        for i, d in enumerate(node._dyn):
            if d is data:
                return i
    return None


def slots_of(node):
    """Per saved entry of `node`, the operand index of `node._dyn` its backward reads it from
    (None for an output, or where the operand is read through a view)."""
    return [None if e[3] is None or e[3].startswith("result") else _dyn_slot(node, e[0])
            for e in node._saved]


def unpack_into(node):
    """Before `node`'s backward: every packed entry is unpacked, and an input's value replaces
    the operand it was read from."""
    packed, slots = node._packed
    dyn = node._dyn
    for p, slot in zip(packed, slots):
        if p is None:
            continue
        t = unpacked(p)
        if slot is not None and dyn is not None:
            old = dyn[slot]
            value = t._value()
            if value.shape != old.shape or value.dtype != old.dtype:
                raise RuntimeError("torchlike: a saved tensor's unpack_hook returned a tensor of "
                                   f"shape {tuple(value.shape)} and dtype {value.dtype}, where "
                                   f"{tuple(old.shape)} and {old.dtype} were saved")
            dyn[slot] = value


class SavedTensor:
    """Mirrors `torch._C._autograd.SavedTensor`: what `grad_fn._raw_saved_<name>` gives."""

    __slots__ = ("_node", "_index")

    def __init__(self, node, index):
        self._node, self._index = node, index

    def register_hooks(self, *args):
        """Mirrors `SavedTensor.register_hooks(pack_hook, unpack_hook)`: packs the saved
        tensor now; unpack_hook gives its value whenever it is needed."""
        if len(args) != 2 or not all(callable(a) for a in args):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\nInvoked "
                f"with: {self!r}, " + ", ".join(repr(a) for a in args))
        node = self._node
        if node._freed:
            raise RuntimeError(_FREED_HOOKS)
        packed = _packed_list(node)
        if packed[self._index] is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        t = node._saved[self._index][0]
        packed[self._index] = _Packed(args[0](t), args[1])

    def __repr__(self):
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"


SavedTensor.__module__ = "torch._C._autograd"


def _packed_list(node):
    """`node._packed`'s list, made (with no entry packed) where no hooks were registered."""
    if node._packed is None:
        node._packed = ([None] * len(node._saved), slots_of(node))
    return node._packed[0]


def _index(node, name):
    for i, e in enumerate(node._saved or ()):
        if e[3] == name:
            return i
    return None


def saved_names(node):
    """The `_saved_<name>` and `_raw_saved_<name>` attributes `node` has."""
    names = [e[3] for e in node._saved or () if e[3] is not None]
    return [p + n for n in names for p in ("_saved_", "_raw_saved_")]


def saved_attribute(node, attr):
    """`node._saved_<name>` (the tensor, unpacked) or `node._raw_saved_<name>` (a
    `SavedTensor`); AttributeError where `node` saves no such tensor."""
    raw = attr.startswith("_raw_saved_")
    i = _index(node, attr[len("_raw_saved_" if raw else "_saved_"):])
    if i is not None:
        from .graph import _FREED, modified_error
        if raw:
            return SavedTensor(node, i)
        if node._freed:
            raise RuntimeError(_FREED)
        t, version, owner, name = node._saved[i]
        if t._vc[0] != version:
            raise modified_error(t, version, owner)
        p = node._packed[0][i] if node._packed is not None else None
        if p is not None:
            return unpacked(p)
        return _as_saved(t, node, owner, name)
    raise AttributeError(f"'{type(node).__name__}' object has no attribute '{attr}'")


def _as_saved(t, node, owner, name):
    """What PyTorch's unpacking gives: an input is itself (one PyTorch saves transposed, as
    linear's weight, its `.t()`); an output is a new tensor over its storage, with this node as
    its grad_fn."""
    if owner is not None and owner[0] == "AsStridedBackward0":
        return t.t()
    if name != "result" or t.grad_fn is not node:
        return t
    out = _alias(t, t._size, t._stride, t._offset)
    out._base = t._base
    out.grad_fn = node
    out._requires_grad = True
    return out

