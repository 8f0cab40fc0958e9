"""torch.nn.utils.prune against real PyTorch: the reparametrization (`name_orig` parameter,
`name_mask` buffer, pre-hook recomputing `name`), every method and functional form, iterative
pruning through PruningContainer, `remove`, global pruning, importance scores, gradients, random
streams, validation errors, and copies / state dicts of pruned modules."""
import copy
import importlib
import pickle
import re

import numpy as np

from harness import check

importlib.import_module("torch.nn.utils.prune")  # PyTorch's `torch.nn.utils` does not import it


def rnd(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def filled(torch, module, seed=0):
    """`module` with every parameter set from a seeded (tie-free) NumPy draw."""
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.tensor(rnd(*p.shape, seed=seed + i)))
    return module


def linear(torch, i=5, o=4, seed=0):
    return filled(torch, torch.nn.Linear(i, o), seed)


def conv(torch, seed=0):
    return filled(torch, torch.nn.Conv2d(3, 4, 2), seed)


def state(torch, m, name="weight"):
    """What pruning changes on a module: its parameters, buffers, state-dict keys, pre-hooks,
    the pruned attribute (type and value) and `is_pruned`."""
    hooks = [(type(h).__name__, [type(x).__name__ for x in h] if hasattr(h, "__iter__") else None)
             for h in m._forward_pre_hooks.values()]
    value = getattr(m, name)
    return {"params": [(n, p.clone()) for n, p in m.named_parameters()],
            "buffers": [(n, b.clone()) for n, b in m.named_buffers()],
            "state_dict": list(m.state_dict()), "hooks": hooks,
            "attr": (type(value).__name__, value.detach().clone()),
            "in_dict": name in m.__dict__, "pruned": torch.nn.utils.prune.is_pruned(m)}


def failure(fn, *args, **kwargs):
    """The exception `fn` raises as (type, message), object addresses and module paths
    normalised (messages naming a container or a class print them)."""
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - compared across libraries
        msg = re.sub(r" object at 0x[0-9a-f]+", "", str(e)).replace("torchlike.", "torch.")
        return type(e).__name__, msg
    return None


# ---- the reparametrization ----------------------------------------------------------------------

def test_l1_unstructured_reparametrizes():
    def f(torch, amount):
        prune = torch.nn.utils.prune
        m = linear(torch)
        x = torch.tensor(rnd(2, 5, seed=9))
        before = state(torch, m)
        out = prune.l1_unstructured(m, "weight", amount=amount)
        return [before, state(torch, m), out is m, m(x), m.weight_mask.dtype,
                m.weight_orig is not m.weight, m.weight.grad_fn is not None]
    for amount in (0, 7, 0.35, 1.0):
        check(f, amount)


def test_hook_recomputes_and_gradients():
    def f(torch):
        prune = torch.nn.utils.prune
        m = prune.l1_unstructured(linear(torch), "weight", amount=9)
        with torch.no_grad():
            m.weight_orig.mul_(2)
        stale = m.weight.clone()
        x = torch.tensor(rnd(3, 5, seed=4))
        y = m(x)
        y.pow(2).sum().backward()
        hook = next(iter(m._forward_pre_hooks.values()))
        return [stale, m.weight, y, m.weight_orig.grad, m.bias.grad, m.weight_mask.grad,
                m.weight_mask.requires_grad, hook._tensor_name, hook.amount,
                type(hook).__name__, hook.PRUNING_TYPE]
    check(f)


