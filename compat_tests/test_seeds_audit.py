"""The seed documents (shared/seeds/000-004), snippet by snippet, beyond what test_seeds.py and
the examples/seeds programs cover: each runs under real PyTorch and torchlike and the printed
values, reprs, shapes, storage relations, warnings and errors are compared. Tests are named
after the seed file and its section."""
import collections
import copy
import math
import os
import sys

import numpy as np

from harness import check, same_repr, same_script_output
from test_autograd_function import make_linear, make_linear_module

# ---- helpers -----------------------------------------------------------------------------------




def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return None


def fix(torch, module, scale=1.0):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).view(p.shape) * scale * (i + 1))
    return module


# ---- seed 000: [Advanced PyTorch] Basics --------------------------------------------------------

def test_seed000_dimension_randn_size():
    def f(torch):
        x = torch.randn(1, 2, 3)
        return x.size(), x.dim(), x.dtype, str(x.size())
    check(f)


def test_seed000_set_random_seed_reproduces():
    def f(torch):
        seed = 123
        g = torch.manual_seed(seed)
        a = torch.randn(3)
        torch.manual_seed(seed)
        b = torch.randn(3)
        np.random.seed(seed)
        return type(g).__name__, torch.equal(a, b), np.random.rand(2).tolist()
    check(f)


def test_seed000_view_vs_reshape_after_permute():
    def f(torch):
        t = torch.arange(24.).view(2, 3, 4).permute(2, 0, 1)
        return (t.is_contiguous(), _err(lambda: t.view(24)), t.reshape(24),
                t.contiguous().view(24), t.reshape(24).data_ptr() == t.data_ptr())
    check(f)


def test_seed000_named_children_vs_named_modules():
    def build(torch):
        nn = torch.nn
        return nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Sequential(nn.Sigmoid(), nn.ReLU()))
    same_repr(lambda torch: list(build(torch).named_children()))
    same_repr(lambda torch: list(build(torch).named_modules()))
    same_repr(lambda torch: list(build(torch).children()))
    same_repr(lambda torch: list(build(torch).modules()))
    check(lambda torch: ([n for n, _ in build(torch).named_modules(prefix="root")],
                         type(build(torch).named_children()).__name__,
                         type(build(torch).named_modules()).__name__))


def test_seed000_named_modules_prints_like_the_seed(tmp_path):
    same_script_output(
        "import torch\nimport torch.nn as nn\n"
        "m = nn.Sequential(nn.Linear(2, 2), nn.ReLU(),\n"
        "                  nn.Sequential(nn.Sigmoid(), nn.ReLU()))\n"
        "for module in m.named_children():\n    print(module)\n"
        "for module in m.named_modules():\n    print(module)\n", tmp_path)


def test_seed000_functional_pad():
    def f(torch):
        F = torch.nn.functional
        x = torch.randn(1, 1, 5, 5)
        xx = torch.arange(25.).view(1, 1, 5, 5)
        return (F.pad(x, (0, 3, 0, 3)).size(), F.pad(x, (0, 2, 0, 3, 0, 3)).size(),
                F.pad(xx, (0, 2, 0, 3, 0, 3)), F.pad(xx, (1, 1), value=-1.0)[0, 0, 0],
                _err(lambda: F.pad(xx, (0, 2, 1))), _err(lambda: F.pad(xx, (1,) * 10)))
    check(f)


def test_seed000_loss_is_a_module():
    def f(torch):
        nn = torch.nn

        class MyLoss(nn.Module):
            def forward(self, a, b):
                return ((a - b) ** 2).mean()
        return (isinstance(nn.MSELoss(), nn.Module),
                isinstance(nn.CrossEntropyLoss(), nn.modules.loss._Loss),
                MyLoss()(torch.ones(2), torch.zeros(2)), repr(MyLoss()), repr(nn.MSELoss()))
    check(f)


# ---- seed 001: PyTorch memo --------------------------------------------------------------------

def test_seed001_image_format_permute_nhwc_to_nchw():
    def f(torch):
        x = torch.arange(2 * 4 * 5 * 3.).view(2, 4, 5, 3)
        y = x.permute(0, 3, 1, 2)
        return y, y.shape, y.stride(), y.is_contiguous(), y.data_ptr() == x.data_ptr()
    check(f)


def test_seed001_tensor_is_a_class_tensor_a_function():
    check(lambda torch: (str(torch.Tensor), repr(torch.Tensor), str(type(torch.tensor([1.]))),
                         str(torch.nn.Parameter), str(type(torch.nn.Parameter(torch.ones(1)))),
                         type(torch.Tensor).__name__, isinstance(torch.Tensor, type),
                         callable(torch.tensor), isinstance(torch.tensor, type)))


def test_seed001_legacy_constructor_variants():
    check(lambda torch: (torch.Tensor().shape, torch.Tensor([1, 2]), torch.Tensor([[1, 2]]).dtype,
                         torch.Tensor(torch.Size([2, 3])).shape, torch.Tensor(2, 3).requires_grad,
                         _err(lambda: torch.Tensor(2.5))))


def test_seed001_parameter_vs_tensor_requires_grad():
    def f(torch):
        nn = torch.nn
        p = nn.Parameter(torch.randn(2, 3))
        q = nn.Parameter(torch.tensor([[1., 2.], [3., 4.]]))
        return (p.requires_grad, type(p).__name__, isinstance(p, torch.Tensor), p.is_leaf,
                type(p.data).__name__, p.data.requires_grad, repr(q),
                repr(nn.Parameter(torch.tensor([1., 2.]), requires_grad=False)),
                nn.parameter.Parameter is nn.Parameter, torch.randn(2, 3).requires_grad,
                torch.randn([2, 3]).shape)
    check(f)


def test_seed001_from_numpy_shares_memory_and_is_not_resizable():
    def f(torch):
        a = np.array([1, 2, 3])
        t = torch.from_numpy(a)
        r = repr(t)
        t[0] = 100
        a[1] = 200
        grow = _err(lambda: t.resize_(5))
        same = t.resize_(3).shape
        shrink = torch.from_numpy(np.arange(4.)).resize_(2)
        return r, t, a.tolist(), grow, same, shrink, torch.ones(3).resize_(5).shape
    check(f)


def test_seed001_tensor_to_numpy_shares_and_detach_first():
    def f(torch):
        a = torch.ones(5)
        b = a.numpy()
        a.add_(1)
        b[0] = 7
        w = torch.ones(3, requires_grad=True)
        return (a, b.tolist(), type(b).__name__, b.dtype.name, _err(lambda: w.numpy()),
                (w * 2).detach().numpy().tolist())
    check(f)


def test_seed001_model_output_to_numpy():
    def f(torch):
        model = torch.nn.Linear(3, 2)
        with torch.no_grad():
            model.weight.copy_(torch.tensor([[1., 2., 3.], [4., 5., 6.]]))
            model.bias.zero_()
        a = np.array([[1., 2., 3.]], dtype=np.float32)
        b = model(torch.from_numpy(a))
        c = b.cpu().detach().numpy()
        d = b.detach().cpu().numpy()
        return (c.tolist(), d.tolist(), str(c.dtype), b.cpu() is b, _err(lambda: b.numpy()),
                _err(lambda: model(torch.from_numpy(np.array([[1., 2., 3.]])))))
    check(f)


