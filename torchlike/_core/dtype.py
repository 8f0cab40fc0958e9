"""torch dtypes and PyTorch's type-promotion rules.

Mirrors `torch.dtype`, `torch.promote_types`, `torch.result_type`, `torch.can_cast`,
`torch.get_default_dtype`/`set_default_dtype`, `torch.finfo`/`torch.iinfo`.
"""
import functools
import math

import jax.numpy as jnp
import numpy as np


class dtype:
    """Mirrors `torch.dtype`: an interned object per scalar type."""

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_complex", "is_signed",
                 "category", "_tensor_type", "__weakref__")

    def __init__(self, name, np_dtype, category, tensor_type):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.category = category  # 0 bool, 1 integral, 2 floating, 3 complex
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = name not in ("uint8", "bool", "uint16", "uint32", "uint64")
        self._tensor_type = tensor_type

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self):
        """Mirrors `torch.dtype.to_real`."""
        return _TO_REAL.get(self, self)

    def to_complex(self):
        """Mirrors `torch.dtype.to_complex`."""
        return _TO_COMPLEX.get(self, self)


def _dtype_by_name(name):
    return _BY_NAME[name]


bool_ = dtype("bool", np.bool_, 0, "BoolTensor")
uint8 = dtype("uint8", np.uint8, 1, "ByteTensor")
int8 = dtype("int8", np.int8, 1, "CharTensor")
int16 = dtype("int16", np.int16, 1, "ShortTensor")
int32 = dtype("int32", np.int32, 1, "IntTensor")
int64 = dtype("int64", np.int64, 1, "LongTensor")
uint16 = dtype("uint16", np.uint16, 1, None)
uint32 = dtype("uint32", np.uint32, 1, None)
uint64 = dtype("uint64", np.uint64, 1, None)
float16 = dtype("float16", np.float16, 2, "HalfTensor")
bfloat16 = dtype("bfloat16", jnp.bfloat16, 2, "BFloat16Tensor")
float32 = dtype("float32", np.float32, 2, "FloatTensor")
float64 = dtype("float64", np.float64, 2, "DoubleTensor")
complex64 = dtype("complex64", np.complex64, 3, "ComplexFloatTensor")
complex128 = dtype("complex128", np.complex128, 3, "ComplexDoubleTensor")

# PyTorch's 8-bit floats: storage and conversion types (no arithmetic, no promotion)
float8_e4m3fn = dtype("float8_e4m3fn", jnp.float8_e4m3fn, 2, None)
float8_e5m2 = dtype("float8_e5m2", jnp.float8_e5m2, 2, None)
float8_e4m3fnuz = dtype("float8_e4m3fnuz", jnp.float8_e4m3fnuz, 2, None)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", jnp.float8_e5m2fnuz, 2, None)
float8_e8m0fnu = dtype("float8_e8m0fnu", jnp.float8_e8m0fnu, 2, None)
float8_e8m0fnu.is_signed = False

ALL = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
       complex64, complex128)
EXTRA_UNSIGNED = (uint16, uint32, uint64)
FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)
_BY_NAME = {d.name: d for d in ALL + EXTRA_UNSIGNED + FLOAT8}
_BY_NP = {d.np: d for d in ALL + EXTRA_UNSIGNED + FLOAT8}
_TO_REAL = {complex64: float32, complex128: float64}
_TO_COMPLEX = {float32: complex64, float64: complex128, float16: complex64, bfloat16: complex64}

# torch names for the same objects (torch.float, torch.long, ...)
ALIASES = {
    "bool": bool_, "uint8": uint8, "int8": int8, "int16": int16, "short": int16,
    "int32": int32, "int": int32, "int64": int64, "long": int64, "uint16": uint16,
    "uint32": uint32, "uint64": uint64, "float16": float16, "half": float16,
    "bfloat16": bfloat16, "float32": float32, "float": float32, "float64": float64,
    "double": float64, "complex64": complex64, "cfloat": complex64, "complex128": complex128,
    "cdouble": complex128, **{d.name: d for d in FLOAT8},
}

