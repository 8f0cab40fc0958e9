"""The op table and everything generated from it.

A row is a pure JAX function with PyTorch's signature plus a few flags. From each row this module
generates the `torchlike.X` function, the `Tensor.X` method, the in-place `Tensor.X_`, the `out=`
variant and the operator dunders, all going through one dispatcher:

    arguments ──► tensors become arrays, Python numbers become traced scalars, the rest static
              ──► PyTorch's result dtype (cached per operand signature)
              ──► a jitted kernel cached per (static args, operand kinds, compute dtype)
              ──► new tensors / a write into `out` / a write through `self`'s storage.

Argument validation that depends only on shapes and static arguments runs while JAX traces the
kernel, so it costs nothing on later calls.
"""
import functools
import inspect
import math
import operator
import sys
import types
import weakref

import jax
import numpy as np

from .._core import codecache
from .._core import programs
from .._core import dtype as dt
from .._core import frames
from .._core.device import CPU as _CPU, transfer
from .._core.grad_state import ENABLED as _GRAD
from .._core.autocast_state import ACTIVE as _AUTOCAST, HOOK as _AUTOCAST_HOOK
from .._core.grad_state import FORWARD_AD as _FWAD
from .._core.formats import dense_strides
from .._core.layout import has_internal_overlap, read_impl, write_impl
from .._core.tensor import Tensor, wrap
from . import bucketed, fastpath
from .._core import buckets, device_rules, lazy as _lazy
from .. import compile_log, overrides

_KEY_PARTS = ("operand kinds", "static arguments", "compute dtype")

OPS = {}          # name -> Op, every registered row
FUNCTIONS = {}    # public torchlike.X callables
METHODS = {}      # Tensor attributes generated here

_NUMBER = (bool, int, float, complex, np.number, np.bool_)
# The concrete array type, named without creating an array: importing torchlike must not start
# JAX's backend (DataLoader's forkserver preloads torchlike and then forks workers).
from jax._src.array import ArrayImpl as _ARRAY  # noqa: E402
_PENDING = _lazy.Pending
_LAZY = _lazy.ON

from .._core.tracing import tracing  # noqa: E402


class Op:
    """One op-table row (see `op`)."""

    __slots__ = ("name", "impl", "pointwise", "promote", "params", "names", "tensors", "lists",
                 "scalars", "promoted", "returns", "kernels", "dtypes", "family", "differentiable",
                 "nondiff_outputs", "check", "plan", "aliases", "divisor", "divisor_when",
                 "autograd", "defaults", "fast", "opmath", "bucket", "devices", "out_check")

    def __repr__(self):
        return f"<op {self.name}>"

    def forget_dtypes(self):
        """Drop what depends on the default dtype (promotion results, the cached path's)."""
        self.dtypes.clear()
        self.fast.clear()


def _promotion(row, psig):
    """The compute dtype for one operand signature: a tuple of (dtype, has_dims) pairs."""
    if row.check is not None:
        row.check(*(d for d, _ in psig))
    kind = row.promote
    if kind is None:
        return None
    dims, zeros, scalars = [], [], []
    for d, nd in psig:
        if nd is None:
            scalars.append(d)
        elif nd:
            dims.append(d)
        else:
            zeros.append(d)
    r = dt.result_type_of(dims, zeros, scalars)
    if callable(kind):
        return kind(r)
    if r is None:
        return None
    if kind == "int_to_float" and r.category < 2:
        return dt.get_default_dtype()
    return r


def _check_broadcast(shapes):
    """PyTorch's broadcast check (pairwise, trailing dims first), with its error message."""
    out = ()
    for s in shapes:
        ndim = max(len(out), len(s))
        res = [1] * ndim
        for i in range(ndim - 1, -1, -1):
            off = ndim - 1 - i
            a = out[len(out) - 1 - off] if off < len(out) else 1
            b = s[len(s) - 1 - off] if off < len(s) else 1
            if a != b and a != 1 and b != 1:
                raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b "
                                   f"({b}) at non-singleton dimension {i}")
            res[i] = b if a == 1 else a
        out = tuple(res)
    return out


def broadcast_shapes_checked(shapes):
    return _check_broadcast(shapes)


def _static_dtype(row, sig, statics):
    """`statics` with the `dtype` argument read as PyTorch's parser reads it (`dtype=float` is
    float64; a string raises its TypeError): once per kernel, as the raw value is in the key.
    Also returns that dtype (None when the call gave none)."""
    si = 0
    for name, k in zip(row.names, sig):
        if k == "T" or k == "S" or k == "L" or k == "D" or type(k) is tuple:
            continue
        if name == "dtype":
            v = statics[si]
            if v is not None and type(v) is not dt.dtype:
                v = dt.to_dtype(v, row.name)
                statics = statics[:si] + (v,) + statics[si + 1:]
            return statics, v
        si += 1
    return statics, None


_REDUCED = frozenset(("float16", "bfloat16"))
_OPMATH = np.dtype(np.float32)


@functools.lru_cache(maxsize=None)
def _cpu_only():
    """No accelerator: reduced floats compute in float32 as PyTorch's CPU kernels do. With a
    GPU or TPU they keep their own type, so matrix products stay on the fast reduced-precision
    units (which accumulate in float32 anyway). Simulated accelerators are CPUs."""
    from .._core.device import gpus, simulated
    return not gpus() or bool(simulated.COUNT)


def _build_kernel(row, sig, statics, compute):
    """A jitted kernel: dynamic operands in, `row.impl` applied with the static arguments.
    On a machine without an accelerator a float16/bfloat16 computation runs in float32 and
    rounds its float results once, as PyTorch's CPU kernels compute reduced floats (its
    "opmath" type): a bfloat16 sum accumulates in float32, a linear layer adds its bias before
    rounding. Rows with `opmath` False, and calls given an explicit `dtype`, compute in the
    dtype itself."""
    impl, names, promoted, scalars = row.impl, row.names, row.promoted, row.scalars
    explicit_dtype = False
    if "dtype" in names:
        statics, given = _static_dtype(row, sig, statics)
        explicit_dtype = given is not None
    cnp = compute.np if compute is not None else None
    opmath = row.opmath and not explicit_dtype and _cpu_only()
    reduced = cnp if cnp is not None and compute.name in _REDUCED and opmath else None
    if reduced is not None:
        cnp = _OPMATH
    key = (sig, statics, compute)
    static_iter_names = statics
    defaults = row.defaults

    def kernel(*dyn):
        compile_log.note(row.name, row.name, key, key, dyn, _KEY_PARTS)  # only while tracing
        back = reduced  # the reduced float type results are rounded back to (this trace's)
        kw = {}
        i = 0
        si = 0
        shapes = []
        tensors = []
        for pos, (name, k) in enumerate(zip(names, sig)):
            if k == "T" or k == "S" or k == "D" or type(k) is tuple:
                v = dyn[i]
                i += 1
                if k == "D":  # the default value, a constant (its operand slot holds None)
                    v = _constant_operand(row, defaults[pos])
                    k = "S"
                elif type(k) is tuple:  # a strided view: its read is fused into this kernel
                    v = read_impl(v, dyn[i], k[1], k[2])
                    i += 1
                if cnp is not None and (name in promoted or name in scalars):
                    v = jax.lax.convert_element_type(v, cnp)
                if k != "S":
                    shapes.append(v.shape)
                    tensors.append(name)
            elif k == "L":
                v = dyn[i]
                i += 1
                if cnp is not None and name in promoted:
                    v = tuple(jax.lax.convert_element_type(a, cnp) for a in v)
            else:
                v = static_iter_names[si]
                si += 1
            kw[name] = v
        if row.pointwise:
            _check_broadcast(shapes)
        if compute is None and opmath:  # no promotion: the operands' own reduced float type
            floats = {kw[n].dtype for n in tensors if jax.numpy.issubdtype(kw[n].dtype,
                                                                          jax.numpy.inexact)}
            if len(floats) == 1 and next(iter(floats)).name in _REDUCED:
                back = floats.pop()
                for n in tensors:
                    if kw[n].dtype == back:
                        kw[n] = jax.lax.convert_element_type(kw[n], _OPMATH)
        out = impl(**kw)
        if back is not None:
            out = jax.tree.map(lambda o: o.astype(back) if o.dtype == _OPMATH else o, out)
        return out

    kernel.__name__ = row.name
    return programs.jit(kernel, ("op", row.name, sig, statics, compute))


