"""nn.Module, nn.Parameter and the containers against real PyTorch: registration rules and their
errors, traversal, state dicts, hooks (forward and full backward), dtype moves, reprs, copying
and pickling — with small custom modules, as the seeds write them."""
import copy
import pickle
import warnings
from collections import OrderedDict

import numpy as np

from harness import check, same_repr
from nn_harness import check_module

W = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)


def make_classes(torch):
    nn = torch.nn

    class Affine(nn.Module):
        def __init__(self, i=3, o=2, bias=True):
            super().__init__()
            self.weight = nn.Parameter(torch.tensor(np.arange(o * i, dtype=np.float32)
                                                    .reshape(o, i) / 10))
            if bias:
                self.bias = nn.Parameter(torch.zeros(o))
            else:
                self.register_parameter("bias", None)
            self.register_buffer("count", torch.zeros((), dtype=torch.int64))
            self.register_buffer("scratch", torch.ones(o), persistent=False)
            self.i, self.o = i, o

        def forward(self, x):
            y = x @ self.weight.t()
            if self.bias is not None:
                y = y + self.bias
            return y

        def extra_repr(self):
            return f"in={self.i}, out={self.o}, bias={self.bias is not None}"

    class Act(nn.Module):
        def forward(self, x):
            return x.clamp(min=0)

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.fc1 = Affine(3, 4)
            self.act = Act()
            self.block = nn.Sequential(Affine(4, 4), Act(), nn.Sequential(Act(), Act()))
            self.fc2 = Affine(4, 2, bias=False)

        def forward(self, x):
            return self.fc2(self.block(self.act(self.fc1(x))))

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Affine(3, 3)
            self.b = Affine(3, 3)
            self.b.weight = self.a.weight
            self.c = self.a

        def forward(self, x):
            return self.c(self.b(self.a(x)))

    return Affine, Act, Net, Tied


def names(it):
    return [n for n, _ in it]


# ---- registration -------------------------------------------------------------------------------

def test_setattr_registration_and_errors():
    def f(torch):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        out = [list(m._parameters), list(m._buffers), list(m._modules)]
        m.extra = torch.nn.Parameter(torch.ones(1))
        m.sub = Affine()
        m.plain = torch.ones(2)  # a plain tensor attribute, not a buffer
        m.count = torch.ones((), dtype=torch.int64)  # stays a buffer
        out += [list(m._parameters), list(m._buffers), list(m._modules), "plain" in m.__dict__]
        del m.extra, m.sub, m.count
        out += [list(m._parameters), list(m._buffers), list(m._modules)]
        return out
    check(f)

    def errors(torch, which):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        m.sub = Affine()
        if which == 0:
            m.weight = torch.ones(2, 3)
        elif which == 1:
            m.weight = 3
        elif which == 2:
            m.count = "x"
        elif which == 3:
            m.sub = 3
        elif which == 4:
            return m.nothing
        elif which == 5:
            del m.nothing
        elif which == 6:
            m.weight = None
            return list(m._parameters.items())
        elif which == 7:
            m.count = torch.nn.Parameter(torch.ones(1))
            return list(m._parameters), list(m._buffers)
        elif which == 8:
            m.sub = None
            return list(m._modules.items()), list(m.children())
        elif which == 9:
            m.bias = torch.nn.Parameter(torch.ones(2)) * 2
    for i in range(10):
        check(errors, i)


def test_assign_before_init():
    def f(torch, which):
        nn = torch.nn

        class Bad(nn.Module):
            def __init__(self):
                if which == 0:
                    self.w = nn.Parameter(torch.ones(1))
                elif which == 1:
                    self.m = nn.Module()
                elif which == 2:
                    self.register_buffer("b", torch.ones(1))
                elif which == 3:
                    self.register_parameter("b", None)
                super().__init__()
        Bad()
    for i in range(4):
        check(f, i)


def test_register_parameter_buffer_module_errors():
    def f(torch, which):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        ops = [
            lambda: m.register_parameter("x", torch.ones(1)),
            lambda: m.register_parameter("a.b", None),
            lambda: m.register_parameter("", None),
            lambda: m.register_parameter(1, None),
            lambda: m.register_parameter("forward", None),
            lambda: m.register_buffer("forward", None),
            lambda: m.register_buffer("c", 3),
            lambda: m.register_buffer("a.b", None),
            lambda: m.register_buffer("", None),
            lambda: m.register_buffer(2.5, None),
            lambda: m.add_module("c", 3),
            lambda: m.add_module("a.b", None),
            lambda: m.add_module("", None),
            lambda: m.add_module(3, None),
            lambda: m.add_module("forward", None),
            lambda: m.register_module("weight", torch.nn.Module()),
            lambda: m.add_module("c", torch.ones(1)),
            lambda: m.register_parameter("weight", torch.nn.Parameter(torch.ones(1))),
        ]
        ops[which]()
        return [(k, None if v is None else tuple(v.shape)) for k, v in m._parameters.items()]
    for i in range(18):
        check(f, i)