def test_seed001_transpose_shares_storage_and_transpose_():
    def f(torch):
        a = torch.arange(24.).view(1, 2, 3, 4)
        b = a.transpose(1, 2)
        b[0, 0, 0, 0] = -1
        c = torch.arange(6.).view(2, 3)
        same = c.transpose_(0, 1) is c
        return (b.shape, b.stride(), b.is_contiguous(), b.data_ptr() == a.data_ptr(),
                a[0, 0, 0, 0], torch.transpose(a, 1, 2).shape, same, c, c.stride(),
                c.T.shape, torch.equal(c.T, c.permute(1, 0)), a.T.shape,
                torch.equal(a.T, a.permute(3, 2, 1, 0)), a.mT.shape)
    check(f)


def test_seed001_T_on_non_matrix_warns_once(tmp_path):
    same_script_output(
        "import warnings\nwarnings.simplefilter('always')\nimport torch\n"
        "a = torch.zeros(1, 2, 3)\nprint(a.T.shape)\nprint(a.T.shape)\n"
        "print(torch.zeros(3).T.shape)\nprint(torch.zeros(()).T.shape)\n"
        "print(torch.zeros(2, 3).T.shape)\n", tmp_path)


def test_seed001_contiguous_narrow_expand_views():
    def f(torch):
        z = torch.arange(10.)
        n = z.narrow(0, 2, 3)
        e = torch.tensor([[1.], [2.]]).expand(2, 3)
        cc = torch.ones(2, 2)
        t = torch.arange(6.).view(2, 3).t()
        tc = t.contiguous()
        return (n, n.storage_offset(), n.data_ptr() - z.data_ptr(), e, e.stride(),
                e.is_contiguous(), cc.contiguous() is cc, tc is t, tc.is_contiguous(),
                tc.data_ptr() == t.data_ptr(), _err(lambda: t.view(6)), tc.view(6))
    check(f)


def test_seed001_view_and_reshape_shapes():
    def f(torch):
        x = torch.arange(16.).view(4, 4)
        y = x.view(16)
        z1 = x.view(-1, 8)
        z2 = x.view((-1, 8))
        y[0] = 42.
        a = torch.arange(24.).view(2, 3, 4)
        b = a.reshape(3, -1)
        c = a.reshape((3, -1))
        return (y.shape, z1.shape, z2.shape, y.data_ptr() == x.data_ptr(), x[0, 0],
                _err(lambda: x.view(5, -1)), _err(lambda: x.view(-1, -1)), b.shape, c.shape,
                b.data_ptr() == a.data_ptr(),
                a.transpose(0, 1).reshape(-1).data_ptr() == a.data_ptr(),
                _err(lambda: a.reshape(5, -1)))
    check(f)


def test_seed001_view_on_transposed_int_tensor():
    def f(torch):
        x = torch.tensor([[1, 2, 3], [4, 5, 6]])
        y = x.transpose(0, 1)
        return _err(lambda: y.view(6)), y.reshape(6), y.contiguous().view(6)
    check(f)


def test_seed001_transpose_vs_permute_shapes():
    def f(torch):
        x = torch.rand(16, 32, 3)
        return (x.transpose(0, 2).shape, x.permute(2, 1, 0).shape, x.permute(1, 2, 0).shape,
                x.permute((1, 2, 0)).shape, torch.equal(x.transpose(0, 2), x.permute(2, 1, 0)),
                _err(lambda: x.permute(1, 0)), _err(lambda: x.permute(1, 1, 0)))
    check(f)


def test_seed001_equal_and_data_ptr():
    def f(torch):
        x = torch.tensor([1, 2])
        y = torch.tensor([1, 2])
        return (torch.equal(x, y), x.equal(y), x.data_ptr() == y.data_ptr(),
                torch.equal(x, torch.tensor([1, 2, 3])))
    check(f)


def test_seed001_clone_is_differentiable():
    def f(torch):
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x.clone()
        (y * torch.tensor([3., 4.])).sum().backward()
        return (y.requires_grad, y.grad_fn.name(), y.is_leaf, y.data_ptr() != x.data_ptr(),
                x.grad)
    check(f)


def test_seed001_clone_vs_deepcopy_of_weight_data_and_module():
    def f(torch):
        nn = torch.nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        model = fix(torch, M())
        w = model.encoder[0].weight
        x1 = model.encoder[0].weight.data.clone()
        x2 = copy.deepcopy(model.encoder[0].weight.data)
        m2 = copy.deepcopy(model)
        return (x1, x2, x1.requires_grad, x2.requires_grad, type(x2).__name__,
                w.data.requires_grad, x1.data_ptr() != w.data_ptr(), repr(m2),
                m2.encoder[0].weight is not w, m2.encoder[0].weight,
                type(m2.encoder[0].weight).__name__, type(copy.deepcopy(w)).__name__,
                _err(lambda: model.clone()))
    check(f)


def test_seed001_detach_shares_storage_and_inplace_error():
    def f(torch):
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        s = x.sigmoid()
        d = s.detach()
        rel = (d.requires_grad, d.data_ptr() == s.data_ptr(), d.grad_fn, d.is_leaf)
        d.zero_()
        return rel, s.detach(), _err(lambda: s.sum().backward())
    check(f)


def test_seed001_detach_inplace_makes_leaf_views_refused():
    def f(torch):
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        r = y.detach_()
        return (r is y, y.requires_grad, y.is_leaf, y.grad_fn,
                _err(lambda: (x * 2)[1:].detach_()), _err(lambda: (x * 2).view(3).detach_()))
    check(f)


def test_seed001_squeeze_dims_and_sharing():
    def f(torch):
        x = torch.zeros(2, 1, 2, 1, 2)
        A = torch.zeros(3, 1, 4)
        sq = A.squeeze()
        sq[0, 0] = 5
        return (x.squeeze().shape, torch.squeeze(x).shape, x.squeeze((1, 3)).shape,
                x.squeeze(-2).shape, x.squeeze().data_ptr() == x.data_ptr(),
                torch.squeeze(A, 0).shape, torch.squeeze(A, 1).shape, A[0, 0, 0],
                _err(lambda: A.squeeze(3)))
    check(f)


def test_seed001_unsqueeze_range_and_sharing():
    def f(torch):
        x = torch.tensor([1, 2, 3, 4])
        shapes = (x.unsqueeze(0).shape, torch.unsqueeze(x, 0).shape, x.unsqueeze(1).shape,
                  x.unsqueeze(-1).shape, x.unsqueeze(-2).shape)
        u = x.unsqueeze(0)
        u[0, 0] = 9
        return (shapes, repr(x.unsqueeze(1)), x, _err(lambda: x.unsqueeze(2)),
                _err(lambda: x.unsqueeze(-3)))
    check(f)


def test_seed001_cpu_gpu_moves():
    def f(torch):
        t = torch.ones(2)
        m = torch.nn.Linear(2, 2)
        return (torch.cuda.is_available(), t.cpu() is t, t.to("cpu") is t,
                t.to(torch.device("cpu")) is t, m.cpu() is m, _err(lambda: t.cuda()),
                _err(lambda: t.to(torch.device("cuda:0"))), _err(lambda: m.cuda()),
                _err(lambda: torch.cuda.get_device_name(torch.cuda.current_device())),
                torch.device("cuda:0"), str(torch.device("cuda:0")))
    check(f)


