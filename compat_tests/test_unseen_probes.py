"""Differential tests for behaviours found by running unseen tutorial-style scripts under both
libraries (2026-11-27): seeded multinomial draws, exact lgamma zeros, complex integer powers,
the degrees-of-freedom warning of std/var."""
import warnings

import pytest

from harness import check, same_repr, same_script_output


# ---- multinomial: PyTorch's CPU draws, and the generator state they leave --------------------

@pytest.mark.parametrize("seed", [0, 7, 42])
@pytest.mark.parametrize("case", [
    ("1-D, with replacement", lambda t: t.multinomial(t.tensor([.1, .2, .7]), 5, True)),
    ("1-D, without", lambda t: t.multinomial(t.tensor([.1, .2, .3, .4]), 3)),
    ("one sample", lambda t: t.multinomial(t.tensor([.1, .2, .3, .4]), 1)),
    ("2-D, zero weight", lambda t: t.multinomial(t.tensor([[.1, 0., .3, .4], [1., 2., 3., 0.]]),
                                                 6, replacement=True)),
    ("2-D, without", lambda t: t.multinomial(t.tensor([[.1, 0., .3, .4], [1., 2., 3., .5]]), 3)),
    ("float64 rows", lambda t: t.multinomial(t.rand(3, 50, dtype=t.float64), 20, True)),
    ("float16", lambda t: t.multinomial(t.rand(50, dtype=t.float16), 20, True)),
    ("float16, without", lambda t: t.multinomial(t.rand(50, dtype=t.float16), 10)),
    ("softmax rows", lambda t: t.multinomial(t.softmax(t.randn(2, 65), -1), num_samples=1)),
    ("method", lambda t: t.tensor([3., 1., 0.5]).multinomial(4, replacement=True)),
], ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_multinomial_draws_pytorchs_numbers(case, seed):
    def draw(torch):
        torch.manual_seed(seed)
        return case[1](torch), torch.rand(3)  # the generator is left where PyTorch's is
    check(draw)


@pytest.mark.parametrize("seed", [0, 3])
def test_multinomial_with_a_generator_and_out(seed):
    def draw(torch):
        g = torch.Generator().manual_seed(seed)
        out = torch.empty(0, dtype=torch.long)
        torch.multinomial(torch.tensor([1., 2.]), 4, True, generator=g, out=out)
        return out, torch.multinomial(torch.tensor([.1, .2, .7]), 8, True, generator=g), \
            torch.rand(2, generator=g)
    check(draw)


@pytest.mark.parametrize("seed", [0, 1])
def test_weighted_sampler_and_categorical_sample(seed):
    def draw(torch):
        WeightedRandomSampler = torch.utils.data.WeightedRandomSampler
        torch.manual_seed(seed)
        order = list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7], 10))
        no_repl = list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7], 3, replacement=False))
        d = torch.distributions.Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))
        return order, no_repl, d.sample((10,)), torch.rand(2)
    check(draw)


# ---- exact special values -------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "torch.lgamma(torch.tensor([0.5, 1., 2., 3.]))",
    "torch.special.gammaln(torch.tensor([1., 2.], dtype=torch.float64))",
    "torch.tensor([1., 2., 2.5]).lgamma_()",
])
def test_lgamma_is_exactly_zero_at_one_and_two(expr):
    same_repr(lambda torch: eval(expr, {"torch": torch}))


def test_lgamma_gradient_at_one_and_two():
    def grad(torch):
        x = torch.tensor([1., 2., 2.5], requires_grad=True)
        torch.lgamma(x).sum().backward()
        return x.grad
    check(grad)


@pytest.mark.parametrize("e", [-3, -2, -1, -0.5, 0, 1, 0.5, 2, 3, 4, 2.0, 1.5])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_power_of_a_scalar_as_pytorch_computes_it(e, dtype):
    same_repr(lambda torch: torch.tensor([1j, 1 + 1j, 1e-5 + 1e5j, 100 + 1j, 3 - 2j],
                                         dtype=getattr(torch, dtype)) ** e)