def test_register_parameter_none_and_nonpersistent_buffer():
    def f(torch):
        Affine, _, _, _ = make_classes(torch)
        m = Affine(bias=False)
        sd = m.state_dict()
        return (m.bias, list(sd.keys()), names(m.named_parameters()), names(m.named_buffers()),
                sd["count"], m.scratch, type(sd).__name__, "bias" in dir(m))
    check(f)


def test_buffer_class():
    def f(torch):
        m = torch.nn.Module()
        m.b = torch.nn.Buffer(torch.ones(2))
        m.c = torch.nn.Buffer(torch.zeros(1), persistent=False)
        b = torch.nn.Buffer(torch.ones(1))
        return (list(m._buffers), list(m.state_dict()), isinstance(b, torch.nn.Buffer),
                isinstance(torch.ones(1), torch.nn.Buffer), type(b).__name__, b)
    check(f)


# ---- traversal ----------------------------------------------------------------------------------

def test_traversal():
    def f(torch):
        _, _, Net, _ = make_classes(torch)
        m = Net()
        return [names(m.named_parameters()), names(m.named_parameters(prefix="net")),
                names(m.named_parameters(recurse=False)), names(m.named_buffers()),
                names(m.named_buffers(prefix="p", recurse=True)), names(m.named_children()),
                names(m.named_modules()), names(m.named_modules(prefix="root")),
                [type(c).__name__ for c in m.children()],
                [type(c).__name__ for c in m.modules()],
                len(list(m.parameters())), len(list(m.buffers())),
                [p.shape for p in m.parameters()], [b.dtype for b in m.buffers()],
                list(m.block.named_parameters(prefix="block"))]
    check(f)


def test_shared_parameters_and_modules():
    def f(torch):
        _, _, _, Tied = make_classes(torch)
        m = Tied()
        return [names(m.named_parameters()),
                names(m.named_parameters(remove_duplicate=False)),
                names(m.named_modules()), names(m.named_modules(remove_duplicate=False)),
                names(m.named_children()), names(m.named_buffers(remove_duplicate=False)),
                len(list(m.parameters())), list(m.state_dict().keys()),
                list(m.state_dict()._metadata.keys())]
    check(f)