def test_seed001_save_load_state_dict(tmp_path):
    def f(torch, d):
        nn = torch.nn
        model = fix(torch, nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)))
        path = os.path.join(d, f"{torch.__name__}.pth")
        torch.save(model.state_dict(), path)
        sd = torch.load(path)
        model2 = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
        r1 = model2.load_state_dict(torch.load(path))
        r2 = model2.load_state_dict(torch.load(path, map_location=torch.device("cpu")))
        return (type(sd).__name__, isinstance(sd, collections.OrderedDict), list(sd),
                [v.requires_grad for v in sd.values()], sd["0.weight"], str(r1), str(r2),
                model2[0].weight, _err(lambda: model2.load_state_dict(path)),
                list(torch.load(path, map_location="cpu")))
    check(f, str(tmp_path))


def test_seed001_save_load_whole_model(tmp_path):
    def f(torch, d):
        nn = torch.nn
        model = fix(torch, nn.Sequential(nn.Linear(2, 3), nn.ReLU()))
        path = os.path.join(d, f"{torch.__name__}_full.pth")
        torch.save(model, path)
        default = _err(lambda: torch.load(path))
        loaded = torch.load(path, weights_only=False)
        return default is not None, repr(loaded), loaded[0].weight
    check(f, str(tmp_path))


def test_seed001_load_state_dict_strictness():
    def f(torch):
        nn = torch.nn
        m = nn.Linear(2, 3)
        return (_err(lambda: m.load_state_dict({"weight": torch.zeros(3, 2)})),
                str(m.load_state_dict({"weight": torch.zeros(3, 2)}, strict=False)),
                _err(lambda: m.load_state_dict({"weight": torch.zeros(2, 2),
                                                "bias": torch.zeros(3)})))
    check(f)


def test_seed001_sum_and_einsum():
    def f(torch):
        x = torch.arange(24.).view(2, 3, 4)
        A = torch.arange(6.).view(2, 3)
        B = torch.arange(12.).view(3, 4)
        return (x.sum(), x.sum(1), x.sum([0, 2]), torch.sum(x, dim=[0, 1]),
                x.sum(dim=(0, 2), keepdim=True).shape, torch.einsum("ij,jk->ik", A, B),
                torch.equal(torch.einsum("ij,jk->ik", A, B), A @ B),
                torch.einsum("ij,jk->ik", [A, B]).shape, torch.einsum("ii", torch.eye(3)),
                torch.einsum("i,j->ij", torch.arange(2.), torch.arange(3.)),
                _err(lambda: torch.einsum("ij,jk->ik", A, A)))
    check(f)


def test_seed001_unfold_matmul_fold_is_convolution():
    def f(torch):
        nn, F = torch.nn, torch.nn.functional
        inp = torch.arange(1 * 2 * 4 * 4.).view(1, 2, 4, 4)
        w = torch.arange(3 * 2 * 2 * 3.).view(3, 2, 2, 3) / 10
        unfold = nn.Unfold(kernel_size=(2, 3))
        inp_unf = F.unfold(inp, (2, 3))
        out_unf = inp_unf.transpose(1, 2).matmul(w.view(w.size(0), -1).t()).transpose(1, 2)
        out = F.fold(out_unf, (3, 2), (1, 1))
        fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 2))
        return (unfold(inp).shape, repr(unfold), unfold(inp)[0, :, :2], out,
                F.conv2d(inp, w), repr(fold), fold(torch.ones(1, 12, 12))[0, 0],
                torch.arange(7.).unfold(0, 2, 1))
    check(f)


# ---- seed 002: pytorch的基本操作 ----------------------------------------------------------------

def test_seed002_tolist_and_item():
    check(lambda torch: (torch.tensor([[1, 2], [3, 4]]).tolist(), torch.tensor(2.5).tolist(),
                         torch.tensor(3).item(), torch.tensor([1.5]).item(),
                         _err(lambda: torch.tensor([1, 2]).item())))


def test_seed002_hooks_named_parameters_closure_and_removal():
    def f(torch):
        nn = torch.nn
        model = fix(torch, nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1)), 2.0)
        log = []

        def hook(grad, param_name):
            log.append('Paramter:{} | \n grad:{} '.format(param_name, grad.sum()))
        handle = []
        for i, (name, param) in enumerate(model.named_parameters()):
            if param.requires_grad:
                def b_h(grad):   # the seed's closure: every hook sees the last `name`
                    return hook(grad, name)
                handle.append(param.register_hook(b_h))
                log.append('{} param needs grad'.format(i))
        model(torch.ones(2, 3)).sum().backward()
        kind = type(handle[0]).__name__
        for h in handle:
            h.remove()
        model.zero_grad()
        model(torch.ones(2, 3)).sum().backward()
        return log, kind, model[0].weight.grad, type(model.parameters()).__name__
    check(f)


def test_seed002_hook_handles_are_torch_utils_hooks_removable_handles():
    def f(torch):
        RemovableHandle = torch.utils.hooks.RemovableHandle
        m = torch.nn.Linear(1, 1)
        hs = [m.weight.register_hook(lambda g: g), m.register_forward_hook(lambda *a: None),
              m.register_forward_pre_hook(lambda *a: None, with_kwargs=True),
              m.register_full_backward_hook(lambda *a: None)]
        calls = []
        h = m.register_forward_hook(lambda *a, **k: calls.append(1), with_kwargs=True,
                                    always_call=True)
        m(torch.ones(1, 1))
        h.remove()
        m(torch.ones(1, 1))
        return ([str(type(x)) for x in hs], [isinstance(x, RemovableHandle) for x in hs],
                type(hs[0]).__module__, calls, len(m._forward_hooks_with_kwargs),
                len(m._forward_hooks_always_called))
    check(f)


def test_seed002_hook_logger_debug_output(tmp_path):
    # the seed logs through `logger.debug`: turning DEBUG logging on must show the script's
    # messages only (no JAX internals)
    same_script_output(
        "import logging, sys\nimport torch\nimport torch.nn as nn\n"
        "logging.basicConfig(level=logging.DEBUG, format='%(message)s', stream=sys.stdout)\n"
        "logger = logging.getLogger('seed')\n"
        "def hook(grad, param_name):\n"
        "    logger.debug('Paramter:{} | \\n grad:{} '.format(param_name, grad.sum()))\n"
        "model = nn.Linear(3, 1)\n"
        "with torch.no_grad():\n"
        "    model.weight.fill_(0.5); model.bias.fill_(0.1)\n"
        "for i, (name, param) in enumerate(model.named_parameters()):\n"
        "    if param.requires_grad:\n"
        "        def b_h(grad, name=name):\n            return hook(grad, name)\n"
        "        param.register_hook(b_h)\n"
        "        logger.debug('{} param needs grad'.format(i))\n"
        "model(torch.ones(4, 3)).sum().backward()\n", tmp_path)