def _bad_arg(row, name, v):
    pos = row.names.index(name)
    return TypeError(f"{row.name}(): argument '{name}' (position {pos + 1}) must be Tensor, not "
                     f"{type(v).__name__}")


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, Tensor):
        return _TensorStatic(v)
    return v


class _TensorStatic:
    """A tensor passed where a static argument is expected (e.g. `dim=torch.tensor(0)`)."""

    __slots__ = ("v",)

    def __init__(self, t):
        self.v = t.item() if t.numel() == 1 else tuple(t.tolist())

    def __hash__(self):
        return hash(self.v)

    def __eq__(self, o):
        return isinstance(o, _TensorStatic) and o.v == self.v


# operand kinds: promoted tensor, other tensor, promoted list, other list, scalar, static
_TP, _TN, _LP, _LN, _S, _C = range(6)


def run(row, args):
    """Dispatch `row` on positional `args` (one per impl parameter); returns raw JAX output(s)
    and the device of the first tensor operand."""
    k, dyn, device, _ = prepare(row, args)
    res = k(*(_lazy.resolve(dyn) if _LAZY[0] else dyn))
    if row.divisor is not None:  # after the kernel: shape errors come first, as in PyTorch
        _check_integer_divisor(row, args)
    return res, device


@jax.jit
def _any_zero(a):
    return jax.numpy.any(a == 0)


def _integral(v):
    if isinstance(v, Tensor):
        return v.dtype.category == 1
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _check_integer_divisor(row, args):
    """PyTorch's integer division by zero raises (a host check, as PyTorch's kernel makes)."""
    d = args[row.divisor]
    if not (_integral(args[0]) and _integral(d)) or tracing():
        return
    if row.divisor_when is not None and not row.divisor_when(args):
        return
    if (d == 0) if not isinstance(d, Tensor) else bool(_any_zero(d._value())):
        raise RuntimeError("ZeroDivisionError")


def prepare(row, args, bucketing=False, inplace=False):
    """The cached kernel for `row` on `args`, its dynamic operands and the operands' device.
    A tensor that is a strided view of a JAX buffer goes in as (buffer, offset) with its layout
    in the kernel key, so reading the view is fused into the op's one dispatch. With
    `bucketing`, None when an operand's storage is padded (see `bucketed`); else padding is
    dropped. Operands on several devices follow PyTorch's rules (`device_rules`; `inplace`:
    `args[0]` is written)."""
    sig = []
    dyn = []
    statics = []
    psig = []
    device = None
    mixed = False
    scalars_at = None  # where Python numbers went before the device was known
    grad_on = _GRAD[0]
    tracked = None
    nslot = 0  # PyTorch's next_functions has one slot per tensor-position operand
    for kind, v in zip(row.plan, args):
        if kind <= _TN:
            if v is not None:
                nslot += 1
            if type(v) is Tensor or isinstance(v, Tensor):
                d = v._st._raw
                if grad_on and v._requires_grad:
                    if bucketing and (v._st._phys is not None or v._window is not None):
                        return None   # a padded operand: the row's bucket rule runs it
                    if tracked is None:
                        tracked = []
                    tracked.append((len(dyn), v, nslot - 1))
                    sig.append("T")
                    dyn.append(d if d is not None and v._natural else
                               _lazy.read(v) if _LAZY[0] else v._value())
                elif d is None:
                    if bucketing and (v._st._phys is not None or
                                      v._st._np is not None and buckets.host_changing(v)):
                        return None   # a padded operand: the row's bucket rule runs it
                    sig.append("T")
                    dyn.append(v._value())
                elif v._natural:
                    sig.append("T")
                    dyn.append(d)
                else:
                    if bucketing and v._window is not None:
                        return None   # a window on a changing size (see buckets.window)
                    sig.append(("V", v._size, v._stride))
                    dyn.append(d)
                    dyn.append(_device_scalar(v._offset, v._st.device))
                if device is None:
                    device = v._st.device
                elif v._st.device is not device and v._st.device != device:
                    mixed = True
                if kind == _TP:
                    psig.append((v.dtype, v._size != ()))
            elif isinstance(v, _NUMBER):
                sig.append("S")
                v = _pyscalar(v)
                if device is None:
                    scalars_at = (scalars_at or []) + [(len(dyn), v)]
                dyn.append(_scalar_operand(row, v, device))
                if kind == _TP:
                    psig.append((dt.scalar_dtype(v), None))
            elif v is None:
                sig.append("N")
                statics.append(None)
            else:
                raise _bad_arg(row, row.names[len(sig)], v)
        elif kind <= _LN:
            sig.append("L")
            arrs = []
            if not isinstance(v, (list, tuple)):
                raise TypeError(f"{row.name}(): argument '{row.names[len(sig) - 1]}' (position "
                                f"{len(sig)}) must be tuple of Tensors, not {type(v).__name__}")
            for t in v:
                if not isinstance(t, Tensor):
                    raise TypeError(f"expected Tensor as element {len(arrs)} in argument 0, but "
                                    f"got {type(t).__name__}")
                if bucketing and t._st._phys is not None:
                    return None
                if grad_on and t._requires_grad:
                    if tracked is None:
                        tracked = []
                    tracked.append(((len(dyn), len(arrs)), t, nslot))
                nslot += 1
                arrs.append(_lazy.read(t) if _LAZY[0] else t._value())
                if device is None:
                    device = t._st.device
                elif t._st.device is not device and t._st.device != device:
                    mixed = True
                if kind == _LP:
                    psig.append((t.dtype, t._size != ()))
            dyn.append(tuple(arrs))
        elif kind == _S and v is not None:
            if is_default(v, row.defaults[len(sig)]):
                sig.append("D")  # one kernel for the default value, one operand fewer
                dyn.append(None)
                continue
            sig.append("S")
            if isinstance(v, Tensor):
                dyn.append(v._value())
            else:
                v = _pyscalar(v)
                if device is None:
                    scalars_at = (scalars_at or []) + [(len(dyn), v)]
                dyn.append(_scalar_operand(row, v, device))
        else:
            sig.append("B" if type(v) is bool else "C")  # keeps dim=False apart from dim=0
            statics.append(v if v is None or type(v) in _HASHABLE else _hashable(v))
    if mixed:
        return prepare(row, device_rules.reconcile(row, args, inplace), bucketing, inplace)
    if scalars_at is not None and device is not None and device is not _CPU:
        for i, v in scalars_at:  # numbers before the first tensor: on its device
            dyn[i] = _scalar_operand(row, v, device)
    psig = tuple(psig)
    compute = row.dtypes.get(psig, _MISSING)
    if compute is _MISSING:
        compute = row.dtypes[psig] = _promotion(row, psig)
    key = (tuple(sig), tuple(statics), compute)
    k = row.kernels.get(key)
    if k is None:
        k = row.kernels[key] = _build_kernel(row, key[0], key[1], compute)
    if tracked is not None:
        tracked.append(nslot)  # last entry: the slot count (see _record)
    return k, dyn, device, tracked


