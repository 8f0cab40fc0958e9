"""The seeds' CUDA snippets (../shared/seeds: PyTorch's "CUDA semantics" note in 004, the
device moves in 001 and 002), on two accelerators. What they state in comments is the
expected answer (PyTorch's documented behaviour)."""
import torchlike as torch
from oracle import needs_gpus


def test_current_device_context():
    needs_gpus(2)
    x = torch.cuda.FloatTensor(1)
    y = torch.FloatTensor(1).cuda()
    assert x.get_device() == 0 and y.get_device() == 0
    with torch.cuda.device(1):
        a = torch.cuda.FloatTensor(1)          # allocates a tensor on GPU 1
        b = torch.FloatTensor(1).cuda()        # transfers a tensor from CPU to GPU 1
        assert a.get_device() == b.get_device() == 1
        c = a + b
        assert c.get_device() == 1
        z = x + y
        assert z.get_device() == 0
        d = torch.randn(2).cuda(0)             # an explicit index wins inside the context
        assert d.get_device() == 0
        assert torch.device("cuda") == torch.device("cuda")
        assert torch.ones(1, device="cuda").get_device() == 1
    assert torch.cuda.current_device() == 0


def test_moves_between_cpu_and_gpu():
    tensor = torch.arange(4).reshape(4, 1)
    t = tensor.cuda()
    assert t.is_cuda and t.get_device() == 0
    t = tensor.to(torch.device("cuda:0"))
    assert str(t.device) == "cuda:0" and t.cpu().equal(tensor) and t.to("cpu").is_cpu
    model = torch.nn.Linear(2, 2)
    assert model.cuda() is model and model.weight.is_cuda
    assert isinstance(torch.cuda.get_device_name(torch.cuda.current_device()), str)
    x = torch.tensor([1.0, 2.0], requires_grad=True, device="cuda") \
        if torch.cuda.is_available() else None
    new_x = x.clone().detach().requires_grad_(True).to(torch.device("cuda"))
    assert new_x.requires_grad and new_x.is_cuda and new_x.is_leaf


def test_leaf_moved_to_second_gpu():
    needs_gpus(2)
    x = torch.tensor([1.0, 2.0], requires_grad=True, device="cuda")
    moved = x.clone().detach().to(torch.device("cuda:1")).requires_grad_(True)
    (moved * 2).sum().backward()
    assert moved.grad.get_device() == 1 and moved.grad.tolist() == [2.0, 2.0]
