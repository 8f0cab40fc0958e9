"""torch.device, Tensor device attributes and torch.cuda against real (CPU-only) PyTorch.

Where a GPU is needed the test runs the real check when `torchlike.cuda.is_available()`, and
otherwise asserts the CPU-only behaviour (real torch here is a CPU-only build)."""
import numpy as np
import pytest

import torchlike
from harness import check

HAS_GPU = torchlike.cuda.is_available()

DEVICE_EXPRS = [
    "torch.device('cpu')", "repr(torch.device('cpu'))", "str(torch.device('cuda', 1))",
    "repr(torch.device('cuda', 1))", "repr(torch.device('cuda:0'))", "repr(torch.device('cpu:0'))",
    "torch.device('cuda:0', 0)", "torch.device('cuda:-1')", "torch.device('cuda', -1)",
    "torch.device('gpu')", "torch.device('CPU')", "torch.device('cuda:x')", "torch.device('cuda:01')",
    "torch.device(' cpu')", "torch.device('cuda:1:2')", "torch.device(1.5)", "torch.device(None)",
    "torch.device('cuda', '1')", "torch.device(-1)", "torch.device('cpu') == 'cpu'",
    "torch.device('cuda:0') == torch.device('cuda')", "torch.device('cpu') == torch.device('cpu')",
    "torch.device('cpu') != torch.device('cpu', 0)", "torch.device('cpu') == 3",
    "repr(torch.device(torch.device('cuda', 2)))", "repr(torch.device('cpu', index=None))",
    "repr(torch.device(type='cuda', index=2))", "torch.device('meta').type", "torch.device('cpu').index",
    "torch.device('cuda', 3).index", "hash(torch.device('cpu')) == hash(torch.device('cpu'))",
    "{torch.device('cpu'): 1}[torch.device('cpu')]",
    "torch.ones(2).device", "torch.ones(2).to('cpu').device", "torch.ones(2).cpu().device",
    "torch.ones(2, device=torch.device('cpu')).device", "torch.ones(2).is_cuda",
    "torch.ones(2).is_cpu", "torch.ones(2).get_device()", "torch.ones(2).to(torch.device('cpu'))",
    "torch.ones(2).to('cpu', torch.float64)", "torch.ones(2).to(device='cpu', dtype=torch.int32)",
    "torch.ones(2).cpu() is not None",
    "torch.cuda.is_available()", "torch.cuda.device_count()", "torch.cuda.empty_cache()",
    "torch.cuda.manual_seed(1)", "torch.cuda.manual_seed_all(1)", "torch.cuda.memory_allocated()",
    "torch.cuda.max_memory_allocated()", "torch.cuda.memory_reserved()",
    "torch.cuda.max_memory_reserved()", "torch.cuda.is_initialized()", "torch.cuda.get_arch_list()",
    "torch.cuda.is_bf16_supported()", "torch.cuda.set_device('cpu')", "torch.cuda.set_device(-1)",
    "torch.cuda.set_device(None)", "torch.cuda.device('cuda:1').idx", "torch.cuda.device(None).idx",
    "torch.cuda.device(torch.device('cuda', 2)).idx", "torch.cuda.device('cpu')",
    "torch.cuda.device_of(torch.ones(2)).idx", "torch.cuda.seed()", "torch.cuda.seed_all()",
    "repr(torch.cuda.FloatTensor)", "isinstance(torch.ones(2), torch.cuda.FloatTensor)",
    "torch.cuda.FloatTensor.is_cuda", "torch.FloatTensor.is_cuda", "torch.cuda.LongTensor.dtype",
]

