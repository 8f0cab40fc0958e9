"""Creation ops against real PyTorch: dtype inference, errors, ranges, legacy constructors."""
import numpy as np
import pytest

from harness import check

EXPRS = [
    'torch.tensor([torch.tensor(1), torch.tensor(2), torch.tensor(3)])',
    'torch.tensor([[1, 2], [3, 4, 5]])',
    'torch.tensor([[1, 2], [3]])',
    'torch.tensor([1, 2.5, True])',
    'torch.tensor([True, False])',
    'torch.tensor([True, 2])',
    'torch.tensor([1, 2j])',
    'torch.tensor(3)',
    'torch.tensor(3.5)',
    'torch.tensor([])',
    'torch.tensor([[]])',
    'torch.tensor([[], []])',
    'torch.tensor(np.float32(2.5))',
    'torch.tensor(np.int32(2))',
    'torch.tensor([np.float32(2.5), 1])',
    'torch.tensor([np.int32(2), 1])',
    'torch.tensor([np.float32(1.5), 2.5])',
    'torch.tensor([np.float64(1.5), np.float32(2.5)])',
    'torch.tensor([torch.tensor(1.5, dtype=torch.float64), 2])',
    'torch.tensor([torch.tensor(1, dtype=torch.int32), torch.tensor(2, dtype=torch.int32)])',
    'torch.tensor([torch.tensor(1, dtype=torch.int32), 2])',
    'torch.tensor([torch.tensor([1, 2]), torch.tensor([3, 4])])',
    'torch.tensor([torch.ones(2), torch.ones(2)])',
    'torch.tensor(np.array([1, 2], dtype=np.int16))',
    'torch.tensor([1, 2], dtype=torch.float16)',
    'torch.tensor([1.7, -2.7], dtype=torch.int32)',
    'torch.tensor([300], dtype=torch.uint8)',
    'torch.tensor(["a"])',
    'torch.tensor(None)',
    'torch.tensor([1, None])',
    'torch.tensor([[1, 2], 3])',
    'torch.tensor([1, [2, 3]])',
    'torch.tensor((1, 2, 3))',
    'torch.tensor([1, 2], requires_grad=True)',
    'torch.tensor([1., 2], requires_grad=True).requires_grad',
    'torch.tensor(np.array(5))',
    'torch.tensor([np.array([1, 2]), np.array([3, 4])])',
    'torch.tensor(2**63)',
    'torch.tensor([2**63 - 1])',
    'torch.tensor(1e400)',
    "torch.tensor([1, 2], device='cpu').device",
    "torch.tensor([1, 2], device=torch.device('cpu')).device",
    'torch.tensor(True)',
    'torch.tensor(1 + 2j)',
    'torch.tensor([1.5, 2], dtype=torch.complex128)',
    'torch.tensor(range(5))',
    'torch.as_tensor([1, 2, 3])',
    'torch.as_tensor([1, 2, 3], dtype=torch.float64)',
    'torch.as_tensor(np.arange(3))',
    'torch.asarray([1, 2])',
    'torch.asarray(np.arange(3.))',
    'torch.asarray(3)',
    'torch.asarray([1.5], dtype=torch.float16)',
    'torch.from_numpy(np.arange(4).reshape(2, 2)[:, ::-1])',
    'torch.from_numpy([1, 2])',
    "torch.from_numpy(np.array(['a']))",
    'torch.from_numpy(np.arange(6).reshape(2, 3).T).stride()',
    'torch.from_numpy(np.float32(1))',
    'torch.zeros(2, 3, dtype=torch.int32)',
    'torch.zeros((2, 3))',
    'torch.zeros([2, 3])',
    'torch.zeros(2, -1)',
    'torch.zeros(2.5)',
    'torch.zeros()',
    'torch.zeros(0)',
    'torch.zeros(size=(2, 3))',
    'torch.zeros(torch.tensor(3))',
    'torch.ones(2, 3, dtype=torch.bool)',
    'torch.ones(3, requires_grad=True)',
    'torch.ones(3, dtype=torch.long, requires_grad=True)',
    'torch.empty(2, 3).shape',
    'torch.empty(2, 3).dtype',
    'torch.full((2, 3), 7)',
    'torch.full((2, 3), 7.5)',
    'torch.full((2, 3), True)',
    'torch.full((2,), 1 + 2j)',
    'torch.full([2], 3, dtype=torch.float32)',
    'torch.full(2, 3)',
    'torch.full((2,), torch.tensor(3))',
    'torch.full((2,), torch.tensor(3.5))',
    'torch.full((), 3)',
    'torch.zeros_like(torch.ones(2, 3, dtype=torch.int32))',
    'torch.ones_like(torch.ones(2, 3), dtype=torch.float64)',
    'torch.full_like(torch.ones(2, dtype=torch.int64), 2.7)',
    'torch.full_like(torch.ones(2), 2)',
    'torch.empty_like(torch.ones(2, 3)).shape',
    'torch.zeros_like(torch.ones(2, 3).t()).stride()',
    'torch.empty_like(torch.ones(2, 3).t()).stride()',
    'torch.ones(2).new_zeros(3)',
    'torch.ones(2).new_zeros((3, 2))',
    'torch.ones(2, dtype=torch.int32).new_ones(3)',
    'torch.ones(2).new_full((2,), 3)',
    'torch.ones(2).new_full((2,), 3).dtype',
    'torch.ones(2, dtype=torch.int32).new_tensor([1.5, 2])',
    'torch.ones(2).new_tensor([1, 2])',
    'torch.ones(2).new_empty(3).shape',
    'torch.ones(2).new_empty((3, 2)).dtype',
    'torch.scalar_tensor(3)',
    'torch.scalar_tensor(3, dtype=torch.int64)',
    'torch.scalar_tensor(True)',
    'torch.complex(torch.tensor([1., 2]), torch.tensor([3., 4]))',
    'torch.complex(torch.tensor([1., 2], dtype=torch.float64), torch.tensor([3., 4], dtype=torch.float64))',
    'torch.complex(torch.tensor([1, 2]), torch.tensor([3, 4]))',
    'torch.complex(torch.tensor([1., 2]), torch.tensor([3., 4], dtype=torch.float64))',
    'torch.polar(torch.tensor([1., 2]), torch.tensor([0., 1.5]))',
    'torch.empty_strided((2, 3), (1, 2)).stride()',
    'torch.empty_strided((2, 3), (1, 2)).shape',
    'torch.Tensor([1, 2])',
    'torch.Tensor(2, 3).dtype',
    'torch.FloatTensor(5, 7, 3).shape',
    'torch.LongTensor([1, 2])',
    'torch.DoubleTensor([1, 2])',
    'torch.IntTensor(3).shape',
    'torch.BoolTensor([1, 0])',
    'torch.ByteTensor([1, 2])',
    'isinstance(torch.ones(2), torch.FloatTensor)',
    'isinstance(torch.ones(2), torch.DoubleTensor)',
    'isinstance(torch.ones(2, dtype=torch.long), torch.LongTensor)',
    'isinstance(torch.ones(2), torch.cuda.FloatTensor)',
    'torch.cuda.FloatTensor(2)',
    'torch.cuda.LongTensor([1])',
    'torch.FloatTensor.dtype',
    'torch.cuda.FloatTensor.is_cuda',
    'repr(torch.FloatTensor)',
    'repr(torch.cuda.FloatTensor)',
    'torch.Tensor()',
    'torch.Tensor(2.5)',
    'torch.Tensor((1, 2))',
    'torch.Tensor(torch.ones(2, dtype=torch.float64))',
    'torch.FloatTensor(torch.ones(2))',
    'torch.Tensor(np.array([1, 2]))',
    'torch.Tensor([[1, 2], [3, 4]]).shape',
    'torch.arange(5)',
    'torch.arange(5.)',
    'torch.arange(1, 4)',
    'torch.arange(0, 1, 0.1)',
    'torch.arange(1, 2.5, 0.5)',
    'torch.arange(10, 0, -3)',
    'torch.arange(0, 5, dtype=torch.float32)',
    'torch.arange(0, -1, 0.3)',
    'torch.arange(0, 1, 0)',
    'torch.arange(5, 1)',
    'torch.arange(0, 10, 3, dtype=torch.int32)',
    'torch.arange(0.5, 3, dtype=torch.int64)',
    'torch.arange(torch.tensor(3))',
    'torch.arange(torch.tensor(3.))',
    'torch.arange(-1.0, 1.0, 0.1)',
    'torch.arange(0, 0.3, 0.1)',
    'torch.arange(1, 1)',
    'torch.arange(0, 5, out=torch.empty(5, dtype=torch.int64))',
    "torch.arange(float('inf'))",
    "torch.arange(0, float('nan'))",
    'torch.arange(3, requires_grad=True)',
    'torch.arange(3., requires_grad=True).requires_grad',
    'torch.linspace(0, 1, 5)',
    'torch.linspace(0, 1, 7)',
    'torch.linspace(-3.3, 7.1, 11)',
    'torch.linspace(0, 10, 1)',
    'torch.linspace(0, 10, 0)',
    'torch.linspace(0, 10, -1)',
    'torch.linspace(0, 1, 5, dtype=torch.float64)',
    'torch.linspace(0, 10, 5, dtype=torch.int64)',
    'torch.linspace(0, 10, 4, dtype=torch.int32)',
    'torch.linspace(1, 1 + 2j, 3)',
    'torch.linspace(0.1, 0.7, 100)',
    'torch.linspace(torch.tensor(0.), torch.tensor(1.), 3)',
    'torch.logspace(0, 2, 3)',
    'torch.logspace(0, 2, 3, base=2)',
    'torch.logspace(-1, 1, 7, dtype=torch.float64)',
    'torch.logspace(0, 3, 4, dtype=torch.int64)',
    'torch.eye(3)',
    'torch.eye(2, 3)',
    'torch.eye(3, dtype=torch.int64)',
    'torch.eye(-1)',
    'torch.eye(2, -1)',
    'torch.eye(0)',
    'torch.eye(3, requires_grad=True).requires_grad',
    'torch.tril_indices(3, 3)',
    'torch.tril_indices(4, 3, 1)',
    'torch.triu_indices(3, 3)',
    'torch.triu_indices(3, 4, -1)',
    'torch.tril_indices(3, 3, dtype=torch.int32)',
    'torch.tril_indices(0, 3)',
    'torch.triu_indices(3, 3, dtype=torch.float32)',
    'torch.range(0, 3)',
    'torch.range(0, 1, 0.25)',
    'torch.zeros(3, out=torch.empty(3))',
    'torch.ones(2, 2, out=torch.empty(4, dtype=torch.int64))',
    'torch.full((2,), 3.5, out=torch.empty(2))',
    'torch.linspace(0, 1, 3, out=torch.empty(3, dtype=torch.float64))',
    'torch.eye(2, out=torch.empty(0))',
    "torch.zeros(2, device='cpu').device",
    "torch.zeros(2, device=torch.device('cpu')).device",
    "torch.zeros(2, device='cuda')",
    "torch.zeros(2, device='cuda:1')",
    'torch.ones(2).cuda()',
    "torch.ones(2).to('cuda')",
    'torch.empty(2, device=0)',
    "torch.tensor([1.], device='cuda')",
    "torch.randn(2, device='cuda')",
    'torch.empty_strided((2, 3), (1, 2), dtype=torch.int32).dtype',
    'torch.empty_strided((2, 3), (3, 1)).is_contiguous()',
    'torch.zeros_like(torch.ones(2, 3, 4).permute(2, 0, 1)).stride()',
    'torch.zeros_like(torch.ones(2, 3).expand(4, 2, 3)).stride()',
    'torch.ones_like(torch.ones(1, 3).t()).stride()',
    'torch.zeros_like(torch.ones(2, 3)[:, ::2]).stride()',
    'torch.full_like(torch.ones(2, 3).t(), 3).stride()',
    'torch.empty_like(torch.ones(2, 3), dtype=torch.int64).dtype',
    'torch.zeros_like(torch.ones(2), requires_grad=True).requires_grad',
    'torch.zeros_like(torch.ones(2, dtype=torch.long), requires_grad=True)',
    'torch.ones(2).new_ones(2, 3).shape',
    'torch.ones(2).new_ones((2, 3), dtype=torch.int32)',
    'torch.ones(2).new_zeros(2, requires_grad=True).requires_grad',
    'torch.tensor([[1, 2], [3, 4]], dtype=torch.float64).new_tensor([[5]])',
    'torch.tensor(5).new_full([2, 2], 1.5)',
    'torch.asarray(torch.ones(2), dtype=torch.float64)',
    'torch.asarray([[1, 2], [3, 4]]).shape',
    'torch.as_tensor(torch.ones(2), dtype=torch.int64)',
    'torch.as_tensor((1.5, 2))',
    'torch.as_tensor(3.5)',
    'torch.as_tensor(np.float32(3.5))',
    'torch.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=torch.float16)',
    'torch.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=torch.bfloat16)',
    'torch.tensor([1.123456789], dtype=torch.float64)',
    'torch.tensor(0.1)',
]