def test_iterative_pruning_container():
    def f(torch):
        prune = torch.nn.utils.prune
        m = conv(torch)
        m.register_forward_pre_hook(lambda mod, args: None)  # the container is re-added last
        out = []
        prune.l1_unstructured(m, "weight", amount=10)
        out.append(state(torch, m))
        prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
        out.append(state(torch, m))
        prune.l1_unstructured(m, "weight", amount=0.25)
        prune.ln_structured(m, "weight", amount=0.5, n=1, dim=-1)
        prune.identity(m, "weight")
        prune.custom_from_mask(m, "weight", torch.tensor(rnd(4, 3, 2, 2, seed=3) > -1))
        out.append(state(torch, m))
        container = next(iter(m._forward_pre_hooks.values()))
        out += [len(container), [type(x).__name__ for x in container],
                type(container[0]).__name__, container._tensor_name,
                [x._tensor_name for x in container], int(m.weight_mask.sum())]
        prune.l1_unstructured(m, "bias", amount=2)
        out.append([type(h).__name__ for h in m._forward_pre_hooks.values()])
        m(torch.tensor(rnd(1, 3, 4, 4, seed=5))).sum().backward()
        out += [m.weight_orig.grad, m.bias_orig.grad]
        return out
    check(f)


def test_remove_makes_pruning_permanent():
    def f(torch):
        prune = torch.nn.utils.prune
        torch.manual_seed(1)
        m = linear(torch)
        prune.random_unstructured(m, "bias", amount=1)
        prune.l1_unstructured(m, "weight", amount=5)
        prune.l1_unstructured(m, "weight", amount=5)
        orig = m.weight_orig
        out = [prune.remove(m, "weight") is m, state(torch, m), m.weight is orig,
               m.weight.requires_grad, m.weight.is_leaf]
        out.append(failure(prune.remove, m, "weight"))
        prune.remove(m, "bias")
        out += [state(torch, m, "bias"), list(m._forward_pre_hooks)]
        out.append(failure(prune.remove, torch.nn.Linear(2, 2), "bias"))
        return out
    check(f)


def test_method_remove_and_apply_mask_directly():
    def f(torch):
        prune = torch.nn.utils.prune
        m = linear(torch)
        method = prune.L1Unstructured.apply(m, "weight", amount=4)
        out = [type(method).__name__, method.apply_mask(m), method(m, None)]
        method.remove(m)
        out += [state(torch, m), len(m._forward_pre_hooks)]  # the hook itself stays
        fresh = prune.L1Unstructured(0.5)
        out.append(failure(fresh.apply_mask, m))
        fresh._tensor_name = None
        out += [failure(fresh.apply_mask, m), failure(fresh.remove, m)]
        return out
    check(f)


# ---- each method --------------------------------------------------------------------------------

def test_ln_structured_norms_and_dims():
    def f(torch, n, dim, amount):
        prune = torch.nn.utils.prune
        m = prune.ln_structured(conv(torch, seed=2), "weight", amount=amount, n=n, dim=dim)
        return m.weight_mask, list(m.state_dict())
    for n, dim, amount in [(1, 0, 2), (2, 1, 0.34), (float("inf"), -1, 1), (float("-inf"), 2, 0),
                           (3, -4, 0.75), (0, 3, 1)]:
        check(f, n, dim, amount)

    def g(torch, n):  # 2-D weights, where "fro" and "nuc" are vector norms over one dim
        prune = torch.nn.utils.prune
        m = prune.ln_structured(linear(torch), "weight", amount=2, n=n, dim=0)
        return m.weight_mask
    for n in ("fro", "nuc"):
        check(g, n)


def test_random_methods_follow_the_seed():
    def f(torch):
        prune = torch.nn.utils.prune
        torch.manual_seed(3)
        m = conv(torch)
        prune.random_unstructured(m, "weight", amount=0.4)
        first = m.weight_mask.clone()
        prune.random_structured(m, "weight", amount=2, dim=0)
        prune.random_unstructured(m, "bias", amount=2)
        prune.random_structured(m, "weight", amount=0.5, dim=-1)
        after = torch.rand(3)  # the stream continues where PyTorch's does
        d = linear(torch).double()
        prune.random_unstructured(d, "weight", amount=5)
        prune.random_structured(d, "weight", amount=1, dim=1)
        t = torch.tensor(rnd(5, 6, seed=1))
        direct = [prune.RandomUnstructured(amount=7).prune(t),
                  prune.RandomStructured(amount=3, dim=1).prune(t),
                  prune.RandomStructured(amount=0, dim=1).compute_mask(t, torch.ones(5, 6))]
        return [first, m.weight_mask, m.bias_mask, after, d.weight_mask, direct, torch.rand(2)]
    check(f)