NEEDS_GPU = [
    "torch.cuda.current_device()", "torch.cuda.get_device_name()", "torch.cuda.get_device_name(0)",
    "torch.cuda.get_device_properties(0)", "torch.cuda.get_device_capability()",
    "torch.cuda.set_device(0)", "torch.cuda.synchronize()", "torch.cuda.init()",
    "torch.cuda.initial_seed()", "torch.cuda.get_rng_state()", "torch.cuda.current_stream()",
    "torch.cuda.FloatTensor(2)", "torch.cuda.LongTensor([1])", "torch.ones(2).cuda()",
    "torch.zeros(2, device='cuda')", "torch.zeros(2, device='cuda:1')", "torch.ones(2).to('cuda')",
    "torch.tensor([1.], device='cuda')", "torch.randn(2, device='cuda')", "torch.empty(2, device=0)",
    "torch.device(0)", "torch.ones(2).to(0)", "torch.arange(3, device='cuda')",
    "torch.ones(2).to(device='cuda:0', dtype=torch.float64)", "torch.ones(2).cuda(device='cuda')",
    "torch.Generator(device='cuda')", "torch.full((2,), 1, device='cuda')",
]


@pytest.mark.parametrize("expr", DEVICE_EXPRS)
def test_device_behaviour(expr):
    check(lambda torch: eval(expr))


def test_cuda_device_context_cpu_only():
    def f(torch):
        with torch.cuda.device(-1):
            pass
        with torch.cuda.device(0):
            return "entered"
    if HAS_GPU:
        with torchlike.cuda.device(0):
            assert torchlike.cuda.current_device() == 0
    else:
        check(f)


@pytest.mark.parametrize("expr", NEEDS_GPU)
def test_needs_gpu(expr):
    if not HAS_GPU:  # the CPU-only build's exact errors (real torch here has no CUDA)
        check(lambda torch: eval(expr))
        return
    r = eval(expr, {"torch": torchlike})
    if isinstance(r, torchlike.Tensor):
        assert r.is_cuda and r.device.type == "cuda" and r.get_device() >= 0


def test_gpu_roundtrip_or_cpu_only():
    T = torchlike
    x = T.arange(6.).reshape(2, 3)
    if not HAS_GPU:
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            x.cuda()
        return
    y = x.cuda()
    assert y.is_cuda and y.device == T.device("cuda", 0) and y.get_device() == 0
    assert (y.cpu() == x).all() and y.cpu().device == T.device("cpu")
    z = T.zeros(2, 3, device="cuda") + y
    assert z.is_cuda and (z.cpu() == x).all()
    g = T.Generator(device="cuda").manual_seed(3)
    a = T.rand(4, device="cuda", generator=g)
    assert a.is_cuda
    g.manual_seed(3)
    assert (T.rand(4, device="cuda", generator=g).cpu() == a.cpu()).all()
    assert isinstance(T.cuda.get_device_name(0), str)
    T.cuda.synchronize()
    assert T.cuda.memory_allocated() >= 0


@pytest.mark.parametrize("value", [np.arange(6, dtype=np.int64).reshape(2, 3),
                                   np.float32(2.5), np.array(True), np.zeros((0, 4)),
                                   np.ones((3, 4), np.float32)[:, ::2],
                                   np.array([1 + 2j], np.complex64)])
def test_transfer_is_jax_device_put(value):
    """`device.transfer` (XLA's C++ host-to-device copy) makes what `jax.device_put` makes:
    same dtype, shape, values and committedness, on the default device or a given one."""
    import jax
    from torchlike._core import device
    for target in (None, jax.devices()[0]):
        got, want = device.transfer(value, target), jax.device_put(value, target)
        assert type(got) is type(want)
        assert (got.dtype, got.shape, got.committed, got.weak_type) == \
            (want.dtype, want.shape, want.committed, want.weak_type)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_transfer_inside_a_trace_is_staged():
    import jax
    from torchlike._core import device
    seen = []

    @jax.jit
    def f(x):
        k = device.transfer(np.arange(3))
        seen.append(isinstance(k, jax.core.Tracer))
        return x + k
    np.testing.assert_array_equal(np.asarray(f(np.ones(3, np.int64))), [1, 2, 3])
    assert seen == [True]
