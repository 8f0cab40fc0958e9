"""torch.func with modules, compared with real PyTorch: functional_call (dicts, tuples of dicts,
tied weights, strict, buffers updated in place), stack_module_state, and the two recipes of
PyTorch's tutorials: per-sample gradients (vmap(grad(functional_call))) and model ensembling."""
import copy

import numpy as np
import pytest

from harness import check

RNG = np.random.default_rng(2)
X = RNG.standard_normal((4, 3)).astype(np.float32)
IMG = RNG.standard_normal((4, 1, 5, 5)).astype(np.float32)
PROBS = RNG.dirichlet(np.ones(2), size=4).astype(np.float32)


def t(torch, a):
    return torch.tensor(a.copy())


def _seeded(torch, module, seed):
    """Give `module` the same weights under both libraries (drawn with NumPy)."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for _, p in module.named_parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
    return module


def mlp(torch, seed=0):
    nn = torch.nn
    return _seeded(torch, nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2)), seed)


def cnn(torch, seed=0):
    nn = torch.nn
    return _seeded(torch, nn.Sequential(nn.Conv2d(1, 2, 3), nn.Tanh(), nn.Flatten(),
                                        nn.Linear(18, 2)), seed)


def bn_net(torch, seed=0):
    nn = torch.nn
    return _seeded(torch, nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2)), seed)


class Tied:
    """A module whose two layers share one weight (built for either library)."""

    @staticmethod
    def make(torch):
        class TiedNet(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = torch.nn.Linear(3, 3, bias=False)
                self.b = torch.nn.Linear(3, 3, bias=False)
                self.b.weight = self.a.weight

            def forward(self, x):
                return self.a(x) + self.b(x).relu()
        return _seeded(torch, TiedNet(), 5)


def _fc(torch, params, *args, **kw):
    return torch.func.functional_call(mlp(torch), params, *args, **kw)


def _zeros_like_params(torch, m):
    return {k: torch.zeros_like(v) + 0.1 for k, v in m.named_parameters()}


def _bn_state(torch):
    m = bn_net(torch)
    state = {k: v.clone() for k, v in m.state_dict().items()}
    out = torch.func.functional_call(m, state, (t(torch, X),))
    return out, state, m.state_dict()


def _reassigning(torch):
    class Counter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("n", torch.zeros(()))

        def forward(self, x):
            self.n = self.n + 1
            return x * self.n
    m = Counter()
    given = {"n": torch.tensor(5.0)}
    out = torch.func.functional_call(m, given, t(torch, X))
    return out, given, m.n


FC_CASES = {
    "dict": lambda torch: _fc(torch, _zeros_like_params(torch, mlp(torch)), (t(torch, X),)),
    "tensor_args": lambda torch: _fc(torch, _zeros_like_params(torch, mlp(torch)), t(torch, X)),
    "partial_dict": lambda torch: _fc(torch, {"2.bias": torch.ones(2)}, t(torch, X)),
    "tuple_of_dicts": lambda torch: _fc(torch, ({"0.weight": torch.ones(5, 3)},
                                                {"2.bias": torch.ones(2)}), t(torch, X)),
    "kwargs": lambda torch: torch.func.functional_call(torch.nn.Softmax(0), {}, (),
                                                       {"input": t(torch, X)}),
    "module_unchanged": lambda torch: (lambda m: (torch.func.functional_call(
        m, _zeros_like_params(torch, m), t(torch, X)), m(t(torch, X))))(mlp(torch)),
    "grad_wrt_params": lambda torch: (lambda m: torch.func.grad(
        lambda p: torch.func.functional_call(m, p, t(torch, X)).pow(2).sum())(
            {k: v.detach() for k, v in m.named_parameters()}))(mlp(torch)),
    "batchnorm_buffers": _bn_state,
    "buffer_reassigned": _reassigning,
    "tied": lambda torch: torch.func.functional_call(Tied.make(torch), {"a.weight": torch.eye(3)},
                                                     t(torch, X)),
    "tied_false": lambda torch: torch.func.functional_call(
        Tied.make(torch), {"a.weight": torch.eye(3)}, t(torch, X), tie_weights=False),
    "tied_same_tensor": lambda torch: (lambda w: torch.func.functional_call(
        Tied.make(torch), {"a.weight": w, "b.weight": w}, t(torch, X)))(torch.eye(3)),
    "tied_conflict": lambda torch: torch.func.functional_call(
        Tied.make(torch), {"a.weight": torch.eye(3), "b.weight": torch.eye(3)}, t(torch, X)),
    "unexpected_key": lambda torch: _fc(torch, {"foo": torch.ones(1)}, t(torch, X)),
    "strict_unexpected": lambda torch: _fc(torch, {"foo": torch.ones(1)}, t(torch, X),
                                           strict=True),
    "strict_missing": lambda torch: _fc(torch, {"0.weight": torch.ones(5, 3)}, t(torch, X),
                                        strict=True),
    "repeated_keys": lambda torch: _fc(torch, ({"2.bias": torch.ones(2)},
                                               {"2.bias": torch.ones(2)}), t(torch, X)),
    "bad_dicts": lambda torch: _fc(torch, 3, t(torch, X)),
    "bad_dict_elements": lambda torch: _fc(torch, ({}, 3), t(torch, X)),
}


@pytest.mark.parametrize("case", list(FC_CASES))
def test_functional_call(case):
    check(FC_CASES[case])


def _per_sample_grads(torch, make, data, target):
    F = torch.func
    model = make(torch)
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        predictions = F.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(predictions, target.unsqueeze(0))

    grads = F.vmap(F.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data,
                                                                      target)
    # the same gradients, one sample at a time with ordinary autograd
    loop = []
    for x, y in zip(data, target):
        model.zero_grad()
        torch.nn.functional.cross_entropy(model(x.unsqueeze(0)), y.unsqueeze(0)).backward()
        loop.append({k: p.grad.clone() for k, p in model.named_parameters()})
    stacked = {k: torch.stack([g[k] for g in loop]) for k in grads}
    return grads, stacked


@pytest.mark.parametrize("make,data", [(mlp, X), (cnn, IMG)], ids=["mlp", "cnn"])
def test_per_sample_gradients_recipe(make, data):
    expected, actual = check(lambda torch: _per_sample_grads(torch, make, t(torch, data),
                                                             t(torch, PROBS)), atol=1e-5)
    grads, loop = actual
    for k in grads:  # within torchlike too, vmap(grad) equals the per-sample backward loop
        np.testing.assert_allclose(grads[k].numpy(), loop[k].numpy(), rtol=1e-5, atol=1e-6)


def _ensemble(torch, same_minibatch, make=mlp):
    F = torch.func
    models = [make(torch, seed) for seed in range(3)]
    for m in models:
        m.eval()
    params, buffers = F.stack_module_state(models)
    base = copy.deepcopy(models[0])

    def fmodel(params, buffers, x):
        return F.functional_call(base, (params, buffers), (x,))
    if same_minibatch:
        out = F.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, t(torch, X))
    else:
        xs = t(torch, X).expand(3, 4, 3) * torch.arange(1., 4.).view(3, 1, 1)
        out = F.vmap(fmodel)(params, buffers, xs)
    loop = torch.stack([m(t(torch, X)) for m in models]) if same_minibatch else None
    return out, loop, {k: (v.shape, v.requires_grad, v.is_leaf) for k, v in params.items()}


@pytest.mark.parametrize("same", [True, False], ids=["same_minibatch", "own_minibatch"])
def test_ensembling_recipe(same):
    check(lambda torch: _ensemble(torch, same))


def test_ensembling_with_buffers():
    check(lambda torch: _ensemble(torch, True, bn_net))


STACK_CASES = {
    "buffers": lambda torch: torch.func.stack_module_state(
        [torch.nn.BatchNorm1d(3) for _ in range(2)]),
    "empty": lambda torch: torch.func.stack_module_state([]),
    "mixed_modes": lambda torch: torch.func.stack_module_state(
        [mlp(torch), mlp(torch).eval()]),
    "mixed_classes": lambda torch: torch.func.stack_module_state(
        [torch.nn.Linear(3, 2), torch.nn.ReLU()]),
    "mixed_requires_grad": lambda torch: torch.func.stack_module_state(
        [mlp(torch), mlp(torch).requires_grad_(False)]),
}


@pytest.mark.parametrize("case", list(STACK_CASES))
def test_stack_module_state(case):
    check(STACK_CASES[case])


def _no_running_stats(torch):
    m = torch.func.replace_all_batch_norm_modules_(bn_net(torch))
    bn = m[1]
    out = torch.func.vmap(m, in_dims=1)(t(torch, X).expand(2, 4, 3).transpose(0, 1) * 1)
    return (bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.track_running_stats,
            out)


def test_replace_all_batch_norm_modules():
    check(_no_running_stats)


def _train_ensemble_step(torch):
    F = torch.func
    models = [mlp(torch, seed) for seed in range(3)]
    params, buffers = F.stack_module_state(models)
    base = copy.deepcopy(models[0])
    out = F.vmap(lambda p, b, x: F.functional_call(base, (p, b), (x,)),
                 in_dims=(0, 0, None))(params, buffers, t(torch, X))
    torch.nn.functional.cross_entropy(out.reshape(-1, 2), t(torch, PROBS).repeat(3, 1)).backward()
    return out.detach(), {k: v.grad for k, v in params.items()}


def test_training_an_ensemble_through_vmap():
    check(_train_ensemble_step)
