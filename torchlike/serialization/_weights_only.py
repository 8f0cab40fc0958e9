"""The `weights_only=True` unpickler and its allow-list (`add_safe_globals` & co).

Mirrors `torch._weights_only_unpickler`: an interpreter for the pickle opcodes a checkpoint
needs (protocol 2), which never imports anything: a GLOBAL must be on the allow-list (PyTorch's
defaults as torchlike objects, plus what the user allowed), REDUCE/NEWOBJ may only call allowed
globals, BUILD only sets state on tensors, OrderedDicts and allowed types, and every other opcode
is refused. Refusals raise `pickle.UnpicklingError` with PyTorch's text.
"""
import collections
import struct
import warnings
from pickle import UnpicklingError, decode_long

from . import _names

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")
_user_globals = set()


# Python 2 names protocol 2 writes (`__builtin__.set`) -> Python 3 names: the subset of
# `_compat_pickle`'s tables that PyTorch's weights-only unpickler applies.
_MODULES = {"__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
            "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
            "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io"}
_NAMES = {("__builtin__", "xrange"): ("builtins", "range"),
          ("__builtin__", "reduce"): ("functools", "reduce"),
          ("__builtin__", "intern"): ("sys", "intern"),
          ("__builtin__", "unichr"): ("builtins", "chr"),
          ("__builtin__", "unicode"): ("builtins", "str"),
          ("__builtin__", "long"): ("builtins", "int"),
          ("__builtin__", "basestring"): ("builtins", "str"),
          ("itertools", "izip"): ("builtins", "zip"), ("itertools", "imap"): ("builtins", "map"),
          ("itertools", "ifilter"): ("builtins", "filter"),
          ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
          ("itertools", "izip_longest"): ("itertools", "zip_longest"),
          ("UserDict", "IterableUserDict"): ("collections", "UserDict"),
          ("UserDict", "UserDict"): ("collections", "UserDict"),
          ("UserList", "UserList"): ("collections", "UserList"),
          ("UserString", "UserString"): ("collections", "UserString"),
          ("exceptions", "StandardError"): ("builtins", "Exception")}


def _compat_name(module, name):
    if (module, name) in _NAMES:
        return _NAMES[(module, name)]
    return _MODULES.get(module, module), name


# ---- the user allow-list (torch.serialization.add_safe_globals & co) ----------------------------

def add_safe_globals(safe_globals):
    """Mirrors `torch.serialization.add_safe_globals`."""
    global _user_globals
    _user_globals = _user_globals.union(set(safe_globals))


def get_safe_globals():
    """Mirrors `torch.serialization.get_safe_globals`."""
    return list(_user_globals)


def clear_safe_globals():
    """Mirrors `torch.serialization.clear_safe_globals`."""
    global _user_globals
    _user_globals = set()


def _remove_safe_globals(globs):
    global _user_globals
    _user_globals = _user_globals - set(globs)


