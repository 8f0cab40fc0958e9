"""Saved tensors, as PyTorch's autograd exposes them: `grad_fn._saved_<name>` and
`_raw_saved_<name>` per node type, `torch.autograd.graph.saved_tensors_hooks`, `save_on_cpu`,
`disable_saved_tensors_hooks` and `SavedTensor.register_hooks`, with custom Functions too; each
case run under real PyTorch and torchlike and compared (values, identities, call order of the
hooks, gradients, errors)."""
import numpy as np
import pytest

from harness import check

X = np.array([[0.5, -1.0, 2.0, 1.5], [3.0, 0.25, -0.75, 1.0]], dtype=np.float32)
W = np.array([[0.1, 0.2, -0.3, 0.4], [0.5, -0.6, 0.7, 0.8], [-0.9, 1.0, 0.1, 0.2]],
             dtype=np.float32)


def _tensor_attrs(torch, node):
    """The node's `_saved_<name>` attributes that hold tensors, with their values."""
    out = {}
    for name in dir(node):
        if name.startswith("_saved_"):
            v = getattr(node, name)
            if isinstance(v, torch.Tensor):
                out[name] = v.detach().clone()
    return out


def _x(torch, grad=True):
    return torch.tensor(X, requires_grad=grad)


def _w(torch, grad=True):
    return torch.tensor(W, requires_grad=grad)


# (id, f(torch) -> output whose grad_fn is inspected)
CASES = [
    ("mul_both", lambda t: _x(t) * (_x(t) * 2)),
    ("mul_self_only", lambda t: _x(t) * _x(t, False)),
    ("mul_other_only", lambda t: _x(t, False) * _x(t)),
    ("div", lambda t: _x(t) / (_x(t).abs() + 1)),
    ("pow_scalar", lambda t: _x(t).pow(2)),
    ("exp", lambda t: _x(t).exp()),
    ("tanh", lambda t: _x(t).tanh()),
    ("sigmoid", lambda t: _x(t).sigmoid()),
    ("relu", lambda t: _x(t).relu()),
    ("softmax", lambda t: _x(t).softmax(1)),
    ("log_softmax", lambda t: _x(t).log_softmax(1)),
    ("sin", lambda t: _x(t).sin()),
    ("add", lambda t: _x(t) + _x(t)),
    ("sum", lambda t: _x(t).sum()),
    ("mean_dim", lambda t: _x(t).mean(1)),
    ("mm", lambda t: _x(t).mm(_w(t).t())),
    ("mm_self_only", lambda t: _x(t).mm(_w(t, False).t())),
    ("matmul_2d", lambda t: t.matmul(_x(t), _w(t).t())),
    ("linear", lambda t: t.nn.functional.linear(_x(t), _w(t))),
    ("linear_bias", lambda t: t.nn.functional.linear(_x(t), _w(t), t.zeros(3))),
    ("linear_3d", lambda t: t.nn.functional.linear(_x(t).reshape(2, 1, 4), _w(t))),
    ("addmm", lambda t: t.addmm(t.zeros(2, 3), _x(t), _w(t).t())),
    ("prod", lambda t: _x(t).prod()),
    ("logsumexp", lambda t: _x(t).logsumexp(1)),
    ("gelu", lambda t: t.nn.functional.gelu(_x(t))),
    ("mse_loss", lambda t: t.nn.functional.mse_loss(_x(t), _x(t, False) * 2)),
]



def _img(torch, grad=True):
    return torch.tensor(np.linspace(-2, 2, 2 * 3 * 6 * 6, dtype=np.float32).reshape(2, 3, 6, 6),
                        requires_grad=grad)


def _kernel(torch):
    return torch.tensor(np.linspace(-1, 1, 4 * 3 * 3 * 3, dtype=np.float32).reshape(4, 3, 3, 3),
                        requires_grad=True)


def _idx(torch):
    return torch.tensor([1, 0, 2, 3])


