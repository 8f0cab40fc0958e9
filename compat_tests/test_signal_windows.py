"""torch.signal.windows against real PyTorch: values and dtypes for symmetric and periodic windows,
each window's parameters, the default dtype, requires_grad (which op made the window), the
signatures, and PyTorch's errors in PyTorch's order."""
import inspect

import numpy as np
import pytest

from harness import check

PLAIN = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_hamming",
         "hamming", "hann", "kaiser", "nuttall"]
ALL = sorted(PLAIN + ["general_cosine"])
LENGTHS = [0, 1, 2, 3, 8, 33]


def _w(torch):
    return torch.signal.windows


@pytest.mark.parametrize("name", PLAIN)
def test_values(name):
    check(lambda torch: [getattr(_w(torch), name)(M, sym=sym, dtype=dtype)
                         for M in LENGTHS for sym in (True, False)
                         for dtype in (None, torch.float32, torch.float64)])


PARAMETERS = [
    "W.general_cosine(9, a=[0.5, 0.3, 0.2])",
    "W.general_cosine(8, a=(0.5, 0.3, 0.2), sym=False, dtype=torch.float64)",
    "W.general_cosine(5, a=[1])",
    "W.general_cosine(5, a=range(2))",
    "W.general_cosine(5, a={0.5: 1})",
    "W.general_cosine(5, a=[torch.tensor(0.5), 0.5])",
    "W.general_cosine(0, a=[])",
    "W.general_cosine(1, a=1.0)",
    "W.general_hamming(7, alpha=0.3)",
    "W.general_hamming(7, alpha=2, sym=False)",
    "W.general_hamming(5, alpha=torch.tensor(0.2))",
    "W.exponential(7, tau=2.5)",
    "W.exponential(7, center=1.0, sym=False)",
    "W.exponential(7, center=2, tau=3.0, sym=False, dtype=torch.float64)",
    "W.exponential(6, center=torch.tensor(2.), sym=False)",
    "W.exponential(5, tau=torch.tensor(2.))",
    "W.gaussian(9, std=2.5)",
    "W.gaussian(10, std=0.5, sym=False, dtype=torch.float64)",
    "W.gaussian(5, std=torch.tensor(2.))",
    "W.kaiser(9, beta=5.0)",
    "W.kaiser(10, beta=0.0, sym=False)",
    "W.kaiser(10, beta=30.0, dtype=torch.float64)",
    "W.kaiser(5, beta=torch.tensor(2.))",
    "W.hann(M=5)",
    "W.hann(5, sym=0)",
    "W.hann(np.int32(4))",
    "W.hann(torch.tensor(4))",
    "W.cosine(torch.tensor(3))",
    "W.hann(1.0)",
    "W.kaiser(True)",
    "W.cosine(0.0)",
    "W.hann(1000)",
    "W.kaiser(1001, sym=False)",
    "W.hann(5, device='cpu').device",
    "W.hann(5).stride()",
]

ERRORS = [
    "W.hann(-1)",
    "W.gaussian(-1.0)",
    "W.kaiser(torch.tensor(-2))",
    "W.bartlett(5, dtype=torch.int64)",
    "W.hann(5, dtype=torch.float16)",
    "W.blackman(5, dtype=torch.bfloat16)",
    "W.nuttall(5, dtype=torch.complex64)",
    "W.hamming(0, dtype=torch.bool)",
    "W.kaiser(5, layout=None)",
    "W.hann(5, dtype=torch.int64, layout=None)",
    "W.hann(-1, dtype=torch.int64)",
    "W.general_cosine(5)",
    "W.general_cosine(5, a=[])",
    "W.general_cosine(5, a='')",
    "W.general_cosine(5, a=1.0)",
    "W.general_cosine(5, a=None)",
    "W.general_cosine(5, a=torch.tensor([0.5, 0.5]))",
    "W.general_cosine(5, a=[1, 2j])",
    "W.general_cosine(5, a=['x'])",
    "W.general_cosine(2.5, a=[])",
    "W.general_cosine(2.5, a=['x'])",
    "W.general_cosine(5, a=[], dtype=torch.int64)",
    "W.general_hamming(0, alpha='x')",
    "W.exponential(5, center=1.0)",
    "W.exponential(5, tau=0)",
    "W.exponential(0, tau=-1)",
    "W.exponential(5, center=1.0, tau=-1)",
    "W.exponential(5, tau=-1, dtype=torch.int64)",
    "W.gaussian(5, std=0)",
    "W.gaussian(0, std=-1)",
    "W.kaiser(5, beta=-1)",
    "W.kaiser(0, beta=-0.5)",
    "W.kaiser(0, beta=2j)",
    "W.kaiser(4, beta=[1.])",
    "W.hann(5, True)",
    "W.hann()",
    "W.hann(5, foo=1)",
    "W.hann('a')",
    "W.hann(None)",
    "W.hann(5, device='cuda')",
    # a non-integer length meets PyTorch's linspace() argument parser
    "W.hann(2.5)",
    "W.bartlett(2.0, device='cpu', requires_grad=True)",
    "W.cosine(1.0)",
    "W.cosine(True)",
    "W.exponential(np.float64(3.0))",
    "W.gaussian(torch.tensor(3.))",
    "W.kaiser(2.5, device=torch.device('cpu'))",
    "W.kaiser(np.float64(3.0))",
    "W.nuttall(torch.tensor([3]))",
]


@pytest.mark.parametrize("expr", PARAMETERS + ERRORS)
def test_expression(expr):
    check(lambda torch: eval(expr, {"torch": torch, "W": _w(torch), "np": np}))


def test_default_dtype():
    def f(torch):
        torch.set_default_dtype(torch.float64)
        try:
            return ([getattr(_w(torch), n)(6) for n in PLAIN]
                    + [_w(torch).general_cosine(6, a=[1, 1])])
        finally:
            torch.set_default_dtype(torch.float32)
    check(f)


def test_default_dtype_half_is_refused():
    def f(torch):
        torch.set_default_dtype(torch.float16)
        try:
            return _w(torch).hann(4)
        finally:
            torch.set_default_dtype(torch.float32)
    check(f)


def test_requires_grad():
    """Lengths 0 and 1 (but for cosine, exponential, gaussian) are leaves; longer windows are
    the result of the window's last op, and gradients flow through them."""
    def f(torch):
        out = []
        for name in PLAIN:
            for M in (0, 1, 6):
                w = getattr(_w(torch), name)(M, requires_grad=True)
                out.append((name, M, w.requires_grad, w.is_leaf, type(w.grad_fn).__name__))
            w = getattr(_w(torch), name)(6, sym=False, requires_grad=True)
            (w * torch.arange(6.)).sum().backward()
            out.append((w.requires_grad, w.is_leaf, type(w.grad_fn).__name__, w.detach()))
        return out
    check(f)


def test_signatures():
    def f(torch):
        return {n: [(p.name, str(p.kind), repr(p.default))
                    for p in inspect.signature(getattr(_w(torch), n)).parameters.values()]
                for n in ALL}
    check(f)


def test_module():
    check(lambda torch: (sorted(_w(torch).__all__), torch.signal.__all__,
                         [getattr(_w(torch), n).__name__ for n in ALL]))
