"""Operands on several devices: PyTorch's errors, and 0-dim CPU tensors used as scalars.

Stated messages are PyTorch's: its TensorIterator's ("Expected all tensors to be on the same
device, but found at least two devices, {common} and {other}!", the common device being the
first operand's that is not the CPU) and its generated wrappers' ("... but got {argument} is on
{device}, different from other tensors on {common} (when checking argument in method
wrapper_CUDA_{op})", checked argument by argument in schema order)."""
import pytest

from oracle import check_error, check_value, needs_gpus

TI = "Expected all tensors to be on the same device, but found at least two devices, {} and {}!"


def wrapper(arg, dev, common, method):
    return (f"Expected all tensors to be on the same device, but got {arg} is on {dev}, "
            f"different from other tensors on {common} (when checking argument in method "
            f"{method})")


ERRORS = [
    ("torch.ones(2, device='cuda') + torch.ones(2)", TI.format("cuda:0", "cpu")),
    ("torch.ones(2) + torch.ones(2, device='cuda')", TI.format("cuda:0", "cpu")),
    ("torch.ones(2) * torch.ones(2, device='cuda').sum()", TI.format("cuda:0", "cpu")),
    ("torch.ones(2, device='cuda').add_(torch.ones(2))", TI.format("cuda:0", "cpu")),
    ("torch.tensor(1.).add_(torch.ones((), device='cuda'))", TI.format("cuda:0", "cpu")),
    ("torch.ones(2, device='cuda') + torch.ones(2, device='cuda:1')",
     TI.format("cuda:0", "cuda:1")),
    ("torch.where(torch.ones(2) > 0, torch.ones(2, device='cuda'), torch.zeros(2))",
     TI.format("cuda:0", "cpu")),
    ("torch.nn.functional.mse_loss(torch.ones(2, device='cuda'), torch.ones(2))",
     TI.format("cuda:0", "cpu")),
    ("torch.add(torch.ones(2, device='cuda'), 1, out=torch.empty(2))",
     TI.format("cuda:0", "cpu")),
    ("torch.mm(torch.ones(2, 2, device='cuda'), torch.ones(2, 2))",
     wrapper("mat2", "cpu", "cuda:0", "wrapper_CUDA_mm")),
    ("torch.ones(2, 2) @ torch.ones(2, 2, device='cuda')",
     wrapper("mat2", "cuda:0", "cpu", "wrapper_CUDA_mm")),
    ("torch.ones(3, 2, device='cuda') @ torch.ones(2, 2)",
     wrapper("mat2", "cpu", "cuda:0", "wrapper_CUDA_mm")),
    ("torch.bmm(torch.ones(2, 2, 2, device='cuda'), torch.ones(2, 2, 2))",
     wrapper("mat2", "cpu", "cuda:0", "wrapper_CUDA_bmm")),
    ("torch.cat([torch.ones(2, device='cuda'), torch.ones(2)])",
     wrapper("tensors", "cpu", "cuda:0", "wrapper_CUDA_cat")),
    ("torch.cat([torch.ones(2), torch.ones(2, device='cuda')])",
     wrapper("tensors", "cuda:0", "cpu", "wrapper_CUDA_cat")),
    ("torch.stack([torch.ones(2, device='cuda'), torch.ones(2)])",
     wrapper("tensors", "cpu", "cuda:0", "wrapper_CUDA_cat")),
    # F.linear: addmm(bias, input, weight.t()) for a 2-D input with a bias, else mm
    ("torch.nn.functional.linear(torch.ones(3, 2, device='cuda'), torch.ones(4, 2), "
     "torch.ones(4))", wrapper("mat1", "cuda:0", "cpu", "wrapper_CUDA_addmm")),
    ("torch.nn.functional.linear(torch.ones(3, 2, device='cuda'), torch.ones(4, 2))",
     wrapper("mat2", "cpu", "cuda:0", "wrapper_CUDA_mm")),
    ("torch.nn.functional.embedding(torch.tensor([1, 2]), torch.ones(5, 2, device='cuda'))",
     wrapper("index", "cpu", "cuda:0", "wrapper_CUDA__index_select")),
    ("torch.ones(3, device='cuda').index_select(0, torch.tensor([0]))",
     wrapper("index", "cpu", "cuda:0", "wrapper_CUDA__index_select")),
    ("torch.nn.functional.layer_norm(torch.ones(3, 2, device='cuda'), (2,), torch.ones(2), "
     "torch.zeros(2))", wrapper("weight", "cpu", "cuda:0", "wrapper_CUDA__native_layer_norm")),
    ("torch.ones(4, 3, device='cuda').gather(1, torch.zeros(4, 1, dtype=torch.long))",
     wrapper("index", "cpu", "cuda:0", "wrapper_CUDA_gather")),
    ("torch.ones(4, 3, device='cuda').scatter(1, torch.zeros(4, 1, dtype=torch.long), 2.0)",
     wrapper("index", "cpu", "cuda:0", "wrapper_CUDA_scatter_value")),
    ("torch.ones(4, 3, device='cuda').scatter_(1, torch.zeros(4, 1, dtype=torch.long, "
     "device='cuda'), torch.ones(4, 1))",
     wrapper("src", "cpu", "cuda:0", "wrapper_CUDA_scatter__src")),
    ("torch.ones(4, 3, device='cuda').index_add(0, torch.tensor([0]), torch.ones(1, 3, "
     "device='cuda'))", wrapper("index", "cpu", "cuda:0", "wrapper_CUDA_index_add")),
    # the mask of a causal attention kept as a plain attribute, not a buffer, stays on the CPU
    ("torch.ones(2, 2, device='cuda').masked_fill(torch.ones(2, 2).tril() == 0, float('-inf'))",
     "expected self and mask to be on the same device, but got mask on cpu and self on cuda:0"),
    ("torch.ones(3, device='cuda').__setitem__(torch.tensor([0, 1]), torch.ones(2))",
     TI.format("cuda:0", "cpu")),
    ("torch.ones(3)[torch.tensor([0], device='cuda')]",
     "indices should be either on cpu or on the same device as the indexed tensor (cpu)"),
    ("torch.mm(torch.ones(2, 2, device='cuda'), torch.ones(2, 2, device='cuda'), "
     "out=torch.empty(2, 2))", wrapper("self", "cuda:0", "cpu", "wrapper_CUDA_mm_out_out")),
]