def test_seed_named_children_named_modules():
    # the seed's Sequential(Linear, ReLU, Sequential(Sigmoid, ReLU)), printed tuple by tuple
    def f(torch):
        nn = torch.nn

        class Lin(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = nn.Parameter(torch.ones(2, 2))

            def extra_repr(self):
                return "in_features=2, out_features=2, bias=True"

        m = nn.Sequential(Lin(), nn.ReLU(), nn.Sequential(nn.Sigmoid(), nn.ReLU()))
        return [str(t) for t in m.named_children()] + [str(t) for t in m.named_modules()]
    e, a = check(f)
    assert e[0] == "('0', Lin(in_features=2, out_features=2, bias=True))"
    assert e[-2:] == ["('2.0', Sigmoid())", "('2.1', ReLU())"]


def test_seed_sequential_from_modules_values():
    def f(torch):
        _, Act, _, _ = make_classes(torch)
        Affine = make_classes(torch)[0]
        s1 = torch.nn.Sequential(Affine(4, 10), Affine(10, 2))
        s2 = torch.nn.Sequential(*s1._modules.values())
        x = torch.ones(3, 4)
        return (repr(s2), s2[0] is s1[0], s2(x), list(s2.state_dict()),
                type(s1._modules).__name__)
    check(f)


def test_get_submodule_parameter_buffer():
    def f(torch, target, kind):
        _, _, Net, _ = make_classes(torch)
        m = Net()
        r = getattr(m, kind)(target)
        return r if not isinstance(r, torch.nn.Module) else repr(r)
    for target, kind in [("block.0", "get_submodule"), ("", "get_submodule"),
                         ("block.9", "get_submodule"), ("fc1.weight", "get_submodule"),
                         ("nope.x", "get_submodule"), ("block.0.weight", "get_parameter"),
                         ("fc1.count", "get_parameter"), ("fc1.zz", "get_parameter"),
                         ("fc1.count", "get_buffer"), ("fc1.weight", "get_buffer"),
                         ("fc1.zz", "get_buffer"), ("block.2.0", "get_submodule")]:
        check(f, target, kind)


def test_apply_train_eval_requires_grad_zero_grad():
    def f(torch):
        _, _, Net, _ = make_classes(torch)
        m = Net()
        seen = []
        m.apply(lambda mod: seen.append(type(mod).__name__))
        r = [seen, m.training]
        m.eval()
        r.append([x.training for x in m.modules()])
        m.block.train()
        r.append([x.training for x in m.modules()])
        r.append(m.train() is m)
        m.requires_grad_(False)
        r.append([p.requires_grad for p in m.parameters()])
        m.fc1.requires_grad_()
        r.append([p.requires_grad for p in m.parameters()])
        out = m(torch.ones(2, 3)).sum()
        out.backward()
        r.append([p.grad for p in m.parameters()])
        m.zero_grad(set_to_none=False)
        r.append([p.grad for p in m.parameters()])
        m.zero_grad()
        r.append([p.grad for p in m.parameters()])
        return r
    check(f)
    check(lambda torch: torch.nn.Module().train(1))


def test_seed_weights_init_apply():
    def f(torch):
        nn = torch.nn
        Affine, _, Net, _ = make_classes(torch)

        def weights_init(m):
            if isinstance(m, Affine):
                m.weight.data.fill_(0.5)
                if m.bias is not None:
                    m.bias.data.zero_()
        m = Net()
        assert m.apply(weights_init) is m

        def init_fun(m):
            classname = m.__class__.__name__
            if classname.find("Affine") == 0 and hasattr(m, "weight"):
                nn.init.constant_(m.weight, 0.25) if hasattr(nn.init, "constant_") else \
                    m.weight.data.fill_(0.25)
        m.fc1.apply(init_fun)
        return list(m.state_dict().values())
    check(f)


# ---- containers ---------------------------------------------------------------------------------

def test_sequential():
    def f(torch):
        Affine, Act, _, _ = make_classes(torch)
        nn = torch.nn
        a, b, c = Affine(3, 4), Act(), Affine(4, 2)
        s = nn.Sequential(a, b, c)
        x = torch.tensor(X)
        r = [len(s), s[0] is a, s[-1] is c, s[-3] is a, type(s[1:]).__name__, len(s[1:]),
             s[::2][1] is c, list(s[1:]._modules), s(x), [type(m).__name__ for m in s]]
        s2 = nn.Sequential(OrderedDict([("first", a), ("act", b)]))
        r += [list(s2._modules), s2[1] is b, s2.act is b, repr(s2[:1])]
        s.append(Act())
        r.append(list(s._modules))
        s.insert(1, Act())
        s.insert(-1, Act())
        r.append([type(m).__name__ for m in s])
        s.extend([Act(), Act()])
        r.append(len(s))
        r.append(s.pop(1) is not None)
        del s[0]
        r.append(list(s._modules))
        del s[1:3]
        r.append(list(s._modules))
        s[0] = Affine(4, 4)
        r.append(repr(s))
        t = s + nn.Sequential(Act())
        r += [type(t).__name__, len(t), t[0] is s[0]]
        u = nn.Sequential(Act(), Act()) * 3
        r += [len(u), u[0] is u[2]]
        v = 2 * nn.Sequential(Act())
        r.append(len(v))
        w = nn.Sequential(Act())
        w += nn.Sequential(Act(), Act())
        w *= 2
        r.append(list(w._modules))
        r.append([k for k in dir(s) if k.isdigit()])
        return r
    check(f)


def test_sequential_errors():
    def f(torch, which):
        Affine, Act, _, _ = make_classes(torch)
        nn = torch.nn
        s = nn.Sequential(Act(), Act())
        ops = [lambda: s[2], lambda: s[-3], lambda: s["a"], lambda: s + 1, lambda: s * 1.5,
               lambda: s * 0, lambda: s.insert(0, 3), lambda: s.insert(5, Act()),
               lambda: nn.Sequential()[0], lambda: s.pop(7), lambda: s.__setitem__(3, Act()),
               lambda: s.__delitem__(5), lambda: nn.Sequential(3),
               lambda: s.__iadd__([Act()]), lambda: nn.Sequential()(torch.ones(1))]
        return ops[which]()
    for i in range(15):
        check(f, i)


def test_module_list():
    def f(torch):
        _, Act, _, _ = make_classes(torch)
        Affine = make_classes(torch)[0]
        nn = torch.nn
        ml = nn.ModuleList([Affine(), Act()])
        r = [len(ml), type(ml[0]).__name__, type(ml[-1]).__name__, type(ml[:1]).__name__,
             repr(ml)]
        ml.append(Act())
        ml.extend([Act(), Affine()])
        ml.insert(0, Act())
        r.append([type(m).__name__ for m in ml])
        r.append(list(ml._modules))
        r.append(type(ml.pop(0)).__name__)
        del ml[1]
        r.append(list(ml._modules))
        del ml[:2]
        r.append([type(m).__name__ for m in ml])
        ml[0] = Affine(2, 2)
        ml += [Act()]
        r.append(repr(ml))
        added = ml + nn.ModuleList([Act()])
        r += [type(added).__name__, len(added), added[0] is ml[0]]
        r.append(names(nn.ModuleList([Affine(), Affine()]).named_parameters()))
        r.append(repr(nn.ModuleList([Act(), Act(), nn.Module(), Act(), Affine(), Affine()])))
        r.append(repr(nn.ModuleList()))
        r.append(repr(nn.ModuleList([nn.ModuleList([Act(), Act()]), nn.ModuleList([Act(), Act()])])))
        return r
    check(f)

    def errors(torch, which):
        _, Act, _, _ = make_classes(torch)
        ml = torch.nn.ModuleList([Act()])
        ops = [lambda: ml[3], lambda: ml + 3, lambda: ml.extend(3), lambda: ml[-2],
               lambda: ml(torch.ones(1)), lambda: ml.append(3), lambda: ml["x"]]
        return ops[which]()
    for i in range(7):
        check(errors, i)


def test_module_dict():
    def f(torch):
        _, Act, _, _ = make_classes(torch)
        Affine = make_classes(torch)[0]
        nn = torch.nn
        md = nn.ModuleDict({"b": Act(), "a": Affine()})
        r = [list(md.keys()), repr(md), "a" in md, len(md), list(md)]
        md["c"] = Act()
        md.update([("d", Act()), ("e", Act())])
        md.update(OrderedDict([("f", Act())]))
        r.append(list(md))
        r.append(type(md.pop("b")).__name__)
        del md["c"]
        r.append([(k, type(v).__name__) for k, v in md.items()])
        r.append([type(v).__name__ for v in md.values()])
        r.append(names(md.named_parameters()))
        md.clear()
        r.append(repr(md))
        return r
    check(f)

    def errors(torch, which):
        _, Act, _, _ = make_classes(torch)
        md = torch.nn.ModuleDict({"a": Act()})
        ops = [lambda: md["b"], lambda: md.update(3), lambda: md.update([1]),
               lambda: md.update([(1, 2, 3)]), lambda: md.__setitem__("x", 3),
               lambda: md.__setitem__("a.b", Act()), lambda: md(1)]
        return ops[which]()
    for i in range(7):
        check(errors, i)


def test_parameter_list():
    def f(torch):
        nn = torch.nn
        pl = nn.ParameterList([nn.Parameter(torch.ones(2, 3)),
                               torch.ones(2, dtype=torch.float64), 3])
        r = [repr(pl), len(pl), type(pl[1]).__name__, pl[1].requires_grad, pl[2],
             names(pl.named_parameters()), repr(pl[0:1]), type(pl[:2]).__name__]
        pl.append(nn.Parameter(torch.zeros(4)))
        pl.extend([torch.zeros(()), "s"])
        pl[0] = torch.zeros(1)
        r += [repr(pl), [type(p).__name__ for p in pl], list(pl.state_dict())]
        pl2 = nn.ParameterList()
        pl2 += [torch.ones(1)]
        r += [repr(pl2), repr(nn.ParameterList())]
        return r
    check(f)

    def errors(torch, which):
        pl = torch.nn.ParameterList([torch.ones(1)])
        ops = [lambda: pl(1), lambda: pl.extend(torch.ones(2)), lambda: pl[5], lambda: pl.extend(3),
               lambda: pl["a"]]
        return ops[which]()
    for i in range(5):
        check(errors, i)


def test_parameter_dict():
    def f(torch):
        nn = torch.nn
        pd = nn.ParameterDict({"b": torch.ones(1), "a": nn.Parameter(torch.ones(2, 3)),
                               "c": "x"})
        r = [repr(pd), list(pd), list(pd.keys()), "a" in pd, len(pd), pd["c"],
             type(pd["b"]).__name__]
        pd2 = nn.ParameterDict([("z", torch.ones(1)), ("y", torch.ones(2, dtype=torch.float64))])
        r.append(repr(pd2))
        pd2["x"] = nn.Parameter(torch.zeros(3), requires_grad=False)
        r.append(names(pd2.named_parameters()))
        r.append(pd2.pop("z"))
        r.append(pd2.get("nope", 5))
        r.append(pd2.setdefault("w", torch.ones(1)))
        r.append(pd2.popitem()[0])
        r.append(list(reversed(pd2)))
        r.append([k for k, _ in pd2.items()])
        r.append(list(pd2.copy()))
        pd3 = pd2 | nn.ParameterDict({"q": torch.ones(1)})
        r.append(list(pd3))
        pd2.update(OrderedDict([("m", torch.ones(1)), ("k", torch.ones(1))]))
        r.append(list(pd2))
        r.append(list(pd2.state_dict()))
        pd2.clear()
        r.append(repr(pd2))
        r.append(list(nn.ParameterDict().fromkeys(["a", "b"], torch.ones(1))))
        return r
    check(f)

    def errors(torch, which):
        pd = torch.nn.ParameterDict({"b": torch.ones(1)})
        ops = [lambda: pd[1], lambda: pd["zz"], lambda: pd.update(3), lambda: pd.update([1]),
               lambda: pd.update([("a", 1, 2)]), lambda: pd(1), lambda: pd.pop("q")]
        return ops[which]()
    for i in range(7):
        check(errors, i)


def test_data_parallel():
    def f(torch):
        Affine, _, Net, _ = make_classes(torch)
        net = Net()
        dp = torch.nn.DataParallel(net)
        x = torch.tensor(X)
        return (repr(dp), dp.module is net, dp(x), list(dp.state_dict())[:2],
                dp.module.fc1.i, names(dp.named_modules())[:3], dp.device_ids)
    check(f)


def test_container_state_dict_roundtrip():
    def f(torch):
        Affine, _, _, _ = make_classes(torch)
        nn = torch.nn
        m = nn.ModuleDict({"enc": nn.Sequential(Affine(), nn.ModuleList([Affine(2, 2)])),
                           "p": nn.ParameterList([torch.ones(2)])})
        sd = m.state_dict()
        m2 = nn.ModuleDict({"enc": nn.Sequential(Affine(), nn.ModuleList([Affine(2, 2)])),
                            "p": nn.ParameterList([torch.zeros(2)])})
        res = m2.load_state_dict(sd)
        return list(sd.keys()), dict(sd._metadata), repr(res), list(m2.state_dict().values())
    check(f)


# ---- state dicts --------------------------------------------------------------------------------

def test_state_dict():
    def f(torch):
        _, _, Net, _ = make_classes(torch)
        m = Net()
        sd = m.state_dict()
        sdk = m.state_dict(keep_vars=True)
        sdp = m.state_dict(prefix="model.")
        return [type(sd).__name__, list(sd.keys()), list(sd._metadata.items()),
                [v.requires_grad for v in sd.values()],
                [type(v).__name__ for v in sd.values()],
                [type(v).__name__ for v in sdk.values()], sdk["fc1.weight"] is m.fc1.weight,
                list(sdp.keys()), list(sdp._metadata.keys()),
                sd["fc1.weight"].data_ptr() == m.fc1.weight.data_ptr(), sd["fc1.weight"]]
    check(f)


def test_seed_state_dict_requires_grad():
    def f(torch):
        _, _, Net, _ = make_classes(torch)
        model = Net()
        return model.state_dict()["fc1.weight"].requires_grad
    e, _ = check(f)
    assert e is False


def test_load_state_dict():
    def f(torch, which):
        Affine, _, Net, _ = make_classes(torch)
        m = Net()
        src = Net()
        for p in src.parameters():
            p.data.add_(1)
        sd = src.state_dict()
        if which == 0:
            return repr(m.load_state_dict(sd)), list(m.state_dict().values())
        if which == 1:
            del sd["fc1.weight"]
            sd["extra.weight"] = torch.ones(1)
            sd["fc2.nope"] = torch.ones(1)
            return m.load_state_dict(sd)
        if which == 2:
            del sd["fc1.weight"]
            sd["extra"] = torch.ones(1)
            res = m.load_state_dict(sd, strict=False)
            return repr(res), res.missing_keys, res.unexpected_keys, type(res).__name__
        if which == 3:
            sd["fc1.weight"] = torch.ones(5)
            sd["fc2.weight"] = 3
            return m.load_state_dict(sd)
        if which == 4:
            return m.load_state_dict(3)
        if which == 5:
            sd["fc1.weight"] = torch.ones(5)
            return m.load_state_dict(sd, strict=False)
        if which == 6:
            sd["fc1.count"] = torch.tensor([7])  # 1-dim into a 0-dim buffer
            sd["fc1.weight"] = sd["fc1.weight"].double()
            m.load_state_dict(sd)
            return m.fc1.count, m.fc1.weight
        if which == 7:
            w = m.fc1.weight
            m.load_state_dict(dict(sd))
            return w is m.fc1.weight, w
        if which == 8:
            w = m.fc1.weight
            m.load_state_dict(sd, assign=True)
            return (w is m.fc1.weight, type(m.fc1.weight).__name__,
                    m.fc1.weight.requires_grad, m.fc1.weight, m.fc1.count)
        if which == 9:
            sd["fc1"] = torch.ones(1)
            sd["fc1.weight.x"] = torch.ones(1)
            return m.load_state_dict(sd)
        if which == 10:
            m.fc1.weight.requires_grad_(False)
            m.load_state_dict(sd, assign=True)
            return m.fc1.weight.requires_grad, type(m.fc1.weight).__name__
    for i in range(11):
        check(f, i)


def test_extra_state():
    def f(torch):
        nn = torch.nn

        class S(nn.Module):
            def __init__(self):
                super().__init__()
                self.v = 1
                self.w = nn.Parameter(torch.ones(1))

            def get_extra_state(self):
                return {"v": self.v}

            def set_extra_state(self, state):
                self.v = state["v"]
        a, b = S(), S()
        a.v = 5
        sd = a.state_dict()
        res = b.load_state_dict(sd)
        sd2 = dict(sd)
        del sd2["_extra_state"]
        err = None
        try:
            b.load_state_dict(sd2)
        except RuntimeError as e:
            err = str(e)
        return list(sd.keys()), sd["_extra_state"], b.v, repr(res), err
    check(f)


def test_state_dict_hooks():
    def f(torch):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        log = []
        h1 = m.register_state_dict_pre_hook(lambda mod, prefix, keep: log.append(("pre", prefix)))
        h2 = m.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: log.append(("post", list(sd), dict(meta))))
        h3 = m.register_load_state_dict_post_hook(
            lambda mod, keys: log.append(("load_post", repr(keys))))
        h4 = m.register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, md, strict, mk, uk, em: log.append(("load_pre", list(sd))))
        sd = m.state_dict()
        m.load_state_dict(sd)
        for h in (h1, h2, h3, h4):
            h.remove()
        m.load_state_dict(m.state_dict())
        return log
    check(f)