NN_CASES = [
    ("conv2d", lambda t: t.nn.functional.conv2d(_img(t), _kernel(t), padding=1)),
    ("conv2d_bias", lambda t: t.nn.functional.conv2d(_img(t, False), _kernel(t),
                                                     t.zeros(4, requires_grad=True))),
    ("layer_norm", lambda t: t.nn.functional.layer_norm(
        _x(t), (4,), t.ones(4, requires_grad=True), t.zeros(4, requires_grad=True))),
    ("batch_norm", lambda t: t.nn.functional.batch_norm(
        _img(t), t.zeros(3), t.ones(3), t.ones(3, requires_grad=True), t.zeros(3),
        training=True)),
    ("embedding", lambda t: t.nn.functional.embedding(t.tensor([[0, 1], [1, 1]]), _x(t))),
    ("nll_loss", lambda t: t.nn.functional.nll_loss(_x(t).log_softmax(1), t.tensor([1, 3]))),
    ("mse_loss", lambda t: t.nn.functional.mse_loss(_x(t), _x(t, False) * 2)),
    ("bce_with_logits", lambda t: t.nn.functional.binary_cross_entropy_with_logits(
        _x(t), _x(t, False).sigmoid())),
    ("max_pool2d", lambda t: t.nn.functional.max_pool2d(_img(t), 2)),
    ("avg_pool2d", lambda t: t.nn.functional.avg_pool2d(_img(t), 2)),
    ("gather", lambda t: _x(t).gather(1, t.tensor([[0, 3], [2, 1]]))),
    ("silu", lambda t: t.nn.functional.silu(_x(t))),
    ("leaky_relu", lambda t: t.nn.functional.leaky_relu(_x(t))),
    ("elu", lambda t: t.nn.functional.elu(_x(t))),
    ("hardtanh", lambda t: t.nn.functional.hardtanh(_x(t))),
    ("index", lambda t: _x(t)[t.tensor([1, 0])]),
    ("clamp", lambda t: _x(t).clamp(-0.5, 0.5)),
    ("sqrt", lambda t: _x(t).abs().sqrt()),
    ("cumsum", lambda t: _x(t).cumsum(1)),
    ("norm", lambda t: _x(t).norm()),
    ("var", lambda t: _x(t).var(1)),
    ("max_all", lambda t: _x(t).max()),
    ("maximum", lambda t: t.maximum(_x(t), _x(t) * 2)),
    ("bmm", lambda t: t.bmm(_x(t).reshape(2, 1, 4), _x(t).reshape(2, 4, 1))),
    ("max_dim", lambda t: _x(t).max(1)[0]),
    ("sort", lambda t: _x(t).sort(1)[0]),
    ("topk", lambda t: _x(t).topk(2)[0]),
    ("median_dim", lambda t: _x(t).median(1)[0]),
    ("median_all", lambda t: _x(t).median()),
    ("cummax", lambda t: _x(t).cummax(1)[0]),
]
# what PyTorch's nodes save of their own intermediates (a norm's mean and rstd, a pool's
# indices, nll's total weight) and of the running statistics batch_norm updates: not exposed,
# stated in docs/differences.md
INTERNAL = {"_saved_result1", "_saved_result2", "_saved_total_weight", "_saved_running_mean",
            "_saved_running_var"}


@pytest.mark.parametrize("case", [c[1] for c in CASES + NN_CASES],
                         ids=[c[0] for c in CASES + NN_CASES])
def test_saved_tensor_attributes(case):
    """Which tensors each node saves (by PyTorch's names) and their values."""
    def f(torch):
        y = case(torch)
        attrs = {k: v for k, v in _tensor_attrs(torch, y.grad_fn).items() if k not in INTERNAL}
        raws = sorted(n for n in dir(y.grad_fn) if n.startswith("_raw_saved_") and
                      "_saved_" + n[len("_raw_saved_"):] in attrs)
        return type(y.grad_fn).__name__, sorted(attrs), [attrs[k] for k in sorted(attrs)], raws
    check(f)


