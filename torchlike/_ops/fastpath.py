"""The cached path of the generated op functions: source text, and the cache it reads.

A call whose tensors are all plain (natural layout over a JAX buffer, no autograd recording, no
autocast, no `out=`) is fully determined by a cheap key: each tensor's dtype, size and device,
each Python number's type (or "the parameter's default"), each static argument and its type. The
first such call goes through the dispatcher (`registry.call` / `call_inplace`), which stores
what it found under that key: the kernel and the result's dtype, size and strides. Later calls
with the same key skip the dispatcher: they read the operands, call the kernel and wrap the
result. The generated code is unrolled per op-table row (one branch per parameter), so the
common call costs a few attribute reads and one dict lookup.

The key never holds a value that is traced (a number's value, a tensor's elements), so this
cache adds no kernels: it only remembers the dispatcher's answers.
"""
import math

from .._core import dtype as dt, lazy
from .._core.layout import contiguous_strides
from .._core.tensor import Tensor, fresh

# plan kinds, as registry numbers them
_TP, _TN, _LP, _LN, _S, _C = range(6)

_PYNUM = frozenset((bool, int, float, complex))
_STATIC_TYPES = frozenset((int, float, bool, str, type(None), dt.dtype))
DEFAULT = "default"   # key part of a scalar argument equal to its parameter's default
_SKIP = object()      # a scalar argument left None: a static of the kernel, not an operand


class Entry(tuple):
    """(kernel, result dtype, size, stride, numel, fits_first): `fits_first` when the result
    can be written straight into the first operand's buffer (same dtype and size)."""

    __slots__ = ()


def eligible(row):
    """Rows with a tensor parameter and no tensor-list parameter."""
    return all(kind not in (_LP, _LN) for kind in row.plan) and \
        any(kind <= _TN for kind in row.plan)


def remember(row, key, k, res, args):
    """Store the dispatcher's answer for `key` (see the module docstring); `res` is the single
    concrete result array of `k`. Not when a static argument is a tensor or a list (the
    dispatcher reads their values, which the key does not hold)."""
    if not all(kind != _C or _plain_static(v) for kind, v in zip(row.plan, args)):
        return
    devices = {a._st.device for a in args if isinstance(a, Tensor)}
    if len(devices) > 1:  # a 0-dim CPU tensor the dispatcher moved (see device_rules)
        return
    first = args[0]
    dtype = dt._BY_NP[res.dtype]
    size = res.shape
    fits = isinstance(first, Tensor) and first.dtype is dtype and first._size == size
    if len(row.fast) > 4096:  # shapes that never come back
        row.fast.clear()
    row.fast[key] = Entry((k, dtype, size, contiguous_strides(size), math.prod(size), fits))


def _plain_static(v):
    """A static argument the key holds by value: a number, string, dtype, None, or a tuple of
    those (dims)."""
    if type(v) is tuple:
        return all(_plain_static(x) for x in v)
    return type(v) in _STATIC_TYPES


def source(row, exprs, mode, guard):
    """Lines (indented for a function body) of the cached path for `row`, whose arguments are
    the expressions `exprs` (one per impl parameter). `mode` "call" returns a new tensor,
    "inplace" writes through the first operand. `guard` is the loop condition (a Python
    expression) under which the path may run. After the lines, `key` is None or the key the
    dispatcher should store its answer under."""
    lines = ["key = None", f"while {guard}:"]
    body = []
    parts, operands = [], []
    tensor_seen = False
    for j, (kind, name, v) in enumerate(zip(row.plan, row.names, exprs)):
        if kind <= _TN:
            optional = tensor_seen and _defaults_to_none(row, name)
            body += _tensor_slot(j, v, row, first=not tensor_seen, optional=optional)
            tensor_seen = True
            parts += [f"k{j}", f"z{j}", f"c{j}"]
            expr = (f"d{j} if z{j} is not None else _reg.weak_operand(d{j}, dev)"
                    if row.promote is None else
                    f"d{j} if z{j} is not None else _reg._device_scalar(d{j}, dev)")
            if optional:   # None is a static of the kernel: no operand
                expr = f"*(() if d{j} is _SKIP else ({expr},))"
            operands.append(expr)
        elif kind == _S and v == f"_d_{name}" and type(row.defaults[j]) in (bool, int, float):
            # an operator dunder passes the parameter's default itself: a kernel constant
            parts.append("_DEFAULT")
            operands.append("None")
        elif kind == _S:
            body += _scalar_slot(j, v, row)
            parts.append(f"k{j}")
            expr = (f"_reg.weak_operand(d{j}, dev)" if row.promote is None else
                    f"d{j} if d{j} is None else _reg._device_scalar(d{j}, dev)")
            if row.defaults[j] is None:   # None is a static of the kernel: no operand
                expr = f"*(() if d{j} is _SKIP else ({expr},))"
            operands.append(expr)
        else:
            parts += [v, f"type({v})"]
    body += [f"key = ({', '.join(parts)},)",
             "try:",
             "    e = _fast_get(key)",
             "except TypeError:  # an unhashable static argument (a list of dims)",
             "    key = None",
             "    break"]
    if mode == "inplace":
        body += ["if e is None or not e[5]:", "    break"]
    else:
        body += ["if e is None:", "    break"]
    ops = ", ".join(o if o.startswith("*") else f"({o})" for o in operands)
    # under fused eager the call is recorded (see _core/lazy.py)
    body += ["if _LZ[0]:", f"    res = _launch(e[0], ({ops},))", "else:",
             f"    res = e[0]({ops})"]
    if row.divisor is not None:
        body.append(f"_check_integer_divisor(_row, ({', '.join(exprs)},))")
    if mode == "inplace":   # (the storage's raw slot unless the result is Pending)
        body += ["if _LZ[0]:", "    s0._data = res", "else:", "    s0._raw = res",
                 f"{exprs[0]}._vc[0] += 1", f"return {exprs[0]}"]
    else:
        body.append("return _fresh(res, dev, e[1], e[2], e[3], e[4])")
    return lines + ["    " + b for b in body]