# ---- dtype / device -----------------------------------------------------------------------------

def test_to_and_dtype_casts_keep_identity():
    def f(torch, how):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        m(torch.ones(1, 3)).sum().backward()
        w = m.weight
        g = m.weight.grad
        r = getattr(m, how[0])(*how[1:])
        return (r is m, w is m.weight, type(m.weight).__name__, m.weight.dtype,
                m.weight.requires_grad, m.weight.grad.dtype, g is m.weight.grad,
                m.count.dtype, m.scratch.dtype, m.weight, m.weight.is_leaf)
    for how in [("float",), ("double",), ("half",), ("bfloat16",), ("cpu",),
                ("to", "cpu"), ("to", "float64"), ("type", "float64")]:
        def g(torch, how=how):
            args = [getattr(torch, a) if a in ("float64",) else a for a in how[1:]]
            return f(torch, (how[0], *args))
        check(g)
    check(lambda torch: torch.nn.Module().to(torch.int32))
    check(lambda torch: make_classes(torch)[0]().to(torch.ones(1, dtype=torch.float64)).weight)
    check(lambda torch: make_classes(torch)[0]().to(dtype=torch.float16).weight)


# ---- hooks --------------------------------------------------------------------------------------

def test_forward_hooks():
    def f(torch):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        log = []

        def pre(mod, args):
            log.append(("pre", len(args)))
            return (args[0] * 2,)

        def pre_kw(mod, args, kwargs):
            log.append(("pre_kw", sorted(kwargs)))
            return args, kwargs

        def post(mod, args, out):
            log.append(("post", tuple(out.shape)))
            return out + 1

        def post_kw(mod, args, kwargs, out):
            log.append(("post_kw", sorted(kwargs)))

        def first(mod, args):
            log.append("first")
        x = torch.tensor(X)
        h1 = m.register_forward_pre_hook(pre)
        h2 = m.register_forward_pre_hook(pre_kw, with_kwargs=True)
        h3 = m.register_forward_hook(post)
        h4 = m.register_forward_hook(post_kw, with_kwargs=True)
        h5 = m.register_forward_pre_hook(first, prepend=True)
        y1 = m(x)
        h1.remove()
        h3.remove()
        y2 = m(x)
        for h in (h2, h4, h5):
            h.remove()
        y3 = m(x)
        m.register_forward_pre_hook(lambda mod, a: a[0] + 1)  # a non-tuple result is wrapped
        y4 = m(x)
        with m.register_forward_hook(lambda mod, a, o: o * 0):
            y5 = m(x)
        y6 = m(x)
        return log, y1, y2, y3, y4, y5, y6
    check(f)

    def bad(torch):
        m = make_classes(torch)[0]()
        m.register_forward_pre_hook(lambda mod, a, k: 3, with_kwargs=True)
        return m(torch.ones(1, 3))
    check(bad)