class safe_globals:
    """Mirrors `torch.serialization.safe_globals`: allow-lists globals inside a `with` block."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _remove_safe_globals(self.safe_globals)


def _user_allowed():
    """Full name -> object for the user's allow-list; a torchlike object is also known under
    the torch name checkpoints use for it."""
    out = {}
    for f in _user_globals:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(f)}")
            if type(f[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(f[1])}")
            f, name = f
            out[name] = f
            continue
        out[f"{f.__module__}.{f.__qualname__}"] = f
        torch_name = _names.torch_name_of(f)
        if torch_name is not None:
            out[".".join(torch_name)] = f
    return out


def _type_repr(cls):
    """`<class 'torch.X'>` for a torchlike class (as PyTorch's messages print it)."""
    name = _names.torch_name_of(cls)
    return f"<class '{'.'.join(name)}'>" if name else str(cls)


# ---- the interpreter -----------------------------------------------------------------------------

class Unpickler:
    """Mirrors `torch._weights_only_unpickler.Unpickler`."""

    def __init__(self, file, *, encoding="bytes", persistent_load=None):
        self.read = file.read
        self.readline = file.readline
        self.encoding = encoding
        self.memo = {}
        self.proto = -1
        self._persistent_load = persistent_load

    def load(self):
        self.metastack = []
        self.stack = []
        self._allowed = _names.weights_only_globals()
        self._user = _user_allowed()
        self._allowed_ids = {id(v) for v in self._allowed.values()}
        self._allowed_ids.update(id(v) for v in self._user.values())
        read = self.read
        ops = _OPS
        while True:
            key = read(1)
            if not key:
                raise EOFError
            code = key[0]
            if code == 0x2E:  # STOP
                return self.stack.pop()
            op = ops.get(code)
            if op is None:
                raise UnpicklingError(f"Unsupported operand {code}")
            op(self)

    # helpers
    def _is_allowed(self, obj):
        return id(obj) in self._allowed_ids

    def _pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _check_mapping(self, opcode):
        if type(self.stack[-1]) not in (dict, collections.OrderedDict, collections.Counter):
            raise UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, "
                                  f"collections.Counter, but got {type(self.stack[-1])}")

    # risky opcodes
    def op_global(self):
        module = self.readline()[:-1].decode("utf-8")
        name = self.readline()[:-1].decode("utf-8")
        module, name = _compat_name(module, name)
        full = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module "
                                  f"{module} is blocked.")
        if full in self._allowed:
            self.stack.append(self._allowed[full])
        elif full in self._user:
            self.stack.append(self._user[full])
        else:
            if full.startswith("builtins"):
                rest = full[len("builtins"):]
                full = rest[1:] if rest.startswith(".") else "builtins" + rest
            raise UnpicklingError(
                f"Unsupported global: GLOBAL {full} was not an allowed global by default. "
                f"Please use `torch.serialization.add_safe_globals([{full}])` or the "
                f"`torch.serialization.safe_globals([{full}])` context manager to allowlist this "
                "global if you trust this class/function.")

    def op_newobj(self):
        from ..nn import Parameter
        args = self.stack.pop()
        cls = self.stack.pop()
        if cls is Parameter:
            self.stack.append(Parameter(*args))
        elif self._is_allowed(cls):
            self.stack.append(cls.__new__(cls, *args))
        else:
            raise UnpicklingError("Can only create new object for nn.Parameter or classes "
                                  f"allowlisted via `add_safe_globals` but got {_type_repr(cls)}")

    def op_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if not self._is_allowed(func):
            msg = f"Trying to call reduce for unrecognized function {func}"
            if hasattr(func, "__self__"):
                msg += f" which belongs to {func.__self__}"
            raise UnpicklingError(msg)
        self.stack[-1] = func(*args)

    def op_build(self):
        from .._core.tensor import Tensor
        from ..nn import Parameter
        state = self.stack.pop()
        inst = self.stack[-1]
        kind = type(inst)
        if kind is Tensor or kind is Parameter:
            _tensor_setstate(inst, state)
        elif kind is collections.OrderedDict:
            inst.__dict__.update(state)
        elif self._is_allowed(kind):
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            else:
                slots = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slots = state
                if state:
                    inst.__dict__.update(state)
                for k, v in (slots or {}).items():
                    setattr(inst, k, v)
        else:
            raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                  f"allowlisted via `add_safe_globals`, but got {_type_repr(kind)}")

    def op_binpersid(self):
        pid = self.stack.pop()
        if type(pid) is not tuple and type(pid) is not int:
            raise UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
        if type(pid) is tuple and len(pid) > 0 and _ascii(pid[0]) != "storage":
            raise UnpicklingError("Only persistent_load of storage is allowed, but got "
                                  f"{type(pid[0])}")
        if self._persistent_load is None:
            raise UnpicklingError("unsupported persistent id encountered")
        self.stack.append(self._persistent_load(pid))

    # containers
    def op_append(self):
        item = self.stack.pop()
        target = self.stack[-1]
        if type(target) is not list:
            raise UnpicklingError(f"Can only append to lists, but got {type(target)}")
        target.append(item)

    def op_appends(self):
        items = self._pop_mark()
        target = self.stack[-1]
        if type(target) is not list:
            raise UnpicklingError(f"Can only extend lists, but got {type(target)}")
        target.extend(items)

    def op_setitem(self):
        v, k = self.stack.pop(), self.stack.pop()
        self._check_mapping("SETITEM")
        self.stack[-1][k] = v

    def op_setitems(self):
        items = self._pop_mark()
        self._check_mapping("SETITEMS")
        target = self.stack[-1]
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def op_mark(self):
        self.metastack.append(self.stack)
        self.stack = []

    def op_tuple(self):
        items = tuple(self._pop_mark())
        self.stack.append(items)

    def op_tuple1(self):
        self.stack[-1] = (self.stack[-1],)

    def op_tuple2(self):
        self.stack[-2:] = [(self.stack[-2], self.stack[-1])]

    def op_tuple3(self):
        self.stack[-3:] = [(self.stack[-3], self.stack[-2], self.stack[-1])]

    # values
    def op_binint(self):
        self.stack.append(struct.unpack("<i", self.read(4))[0])

    def op_binint1(self):
        self.stack.append(self.read(1)[0])

    def op_binint2(self):
        self.stack.append(struct.unpack("<H", self.read(2))[0])

    def op_binfloat(self):
        self.stack.append(struct.unpack(">d", self.read(8))[0])

    def op_binunicode(self):
        n = struct.unpack("<I", self.read(4))[0]
        self.stack.append(str(self.read(n), "utf-8", "surrogatepass"))

    def op_short_binstring(self):
        data = self.read(self.read(1)[0])
        if self.encoding != "bytes":
            data = data.decode(self.encoding, "strict")
        self.stack.append(data)

    def op_long1(self):
        self.stack.append(decode_long(self.read(self.read(1)[0])))

    # memo
    def op_binget(self):
        self.stack.append(self.memo[self.read(1)[0]])

    def op_long_binget(self):
        self.stack.append(self.memo[struct.unpack("<I", self.read(4))[0]])

    def op_binput(self):
        self.memo[self.read(1)[0]] = self.stack[-1]

    def op_long_binput(self):
        self.memo[struct.unpack("<I", self.read(4))[0]] = self.stack[-1]

    def op_proto(self):
        self.proto = self.read(1)[0]
        if self.proto != 2:
            warnings.warn(
                f"Detected pickle protocol {self.proto} in the checkpoint, which was not the "
                "default pickle protocol used by `torch.load` (2). The weights_only Unpickler "
                "might not support all instructions implemented by this protocol, please file an "
                "issue for adding support if you encounter this.", stacklevel=4)