@pytest.mark.parametrize("expr,msg", ERRORS, ids=[e for e, _ in ERRORS])
def test_mixed_devices_raise(expr, msg):
    if "cuda:1" in expr:
        needs_gpus(2)
    check_error(lambda torch: eval(expr), "RuntimeError", msg)


VALUES = [
    ("torch.ones(2, device='cuda') + torch.tensor(3.)", "cuda:0"),
    ("torch.tensor(3.) * torch.arange(3., device='cuda')", "cuda:0"),
    ("torch.tensor(2) ** torch.arange(3., device='cuda')", "cuda:0"),
    ("torch.arange(4., device='cuda').add_(torch.tensor(0.5))", "cuda:0"),
    ("torch.where(torch.arange(3, device='cuda') > 0, torch.ones(3, device='cuda'), "
     "torch.tensor(-1.))", "cuda:0"),
    ("torch.arange(6., device='cuda').reshape(3, 2)[torch.tensor([0, 2])]", "cuda:0"),
    ("torch.arange(6., device='cuda').reshape(3, 2)[torch.tensor([True, False, True])]",
     "cuda:0"),
    ("torch.arange(6., device='cuda').clamp(min=1.5, max=4)", "cuda:0"),
    ("torch.full((70000,), 7, dtype=torch.int16, device='cuda')", "cuda:0"),
    ("torch.zeros(40000, device='cuda').fill_(2.5)", "cuda:0"),
    ("torch.ones(2).copy_(torch.full((2,), 3., device='cuda'))", "cpu"),
    ("torch.ones(2, device='cuda').copy_(torch.full((2,), 3.))", "cuda:0"),
    ("torch.nn.functional.cross_entropy(torch.arange(8., device='cuda').reshape(2, 4), "
     "torch.tensor([1, 3], device='cuda'))", "cuda:0"),
    ("torch.ones(2, device='cuda:1') * 2.5", "cuda:1"),
    ("torch.ones(3, device='cuda').index_put_((torch.tensor([0, 2]),), torch.tensor(5.))",
     "cuda:0"),
    ("torch.ones(2, 2, device='cuda:1').masked_fill(torch.eye(2, dtype=torch.bool, "
     "device='cuda:1'), -1.0)", "cuda:1"),
]


@pytest.mark.parametrize("expr,dev", VALUES, ids=[e for e, _ in VALUES])
def test_cpu_scalars_and_placement(expr, dev):
    if "cuda:1" in expr:
        needs_gpus(2)
    check_value(lambda torch: eval(expr), dev)


def test_numbers_cost_no_transfer_per_call():
    """A recurring Python number reaches an accelerator kernel without a host-to-device copy
    per call (JAX's transfer guard raises on any implicit copy)."""
    import jax
    import torchlike as torch
    a = torch.randn(8, 8, device="cuda")
    b = torch.randn(8, 8, device="cuda:1" if torch.cuda.device_count() > 1 else "cuda")
    mask = a > 0
    ops = [lambda: a * 2.5, lambda: a + 1, lambda: a.clamp(min=0), lambda: a.pow(2),
           lambda: torch.where(mask, a, 0.), lambda: a.masked_fill(mask, float("-inf")),
           lambda: a[:, :4] * 3.0, lambda: a.clone().fill_(1.5), lambda: a.clone().zero_(),
           lambda: a.add_(a, alpha=0.5), lambda: torch.nn.functional.gelu(a),
           lambda: torch.addmm(a, a, a, beta=0.5, alpha=2.0), lambda: b * 1.5 + 2,
           lambda: b.clamp(max=0.25)]
    for f in ops:
        for _ in range(4):
            f()
    with jax.transfer_guard_host_to_device("disallow"):
        for f in ops:
            f()