def test_forward_hook_always_call():
    def f(torch):
        nn = torch.nn

        class Boom(nn.Module):
            def forward(self, x):
                raise ValueError("boom")
        m = Boom()
        log = []
        m.register_forward_hook(lambda mod, a, o: log.append(("always", o)), always_call=True)
        m.register_forward_hook(lambda mod, a, o: log.append("never"))
        try:
            m(torch.ones(1))
        except ValueError as e:
            log.append(str(e))
        return log
    check(f)


def test_global_forward_hooks():
    def f(torch):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        log = []
        h1 = torch.nn.modules.module.register_module_forward_pre_hook(
            lambda mod, a: log.append(("gpre", type(mod).__name__)))
        h2 = torch.nn.modules.module.register_module_forward_hook(
            lambda mod, a, o: log.append(("gpost", type(mod).__name__)))
        try:
            m(torch.ones(1, 3))
        finally:
            h1.remove()
            h2.remove()
        m(torch.ones(1, 3))
        return log
    check(f)


def test_full_backward_hook():
    def f(torch, variant):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        log = []

        def hook(mod, grad_input, grad_output):
            log.append(("hook", type(mod).__name__, grad_input, grad_output))
            if variant == "replace":
                return (grad_input[0] * 10,)

        def pre(mod, grad_output):
            log.append(("pre", grad_output))
            if variant == "replace":
                return (grad_output[0] * 2,)
        h = m.register_full_backward_hook(hook)
        hp = m.register_full_backward_pre_hook(pre)
        x = torch.tensor(X, requires_grad=variant != "noinput")
        y = m(x)
        (y * torch.tensor([1.0, -2.0])).sum().backward()
        r = [log, x.grad, m.weight.grad, m.bias.grad]
        h.remove()
        hp.remove()
        m.zero_grad()
        log.clear()
        m(torch.tensor(X, requires_grad=True)).sum().backward()
        r += [log, m.bias.grad]
        return r
    for v in ["plain", "replace", "noinput"]:
        check(f, v)