@pytest.mark.parametrize("expr", ["z ** 2", "torch.pow(z, 2)", "z.pow(-2)", "z.clone().pow_(3)",
                                  "z.sqrt() ** 2", "2 ** z"])
def test_complex_power_forms(expr):
    same_repr(lambda torch: eval(expr, {"torch": torch, "z": torch.tensor([1j, 2 + 0j, 1 + 1j])}))


def test_complex_square_gradient():
    def grad(torch):
        z = torch.tensor([1 + 1j, 2 - 1j], dtype=torch.complex128, requires_grad=True)
        (z ** 2).abs().sum().backward()
        return z.grad
    check(grad)


# ---- std/var: the degrees-of-freedom warning, at the caller's line ---------------------------

def _recorded(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = fn()
    return r, [(x.category.__name__, str(x.message), x.filename == __file__) for x in w]


@pytest.mark.parametrize("expr", [
    "torch.tensor([1.]).std()", "torch.ones(1, 3).var(dim=0)", "torch.ones(3).var(correction=3)",
    "torch.std_mean(torch.ones(3), correction=5)", "torch.var_mean(torch.ones(1, 2), 0)",
    "torch.ones(0).var()", "torch.ones(3).var(correction=2)", "torch.ones(2, 1).var(1, True)",
    "torch.ones(2, 1).std(dim=(1,), keepdim=True)", "torch.ones(4, 1).var(axis=1)",
    "torch.ones(2, 3).var(unbiased=False)", "torch.var(torch.ones(1, dtype=torch.float64), False)",
])
def test_std_var_degrees_of_freedom_warning(expr):
    check(lambda torch: _recorded(lambda: eval(expr, {"torch": torch})))


# ---- memory formats: torch.channels_last & co., and the layouts copies keep -----------------

_X4 = "torch.arange(120.).reshape(2, 3, 4, 5)"


@pytest.mark.parametrize("expr", [
    "repr(torch.strided), repr(torch.contiguous_format), str(torch.channels_last)",
    "repr(type(torch.strided)), repr(type(torch.preserve_format)), repr(torch.memory_format)",
    "torch.channels_last == torch.contiguous_format, x.layout is torch.strided, repr((x.layout,))",
    "pickle.loads(pickle.dumps(torch.channels_last)) is torch.channels_last",
])
def test_layout_and_memory_format_objects(expr):
    import pickle
    check(lambda torch: eval(expr, {"torch": torch, "pickle": pickle, "x": eval(_X4)}))


@pytest.mark.parametrize("expr", [
    "x.to(memory_format=torch.channels_last)",
    "x.contiguous(memory_format=torch.channels_last)",
    "x.clone(memory_format=torch.channels_last)",
    "torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride()",
    "torch.zeros(2, 3, 4, 5, memory_format=torch.channels_last)",
    "torch.ones(3, 4).to(memory_format=torch.channels_last)",
    "torch.ones(3, 4).contiguous(memory_format=torch.channels_last)",
    "torch.ones(3, 4).t().contiguous(memory_format=torch.preserve_format)",
    "torch.ones(3, 4).t().contiguous(memory_format=torch.contiguous_format)",
    "torch.ones(3, 4).is_contiguous(memory_format=torch.channels_last)",
    "torch.ones(1, 3, 1, 1).to(memory_format=torch.channels_last)",
    "x.to(memory_format=torch.contiguous_format) is x",
    "y.to(memory_format=torch.preserve_format) is y, y.float() is y",
    "y.contiguous() is y, y.contiguous(memory_format=torch.channels_last) is y, y.contiguous()",
    "y.is_contiguous(), y.is_contiguous(memory_format=torch.channels_last), y._base is None",
    "y.clone(), y.clone(memory_format=torch.contiguous_format), torch.zeros_like(y)",
    "y.to(torch.float64), y.double(), y.to(torch.int64)",
    "torch.ones(3, 4).t().clone(), x[:, :, ::2].clone(), x.permute(0, 2, 3, 1).clone()",
    "torch.zeros_like(x, memory_format=torch.channels_last)",
    "torch.empty_like(y, memory_format=torch.contiguous_format).stride()",
    "x.reshape(2, 3, 2, 2, 5).to(memory_format=torch.channels_last_3d)",
    "(y * 2).sum(), y.reshape(2, 3, 20), y[0, 1], y.sum(dim=(2, 3))",
])
def test_memory_formats(expr):
    def f(torch):
        x = eval(_X4, {"torch": torch})
        y = x.to(memory_format=torch.channels_last)
        r = eval(expr, {"torch": torch, "x": x, "y": y})
        return (r, r.stride()) if isinstance(r, torch.Tensor) else r
    check(f)


def test_memory_format_with_grad_and_modules():
    def f(torch):
        w = torch.arange(120., requires_grad=True).reshape(2, 3, 4, 5)
        y = w.to(memory_format=torch.channels_last)
        (y * y).sum().backward()
        torch.manual_seed(0)
        conv = torch.nn.Conv2d(3, 4, 3).to(memory_format=torch.channels_last)
        out = conv(y.detach())
        return y.stride(), w.grad, conv.weight.stride(), conv.bias.stride(), out
    check(f, rtol=1e-5, atol=1e-4)


# ---- float16/bfloat16 norms accumulate in float32 -------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("expr", [
    "torch.linalg.vector_norm(x)", "x.norm()", "torch.norm(x)", "x.norm(p=1)", "x.norm(p=3)",
    "x.norm(p=float('inf'))", "torch.linalg.norm(x)", "m.norm()", "torch.linalg.matrix_norm(m)",
    "torch.linalg.matrix_norm(m, ord=1)", "m.norm(dim=1)", "torch.linalg.norm(m)",
    "F.normalize(torch.full((2, 500), 20., dtype=x.dtype), dim=1)", "y.norm()", "y.norm(p=0)",
    "torch.linalg.vector_norm(y, ord=-1)",
])
def test_reduced_precision_norms(dtype, expr):
    def f(torch):
        d = getattr(torch, dtype)
        env = {"torch": torch, "F": torch.nn.functional, "x": torch.full((1000,), 10., dtype=d),
               "m": torch.full((30, 40), 300., dtype=d),
               "y": torch.tensor([0.1, 0.2, 0.3], dtype=d)}
        return eval(expr, env)
    same_repr(f)


