"""Python operators on tensors: every arithmetic/comparison/bitwise dunder (forward, reflected,
augmented), called by name and through the operator syntax, across dtypes — compared with torch."""
import operator

import numpy as np
import pytest

from harness import check

BINARY = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
          "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
          "__rpow__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__and__",
          "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__", "__rlshift__",
          "__rshift__", "__rrshift__", "__matmul__", "__rmatmul__"]
INPLACE = ["__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
           "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__"]
UNARY = ["__neg__", "__pos__", "__abs__", "__invert__"]

A = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
B = np.array([[2, 1, 3], [1, 2, 2], [3, 1, 1]])


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64", "bool", "uint8"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_dunders_by_name(name, dtype):
    def f(torch):
        d = getattr(torch, dtype)
        a, b = torch.tensor(A).to(d), torch.tensor(B).to(d)
        other = b if name not in ("__rmatmul__",) else b
        return getattr(a, name)(other), getattr(a, name)(2) if "matmul" not in name else None
    check(f)


@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
@pytest.mark.parametrize("name", INPLACE)
def test_inplace_dunders_keep_identity(name, dtype):
    def f(torch):
        d = getattr(torch, dtype)
        a, b = torch.tensor(A).to(d), torch.tensor(B).to(d)
        r = getattr(a, name)(b)
        return r is a, a, a._version
    check(f)


@pytest.mark.parametrize("dtype", ["int64", "float32", "bool", "uint8"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_dunders(name, dtype):
    check(lambda torch: getattr(torch.tensor(A - 5).to(getattr(torch, dtype)), name)())


SYNTAX = {
    "a + b": lambda a, b: a + b, "2 + a": lambda a, b: 2 + a, "a - 1.5": lambda a, b: a - 1.5,
    "3 - a": lambda a, b: 3 - a, "a * b": lambda a, b: a * b, "a / b": lambda a, b: a / b,
    "1 / a": lambda a, b: 1 / a, "a // b": lambda a, b: a // b, "a % b": lambda a, b: a % b,
    "a ** 2": lambda a, b: a ** 2, "2 ** a": lambda a, b: 2 ** a, "a @ b": lambda a, b: a @ b,
    "-a": lambda a, b: -a, "a == b": lambda a, b: a == b, "a < 3": lambda a, b: a < 3,
    "a >= b": lambda a, b: a >= b, "a != 2": lambda a, b: a != 2, "abs(a - 5)": lambda a, b: abs(a - 5),
    "a & b": lambda a, b: a & b, "a | 4": lambda a, b: a | 4, "a ^ b": lambda a, b: a ^ b,
    "~a": lambda a, b: ~a, "a << 1": lambda a, b: a << 1, "a >> b": lambda a, b: a >> b,
}


@pytest.mark.parametrize("expr", list(SYNTAX))
def test_operator_syntax(expr):
    fn = SYNTAX[expr]
    check(lambda torch: fn(torch.tensor(A), torch.tensor(B)))


def test_augmented_assignment_through_view_and_names():
    def f(torch):
        x = torch.arange(12.).view(3, 4)
        v = x[1]
        v += 10
        v *= 2
        col = x[:, 0]
        col -= 1
        col /= 2
        y = torch.arange(6).view(2, 3)
        y //= 2
        y %= 2
        y <<= 1
        return x, y, x._version, x == None, x != None  # noqa: E711
    check(f)


def test_comparisons_with_non_tensors():
    def f(torch):
        x = torch.tensor([1, 2])
        return x == "a", x != "a", x.__eq__(None), operator.eq(x, [1, 2]) if False else None
    check(f)


def test_hash_format_repr_reduce():
    def f(torch):
        x = torch.tensor(2.5)
        y = torch.tensor([1.0, 2.0])
        return (hash(y) == hash(y), f"{x:.2f}", "{}".format(y), x.__format__(""),
                type(y.__reduce_ex__(2)).__name__, {y: 1}[y])
    check(f)
