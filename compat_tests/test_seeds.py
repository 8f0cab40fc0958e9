"""The tensor snippets of the user's seed documents (shared/seeds), run under real PyTorch and
torchlike and compared: printed values, shapes, errors, storage sharing."""
import numpy as np

from harness import check, same_repr
from test_autograd_function import make_linear, make_linear_module


def test_seed000_size_and_views():
    def f(torch):
        x = torch.zeros(1, 2, 3)
        a = torch.zeros(4, 4).t()
        try:
            a.view(16)
            err = None
        except RuntimeError as e:
            err = str(e)
        return x.size(), err, a.reshape(16).shape, a.permute(1, 0).is_contiguous()
    check(f)


def test_seed000_stack_vs_cat():
    def f(torch):
        a, b = torch.ones(2, 3), torch.zeros(2, 3)
        return torch.stack([a, b]).shape, torch.cat([a, b]).shape, torch.cat([a, b], 1).shape
    check(f)


def test_seed001_creation_prints():
    same_repr(lambda torch: torch.tensor([[0.1, 1.2], [2.2, 3.1], [4.9, 5.2]]))
    same_repr(lambda torch: torch.zeros(2, 3))
    same_repr(lambda torch: torch.from_numpy(np.array([1, 2, 3])))
    same_repr(lambda torch: torch.ones(5))
    same_repr(lambda torch: torch.tensor([1, 2, 3, 4]).unsqueeze(0))
    same_repr(lambda torch: torch.tensor([1, 2, 3, 4]).unsqueeze(1))


def test_seed001_legacy_constructor_and_randn():
    def f(torch):
        a = torch.Tensor(1, 2, 3, 4, 5)
        r = torch.randn(2, 3)
        r2 = torch.randn((2, 3))
        return a.shape, a.size(), a.dtype, r.shape, r.dtype, r2.shape, r.requires_grad
    check(f)


def test_seed001_numpy_bridge_shares_memory():
    def f(torch):
        a = np.array([1, 2, 3])
        t = torch.from_numpy(a)
        t[0] = 10 if hasattr(t, "__setitem__") else None
        a[2] = 30
        b = torch.ones(5)
        n = b.numpy()
        b.add_(1)
        return t, a.tolist(), n.tolist(), b.detach().numpy().tolist()
    check(f)


def test_seed001_transpose_view_contiguous_equal():
    def f(torch):
        x = torch.tensor([[1, 2, 3], [4, 5, 6]])
        y = x.transpose(0, 1)
        a = torch.arange(24.).view(1, 2, 3, 4)
        b = a.transpose(1, 2)
        c = a.view(1, 3, 2, 4)
        return (x.data_ptr() == y.data_ptr(), x.is_contiguous(), y.is_contiguous(),
                torch.equal(torch.tensor([1, 2]), torch.tensor([1, 2])), torch.equal(a, b),
                torch.equal(a, c), torch.equal(b, c), a.data_ptr() == b.data_ptr() == c.data_ptr())
    check(f)


def test_seed001_squeeze_unsqueeze_shapes():
    def f(torch):
        x = torch.zeros(2, 1, 2, 1, 2)
        v = torch.tensor([1, 2, 3, 4])
        return (x.squeeze().shape, torch.squeeze(x).shape, x.squeeze(0).shape,
                x.squeeze(1).shape, v.unsqueeze(0).shape, torch.unsqueeze(v, 0).shape,
                v.unsqueeze(1).shape)
    check(f)


def test_seed001_sum_dims():
    def f(torch):
        x = torch.arange(24.).view(2, 3, 4)
        return (x.sum(), x.sum(1), x.sum([0, 2]), x.sum(1, keepdim=True),
                x.sum(dim=(0, 1), keepdim=True).shape)
    check(f)


def test_seed002_tolist_item_where_nonzero():
    def f(torch):
        t = torch.tensor([[1.5, 2.0], [3.0, 4.0]])
        c = torch.tensor([[True, False], [False, True]])
        return (t.tolist(), torch.tensor(3.5).item(), torch.where(c, t, -t),
                t.where(c, torch.zeros(2, 2)), torch.nonzero(c), torch.nonzero(c).squeeze())
    check(f)


def test_seed002_bool_mask_from_index():
    def f(torch):
        idx = torch.tensor([3, 7, 2])
        bool_mask = torch.zeros(10)
        bool_mask[idx] = 1
        bool_mask = bool_mask.bool()
        return bool_mask, repr(bool_mask)
    check(f)


def test_seed002_index_assignment_rows():
    def f(torch):
        eval_ema_pred = torch.zeros(10, 10)
        eval_ema_pred[:, 4] = 1
        labels = torch.eye(10)[torch.tensor([0, 9, 5, 4, 1, 3, 1, 7, 8, 3])]
        tt = labels[:10].clone()
        tt[[1, 3, 4]] = eval_ema_pred[[1, 3, 4]]
        eval_ema_pred_2 = eval_ema_pred.clone()
        eval_ema_pred_2[-3:] = tt[-3:]
        return tt, eval_ema_pred_2[-3:], repr(tt), repr(eval_ema_pred_2[-3:])
    check(f)


def test_seed002_cat_zero_dim_error_and_stack():
    check(lambda torch: torch.cat([torch.tensor(1), torch.tensor(2), torch.tensor(3)]))
    check(lambda torch: torch.tensor([torch.tensor(1), torch.tensor(2), torch.tensor(3)]))
    same_repr(lambda torch: torch.stack([torch.tensor([1, 2]), torch.tensor([3, 4])]))
    same_repr(lambda torch: torch.cat([torch.tensor([1, 2]), torch.tensor([3, 4])]))