@pytest.mark.parametrize("expr", ["torch.linalg.vector_norm(torch.ones(0), ord=float('inf'))",
                                  "torch.linalg.vector_norm(torch.ones(0), ord=-float('inf'))",
                                  "torch.linalg.vector_norm(torch.ones(2, 0), ord=1, dim=1)"])
def test_vector_norm_of_nothing(expr):
    check(lambda torch: eval(expr, {"torch": torch}))


# ---- isclose / allclose: integer operands, dtype and tolerance checks -----------------------

@pytest.mark.parametrize("expr", [
    "torch.isclose(torch.tensor([100]), torch.tensor([101]), rtol=0.01, atol=0)",
    "torch.isclose(torch.tensor([100]), torch.tensor([101.]), rtol=0.01, atol=0)",
    "torch.isclose(torch.tensor([100.]), torch.tensor([101.], dtype=torch.float64))",
    "torch.isclose(torch.tensor([100.]), torch.tensor([101.]), rtol=-1)",
    "torch.isclose(torch.tensor([100.]), torch.tensor([101.]), atol=-1.5)",
    "torch.isclose(torch.tensor([100.]), 101.)",
    "torch.allclose(torch.tensor([100]), torch.tensor([101]), rtol=0.01, atol=0)",
    "torch.allclose(torch.tensor([100]), torch.tensor([101.]))",
    "torch.isclose(torch.tensor([16777217]), torch.tensor([16777216]), atol=0.5)",
    "torch.isclose(torch.tensor([3], dtype=torch.uint8), torch.tensor([5], dtype=torch.uint8), "
    "atol=1.5)",
    "torch.tensor([1, 2]).isclose(torch.tensor([1, 3]), 0.5, 0.1)",
    "torch.isclose(torch.tensor([5, 7]), torch.tensor([6, 7]), rtol=0, atol=1)",
    "torch.isclose(torch.tensor([1+1j, 2]), torch.tensor([1+1j, 2.00001+1e-6j]), equal_nan=True)",
    "torch.isclose(torch.tensor([1., 2.], dtype=torch.float16), "
    "torch.tensor([1.001, 2.1], dtype=torch.float16), rtol=1e-3, atol=0)",
])
def test_isclose_rules(expr):
    check(lambda torch: eval(expr, {"torch": torch}))