_HASHABLE = frozenset((int, float, bool, str, tuple, dt.dtype, type(None)))
_MISSING = object()
_SCALARS = {}  # (type, value) -> how often seen (below 3), or its cached 0-d device array


def _device_scalar(v, device=None):
    """A 0-d device array for a Python number that keeps recurring (`x * 0.5` in a loop):
    passing an array to a jitted kernel is ~1.3 us cheaper than passing a NumPy scalar. A value
    seen fewer than 3 times is passed as a NumPy scalar (building an array costs ~10 us, wasted
    on values that never come back, like a decaying learning rate); one dict lookup either way.
    Either way the value is traced: no recompile per value. Off the CPU (`device`), the array
    is kept on that device, so a recurring number costs no host-to-device copy per call."""
    if device is not None and device is not _CPU:
        return _accelerator_scalar(v, device)
    t = type(v)
    # zeros and NaNs by their repr: 0.0 and -0.0 hash alike, and NaN equals nothing
    key = (t, v if v or t is int or t is bool else repr(v)) if v == v else (t, repr(v))
    a = _SCALARS.get(key)
    if a is None:
        if len(_SCALARS) > 8192:
            _SCALARS.clear()
        _SCALARS[key] = 1
        # a NumPy scalar has the same abstract value as the cached array: one compiled program
        return _NP_SCALAR[type(v)](v)
    if type(a) is not int:
        return a if not tracing() else _NP_SCALAR[type(v)](v)
    if a < 2 or tracing():
        _SCALARS[key] = a + 1
        return _NP_SCALAR[type(v)](v)
    a = _SCALARS[key] = transfer(_NP_SCALAR[type(v)](v))  # no program, unlike asarray
    return a


_NP_SCALAR = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}
_ON_DEVICE = {}  # (weak, type, value key, device) -> its 0-d array on that device


def _cached_on(v, device, weak):
    """Number `v` as a 0-d array on torch device `device`, made once per value (a NumPy scalar
    or Python number would be copied to the device on every call): a 64-bit array, or a weakly
    typed one (`weak`). Signed zeros and NaNs are keyed by their repr."""
    t = type(v)
    key = (weak, t, v if t is int or t is bool or (v and v == v) else repr(v), device)
    a = _ON_DEVICE.get(key)
    if a is None:
        if len(_ON_DEVICE) > 8192:
            _ON_DEVICE.clear()
        from .._core.device import jax_device
        if weak:
            a = jax.device_put(jax.numpy.asarray(v), jax_device(device))
        else:
            a = transfer(_NP_SCALAR[t](v), jax_device(device))
        _ON_DEVICE[key] = a
    return a


def _accelerator_scalar(v, device):
    """`_device_scalar` on an accelerator (or for a kernel whose only operand is the number,
    which must run on `device`): every value is cached there."""
    if tracing():   # a constant inside a trace, never a concrete array
        return _NP_SCALAR[type(v)](v)
    return _cached_on(v, device, False)


def _scalar_operand(row, v, device=None):
    """How Python number `v` enters `row`'s kernel: a traced 64-bit scalar where the row
    promotes (see `_device_scalar`), else the number itself (weakly typed)."""
    return _device_scalar(v, device) if row.promote is not None else weak_operand(v, device)


def weak_operand(v, device):
    """A weakly typed number for a kernel on `device`: the number itself on the CPU, a cached
    weakly typed 0-d array on an accelerator (weak typing keeps the kernel's dtypes)."""
    if device is None or device is _CPU or v is None or tracing():
        return v
    return _cached_on(v, device, True)


def _constant_operand(row, v):
    """`_scalar_operand`'s value as a constant of the same abstract type (inside a kernel)."""
    return _NP_SCALAR[type(v)](v) if row.promote is not None else v


def is_default(v, default):
    """True when scalar argument `v` is its parameter's default (the default object itself, or
    the same type and value, the sign of a zero included; the cached path tests the same): it
    then enters the kernel key as a constant instead of an operand, at most one more kernel per
    signature, never one per value."""
    return v is default or type(v) is type(default) and v == default and \
        (type(v) is not float or v != 0.0 or math.copysign(1.0, v) == math.copysign(1.0, default))


def _scalar_default(p):
    """A parameter's default if it is a real Python number (the ones `is_default` matches)."""
    d = p.default
    return d if type(d) in (bool, int, float) else _MISSING


def _pyscalar(v):
    if isinstance(v, (np.number, np.bool_)):
        return v.item()
    return v


def _wrap_out(row, out, device):
    from .._core.device import CPU
    device = device or CPU
    if isinstance(out, (tuple, list)):
        ts = tuple(_wrap_one(o, device) for o in out)
        return row.returns(*ts) if row.returns is not None else ts
    return _wrap_one(out, device)


def _wrap_one(o, device):
    if isinstance(o, jax.Array) or hasattr(o, "shape"):
        return wrap(o, device)
    return o