def test_seed002_nll_loss_module_state_and_grad():
    def f(torch):
        nn, F = torch.nn, torch.nn.functional
        a = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=torch.float32)
        target = torch.tensor([0, 1, 2])
        log_prob = F.log_softmax(a, 1).requires_grad_()
        w = torch.tensor([0.2, 0.4, 1], dtype=torch.float32)
        c = nn.NLLLoss(weight=w, reduction='none')
        c2 = nn.NLLLoss(weight=w)
        return (repr(log_prob.detach()), repr(c(log_prob, target).detach()), repr(c), repr(c2),
                c2.weight, c2.reduction, c2.ignore_index, list(c2.state_dict()),
                torch.autograd.grad(c2(log_prob, target), log_prob)[0],
                nn.NLLLoss()(log_prob, target), nn.NLLLoss(reduction='sum')(log_prob, target),
                _err(lambda: c2(log_prob, target.float())),
                _err(lambda: nn.NLLLoss(weight=torch.ones(2))(log_prob, target)),
                _err(lambda: c2(log_prob, torch.tensor([0, 1, 3]))))
    check(f)


def test_seed002_nll_equals_masked_one_hot_trick():
    def f(torch):
        nn, F = torch.nn, torch.nn.functional
        logits = F.log_softmax(torch.tensor([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]), 1)
        eval_label_rm = torch.tensor([0, 2, 1])
        mask_selected_true = torch.tensor([True, False, True])
        criterion = nn.NLLLoss(reduction='sum')
        loss = criterion(logits[mask_selected_true], eval_label_rm[mask_selected_true])

        def make_one_hot(labels, num_class):
            return F.one_hot(labels, num_class).float()
        one_hot_eval_label = make_one_hot(eval_label_rm, 3)
        loss2 = -torch.mul(logits, one_hot_eval_label).sum(dim=1)[mask_selected_true]
        return loss, loss2, loss2.sum(), F.one_hot(eval_label_rm), F.one_hot(eval_label_rm, 3)
    check(f)


def test_seed002_cross_entropy_weight_reprs_and_variants():
    def f(torch):
        nn, F = torch.nn, torch.nn.functional
        a = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=torch.float32)
        target = torch.tensor([0, 1, 2])
        w = torch.tensor([0.2, 0.4, 1])
        return (repr(nn.CrossEntropyLoss(weight=w, reduction='none')(a, target)),
                repr(nn.CrossEntropyLoss(weight=w)(a, target)),
                repr(nn.CrossEntropyLoss(weight=w)),
                nn.CrossEntropyLoss()(a, F.softmax(a, 1)),
                nn.CrossEntropyLoss(weight=w, label_smoothing=0.1)(a, target))
    check(f)


def test_seed002_multiplication_variants():
    def f(torch):
        A = torch.arange(6.).view(2, 3)
        B = torch.arange(6.).view(3, 2)
        v = torch.tensor([1., 2., 3.])
        return (torch.mul(A, 2), A.mul(A), torch.mul(v, v), torch.matmul(v, v),
                torch.mul(v, torch.ones(2, 3)), torch.mm(A, B), A.mm(B), torch.matmul(A, B),
                torch.matmul(torch.ones(4, 2, 3), B).shape,
                _err(lambda: torch.mm(torch.ones(4, 2, 3), B)), _err(lambda: torch.mm(A, A)),
                torch.bmm(torch.ones(4, 2, 3), torch.ones(4, 3, 5)).shape,
                torch.ones(4, 2, 3).bmm(torch.ones(4, 3, 5)).shape,
                _err(lambda: torch.bmm(torch.ones(4, 2, 3), torch.ones(3, 5))),
                _err(lambda: torch.bmm(torch.ones(4, 2, 3), torch.ones(1, 3, 5))))
    check(f)


def test_seed002_where_broadcasts_and_nonzero():
    def f(torch):
        A = torch.arange(6.).view(2, 3)
        v = torch.tensor([0, 3, 0, 4])
        return (torch.where(torch.tensor([True, False, True]), torch.ones(2, 3), torch.zeros(3)),
                torch.where(A > 2, A, 0.), torch.where(A > 2, A, -1),
                A.where(A > 2, torch.tensor(-1.)), torch.where(A > 2), torch.nonzero(v),
                torch.nonzero(v).squeeze(), torch.nonzero(v, as_tuple=True), v.nonzero())
    check(f)


def test_seed002_validation_split_random_split_and_subset_sampler():
    def f(torch):
        data = torch.utils.data
        ds = data.TensorDataset(torch.arange(10.), torch.arange(10))
        tr, va = data.random_split(ds, [8, 2], generator=torch.Generator().manual_seed(0))
        tr2, va2 = data.random_split(ds, [0.7, 0.3])
        sampler = data.SubsetRandomSampler([1, 3, 5])
        ld = data.DataLoader(ds, batch_size=2, sampler=sampler)
        return (len(tr), len(va), type(tr).__name__, isinstance(tr, data.Subset),
                sorted([int(tr[i][1]) for i in range(8)] + [int(va[i][1]) for i in range(2)]),
                len(tr2), len(va2), _err(lambda: data.random_split(ds, [8, 3])), len(sampler),
                sorted(sampler), sorted(int(i) for _, y in ld for i in y),
                _err(lambda: data.DataLoader(ds, sampler=sampler, shuffle=True)))
    check(f)


def test_seed002_infinite_dataloader_iterable_dataset():
    def f(torch):
        data = torch.utils.data
        log = []

        class FakeIterableDataset(data.IterableDataset):
            def __init__(self, d):
                self.data = d
                self.count = 0

            def __iter__(self):
                log.append('Count:{}'.format(self.count))
                self.count += 1
                return iter(torch.cat([self.data, self.data]))
        fake = FakeIterableDataset(torch.arange(10))
        ld = data.DataLoader(fake, batch_size=3)
        first = [repr(b) for b in ld]
        second = next(iter(ld))
        it = iter(data.DataLoader(torch.arange(5), batch_size=2))
        return (first, second, log, _err(lambda: data.DataLoader(fake, shuffle=True)),
                _err(lambda: len(ld)), next(it), next(it), next(it), _err(lambda: next(it)))
    check(f)


def test_seed002_dataloader_collates_dicts_and_mixed_tuples():
    def f(torch):
        data = torch.utils.data

        class FakeDataset(data.Dataset):
            def __init__(self, d):
                self.data = d

            def __len__(self):
                return len(self.data)

            def __getitem__(self, index):
                return {'idx': index, 'data': self.data[index] * 10}

        class Mixed(data.Dataset):
            def __len__(self):
                return 3

            def __getitem__(self, i):
                return torch.full((2,), float(i)), i, float(i) / 2, "s%d" % i, (i, [i])
        fake = FakeDataset(torch.arange(10))
        return ([repr(b) for b in data.DataLoader(fake, batch_size=3)],
                len(data.DataLoader(fake, batch_size=3)),
                [b['idx'] for b in data.DataLoader(fake, batch_size=3, drop_last=True)],
                [repr(b) for b in data.DataLoader(Mixed(), batch_size=2)])
    check(f)


def test_seed002_softmax_dim_and_grad_fn_reprs():
    def f(torch):
        nn, F = torch.nn, torch.nn.functional
        x = (torch.arange(200.).view(10, 10, 2) / 50).sin().requires_grad_()
        alpha = x.softmax(0)
        return (alpha.shape, repr(alpha[:, 1, 1]), repr(alpha.view(10, -1).sum(0)),
                F.softmax(torch.arange(6.).view(2, 3), dim=1),
                F.softmax(torch.arange(6.).view(2, 3), dim=-1).sum(-1),
                F.softmax(torch.ones(2, 3)), repr(nn.Softmax(dim=1)), repr(nn.Softmax()))
    check(f)