@pytest.mark.xfail(strict=True, reason="stated in docs/differences.md: a Python number operand "
                   "(PyTorch's wrapped-number tensor) is not exposed as a saved tensor")
def test_saved_wrapped_number():
    def f(torch):
        return (torch.tensor(X, requires_grad=True) * 3).grad_fn._saved_other
    check(f)


def test_saved_inputs_are_the_tensors_themselves():
    def f(torch):
        a = torch.tensor(X, requires_grad=True)
        b = torch.tensor(X, requires_grad=True) * 2
        y = a * b
        e = y.exp()
        r = e.grad_fn._saved_result
        return (y.grad_fn._saved_self is a, y.grad_fn._saved_other is b, r is e,
                r.equal(e), r.grad_fn is e.grad_fn, r.data_ptr() == e.data_ptr(),
                r.requires_grad, type(y.grad_fn._raw_saved_self).__name__,
                type(y.grad_fn._raw_saved_self).__module__)
    check(f)


def test_saved_indices_are_the_indices_output():
    def f(torch):
        x = torch.tensor(X, requires_grad=True)
        out = []
        for values, indices in (x.max(1), x.sort(1), x.topk(2), x.kthvalue(2, 1), x.cummin(1)):
            out.append(values.grad_fn._saved_indices is indices)
        values, indices = x.max(1)
        indices.add_(0)
        try:
            values.sum().backward()
        except RuntimeError as e:
            out.append(str(e))
        return out
    check(f)


def test_linear_saves_the_transposed_weight():
    def f(torch):
        w = torch.tensor(W, requires_grad=True)
        x = torch.tensor(X, requires_grad=True)
        y = torch.nn.functional.linear(x, w, torch.zeros(3))
        m = y.grad_fn._saved_mat2
        return (tuple(m.shape), m._base is w, m.equal(w.t()), y.grad_fn._saved_mat1 is x,
                type(m.grad_fn).__name__)
    check(f)


def test_saved_attribute_errors():
    def f(torch):
        out = []
        x = torch.tensor(X, requires_grad=True)
        y = x.pow(2)
        y.sum().backward()
        for name in ("_saved_self", "_raw_saved_self", "_saved_missing", "_raw_saved_other"):
            try:
                getattr(y.grad_fn, name)
                out.append(None)
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        b = torch.tensor(X)
        z = x * b
        b.add_(1)
        try:
            z.grad_fn._saved_other
        except RuntimeError as e:
            out.append(str(e))
        e = (x * 1).exp()
        node = e.grad_fn
        e.mul_(2)
        try:
            node._saved_result
        except RuntimeError as err:
            out.append(str(err))
        return out
    check(f)


def _logged_hooks(torch, log):
    def pack(t):
        log.append(("pack", tuple(t.shape), t.requires_grad, t.grad_fn is None))
        return ("packed", t)

    def unpack(p):
        log.append(("unpack", p[0]))
        return p[1]
    return pack, unpack


def test_hooks_called_in_pytorch_order():
    """pack when the graph is recorded (per saved tensor, in the formula's order; nothing for
    ops that save nothing or under no_grad), unpack when backward needs the value."""
    def f(torch):
        log = []
        a = torch.ones(5, requires_grad=True)
        b = torch.ones(5, requires_grad=True) * 2
        with torch.autograd.graph.saved_tensors_hooks(*_logged_hooks(torch, log)):
            y = a * b
            w = y.exp()
            s = w.sum()
            with torch.no_grad():
                a * b
        log.append("forward done")
        s.backward()
        log.append("backward done")
        return log, a.grad
    check(f)