def test_full_backward_hook_multiple_inputs_outputs():
    def f(torch):
        nn = torch.nn

        class Two(nn.Module):
            def forward(self, a, k, b):
                return a * b, a + k, 7

        m = Two()
        log = []
        m.register_full_backward_hook(
            lambda mod, gi, go: log.append((gi, go)))
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0])
        p, q, s = m(a, 3, b)
        (p.sum() * 2).backward()
        return log, a.grad, s
    check(f)


def test_backward_hook_errors():
    def f(torch, which):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        if which == 0:
            m.register_backward_hook(lambda *a: None)
            m.register_full_backward_hook(lambda *a: None)
        elif which == 1:
            m.register_full_backward_hook(lambda *a: None)
            m.register_backward_hook(lambda *a: None)
        elif which == 2:
            m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
            m(torch.ones(1, 3, requires_grad=True)).sum().backward()
        elif which == 3:
            m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
            m(torch.ones(1, 3, requires_grad=True)).sum().backward()
        elif which == 4:
            m.register_full_backward_hook(lambda mod, gi, go: (torch.ones(1),))
            m(torch.ones(1, 3)).sum().backward()
    for i in range(5):
        check(f, i)


# ---- repr ---------------------------------------------------------------------------------------

def test_module_repr():
    def f(torch):
        _, _, Net, _ = make_classes(torch)
        nn = torch.nn

        class Multi(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Net()
                self.none = None
                self.add_module("empty", None)

            def extra_repr(self):
                return "a=1\nb=2"
        return [repr(Net()), repr(Multi()), repr(nn.Module()), str(Net().block),
                repr(nn.Sequential()), repr(nn.Sequential(nn.Sequential()))]
    check(f)


def test_parameter():
    def f(torch):
        nn = torch.nn
        p = nn.Parameter(torch.tensor(W))
        q = nn.Parameter(torch.ones(2), requires_grad=False)
        e = nn.Parameter()
        t = torch.ones(2)
        s = nn.Parameter(t)
        s.data.add_(1)
        return [repr(p), repr(q), repr(e), p.requires_grad, q.requires_grad, p.is_leaf,
                isinstance(p, torch.Tensor), isinstance(p, nn.Parameter),
                isinstance(t, nn.Parameter), type(p).__name__, type(p * 2).__name__,
                type(p.data).__name__, type(p.detach()).__name__, t, p.grad_fn,
                repr(nn.Parameter(torch.ones(2, dtype=torch.int64), requires_grad=False)),
                str(p), (p * 2).requires_grad, p.dtype, p.shape]
    check(f)
    check(lambda torch: torch.nn.Parameter(torch.ones(2, dtype=torch.int64)))
    check(lambda torch: torch.nn.Parameter(torch.ones(2, dtype=torch.complex64)))
    same_repr(lambda torch: torch.nn.Parameter(torch.tensor(W, dtype=torch.float64)))


def test_parameter_copy_and_pickle():
    def f(torch):
        p = torch.nn.Parameter(torch.tensor(W))
        q = torch.nn.Parameter(torch.ones(2), requires_grad=False)
        dp, dq = copy.deepcopy(p), copy.deepcopy(q)
        pp = pickle.loads(pickle.dumps(p))
        pq = pickle.loads(pickle.dumps(q))
        dp.data.add_(1)
        return [type(dp).__name__, dp.requires_grad, dq.requires_grad, dp, p,
                type(pp).__name__, pp.requires_grad, pq.requires_grad, pp, dp.is_leaf]
    check(f)


def test_module_deepcopy_and_pickle():
    def f(torch):
        _, _, Net, Tied = make_classes(torch)
        m = Net()
        m.fc1.weight.data.fill_(2)
        c = copy.deepcopy(m)
        c.fc1.weight.data.fill_(3)
        t = copy.deepcopy(Tied())
        r = [repr(c), m.fc1.weight, c.fc1.weight, c.fc1.weight is m.fc1.weight,
             type(c.fc1.weight).__name__, t.a.weight is t.b.weight, t.c is t.a,
             list(c.state_dict().keys()) == list(m.state_dict().keys())]
        return r
    check(f)


# module-level classes so pickle can find them
def _pickle_roundtrip(torch):
    global PNet
    nn = torch.nn

    class PNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.tensor(W))
            self.register_buffer("b", torch.arange(3))
            self.seq = nn.Sequential(nn.Module())

        def forward(self, x):
            return x @ self.w.t()
    PNet.__qualname__ = "PNet"
    m = PNet()
    m.eval()
    r = pickle.loads(pickle.dumps(m))
    return [type(r).__name__, r.training, r.w, r.b, type(r.w).__name__, r.w.requires_grad,
            list(r.state_dict()), r(torch.ones(1, 3)), repr(r)]