def call(row, args, out=None, key=None):
    """The function/method variant: new tensors, or written into `out`. When an operand
    requires grad (and grad mode is on) the outputs get a node of the autograd graph. Inside
    an autocast region, autocast's cast of the operands comes first (not for `out=`).
    `key`: the generated code's cache key for these arguments (see `fastpath`)."""
    if _FWAD[0]:
        from ..autograd import forward_ad
        if forward_ad.has_dual(args):
            return forward_ad.row_call(row, args, out, key, call)
    if _AUTOCAST[0] and out is None:
        args = _AUTOCAST_HOOK[0](row, args)
    bucket = row.bucket is not None and out is None and not _LAZY[0]
    p = prepare(row, args, bucket)
    if p is None:
        r = bucketed.call(row, args)
        if r is not None:
            return r
        buckets.unpad_all(args)
        p = prepare(row, args)
    k, dyn, device, tracked = p
    if not _LAZY[0]:
        res = k(*dyn)
    elif out is not None:
        dyn = _lazy.resolve(dyn)
        res = k(*dyn)
    else:
        res = _lazy.launch(k, dyn)
    if row.divisor is not None:  # after the kernel: shape errors come first, as in PyTorch
        _check_integer_divisor(row, args)
    if out is not None:
        if isinstance(out, Tensor):
            check_no_partial_overlap(out, args)
        _check_out_device(row, out, device or _CPU, args)
        if row.out_check is not None:
            row.out_check(args, res, out)
        if tracked:
            raise RuntimeError(f"{row.name}(): functions with out=... arguments don't support "
                               f"automatic differentiation, but one of the arguments requires "
                               f"grad.")
        return write_out(row, res, out)
    if type(res) is _ARRAY or type(res) is _PENDING:
        if tracked:
            t = wrap(res, device or _CPU)
            _record(row, k, dyn, tracked, (t,), True, args)
            return t
        t = buckets.settle(k, res, device or _CPU) if bucket else wrap(res, device or _CPU)
        if key is not None and device is not None and t._st._phys is None:
            fastpath.remember(row, key, k, res, args)
        return t
    result = _wrap_out(row, res, device)
    if tracked:
        outs = tuple(o for o in (result if isinstance(result, tuple) else (result,))
                     if isinstance(o, Tensor))
        _record(row, k, dyn, tracked, outs, not isinstance(res, (tuple, list)), args)
    return result


def _check_out_device(row, out, device, args):
    """`out=` tensors on another device than the operands raise PyTorch's error (its
    TensorIterator's for elementwise rows; for the others, the CUDA out wrapper's, which checks
    `out` first, and the CPU kernels' own check)."""
    for o in out if isinstance(out, (tuple, list)) else (out,):
        if isinstance(o, Tensor) and o._st.device != device:
            if row.devices is None:
                raise device_rules.same_device_error(device, o._st.device)
            if device.type == "cuda":
                raise device_rules.out_argument_error(row, args, device, o._st.device)
            raise RuntimeError(f"Expected out tensor to have device {device}, but got "
                               f"{o._st.device} instead")


def _record(row, k, dyn, tracked, outputs, single, args, inplace=False):
    """Attach the autograd node of one dispatched call (a row opts out with differentiable=False).
    `tracked` is prepare()'s list of (operand index, tensor, slot) plus the slot count."""
    if not row.differentiable:
        return
    auto = row.autograd
    if auto is None:
        from ..autograd.function import record
        from ..autograd.names import node_name, saved_names, saves
        auto = row.autograd = (record, node_name(row.name), saves(row.name), saved_names)
    record, name, policy, names_of = auto
    tensors = ()
    if policy != "none":
        tensors = [a for a in args if isinstance(a, Tensor)]
        for a in args:
            if isinstance(a, (list, tuple)):
                tensors.extend(t for t in a if isinstance(t, Tensor))
    entries = tracked[:-1]
    if type(policy) is not str:  # names.saves: the saved inputs depend on what is tracked
        policy, tensors = policy(row, args, entries)
    slots = (tracked[-1], tuple(p for _, _, p in entries))
    if type(name) is not str:  # a call-dependent node (names.Dynamic): name and edge layout
        name, slots = name(row, args, slots)
    record(name, k, dyn, [(i, t) for i, t, _ in entries], list(outputs), single, policy,
           tensors, inplace, slots,
           saved_names=names_of(row, args, tensors) if tensors else None)


def _pairs(tracked):
    """(operand index, tensor) pairs of prepare()'s `tracked`."""
    return [(i, t) for i, t, _ in tracked[:-1]]


def call_inplace(row, args, key=None):
    """The in-place variant: compute, check, then write through `args[0]`'s storage. On a
    strided view of a JAX buffer, read-compute-write is one fused kernel. `key`: as `call`'s."""
    if _FWAD[0]:
        from ..autograd import forward_ad
        if forward_ad.has_dual(args) or forward_ad.tangent_of(args[0]) is not None:
            return forward_ad.row_inplace(row, args, key, call_inplace)
    self = args[0]
    st = self._st
    check_no_partial_overlap(self, args[1:])
    if _GRAD[0] and _any_requires_grad(args):
        return _inplace_autograd(row, args)
    if self._natural or st._raw is None:
        k, dyn, _, _ = prepare(row, args, inplace=True)
        # the storage buffer is referenced only by the storage (and `dyn` and getrefcount's
        # argument): XLA may write the result into it, as PyTorch's in-place op does
        if _LAZY[0]:
            res = _lazy.launch(k, dyn)
        elif _DONATE and st._raw is not None and row.divisor is None and \
                _getrefcount(dyn[0]) == 3:
            res = _donating(row, k, self.dtype)(*dyn)
        else:
            res = k(*dyn)
        check_inplace(self, res)
        if row.divisor is not None:
            _check_integer_divisor(row, args)
        self._assign(res)
        if key is not None and (type(res) is _ARRAY or type(res) is _PENDING) and \
                not _DONATE:
            fastpath.remember(row, key, k, res, args)
        return self
    if has_internal_overlap(self._size, self._stride):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    k, dyn, _, _ = prepare(row, args, inplace=True)
    # the fused kernel bakes in the view's layout and dtype: they are part of its key
    fkey = (k, "inplace", self._size, self._stride, self.dtype)
    fk = row.kernels.get(fkey)
    if fk is None:
        fk = row.kernels[fkey] = _build_inplace(k, self._size, self._stride, self.dtype)
    if _LAZY[0]:
        new = _lazy.launch(fk, dyn)
    elif _DONATE and row.divisor is None and _getrefcount(dyn[0]) == 3:
        new = _donating(row, fk, self.dtype)(*dyn)
    else:
        new = fk(*dyn)
    if row.divisor is not None:
        _check_integer_divisor(row, args)
    st._data = new
    self._vc[0] += 1
    return self


def check_no_partial_overlap(written, inputs):
    """PyTorch's memory-overlap check: an input sharing memory with the tensor being written,
    but not exactly its elements (`x[1:].add_(x[:-1])`), raises. As PyTorch, layouts that are
    not dense (whose overlap is too hard to tell) pass."""
    st = written._st
    for a in inputs:
        if isinstance(a, Tensor) and a._st is st and a is not written and \
                _partial_overlap(written, a):
            raise RuntimeError("unsupported operation: some elements of the input tensor and "
                               "the written-to tensor refer to a single memory location. "
                               "Please clone() the tensor before performing the operation.")


def _partial_overlap(a, b):
    na, nb = math.prod(a._size), math.prod(b._size)
    if not na or not nb or dense_strides(a._size, a._stride) is None or \
            dense_strides(b._size, b._stride) is None:
        return False
    a0, b0 = a._offset * a.dtype.itemsize, b._offset * b.dtype.itemsize
    a1, b1 = a0 + na * a.dtype.itemsize, b0 + nb * b.dtype.itemsize
    if a0 == b0 and a1 == b1:
        return a._stride != b._stride
    return a0 < b1 and b0 < a1