def test_seed002_tensor_device_and_torch_device():
    def f(torch):
        t = torch.ones(2)
        return (t.is_cuda, t.get_device(), t.device, repr(t.device), torch.device('cuda:0'),
                torch.device('cuda'), torch.device('cuda') == torch.device('cuda:0'),
                torch.device('cuda').index, torch.device('cuda', 1),
                isinstance(torch.cuda.device, type), _err(lambda: torch.cuda.device(0).__enter__()),
                _err(lambda: torch.device('gpu')))
    check(f)


def test_seed002_kl_divergence_argument_order():
    def f(torch):
        nn, F = torch.nn, torch.nn.functional
        p = torch.tensor([0.2, 0.3, 0.5])
        q = torch.tensor([0.1, 0.6, 0.3])
        return (F.kl_div(q.log(), p, reduction='sum'), (p * (p / q).log()).sum(),
                F.kl_div(q.log(), p, reduction='batchmean'), F.kl_div(q.log(), p),
                nn.KLDivLoss(reduction='batchmean')(q.log(), p),
                F.kl_div(q.log(), p.log(), reduction='sum', log_target=True), repr(nn.KLDivLoss()))
    check(f)


def test_seed002_adjust_learning_rate_param_groups():
    def f(torch):
        class Args:
            lr = 0.1
        args = Args()
        opt = torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1, momentum=0.9)

        def adjust_learning_rate(optimizer, epoch):
            lr = args.lr * (0.1 ** (epoch // 30))
            for param_group in optimizer.param_groups:
                param_group['lr'] = lr
        adjust_learning_rate(opt, 65)
        return [g['lr'] for g in opt.param_groups], sorted(opt.param_groups[0]), repr(opt)
    check(f)


def test_seed002_reset_model_weights_init_deprecated_xavier():
    def f(torch):
        nn = torch.nn

        def weights_init(m):
            if isinstance(m, nn.Conv2d):
                torch.nn.init.xavier_uniform(m.weight.data, nn.init.calculate_gain('relu'))
                m.bias.data.zero_()
        net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU())
        bound = nn.init.calculate_gain('relu') * math.sqrt(6 / (9 + 18))
        return (net.apply(weights_init) is net, net[0].bias,
                bool(net[0].weight.abs().max() <= bound),
                [nn.init.calculate_gain(n) for n in ('relu', 'tanh', 'sigmoid', 'linear',
                                                      'conv2d', 'selu')],
                nn.init.calculate_gain('leaky_relu', 0.2),
                _err(lambda: nn.init.calculate_gain('foo')))
    check(f)


def test_seed002_model_cpu_and_to_are_not_inplace_copies():
    def f(torch):
        model = torch.nn.Linear(2, 2)
        data = torch.ones(2)
        return (model.cpu() is model, data.to(torch.float64) is data, data.dtype,
                data.to(torch.device('cpu')) is data, data.to('cpu', copy=True) is data,
                _err(lambda: data.to(torch.device('cuda'))))
    check(f)


def test_seed002_dataparallel_module_attribute():
    def f(torch):
        nn = torch.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)

            def test_forward(self):
                return "ok"
        Allnet = nn.DataParallel(fix(torch, Net()))
        return (Allnet.module.test_forward(), _err(lambda: Allnet.test_forward()), repr(Allnet),
                list(Allnet.state_dict()), type(Allnet.module).__name__)
    check(f)


def test_seed002_state_dict_has_no_grad_and_aliases_parameters():
    def f(torch):
        nn = torch.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 2, 3)
                self.bn = nn.BatchNorm2d(2)
        net = fix(torch, Net())
        sd = net.state_dict()
        tmp = copy.deepcopy(net.state_dict())
        with torch.no_grad():
            net.conv1.weight.add_(1)
        net2 = Net()
        res = str(net2.load_state_dict(tmp))
        kv = net.state_dict(keep_vars=True)['conv1.weight']
        return (type(sd).__name__, list(sd), sd['conv1.weight'].requires_grad,
                sd['bn.num_batches_tracked'], torch.equal(sd['conv1.weight'], net.conv1.weight),
                res, torch.equal(net2.conv1.weight, tmp['conv1.weight']), kv.requires_grad,
                type(kv).__name__)
    check(f)


def test_seed002_storage_size_in_bytes():
    def f(torch):
        t = torch.ones(10)
        s = t.storage()
        return (type(s).__name__, s.size(), len(t.untyped_storage()), s.nbytes(),
                t.element_size(), sys.getsizeof(s) - sys.getsizeof(torch.ones(0).storage()))
    check(f)


def test_seed002_typed_storage_warns_once(tmp_path):
    same_script_output(
        "import warnings, sys\nwarnings.simplefilter('always')\nimport torch\n"
        "t = torch.ones(10)\nprint(t.storage().size())\nprint(t.storage().size())\n"
        "print(sys.getsizeof(t.storage()) - sys.getsizeof(torch.ones(0).storage()))\n", tmp_path)


def test_seed002_stack_and_cat_errors():
    def f(torch):
        return (torch.tensor([torch.tensor(1.5), torch.tensor(2)]),
                _err(lambda: torch.tensor([torch.tensor([1, 2]), torch.tensor([3, 4])])),
                torch.stack([torch.tensor(1), torch.tensor(2), torch.tensor(3)]),
                _err(lambda: torch.stack([torch.tensor([1, 2]), torch.tensor([3, 4, 5])])),
                _err(lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 4)])),
                _err(lambda: torch.cat([])), _err(lambda: torch.stack([])))
    check(f)


def test_seed002_no_grad_and_eval_mode():
    def f(torch):
        nn = torch.nn
        m = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5), nn.BatchNorm1d(3))
        with torch.no_grad():
            m[0].weight.copy_(torch.eye(3))
            m[0].bias.zero_()
        x = torch.arange(12.).view(4, 3)
        m.eval()
        with torch.no_grad():
            y = m(x)
        flags = (y.requires_grad, m.training, m[1].training)
        m.train()
        y2 = m[2](x)
        stats = (m[2].running_mean.clone(), m[2].running_var.clone(),
                 m[2].num_batches_tracked.clone())
        m.eval()
        with torch.set_grad_enabled(False):
            off = (torch.is_grad_enabled(), (torch.ones(1, requires_grad=True) * 2).requires_grad)
        return y, flags, y2, stats, m[2](x), off, torch.is_grad_enabled()
    check(f)


def test_seed002_accumulating_loss_keeps_graph_item_does_not():
    def f(torch):
        w = torch.tensor([1.], requires_grad=True)
        total_loss = 0
        for i in range(3):
            total_loss += (w * i).sum()
        total_item = 0
        for i in range(3):
            total_item += (w * i).sum().item()
        return (total_loss, type(total_loss).__name__, total_loss.grad_fn.name(), total_item,
                type(total_item).__name__, torch.cuda.empty_cache())
    check(f)


def test_seed002_copy_sequential_structure():
    def f(torch):
        nn = torch.nn
        s1 = nn.Sequential(nn.Linear(4, 10), nn.Linear(10, 2))
        s2 = nn.Sequential(*s1._modules.values())
        od = nn.Sequential(collections.OrderedDict([('fc', nn.Linear(1, 1)), ('act', nn.ReLU())]))
        return (repr(s2), s2[0] is s1[0], type(s1._modules).__name__, list(s1._modules),
                repr(od))
    check(f)