def test_identity_and_custom_from_mask():
    def f(torch):
        prune = torch.nn.utils.prune
        m = prune.identity(linear(torch), "bias")
        out = [state(torch, m, "bias")]
        prune.custom_from_mask(m, "weight", mask=torch.tensor(rnd(4, 5, seed=7) > 0))
        prune.custom_from_mask(m, "bias", torch.tensor([0., 1., 1., 0.]))
        out += [state(torch, m), m.bias, m.bias_mask]
        int_mask = torch.tensor([1, 0, 1, 1])
        out.append(prune.CustomFromMask(int_mask).compute_mask(None, torch.ones(4)))
        out.append(failure(prune.custom_from_mask, linear(torch), "bias", torch.ones(3)))
        return out
    check(f)


def test_importance_scores():
    def f(torch):
        prune = torch.nn.utils.prune
        scores = torch.tensor(rnd(4, 5, seed=11))
        m = prune.l1_unstructured(linear(torch), "weight", amount=6, importance_scores=scores)
        c = conv(torch)
        prune.ln_structured(c, "weight", amount=2, n=2, dim=0,
                            importance_scores=torch.tensor(rnd(4, 3, 2, 2, seed=12)))
        prune.ln_structured(c, "weight", amount=1, n=1, dim=1,
                            importance_scores=torch.tensor(rnd(4, 3, 2, 2, seed=13)))
        t = torch.tensor(rnd(3, 4, seed=14))
        method = prune.L1Unstructured(amount=5)
        return [m.weight_mask, c.weight_mask,
                method.prune(t, importance_scores=torch.tensor(rnd(3, 4, seed=15))),
                method.prune(t, default_mask=(t > -0.5).float()),
                failure(prune.l1_unstructured, linear(torch), "weight", 2,
                        importance_scores=torch.ones(5, 4)),
                failure(method.prune, t, importance_scores=torch.ones(4))]
    check(f)


def test_global_unstructured():
    def f(torch, method, kwargs):
        prune = torch.nn.utils.prune
        torch.manual_seed(0)
        net = torch.nn.Sequential(linear(torch, 5, 4, seed=0), torch.nn.ReLU(),
                                  linear(torch, 4, 3, seed=5))
        prune.l1_unstructured(net[2], "weight", amount=3)
        params = [(net[0], "weight"), (net[0], "bias"), (net[2], "weight")]
        kwargs = dict(kwargs)
        if kwargs.pop("scores", False):
            kwargs["importance_scores"] = {(net[2], "weight"): torch.tensor(rnd(3, 4, seed=20))}
        out = prune.global_unstructured(params, getattr(prune, method), **kwargs)
        hooks = [[type(h).__name__ for h in mod._forward_pre_hooks.values()] for mod in net]
        return [out, net[0].weight_mask, net[0].bias_mask, net[2].weight_mask, hooks,
                list(net.state_dict()), net(torch.tensor(rnd(2, 5, seed=21))), torch.rand(2)]
    for method, kwargs in [("L1Unstructured", {"amount": 10}),
                           ("L1Unstructured", {"amount": 0.5, "scores": True}),
                           ("RandomUnstructured", {"amount": 0.3})]:
        check(f, method, kwargs)