def _constant(value):
    def op(self):
        self.stack.append(value() if callable(value) else value)
    return op


def _ascii(s):
    return s.decode("ascii") if isinstance(s, bytes) else s


def _tensor_setstate(t, state):
    """BUILD on a Tensor/Parameter: only PyTorch's `(requires_grad, _, backward_hooks)` state
    is accepted (the legacy `set_` forms are refused)."""
    if isinstance(state, tuple) and len(state) == 3 and isinstance(state[0], bool):
        t.requires_grad = state[0]
        return
    raise UnpicklingError(f"Can only build Tensor, Parameter, OrderedDict or types allowlisted "
                          f"via `add_safe_globals`, but got unsupported Tensor state {type(state)}")


_OPS = {
    ord("c"): Unpickler.op_global, 0x81: Unpickler.op_newobj, ord("R"): Unpickler.op_reduce,
    ord("b"): Unpickler.op_build, ord("Q"): Unpickler.op_binpersid,
    ord("a"): Unpickler.op_append, ord("e"): Unpickler.op_appends,
    ord("s"): Unpickler.op_setitem, ord("u"): Unpickler.op_setitems,
    ord("("): Unpickler.op_mark, ord("t"): Unpickler.op_tuple, 0x85: Unpickler.op_tuple1,
    0x86: Unpickler.op_tuple2, 0x87: Unpickler.op_tuple3,
    ord("N"): _constant(None), 0x89: _constant(False), 0x88: _constant(True),
    ord(")"): _constant(()), ord("]"): _constant(list), ord("}"): _constant(dict),
    0x8F: _constant(set),
    ord("J"): Unpickler.op_binint, ord("K"): Unpickler.op_binint1,
    ord("M"): Unpickler.op_binint2, ord("G"): Unpickler.op_binfloat,
    ord("X"): Unpickler.op_binunicode, ord("U"): Unpickler.op_short_binstring,
    0x8A: Unpickler.op_long1,
    ord("h"): Unpickler.op_binget, ord("j"): Unpickler.op_long_binget,
    ord("q"): Unpickler.op_binput, ord("r"): Unpickler.op_long_binput,
    0x80: Unpickler.op_proto,
}