_getrefcount = sys.getrefcount
# Buffer donation for in-place ops is opt-in (TORCHLIKE_DONATE=1) until two segfaulting CI
# workers are explained (both crashes happened after donation was introduced).
_DONATE = __import__("os").environ.get("TORCHLIKE_DONATE", "0") == "1"


def _donating(row, k, dtype):
    """`k` with its first operand (the storage buffer being overwritten) donated to XLA, once a
    plain call has shown the result keeps `dtype` (else `k` itself: nothing to reuse)."""
    key = (k, "donate", dtype)
    d = row.kernels.get(key)
    if d is None:
        d = row.kernels[key] = _DonateProbe(row, k, key, dtype)
    return d


class _DonateProbe:
    """First call: run `k` plainly and learn whether its result can reuse the input buffer."""

    __slots__ = ("row", "k", "key", "dtype")

    def __init__(self, row, k, key, dtype):
        self.row, self.k, self.key, self.dtype = row, k, key, dtype

    def __call__(self, *dyn):
        res = self.k(*dyn)
        same = (getattr(res, "dtype", None) == self.dtype.np and
                getattr(res, "shape", None) == getattr(dyn[0], "shape", None))
        self.row.kernels[self.key] = (jax.jit(self.k.__wrapped__, donate_argnums=0)
                                      if same else self.k)
        return res


def _any_requires_grad(args):
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
        if isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, Tensor) and t._requires_grad:
                    return True
    return False


def _inplace_autograd(row, args):
    """An in-place op inside a graph: PyTorch's leaf checks, then the op's node becomes `self`'s
    new history (a view's base is rebased through CopySlices)."""
    from ..autograd.inplace import check_inplace_allowed, rebase_history
    self = args[0]
    check_inplace_allowed(self)
    k, dyn, _, tracked = prepare(row, args, inplace=True)
    res = _lazy.launch(k, dyn) if _LAZY[0] else k(*dyn)
    check_inplace(self, res)
    if row.divisor is not None:
        _check_integer_divisor(row, args)
    if not row.differentiable or not tracked:
        self._assign(res)
        return self
    from ..autograd.names import static_name
    rebase_history(self, static_name(row.name, row, args), k, dyn, _pairs(tracked), res)
    return self


def _build_inplace(k, size, stride, dtype):
    """Fuse `k` (whose first operand is the view being written) with the write-back."""
    def fused(data, offset, *rest):
        res = k(data, offset, *rest)
        check_inplace_arrays(size, dtype, res)
        return write_impl(data, offset, res, size, stride)
    return programs.jit(fused, ("inplace", k, size, stride, dtype))


def check_inplace_arrays(size, dtype, res):
    # PyTorch checks the shape before the dtype
    if tuple(res.shape) != size:
        raise RuntimeError(f"output with shape {list(size)} doesn't match the broadcast "
                           f"shape {list(res.shape)}")
    rd = dt._BY_NP[res.dtype]
    if not dt.can_cast(rd, dtype):
        raise RuntimeError(f"result type {_short(rd)} can't be cast to the desired output type "
                           f"{_short(dtype)}")


def check_inplace(self, res):
    check_inplace_arrays(self._size, self.dtype, res)


def write_out(row, res, out):
    """Write kernel results into user-supplied `out=` tensor(s), resizing as PyTorch does."""
    if isinstance(res, (tuple, list)):
        if not isinstance(out, (tuple, list)) or len(out) != len(res):
            raise TypeError(f"{row.name}(): argument 'out' must be tuple of Tensors")
        for r, o in zip(res, out):
            _write_one_out(r, o)
        return row.returns(*out) if row.returns is not None else tuple(out)
    if not isinstance(out, Tensor):
        raise TypeError(f"{row.name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    _write_one_out(res, out)
    return out


def _write_one_out(r, o):
    rd = dt._BY_NP[r.dtype]
    if not dt.can_cast(rd, o.dtype):
        raise RuntimeError(f"result type {_short(rd)} can't be cast to the desired output type "
                           f"{_short(o.dtype)}")
    if tuple(r.shape) != o._size:
        if o.numel() != 0:
            import warnings
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(o._size)}, which does not match the required output shape "
                f"{list(r.shape)}. This behavior is deprecated, and in a future PyTorch release "
                f"outputs will not be resized unless they have zero elements. You can explicitly "
                f"reuse an out tensor t by resizing it, inplace, to zero elements with "
                f"t.resize_(0). (Triggered internally at "
                f"/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)", UserWarning,
                stacklevel=4)
        o.resize_(tuple(r.shape))
    o._assign(r)


_SHORT = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
          "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
          "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}


def _short(d):
    """PyTorch's short scalar-type name (Float, Long, ...), used in its error messages."""
    return _SHORT[d.name]


short_name = _short


# ---- generation --------------------------------------------------------------------------------

def _signature_source(fn, extra_kwonly=(), optional=()):
    """Source text for a parameter list copying `fn`'s, with defaults bound by name; a required
    parameter named in `optional` (one with a NumPy spelling, `cummax(axis=1)`) defaults to
    `_UNSET` where no required positional parameter follows it."""
    sig = inspect.signature(fn)
    parts, defaults, names = [], {}, []
    star_done = False
    params = list(sig.parameters.values())
    for i, p in enumerate(params):
        if p.default is p.empty and p.name in optional and p.kind == p.POSITIONAL_OR_KEYWORD and \
                all(q.default is not q.empty for q in params[i + 1:] if q.kind == p.kind):
            p = p.replace(default=_UNSET)
        if p.kind == p.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        if p.kind == p.VAR_POSITIONAL:
            parts.append("*" + p.name)
            star_done = True
            names.append(p.name)
            continue
        if p.default is p.empty:
            parts.append(p.name)
        else:
            defaults["_d_" + p.name] = p.default
            parts.append(f"{p.name}=_d_{p.name}")
        names.append(p.name)
    for name, default in extra_kwonly:
        if not star_done:
            parts.append("*")
            star_done = True
        defaults["_d_" + name] = default
        parts.append(f"{name}=_d_{name}")
    return ", ".join(parts), defaults, names


def _make(name, params_src, body, namespace):
    """A function `name(params_src)` whose body is the source lines `body` (which may name the
    function itself as `_self[0]`)."""
    src = f"def {name}({params_src}):\n" + "".join(f"    {line}\n" for line in body)
    ns = dict(namespace, _self=[None])
    exec(codecache.compiled(src, "<string>"), ns)  # noqa: S102 - from the op table's signatures
    ns["_self"][0] = ns[name]
    GENERATED.add(ns[name])
    return ns[name]


GENERATED = weakref.WeakSet()   # the functions `_make` generated (they handle
# `__torch_function__` themselves, see `_protocol_lines`)