def test_seed002_detach_cpu_for_dataset():
    def f(torch):
        x = torch.ones(2, requires_grad=True) * 2
        y = x.detach().cpu()
        return y.requires_grad, y, y.is_leaf
    check(f)


def test_seed002_mse_loss_reductions_with_the_seed_numbers():
    def f(torch):
        nn = torch.nn
        a1 = torch.tensor([[-1.5009, 1.2292, -0.1333, -0.2095],
                           [0.6178, -0.9349, -1.8915, -1.4830],
                           [0.0462, -1.0175, -0.3017, -0.5426]])
        a2 = torch.tensor([[0.1398, 0.4038, -1.1434, -1.0798],
                           [0.1173, -0.3946, -0.4661, 0.2909],
                           [0.5324, -0.6149, -1.4386, -1.7462]])
        return (repr(nn.MSELoss(reduction='none')(a1, a2)),
                repr(nn.MSELoss(reduction='sum')(a1, a2)),
                repr(nn.MSELoss(reduction='mean')(a1, a2)), repr(nn.MSELoss(reduction='sum')),
                _err(lambda: nn.MSELoss(reduction='foo')(a1, a2)), nn.MSELoss()(a1, a2[0]),
                nn.MSELoss(size_average=False)(a1, a2).item())
    check(f)


def test_seed002_pdist_and_distance_matrix():
    def f(torch):
        F = torch.nn.functional
        r = torch.randint(10, size=(3, 2)).float()
        b = torch.tensor([[3., 5.], [4., 4.], [6., 7.]])
        bb = b.clone().requires_grad_()
        dist = torch.zeros(b.size(0), b.size(0))
        triu_indices = torch.triu_indices(3, 3, 1)
        dist[triu_indices[0], triu_indices[1]] = F.pdist(b)
        r1 = repr(dist)
        dist = dist + dist.T
        dist_ = dist
        sim = dist_.add(1).pow(-1)
        dist_.add_(1).pow_(-1)
        return (r.shape, r.dtype, bool(((r >= 0) & (r < 10)).all()), repr(F.pdist(b)),
                F.pdist(b, p=1), F.pdist(b, p=0), F.pdist(b, p=float('inf')), torch.pdist(b),
                _err(lambda: F.pdist(torch.ones(2, 3, 4))),
                torch.autograd.grad(F.pdist(bb).sum(), bb)[0], r1, repr(sim), repr(dist),
                torch.cdist(b, b))
    check(f)


def test_seed002_manual_parameter_update_pitfalls():
    def f(torch):
        weight = torch.tensor([[0.5], [0.5]], requires_grad=True)
        bias = torch.tensor([0.1], requires_grad=True)
        before = (weight.grad, _err(lambda: weight.grad.zero_()), torch.ones(2).requires_grad)
        feature = torch.tensor([[1., 2.], [3., 4.]])
        label = torch.tensor([[1.], [2.]])
        predict = torch.mm(feature, weight) + bias.item()
        loss = torch.sum(predict - label, dim=0)
        loss.backward()
        after = (bias.grad, weight.grad.clone(), loss)
        w2 = weight - weight.grad * 0.1
        nonleaf = (w2.is_leaf, w2.grad, _err(lambda: w2.grad.zero_()),
                   _err(lambda: weight.sub_(weight.grad * 0.1)))
        with torch.no_grad():
            weight.sub_(weight.grad * 0.1)
            weight.grad.zero_()
        return before, after, nonleaf, weight, weight.grad, weight.is_leaf, weight.requires_grad
    check(f)


def test_seed002_torch_tensor_of_tensor_vs_clone_detach():
    def f(torch):
        x = torch.tensor([1., 2.], requires_grad=True)
        t = torch.tensor(x)
        t2 = torch.tensor(x, requires_grad=True)
        y1 = x.clone().detach()
        y3 = x.clone().detach().requires_grad_(True)

        def new_tensor(x, requires_grad=True):
            return torch.tensor(x, requires_grad=requires_grad, device='cuda') \
                if torch.cuda.is_available() else \
                torch.tensor(x, requires_grad=requires_grad, device='cpu')
        return (t, t.is_leaf, t.requires_grad, t.data_ptr() != x.data_ptr(), t2, t2.is_leaf,
                torch.as_tensor(x) is x, y1.requires_grad, y1.is_leaf, y3.is_leaf,
                y3.requires_grad, y1.data_ptr() != x.data_ptr(), new_tensor(x),
                new_tensor([1., 2.]), _err(lambda: new_tensor([1, 2])))
    check(f)


def test_seed002_torch_tensor_copy_construct_warning(tmp_path):
    same_script_output(
        "import warnings\nwarnings.simplefilter('always')\nimport torch\n"
        "x = torch.tensor([1., 2.], requires_grad=True)\n"
        "print(torch.tensor(x))\nprint(torch.tensor(x, requires_grad=True))\n", tmp_path)


def test_seed002_cannot_optimize_non_leaf():
    def f(torch):
        x = torch.tensor([1., 2.], requires_grad=True)
        nl = x.clone().detach().requires_grad_(True).to(torch.float64)
        ok = x.clone().detach().to(torch.float64).requires_grad_(True)
        return (nl.is_leaf, nl.grad_fn.name(), _err(lambda: torch.optim.SGD([nl], lr=0.1)),
                _err(lambda: torch.optim.Adam([x * 2])), ok.is_leaf,
                type(torch.optim.SGD([ok], lr=0.1)).__name__)
    check(f)


def test_seed002_parameter_is_tensor_subclass_and_stack_dim():
    def f(torch):
        nn = torch.nn
        pp = nn.Parameter(torch.tensor([1., 2.]))
        return (issubclass(nn.Parameter, torch.Tensor), type(pp.data).__name__,
                pp.data.requires_grad, repr(pp), repr(pp.data), pp.data.data_ptr() == pp.data_ptr(),
                _err(lambda: nn.Parameter(torch.tensor([1, 2]))),
                type(nn.Parameter(pp)).__name__,
                torch.stack([torch.ones(2, 3), torch.zeros(2, 3)], dim=2).shape,
                torch.stack([torch.ones(2, 3), torch.zeros(2, 3)], dim=-1).shape,
                torch.stack((torch.ones(2), torch.zeros(2)), 1),
                _err(lambda: torch.stack([torch.ones(2, 3), torch.zeros(2, 3)], dim=3)),
                torch.stack([torch.ones(2, 3), 2 * torch.ones(2, 3)]).sum(0))
    check(f)


# ---- seed 003: PyTorch (key concepts, tips) -----------------------------------------------------

def _weights_init(torch, init_type='gaussian'):
    nn = torch.nn

    def init_fun(m):
        classname = m.__class__.__name__
        if (classname.find('Conv') == 0 or classname.find(
                'Linear') == 0) and hasattr(m, 'weight'):
            if init_type == 'gaussian':
                nn.init.normal_(m.weight, 0.0, 0.02)
            elif init_type == 'xavier':
                nn.init.xavier_normal_(m.weight, gain=math.sqrt(2))
            elif init_type == 'kaiming':
                nn.init.kaiming_normal_(m.weight, a=0, mode='fan_in')
            elif init_type == 'orthogonal':
                nn.init.orthogonal_(m.weight, gain=math.sqrt(2))
            elif init_type == 'default':
                pass
            else:
                assert 0, "Unsupported initialization: {}".format(init_type)
            if hasattr(m, 'bias') and m.bias is not None:
                nn.init.constant_(m.bias, 0.0)
    return init_fun


