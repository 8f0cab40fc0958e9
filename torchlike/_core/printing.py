"""Tensor repr/str, byte-for-byte as PyTorch's `torch/_tensor_str.py` prints them.

The tensor is read out once as a NumPy array; summarisation (past `threshold` elements only the
first/last `edgeitems` of every long dimension are shown) is done by slicing that array, and every
element is formatted with Python's own float/int formatting of its exact double value, which is
what PyTorch does through `Tensor.tolist()` / `Tensor.item()`.

Mirrors `torch.set_printoptions`, `torch.get_printoptions` and
`torch._tensor_str.printoptions`.
"""
import contextlib
import math

import numpy as np

from . import dtype as dt
from .grad_state import FORWARD_AD as _FWAD

# ---- options -----------------------------------------------------------------------------------

_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
_OPTS = dict(_DEFAULTS, sci_mode=None)

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Mirrors `torch.set_printoptions`.

    `profile` ('default', 'short', 'full') resets precision/threshold/edgeitems/linewidth first;
    the other arguments then override it. `sci_mode` is always set (None = automatic).
    """
    if profile is not None and profile in _PROFILES:
        _OPTS.update(_PROFILES[profile])
    if precision is not None:
        _OPTS["precision"] = precision
    if threshold is not None:
        _OPTS["threshold"] = threshold
    if edgeitems is not None:
        _OPTS["edgeitems"] = edgeitems
    if linewidth is not None:
        _OPTS["linewidth"] = linewidth
    _OPTS["sci_mode"] = sci_mode


def get_printoptions():
    """Mirrors `torch.get_printoptions`: a dict that can be passed back to `set_printoptions`."""
    return {k: _OPTS[k] for k in ("precision", "threshold", "edgeitems", "linewidth",
                                  "sci_mode")}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Mirrors `torch._tensor_str.printoptions`: temporarily change the print options."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---- element formatting ------------------------------------------------------------------------

class _Formatter:
    """Decides one column width and one float style (int / fixed / scientific) for a tensor."""

    __slots__ = ("floating", "int_mode", "sci_mode", "max_width", "precision")

    def __init__(self, values, floating):
        # `values`: flat NumPy array (float64 for floating tensors, else the integer/bool array)
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        self.precision = p = _OPTS["precision"]
        if not floating:
            if values.size:
                # the widest string is the one of the largest or the smallest value
                if values.dtype == np.bool_:
                    self.max_width = 5 if not values.all() else 4
                else:
                    self.max_width = max(1, len(str(values.max().item())),
                                         len(str(values.min().item())))
            return
        nz = values[np.isfinite(values) & (values != 0)]
        if nz.size == 0:
            return
        absv = np.abs(nz)
        lo, hi = absv.min(), absv.max()
        self.int_mode = not bool(np.any(nz != np.ceil(nz)))
        sci = _OPTS["sci_mode"]
        if sci is None:
            self.sci_mode = bool(hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)
        else:
            self.sci_mode = sci
        vals = nz.tolist()
        if self.sci_mode:
            fmt = f"{{:.{p}e}}".format
            self.max_width = max(1, max(len(fmt(v)) for v in vals))
        elif self.int_mode:
            self.max_width = max(1, max(len(f"{v:.0f}") + 1 for v in vals))
        else:
            fmt = f"{{:.{p}f}}".format
            self.max_width = max(1, max(len(fmt(v)) for v in vals))

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating:
            if self.sci_mode:
                ret = f"{{:{self.max_width}.{self.precision}e}}".format(value)
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{{:.{self.precision}f}}".format(value)
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _complex_str(val, f1, f2):
    real_str = f1.format(val.real)
    imag_str = (f2.format(val.imag) + "j").lstrip()
    if imag_str[0] == "+" or imag_str[0] == "-":
        return real_str + imag_str
    return real_str + "+" + imag_str


# ---- layout ------------------------------------------------------------------------------------

def _summarized(a, edge):
    """The elements PyTorch's `get_summarized_data` keeps (used to pick the formatter)."""
    if a.ndim == 0:
        return a
    if edge == 0:
        # a 1-D tensor keeps everything (`t[:0]` + `t[-0:]`); higher ranks keep nothing
        return a if a.ndim == 1 else a[(slice(0, 0),) * a.ndim]
    for axis, n in enumerate(a.shape):
        if n > 2 * edge:
            idx = np.r_[0:edge, n - edge:n]
            a = np.take(a, idx, axis=axis)
    return a


def _vector_str(row, n, indent, summarize, fmt_one, elem_len):
    """`row`: Python list of the (possibly summarised) elements; `n`: the real length."""
    edge = _OPTS["edgeitems"]
    linewidth = _OPTS["linewidth"]
    per_line = max(1, math.floor((linewidth - indent) / elem_len))
    if summarize and not edge:
        data = ["..."]
    elif summarize and n > 2 * edge:
        data = ([fmt_one(v) for v in row[:edge]] + [" ..."]
                + [fmt_one(v) for v in row[len(row) - edge:]])
    else:
        data = [fmt_one(v) for v in row]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nd_str(rows, shape, indent, summarize, fmt_one, elem_len):
    """`rows`: nested Python lists of the (possibly summarised) elements; `shape`: real shape."""
    dim = len(shape)
    if dim == 1:
        return _vector_str(rows, shape[0], indent, summarize, fmt_one, elem_len)
    edge = _OPTS["edgeitems"]
    n = shape[0]
    sub = shape[1:]
    if summarize and n > 2 * edge:
        m = len(rows)
        slices = ([_nd_str(rows[i], sub, indent + 1, summarize, fmt_one, elem_len)
                   for i in range(edge)]
                  + ["..."]
                  + [_nd_str(rows[i], sub, indent + 1, summarize, fmt_one, elem_len)
                     for i in range(m - edge, m)])
    else:
        slices = [_nd_str(r, sub, indent + 1, summarize, fmt_one, elem_len) for r in rows]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _as_float64(a):
    if a.dtype != np.float64:
        if a.dtype.name == "bfloat16":
            a = a.astype(np.float32)
        a = a.astype(np.float64)
    return a