@pytest.mark.parametrize("expr", EXPRS)
def test_creation(expr):
    check(eval("lambda torch: " + expr))


def test_uninitialised_legacy_sizes():
    check(lambda torch: (torch.Tensor(2, 3).shape, torch.Tensor(2, 3).dtype,
                         torch.FloatTensor(5, 7, 3).shape, torch.LongTensor(4).dtype))


def test_seed_list_of_zero_dim_tensors():
    check(lambda torch: torch.tensor([torch.tensor(1), torch.tensor(2), torch.tensor(3)]))


def test_from_numpy_shares_memory():
    def f(torch):
        a = np.arange(6.).reshape(2, 3)
        t = torch.from_numpy(a)
        a[0, 0] = 50
        t[1, 2] = -1
        return t, a.tolist(), t.stride()
    check(f)


def test_as_tensor_shares_and_tensor_copies():
    def f(torch):
        a = np.arange(3)
        t = torch.as_tensor(a)
        c = torch.tensor(a)
        a[0] = 9
        return t, c
    check(f)


def test_as_tensor_returns_same_object():
    def f(torch):
        x = torch.ones(2)
        return torch.as_tensor(x) is x, torch.asarray(x) is x
    check(f)


def test_default_dtype_float64():
    def f(torch):
        torch.set_default_dtype(torch.float64)
        try:
            return (torch.tensor([1.5]), torch.zeros(2), torch.arange(1.), torch.tensor([1j]),
                    torch.full((1,), 2.5), torch.linspace(0, 1, 3))
        finally:
            torch.set_default_dtype(torch.float32)
    check(f)


