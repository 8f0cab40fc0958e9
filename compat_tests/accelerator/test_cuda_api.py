"""The `torch.cuda` surface scripts call, with an accelerator present, and float32 matmul
precision. Stated behaviour is PyTorch's documented one (torch.cuda docs): events time the
device work between two records in milliseconds, `synchronize` waits for queued kernels,
memory queries answer byte counts, nvtx ranges nest."""
import numpy as np
import pytest

import torchlike as torch
from oracle import REAL_CUDA, check_error


def test_events_time_device_work():
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a = torch.randn(256, 256, device="cuda")
    start.record()
    for _ in range(5):
        a = a @ a / 256
    end.record()
    end.synchronize()
    assert start.query() and end.query()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float) and ms > 0
    with pytest.raises(RuntimeError, match="Both events must be created with argument "
                                           "'enable_timing=True'."):
        torch.cuda.Event().elapsed_time(torch.cuda.Event())
    with pytest.raises(RuntimeError, match="Both events must be recorded before calculating "
                                           "elapsed time."):
        torch.cuda.Event(enable_timing=True).elapsed_time(end)


def test_streams_and_synchronize():
    s = torch.cuda.Stream()
    assert torch.cuda.current_stream() == torch.cuda.default_stream()
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() is s
        x = torch.ones(4, device="cuda") * 2
    s.synchronize()
    torch.cuda.current_stream().wait_stream(s)
    e = s.record_event()
    torch.cuda.current_stream().wait_event(e)
    torch.cuda.synchronize()
    torch.cuda.synchronize(0)
    assert x.sum().item() == 8.0


def test_memory_queries():
    free, total = torch.cuda.mem_get_info()
    assert isinstance(free, int) and isinstance(total, int) and 0 <= free <= total
    for f in (torch.cuda.memory_allocated, torch.cuda.max_memory_allocated,
              torch.cuda.memory_reserved, torch.cuda.max_memory_reserved):
        assert isinstance(f(), int) and f() >= 0 and f(0) == f(torch.device("cuda", 0))
    torch.cuda.reset_peak_memory_stats()
    torch.cuda.reset_accumulated_memory_stats()
    assert torch.cuda.max_memory_allocated() >= torch.cuda.memory_allocated() or not REAL_CUDA
    stats = torch.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == torch.cuda.memory_allocated()
    torch.cuda.empty_cache()


def test_device_queries_and_nvtx():
    p = torch.cuda.get_device_properties(0)
    assert p.name == torch.cuda.get_device_name(0) and isinstance(p.total_memory, int)
    assert torch.cuda.get_device_capability() == (p.major, p.minor)
    assert torch.cuda.is_bf16_supported() and torch.cuda.device_count() >= 1
    assert torch.cuda.nvtx.range_push("outer") == 0
    assert torch.cuda.nvtx.range_push("inner") == 1
    assert torch.cuda.nvtx.range_pop() == 1
    assert torch.cuda.nvtx.range_pop() == 0
    assert torch.cuda.nvtx.range_pop() == -1
    with torch.cuda.nvtx.range("step {}", 3):
        torch.cuda.nvtx.mark("here")


def test_float32_matmul_precision():
    """PyTorch computes float32 matmuls in full precision by default ('highest'); TF32 only
    after `set_float32_matmul_precision('high')` or `backends.cuda.matmul.allow_tf32 = True`
    (max relative error vs float64 on a 1024^2 product: ~1e-6 against ~3e-4 with TF32)."""
    assert torch.get_float32_matmul_precision() == "highest"
    assert torch.backends.cuda.matmul.allow_tf32 is False
    rng = np.random.RandomState(0)
    a, b = rng.randn(1024, 1024), rng.randn(1024, 1024)
    exact = a @ b
    got = (torch.tensor(a, dtype=torch.float32, device="cuda") @
           torch.tensor(b, dtype=torch.float32, device="cuda")).cpu().double().numpy()
    assert np.abs(got - exact).max() / np.abs(exact).max() < 2e-5
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        assert torch.get_float32_matmul_precision() == "high"
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False
    assert torch.get_float32_matmul_precision() == "highest"


ORDINAL = ("CUDA error: invalid device ordinal\nGPU device may be out of range, do you have "
           "enough GPUs?\nCUDA kernel errors might be asynchronously reported at some other API "
           "call, so the stacktrace below might be incorrect.\nFor debugging consider passing "
           "CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "
           "assertions.\n")


@pytest.mark.parametrize("expr", ["torch.ones(2, device='cuda:7')",
                                  "torch.ones(2).to('cuda:7')", "torch.cuda.set_device(7)"])
def test_device_past_the_last(expr):
    """A GPU index past the last: `torch.AcceleratorError` (a RuntimeError), with the text CUDA
    PyTorch 2.11 gave on a one-GPU H200 (compared with it on a real GPU)."""
    check_error(lambda torch: eval(expr), "AcceleratorError", ORDINAL)