def test_module_pickle():
    check(_pickle_roundtrip)


def test_forward_missing_and_call_errors():
    check(lambda torch: torch.nn.Module()(1))
    check(lambda torch: make_classes(torch)[1]()(1, 2))
    check(lambda torch: torch.nn.Module(3))


def test_dir_and_getattr():
    def f(torch):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        d = dir(m)
        return ["weight" in d, "count" in d, "scratch" in d, "forward" in d,
                hasattr(m, "weight"), hasattr(m, "zz"), getattr(m, "zz", 5)]
    check(f)


def test_parameters_to_vector():
    def f(torch):
        Affine, _, _, _ = make_classes(torch)
        m = Affine()
        v = torch.nn.utils.parameters_to_vector(m.parameters())
        torch.nn.utils.vector_to_parameters(v * 2 + 1, m.parameters())
        return v, list(m.parameters()), type(m.weight).__name__
    check(f)
    check(lambda torch: torch.nn.utils.vector_to_parameters([1], []))


def test_training_loop_with_containers():
    def f(torch):
        _, Act, _, _ = make_classes(torch)
        Affine = make_classes(torch)[0]
        nn = torch.nn
        m = nn.Sequential(Affine(3, 4), Act(), nn.ModuleList([Affine(4, 2)])[0])
        x = torch.tensor(X)
        losses = []
        for _ in range(3):
            m.zero_grad()
            loss = (m(x) ** 2).mean()
            loss.backward()
            with torch.no_grad():
                for p in m.parameters():
                    p -= 0.1 * p.grad
            losses.append(loss.item())
        return losses, list(m.state_dict().values())
    check(f)