_default = [float32]


def get_default_dtype():
    """Mirrors `torch.get_default_dtype`."""
    return _default[0]


def set_default_dtype(d):
    """Mirrors `torch.set_default_dtype` (float32 or float64 only, as PyTorch... plus half types)."""
    if not isinstance(d, dtype):  # PyTorch takes no Python type here (float included)
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if _default[0] is not d:
        _default[0] = d
        # cached per-operand-signature result dtypes depend on the default dtype
        import sys
        reg = sys.modules.get("torchlike._ops.registry")
        if reg is not None:
            for row in reg.OPS.values():
                if row is not None:
                    row.forget_dtypes()


def default_complex():
    return complex128 if _default[0] is float64 else complex64


def from_numpy_dtype(npd):
    """The torch dtype for a NumPy dtype, or TypeError as `torch.from_numpy` raises."""
    d = _BY_NP.get(np.dtype(npd))
    if d is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(npd).name}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint64, uint32, uint16, uint8, and bool.")
    return d


# the Python types PyTorch's argument parser takes as dtypes (`dtype=float` is float64)
PY_TYPES = {float: float64, int: int64, bool: bool_, complex: complex128}


def to_dtype(obj, fn="empty", arg="dtype"):
    """A dtype argument as PyTorch's parser reads it: a torch dtype, or the Python type `float`,
    `int`, `bool` or `complex`; anything else (a string, a NumPy type) raises PyTorch's
    TypeError naming function `fn`."""
    if type(obj) is dtype:
        return obj
    d = PY_TYPES.get(obj) if isinstance(obj, type) else None
    if d is None:
        raise TypeError(f"{fn}(): argument '{arg}' must be torch.dtype, not {type(obj).__name__}")
    return d


# ---- promotion -----------------------------------------------------------------------------

_INT_ORDER = {uint8: 0, int8: 0, int16: 1, int32: 2, int64: 3}


def _short_name(d):
    """PyTorch's scalar-type name in messages: Float, Float8_e4m3fn, ..."""
    if d in FLOAT8:
        return "F" + d.name[1:]
    return {"float32": "Float", "float64": "Double", "float16": "Half",
            "bfloat16": "BFloat16"}.get(d.name, d.name.capitalize())


@functools.lru_cache(maxsize=None)
def promote_types(a, b):
    """Mirrors `torch.promote_types` (PyTorch's lattice, not NumPy's or JAX's)."""
    a, b = PY_TYPES.get(a, a), PY_TYPES.get(b, b)  # `promote_types(float, int)` (cached)
    if a is b:
        return a
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        if hi.category == 3 and lo.category == 2:
            return complex128 if (lo is float64 or hi is complex128) else complex64
        return hi
    cat = a.category
    if cat == 1:
        if {a, b} == {uint8, int8}:
            return int16
        if a in EXTRA_UNSIGNED or b in EXTRA_UNSIGNED:
            raise TypeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                            f"attempted to promote {a.name.capitalize()} and {b.name.capitalize()}")
        return a if _INT_ORDER[a] > _INT_ORDER[b] else b
    if cat == 2:
        if a in FLOAT8 or b in FLOAT8:
            raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to "
                               f"promote {_short_name(a)} and {_short_name(b)}")
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize > b.itemsize else b
    if cat == 3:
        return complex128 if complex128 in (a, b) else complex64
    return a


def _combine(higher, lower):
    """c10's combine_categories: a lower-priority operand only matters across categories."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        if higher.is_floating_point:
            return higher.to_complex() if higher is not float64 else complex128
        return lower
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(v):
    """The dtype a Python scalar takes when it is an operand (a 'wrapped number')."""
    if isinstance(v, bool):
        return bool_
    if isinstance(v, int):
        return int64
    if isinstance(v, float):
        return _default[0]
    if isinstance(v, complex):
        return default_complex()
    raise TypeError(type(v).__name__)


def result_type_of(dim_dtypes, zero_dim_dtypes, scalar_dtypes):
    """PyTorch's result type from three priority classes of operands."""
    def fold(ds):
        r = None
        for d in ds:
            r = d if r is None else promote_types(r, d)
        return r
    return _combine(fold(dim_dtypes), _combine(fold(zero_dim_dtypes), fold(scalar_dtypes)))