def test_global_unstructured_errors():
    def f(torch):
        prune = torch.nn.utils.prune
        m = linear(torch)
        g = prune.global_unstructured
        return [failure(g, 3, prune.L1Unstructured, amount=1),
                failure(g, [(m, "weight")], prune.L1Unstructured, importance_scores=[1],
                        amount=1),
                failure(g, [(m, "weight")], prune.LnStructured, amount=1, n=2),
                failure(g, [(m, "weight")], prune.L1Unstructured),
                failure(g, [(m, "weight")], prune.L1Unstructured, amount=40),
                failure(g, ((m, n) for n in ["weight"]), prune.L1Unstructured, amount=1),
                state(torch, m)]
    check(f)


# ---- validation and failure paths ---------------------------------------------------------------

def test_amount_validation():
    def f(torch, amount):
        prune = torch.nn.utils.prune
        m = linear(torch)
        res = failure(prune.l1_unstructured, m, "bias", amount=amount)
        return [res, state(torch, m, "bias"), failure(prune.RandomStructured, amount)]
    for amount in (-1, 1.5, -0.1, "0.3", None, float("nan"), 5, 0.5, 0.125, 0.375):
        check(f, amount)


def test_structured_errors():
    def f(torch):
        prune = torch.nn.utils.prune
        out = []
        for fn, args in [(prune.ln_structured, ("bias", 1, 2, 0)),
                         (prune.random_structured, ("bias", 1, 0)),
                         (prune.ln_structured, ("weight", 1, 2, 2)),
                         (prune.random_structured, ("weight", 1, -3)),
                         (prune.ln_structured, ("weight", 5, 2, 0)),
                         (prune.ln_structured, ("weight", 1, "nuc", 0))]:
            m = linear(torch)
            out.append([failure(fn, m, *args), [n for n, _ in m.named_parameters()]])
        m = prune.l1_unstructured(linear(torch), "bias", amount=1)
        prune.ln_structured(m, "bias", amount=1, n=1, dim=0)  # 1-D, through a container
        out.append(state(torch, m, "bias"))
        return out
    check(f)


def test_failed_pruning_restores_the_parameter():
    def f(torch):
        prune = torch.nn.utils.prune
        m = linear(torch)
        out = [failure(prune.l1_unstructured, m, "weight", amount=30), state(torch, m)]
        bn = torch.nn.BatchNorm1d(3)
        out += [failure(prune.l1_unstructured, bn, "running_mean", amount=1),
                failure(prune.identity, m, "missing"), state(torch, m)]
        m.register_buffer("weight_mask", torch.ones(1))  # name clash: register_buffer fails
        out += [failure(prune.identity, m, "weight"), state(torch, m)]
        p = prune.l1_unstructured(linear(torch), "weight", amount=2)
        out += [failure(prune.l1_unstructured, p, "weight", amount=-2), state(torch, p)]
        q = prune.l1_unstructured(linear(torch), "weight", amount=2)
        out += [failure(prune.l1_unstructured, q, "weight", amount=19), state(torch, q)]
        return out
    check(f)


def test_pruning_container():
    def f(torch):
        prune = torch.nn.utils.prune
        a, b = prune.L1Unstructured(2), prune.LnStructured(1, 2, dim=0)
        a._tensor_name, b._tensor_name = "weight", "bias"
        c = prune.PruningContainer(a)
        out = [len(c), c[0] is a, list(c) == [a], c._tensor_name,
               failure(c.add_pruning_method, 3), failure(c.add_pruning_method, b),
               failure(prune.PruningContainer, a, b), len(prune.PruningContainer()),
               failure(prune.PruningContainer().compute_mask, torch.ones(2), torch.ones(2)),
               failure(prune.BasePruningMethod)]
        c.add_pruning_method(None)
        out.append(len(c))

        class Odd(prune.BasePruningMethod):
            PRUNING_TYPE = "odd"

            def compute_mask(self, t, default_mask):
                return default_mask

        class NoDim(Odd):
            PRUNING_TYPE = "structured"

        t = torch.tensor(rnd(3, 4, seed=2))
        for cls in (Odd, NoDim):
            x = cls()
            x._tensor_name = "weight"
            d = prune.PruningContainer(a)
            d.add_pruning_method(x)
            out.append(failure(d.compute_mask, t, torch.ones(3, 4)))
        far = prune.LnStructured(1, 2, dim=-5)
        far._tensor_name = "weight"
        d = prune.PruningContainer(a)
        d.add_pruning_method(far)
        out.append(failure(d.compute_mask, t, torch.ones(3, 4)))
        d = prune.PruningContainer(a)
        out.append(failure(d.add_pruning_method, b))  # refused: keeps `a` only
        mask = torch.ones(3, 4)
        out += [len(d), d.compute_mask(t, mask), mask]  # a same-dtype mask is updated in place
        return out
    check(f)


