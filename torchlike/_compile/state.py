"""The state a compiled function can read or write, found by walking from its roots.

A walk visits the call's arguments and what the function names (closure cells, the globals it
uses, a bound method's object): tensors (their storage and `.grad`), `nn.Module`s (parameters,
buffers, submodules, plain attributes), optimizers (param groups and per-parameter state),
generators, and the lists / tuples / dicts / plain objects holding them. It returns a *key* that
describes everything the traced program depends on (shapes, dtypes, flags, Python scalars, the
aliasing between tensors) and the flat lists the program is fed from (storages, generators,
optimizer hyper-parameters). Two calls with the same key walk the same structure in the same
order, so position i of one call's lists is position i of the other's.
"""
import dis
import types

from .._core import dtype as _dt
from .._core.device import device as _Device
from .._core.grad_state import ENABLED as _GRAD
from .._core.tensor import Tensor
from .._ops.random import Generator
from ..nn.modules.module import Module
from ..optim._optax_base import OptaxOptimizer
from ..optim.optimizer import Optimizer

_ATOMS = frozenset((int, float, bool, str, complex, type(None), bytes, _dt.dtype, _Device,
                    types.EllipsisType, type))   # classes: keyed by identity
_SKIP = (types.ModuleType, type, types.BuiltinFunctionType, types.MethodWrapperType)
_MODULE_DICTS = ("_parameters", "_buffers")
_MODULE_HOOKS = frozenset((
    "_backward_pre_hooks", "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks", "_non_persistent_buffers_set"))
_MAX_DEPTH = 6
_MAX_LEN = 4096