def can_cast(from_, to):
    """Mirrors `torch.can_cast`: no category downgrade (complex→real, float→int, non-bool→bool)."""
    return from_.category <= to.category or (from_.category == to.category)


class finfo:
    """Mirrors `torch.finfo`."""

    def __init__(self, type=None):
        type = _default[0] if type is None else PY_TYPES.get(type, type)
        if not (type.is_floating_point or type.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        real = type.to_real()
        fi = jnp.finfo(real.np)
        self.bits = fi.bits
        self.eps = float(fi.eps)
        self.max = float(fi.max)
        self.min = float(fi.min)
        self.tiny = float(fi.tiny)
        self.smallest_normal = float(fi.smallest_normal)
        self.resolution = float(10.0 ** -int(fi.precision))
        self.dtype = real.name
        self._type = real

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Mirrors `torch.iinfo`."""

    def __init__(self, type):
        type = PY_TYPES.get(type, type)
        if type is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.category != 1:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        ii = np.iinfo(type.np) if type is not bool_ else None
        self.bits = type.itemsize * 8
        self.max = int(ii.max) if ii else 1
        self.min = int(ii.min) if ii else 0
        self.dtype = type.name

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


# C++ names PyTorch's scalar-conversion errors use
C_SCALAR_NAMES = {
    "float32": "float", "float64": "double", "int64": "int64_t", "int32": "int",
    "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t", "uint16": "uint16_t",
    "uint32": "uint32_t", "uint64": "uint64_t", "bool": "bool", "float16": "c10::Half",
    "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


# C++ type names (as `typeid` prints them) that some of PyTorch's messages use
CPP_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                  "uint8": "unsigned char", "bool": "bool", "uint16": "unsigned short",
                  "uint32": "unsigned int", "uint64": "unsigned long"}
_C_TYPE_NAMES = dict(CPP_TYPE_NAMES, float32="float", float64="double", float16="c10::Half",
                     bfloat16="c10::BFloat16")


def c_type_name(d):
    """The C++ name of dtype `d`'s element type in PyTorch's messages ("float", "long int")."""
    return _C_TYPE_NAMES.get(d.name, d.name)


def _overflows(v, d):
    if d.category == 1:
        ii = np.iinfo(d.np)
        if isinstance(v, (float, np.floating)):
            return not ii.min <= v <= ii.max  # NaN and inf included
        if not d.is_signed and v < 0:  # negatives wrap around (two's complement)
            return -v > ii.max
        return not ii.min <= v <= ii.max
    try:
        v = float(v)
    except OverflowError:
        return True
    return math.isfinite(v) and abs(v) > float(jnp.finfo(d.to_real().np).max)


def check_scalar_fits(value, d, numel=None):
    """PyTorch's checked conversion of a Python number to a `d` element (filling, `full`,
    `t[i] = v`): a value outside `d`'s range raises instead of wrapping or becoming inf.
    PyTorch fills a one-element tensor without the check for float16/bfloat16 (they become
    inf); `numel=None` (not known here) takes that lenient path for them too."""
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**64:
        raise OverflowError("int too big to convert")
    if d is bool_ or isinstance(value, (bool, np.bool_)):
        return
    if d in (float16, bfloat16) and (numel is None or numel == 1):
        return
    parts, lost = (value,), False
    if isinstance(value, (complex, np.complexfloating)):
        parts = (value.real, value.imag) if d.is_complex else (value.real,)
        lost = not d.is_complex and value.imag != 0  # a real type cannot hold the imaginary part
    if lost or any(_overflows(p, d) for p in parts):
        raise RuntimeError(f"value cannot be converted to type {C_SCALAR_NAMES[d.name]} without "
                           f"overflow")
