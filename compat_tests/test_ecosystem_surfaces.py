"""Differential tests of the surfaces ecosystem libraries touch at import and in eager code:
torch.library / torch.ops, the torch._check family, torch.hub, torch.jit, torch.compiler and
torch._dynamo, torch.utils.model_zoo, torch.nn.modules.utils, torch.ao.quantization's float-model
names, torch.onnx's registration surface and torch._C's dispatch-key names.

Real PyTorch's operator registry is global to the process: every test defines its operators in
a namespace of its own (`_ns`), and both libraries see the same name."""
import hashlib
import importlib
import itertools
import os
import shutil
import typing
import zipfile
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import Raised, assert_same, check, run

_COUNTER = itertools.count()


def _ns(tag):
    """A namespace name no other test (or earlier run in this process) uses."""
    return f"tl_{tag}_{os.getpid()}_{next(_COUNTER)}"


def both_raise(fn, upto=None):
    """Both libraries raise the same exception type; the messages agree (up to `upto`, when
    given: what follows it names PyTorch's internals)."""
    e, a = run(fn, real_torch), run(fn, torchlike)
    assert isinstance(e, Raised), f"torch did not raise: {e!r}"
    assert isinstance(a, Raised), f"torchlike did not raise: {a!r}"
    assert e.type == a.type, f"{e!r} vs {a!r}"
    if upto is not None:
        e.msg, a.msg = e.msg.split(upto)[0], a.msg.split(upto)[0]
    assert e.msg == a.msg, f"\n torch:     {e.msg!r}\n torchlike: {a.msg!r}"
    return e, a


# ---- torch.library: Library.define / impl ------------------------------------------------------

def test_def_library_define_impl_and_calls():
    ns = _ns("def")

    def case(torch):
        lib = torch.library.Library(ns, "DEF")
        name = lib.define("scale(Tensor x, float a) -> Tensor")
        lib.impl("scale", lambda x, a: x * a, "CPU")
        lib.define("shift(Tensor x) -> Tensor")
        lib.impl("shift", lambda x: x + 1, "CompositeExplicitAutograd")
        ops = getattr(torch.ops, ns)
        x = torch.arange(3.)
        out = (name, ops.scale(x, 3.0), ops.scale.default(x, a=2.0), ops.shift(x),
               ops.shift.default(x), ops.scale.overloads(), ops.scale.default.name(),
               repr(ops.scale), repr(ops.scale.default), str(ops.scale),
               ops.scale.default.__name__, ops.scale._qualified_op_name,
               ops.scale.default is ops.scale.default, ops.scale.default.overloadpacket
               is ops.scale, repr(lib), repr(ops).replace(ns, "NS"))
        lib._destroy()
        return out
    check(case)


def test_kernel_choice_device_before_composite():
    ns = _ns("choice")

    def case(torch):
        lib = torch.library.Library(ns, "DEF")
        for name in ("both", "expl", "impl_only"):
            lib.define(f"{name}(Tensor x) -> Tensor")
        lib.impl("both", lambda x: x + 1, "CPU")
        lib.impl("both", lambda x: x + 2, "CompositeImplicitAutograd")
        lib.impl("expl", lambda x: x + 1, "CPU")
        lib.impl("expl", lambda x: x + 2, "CompositeExplicitAutograd")
        lib.impl("impl_only", lambda x: x * 5)      # no key: CompositeImplicitAutograd
        ops = getattr(torch.ops, ns)
        x = torch.ones(2, requires_grad=True)
        out = ops.both(x), ops.expl(torch.ones(2)), ops.impl_only(x)
        out[2].sum().backward()
        lib._destroy()
        return out, x.grad
    check(case)