def test_seed003_partial_conv_kaiming_init():
    def f(torch):
        nn = torch.nn

        class PartialConv(nn.Module):
            def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                         dilation=1, groups=1, bias=True):
                super().__init__()
                self.input_conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride,
                                            padding, dilation, groups, bias)
                self.input_conv.apply(_weights_init(torch, 'kaiming'))
        pc = PartialConv(3, 4, 3)
        w = pc.input_conv.weight.detach()
        return (repr(pc), pc.input_conv.bias, w.shape, abs(w.std().item() - math.sqrt(2 / 27))
                < 0.12, repr(PartialConv(3, 4, 3, bias=False)),
                _err(lambda: nn.Linear(2, 2).apply(_weights_init(torch, 'foo'))),
                [m.__class__.__name__ for m in nn.Sequential(
                    nn.Conv2d(1, 1, 1), nn.ConvTranspose2d(1, 1, 1), nn.Linear(1, 1),
                    nn.BatchNorm2d(1)).modules()])
    check(f)


def test_seed003_init_functions():
    def f(torch):
        nn = torch.nn
        w = nn.init.orthogonal_(torch.empty(3, 5), gain=math.sqrt(2))
        t = torch.empty(2)
        return (nn.init.xavier_normal_(torch.empty(3, 4), gain=math.sqrt(2)).shape,
                torch.allclose(w @ w.t(), 2 * torch.eye(3), atol=1e-5),
                nn.init.constant_(torch.empty(3), 0.0), nn.init.normal_(t) is t,
                _err(lambda: nn.init.kaiming_normal_(torch.empty(3, 4), mode='foo')),
                _err(lambda: nn.init.xavier_normal_(torch.empty(3))))
    check(f)


def test_seed003_requires_grad_only_on_leaves():
    def f(torch):
        x = torch.randn(2, 2)
        y = torch.randn(2, 2)
        z = torch.randn(2, 2, requires_grad=True)
        a = x + z

        def setrg(t, v):
            t.requires_grad = v
        return (_err(lambda: setrg(a, False)), _err(lambda: setrg(a, True)), a.requires_grad,
                (x + y).requires_grad, a.grad_fn.name(), setrg(z, False), z.requires_grad,
                _err(lambda: setrg(torch.tensor([1, 2]), True)),
                _err(lambda: torch.tensor([1, 2]).requires_grad_()),
                _err(lambda: torch.tensor([1, 2], requires_grad=True)))
    check(f)


def test_seed003_zero_part_of_gradient_after_backward():
    def f(torch):
        w = torch.ones(3, requires_grad=True)
        (w * torch.tensor([1., 2., 3.])).sum().backward()
        w.grad[1] = 0
        net = torch.nn.Linear(2, 1)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        net(torch.ones(1, 2)).sum().backward()
        opt.zero_grad()
        return w.grad, net.weight.grad, repr(opt)
    check(f)


def test_seed003_float_vs_double_errors():
    def f(torch):
        nn = torch.nn
        return (torch.ones(2).double().dtype, torch.ones(2, dtype=torch.float64).float().dtype,
                nn.Linear(2, 2).double().weight.dtype,
                _err(lambda: nn.Linear(2, 2)(torch.ones(1, 2, dtype=torch.float64))),
                _err(lambda: torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))),
                _err(lambda: torch.matmul(torch.ones(2, 2), torch.ones(2, dtype=torch.float64))),
                (torch.ones(2) + torch.ones(2, dtype=torch.float64)).dtype,
                _err(lambda: nn.Conv2d(1, 1, 1)(torch.ones(1, 1, 2, 2, dtype=torch.float64))),
                _err(lambda: nn.CrossEntropyLoss(weight=torch.ones(3, dtype=torch.float64))(
                    torch.ones(2, 3), torch.tensor([0, 1]))),
                _err(lambda: nn.Linear(2, 2)(torch.ones(1, 2, dtype=torch.long))),
                nn.MSELoss()(torch.ones(2), torch.ones(2, dtype=torch.float64)).dtype)
    check(f)


# ---- seed 004: PyTorch Introduction -------------------------------------------------------------

def test_seed004_variable_and_volatile():
    def f(torch):
        Variable = torch.autograd.Variable
        z = Variable(torch.randn(5, 5), requires_grad=True)
        v = Variable(torch.randn(1, 3, 227, 227), volatile=True)
        t = torch.ones(2)
        t.volatile = True
        return (type(z).__name__, z.requires_grad, z.shape, z.is_leaf,
                isinstance(z, torch.Tensor), v.shape, v.requires_grad, v.volatile, t.volatile,
                z.grad_fn, (z * 2).grad_fn.name(), repr(Variable()),
                repr(Variable(torch.tensor([1., 2.]))),
                _err(lambda: Variable(torch.ones(2), volatile=True, requires_grad=True)))
    check(f)


def test_seed004_variable_with_all_warnings_shown(tmp_path):
    # run as a script (the runner aliases torch.autograd): no stray ImportWarning either
    same_script_output(
        "import warnings\nwarnings.simplefilter('always')\nimport torch\n"
        "from torch.autograd import Variable\n"
        "print(Variable())\nprint(Variable(torch.ones(2), volatile=True).volatile)\n", tmp_path)


def test_seed004_version_counter_and_saved_tensor_checks():
    def f(torch):
        x = torch.ones(3, requires_grad=True)
        y = x * 2
        v = [y._version]
        y.add_(1)
        v.append(y._version)
        y[0] = 5
        v.append(y._version)
        s = x.sigmoid()
        s.mul_(2)
        e = x.exp()
        e.add_(1)

        class Sq(torch.autograd.Function):
            @staticmethod
            def forward(ctx, i):
                ctx.save_for_backward(i)
                return i ** 2

            @staticmethod
            def backward(ctx, g):
                i, = ctx.saved_tensors
                return 2 * i * g
        xi = torch.ones(3, requires_grad=True) * 1
        o = Sq.apply(xi)
        xi.mul_(3)
        return (v, _err(lambda: s.sum().backward()), _err(lambda: e.sum().backward()),
                _err(lambda: x.add_(1)), _err(lambda: o.sum().backward()))
    check(f)


def test_seed004_broadcasting_general_semantics():
    def f(torch):
        FT = torch.FloatTensor
        e = FT()
        return ((FT(5, 7, 3) + FT(5, 7, 3)).shape, e.shape, e.dtype, repr(e),
                _err(lambda: e + FT(2, 2)), (FT(5, 3, 4, 1) + FT(3, 1, 1)).size(),
                _err(lambda: FT(5, 2, 4, 1) + FT(3, 1, 1)),
                _err(lambda: torch.broadcast_tensors(FT(5, 2, 4, 1), FT(3, 1, 1))),
                torch.broadcast_shapes((5, 3, 4, 1), (3, 1, 1)),
                _err(lambda: torch.broadcast_shapes((5, 2, 4, 1), (3, 1, 1))))
    check(f)