# ---- clamp / where: Python-number bounds must fit the tensor's dtype ------------------------

@pytest.mark.parametrize("expr", [
    "i8.clamp(max=1000)", "i8.clamp(-1000, 5)", "i8.clamp(0, 300.5)", "i8.clamp_min(200)",
    "i8.clamp_max(-200)", "i8.clamp_(max=1000)", "torch.clip(i8, max=1000)",
    "torch.zeros(2, dtype=torch.uint8).clamp(min=-1)",
    "torch.where(torch.tensor([True, False]), torch.tensor([1, 2], dtype=torch.int8), 1000)",
    "torch.where(torch.tensor([True, False]), 1000, torch.tensor([1, 2], dtype=torch.int8))",
    "torch.zeros(2, dtype=torch.int32).clamp(max=2**40)",
    "torch.zeros(2, dtype=torch.int16).clamp(max=40000)",
    "torch.zeros(2, dtype=torch.float16).clamp(max=1e6)", "torch.ones(2).clamp(max=1e39)",
    "torch.ones(2, dtype=torch.float16).clamp(max=float('inf'))",
    "torch.tensor([1, 5, 9]).clip(2.5, 7.5)", "i8.clamp(min=torch.tensor(5))",
    "torch.tensor([1, 5, 9]).where(torch.tensor([True, False, True]), 0)",
])
def test_clamp_bounds_fit_the_dtype(expr):
    check(lambda torch: eval(expr, {"torch": torch, "i8": torch.zeros(2, dtype=torch.int8)}))


# ---- torch.__version__ / torch.version, Embedding's max_norm scale --------------------------

@pytest.mark.parametrize("other", [(2, 0), (2, 13), (2, 13, 0), (2, 14), "2.13", "2.13.0",
                                   "2.13.0+cpu", "2.12.9", "2.13.1", (3,), 2, "N/A", "parrot", "",
                                   "2.13.0a0", "2.13.0rc1", "2.13.0.dev20260101", "2.13.0.post1",
                                   "2.13.0-1", "1!1.0", "2.13.0+cpu.1", "2.13.0+cu121", "v2.13",
                                   "2.13.0+CPU", "2.14.0a0+git1234", "2.12.0.dev1+cpu"])
def test_version_compares_as_pytorchs(other):
    def f(torch):
        v = torch.__version__
        try:
            return v > other, v >= other, v == other, v < other, v != other
        except TypeError as e:
            return str(e).replace("TorchVersion", "V")
    check(f)


def test_version_module():
    check(lambda torch: (repr(torch.__version__), type(torch.__version__).__name__,
                         torch.version.__version__, torch.version.cuda, torch.version.debug,
                         torch.version.hip, torch.__version__.split("+"),
                         hash(torch.__version__) == hash(str(torch.__version__)),
                         torch.torch_version.TorchVersion("1.2") < "1.10"))


