"""Conversions and copies: to/type/float()/..., clone, copy_, fill_, zero_, item, tolist, Python
number protocols, NumPy protocols — compared with real PyTorch."""
import copy
import pickle

import numpy as np
import pytest

from harness import check

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
SRC = np.array([[0.0, 1.5, -2.25], [3.0, -0.5, 7.75]])


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_to_dtype_matrix(src, dst):
    def f(torch):
        x = torch.tensor(SRC).to(getattr(torch, src))
        y = x.to(getattr(torch, dst))
        return y, (y is x) == (src == dst), y.dtype
    check(f)


METHOD_CASTS = ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte",
                "bool", "cfloat", "cdouble"]


@pytest.mark.parametrize("m", METHOD_CASTS)
def test_cast_methods(m):
    check(lambda torch: getattr(torch.tensor(SRC), m)())


def test_to_variants():
    def f(torch):
        x = torch.tensor(SRC, dtype=torch.float32)
        o = torch.zeros(2, dtype=torch.int64)
        return (x.to(torch.float64), x.to("cpu") is x, x.to(o), x.to("cpu", torch.int32),
                x.to(device="cpu", dtype=torch.float16), x.to(x) is x,
                x.to(torch.float32, copy=True) is x, x.to(dtype=torch.float32) is x,
                x.cpu() is x, x.type(), x.type(torch.int64), x.type("torch.DoubleTensor"),
                x.type_as(o), x.long().type(), x.bool().type())
    check(f)


def test_clone_is_independent_copy():
    def f(torch):
        x = torch.arange(6.).view(2, 3)
        c = x.clone()
        c.add_(1)
        v = x.t().clone()
        return x, c, c.data_ptr() != x.data_ptr(), v, torch.clone(x)
    check(f)


def test_copy_broadcast_and_cast():
    def f(torch):
        x = torch.zeros(2, 3)
        x.copy_(torch.tensor([1, 2, 3]))
        y = torch.zeros(3, dtype=torch.int64)
        y.copy_(torch.tensor([1.7, -2.7, 3.2]))
        z = torch.zeros(2, 3)
        z.t().copy_(torch.arange(6.).view(3, 2))
        return x, y, z
    check(f)


def test_copy_errors():
    check(lambda torch: torch.zeros(3).copy_(torch.ones(4)))
    check(lambda torch: torch.zeros(3).copy_(torch.ones(2, 3)))


def test_fill_zero():
    def f(torch):
        x = torch.ones(2, 3, dtype=torch.int32)
        x.fill_(7)
        y = torch.ones(2, 3)
        y.select(1, 0).fill_(torch.tensor(2.5))
        y.narrow(1, 1, 2).zero_()
        b = torch.zeros(3, dtype=torch.bool)
        b.fill_(1)
        return x, y, b, x._version, y._version
    check(f)


def test_python_protocols():
    def f(torch):
        s = torch.tensor(2.5)
        i = torch.tensor([3])
        return (float(s), int(s), int(i), bool(torch.tensor([0.])), s.item(), i.item(),
                torch.tensor([[1, 2], [3, 4]]).tolist(), torch.tensor(1.5).tolist(),
                len(torch.zeros(4, 2)), [t.tolist() for t in torch.arange(6).view(3, 2)],
                complex(torch.tensor(1.5)), [1, 2, 3][torch.tensor(1)],
                torch.tensor([True]).item(), torch.tensor(3, dtype=torch.uint8).item())
    check(f)


def test_protocol_errors():
    check(lambda torch: bool(torch.tensor([1, 2])))
    check(lambda torch: bool(torch.tensor([])))
    check(lambda torch: torch.ones(3).item())
    check(lambda torch: len(torch.tensor(1.)))
    check(lambda torch: iter(torch.tensor(1.)))
    check(lambda torch: float(torch.ones(2)))
    check(lambda torch: [1, 2][torch.tensor(1.)])


def test_numpy_protocols():
    def f(torch):
        x = torch.arange(6.).view(2, 3)
        a = np.asarray(x)
        n = x.numpy()
        t = x.t().numpy()
        return a.tolist(), n.dtype.name, t.tolist(), t.strides, np.array(torch.tensor(2)).item()
    check(f)


def test_numpy_errors():
    check(lambda torch: torch.ones(2, requires_grad=True).numpy())
    check(lambda torch: torch.ones(2, dtype=torch.bfloat16).numpy())


def test_deepcopy_and_pickle():
    def f(torch):
        x = torch.arange(6.).view(2, 3)
        d = copy.deepcopy(x)
        d.add_(1)
        p = pickle.loads(pickle.dumps(x))
        return x, d, p, d.dtype, p.dtype
    check(f)


def test_cuda_calls_fail_like_cpu_only_torch():
    check(lambda torch: torch.ones(2).cuda())
    check(lambda torch: torch.ones(2).cuda(1))
    check(lambda torch: torch.ones(2).cuda("cuda:1"))
    check(lambda torch: torch.ones(2).to(1))


def test_data_ptr_is_the_numpy_buffer_after_numpy():
    """`t.numpy()` shares t's memory, so its address is t's data_ptr (the seeds compare them),
    for the tensor, a view of it (its offset past the buffer) and `from_numpy`."""
    def run(torch):
        t = torch.arange(6.0).reshape(2, 3)
        a = t.numpy()
        v = t[1]
        b = np.ones(4, dtype=np.float32)
        u = torch.from_numpy(b)
        return (t.data_ptr() == a.ctypes.data, v.data_ptr() == a[1].ctypes.data,
                t.untyped_storage().data_ptr() == a.ctypes.data, u.data_ptr() == b.ctypes.data,
                torch.zeros(0).numpy().size)
    check(run)


def test_dtype_methods_and_cpu_take_memory_format():
    """`x.float(memory_format=...)`, `x.cpu(memory_format=...)`: the layout asked for, and `x`
    itself when nothing changes (as `to`)."""
    def f(torch):
        x = torch.arange(36.).view(2, 3, 2, 3)
        cl = torch.channels_last
        return [x.float(memory_format=cl).stride(), x.double(memory_format=cl).stride(),
                x.long(memory_format=cl).stride(), x.cpu(memory_format=cl).stride(),
                x.float() is x, x.float(memory_format=torch.contiguous_format) is x,
                x.cpu() is x, x.double(memory_format=cl)]
    check(f)