def test_unpacked_values_are_used():
    """What unpack_hook returns for a saved input is what backward computes with."""
    def f(torch):
        a = torch.ones(5, requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p * 10):
            y = a * (torch.ones(5, requires_grad=True) * 2)
            z = torch.nn.functional.linear(a.reshape(1, 5), torch.ones(3, 5) * 0.5)
        y.sum().backward()
        g1 = a.grad.clone()
        a.grad = None
        z.sum().backward()
        return g1, a.grad
    check(f)


@pytest.mark.xfail(strict=True, reason="stated in docs/differences.md: the unpacked value of a "
                   "saved output is not read; backward computes from the operands")
def test_unpacked_value_of_a_saved_output_is_used():
    def f(torch):
        a = torch.ones(5, requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p * 10):
            y = a.exp()
        y.sum().backward()
        return a.grad
    check(f)


def test_hooks_errors():
    def f(torch):
        out = []
        a = torch.ones(3, requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda p: p):
            y = a * (a * 2)
        try:
            y.sum().backward()
        except TypeError as e:
            out.append(str(e))
        with torch.autograd.graph.disable_saved_tensors_hooks("hooks are off here"):
            try:
                with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
                    pass
            except RuntimeError as e:
                out.append(str(e))
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
            try:
                with torch.autograd.graph.disable_saved_tensors_hooks("not now"):
                    pass
            except RuntimeError as e:
                out.append(str(e))
        return out
    check(f)


def test_raw_saved_register_hooks():
    def f(torch):
        log = []
        a = torch.ones(3, requires_grad=True)
        y = a * (a * 2)
        raw = y.grad_fn._raw_saved_self
        raw.register_hooks(lambda t: log.append("pack") or t * 3, lambda p: log.append("unpack") or p)
        log.append(y.grad_fn._saved_self.tolist())
        for args in ((lambda t: t, lambda p: p),):
            try:
                raw.register_hooks(*args)
            except RuntimeError as e:
                log.append(str(e))
        try:
            raw.register_hooks(lambda t: t)
        except TypeError:
            log.append("TypeError")
        y.sum().backward()
        try:
            raw.register_hooks(lambda t: t, lambda p: p)
        except RuntimeError as e:
            log.append(str(e))
        return log, a.grad
    check(f)


def test_save_on_cpu_gives_the_same_gradients():
    def f(torch):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
        x = torch.tensor(X)
        with torch.autograd.graph.save_on_cpu(pin_memory=False):
            loss = model(x).pow(2).sum()
        loss.backward()
        return loss, [p.grad for p in model.parameters()]
    check(f, rtol=1e-5, atol=1e-6)


def test_hooks_on_custom_function():
    def f(torch):
        log = []

        class Twice(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, None)
                log.append("forward")
                return x * 2

            @staticmethod
            def backward(ctx, g):
                x, none = ctx.saved_tensors
                return g * x
        x = torch.tensor(X, requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(
                lambda t: log.append(("pack", tuple(t.shape))) or t,
                lambda t: log.append("unpack") or t * 2):
            y = Twice.apply(x)
            with torch.no_grad():
                Twice.apply(x)
        log.append("applied")
        s = y.grad_fn.saved_tensors
        log.append(s[1] is None)
        y.sum().backward()
        return log, s[0], x.grad
    check(f)


def test_saved_tensor_hooks_tutorial_disk_offload(tmp_path):
    """The pattern of PyTorch's saved-tensor-hooks tutorial: saved tensors written to files
    when recorded and read back for backward."""
    def f(torch):
        import os
        import uuid
        folder = tmp_path / torch.__name__
        folder.mkdir(exist_ok=True)

        def pack(t):
            name = os.path.join(folder, str(uuid.uuid4()))
            torch.save(t, name)
            return name

        def unpack(name):
            return torch.load(name)
        torch.manual_seed(0)
        layer = torch.nn.Linear(4, 3)
        x = torch.tensor(X, requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = torch.sigmoid(layer(x)) * x[:, :3]
        y.sum().backward()
        return len(os.listdir(folder)), x.grad, layer.weight.grad
    check(f, rtol=1e-5, atol=1e-6)