def test_seed002_triu_distance_matrix():
    def f(torch):
        b = torch.tensor([[3., 5.], [4., 4.], [6., 7.]])
        pd = torch.tensor([1.4142135, 3.6055512, 3.6055512])  # F.pdist(b) (nn comes later)
        dist = torch.zeros(b.size(0), b.size(0))
        triu_indices = torch.triu_indices(3, 3, 1)
        dist[triu_indices[0], triu_indices[1]] = pd
        r1 = repr(dist)
        r2 = repr(dist.T)
        dist = dist + dist.T
        return r1, r2, repr(dist), repr(dist.add(1).pow(-1)), dist
    check(f)


def test_seed002_state_dict_style_clone_and_requires_grad():
    def f(torch):
        x = torch.randn(2, 2)
        y = torch.randn(2, 2)
        z = torch.randn(2, 2, requires_grad=True)
        return x.requires_grad, z.requires_grad, z.is_leaf, torch.ones(3).detach().clone().shape
    check(f)


def test_seed002_softmax_rows_sum_to_one():
    def f(torch):
        alpha = torch.arange(200.).view(10, 10, 2).div(50).softmax(0)
        return alpha.view(10, -1).sum(0), alpha.shape
    check(f)


def test_seed004_broadcasting():
    def f(torch):
        x = torch.ones(5, 1)
        y = torch.ones(3)
        a = torch.FloatTensor(5, 3, 4, 1)
        b = torch.FloatTensor(3, 1, 1)
        return ((x + y).shape, x + y, a.add_(b).size(),
                torch.add(torch.ones(4, 1), torch.randn(4)).size())
    check(f)


def test_seed004_inplace_broadcast_error():
    check(lambda torch: torch.FloatTensor(1, 3, 1).add_(torch.FloatTensor(3, 1, 7)))


def test_seed004_legacy_types():
    def f(torch):
        x = torch.FloatTensor(5, 7, 3)
        y = torch.FloatTensor(1)
        return (x.shape, x.dtype, y.shape, isinstance(x, torch.FloatTensor),
                isinstance(x, torch.LongTensor), x.type(), x.get_device(), x.is_cuda)
    check(f)


# ---- nn and autograd snippets of the seeds ----------------------------------------------------

def test_seed004_custom_linear_module_verbatim():
    def f(torch):
        LinearFunction = make_linear(torch)  # the seed's LinearFunction, verbatim
        Linear = make_linear_module(torch, LinearFunction)

        m = Linear(3, 2)
        with torch.no_grad():  # deterministic weights (random draws differ between libraries)
            m.weight.copy_(torch.arange(6.).view(2, 3) / 10)
            m.bias.copy_(torch.tensor([0.5, -0.5]))
        x = torch.arange(12.).view(4, 3).requires_grad_()
        y = m(x)
        y.sum().backward()
        names = [n for n, _ in m.named_parameters()]
        b_none = Linear(3, 2, bias=False)
        return y, x.grad, m.weight.grad, m.bias.grad, names, b_none.bias, repr(m)
    check(f)


def test_seed002_hooks_on_named_parameters_and_manual_sgd():
    def f(torch):
        nn = torch.nn
        model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
        with torch.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(torch.linspace(-0.5, 0.5, p.numel()).view(p.shape) * (i + 1))
        seen = []
        handles = []
        for name, param in model.named_parameters():
            if param.requires_grad:
                def b_h(grad, name=name):
                    seen.append((name, round(float(grad.sum()), 5)))
                handles.append(param.register_hook(b_h))
        feature = torch.arange(6.).view(2, 3)
        label = torch.tensor([[1.0], [2.0]])
        lr = 0.01
        for _ in range(3):
            predict = model(feature)
            loss = torch.sum(predict - label, dim=0)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p.sub_(p.grad * lr)
                    p.grad.zero_()
        for h in handles:
            h.remove()
        return seen, [p.detach() for p in model.parameters()], model.state_dict()[
            '0.weight'].requires_grad
    check(f)


def test_seed003_weights_init_via_apply():
    def f(torch):
        nn = torch.nn

        def weights_init(init_type='gaussian'):
            def init_fun(m):
                classname = m.__class__.__name__
                if (classname.find('Conv') == 0 or classname.find('Linear') == 0) and \
                        hasattr(m, 'weight'):
                    if init_type == 'default':
                        pass
                    if hasattr(m, 'bias') and m.bias is not None:
                        nn.init.constant_(m.bias, 0.0)
            return init_fun
        net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4, 2))
        net.apply(weights_init('default'))
        return [m.bias.detach() for m in net if hasattr(m, 'bias')], repr(net)
    check(f)


def test_seed002_retain_graph_two_losses():
    def f(torch):
        nn = torch.nn
        shared = nn.Linear(3, 3)
        with torch.no_grad():
            shared.weight.copy_(torch.eye(3) * 0.5)
            shared.bias.zero_()
        x = torch.arange(6.).view(2, 3)
        h = shared(x)
        d_loss = h.pow(2).mean()
        g_loss = (h * 3).sum()
        d_loss.backward(retain_graph=True)
        gw = shared.weight.grad.clone()
        shared.zero_grad()
        g_loss.backward()
        try:
            d_loss.backward()
            err = None
        except RuntimeError as e:
            err = str(e)
        return gw, shared.weight.grad, err
    check(f)