@pytest.mark.parametrize("a,b", [("N/A", "2.0"), ("2.1.0a0", "2.1.0"), ("2.1.0.dev1", "2.1.0a0"),
                                 ("2.1.0", "2.1.0.post0"), ("2.1.0+abc", "2.1.0+1"),
                                 ("2.1.0+1.a", "2.1.0+1"), ("2.1.0rc2", "2.1.0c2")])
def test_version_pep440_order_as_pytorchs(a, b):
    def f(torch):
        V = torch.torch_version.TorchVersion
        return V(a) < b, V(a) <= b, V(a) == b, V(a) > b, V(b) < a, V(a) != b
    check(f)


def test_version_compares_with_packaging_versions():
    from packaging import version as packaging_version   # a dependency of pytest

    def f(torch):
        return [(torch.__version__ >= packaging_version.Version(s),
                 torch.__version__ == packaging_version.Version(s))
                for s in ("2.0", "2.13.0", "2.13.0+cpu", "3.0a1")]
    check(f)


@pytest.mark.parametrize("max_norm,norm_type", [(1.0, 2.0), (0.5, 1.0), (0.3, float("inf"))])
def test_embedding_max_norm_rows_bit_for_bit(max_norm, norm_type):
    def f(torch):
        torch.manual_seed(0)
        e = torch.nn.Embedding(5, 3, max_norm=max_norm, norm_type=norm_type)
        out = e(torch.tensor([0, 1, 1, 4]))
        return str(out.tolist()), str(e.weight.detach().tolist())
    check(f)


# ---- nn.init.trunc_normal_: PyTorch's rejection draws -------------------------------------

@pytest.mark.parametrize("n,a,b,mean,std", [(6, -2, 2, 0, 1), (20, -0.5, 0.5, 0, 1),
                                            (100, -0.5, 0.5, 0, 1), (7, -0.52, 0.52, 0, 1),
                                            (12, -2, 2, 1., 0.02), (30, -2, 2, 0., 0.5),
                                            (12, -1, 3, 1, 2)])
def test_trunc_normal_draws_pytorchs_numbers(n, a, b, mean, std):
    def f(torch):
        torch.manual_seed(0)
        w = torch.empty(n)
        torch.nn.init.trunc_normal_(w, mean=mean, std=std, a=a, b=b)
        return str(w.tolist()), torch.rand(1)
    check(f)


def test_trunc_normal_with_a_generator_and_float64():
    def f(torch):
        torch.manual_seed(0)
        w = torch.empty(3, 4, dtype=torch.float64)
        torch.nn.init.trunc_normal_(w, std=0.7)
        g = torch.Generator().manual_seed(3)
        v = torch.empty(5, 5)
        torch.nn.init.trunc_normal_(v, generator=g)
        return w, v, torch.rand(1, generator=g), torch.rand(1)
    check(f)


# ---- RNN dropout between layers on a packed sequence ----------------------------------------

@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_dropout_on_packed_sequences(mode, bidirectional):
    def f(torch):
        from_rnn = torch.nn.utils.rnn
        torch.manual_seed(0)
        x = torch.randn(3, 4, 3)
        m = getattr(torch.nn, mode)(3, 2, num_layers=3, dropout=0.5, batch_first=True,
                                    bidirectional=bidirectional)
        out, h = m(from_rnn.pack_padded_sequence(x, torch.tensor([4, 3, 2]), batch_first=True))
        h = h[0] if isinstance(h, tuple) else h
        padded = from_rnn.pad_packed_sequence(out, batch_first=True)[0]
        out2, _ = m(from_rnn.pack_padded_sequence(x, torch.tensor([2, 4, 3]), batch_first=True,
                                                  enforce_sorted=False))
        return h.detach(), padded.detach(), out2.data.detach(), torch.rand(1)
    check(f)


# ---- in-place writes: memory overlap rules, fills through expanded views, messages ----------

