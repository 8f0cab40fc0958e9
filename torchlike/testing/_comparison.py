"""`assert_close` and the deprecated `assert_allclose`, as PyTorch 2.13's `torch.testing`.

The inputs are split into pairs (recursing through sequences and mappings), each pair is checked
by the first of `NonePair`, `BooleanPair`, `NumberPair`, `TensorLikePair` that accepts it, and
the first failure raises with PyTorch's message text. A port of PyTorch's
`torch/testing/_comparison.py` (BSD-3-Clause) without the sparse, quantized, jagged and 8-bit
float paths torchlike has no tensors for.
"""
import cmath
import collections.abc
import contextlib
import warnings

from .._core import dtype as dt

# {dtype: (rtol, atol)}; every other dtype compares exactly
_DTYPE_PRECISIONS = {
    dt.float16: (0.001, 1e-5), dt.bfloat16: (0.016, 1e-5), dt.float32: (1.3e-6, 1e-5),
    dt.float64: (1e-7, 1e-7), dt.complex64: (1.3e-6, 1e-5), dt.complex128: (1e-7, 1e-7),
}
_ALLCLOSE_PRECISIONS = {dt.float16: (1e-3, 1e-3), dt.float32: (1e-4, 1e-5),
                        dt.float64: (1e-5, 1e-8)}


class _ErrorMeta(Exception):
    """A failure found while comparing: the exception type and message to raise."""

    def __init__(self, type, msg, *, id=()):
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += ("\n\nThe failure occurred for item "
                              f"{''.join(str([item]) for item in self.id)}")
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    """This pair type does not handle these inputs: try the next one."""


def _tensor_type():
    from .._core.tensor import Tensor
    return Tensor