def test_out_keeps_identity():
    def f(torch):
        o = torch.empty(3)
        r = torch.zeros(3, out=o)
        return r is o, o
    check(f)


@pytest.mark.parametrize("args", [(0, 1, 50), (-2.5, 7.25, 33), (1e-3, 1, 1000), (3, -3, 7)])
def test_linspace_values(args):
    # within an ulp or so: PyTorch's vectorised kernel rounds lane by lane
    check(lambda torch: torch.linspace(*args))
    check(lambda torch: torch.linspace(*args, dtype=torch.float64))


# PyTorch's argument parser on linspace/logspace: `steps` is an int (or a 0-dim integer tensor),
# `start`/`end` Tensors or Numbers; anything else matches none of their overloads
SPACE_ARGS = [
    'torch.linspace(0, 1., 1.5)',
    'torch.linspace(0, 1., steps=1.5)',
    'torch.linspace(0, 1., 2.0, dtype=torch.float64)',
    'torch.linspace(0, 1., steps=1.5, dtype=torch.float64, device="cpu", requires_grad=True)',
    'torch.linspace(start=0, end=1., steps=1.5)',
    'torch.linspace(0, 1., np.float64(2))',
    'torch.linspace(torch.tensor(0.), 1., 2.0)',
    'torch.linspace(0, 1., True)',
    'torch.linspace(0, 1., None)',
    'torch.linspace(0, 1., torch.tensor([3]))',
    'torch.linspace(0, 1., torch.tensor(3))',
    'torch.linspace(0, 1., np.int64(3))',
    'torch.linspace("a", 1., 3)',
    'torch.linspace(None, 1., 3)',
    'torch.linspace(True, 1., 3)',
    'torch.linspace(0, 1., 3, 4)',
    'torch.linspace(0, 1., 3, steps=3)',
    'torch.linspace(0, 1., 3, foo=4)',
    'torch.linspace(0, 1.)',
    'torch.linspace(0, 1., 3, out=[])',
    'torch.linspace(0, 1., 1.5, dtype=None)',
    'torch.linspace(0, 1, 2, dtype=np.float32)',
    'torch.linspace(0, 1, 2, dtype=float)',
    'torch.linspace(0, 1, 3, pin_memory=False)',
    'torch.linspace(torch.ones(1), torch.ones(1, 1), 3)',
    'torch.linspace(0., torch.ones(1, 1), -3)',
    'torch.logspace(0, 1., 1.5)',
    'torch.logspace(0, 1., 1.5, 2)',
    'torch.logspace(0, 1., 1.5, out=torch.empty(0))',
    'torch.logspace(0, 1., 3, 2j)',
    'torch.logspace(0, 1., 3, torch.tensor(2.))',
    'torch.logspace(0, 1., torch.tensor(3), base=np.float32(2.))',
    'torch.logspace(0, 1., -1)',
    'torch.logspace(torch.tensor([0.]), 1., 3)',
    'torch.arange(0, 1., 1.5)',
]