def _renamed(fn, name):
    """A copy of generated function `fn` named `name` (an alias: `torch.absolute` of
    `torch.abs`), which hands itself to `__torch_function__` as PyTorch's alias does."""
    ns = dict(fn.__globals__, _self=[None])
    code = fn.__code__.replace(co_name=name, co_qualname=name)
    new = types.FunctionType(code, ns, name, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__, new.__doc__, new.__qualname__ = fn.__kwdefaults__, fn.__doc__, name
    ns["_self"][0] = new
    GENERATED.add(new)
    return new


def _protocol_lines(args_src, kwargs_src, func_src="_self[0]", dispatcher="_tf_dispatch"):
    """Lines handing a call to `__torch_function__` (see `overrides`) when the protocol is on:
    placed after the cached path, which never takes a subclass that uses it."""
    return ["if _TFA[0]:",
            f"    _r = {dispatcher}({func_src}, {args_src}, {kwargs_src})",
            "    if _r is not _TF_NOT_HANDLED:",
            "        return _r"]


def _call_args_src(row, exprs, out):
    """(positional, keyword) source of a generated function's arguments as passed on to
    `__torch_function__`: keyword-only parameters (and `out=`) by name."""
    kinds = {n: p.kind for n, p in inspect.signature(row.impl).parameters.items()}
    pos = [e for n, e in zip(row.names, exprs) if kinds.get(n) != inspect.Parameter.KEYWORD_ONLY]
    kw = [f"'{n}': {e}" for n, e in zip(row.names, exprs)
          if kinds.get(n) == inspect.Parameter.KEYWORD_ONLY]
    kw_src = "{" + ", ".join(kw) + "}"
    if out:
        kw_src = f"({kw_src} if out is None else dict({kw_src}, out=out))"
    return "(" + "".join(p + ", " for p in pos) + ")", kw_src


def op(name=None, *, pointwise=False, promote="default", tensors=None, lists=(), scalars=(),
       promoted=None, method=True, function=True, inplace=False, out=True, dunders=None,
       aliases=(), method_only_aliases=(), returns=None, family="misc", differentiable=True,
       nondiff_outputs=(), check=None, divisor=None, divisor_when=None, bucket=None,
       devices=None, ints=(), int_lists=None):
    """Register a pure JAX function as a torch op (one op-table row).

    `tensors` name the parameters that take tensors (or Python numbers, promoted as PyTorch's
    wrapped scalars); `lists` take sequences of tensors; `scalars` take numbers passed as traced
    values (no recompile per value); every other parameter is static. `promote` is PyTorch's
    promotion kind: "default", "int_to_float", None (no casting) or a callable on the promoted
    dtype. `dunders` maps dunder names to 'fwd', 'rev', 'inplace', 'fwd_ndarray' (forward,
    also taking a NumPy array as a tensor) or 'rev_div' (PyTorch's reflected division).
    `check(*dtypes)` sees the operands' original dtypes
    (before casting) once per dtype signature and may raise.
    `divisor` names the parameter whose zeros make an integer division raise PyTorch's
    ZeroDivisionError (optionally only when `divisor_when(args)` holds).
    `bucket` names how the row runs on operands padded to a size class (see `bucketed`;
    pointwise rows default to "pointwise").
    `devices`: (PyTorch's wrapper name, {parameter: PyTorch's argument name}), or a function of
    the arguments giving it, for a kernel whose operands PyTorch checks argument by argument
    (see `device_rules`); elementwise rows leave it None.
    `ints` name the parameters PyTorch's schema types `int` (`int?` where the default is None)
    and `int_lists` maps those it types `int[N]` to N (0: no single int stands for a list): a
    bool, float, ... there raises the TypeError of PyTorch's argument parser (see
    `check_int_args`).
    """
    def register(impl):
        row = Op()
        row.name = name or impl.__name__
        row.impl = impl
        row.pointwise = pointwise
        row.promote = promote
        sig = inspect.signature(impl)
        row.names = tuple(sig.parameters)
        first = row.names[0]
        row.tensors = frozenset(tensors if tensors is not None else (first,))
        row.lists = frozenset(lists)
        row.scalars = frozenset(scalars)
        row.promoted = frozenset(promoted if promoted is not None else row.tensors | row.lists)
        row.returns = returns
        row.kernels = {}
        row.dtypes = {}
        row.fast = {}
        row.family = family
        row.differentiable = differentiable
        row.nondiff_outputs = nondiff_outputs
        row.out_check = out if callable(out) else None   # out(args, result, out) raises
        row.check = check
        row.aliases = tuple(aliases) + tuple(method_only_aliases)
        row.divisor = row.names.index(divisor) if divisor else None
        row.divisor_when = divisor_when
        row.autograd = None  # (record, node name, saves policy, saved_names), resolved on first use
        row.opmath = True
        row.bucket = bucket or ("pointwise" if pointwise else None)
        row.devices = devices
        row.defaults = tuple(_scalar_default(p) for p in sig.parameters.values())
        row.plan = tuple(
            (_TP if n in row.promoted else _TN) if n in row.tensors else
            (_LP if n in row.promoted else _LN) if n in row.lists else
            _S if n in row.scalars else _C for n in row.names)
        OPS[row.name] = row
        _generate(row, method, function, inplace, bool(out), dunders or {}, aliases,
                  method_only_aliases)
        if ints or int_lists:
            check_int_args(row.name, ints, int_lists or {})
        return impl
    return register


# ---- PyTorch's argument parser on `int` / `int[]` parameters ----------------------------------

def _tp_name(v):
    t = type(v)
    return f"numpy.{t.__name__}" if t.__module__ == "numpy" else t.__name__


def _is_int(v):
    """Whether PyTorch's parser takes `v` for an `int`: an int (not a bool), a NumPy integer,
    a one-element integer tensor, or what has `__index__`."""
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    if isinstance(v, Tensor):
        return v.numel() == 1 and not (v.dtype.is_floating_point or v.dtype.is_complex)
    return not isinstance(v, (float, complex, np.inexact, str)) and \
        hasattr(type(v), "__index__")


def _as_int(v):
    return int(v.item()) if isinstance(v, Tensor) else operator.index(v)


def _int_arg(fname, name, v, pos, size):
    """`v` given to `int` (`size` None) or `int[size]` parameter `name` (`pos`: its position,
    None for a keyword) as PyTorch's parser takes it (ints for NumPy integers, one-element
    tensors, ...), or its TypeError."""
    where = f"argument '{name}'" + (f" (position {pos})" if pos is not None else "")
    if size is None:
        if _is_int(v):
            return _as_int(v)
        raise TypeError(f"{fname}(): {where} must be int, not {_tp_name(v)}")
    if isinstance(v, (list, tuple)):
        if v and not _is_int(v[0]):
            raise TypeError(f"{fname}(): {where} must be tuple of ints, but found element of "
                            f"type {_tp_name(v[0])} at pos 0")
        for i, e in enumerate(v[1:], 2):   # later elements are unpacked as indices (bools too)
            if not (isinstance(e, (bool, np.bool_)) or _is_int(e)):
                raise TypeError(f"{fname}(): argument '{name}' failed to unpack the object at "
                                f"pos {i} with error \"type must be tuple of ints,but got "
                                f"{_tp_name(e)}\"")
        return v if all(type(e) is int for e in v) else tuple(_as_int(e) for e in v)
    if size and _is_int(v):
        return _as_int(v)
    raise TypeError(f"{fname}(): {where} must be tuple of ints, not {_tp_name(v)}")


def check_int_args(name, ints=(), int_lists=None):
    """Wrap row `name`'s function, method and in-place variants (under every alias) so that
    its `int` parameters `ints` and `int[N]` parameters `int_lists` ({name: N}) take what
    PyTorch's argument parser takes (as Python ints); anything else raises its TypeError,
    before dispatch. A parameter defaulting to None (`int?`) also takes None."""
    row = OPS[name]
    sizes = dict.fromkeys(ints, None)
    sizes.update(int_lists or {})
    params = inspect.signature(row.impl).parameters
    checks = tuple((i, n, sizes[n], params[n].default is None)
                   for i, n in enumerate(row.names) if n in sizes)

    def make(fn, fname, method):
        def convert(args, kwargs):
            new_args = new_kwargs = None
            for i, n, size, optional in checks:
                if i < len(args):
                    v = args[i]
                elif n in kwargs:
                    v = kwargs[n]
                else:
                    continue
                if type(v) is int or v is None and optional or \
                        type(v) is tuple and size is not None and \
                        all(type(e) is int for e in v):
                    continue
                if i < len(args):
                    new_args = new_args or list(args)
                    new_args[i] = _int_arg(fname, n, v, i if method else i + 1, size)
                else:
                    new_kwargs = new_kwargs or dict(kwargs)
                    new_kwargs[n] = _int_arg(fname, n, v, None, size)
            return (args if new_args is None else tuple(new_args),
                    kwargs if new_kwargs is None else new_kwargs)
        w = frames.define(source, {"fn": fn, "convert": convert}, "with_int_args")
        w.__name__, w.__qualname__, w.__doc__ = fname, fname, fn.__doc__
        return w
    source = _INT_ARGS_WRAPPER.format(_int_args_suspect(checks))
    names = (row.name,) + tuple(row.aliases)
    for table, method in ((FUNCTIONS, False), (METHODS, True)):
        for k in names:
            for n in (k, k + "_"):
                if n in table:
                    table[n] = make(table[n], n, method)


def _int_args_suspect(checks):
    """Source of the wrapper's test for arguments that need `convert` (anything but plain ints
    where ints go, and None where that is the default): a few type checks, no call."""
    conds = []
    for i, n, size, optional in checks:
        if size is not None:   # a list of ints: always converted
            return "True"
        v, kv = f"args[{i}]", f"kwargs.get({n!r}, 0)"
        conds.append(f"(n > {i} and " + (f"{v} is not None and " if optional else "") +
                     f"type({v}) is not int)")
        conds.append("(kwargs and " + (f"{kv} is not None and " if optional else "") +
                     f"type({kv}) is not int)")
    return " or ".join(conds)


# invisible to `warnings` (see `frames`): a warning the op raises names the user's line
_INT_ARGS_WRAPPER = """
def with_int_args(*args, **kwargs):
    n = len(args)
    if {}:
        args, kwargs = convert(args, kwargs)
    return fn(*args, **kwargs)
"""


# NumPy spellings PyTorch's argument parser accepts for these parameters (`x.sum(axis=1)`)
_NUMPY_NAMES = {"dim": "axis", "keepdim": "keepdims"}
_UNSET = object()


def _either(v, np_v, row, name):
    """A required parameter given by its name or its NumPy spelling (`x.cummax(axis=1)`)."""
    if np_v is not _UNSET:
        return np_v
    if v is _UNSET:
        raise TypeError(f'{row.name}() missing 1 required positional arguments: "{name}"')
    return v


def numpy_names(fn, name=None):
    """`fn` (a Python-level frontend taking `dim`/`keepdim`) also taking PyTorch's NumPy
    spellings `axis=` and `keepdims=`, as the op table's generated functions do."""
    ns = {"fn": fn, "n": name or fn.__name__, "from_numpy_names": from_numpy_names}
    # invisible to `warnings`: a warning `fn` raises names the user's line, as PyTorch's does
    return functools.wraps(fn)(frames.define(_NUMPY_NAMES_WRAPPER, ns, "with_numpy_names"))


_NUMPY_NAMES_WRAPPER = """
def with_numpy_names(*args, **kwargs):
    if kwargs and ("axis" in kwargs or "keepdims" in kwargs):
        kwargs = from_numpy_names(kwargs, n)
    return fn(*args, **kwargs)
"""


def from_numpy_names(kwargs, name):
    """`kwargs` with `axis`/`keepdims` renamed `dim`/`keepdim` (both spellings: PyTorch's
    TypeError)."""
    kwargs = dict(kwargs)
    for torch_name, np_name in _NUMPY_NAMES.items():
        if np_name in kwargs:
            if torch_name in kwargs:
                raise TypeError(f"{name}() got an unexpected keyword argument '{np_name}'")
            kwargs[torch_name] = kwargs.pop(np_name)
    return kwargs


def _generate(row, method, function, inplace, out, dunders, aliases, method_only_aliases):
    np_names = {n: _NUMPY_NAMES[n] for n in row.names if n in _NUMPY_NAMES}
    extra = tuple((a, _UNSET) for a in np_names.values())
    required = {n for n, p in inspect.signature(row.impl).parameters.items()
                if n in np_names and p.default is p.empty}
    params, defaults, names = _signature_source(row.impl, ((("out", None),) if out else ()) +
                                                extra, np_names)
    ns = dict(defaults, _row=row, _call=call, _call_inplace=call_inplace, _UNSET=_UNSET,
              _either=_either, **_GENERATED_NS, **fastpath.namespace(row))
    # a NumPy spelling given (`axis=1`) stands for the PyTorch one (`dim=1`)
    prologue = [f"{n} = _either({n}, {a}, _row, '{n}')" if n in required else
                f"{n} = {n} if {a} is _UNSET else {a}" for n, a in np_names.items()]
    exprs = list(row.names)
    fn = _make(row.name, params, _body(row, prologue, exprs, "call", out), ns)
    fn.__doc__ = f"Mirrors `torch.{row.name}`."
    fn.__qualname__ = row.name
    meth = fn
    if out:
        mparams, mdefaults, _ = _signature_source(row.impl, extra, np_names)
        meth = _make(row.name, mparams, _body(row, prologue, exprs, "call"),
                     dict(ns, **mdefaults))
        meth.__doc__ = f"Mirrors `Tensor.{row.name}`."
    copies = {}

    def named(f, n):   # an alias is its own function (PyTorch hands it to __torch_function__)
        if n == f.__name__:
            return f
        if (f, n) not in copies:
            copies[f, n] = _renamed(f, n)
        return copies[f, n]
    if function:
        for n in (row.name,) + tuple(aliases):
            FUNCTIONS[n] = named(fn, n)
    if method:
        for n in (row.name,) + tuple(aliases) + tuple(method_only_aliases):
            METHODS[n] = named(meth, n)
    if inplace:
        iparams, idefaults, _ = _signature_source(row.impl, extra, np_names)
        ip = _make(row.name + "_", iparams, _body(row, prologue, exprs, "inplace"),
                   dict(ns, **idefaults))
        ip.__doc__ = f"Mirrors `Tensor.{row.name}_`."
        for n in (row.name,) + tuple(aliases) + tuple(method_only_aliases):
            METHODS[n + "_"] = named(ip, n + "_")
        if function:
            for n in (row.name,) + tuple(aliases):
                FUNCTIONS[n + "_"] = named(ip, n + "_")
    for dunder, mode in dunders.items():
        assert not np_names and (mode != "inplace" or inplace), row.name
        METHODS[dunder] = _dunder(row, dunder, mode, ns)


def _body(row, prologue, exprs, mode, out=False, protocol_args=None):
    """Source lines of a generated function: the cached path (see `fastpath`), then the
    dispatcher, told the key its answer may be stored under."""
    args = "(" + "".join(e + ", " for e in exprs) + ")"
    protocol = _protocol_lines(*(protocol_args or _call_args_src(row, exprs, out)))
    if not fastpath.eligible(row):
        tail = f"_call(_row, {args}{', out' if out else ''})" if mode == "call" else \
            f"_call_inplace(_row, {args})"
        return prologue + protocol + [f"return {tail}"]
    guard = "not _FWAD[0]" if mode == "inplace" else \
        "out is None and not _AUTOCAST[0] and not _FWAD[0]" if out else \
        "not _AUTOCAST[0] and not _FWAD[0]"
    tail = f"_call(_row, {args}, {'out' if out else 'None'}, key)" if mode == "call" else \
        f"_call_inplace(_row, {args}, key)"
    return prologue + fastpath.source(row, exprs, mode, guard) + protocol + [f"return {tail}"]


# Operator dunders: (parameters, how they fill the row's first parameters, prologue, whether an
# unsupported `other` returns NotImplemented, dispatch mode)
_DUNDERS = {
    "fwd": ("self, other", ("self", "other"), [], True, "call"),
    # PyTorch's `t == ndarray` compares with the array as a tensor
    "fwd_ndarray": ("self, other", ("self", "other"),
                    ["if isinstance(other, _ndarray):",
                     "    other = _FUNCTIONS['as_tensor'](other)"], True, "call"),
    # PyTorch's __rdiv__: `self.reciprocal() * other`, so an ndarray on the left multiplies
    # through NumPy (`ndarray / t` is a Tensor)
    "rev_div": ("self, other", ("other", "self"),
                ["if isinstance(other, _ndarray):",
                 "    return _FUNCTIONS['reciprocal'](self) * other"], True, "call"),
    "rev": ("self, other", ("other", "self"), [], True, "call"),
    "inplace": ("self, other", ("self", "other"), [], True, "inplace"),
    "unary": ("self", ("self",), [], False, "call"),
}


def _dunder(row, name, mode, ns):
    """An operator dunder: the row's method on (self, other), the other parameters at their
    defaults, generated with the cached path inline (no extra call frame)."""
    params, first, prologue, operand_check, dispatch = _DUNDERS.get(mode, _DUNDERS["unary"])
    exprs = list(first) + [f"_d_{n}" for n in row.names[len(first):]]
    # `__torch_function__` sees the public function PyTorch names (`Tensor.add` for `x + y`); a
    # binary operator no handler implements returns NotImplemented
    public = overrides.DUNDER_PUBLIC.get(name)
    py = name in overrides._PY_LEVEL["Tensor"][1]   # PyTorch's is a Python function
    dispatcher = "_tf_dispatch" + ("_binary" if overrides.is_binary_dunder(name) else "") + (
        "_py" if py else "")
    body = _body(row, prologue, exprs, dispatch, protocol_args=(
        f"({params},)", "{}" if py else "None", f"_T.{public}" if public else "_self[0]",
        dispatcher))
    if operand_check:  # after the cached path, which only ever matches tensors and numbers
        body[-1:-1] = ["if not isinstance(other, _OPERAND):", "    return NotImplemented"]
    return _make(name, params, body, ns)


def takes_dtype(fn, name=None):
    """`fn` with its `dtype` argument read as PyTorch's parser reads it (`dtype=float` is
    float64, `dtype=int` int64; a string or NumPy type raises PyTorch's TypeError), for
    Python-level frontends (creation functions, samplers) that take one."""
    params = list(inspect.signature(fn).parameters.values())
    names = [p.name for p in params]
    if "dtype" not in names:
        return fn
    n = name or fn.__name__
    p = params[names.index("dtype")]
    pos = names.index("dtype") if p.kind == p.POSITIONAL_OR_KEYWORD else None
    to_dtype, dtype_type = dt.to_dtype, dt.dtype

    @functools.wraps(fn)
    def with_dtype(*args, **kwargs):
        d = kwargs.get("dtype")
        if d is not None and type(d) is not dtype_type:
            kwargs["dtype"] = to_dtype(d, n)
        if pos is not None and len(args) > pos:
            d = args[pos]
            if d is not None and type(d) is not dtype_type:
                args = args[:pos] + (to_dtype(d, n),) + args[pos + 1:]
        return fn(*args, **kwargs)
    return with_dtype


def publish(fn, name=None, *, method=True, function=True, aliases=(), dtype_arg=False):
    """Publish a Python-level op (its own frontend) as `torch.X` and/or `Tensor.X`;
    `dtype_arg`: its `dtype` argument is normalised first (see `takes_dtype`)."""
    n = name or fn.__name__
    if dtype_arg:
        fn = takes_dtype(fn, n)
    fn.__doc__ = fn.__doc__ or f"Mirrors `torch.{n}`."
    if function:
        for a in (n,) + tuple(aliases):
            FUNCTIONS[a] = fn
    if method:
        for a in (n,) + tuple(aliases):
            METHODS[a] = fn
    OPS.setdefault(n, None)
    return fn


def function(name=None, *, method=True, function=True, aliases=(), family="misc"):
    """Decorator form of `publish` for ops composed of other ops (no kernel of their own)."""
    def register(fn):
        return publish(fn, name, method=method, function=function, aliases=aliases)
    return register


# what every generated function's code reads
_GENERATED_NS = {"_AUTOCAST": _AUTOCAST, "_FWAD": _FWAD, "_GRAD": _GRAD,
                 "_reg": sys.modules[__name__],
                 "_check_integer_divisor": _check_integer_divisor,
                 "_OPERAND": (Tensor,) + _NUMBER, "_ndarray": np.ndarray,
                 "_FUNCTIONS": FUNCTIONS, "_TFA": overrides.ACTIVE,
                 "_tf_dispatch": overrides.dispatch, "_tf_dispatch_py": overrides.dispatch_py,
                 "_tf_dispatch_binary": overrides.dispatch_binary,
                 "_tf_dispatch_binary_py": overrides.dispatch_binary_py,
                 "_TF_NOT_HANDLED": overrides._NOT_HANDLED}


def install():
    """Attach every generated method to `Tensor` (called once the op modules are imported)."""
    for n, f in METHODS.items():
        setattr(Tensor, n, f)