@pytest.mark.parametrize("expr", [
    "x[1:].copy_(x[:-1])", "x[1:].mul_(x[1:])", "x[:3].add_(x[3:])", "x.add_(x)",
    "x.view(2, 3).t().add_(x.view(3, 2))", "x[::2].add_(x[1::2])",
    "torch.add(x[1:], 1, out=x[:-1])", "x[1:].add_(x[0])", "x.add_(x.view(6))",
    "x[1:].add_(x[:-1])", "torch.zeros(1).expand(3).fill_(1)", "torch.zeros(1).expand(3).zero_()",
    "torch.zeros(1).expand(3).add_(1)", "(lambda z: (z[1:3].fill_(5), z)[1])(torch.zeros(4))",
    "(lambda w: (w.expand(3, 4).fill_(2.5), w)[1])(torch.zeros(3, 1))",
    "torch.tensor([1, 5, 9]).clamp_(2.5, 7.5)", "torch.tensor([1, 5, 9]).clamp_min_(2.5)",
    "torch.tensor([1, 5, 9]).add_(2.5)", "torch.tensor([1, 5, 9]).clamp_(torch.tensor(2.5))",
])
def test_inplace_overlap_and_cast_rules(expr):
    check(lambda torch: eval(expr, {"torch": torch, "x": torch.arange(6.)}))


# ---- warnings PyTorch gives at the user's line ----------------------------------------------

@pytest.mark.parametrize("expr", [
    "x[[0, slice(None)]]", "x[[[0, 1]]]", "x[[None, 0]]", "x[[torch.tensor(1)]]",
    "x[[Ellipsis, 0]]", "x[[slice(None), None]]", "x[[[0], None]]",
    "x.__setitem__([[0, 1], [1, 2]], 5)",
    "torch.arange(3.)[torch.tensor([1, 0, 1], dtype=torch.uint8)]",
])
def test_indexing_and_copy_warnings(expr):
    check(lambda torch: _recorded(lambda: eval(expr, {"torch": torch,
                                                      "x": torch.arange(12.).view(3, 4)})))


# ---- cross_entropy / nll_loss when every target is ignored: NaN loss, zero gradients --------

@pytest.mark.parametrize("kw", [{}, {"label_smoothing": 0.1},
                                {"weight": [1., 2., 0., 1.]},
                                {"weight": [1., 2., 0., 1.], "label_smoothing": 0.2}],
                         ids=["plain", "smoothing", "weight", "weight+smoothing"])
@pytest.mark.parametrize("target", [[2, 2, 2], [2, 1, 2], [0, 1, 3]])
def test_cross_entropy_ignored_targets_gradients(kw, target):
    def f(torch):
        torch.manual_seed(0)
        x = torch.randn(3, 4, requires_grad=True)
        args = dict(kw, weight=torch.tensor(kw["weight"])) if "weight" in kw else kw
        loss = torch.nn.functional.cross_entropy(x, torch.tensor(target), ignore_index=2, **args)
        loss.backward()
        return repr(loss), repr(x.grad)
    check(f)


def test_nll_loss_all_ignored_and_spatial():
    def f(torch):
        F = torch.nn.functional
        torch.manual_seed(0)
        x = torch.randn(3, 4, requires_grad=True)
        loss = F.nll_loss(F.log_softmax(x, 1), torch.tensor([2, 2, 2]), ignore_index=2)
        loss.backward()
        y = torch.randn(2, 4, 3, requires_grad=True)
        l2 = F.cross_entropy(y, torch.full((2, 3), -100))
        l2.backward()
        return repr(loss), repr(x.grad), repr(l2), repr(y.grad)
    check(f)


_ONCE_SCRIPT = """
import warnings
import torch
warnings.simplefilter("always")
z = torch.tensor([1 + 2j])
print(z.float()); print(z.float()); print(z.to(torch.float64))
print(torch.ones(1).copy_(z)); print(torch.ones(1).copy_(z))
"""