def default_tolerances(*inputs, dtype_precisions=None):
    """The loosest (rtol, atol) of the inputs' dtypes. Mirrors PyTorch's helper of this name."""
    dtypes = []
    for x in inputs:
        if isinstance(x, _tensor_type()):
            dtypes.append(x.dtype)
        elif isinstance(x, dt.dtype):
            dtypes.append(x)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} "
                            f"instead.")
    table = dtype_precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[table.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _tolerances(*inputs, rtol, atol, id=()):
    if (rtol is None) ^ (atol is None):
        raise _ErrorMeta(ValueError, f"Both 'rtol' and 'atol' must be either specified or "
                                     f"omitted, but got no {'rtol' if rtol is None else 'atol'}.",
                         id=id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _mismatch_msg(identifier, default, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        msg = (f"{kind.title()} difference: {diff}" if idx is None else
               f"Greatest {kind} difference: {diff} at index {idx}")
        return msg + ("" if equality else f" (up to {tol} allowed)") + "\n"

    if identifier is None:
        identifier = default
    elif callable(identifier):
        identifier = identifier(default)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier=None):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier, "Scalars", f"Expected {expected} but got {actual}.",
                         abs_diff, None, atol, rel_diff, None, rtol)


def _tensor_mismatch_msg(actual, expected, matches, *, rtol, atol, identifier=None):
    import torchlike as torch

    def unravel(flat):
        out = []
        for size in matches.shape[::-1]:
            flat, mod = divmod(flat, size)
            out.append(mod)
        return tuple(out[::-1])

    total = matches.numel()
    mismatches = total - int(torch.sum(matches))
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point and not actual.dtype.is_complex:
        a, e = a.to(torch.int64), e.to(torch.int64)
    abs_diff = torch.abs(a - e)
    abs_diff[m] = 0
    max_abs, abs_idx = torch.max(abs_diff, 0)
    rel_diff = abs_diff / torch.abs(e)
    rel_diff[m] = 0
    max_rel, rel_idx = torch.max(rel_diff, 0)
    return _mismatch_msg(identifier, "Tensor-likes", extra, max_abs.item(),
                         unravel(int(abs_idx)), atol, max_rel.item(), unravel(int(rel_idx)),
                         rtol)


# ---- pairs -------------------------------------------------------------------------------------

class Pair:
    def __init__(self, actual, expected, *, id=(), **unused):
        self.actual, self.expected, self.id = actual, expected, id

    def _fail(self, type, msg):
        raise _ErrorMeta(type, msg, id=self.id)


class NonePair(Pair):
    def __init__(self, actual, expected, **options):
        if not (actual is None or expected is None):
            raise _Unsupported
        super().__init__(actual, expected, **options)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class BooleanPair(Pair):
    def __init__(self, actual, expected, *, id=(), **options):
        import numpy as np
        if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
            raise _Unsupported
        super().__init__(bool(actual), bool(expected), id=id, **options)

    def compare(self):
        if self.actual is not self.expected:
            self._fail(AssertionError,
                       f"Booleans mismatch: {self.actual} is not {self.expected}")


class NumberPair(Pair):
    _TYPE_TO_DTYPE = {int: dt.int64, float: dt.float64, complex: dt.complex128}

    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False,
                 check_dtype=False, **options):
        import numpy as np
        if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
            raise _Unsupported
        actual, expected = (x.item() if isinstance(x, np.number) else x
                            for x in (actual, expected))
        super().__init__(actual, expected, id=id)
        # a bool or another int subclass (IntEnum) is a KeyError here: PyTorch's RuntimeError
        self.rtol, self.atol = _tolerances(*[self._TYPE_TO_DTYPE[type(x)]
                                             for x in (actual, expected)],
                                           rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self):
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            self._fail(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.")
        if a == e:
            return
        if self.equal_nan and cmath.isnan(a) and cmath.isnan(e):
            return
        abs_diff = abs(a - e)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(e):
            return
        self._fail(AssertionError, _scalar_mismatch_msg(a, e, rtol=self.rtol, atol=self.atol))


class TensorLikePair(Pair):
    def __init__(self, actual, expected, *, id=(), allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, **options):
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported
        actual, expected = self._to_tensor(actual), self._to_tensor(expected)
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(actual, expected, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    @staticmethod
    def _to_tensor(x):
        if isinstance(x, _tensor_type()):
            return x
        import torchlike
        try:
            return torchlike.as_tensor(x)
        except Exception:  # noqa: BLE001 - PyTorch tries the next pair type
            raise _Unsupported from None

    def compare(self):
        a, e = self.actual, self.expected
        self._compare_attributes(a, e)
        if a.device.type == "meta" or e.device.type == "meta":
            return
        a, e = self._equalize(a, e)
        self._compare_values(a, e)

    def _compare_attributes(self, a, e):
        def mismatch(name, av, ev):
            self._fail(AssertionError,
                       f"The values for attribute '{name}' do not match: {av} != {ev}.")
        if a.shape != e.shape:
            mismatch("shape", a.shape, e.shape)
        if self.check_stride and a.stride() != e.stride():
            mismatch("stride()", a.stride(), e.stride())
        if self.check_device and a.device != e.device:
            mismatch("device", a.device, e.device)
        if self.check_dtype and a.dtype != e.dtype:
            mismatch("dtype", a.dtype, e.dtype)

    @staticmethod
    def _equalize(a, e):
        if a.device != e.device:
            a, e = a.cpu(), e.cpu()
        if a.dtype != e.dtype:
            # unsigned 16/32/64-bit compare as int64, as PyTorch's test helper does
            wide = (dt.uint16, dt.uint32, dt.uint64)
            ad = dt.int64 if a.dtype in wide else a.dtype
            ed = dt.int64 if e.dtype in wide else e.dtype
            d = dt.promote_types(ad, ed)
            a, e = a.to(d), e.to(d)
        return a, e

    def _compare_values(self, a, e):
        import torchlike as torch
        matches = torch.isclose(a, e, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
        if torch.all(matches):
            return
        if a.shape == ():
            msg = _scalar_mismatch_msg(a.item(), e.item(), rtol=self.rtol, atol=self.atol)
        else:
            msg = _tensor_mismatch_msg(a, e, matches, rtol=self.rtol, atol=self.atol)
        self._fail(AssertionError, msg)


_PAIR_TYPES = (NonePair, BooleanPair, NumberPair, TensorLikePair)


def _originate_pairs(actual, expected, id=(), **options):
    """The pairs to compare, recursing through sequences and mappings (PyTorch's order)."""
    seq, mapping = collections.abc.Sequence, collections.abc.Mapping
    if isinstance(actual, seq) and not isinstance(actual, str) and \
            isinstance(expected, seq) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _ErrorMeta(AssertionError, f"The length of the sequences mismatch: "
                                             f"{len(actual)} != {len(expected)}", id=id)
        return [p for i in range(len(actual))
                for p in _originate_pairs(actual[i], expected[i], (*id, i), **options)]
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        ak, ek = set(actual.keys()), set(expected.keys())
        if ak != ek:
            raise _ErrorMeta(AssertionError,
                             f"The keys of the mappings do not match:\n"
                             f"Missing keys in the actual mapping: {sorted(ek - ak)}\n"
                             f"Additional keys in the actual mapping: {sorted(ak - ek)}", id=id)
        keys = ak
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [p for k in keys
                for p in _originate_pairs(actual[k], expected[k], (*id, k), **options)]
    for pair_type in _PAIR_TYPES:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except _Unsupported:
            continue
        except _ErrorMeta:
            raise
        except Exception as error:  # noqa: BLE001 - reported as PyTorch reports it
            raise RuntimeError(
                f"Originating a {pair_type.__name__}() at item "
                f"{''.join(str([item]) for item in id)} with\n\n{type(actual).__name__}(): "
                f"{actual}\n\nand\n\n{type(expected).__name__}(): {expected}\n\nresulted in "
                f"the unexpected exception above. If you are a user and see this message during "
                f"normal operation please file an issue at "
                f"https://github.com/pytorch/pytorch/issues. If you are a developer and working "
                f"on the comparison functions, please except the previous error and raise an "
                f"expressive `ErrorMeta` instead.") from error
    raise _ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type "
                                f"{type(actual)} and {type(expected)}.", id=id)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Asserts that `actual` and `expected` are close. Mirrors `torch.testing.assert_close`:
    tensors, Python and NumPy numbers, bools, None, and sequences/mappings of them, with
    PyTorch's default tolerances per dtype and its failure messages."""
    __tracebackhide__ = True
    try:
        pairs = _originate_pairs(actual, expected, allow_subclasses=allow_subclasses, rtol=rtol,
                                 atol=atol, equal_nan=equal_nan, check_device=check_device,
                                 check_dtype=check_dtype, check_layout=check_layout,
                                 check_stride=check_stride)
    except _ErrorMeta as e:
        raise e.to_error() from None
    failures = []
    for pair in pairs:
        try:
            pair.compare()
        except _ErrorMeta as e:
            failures.append(e)
    if failures:  # raised outside the except block: no chained context, as PyTorch's
        raise failures[0].to_error(msg)


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Mirrors the deprecated `torch.testing.assert_allclose` (a FutureWarning, then
    `assert_close` with its older tolerances and `check_dtype=False`)."""
    __tracebackhide__ = True
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed "
                  "in a future release. Please use `torch.testing.assert_close()` instead. You can "
                  "find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    import torchlike
    if not isinstance(actual, torchlike.Tensor):
        actual = torchlike.tensor(actual)
    if not isinstance(expected, torchlike.Tensor):
        expected = torchlike.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected,
                                        dtype_precisions=_ALLCLOSE_PRECISIONS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