@pytest.mark.parametrize("expr", SPACE_ARGS)
def test_space_argument_types(expr):
    check(eval("lambda torch: " + expr))


def test_complex_polar_broadcast_grad_and_numbers():
    def f(torch):
        r = torch.tensor([1.0, 2.0, 0.5], requires_grad=True)
        th = torch.tensor([[0.3], [-1.2]], requires_grad=True)
        z = torch.polar(r, th) * torch.complex(r, th)
        return z, torch.autograd.grad(z.abs().sum(), (r, th))
    check(f, rtol=1e-5)
    for expr in ("torch.polar(torch.ones(2), 1)", "torch.polar(1, torch.ones(2))",
                 "torch.complex(1, 2)"):
        check(lambda torch: eval(expr, dict(torch=torch)))


@pytest.mark.parametrize("args", [(0, 10, 1.5), (0.5, 10, 1), (10, 0.5, -1.5), (0, 3, 0.3),
                                  (5, -0.5, -2.2), (-3.2, 4.7, 1.9)])
def test_arange_integer_dtype_truncates(args):
    check(lambda torch: torch.arange(*args, dtype=torch.int64))
    check(lambda torch: torch.arange(*args, out=torch.tensor([], dtype=torch.int64)))
    check(lambda torch: torch.arange(*args, out=torch.tensor([], dtype=torch.int32)))