_SLOW_LIST_SCRIPT = """
import warnings
import numpy as np
import torch
warnings.simplefilter("always")
print(torch.tensor([[1, 2], np.arange(2)]))
print(torch.tensor([np.arange(3), np.arange(3, 6)]), torch.as_tensor((np.arange(2), np.arange(2))))
"""


@pytest.mark.parametrize("code,message", [(_ONCE_SCRIPT, "Casting complex values"),
                                          (_SLOW_LIST_SCRIPT, "list of numpy.ndarrays")],
                         ids=["complex-to-real", "list-of-ndarrays"])
def test_warnings_once_per_process(tmp_path, code, message):
    """PyTorch warns on the first complex-to-real copy of a process (`.float()`, `.to`,
    `copy_`) and on the first tensor made from a list of ndarrays, at the user's line, and
    never again."""
    _, err = same_script_output(code, tmp_path)
    assert err.count(message) == 1


# ---- float16/bfloat16 ops compute in float32 and round once (PyTorch's opmath) --------------

@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("expr", [
    "a.sum()", "a.mean()", "a.cumsum(0)[-5:]", "h.softmax(-1)", "h.sum(1)", "h.var(1)",
    "h.std(1)", "F.linear(x, w, b)", "torch.addmm(b, x, w.T)", "F.layer_norm(h, (16,))",
    "F.gelu(h)", "torch.sigmoid(h)", "torch.tanh(h)", "F.silu(h)", "h.exp()", "h.mean(1)",
    "h.sum(1, dtype=torch.float32)", "h.softmax(-1, dtype=torch.float32)",
    "torch.nan_to_num(torch.tensor([float('inf'), float('nan')], dtype=h.dtype))",
    "torch.nextafter(h[0, :3], torch.ones(3, dtype=h.dtype))", "h * 3.3", "h + h.flip(0)",
])
def test_reduced_float_ops_round_once(dtype, expr):
    def f(torch):
        d = getattr(torch, dtype)
        torch.manual_seed(0)
        env = {"torch": torch, "F": torch.nn.functional, "a": torch.randn(1000).to(d),
               "x": torch.randn(5, 16).to(d), "w": torch.randn(8, 16).to(d),
               "b": torch.randn(8).to(d), "h": torch.randn(4, 16).to(d)}
        return eval(expr, env)
    same_repr(f)


def test_bfloat16_autocast_training_step():
    def f(torch):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(),
                                    torch.nn.LayerNorm(16), torch.nn.Linear(16, 3))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(4, 8), torch.tensor([0, 2, 1, 0])
        losses = []
        for _ in range(3):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model(x)
                loss = torch.nn.functional.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(repr(out[0]))
        return losses
    check(f)


# ---- nn.utils.weight_norm / remove_weight_norm (the hook form) ------------------------------

@pytest.mark.parametrize("make,kw", [("nn.Linear(3, 4)", {}), ("nn.Linear(3, 4)", {"dim": None}),
                                     ("nn.Conv2d(2, 3, 3)", {"dim": 1}),
                                     ("nn.Conv2d(2, 3, 3)", {"dim": -1}),
                                     ("nn.Conv1d(2, 3, 3)", {"dim": 2}),
                                     ("nn.Linear(3, 4)", {"name": "bias"})])
def test_weight_norm(make, kw):
    def f(torch):
        import warnings
        nn = torch.nn
        torch.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = nn.utils.weight_norm(eval(make, {"nn": nn}), **kw)
        name = kw.get("name", "weight")
        x = torch.randn(2, *( (3,) if "Linear" in make else (2, 5, 5) if "2d" in make else (2, 6)))
        y = m(x)
        y.sum().backward()
        g, v = getattr(m, name + "_g"), getattr(m, name + "_v")
        out = (repr(m), [n for n, _ in m.named_parameters()], list(m.state_dict()), g, g.grad,
               v.grad, getattr(m, name).grad_fn.name(), y)
        torch.optim.SGD(m.parameters(), lr=0.1).step()
        y2 = m(x)
        nn.utils.remove_weight_norm(m, name)
        return out + (y2, [n for n, _ in m.named_parameters()], getattr(m, name),
                      len(m._forward_pre_hooks))
    check(f, rtol=1e-5, atol=1e-6)


