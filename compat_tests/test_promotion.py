"""Type promotion against PyTorch: promote_types, result_type, can_cast, binary-op result dtypes
over dtype pairs × operand kinds, finfo/iinfo, and the default dtype."""
import pytest

from harness import check

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
SCALARS = [True, 3, 2.5, 1 + 2j]


def _scalars(a):
    # float16 with a complex scalar gives complex32 in PyTorch, a dtype torchlike does not have
    return SCALARS[:3] if a == "float16" else SCALARS


def _fmt(f):
    try:
        return f()
    except Exception as e:  # noqa: BLE001
        return ("raised", type(e).__name__, str(e))


def _others(a):
    # a float16 tensor mixed with a complex 0-dim tensor (or the reverse) gives complex32 in
    # PyTorch, a dtype torchlike does not have
    if a == "float16":
        return [b for b in DTYPES if not b.startswith("complex")]
    if a.startswith("complex"):
        return [b for b in DTYPES if b != "float16"]
    return DTYPES


@pytest.mark.parametrize("a", DTYPES)
def test_promote_types_and_can_cast(a):
    def f(torch):
        da = getattr(torch, a)
        return [(torch.promote_types(da, getattr(torch, b)),
                 torch.can_cast(da, getattr(torch, b))) for b in DTYPES]
    check(f)


@pytest.mark.parametrize("a", DTYPES)
def test_result_type(a):
    def f(torch):
        da = getattr(torch, a)
        x, z = torch.ones(2, dtype=da), torch.ones((), dtype=da)
        out = []
        for b in _others(a):
            db = getattr(torch, b)
            y, w = torch.ones(2, dtype=db), torch.ones((), dtype=db)
            out += [torch.result_type(x, y), torch.result_type(x, w), torch.result_type(z, y),
                    torch.result_type(z, w)]
        out += [torch.result_type(x, s) for s in _scalars(a)]
        out += [torch.result_type(z, s) for s in _scalars(a)]
        return out
    check(f)


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("opname", ["add", "mul", "true_divide", "maximum", "eq", "atan2"])
def test_binary_result_dtypes(opname, a):
    def f(torch):
        fn = getattr(torch, opname)
        da = getattr(torch, a)
        x, z = torch.ones(2, dtype=da), torch.ones((), dtype=da)
        out = []
        for b in _others(a):
            db = getattr(torch, b)
            y, w = torch.ones(2, dtype=db), torch.ones((), dtype=db)
            for p, q in ((x, y), (x, w), (z, y)):
                r = _fmt(lambda: fn(p, q))
                out.append(r.dtype if hasattr(r, "dtype") else r)
        for s in _scalars(a):
            for t in (x, z):
                r = _fmt(lambda: fn(t, s))
                out.append(r.dtype if hasattr(r, "dtype") else r)
        return out
    check(f)


@pytest.mark.parametrize("a", DTYPES)
def test_finfo_iinfo(a):
    def f(torch):
        d = getattr(torch, a)
        if d.is_floating_point or d.is_complex:
            fi = torch.finfo(d)
            return (fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.smallest_normal, fi.resolution,
                    fi.dtype)
        if d == torch.bool:
            return _fmt(lambda: torch.iinfo(d).bits)
        ii = torch.iinfo(d)
        return (ii.bits, ii.max, ii.min, ii.dtype)
    check(f)


def test_finfo_default_and_errors():
    check(lambda torch: (torch.finfo().eps, torch.finfo().dtype))
    check(lambda torch: torch.finfo(torch.int32))
    check(lambda torch: torch.iinfo(torch.float32))


@pytest.mark.parametrize("d", ["float64", "float32"])
def test_default_dtype(d):
    def f(torch):
        old = torch.get_default_dtype()
        torch.set_default_dtype(getattr(torch, d))
        try:
            return (torch.get_default_dtype(), torch.tensor([1.0]).dtype,
                    (torch.tensor([1, 2]) / torch.tensor([2, 2])).dtype,
                    (torch.tensor([1, 2]) / 2).dtype, (torch.tensor([1, 2]) * 1.5).dtype,
                    (torch.tensor([1, 2]) * 1j).dtype, torch.tensor([1j]).dtype,
                    torch.result_type(torch.tensor([1]), 1.0))
        finally:
            torch.set_default_dtype(old)
    check(f)
    check(lambda torch: torch.get_default_dtype())