def test_custom_method_and_multiple_hooks():
    def f(torch):
        prune = torch.nn.utils.prune

        class FirstRow(prune.BasePruningMethod):
            PRUNING_TYPE = "structured"
            dim = 0

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask[0] = 0
                return mask

        m = linear(torch)
        method = FirstRow.apply(m, "weight")
        FirstRow.apply(m, "weight")
        out = [type(method).__name__, state(torch, m)]
        m.register_forward_pre_hook(copy.deepcopy(next(iter(m._forward_pre_hooks.values()))))
        out += [failure(prune.l1_unstructured, m, "weight", amount=1), state(torch, m)]
        return out
    check(f)


def test_is_pruned_nested():
    def f(torch):
        prune = torch.nn.utils.prune
        net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Sequential(torch.nn.Linear(2, 2)))
        out = [prune.is_pruned(net)]
        prune.identity(net[1][0], "bias")
        out += [prune.is_pruned(net), prune.is_pruned(net[0]), prune.is_pruned(net[1])]
        prune.remove(net[1][0], "bias")
        out.append(prune.is_pruned(net))
        return out
    check(f)


def test_ties_where_the_choice_does_not_matter():
    """Ties at the cut: PyTorch's CPU topk picks among tied entries in an unspecified order and
    torchlike in index order, so only tie-independent results are compared: how many entries go,
    and pruned values when all the tied entries are zero."""
    def f(torch):
        prune = torch.nn.utils.prune
        m = torch.nn.Linear(4, 3)
        with torch.no_grad():
            m.weight.copy_(torch.tensor([[0., 1., 0., 2.], [0., -3., 0., 0.], [4., 0., 5., 6.]]))
        prune.l1_unstructured(m, "weight", amount=4)
        ones = prune.L1Unstructured(5).compute_mask(torch.ones(20), torch.ones(20))
        return [m.weight, int(m.weight_mask.sum()), int(ones.sum())]
    check(f)


# ---- copies and state dicts ---------------------------------------------------------------------

def test_deepcopy_pickle_and_state_dict():
    def f(torch):
        prune = torch.nn.utils.prune
        m = conv(torch)
        with torch.no_grad():  # `weight` a graph leaf, which deepcopy needs
            prune.l1_unstructured(m, "weight", amount=12)
            prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
        x = torch.tensor(rnd(1, 3, 4, 4, seed=8))
        twin = copy.deepcopy(m)
        m(x)  # `weight` now computed with grad: pickling still works
        loaded = pickle.loads(pickle.dumps(m))
        sd = m.state_dict()
        other = prune.identity(conv(torch, seed=30), "weight")
        result = other.load_state_dict(sd)
        out = [state(torch, twin), twin(x), loaded(x), state(torch, loaded), list(sd), str(result),
               other(x), state(torch, other),
               [len(h) for h in twin._forward_pre_hooks.values()]]
        with torch.no_grad():
            twin.weight_orig.zero_()
        out += [m(x), twin(x)]
        prune.remove(twin, "weight")
        out.append(list(twin.state_dict()))
        plain = conv(torch, seed=40)
        out.append(str(plain.load_state_dict(sd, strict=False)))
        return out
    check(f)