def test_seed004_print_variable_sum_broadcast(tmp_path):
    same_script_output(
        "import torch\nfrom torch.autograd import Variable\n"
        "x = Variable(torch.ones(5,1))\ny = Variable(torch.ones(  3))\nprint(x+y)\n", tmp_path)


def test_seed004_inplace_broadcast_cannot_change_shape():
    def f(torch):
        return (torch.zeros(5, 3, 4, 1).add_(torch.ones(3, 1, 1)).size(),
                _err(lambda: torch.zeros(1, 3, 1).mul_(torch.ones(3, 1, 7))),
                _err(lambda: torch.zeros(3).sub_(torch.ones(2, 3))),
                _err(lambda: torch.ones(3).add_(torch.ones(2, 3), alpha=2)))
    check(f)


def test_seed004_backwards_compatibility_broadcast_warning_switch():
    def f(torch):
        bc = torch.utils.backcompat
        before = (bc.broadcast_warning.enabled, bc.keepdim_warning.enabled)
        bc.broadcast_warning.enabled = True
        r = torch.add(torch.ones(4, 1), torch.ones(4))
        on = bc.broadcast_warning.enabled
        bad = _err(lambda: setattr(bc.broadcast_warning, "enabled", 1))
        bad2 = _err(lambda: setattr(bc.keepdim_warning, "enabled", None))
        bc.broadcast_warning.enabled = False
        return (before, r, on, bad, bad2, bc.broadcast_warning.enabled,
                bc.broadcast_warning.get_enabled(),
                torch.add(torch.ones(4, 1), torch.randn(4)).size())
    check(f)


def test_seed004_cuda_semantics_without_a_gpu():
    def f(torch):
        def ctx():
            with torch.cuda.device(1):
                return torch.cuda.current_device()
        return (_err(lambda: torch.cuda.FloatTensor(1)),
                _err(lambda: torch.FloatTensor(1).cuda()), _err(ctx),
                _err(lambda: torch.randn(2).cuda(2)), torch.cuda.empty_cache(),
                str(torch.cuda.FloatTensor), isinstance(torch.ones(1), torch.cuda.FloatTensor))
    if not __import__("torchlike").cuda.is_available():
        check(f)


def test_seed004_device_agnostic_code_and_tensor_type():
    def f(torch):
        import argparse
        parser = argparse.ArgumentParser(description='PyTorch Example')
        parser.add_argument('--disable-cuda', action='store_true', help='Disable CUDA')
        args = parser.parse_args([])
        args.cuda = not args.disable_cuda and torch.cuda.is_available()
        x = torch.Tensor(8, 42)
        loader = torch.utils.data.DataLoader(torch.arange(6.).view(3, 2), batch_size=2)
        cuda_type = None
        if not torch.cuda.is_available():
            cuda_type = _err(lambda: torch.autograd.Variable(x.type(torch.cuda.FloatTensor)))
        return (args.cuda, x.shape, x.dtype, cuda_type, x.type(torch.FloatTensor) is x,
                x.type(torch.DoubleTensor).dtype, x.type('torch.DoubleTensor').dtype, x.type(),
                torch.tensor([1.7, -2.5]).type(torch.LongTensor),
                [torch.autograd.Variable(b.type(torch.FloatTensor)).shape for b in loader])
    check(f)


def test_seed004_dataparallel_single_device():
    def f(torch):
        dp = torch.nn.DataParallel(fix(torch, torch.nn.Linear(3, 2)))
        return repr(dp), dp(torch.ones(4, 3)), [n for n, _ in dp.named_parameters()]
    check(f)


def test_seed004_extending_linear_function_and_module():
    def f(torch):
        LinearFunction = make_linear(torch)   # the seed's LinearFunction, verbatim
        Linear = make_linear_module(torch, LinearFunction)
        m = Linear(3, 2)
        init_ok = bool((m.weight.abs() <= 0.1).all()) and bool((m.bias.abs() <= 0.1).all())
        with torch.no_grad():
            m.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.1, 0.0, 0.1]]))
            m.bias.copy_(torch.tensor([0.5, -0.5]))
        inp = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
        out = m(inp)
        out.backward(torch.tensor([[1., 2.], [3., 4.]]))
        grads = (inp.grad, m.weight.grad.clone(), m.bias.grad.clone())
        m.zero_grad()
        LinearFunction.apply(torch.ones(1, 3), m.weight).sum().backward()
        return (repr(m), [n for n, _ in m.named_parameters()], m.input_features, init_ok, out,
                type(out.grad_fn).__name__, out.requires_grad, grads, m.weight.grad, m.bias.grad,
                _err(lambda: Linear(3, 2, bias=False)),
                _err(lambda: m(torch.ones(2, 3)).backward()),
                _err(lambda: LinearFunction()(torch.ones(1, 3), m.weight)),
                LinearFunction.forward(None, torch.ones(1, 3), m.weight.detach()),
                LinearFunction.apply(torch.ones(1, 3), m.weight, bias=m.bias))
    check(f)


def test_seed004_function_backward_returns_extra_or_too_few_grads():
    def f(torch):
        Function = torch.autograd.Function

        class ExtraNone(Function):
            @staticmethod
            def forward(ctx, x, k=2):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g * 2, None, None

        class ExtraGrad(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, g

        class TooFew(Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g

        def run(F, *extra):
            x = torch.ones(2, requires_grad=True)
            F.apply(x, *extra).sum().backward()
            return x.grad
        return (run(ExtraNone), _err(lambda: run(ExtraGrad)),
                _err(lambda: (lambda x: TooFew.apply(x, x).sum().backward())(
                    torch.ones(2, requires_grad=True))))
    check(f)


def test_seed004_multiprocessing_shared_memory():
    def f(torch):
        mp = torch.multiprocessing
        t = torch.ones(3)
        m = torch.nn.Linear(2, 2)
        same = t.share_memory_() is t
        return (hasattr(mp, 'Queue'), hasattr(mp, 'Process'), same, t.is_shared(),
                t[1:].is_shared(), torch.ones(2).is_shared(), m.weight.is_shared(),
                m.share_memory() is m, m.weight.is_shared(), m.bias.is_shared(),
                _err(lambda: torch.nn.LazyLinear(2).share_memory()))
    check(f)


def test_seed004_autograd_backward_needs_gradient_for_non_scalars():
    def f(torch):
        x = torch.tensor([1., 2.], requires_grad=True)
        (x * x).sum().backward()
        g1 = x.grad.clone()
        zz = x * x
        err = _err(lambda: zz.backward())
        zz.backward(torch.tensor([1., 1.]))
        return (g1, err, x.grad, _err(lambda: (x * x).backward(torch.ones(3))),
                _err(lambda: torch.ones(2).sum().backward()), torch.ones(2).grad_fn)
    check(f)


def test_seed004_typical_training_step():
    def f(torch):
        nn = torch.nn
        net = nn.Linear(2, 1)
        with torch.no_grad():
            net.weight.fill_(0.5)
            net.bias.fill_(0.)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        loss = ((net(torch.tensor([[1., 2.]])) - 3) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        before = (net.weight.grad.clone(), net.weight.detach().clone())
        opt.step()
        p = torch.ones(2, requires_grad=True)
        torch.optim.SGD([p], lr=0.1).step()
        return loss, before, net.weight, net.bias, p
    check(f)