def _defaults_to_none(row, name):
    """Whether the row's tensor parameter `name` is optional (defaults to None)."""
    import inspect
    p = inspect.signature(row.impl).parameters.get(name)
    return p is not None and p.default is None


def _tensor_slot(j, v, row, first, optional=False):
    """A tensor parameter: a plain tensor (or a Python number, as a wrapped scalar; or None
    where the parameter is `optional`)."""
    dev = f"dev = s{j}.device" if first else f"if dev is None: dev = s{j}.device"
    lines = [f"if type({v}) is _T or isinstance({v}, _T) and not {v}._tf:",
             f"    if not {v}._natural or g and {v}._requires_grad:",
             "        break",
             f"    s{j} = {v}._st",
             f"    d{j} = s{j}._raw",
             f"    if d{j} is None:",
             "        break",
             f"    {dev}",
             f"    c{j} = s{j}.device",
             f"    k{j} = {v}.dtype",
             f"    z{j} = {v}._size",
             f"elif type({v}) in _PYNUM:",
             f"    d{j} = {v}",
             f"    k{j} = type({v})",
             f"    z{j} = c{j} = None"]
    if optional:
        lines += [f"elif {v} is None:", f"    d{j} = _SKIP", f"    k{j} = z{j} = c{j} = None"]
    if first:
        lines.append("    dev = None")
    lines += ["else:", "    break"]
    if first:
        lines.insert(0, "g = _GRAD[0]")
    return lines


def _scalar_slot(j, v, row):
    """A scalar parameter: its default (a constant of the kernel) or a Python number."""
    d = row.defaults[j]
    lines = []
    if type(d) in (bool, int, float):
        cond = f"type({v}) is _dc{j} and {v} == _dv{j}"
        if type(d) is float and d == 0.0:  # -0.0 is not the default 0.0
            cond += f" and _copysign(1.0, {v}) == _copysign(1.0, _dv{j})"
        cond = f"{v} is _dv{j} or {cond}"  # the argument left out: the default object itself
        lines += [f"if {cond}:", f"    d{j} = None", f"    k{j} = _DEFAULT",
                  f"elif type({v}) in _PYNUM:"]
    elif d is None:   # `clamp(min=0)`: max=None keys the kernel and passes nothing
        lines += [f"if {v} is None:", f"    d{j} = _SKIP", f"    k{j} = None",
                  f"elif type({v}) in _PYNUM:"]
    else:
        lines.append(f"if type({v}) in _PYNUM:")
    lines += [f"    d{j} = {v}", f"    k{j} = type({v})", "else:", "    break"]
    return lines


def namespace(row):
    """Names the generated code reads, besides the registry's own."""
    ns = {"_T": Tensor, "_PYNUM": _PYNUM, "_DEFAULT": DEFAULT, "_SKIP": _SKIP,
          "_LZ": lazy.ON, "_launch": lazy.launch,
          "_fast_get": row.fast.get,
          "_copysign": math.copysign, "_fresh": fresh}
    for j, d in enumerate(row.defaults):
        if type(d) in (bool, int, float):
            ns[f"_dc{j}"], ns[f"_dv{j}"] = type(d), d
    return ns