def test_overloads_and_argument_binding():
    ns = _ns("ovl")

    def case(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("ov(Tensor x) -> Tensor")
        lib.define("ov.int(Tensor x, int y) -> Tensor")
        lib.impl("ov", lambda x: x * 10, "CPU")
        lib.impl("ov.int", lambda x, y: x * y, "CPU")
        lib.define("m(Tensor x, int[] l, float s, int n=3, *, Tensor? o=None, "
                   "int[2] p=1) -> Tensor")
        seen = []
        lib.impl("m", lambda x, l, s, n=-1, o=None, p=None:
                 (seen.append((l, s, n, o, p)), x + s)[1], "CPU")
        ops = getattr(torch.ops, ns)
        x = torch.ones(2)
        out = (ops.ov(x), ops.ov(x, 3), ops.ov.int(x, 4), ops.ov.overloads(),
               ops.ov.int.name(), repr(ops.ov.int), str(ops.ov.int._schema),
               ops.m(x, (1, 2), 2), ops.m(x, [3], s=True, p=5, o=None),
               ops.m.default(x, [1], 0.5, 7))
        lib._destroy()
        return out, seen
    check(case)


@pytest.mark.parametrize("call", [
    "ops.m(x, 1, 2.0, 3, 4)", "ops.m(x, 1, 2.0)", "ops.m()", "ops.m(x, 1, q=1)", "ops.m(x, 1.5)", "ops.m(3, 1)",
    "ops.m(x, 1, s=torch.ones(2))", "ops.ov(x, 3)", "ops.ov(3)",
])
def test_argument_errors(call):
    ns = _ns("argerr")

    def case(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("m(Tensor x, int k=3, *, float s=2.0) -> Tensor")
        lib.impl("m", lambda x, k=3, s=2.0: x, "CPU")
        lib.define("ov(Tensor x) -> Tensor")
        lib.define("ov.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")
        try:
            eval(call, {"torch": torch, "ops": getattr(torch.ops, ns), "x": torch.ones(1)})
        finally:
            lib._destroy()
    both_raise(case, upto="Cast error details")


def test_registration_errors():
    ns = _ns("regerr")

    def duplicate_define(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("foo(Tensor x, float a) -> Tensor")
        try:
            lib.define("foo(Tensor x, float a) -> Tensor")
        finally:
            lib._destroy()

    def second_def_library(torch):
        lib = torch.library.Library(ns, "DEF")
        try:
            torch.library.Library(ns, "DEF")
        finally:
            lib._destroy()

    def define_in_impl_library(torch):
        torch.library.Library(ns, "IMPL", "CPU").define("bar(Tensor x) -> Tensor")

    def other_namespace(torch):
        torch.library.Library(ns, "FRAGMENT").define("other_ns::bar(Tensor x) -> Tensor")

    def impl_of_a_packet(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("baz(Tensor x) -> Tensor")
        try:
            lib.impl(getattr(torch.ops, ns).baz, lambda x: x, "CPU")
        finally:
            lib._destroy()

    for fn in (duplicate_define, second_def_library, define_in_impl_library, other_namespace):
        both_raise(fn)
    both_raise(impl_of_a_packet, upto="got <class")
    check(lambda torch: torch.library.Library(ns, "BAD"))
    check(lambda torch: torch.library.Library("prim", "DEF"))
    check(lambda torch: torch.library.Library(ns, "FRAGMENT").impl("x", 3, "CPU"))


def test_fragments_impl_libraries_and_destroy():
    ns = _ns("frag")

    def case(torch):
        ops = getattr(torch.ops, ns)
        seen = []
        a = torch.library.Library(ns, "FRAGMENT")
        seen.append(a.define("f(Tensor x) -> Tensor"))
        b = torch.library.Library(ns, "FRAGMENT")       # fragments may repeat
        seen.append(b.define("g(Tensor x) -> Tensor"))
        a.impl("f", lambda x: x + 1, "CPU")
        impl = torch.library.Library(ns, "IMPL", "CPU")
        impl.impl("g", lambda x: x + 2)
        seen.append(repr(impl))
        seen.append((ops.f(torch.zeros(1)), ops.g(torch.zeros(1))))
        impl._destroy()                                  # its kernel goes with it
        seen.append(run(lambda _: ops.g(torch.zeros(1)), None))
        b._destroy()                                     # and g itself
        seen.append(run(lambda _: ops.g, None))
        seen.append(ops.f(torch.zeros(1)))
        a._destroy()
        seen.append(run(lambda _: getattr(torch.ops, ns).f, None))
        d = torch.library.Library(ns, "DEF")             # the namespace is free again
        seen.append(repr(d))
        d._destroy()
        return seen
    e, a = run(case, real_torch), run(case, torchlike)
    # the message of a missing kernel ends with PyTorch's list of backends
    for r in (e, a):
        r[4].msg = r[4].msg.split(" is only available for these backends")[0]
    assert_same(e, a)


def test_a_garbage_collected_library_takes_its_operators():
    ns = _ns("gc")

    def make(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x + 1, "CPU")
        return getattr(torch.ops, ns).f(torch.ones(1))

    def after(torch):
        import gc
        gc.collect()
        return run(lambda _: getattr(torch.ops, ns).f, None), repr(torch.library.Library(ns,
                                                                                       "DEF"))
    check(make)
    check(after)


def test_missing_kernel_and_no_tensor_arguments():
    ns = _ns("nokernel")

    def no_kernel(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("f(Tensor x) -> Tensor")
        try:
            getattr(torch.ops, ns).f(torch.ones(1))
        finally:
            lib._destroy()

    def no_tensors(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("g(int n) -> Tensor")
        lib.impl("g", lambda n: torch.ones(n), "CPU")
        try:
            getattr(torch.ops, ns).g(2)
        finally:
            lib._destroy()

    def none_returned(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("h(Tensor(a!) x) -> ()")
        lib.impl("h", lambda x: x.add_(1), "CPU")
        try:
            getattr(torch.ops, ns).h(torch.zeros(1))
        finally:
            lib._destroy()

    both_raise(no_kernel, upto=" is only available for these backends")
    both_raise(no_tensors, upto="Available functions are")
    both_raise(none_returned)

    def composite_without_tensors(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("k(int n) -> Tensor")
        lib.impl("k", lambda n: torch.ones(n), "CompositeExplicitAutograd")
        out = getattr(torch.ops, ns).k(2)
        lib._destroy()
        return out
    check(composite_without_tensors)


def test_autograd_kernel_redispatching_below_autograd():
    ns = _ns("agk")

    def case(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x * 2, "CPU")
        op = getattr(torch.ops, ns).f

        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                with torch._C._AutoDispatchBelowAutograd():
                    return op(x)

            @staticmethod
            def backward(ctx, g):
                return g * 7

        lib.impl("f", F.apply, "Autograd")
        x = torch.ones(2, requires_grad=True)
        y = op(x)
        y.sum().backward()
        plain = op(torch.ones(2))

        lib.define("g(Tensor x) -> Tensor")
        lib.impl("g", lambda x: x * 3, "CPU")
        g = getattr(torch.ops, ns).g.default
        keysets = []

        def with_keyset(keyset, x):
            keysets.append(type(keyset).__name__)
            return g.redispatch(keyset & torch._C._after_autograd_keyset, x) + 1
        lib.impl("g", with_keyset, "Autograd", with_keyset=True)
        z = g(torch.ones(2, requires_grad=True))
        with torch.no_grad():
            w = g(torch.ones(2))
        lib._destroy()
        return (y, type(y.grad_fn).__name__, x.grad, plain, plain.requires_grad, z, w,
                keysets)
    check(case)


# ---- torch.library: custom_op ------------------------------------------------------------------

def test_custom_op_with_fake_and_autograd():
    ns = _ns("cop")

    def case(torch):
        @torch.library.custom_op(f"{ns}::mysin", mutates_args=())
        def mysin(x: torch.Tensor, k: float, *, shift: float = 0.0) -> torch.Tensor:
            return torch.sin(x) * k + shift

        @mysin.register_fake
        def _(x, k, *, shift=0.0):
            return torch.empty_like(x)

        def setup_context(ctx, inputs, output, keyword_only_inputs):
            x, k = inputs
            ctx.save_for_backward(x)
            ctx.k = k
            ctx.shift = keyword_only_inputs["shift"]

        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * torch.cos(x) * ctx.k, None

        mysin.register_autograd(backward, setup_context=setup_context)
        x = torch.tensor([0.1, 0.5, 1.0], requires_grad=True)
        y = mysin(x, 2.0, shift=1.0)
        y.sum().backward()
        g1 = x.grad
        x.grad = None
        ops = getattr(torch.ops, ns)
        y2 = ops.mysin.default(x, 3.0)
        (y2 * y2).sum().backward()
        no_grad = mysin(torch.ones(2), 1.0)
        return (repr(mysin), y, type(y.grad_fn).__name__, g1, y2, x.grad, no_grad,
                no_grad.requires_grad, repr(ops.mysin), repr(mysin._opoverload),
                str(ops.mysin.default._schema))
    check(case)


def test_custom_op_backward_errors():
    ns = _ns("coperr")

    def no_formula(torch):
        @torch.library.custom_op(f"{ns}::noauto", mutates_args=())
        def noauto(x: torch.Tensor) -> torch.Tensor:
            return x * 2
        y = noauto(torch.ones(2, requires_grad=True))
        assert y.requires_grad
        y.sum().backward()

    def too_few_gradients(torch):
        @torch.library.custom_op(f"{ns}::few", mutates_args=())
        def few(x: torch.Tensor, y: torch.Tensor, k: int) -> torch.Tensor:
            return x * y * k
        few.register_autograd(lambda ctx, g: g)
        few(torch.ones(1, requires_grad=True), torch.ones(1), 2).sum().backward()

    def returns_an_input(torch):
        @torch.library.custom_op(f"{ns}::alias", mutates_args=())
        def alias(x: torch.Tensor) -> torch.Tensor:
            return x
        alias(torch.zeros(2))

    both_raise(no_formula)
    both_raise(too_few_gradients)
    e, a = run(returns_an_input, real_torch), run(returns_an_input, torchlike)
    assert e.type == a.type == "RuntimeError"
    assert e.msg.split("): ", 1)[1] == a.msg.split("): ", 1)[1]


def test_custom_op_kernels_mutation_and_registration_functions():
    ns = _ns("copk")

    def case(torch):
        seen = []

        @torch.library.custom_op(f"{ns}::kern", mutates_args=())
        def kern(x: torch.Tensor) -> torch.Tensor:
            return x + 1
        seen.append(kern(torch.zeros(2)))
        seen.append(callable(torch.library.register_kernel(f"{ns}::kern", "cpu",
                                                           lambda x: x + 100)))
        seen.append(kern(torch.zeros(2)))
        kern.register_kernel("cpu")(lambda x: x + 1000)
        seen.append(kern(torch.zeros(2)))

        @torch.library.custom_op(f"{ns}::addone_", mutates_args={"x"})
        def addone_(x: torch.Tensor) -> None:
            x.add_(1)
        t = torch.zeros(2)
        seen.append((addone_(t), t))

        @torch.library.custom_op(f"{ns}::cuda_only", mutates_args=(), device_types="cuda")
        def cuda_only(x: torch.Tensor) -> torch.Tensor:
            return x.clone()
        r = run(lambda _: cuda_only(torch.ones(1)), None)
        r.msg = r.msg.split(" is only available")[0]
        seen.append(r)

        g = torch.library.custom_op(f"{ns}::g", mutates_args=(),
                                    schema="(Tensor x) -> Tensor")(lambda x: x * 2)
        seen.append(g(torch.ones(1)))
        def typed(x: torch.Tensor) -> torch.Tensor:
            return x.clone()
        seen.append(run(lambda _: torch.library.custom_op(f"{ns}.bad", typed,
                                                          mutates_args=()), None))
        seen.append(run(lambda _: torch.library.custom_op(f"{ns}::untyped", lambda x: x,
                                                          mutates_args=()), None))
        return seen
    check(case)


def test_module_level_define_impl_and_register_functions():
    ns = _ns("modfn")

    def case(torch):
        seen = []
        torch.library.define(f"{ns}::f", "(Tensor x) -> Tensor")
        seen.append(torch.library.impl(f"{ns}::f", "cpu", lambda x: x * 5))
        deco = torch.library.impl(f"{ns}::f", "cuda")
        seen.append(deco(lambda x: x))           # PyTorch's decorator returns None
        ops = getattr(torch.ops, ns)
        seen.append(ops.f(torch.ones(1)))
        torch.library.define(f"{ns}::g", "(Tensor x) -> Tensor")
        torch.library.impl(f"{ns}::g", "CompositeExplicitAutograd", lambda x: x - 5)
        seen.append(ops.g(torch.ones(1)))
        seen.append(torch.library.register_kernel(f"{ns}::g", "cpu", lambda x: x + 7))
        seen.append(ops.g(torch.ones(1)))
        torch.library.register_autograd(f"{ns}::g", lambda ctx, g: g * 10)
        x = torch.ones(2, requires_grad=True)
        y = ops.g(x)
        y.sum().backward()
        seen += [y, type(y.grad_fn).__name__, x.grad]
        # kernels for an operator defined later are kept
        seen.append(torch.library.impl(f"{ns}::later", "cpu", lambda x: x * 3))
        torch.library.define(f"{ns}::later", "(Tensor x) -> Tensor")
        seen.append(ops.later(torch.ones(1)))
        lib = torch.library.Library(ns, "FRAGMENT")     # the older @impl(lib, name, key)
        lib.define("old(Tensor x) -> Tensor")

        @torch.library.impl(lib, "old", "CPU")
        def old(x):
            return x + 9
        seen += [callable(old), ops.old(torch.ones(1))]
        lib._destroy()
        return seen
    check(case)


def test_unknown_op_and_aten():
    ns = _ns("unk")
    check(lambda torch: getattr(torch.ops, ns).nope)

    def defined(torch):
        lib = torch.library.Library(ns, "DEF")
        lib.define("foo(Tensor x) -> Tensor")
        try:
            getattr(torch.ops, ns).foo.nope
        finally:
            lib._destroy()
    check(defined)
    check(lambda torch: torch.ops.aten.nonexistent_op_xyz)
    check(lambda torch: (torch.ops.aten.add(torch.ones(2), torch.ones(2)),
                         torch.ops.aten.add.Tensor(torch.ones(2), torch.ones(2), alpha=2),
                         torch.ops.aten.mm.default(torch.ones(2, 3), torch.ones(3, 2)),
                         torch.ops.aten.relu_.default(torch.tensor([-1., 2.])),
                         repr(torch.ops.aten.add), repr(torch.ops.aten.mm.default),
                         torch.ops.aten.mm.default.name(), torch.ops.aten.add.Tensor.name(),
                         torch.ops.aten.mm.default is torch.ops.aten.mm.default))


def test_load_library_of_an_unknown_extension_is_an_oserror():
    e, a = both_raise(lambda torch: torch.ops.load_library("/nonexistent.so"))
    assert e.type == "OSError"


def test_infer_schema():
    def protos(torch):
        def p1(x: torch.Tensor, n: int, f: float = 1.0, b: bool = False,
               s: Optional[torch.Tensor] = None, o: Optional[int] = None, m: str = "a",
               d: torch.dtype = torch.int64, dev: torch.device = None) -> torch.Tensor: ...

        def p2(x: torch.Tensor, y: torch.Tensor, z: List[torch.Tensor]) -> Tuple[torch.Tensor,
                                                                                   int]: ...

        def p3(x: torch.Tensor, *, k: int = 3, sc: typing.Union[int, float, bool] = 2,
               q: Optional[typing.Sequence[int]] = None,
               t: List[Optional[torch.Tensor]] = None) -> List[torch.Tensor]: ...

        def p4(x: torch.Tensor) -> None: ...

        def p5(x: torch.Tensor) -> Tuple[torch.Tensor]: ...

        def p6(x: torch.Tensor, n: float = 1e-5, b: float = 0.5) -> float: ...
        return p1, p2, p3, p4, p5, p6

    def case(torch):
        p1, p2, p3, p4, p5, p6 = protos(torch)
        infer = torch.library.infer_schema
        return (infer(p1, mutates_args=()), infer(p2, mutates_args=("x", "z")),
                infer(p2, mutates_args="unknown"), infer(p3, mutates_args=[]),
                infer(p4, mutates_args=(), op_name="zz"), infer(p5, mutates_args=()),
                infer(p6, mutates_args=()))
    check(case)

    def bad(torch):
        def untyped(x, y): ...

        def listdefault(x: torch.Tensor, l: List[int] = [1]) -> torch.Tensor: ...  # noqa: B006

        def varargs(x: torch.Tensor, *args) -> torch.Tensor: ...

        def noreturn(x: torch.Tensor): ...

        def mutated_int(x: torch.Tensor, n: int) -> torch.Tensor: ...
        return untyped, listdefault, varargs, noreturn, mutated_int

    for i, mut in enumerate([(), (), (), (), ("n",)]):
        both_raise(lambda torch: torch.library.infer_schema(bad(torch)[i], mutates_args=mut))
    both_raise(lambda torch: torch.library.infer_schema(bad(torch)[4], mutates_args=("q",)))
    both_raise(lambda torch: torch.library.infer_schema(bad(torch)[4], mutates_args="x"))

    def unsupported(torch):
        def p(x: torch.Tensor, k: dict) -> torch.Tensor: ...
        torch.library.infer_schema(p, mutates_args=())

    def unsupported_return(torch):
        def p(x: torch.Tensor) -> Optional[torch.Tensor]: ...
        torch.library.infer_schema(p, mutates_args=())
    both_raise(unsupported)
    both_raise(unsupported_return)


# ---- the torch._check family -------------------------------------------------------------------

_CHECKS = ["_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented"]


@pytest.mark.parametrize("fn", _CHECKS)
@pytest.mark.parametrize("args", [
    "True", "False", "False, lambda: 'custom msg'", "False, 'not callable'",
    "True, 'not callable'", "torch.tensor(True)", "torch.tensor(False)", "1", "0", "None",
    "False, lambda: 42", "False, lambda: None",
])
def test_check_family(fn, args):
    check(lambda torch: eval(f"torch.{fn}({args})", {"torch": torch}))


@pytest.mark.parametrize("expr", [
    "torch._check_with(KeyError, False, lambda: 'k')",
    "torch._check_with(ValueError, True, None)",
    "torch._check_with(ValueError, False, None)",
    "torch._check_with(int, False, None)",
    "torch._check_with(ValueError, False)",
    "torch._check_with(ValueError, 1, None)",
    "torch._check_tensor_all(torch.tensor([True, True]))",
    "torch._check_tensor_all(torch.tensor([True, False]))",
    "torch._check_tensor_all(torch.tensor([True, False]), lambda: 'nope')",
    "torch._check_tensor_all(torch.tensor([[False]]), 'not callable')",
    "torch._check_tensor_all(torch.tensor([1, 0]))",
    "torch._check_tensor_all(True)",
    "torch._check_tensor_all(torch.tensor([], dtype=torch.bool))",
    "torch._check_tensor_all_with(IndexError, torch.tensor([False]), lambda: 'x')",
    "torch._assert(False, 'msg')", "torch._assert(True, 'msg')",
    "torch._assert(torch.tensor(False), 'tmsg')", "torch._assert(0, 5)",
    "torch._assert(torch.tensor([1, 1]), 'm')",
    "torch._assert_async(torch.tensor(0))", "torch._assert_async(torch.tensor(1))",
    "torch._assert_async(torch.tensor(0.0), 'amsg')", "torch._assert_async(torch.tensor(0), '')",
    "torch._assert_async(torch.tensor(0), 5)", "torch._assert_async(torch.tensor(0), None)",
    "torch._assert_async(torch.tensor([1, 1]))", "torch._assert_async(torch.tensor([]))",
    "torch._assert_async(torch.tensor(False))", "torch._assert_async(True)",
    "torch._assert_async(torch.tensor(0.5))",
    "torch._check_is_size(3)", "torch._check_is_size(-1)",
    "torch._check_is_size(-1, lambda: 'neg')", "torch._check_is_size(5, max=4)",
])
def test_check_with_tensor_all_and_asserts(expr):
    check(lambda torch: eval(expr, {"torch": torch}))


# ---- torch.hub ---------------------------------------------------------------------------------

@pytest.fixture
def hub_state(monkeypatch):
    """Each library's hub directory reset, and restored after the test."""
    saved = real_torch.hub._hub_dir, torchlike.hub._hub_dir
    real_torch.hub._hub_dir = torchlike.hub._hub_dir = None
    for var in ("TORCH_HOME", "XDG_CACHE_HOME", "TORCH_HUB", "TORCH_MODEL_ZOO"):
        monkeypatch.delenv(var, raising=False)
    yield monkeypatch
    real_torch.hub._hub_dir, torchlike.hub._hub_dir = saved


def _side(torch, tmp_path):
    """A directory of the library's own (each side downloads into an empty cache)."""
    d = tmp_path / torch.__name__
    d.mkdir(exist_ok=True)
    return d


def test_hub_directories(hub_state, tmp_path):
    def dirs(torch):
        return torch.hub._get_torch_home(), torch.hub.get_dir()
    hub_state.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    check(dirs)
    hub_state.setenv("TORCH_HOME", str(tmp_path / "th"))
    check(dirs)
    hub_state.setenv("TORCH_HOME", "~/somewhere")
    check(dirs)

    def set_dir(torch):
        torch.hub.set_dir(str(tmp_path / "custom"))
        a = torch.hub.get_dir()
        torch.hub.set_dir(tmp_path / "as_path")
        b = torch.hub.get_dir()
        torch.hub.set_dir("~/x")
        return a, b, type(b).__name__, torch.hub.get_dir()
    check(set_dir)


def test_download_url_to_file(hub_state, tmp_path):
    src = tmp_path / "data.bin"
    src.write_bytes(b"hello world" * 5000)
    sha = hashlib.sha256(src.read_bytes()).hexdigest()
    url = src.as_uri()

    def case(torch):
        d = _side(torch, tmp_path)
        torch.hub.download_url_to_file(url, str(d / "plain.bin"), progress=False)
        torch.hub.download_url_to_file(url, str(d / "hashed.bin"), hash_prefix=sha[:10],
                                       progress=False)
        try:
            torch.hub.download_url_to_file(url, str(d / "wrong.bin"), hash_prefix="deadbeef",
                                           progress=False)
        except RuntimeError as e:
            wrong = (type(e).__name__, str(e))
        return ((d / "plain.bin").read_bytes() == src.read_bytes(),
                (d / "hashed.bin").read_bytes() == src.read_bytes(), wrong,
                sorted(os.listdir(d)))      # no partial file left behind
    check(case)
    check(lambda torch: torch.hub.download_url_to_file((tmp_path / "missing").as_uri(),
                                                       str(tmp_path / "m"), progress=False))


def test_load_state_dict_from_url(hub_state, tmp_path):
    sd = {"w": real_torch.arange(6.).reshape(2, 3), "b": real_torch.tensor([1, 2])}
    ck = tmp_path / "ck.pth"
    real_torch.save(sd, ck)
    digest = hashlib.sha256(ck.read_bytes()).hexdigest()
    named = tmp_path / f"model-{digest[:8]}.pth"
    shutil.copy(ck, named)
    bad = tmp_path / "model-abcdef12.pth"
    shutil.copy(ck, bad)
    legacy = tmp_path / "legacy.zip"
    with zipfile.ZipFile(legacy, "w") as z:
        z.write(ck, "inner.pth")
    copy = tmp_path / "copy.pth"

    def case(torch):
        d = _side(torch, tmp_path)
        torch.hub.set_dir(str(d / "hub"))
        shutil.copy(ck, copy)
        first = torch.hub.load_state_dict_from_url(copy.as_uri(), progress=False)
        os.remove(copy)              # the second call reads the cached file
        second = torch.hub.load_state_dict_from_url(copy.as_uri(), progress=False)
        hashed = torch.hub.load_state_dict_from_url(named.as_uri(), progress=False,
                                                    check_hash=True)
        wrong = run(lambda _: torch.hub.load_state_dict_from_url(
            bad.as_uri(), progress=False, check_hash=True), None)
        renamed = torch.hub.load_state_dict_from_url(
            ck.as_uri(), model_dir=str(d / "md"), file_name="renamed.pt", progress=False,
            map_location="cpu", weights_only=True)
        old = torch.hub.load_state_dict_from_url(legacy.as_uri(), model_dir=str(d / "zz"),
                                                 progress=False)
        return (first, second, hashed, wrong, renamed, old,
                sorted(os.listdir(d / "hub" / "checkpoints")), sorted(os.listdir(d / "md")),
                sorted(os.listdir(d / "zz")))
    check(case)
    check(lambda torch: torch.utils.model_zoo.load_url is torch.hub.load_state_dict_from_url)


_HUBCONF = '''
dependencies = ["math"]


def double(x, k=2):
    """Doubles x.

    Args: k
    """
    return x * k


def _private():
    return "private"


CONST = 3


class Entry:
    "an entry class"
'''


def test_hub_load_from_a_local_directory(hub_state, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "hubconf.py").write_text(_HUBCONF)
    deps = tmp_path / "repo_deps"
    deps.mkdir()
    (deps / "hubconf.py").write_text('dependencies = ["math", "not_a_pkg_xyz", "also_missing"]'
                                     '\ndef f():\n    return 1\n')
    r, x = str(repo), lambda torch: torch.tensor([1., 2.])
    check(lambda torch: torch.hub.load(r, "double", x(torch), source="local"))
    check(lambda torch: torch.hub.load(r, "double", x(torch), k=5, source="LOCAL"))
    check(lambda torch: type(torch.hub.load(r, "Entry", source="local")).__name__)
    check(lambda torch: torch.hub.load(r, "_private", source="local"))
    check(lambda torch: torch.hub._load_local(r, "double", x(torch)))
    for model in ("missing", "CONST", 3):
        check(lambda torch: torch.hub.load(r, model, source="local"))
    check(lambda torch: torch.hub.load(str(deps), "f", source="local"))
    check(lambda torch: torch.hub.load(r, "double", 1, source="weird"))
    check(lambda torch: torch.hub.list(r, source="local"))     # list/help take no source
    check(lambda torch: torch.hub.help(r, "double", source="local"))


def test_hub_list_help_load_from_the_github_cache(hub_state, tmp_path, monkeypatch):
    from urllib.error import URLError

    def offline(url, dst, *args, **kwargs):
        raise URLError(f"offline: {url}")
    for lib in (real_torch, torchlike):    # a repository not in the cache is not fetched
        monkeypatch.setattr(lib.hub, "download_url_to_file", offline)

    def case(torch):
        d = _side(torch, tmp_path)
        torch.hub.set_dir(str(d))
        for owner, name, ref in [("someone", "proj", "main"), ("someone", "proj", "v1.0"),
                                 ("other", "repo", "master"), ("pytorch", "foo", "main")]:
            repo = d / f"{owner}_{name}_{ref}"
            repo.mkdir()
            (repo / "hubconf.py").write_text(_HUBCONF + f"\ndef ref():\n    return '{ref}'\n")
        kw = {"skip_validation": True}
        seen = [torch.hub.list("someone/proj:main", trust_repo=True, **kw),
                torch.hub.help("someone/proj:main", "double", trust_repo=True, **kw),
                torch.hub.load("someone/proj:v1.0", "ref", trust_repo="check", **kw),
                torch.hub.load("someone/proj", "ref", verbose=False, **kw),
                torch.hub.load("other/repo", "ref", **kw),
                torch.hub.load("pytorch/foo:main", "ref", trust_repo="check", **kw),
                (d / "trusted_list").read_text()]
        for bad in ("badformat", "a/b/c:main"):
            seen.append(run(lambda _: torch.hub.list(bad, trust_repo=True, **kw), None))
        seen.append(run(lambda _: torch.hub.help("someone/proj:main", "nope", **kw), None))
        seen.append(run(lambda _: torch.hub.load("fresh/repo:main", "ref", trust_repo=True,
                                                 **kw), None))
        answers = iter(["y", "yes", "n", "maybe", ""])
        monkeypatch.setattr("builtins.input", lambda prompt: (seen.append(prompt),
                                                              next(answers))[1])
        for repo in ("someone/proj:main", "new/one:main", "new/two:main", "new/three:main",
                     "new/four:main"):
            seen.append(run(lambda _: torch.hub.load(repo, "ref", trust_repo=False, **kw),
                            None))
        seen.append((d / "trusted_list").read_text())
        return [str(x).replace(str(d), "<hub>") if isinstance(x, Raised) else x for x in seen]
    check(case)


# ---- torch.jit ---------------------------------------------------------------------------------

def test_script_and_trace_of_functions():
    def case(torch):
        def f(x, y):
            return x * 2 + y

        def g(x):
            if torch.jit.is_scripting():
                return x + 100
            return x + 1

        def h(x):
            return x + (10 if torch.jit.is_tracing() else 0)
        x, y = torch.arange(3.), torch.ones(3)
        sf, sg = torch.jit.script(f), torch.jit.script(g)
        tf = torch.jit.trace(f, (x, y))
        th = torch.jit.trace(h, torch.ones(1))
        return (sf(x, y), tf(x * 3, y), sg(x), g(x), th(torch.ones(1)), h(torch.ones(1)),
                callable(sf), isinstance(sf, torch.jit.ScriptFunction),
                torch.jit.script(sf) is sf, torch.jit.is_scripting(), torch.jit.is_tracing(),
                torch._C._get_tracing_state())
    check(case)


def test_script_and_trace_of_modules():
    def case(torch):
        class M(torch.nn.Module):
            c: torch.jit.Final[int] = 3

            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(3, 2)
                self.register_buffer("b", torch.zeros(1))

            def forward(self, x):
                if torch.jit.is_scripting():
                    return self.lin(x) * self.c + self.helper(x)
                return self.lin(x) + self.helper(x)

            @torch.jit.ignore
            def helper(self, x):
                return x.sum() + (1000 if torch.jit.is_scripting() else 0)

            @torch.jit.unused
            def unused_fn(self, x):
                return x

            @torch.jit.export
            def exported(self, x):
                return x + (1 if torch.jit.is_scripting() else 0)

        torch.manual_seed(0)
        m = M()
        x = torch.arange(6.).reshape(2, 3)
        sm = torch.jit.script(m)
        tm = torch.jit.trace(m, x)
        out = [sm(x), m(x), tm(x), sm.exported(x), m.exported(x), sm.unused_fn(x), sm.c,
               sm.original_name, isinstance(sm, torch.nn.Module),
               isinstance(sm, torch.jit.ScriptModule), list(sm.state_dict()),
               [n for n, _ in sm.named_parameters()], sm.lin.weight is m.lin.weight,
               torch.jit.script(sm) is sm]
        sm.eval()
        out += [m.training, m.lin.training, sm.training, sm.lin.training]
        sm.b.add_(1)                    # buffers are shared with the original
        out.append(m.b)
        return out
    check(case)


def test_jit_decorators_and_helpers():
    def case(torch):
        def f(x):
            return x + 1
        seen = [torch.jit.ignore(f) is f, torch.jit.unused(f) is f, torch.jit.export(f) is f,
                torch.jit.ignore(drop=True)(lambda: 5)(), torch.jit.ignore(lambda: 6)(),
                torch.jit.unused(lambda: 7)(), torch.jit.annotate(List[int], []),
                torch.jit.annotate(Optional[torch.Tensor], None), torch.jit.annotate(int, "x"),
                torch.jit.Attribute(3, int), torch.jit.Final[int]]
        fut = torch.jit.fork(lambda a, b=1: a * b, torch.ones(2), b=3)
        seen += [torch.jit.wait(fut), fut.wait(), type(fut).__name__]
        for bad in (lambda: torch.jit.ignore(3), lambda: torch.jit.export(3),
                    lambda: torch.jit.unused(3), lambda: torch.jit.script(3),
                    lambda: torch.jit.script("abc"), lambda: torch.jit.script(len),
                    lambda: torch.jit.trace(3, ()), lambda: torch.jit.fork(int, "x"),
                    lambda: torch.jit.freeze(torch.nn.Linear(2, 2)),
                    lambda: torch.jit.freeze(torch.jit.script(torch.nn.Linear(2, 2)))):
            seen.append(run(lambda _: bad(), None))
        return seen
    check(case)


@pytest.mark.parametrize("expr", [
    "[1, 2], List[int]", "[1, 'a'], List[int]", "[], List[int]", "[[1], [2]], List[List[int]]",
    "[[]], List[List[int]]", "{'a': torch.ones(1)}, Dict[str, torch.Tensor]",
    "{'a': 1}, Dict[str, torch.Tensor]", "{}, Dict[str, int]", "None, Optional[int]",
    "3, Optional[int]", "'a', Optional[int]", "[], Optional[List[int]]",
    "[1], Optional[List[str]]", "(1, 'a'), Tuple[int, str]", "(1, 2), Tuple[int, str]",
    "(1, 2), Tuple[int]", "[1, 2], Tuple[int, int]", "(1, 2), Tuple[int, ...]",
    "(), tuple[int]", "torch.ones(1), torch.Tensor", "True, int", "1, float", "(1,), tuple",
    "[1], list", "[1], List", "{}, dict", "{}, Dict", "1, Optional", "[1], list[str]",
    "1, 'int'", "1, (int, str)", "1, typing.Union[int, str]", "None, type(None)",
])
def test_jit_isinstance(expr):
    check(lambda torch: eval(f"torch.jit.isinstance({expr})",
                             {"torch": torch, "typing": typing, "List": List, "Dict": Dict,
                              "Optional": Optional, "Tuple": Tuple}))


def test_broadcasting_list_annotation():
    def case(torch):
        BroadcastingList2 = torch.jit.annotations.BroadcastingList2

        def pool(x, k: BroadcastingList2[int]) -> int:
            return len(k) if isinstance(k, list) else k
        return (pool(None, 3), pool(None, [1, 2]), BroadcastingList2[int],
                pool.__annotations__["k"], torch.jit.annotations.BroadcastingList3[float])
    check(case)


# ---- torch.compiler / torch._dynamo -------------------------------------------------------------

def test_is_compiling_and_disable():
    def case(torch):
        def fn(x):
            return x + (1 if torch.compiler.is_compiling() else 0) + (
                10 if torch._dynamo.is_compiling() else 0)

        @torch.compiler.disable
        def eager(x):
            return x + (100 if torch.compiler.is_compiling() else 0)

        def outer(x):
            return eager(x) * 2 + (1 if torch.compiler.is_compiling() else 0)
        x = torch.ones(2)
        return (fn(x), torch.compile(fn, backend="eager")(x), eager(x),
                torch.compile(outer, backend="eager")(x), torch.compiler.is_compiling(),
                torch.compiler.is_dynamo_compiling(), torch.compiler.is_exporting(),
                torch.compiler.disable(recursive=False)(lambda y: y + 1)(1),
                torch._dynamo.disable(lambda y: y + 2)(1),
                torch.compiler.disable(reason="why")(lambda y: y + 3)(1))
    try:
        check(case)
    finally:
        real_torch._dynamo.reset()


def test_dynamo_config_patch_and_marks():
    def case(torch):
        importlib.import_module(f"{torch.__name__}._dynamo")   # PyTorch imports it lazily
        cfg = torch._dynamo.config
        seen = [cfg.cache_size_limit]

        @cfg.patch(cache_size_limit=99)
        def inside():
            return cfg.cache_size_limit
        seen += [inside(), cfg.cache_size_limit]
        with cfg.patch("cache_size_limit", 77):
            seen.append(cfg.cache_size_limit)
        with cfg.patch({"cache_size_limit": 66, "suppress_errors": True}):
            seen.append((cfg.cache_size_limit, cfg.suppress_errors))
        try:
            with cfg.patch(cache_size_limit=5):
                raise KeyError("x")
        except KeyError:
            pass
        seen += [cfg.cache_size_limit, cfg.suppress_errors]
        seen.append(run(lambda _: cfg.patch(not_a_setting=1).__enter__(), None))
        seen.append(run(lambda _: cfg.nonexistent_setting, None))
        seen.append(run(lambda _: setattr(cfg, "nonexistent_setting", 1), None))
        x = torch.ones(3, 4)

        def leaf(t):        # a fresh function: allow_in_graph registers it for the process
            return t
        seen += [torch._dynamo.mark_dynamic(x, 0), torch._dynamo.mark_dynamic(x, [0, 1]),
                 torch._dynamo.mark_dynamic(x, 1, min=2, max=10),
                 torch._dynamo.mark_static(x, 1), torch._dynamo.maybe_mark_dynamic(x, 0),
                 x._dynamo_dynamic_indices, x._dynamo_static_indices,
                 x._dynamo_weak_dynamic_indices, torch._dynamo.reset(),
                 torch.compiler.reset(), torch.compiler.allow_in_graph(leaf) is leaf]
        seen.append(run(lambda _: torch._dynamo.mark_dynamic(3, 0), None))
        return seen
    check(case)


# ---- torch.nn.modules.utils, torch.ao.quantization, torch.onnx, torch._C ------------------------

@pytest.mark.parametrize("fn", ["_single", "_pair", "_triple", "_quadruple"])
def test_ntuple_helpers(fn):
    def case(torch):
        f = getattr(torch.nn.modules.utils, fn)
        return (f(3), f((1, 2)), f([4]), f("ab"), f(torch.Size([2, 3])), f(None), f(2.5),
                f(range(2)), f.__name__, f(torch.tensor([1, 2])))
    check(case)


@pytest.mark.parametrize("expr", [
    "U._reverse_repeat_tuple((1, 2, 3), 2)", "U._reverse_repeat_tuple([1], 3)",
    "U._reverse_repeat_tuple((), 2)", "U._list_with_default([None, 3], [1, 2, 5, 6])",
    "U._list_with_default(4, [1, 2])", "U._list_with_default([None], [7, 8])",
    "U._list_with_default([None, 3], [1, 2])",
    "U._list_with_default((None, 3), torch.Size([1, 2, 5, 6]))",
    "U._list_with_default(3.5, [1])", "U._list_with_default(torch.tensor(3), [1])",
    "U._ntuple(5)(1)", "U._ntuple(2, '_x').__name__", "U._ntuple(2).__name__", "U.__all__",
])
def test_module_utils(expr):
    check(lambda torch: eval(expr, {"torch": torch, "U": torch.nn.modules.utils}))


def test_consume_prefix_in_state_dict_if_present():
    def case(torch):
        import collections
        sd = collections.OrderedDict([("module.a", torch.ones(1)), ("module.b.c", 2), ("x", 3),
                                      ("module.", 4)])
        sd._metadata = collections.OrderedDict([("", {"v": 1}), ("module", {"v": 2}),
                                                ("module.b", {"v": 3}), ("x", {"v": 4})])
        torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, "module.")
        plain = {"m.a": 1, "b": 2}
        torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(plain, "m.")
        return list(sd.items()), list(sd._metadata.items()), plain
    check(case)


def test_quant_stubs_in_a_float_model():
    def case(torch):
        Q = importlib.import_module(f"{torch.__name__}.ao.quantization")
        DeQuantStub, QConfig, QuantStub = Q.DeQuantStub, Q.QConfig, Q.QuantStub

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.quant = QuantStub()
                self.fc = torch.nn.Linear(3, 2)
                self.dequant = DeQuantStub()

            def forward(self, x):
                return self.dequant(self.fc(self.quant(x)))
        torch.manual_seed(0)
        net = Net()
        x = torch.arange(6.).reshape(2, 3)
        q = QConfig(activation=1, weight=2)
        return (net(x), repr(net), list(net.state_dict()), QuantStub()(x) is x, q, q._fields,
                q.activation, QConfig(weight=1, activation=2), QuantStub(q).qconfig,
                hasattr(QuantStub(), "qconfig"), "qconfig" in vars(QuantStub(0)),
                run(lambda _: QConfig(torch.nn.Identity(), 1), None),
                run(lambda _: QConfig(1), None), run(lambda _: QConfig(1, 2, 3), None))
    check(case)


def test_onnx_registration_surface():
    def case(torch):
        importlib.import_module(f"{torch.__name__}.onnx.symbolic_opset11")
        symbolic_helper = importlib.import_module(f"{torch.__name__}.onnx.symbolic_helper")
        seen = [torch.onnx.is_in_onnx_export(),
                torch.onnx.register_custom_op_symbolic("mydomain::op", lambda g, x: x, 11),
                torch.onnx.unregister_custom_op_symbolic("mydomain::op", 11),
                torch.onnx.register_custom_op_symbolic("::b", lambda g: 1, 11),
                symbolic_helper.parse_args("v", "i")(lambda g, x, y: 1)(0, 1, 2),
                torch.onnx.TrainingMode.EVAL.value, torch.onnx.OperatorExportTypes.ONNX.value]
        for name in ("badname", "a::b::c", "a::1b", "a::b.c", "a::", "::", "a:b", "1a::b",
                     "a-b::c", "a::-b"):
            seen.append(run(lambda _: torch.onnx.register_custom_op_symbolic(
                name, lambda g: 1, 11), None))
        return seen
    check(case)


def test_c_dispatch_keys_and_tracing_state():
    check(lambda torch: (list(torch._C.DispatchKey.__members__),
                         torch._C.DispatchKey.CPU.name, str(torch._C.DispatchKey.AutogradCPU),
                         torch._C.DispatchKey.Undefined.value, torch._C._get_tracing_state()))


# ---- float8 dtypes, torch.distributed on a build without it, CUDA-graph and stream names -----

FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]


@pytest.mark.parametrize("name", FLOAT8)
def test_float8_storage_and_conversion(name):
    """8-bit floats as PyTorch has them: conversions both ways (PyTorch's rounding and
    saturation), bit views, creation, printing, promotion refused."""
    def f(torch):
        d = getattr(torch, name)
        x = torch.tensor([1.5, -2.25, 300.0, 0.0123, -1e-3, 17.0]).to(d)
        z = torch.zeros(2, 3, dtype=d)
        try:
            promoted = torch.promote_types(d, torch.float32)
        except RuntimeError as e:
            promoted = str(e)
        return (repr(d), str(x), x.float(), x.view(torch.uint8), z.dtype, z.shape,
                x.element_size(), x.is_floating_point(), promoted, str(x.to(torch.float64)))
    check(f)


def test_float8_e8m0fnu_and_mixing():
    check(lambda torch: (repr(torch.float8_e8m0fnu),
                         torch.tensor([1.0, 2.0, 0.5, 3.0]).to(torch.float8_e8m0fnu).float()))
    check(lambda torch: torch.ones(2).to(torch.float8_e5m2) + torch.ones(2))


def test_distributed_as_on_a_build_without_it():
    """torchlike has no distributed runtime yet: `is_available()` answers as a PyTorch build
    without one does, so libraries take their single-process paths."""
    assert torchlike.distributed.is_available() is False
    assert torchlike.distributed.is_initialized() is False
    assert real_torch.distributed.is_initialized() is False


def test_stream_context_and_graph_names():
    """Libraries name `torch.cuda.StreamContext`/`CUDAGraph` in annotations; a `StreamContext`
    of None changes nothing; CUDA graphs cannot be made."""
    assert isinstance(torchlike.cuda.stream(None), torchlike.cuda.StreamContext)
    with torchlike.cuda.StreamContext(None) as s:
        assert s is None
    assert torchlike.cuda.is_current_stream_capturing() is False
    with pytest.raises(RuntimeError, match="dummy base class CUDAGraph"):
        torchlike.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="dummy base class CUDAGraph"):
        real_torch.cuda.CUDAGraph()


# ---- torch.nn.attention: sdpa_kernel, flex_attention -------------------------------------------

_FQ, _FK, _FV = (np.random.RandomState(i).randn(2, 4, 6, 8).astype(np.float32) for i in range(3))
_FK2 = np.random.RandomState(3).randn(2, 2, 6, 8).astype(np.float32)


def _flex(torch, mode):
    fa = importlib.import_module(torch.__name__ + ".nn.attention.flex_attention")
    q, k, v = torch.tensor(_FQ), torch.tensor(_FK), torch.tensor(_FV)
    k2 = torch.tensor(_FK2)

    def causal(b, h, qi, ki):
        return qi >= ki

    def first_row_empty(b, h, qi, ki):
        return (qi > 0) & (qi >= ki)
    cases = {
        "plain": lambda: fa.flex_attention(q, k, v),
        "causal": lambda: fa.flex_attention(
            q, k, v, block_mask=fa.create_block_mask(causal, None, None, 6, 6, device="cpu")),
        "empty_row_lse": lambda: fa.flex_attention(
            q, k, v, block_mask=fa.create_block_mask(first_row_empty, 2, 4, 6, 6, device="cpu"),
            return_lse=True),
        "score_mod": lambda: fa.flex_attention(
            q, k, v, score_mod=lambda s, b, h, qi, ki: s + (qi - ki) * 0.1 + h),
        "gqa": lambda: fa.flex_attention(q, k2, k2, enable_gqa=True, scale=0.3),
        "gqa_refused": lambda: fa.flex_attention(q, k2, k2),
        "and_masks": lambda: fa.create_mask(fa.and_masks(causal, lambda b, h, qi, ki: ki > 1),
                                            1, 1, 4, 4, device="cpu"),
        "or_masks": lambda: fa.create_mask(fa.or_masks(causal, lambda b, h, qi, ki: ki > 4),
                                           2, 1, 5, 6, device="cpu"),
        "block_shape": lambda: fa.create_block_mask(causal, 1, 1, 200, 200, device="cpu").shape,
        "aux_lse": lambda: fa.flex_attention(q, k, v, return_aux=fa.AuxRequest(lse=True))[1].lse,
        "aux_max_on_cpu": lambda: fa.flex_attention(
            q, k, v, return_aux=fa.AuxRequest(lse=True, max_scores=True)),
        "grad": lambda: torch.autograd.grad(
            fa.flex_attention(q.requires_grad_(), k, v,
                              block_mask=fa.create_block_mask(causal, 1, 1, 6, 6,
                                                              device="cpu")).sum(), q),
    }
    return cases[mode]()


@pytest.mark.parametrize("mode", ["plain", "causal", "empty_row_lse", "score_mod", "gqa",
                                  "gqa_refused", "and_masks", "or_masks", "block_shape",
                                  "aux_lse", "aux_max_on_cpu", "grad"])
def test_flex_attention(mode):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda torch: _flex(torch, mode), rtol=1e-5, atol=1e-5)


def test_sdpa_kernel_context():
    def f(torch):
        from importlib import import_module
        att = import_module(torch.__name__ + ".nn.attention")
        q = torch.ones(1, 1, 3, 4)
        with att.sdpa_kernel(att.SDPBackend.MATH):
            a = torch.nn.functional.scaled_dot_product_attention(q, q, q)
        with att.sdpa_kernel([att.SDPBackend.MATH, att.SDPBackend.EFFICIENT_ATTENTION]):
            b = torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
        return a, b, int(att.SDPBackend.FLASH_ATTENTION), att.SDPBackend.MATH.name
    check(f)


# ---- real memory: data_ptr, UntypedStorage bytes, from_file, asarray(storage), frombuffer -----

def _read_memory(t):
    """The bytes at `t.data_ptr()`, read through ctypes as C code (safetensors) reads them."""
    import ctypes
    n = t.numel() * t.element_size()
    return bytes((ctypes.c_ubyte * n).from_address(t.data_ptr()))


def test_data_ptr_is_memory_c_code_can_read():
    def f(torch):
        x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        p = x.data_ptr()
        first = _read_memory(x)
        x.add_(1)                      # an op between: the address stays, the bytes follow
        y = x * 2                      # and other tensors are untouched
        second = _read_memory(x)
        view = x[1]
        return (first, second, x.data_ptr() == p, view.data_ptr() - p,
                _read_memory(view), _read_memory(y), x.untyped_storage().data_ptr() == p)
    check(f)


def test_untyped_storage_bytes_and_files(tmp_path):
    path = tmp_path / "blob.bin"
    path.write_bytes(bytes(range(32)))

    def f(torch):
        s = torch.UntypedStorage.from_file(str(path), False, 32)
        a = torch.asarray(s[4:12], dtype=torch.uint8)
        a[0] = 99                       # private mapping: the storage changes, the file not
        words = torch.asarray(s[0:8], dtype=torch.uint8).view(torch.int32).reshape(2)
        try:
            torch.UntypedStorage.from_file(str(path), False, 64)
        except RuntimeError as e:
            too_big = str(e).replace(str(path), "PATH")
        st = torch.ones(4).untyped_storage()
        return (s.nbytes(), s[3], s[4], a, words, path.read_bytes()[4], too_big,
                torch.asarray(st), torch.asarray(st, dtype=torch.float32),
                torch.asarray(torch.ones(3, dtype=torch.int16).untyped_storage()).shape,
                s.untyped() is s, len(torch.UntypedStorage(8)))
    check(f)


def test_untyped_storage_from_file_shared_writes_the_file(tmp_path):
    def f(torch, name):
        p = tmp_path / name
        p.write_bytes(bytes(16))
        x = torch.asarray(torch.UntypedStorage.from_file(str(p), True, 16), dtype=torch.uint8)
        x[0] = 77
        del x
        return p.read_bytes()[:2]
    assert f(real_torch, "a.bin") == f(torchlike, "b.bin") == bytes([77, 0])


@pytest.mark.parametrize("kw", [dict(dtype="int32"), dict(dtype="int16", count=3, offset=2),
                                dict(dtype="int32", count=5), dict(dtype="int64", offset=3),
                                dict(dtype="float32", offset=16)])
def test_frombuffer(kw):
    def f(torch):
        k = dict(kw, dtype=getattr(torch, kw["dtype"]))
        t = torch.frombuffer(bytearray(range(16)), **k)
        return t, t.dtype
    check(f)
    check(lambda torch: torch.frombuffer(b"", dtype=torch.int32))


def test_frombuffer_shares_memory():
    def f(torch):
        buf = bytearray(8)
        t = torch.frombuffer(buf, dtype=torch.uint8)
        t[2] = 5
        return bytes(buf), t
    check(f)


# ---- nn.utils.fusion, device queries ----------------------------------------------------------

@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval(transpose):
    def f(torch):
        torch.manual_seed(0)
        conv = (torch.nn.ConvTranspose2d(3, 4, 3) if transpose else torch.nn.Conv2d(3, 4, 3))
        bn = torch.nn.BatchNorm2d(4)
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        conv.eval(), bn.eval()
        fused = torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        x = torch.randn(2, 3, 6, 6)
        return fused(x), bn(conv(x)), type(fused.weight).__name__, fused.weight.requires_grad
    check(f, rtol=1e-5, atol=1e-6)


def test_fuse_linear_bn_eval():
    def f(torch):
        torch.manual_seed(0)
        lin, bn = torch.nn.Linear(5, 3), torch.nn.BatchNorm1d(3)
        bn.running_var.fill_(1.7)
        lin.eval(), bn.eval()
        fused = torch.nn.utils.fusion.fuse_linear_bn_eval(lin, bn)
        x = torch.randn(4, 5)
        return fused(x), bn(lin(x))
    check(f, rtol=1e-5, atol=1e-6)


def test_device_queries_of_absent_backends():
    def f(torch):
        x = torch.ones(2)
        return (x.is_mps, x.is_xpu, x.is_ipu, x.is_mtia, x.is_xla, x.is_vulkan, x.is_nested,
                x.is_sparse_csr, x.is_set_to(x), x.is_set_to(x.view(2)), x.is_set_to(x[:1]),
                torch.xpu.is_available(), torch.xpu.device_count(), torch.mps.device_count())
    check(f)


def test_data_ptr_does_not_leave_the_tensor_on_the_host():
    """After `data_ptr()` (which moves the bytes to host memory C code can read), the next op
    takes them back into a device buffer, so the tensor's ops cost what they did before; the
    address stays the same."""
    x = torchlike.ones(4)
    p = x.data_ptr()
    assert x._st._np is not None
    x.add_(1)
    assert x._st._np is None and x._st._data is not None
    assert x.data_ptr() == p and _read_memory(x) == real_torch.full((4,), 2.0).numpy().tobytes()


@pytest.mark.xfail(strict=True, reason="stated divergence (docs/ecosystem.md): arithmetic on "
                   "8-bit floats computes where PyTorch's CPU kernels raise 'not implemented'")
def test_float8_arithmetic_raises_as_pytorchs():
    check(lambda torch: torch.ones(2).to(torch.float8_e4m3fn) * 2)