def test_with_builtin_layers():
    def f(torch):
        nn = torch.nn
        torch.manual_seed(0)
        s1 = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 2))
        with torch.no_grad():
            for i, p in enumerate(s1.parameters()):
                p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))
        s2 = nn.Sequential(*s1._modules.values())
        x = torch.ones(3, 4)
        return (repr(s1), [str(t) for t in s1.named_modules()], s2(x), list(s1.state_dict()),
                repr(nn.DataParallel(s1)))
    check(f)


def test_check_module_sequential_linear_relu():
    x = np.linspace(-2, 2, 15, dtype=np.float32).reshape(3, 5)
    check_module(lambda nn: nn.Sequential(nn.Linear(5, 4), nn.ReLU(),
                                          nn.ModuleList([nn.Linear(4, 2)])[0]), [x])


def test_module_misc_behaviours():
    def f(torch, which):
        nn = torch.nn
        Affine = make_classes(torch)[0]
        m = Affine()
        if which == 0:
            return nn.Module(x=1)
        if which == 1:
            m.plain = 3
            m.plain = nn.Buffer(torch.ones(1))
        if which == 2:
            m.register_buffer("q", nn.Buffer(torch.ones(3), persistent=False))
            m.r = nn.Buffer(torch.ones(3), persistent=False)
            return list(m.state_dict()), list(m._buffers)
        if which == 3:
            return m.get_extra_state()
        if which == 4:
            return nn.Module().set_extra_state(1)
        if which == 5:
            log = []
            m.register_backward_hook(lambda mod, gi, go: log.append(len(go)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m(torch.ones(2, 3, requires_grad=True)).sum().backward()
            return log, m.weight.grad
        if which == 6:
            return m.apply(3)
        if which == 7:
            return nn.Sequential(Affine())(1, 2)
    for i in range(8):
        check(f, i)