class Walk:
    """One walk's results (see the module docstring)."""

    __slots__ = ("key", "storages", "_st_ix", "tensors", "objs", "_seen", "dicts", "lists",
                 "gens", "hypers", "hyper_groups")

    def __init__(self):
        self.key = []
        self.storages = []
        self._st_ix = {}
        self.tensors = []
        self.objs = []         # every other object visited (for references by position)
        self._seen = {}
        self.dicts = []        # every dict visited (module __dict__, _parameters, opt.state ...)
        self.lists = []        # every list visited
        self.gens = []
        self.hypers = []       # (group dict, key): optimizer hyper-parameters passed as data
        self.hyper_groups = {}  # id(group) -> (optimizer, first hyper index)

    # ---- entry -------------------------------------------------------------------------------

    def roots(self, roots):
        self.key.append((_GRAD[0], _dt.get_default_dtype()))
        self.visit(roots, 0)

    def visit(self, obj, depth):
        t = type(obj)
        if t in _ATOMS:
            self.key.append(obj)
            return
        oid = id(obj)
        seen = self._seen.get(oid)
        if seen is not None:
            self.key.append(seen)
            return
        if isinstance(obj, Tensor):
            self._tensor(obj)
            return
        if isinstance(obj, _SKIP) or depth > _MAX_DEPTH:
            self.key.append(t)
            return
        self._seen[oid] = ("o", len(self.objs))
        self.objs.append(obj)
        if t is tuple or t is list:
            if len(obj) > _MAX_LEN:
                self.key.append(("big", t, oid))
                return
            self.key.append((t, len(obj)))
            if t is list:
                self.lists.append(obj)
            for v in obj:
                self.visit(v, depth + 1)
        elif isinstance(obj, dict):
            self._dict(obj, depth)
        elif isinstance(obj, Module):
            self._module(obj, depth)
        elif isinstance(obj, Optimizer):
            self._optimizer(obj, depth)
        elif isinstance(obj, Generator):
            self.key.append(("gen", len(self.gens)))
            self.gens.append(obj)
        elif isinstance(obj, types.FunctionType):
            self.key.append(obj)
            self._function(obj, depth)
        elif isinstance(obj, types.MethodType):
            self.key.append(obj.__func__)
            self.visit(obj.__self__, depth + 1)
        elif isinstance(getattr(obj, "__dict__", None), dict):
            self.key.append(t)
            self._dict(obj.__dict__, depth)
        else:
            self.key.append(t)

    # ---- kinds -------------------------------------------------------------------------------

    def ref(self, obj):
        """("t", i) / ("o", i): where `obj` was met in this walk, or None."""
        return self._seen.get(id(obj))

    def _tensor(self, t):
        self._seen[id(t)] = ("t", len(self.tensors))
        self.tensors.append(t)
        st = t._st
        si = self._st_ix.get(id(st))
        if si is None:
            st.unpad()   # compiled programs read and write storages in their natural shape
            si = self._st_ix[id(st)] = len(self.storages)
            self.storages.append(st)
            self.key.append((st.shape, st.dtype, st.device, st._np is None))
        self.key.append((si, t._size, t._stride, t._offset, t.dtype, type(t), t._requires_grad,
                         t.grad_fn is None))
        g = t._grad
        if g is None:
            self.key.append(None)
        else:
            self.visit(g, 0)

    def _dict(self, d, depth):
        self.dicts.append(d)
        key = self.key
        key.append(("dict", len(d)))
        for k, v in d.items():
            key.append(k if type(k) in _ATOMS else self._keyref(k, depth))
            self.visit(v, depth + 1)

    def _keyref(self, k, depth):
        """A dict key that is an object (optimizer state is keyed by parameter)."""
        ref = self._seen.get(id(k))
        if ref is None:
            self.visit(k, depth + 1)
            ref = self._seen.get(id(k), type(k))
        return ref

    def _module(self, m, depth):
        key = self.key
        key.append(type(m))
        d = m.__dict__
        self.dicts.append(d)
        for k, v in d.items():
            if k in _MODULE_HOOKS:
                if v:                  # hooks run while tracing; a new one re-traces
                    key.append((k, len(v)))
                continue
            if type(v) in _ATOMS:
                key.append((k, v))
            elif k == "_modules":
                key.append(tuple(v))
                for sub in v.values():
                    self.visit(sub, depth + 1)
            elif k in _MODULE_DICTS:
                key.append(k)
                self._dict(v, depth)
            else:
                key.append(k)
                self.visit(v, depth + 1)

    def _optimizer(self, opt, depth):
        key = self.key
        key.append(type(opt))
        optax = isinstance(opt, OptaxOptimizer)
        hyper = type(opt)._hyper if optax else ()
        self.lists.append(opt.param_groups)
        key.append(len(opt.param_groups))
        for group in opt.param_groups:
            self.dicts.append(group)
            if optax:
                key.append(opt._flags(group))
                self.hyper_groups[id(group)] = (opt, len(self.hypers))
            for k, v in group.items():
                key.append(k)
                if k in hyper and _numeric(v):
                    self.hypers.append((group, k))
                    key.append(("h", type(v), len(v) if type(v) is tuple else 0))
                else:
                    self.visit(v, depth + 1)
        state = opt.state
        self.dicts.append(state)
        key.append(len(state))
        for group in opt.param_groups:
            for p in group["params"]:
                s = state.get(p)
                if s is None:
                    key.append(None)
                else:
                    self.visit(s, depth + 1)
        extra = [k for k in opt.__dict__ if k not in _OPT_KNOWN]
        for k in extra:
            key.append(k)
            self.visit(opt.__dict__[k], depth + 1)

    def _function(self, fn, depth):
        """A Python function the compiled code calls: its closure and the globals it names
        (functions of torchlike itself and of other libraries are not walked)."""
        g = fn.__globals__
        if g.get("__name__", "").split(".")[0] in _LIBS:
            return
        for cell in fn.__closure__ or ():
            try:
                self.visit(cell.cell_contents, depth + 1)
            except ValueError:           # an empty cell
                self.key.append("empty")
        for name in global_names(fn.__code__):
            v = g.get(name, _ABSENT)
            if v is not _ABSENT:
                self.visit(v, depth + 1)


_ABSENT = object()
_LIBS = frozenset(("torchlike", "jax", "jaxlib", "numpy", "optax", "torch"))
_OPT_KNOWN = frozenset(("defaults", "state", "param_groups", "_zero_grad_profile_name",
                        "_warned_capturable_if_run_uncaptured",
                        "_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                        "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                        "_optimizer_load_state_dict_pre_hooks",
                        "_optimizer_load_state_dict_post_hooks"))
_NAMES = {}


_GLOBAL_OPS = frozenset(("LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL"))


def global_names(code):
    """The global names a code object (and the code objects nested in it) may read: those its
    global loads name, not every name in `co_names` (which holds attribute names too: the
    `step` of `opt.step()` is not the script's global `step`)."""
    names = _NAMES.get(code)
    if names is None:
        out = []
        stack = [code]
        while stack:
            c = stack.pop()
            out.extend(i.argval for i in dis.get_instructions(c) if i.opname in _GLOBAL_OPS)
            stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        names = _NAMES[code] = tuple(dict.fromkeys(out))
    return names


def _numeric(v):
    if type(v) is tuple:
        return all(type(x) in (int, float) for x in v)
    return type(v) in (int, float)


def hyper_values(walk):
    """The hyper-parameters as a flat tuple of Python floats (passed to jit as weak floats)."""
    out = []
    for group, k in walk.hypers:
        v = group[k]
        if type(v) is tuple:
            out.extend(float(x) for x in v)
        else:
            out.append(float(v))
    return tuple(out)
