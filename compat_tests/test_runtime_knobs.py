"""Top-level runtime knobs against real torch: thread counts (defaults read in fresh processes,
set/get, argument errors, the once-only interop setting), warn-always, flush-denormal, and the
default device (`set_default_device`, `get_default_device`, `with torch.device(...)`, per
thread, factory functions and modules built inside)."""
import json
import os
import subprocess
import sys
import threading

import pytest

from harness import check

from torchlike._core.device import gpus

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _fresh(lib, body, env=None):
    """Run `body` (which prints one JSON line) in a new process with `lib` imported as torch."""
    src = f"import {lib} as torch, json\n{body}"
    e = dict(os.environ, JAX_PLATFORMS="cpu", **(env or {}))
    out = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, env=e,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


_THREADS = r"""
out = [torch.get_num_threads(), torch.get_num_interop_threads()]
torch.set_num_threads(3)
out.append(torch.get_num_threads())
torch.set_num_interop_threads(5)
out.append(torch.get_num_interop_threads())
try:
    torch.set_num_interop_threads(6)
except Exception as e:
    out.append([type(e).__name__, str(e)])
out.append(torch.get_num_interop_threads())
print(json.dumps(out))
"""


@pytest.mark.parametrize("env", [{}, {"OMP_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "99"},
                                 {"OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "1"}],
                         ids=["default", "omp1", "omp99", "mkl1"])
def test_thread_counts_in_a_fresh_process(env):
    assert _fresh("torchlike", _THREADS, env) == _fresh("torch", _THREADS, env)


def test_interop_threads_set_before_reading():
    body = ("torch.set_num_interop_threads(2)\n"
            "print(json.dumps([torch.get_num_interop_threads()]))")
    assert _fresh("torchlike", body) == _fresh("torch", body)


def _restoring_threads(fn):
    def f(torch):
        before = torch.get_num_threads()
        try:
            return fn(torch)
        finally:
            torch.set_num_threads(before)
    return f


def test_set_num_threads_reads_back():
    def f(torch):
        out = []
        for n in (1, 2, 7, 2 ** 31 - 1):
            torch.set_num_threads(n)
            out.append(torch.get_num_threads())
        import numpy as np
        torch.set_num_threads(np.int32(2))
        out.append(torch.get_num_threads())
        return out
    check(_restoring_threads(f))


THREAD_ERRORS = [
    "torch.set_num_threads(0)", "torch.set_num_threads(-1)", "torch.set_num_threads(1.5)",
    "torch.set_num_threads(2.0)", "torch.set_num_threads('2')", "torch.set_num_threads(True)",
    "torch.set_num_threads(None)", "torch.set_num_threads(torch.tensor(2))",
    "torch.set_num_threads(np.float64(2))", "torch.set_num_threads(2 ** 31)",
    "torch.set_num_threads(-2 ** 31)", "torch.set_num_threads()", "torch.set_num_threads(1, 2)",
    "torch.set_num_threads(n=1)", "torch.get_num_threads(1)", "torch.get_num_threads(x=1)",
    "torch.set_num_interop_threads(0)", "torch.set_num_interop_threads(1.5)",
    "torch.set_num_interop_threads(1, 2)", "torch.set_num_interop_threads()",
    "torch.get_num_interop_threads(1)",
]


@pytest.mark.parametrize("expr", THREAD_ERRORS)
def test_thread_argument_errors(expr):
    import numpy as np
    check(_restoring_threads(lambda torch: eval(expr, dict(torch=torch, np=np))))


def test_warn_always():
    def f(torch):
        before = torch.is_warn_always_enabled()
        out = [before]
        try:
            out.append(torch.set_warn_always(True))
            out.append(torch.is_warn_always_enabled())
            torch.set_warn_always(False)
            out.append(torch.is_warn_always_enabled())
        finally:
            torch.set_warn_always(before)
        return out
    check(f)


@pytest.mark.parametrize("expr", ["torch.set_warn_always(1)", "torch.set_warn_always('x')",
                                  "torch.set_warn_always(None)",
                                  "torch.set_warn_always(np.bool_(True))",
                                  "torch.set_warn_always()", "torch.set_warn_always(b=True)",
                                  "torch.is_warn_always_enabled(1)"])
def test_warn_always_errors(expr):
    import numpy as np
    check(lambda torch: eval(expr, dict(torch=torch, np=np)))


@pytest.mark.parametrize("expr", ["torch.set_flush_denormal(True)",
                                  "torch.set_flush_denormal(False)",
                                  "torch.set_flush_denormal(1)", "torch.set_flush_denormal('x')",
                                  "torch.set_flush_denormal(None)",
                                  "torch.set_flush_denormal(np.bool_(True))",
                                  "torch.set_flush_denormal()",
                                  "torch.set_flush_denormal(True, False)",
                                  "torch.set_flush_denormal(mode=True)"])
def test_flush_denormal(expr):
    import numpy as np

    def f(torch):
        try:
            return eval(expr, dict(torch=torch, np=np))
        finally:
            torch.set_flush_denormal(False)
    check(f)


# ---- the default device ------------------------------------------------------------------------

def _with_default(fn):
    def f(torch):
        try:
            return fn(torch)
        finally:
            torch.set_default_device(None)
    return f


FACTORIES = ["torch.zeros(2)", "torch.ones(2, 3)", "torch.empty(2)", "torch.full((2,), 1.0)",
             "torch.arange(3)", "torch.range(0, 2)", "torch.linspace(0, 1, 3)",
             "torch.logspace(0, 1, 3)", "torch.eye(2)", "torch.rand(2)", "torch.randn(2)",
             "torch.randint(3, (2,))", "torch.randperm(3)", "torch.tensor([1.0])",
             "torch.as_tensor([1.0])", "torch.asarray([1])", "torch.scalar_tensor(1.0)",
             "torch.tril_indices(3, 3)", "torch.triu_indices(3, 3)",
             "torch.empty_strided((2,), (1,))", "torch.fft.fftfreq(3)", "torch.fft.rfftfreq(4)",
             "torch.zeros(2, device='cpu')", "torch.zeros_like(torch.empty(2, device='cpu'))",
             "torch.from_numpy(np.ones(2))", "torch.Tensor(2)",
             "torch.nn.Linear(2, 2).weight", "torch.nn.Embedding(3, 2).weight",
             "torch.nn.Conv2d(1, 1, 3).bias", "torch.nn.LayerNorm(3).weight"]


@pytest.mark.parametrize("how", ["set", "with"])
def test_factories_follow_the_default_device(how):
    import numpy as np

    def f(torch):
        def devices():
            return [str(eval(e, dict(torch=torch, np=np)).device) for e in FACTORIES]
        if how == "set":
            torch.set_default_device("meta")
            return devices(), torch.get_default_device()
        with torch.device("meta") as d:
            return devices(), torch.get_default_device(), d
    check(_with_default(f))


def test_default_device_nesting_and_threads():
    def f(torch):
        out = [torch.get_default_device()]
        torch.set_default_device("meta")
        out.append(torch.get_default_device())
        with torch.device("cpu"):
            out += [torch.get_default_device(), torch.zeros(1).device]
            with torch.device("meta"):
                out.append(torch.zeros(1).device)
            out.append(torch.zeros(1).device)
        out += [torch.zeros(1).device, torch.get_default_device()]
        seen = []
        t = threading.Thread(target=lambda: seen.append((torch.zeros(1).device,
                                                         torch.get_default_device())))
        t.start()
        t.join()
        out.append(seen)
        torch.set_default_device(torch.device("cpu"))
        out += [torch.get_default_device(), torch.zeros(1).device]
        torch.set_default_device(None)
        out += [torch.get_default_device(), torch.zeros(1).device]
        return out
    check(_with_default(f))


_QUIRKS = r"""
out = []
def dev():
    return [str(torch.zeros(1).device), str(torch.get_default_device())]
with torch.device("meta"):
    with torch.device("cpu"):
        out.append(dev())
    torch.set_default_device("cpu")  # displaces the block's device
    out.append(dev())
out.append(dev())
torch.set_default_device(None)  # brings back the device it displaced
out.append(dev())
torch.set_default_device("meta")
out.append(dev())
try:
    with torch.device("cpu"):
        torch.set_default_device("meta")
except AssertionError as e:
    out.append(["AssertionError", str(e)])
out.append(dev())
try:
    torch.set_default_device("bad")
except RuntimeError as e:
    out.append(str(e)[:40])
out.append(dev())
print(json.dumps(out))
"""


def test_default_device_mode_stack_quirks_in_a_fresh_process():
    """PyTorch's DeviceContext stack, quirks included (run apart: they leave its state odd)."""
    assert _fresh("torchlike", _QUIRKS) == _fresh("torch", _QUIRKS)


@pytest.mark.parametrize("arg", ["'bad'", "1.5", "'cuda:x'", "None"])
def test_set_default_device_errors(arg):
    check(_with_default(lambda torch: (torch.set_default_device(eval(arg)),
                                       torch.get_default_device())))


@pytest.mark.skipif(bool(gpus()), reason="a CPU-only PyTorch is the oracle for CUDA failures")
@pytest.mark.parametrize("expr", ["torch.zeros(2)", "torch.get_default_device()",
                                  "torch.tensor([1.0])", "torch.nn.Linear(2, 2)"])
@pytest.mark.parametrize("device", ["'cuda'", "'cuda:1'", "3"])
def test_cuda_default_device_fails_as_cpu_only_torch(expr, device):
    def f(torch):
        torch.set_default_device(eval(device))
        r = eval(expr, dict(torch=torch))
        return r.device if hasattr(r, "device") else r
    check(_with_default(f))


@pytest.mark.skipif(bool(gpus()), reason="a CPU-only PyTorch is the oracle for CUDA failures")
def test_with_cuda_device_block_fails_at_creation():
    def f(torch):
        with torch.device("cuda"):
            return torch.ones(2)
    check(f)