def _tensor_str(a, d, indent):
    """The bracketed body for NumPy array `a` holding the elements of a tensor of dtype `d`."""
    if a.size == 0:
        return "[]"
    summarize = a.size > _OPTS["threshold"]
    edge = _OPTS["edgeitems"]
    shape = a.shape
    if summarize:
        # only the kept elements are formatted (and pick the formatter), as in PyTorch
        a = _summarized(a, edge)
    if d.is_complex:
        a = a.astype(np.complex128)
        f1 = _Formatter(a.real.ravel(), True)
        f2 = _Formatter(a.imag.ravel(), True)
        elem_len = f1.width() + 2 + f2.width() + 1

        def fmt_one(v):
            return _complex_str(v, f1, f2)
    else:
        floating = d.is_floating_point
        if floating:
            a = _as_float64(a)
        f1 = _Formatter(a.ravel(), floating)
        elem_len = f1.width() + 2
        fmt_one = f1.format
    if a.ndim == 0:
        return fmt_one(a.item())
    return _nd_str(a.tolist(), shape, indent, summarize, fmt_one, elem_len)


def _add_suffixes(tensor_str, suffixes, indent, force_newline=False):
    out = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    linewidth = _OPTS["linewidth"]
    for suffix in suffixes:
        n = len(suffix)
        if force_newline or last_line_len + n + 2 > linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + n
            force_newline = False
        else:
            out.append(", " + suffix)
            last_line_len += n + 2
    out.append(")")
    return "".join(out)


# ---- entry point -------------------------------------------------------------------------------

def _is_parameter_class(c):
    return c.__name__ == "Parameter" and c.__module__.startswith("torchlike")


def _default_device_type():
    import torchlike
    getter = getattr(torchlike, "get_default_device", None)
    if getter is None:
        return "cpu"
    try:
        return getter().type
    except Exception:  # noqa: BLE001 - a half-built namespace must not break printing
        return "cpu"


def _device_suffix(t):
    dev = t.device
    show = dev.type != _default_device_type() or dev.type == "mps"
    if not show and dev.type == "cuda":
        import torchlike
        cur = getattr(getattr(torchlike, "cuda", None), "current_device", None)
        try:
            show = cur is not None and cur() != dev.index
        except Exception:  # noqa: BLE001
            show = False
    return f"device='{dev}'" if show else None


def _grad_fn_name(g):
    name = type(g).__name__
    nm = getattr(g, "name", None)
    if name == "CppFunction" or name in ("Node", "GradFn", "Function", "BackwardNode"):
        if callable(nm):
            name = nm()
        elif isinstance(nm, str):
            name = nm
        name = name.rsplit("::", 1)[-1]
    return name


def tensor_repr(t, tensor_contents=None):
    """`repr(t)` exactly as PyTorch 2.13 prints it."""
    from .tensor import Tensor
    from . import device_asserts
    if device_asserts.PENDING:
        device_asserts.check()
    cls = type(t)
    is_plain = cls is Tensor or _is_parameter_class(cls)
    prefix = "tensor(" if is_plain else f"{type(t).__name__}("
    indent = len(prefix)
    suffixes = []

    dev = _device_suffix(t)
    if dev:
        suffixes.append(dev)

    d = t.dtype
    default = dt.get_default_dtype()
    default_complex = dt.complex128 if default is dt.float64 else dt.complex64
    has_default_dtype = d in (default, default_complex, dt.int64, dt.bool_)
    edge = _OPTS["edgeitems"]
    size = tuple(t.shape)
    numel = 1
    for s in size:
        numel *= s

    if t.device.type == "meta":   # no values to print: the size stands for them
        suffixes.append("size=" + str(size))
        if d is not default:
            suffixes.append("dtype=torch." + d.name)
        tensor_str = "..."
    elif numel == 0:
        if len(size) != 1:
            suffixes.append("size=" + str(size))
        if d is not default:
            suffixes.append("dtype=torch." + d.name)
        tensor_str = "[]" if tensor_contents is None else tensor_contents
    else:
        if not edge:
            suffixes.append("size=" + str(size))
        if not has_default_dtype:
            suffixes.append("dtype=torch." + d.name)
        if tensor_contents is None:
            tensor_str = _tensor_str(np.asarray(t._value()), d, indent)
        else:
            tensor_str = tensor_contents

    g = getattr(t, "grad_fn", None)
    if g is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(g)}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    tangent = t.__dict__.get("_fw_tangent") if _FWAD[0] else None
    if tangent is not None:
        suffixes.append(f"tangent={tensor_repr(tangent)}")

    out = _add_suffixes(prefix + tensor_str, suffixes, indent)
    if not is_plain and any(_is_parameter_class(c) for c in cls.__mro__):
        out = f"Parameter({out})"
    return out