def test_weight_norm_errors_and_warning():
    def f(torch):
        import warnings
        nn = torch.nn
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = nn.utils.weight_norm(nn.Linear(2, 2))
        errors = []
        for call in (lambda: nn.utils.weight_norm(m), lambda: nn.utils.remove_weight_norm(
                nn.Linear(2, 2)), lambda: nn.utils.remove_weight_norm(m, "bias")):
            try:
                call()
            except (RuntimeError, ValueError) as e:
                errors.append((type(e).__name__, str(e)))
        return [(x.category.__name__, str(x.message)) for x in w], errors
    check(f)


# ---- nn.utils.parametrize / parametrizations.weight_norm -------------------------------------

_PARAMETRIZE = """
import copy
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
torch.manual_seed(0)
m = nn.utils.parametrizations.weight_norm(nn.Linear(3, 4))
print(m); print(m.parametrizations, m.parametrizations.weight.original0.shape)
print(type(m.parametrizations.weight).__name__, P.is_parametrized(m), P.is_parametrized(m, 'bias'))
print(isinstance(m, nn.Linear), type(m).__name__, type(m).__mro__[1].__name__)
print(m.weight.grad_fn.name(), list(m.state_dict()), [n for n, _ in m.named_parameters()])
x = torch.randn(2, 3); m(x).sum().backward()
print(m.parametrizations.weight.original0.grad.flatten(), m.parametrizations.weight.original1.grad)
print([n for n, _ in m.named_modules()])
class Sym(nn.Module):
    def forward(self, X): return X.triu() + X.triu(1).transpose(-1, -2)
l = nn.Linear(3, 3); P.register_parametrization(l, 'weight', Sym()); print(l)
print(list(l.state_dict()), torch.equal(l.weight, l.weight.T))
P.register_parametrization(l, 'weight', Sym()); print(l.parametrizations.weight)
with P.cached(): print(l.weight is l.weight)
print(l.weight is l.weight)
P.remove_parametrizations(l, 'weight'); print(type(l).__name__, list(l.state_dict()), type(l.weight).__name__)
m2 = nn.utils.parametrizations.weight_norm(nn.Conv1d(2, 3, 3), dim=None); print(m2.parametrizations.weight.original0)
try: P.remove_parametrizations(m, 'weight', leave_parametrized=False)
except ValueError as e: print("ValueError", e)
P.remove_parametrizations(m, 'weight'); print(type(m).__name__, m.weight.shape, list(m.state_dict()))
o = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2)); opt = torch.optim.Adam(o.parameters(), lr=0.1)
for _ in range(3):
    loss = o(x).pow(2).sum(); opt.zero_grad(); loss.backward(); opt.step()
print(o.weight)
n2 = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2)); n2.load_state_dict(o.state_dict())
print(torch.allclose(n2.weight, o.weight), type(copy.deepcopy(o)).__name__)
"""


def test_parametrize_and_weight_norm_script(tmp_path):
    """A script using parametrizations (weight_norm, a custom one, caching, removal, training,
    state_dict, deepcopy) prints the same under both libraries."""
    same_script_output(_PARAMETRIZE, tmp_path)


def test_reversed_flips_the_first_dim():
    check(lambda torch: (reversed(torch.arange(3)), reversed(torch.tensor(5)),
                         reversed(torch.arange(6).view(2, 3)),
                         type(reversed(torch.arange(3.).requires_grad_()).grad_fn).__name__))
