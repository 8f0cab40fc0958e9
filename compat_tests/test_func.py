"""torch.func's autodiff transforms (grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd,
hessian) compared with real PyTorch: values, dtypes, output structure and the errors."""
import numpy as np
import pytest

from harness import check

RNG = np.random.default_rng(0)
X = RNG.standard_normal(3).astype(np.float32)
Y = RNG.standard_normal(3).astype(np.float32)
M = RNG.standard_normal((2, 3)).astype(np.float32)


def t(torch, a):
    return torch.tensor(a.copy())


def f_scalar(torch, x, y):
    return (x.sin() * y).sum() + (x * x).mean()


# ---- grad -------------------------------------------------------------------------------------

GRAD_CASES = {
    "argnum0": lambda torch, F: F.grad(lambda x, y: f_scalar(torch, x, y))(
        t(torch, X), t(torch, Y)),
    "argnum1": lambda torch, F: F.grad(lambda x, y: f_scalar(torch, x, y), argnums=1)(
        t(torch, X), t(torch, Y)),
    "argnum_neg": lambda torch, F: F.grad(lambda x, y: f_scalar(torch, x, y), argnums=-1)(
        t(torch, X), t(torch, Y)),
    "argnums_tuple": lambda torch, F: F.grad(lambda x, y: f_scalar(torch, x, y),
                                             argnums=(1, 0))(t(torch, X), t(torch, Y)),
    "has_aux": lambda torch, F: F.grad(lambda x: ((x ** 3).sum(), {"sq": x * x, "n": x.norm()}),
                                       has_aux=True)(t(torch, X)),
    "grad_and_value": lambda torch, F: F.grad_and_value(lambda x: (x.exp() * 2).sum())(
        t(torch, X)),
    "grad_and_value_aux": lambda torch, F: F.grad_and_value(
        lambda x: (x.exp().sum(), x.cos()), has_aux=True)(t(torch, X)),
    "nested": lambda torch, F: F.grad(lambda x: F.grad(lambda z: z.sin().sum())(x).sum())(
        t(torch, X)),
    "third_order": lambda torch, F: F.grad(F.grad(F.grad(lambda z: (z ** 4).sum())))(
        torch.tensor(1.5)),
    "dict_arg": lambda torch, F: F.grad(lambda d: (d["a"] * d["b"].exp()).sum())(
        {"a": t(torch, X), "b": t(torch, Y)}),
    "kwargs_fixed": lambda torch, F: F.grad(lambda x, scale=1.0: (x * scale).pow(2).sum())(
        t(torch, X), scale=3.0),
    "float64": lambda torch, F: F.grad(lambda x: (x ** 2).sum())(t(torch, X).double()),
    "mixed_dtype": lambda torch, F: F.grad(lambda x: (x.double() ** 2).sum())(t(torch, X)),
    "unused_input": lambda torch, F: F.grad(lambda x, y: (y * 2).sum())(t(torch, X), t(torch, Y)),
    "views_inplace": lambda torch, F: F.grad(
        lambda x: (lambda y: (y[1:].mul_(3), y.view(3, 1).t().sum())[1])(x * 1))(t(torch, X)),
    "closure_param": lambda torch, F: (lambda w: F.grad(lambda x: (x @ w).sum())(
        t(torch, X)))(torch.nn.Parameter(t(torch, M).t().contiguous())),
    "under_no_grad": lambda torch, F: (lambda g: (g(t(torch, X)), torch.is_grad_enabled()))(
        torch.no_grad()(F.grad(lambda x: (x * x).sum() if torch.is_grad_enabled() else x[0]))),
    "requires_grad_inside": lambda torch, F: F.grad(
        lambda x: (x * x).sum() if x.requires_grad else x.sum() * 0)(t(torch, X)),
    # errors
    "non_scalar": lambda torch, F: F.grad(lambda x: x * 2)(t(torch, X)),
    "one_element": lambda torch, F: F.grad(lambda x: x[:1])(t(torch, X)),
    "not_tensor_out": lambda torch, F: F.grad(lambda x: 3.0)(t(torch, X)),
    "int_input": lambda torch, F: F.grad(lambda x: x.sum())(torch.arange(3)),
    "float_input": lambda torch, F: F.grad(lambda x: x)(1.0),
    "argnum_oob": lambda torch, F: F.grad(lambda x: x.sum(), argnums=1)(t(torch, X)),
    "argnum_float": lambda torch, F: F.grad(lambda x: x.sum(), argnums=1.0)(t(torch, X)),
    "argnums_empty": lambda torch, F: F.grad(lambda x: x.sum(), argnums=())(t(torch, X)),
    "argnums_dup": lambda torch, F: F.grad(lambda x, y: (x * y).sum(), argnums=(0, -2))(
        t(torch, X), t(torch, Y)),
    "no_args": lambda torch, F: F.grad(lambda: torch.tensor(1.))(),
    "aux_not_pair": lambda torch, F: F.grad(lambda x: x.sum(), has_aux=True)(t(torch, X)),
    "aux_not_tensor": lambda torch, F: F.grad(lambda x: (x.sum(), 1), has_aux=True)(t(torch, X)),
    "complex_out": lambda torch, F: F.grad(lambda x: (x * 1j).sum())(t(torch, X)),
    "leaf_inplace": lambda torch, F: F.grad(lambda x: x.add_(1).sum())(t(torch, X)),
}


@pytest.mark.parametrize("case", list(GRAD_CASES))
def test_grad(case):
    check(lambda torch: GRAD_CASES[case](torch, torch.func))


# ---- vjp / jvp / linearize --------------------------------------------------------------------

def _vjp_multi(torch, F):
    out, fn = F.vjp(lambda x, y: (x * y, (x.exp(), y.sum())), t(torch, X), t(torch, Y))
    return out, fn((torch.ones(3), (t(torch, Y), torch.tensor(2.))))


def _vjp_aux(torch, F):
    out, fn, aux = F.vjp(lambda x: (x.sin(), {"c": x.cos()}), t(torch, X), has_aux=True)
    return out, fn(t(torch, Y)), aux


def _vjp_twice(torch, F):
    _, fn = F.vjp(lambda x: x.tanh() * 2, t(torch, M))
    return fn(torch.ones(2, 3)), fn(t(torch, M))


VJP_CASES = {
    "multi_output": _vjp_multi,
    "aux": _vjp_aux,
    "call_twice": _vjp_twice,
    "linear_view": lambda torch, F: F.vjp(lambda m: m.t()[1:] @ m, t(torch, M))[1](
        torch.ones(2, 3)),
    "ct_float64": lambda torch, F: F.vjp(lambda x: x * 2, t(torch, X))[1](t(torch, Y).double()),
    "bad_ct_shape": lambda torch, F: F.vjp(lambda x: x * 2, t(torch, X))[1](torch.ones(2)),
    "bad_ct_struct": lambda torch, F: F.vjp(lambda x: (x * 2, x), t(torch, X))[1](torch.ones(3)),
    "bad_ct_type": lambda torch, F: F.vjp(lambda x: x * 2, t(torch, X))[1](1.0),
    "int_output": lambda torch, F: F.vjp(lambda x: (x * 2).long(), t(torch, X)),
    "nontensor_output": lambda torch, F: F.vjp(lambda x: 2, t(torch, X)),
    "int_primal": lambda torch, F: F.vjp(lambda x: x * 2, torch.arange(3)),
    "aux_not_pair": lambda torch, F: F.vjp(lambda x: x, t(torch, X), has_aux=True),
}


@pytest.mark.parametrize("case", list(VJP_CASES))
def test_vjp(case):
    check(lambda torch: VJP_CASES[case](torch, torch.func))


JVP_CASES = {
    "single": lambda torch, F: F.jvp(lambda x: x.sin() * x, (t(torch, X),), (t(torch, Y),)),
    "two_inputs": lambda torch, F: F.jvp(lambda x, y: (x * y, (x - y).exp()),
                                         (t(torch, X), t(torch, Y)), (t(torch, Y), t(torch, X))),
    "aux": lambda torch, F: F.jvp(lambda x: (x ** 2, x.sum()), (t(torch, X),), (t(torch, Y),),
                                  has_aux=True),
    "int_output": lambda torch, F: F.jvp(lambda x: (x * 2).long(), (t(torch, X),),
                                         (t(torch, Y),)),
    "linearize": lambda torch, F: (lambda r: (r[0], r[1](t(torch, Y)), r[1](t(torch, X))))(
        F.linearize(lambda x: x.sin().cumsum(0), t(torch, X))),
    "not_tuple": lambda torch, F: F.jvp(lambda x: x, t(torch, X), t(torch, X)),
    "size_mismatch": lambda torch, F: F.jvp(lambda x: x, (t(torch, X),), (torch.ones(2),)),
    "struct_mismatch": lambda torch, F: F.jvp(lambda x: x, (t(torch, X),),
                                              (t(torch, X), t(torch, X))),
    "nontensor_output": lambda torch, F: F.jvp(lambda x: 3, (t(torch, X),), (t(torch, X),)),
    "int_primal": lambda torch, F: F.jvp(lambda x: x, (torch.arange(3),), (torch.arange(3),)),
    "empty": lambda torch, F: F.jvp(lambda: torch.ones(1), (), ()),
    "aux_not_pair": lambda torch, F: F.jvp(lambda x: x, (t(torch, X),), (t(torch, X),),
                                           has_aux=True),
}


@pytest.mark.parametrize("case", list(JVP_CASES))
def test_jvp(case):
    check(lambda torch: JVP_CASES[case](torch, torch.func))


# ---- jacobians --------------------------------------------------------------------------------

def g2(x, y):
    return (x[:, None] * y[None, :]).tanh(), (x * y).sum()


JAC_CASES = {
    "single": lambda F, J, torch: J(lambda x: x.sin() * x.sum())(t(torch, X)),
    "matrix_in": lambda F, J, torch: J(lambda m: m @ m.t())(t(torch, M)),
    "multi_out_argnum1": lambda F, J, torch: J(g2, argnums=1)(t(torch, X), t(torch, Y)),
    "multi_out_argnums": lambda F, J, torch: J(g2, argnums=(0, 1))(t(torch, X), t(torch, Y)),
    "aux": lambda F, J, torch: J(lambda x: (x.exp(), x.sum()), has_aux=True)(t(torch, X)),
    "dict_in": lambda F, J, torch: J(lambda d: d["a"] * d["b"])(
        {"a": t(torch, X), "b": t(torch, Y)}),
    "mixed_dtype": lambda F, J, torch: J(lambda x: x.double() ** 2)(t(torch, X)),
    "int_output": lambda F, J, torch: J(lambda x: (x * 2).long())(t(torch, X)),
    "int_input": lambda F, J, torch: J(lambda x: x * 2)(torch.arange(3)),
    "nontensor_output": lambda F, J, torch: J(lambda x: 3)(t(torch, X)),
    "argnum_oob": lambda F, J, torch: J(lambda x: x, argnums=2)(t(torch, X)),
    "aux_not_pair": lambda F, J, torch: J(lambda x: x, has_aux=True)(t(torch, X)),
}


@pytest.mark.parametrize("mode", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("case", list(JAC_CASES))
def test_jacobians(case, mode):
    check(lambda torch: JAC_CASES[case](torch.func, getattr(torch.func, mode), torch))


HESS_CASES = {
    "scalar_fn": lambda torch, F: F.hessian(lambda x: (x.sin() * x.sum()).sum())(t(torch, X)),
    "argnums": lambda torch, F: F.hessian(lambda x, y: (x * y.exp()).sum() ** 2,
                                          argnums=(0, 1))(t(torch, X), t(torch, Y)),
    "vector_fn": lambda torch, F: F.hessian(lambda x: x ** 3)(t(torch, X)),
    "jacrev_of_jacfwd": lambda torch, F: F.jacrev(F.jacfwd(lambda m: (m ** 2).sum(1)))(
        t(torch, M)),
    "jacrev_chunk_size": lambda torch, F: F.jacrev(lambda x: x.exp(), chunk_size=2)(t(torch, X)),
    "jacrev_chunk_zero": lambda torch, F: F.jacrev(lambda x: x.exp(), chunk_size=0)(t(torch, X)),
}


@pytest.mark.parametrize("case", list(HESS_CASES))
def test_hessian_and_composition(case):
    check(lambda torch: HESS_CASES[case](torch, torch.func))


def test_functionalize_and_debug_unwrap():
    check(lambda torch: (torch.func.functionalize(lambda x: x.add_(1) * 2)(torch.zeros(2)),
                         torch.func.debug_unwrap(torch.ones(2))))
    check(lambda torch: torch.func.functionalize(lambda x: x, remove="bad"))


# ---- outer autograd through a transform's results ---------------------------------------------

def _outer(torch, which):
    """Tensors reach the transform as arguments (torchlike does not track tensors a transformed
    function closes over)."""
    F = torch.func
    w = torch.tensor(X.copy(), requires_grad=True)
    v = torch.tensor(Y.copy(), requires_grad=True)
    if which == "grad":                      # MAML-style: a gradient, differentiated again
        out = F.grad(lambda a, b: (a.sin() * b).sum())(w, v)
    elif which == "grad_and_value":
        g, val = F.grad_and_value(lambda a: (a ** 3).sum())(w)
        out = g * val
    elif which == "jacrev":
        out = F.jacrev(lambda a, b: a.exp() * b * b, argnums=1)(w, v)
    elif which == "jacfwd":
        out = F.jacfwd(lambda a, b: a.outer(b))(w, v)
    elif which == "hessian":
        out = F.hessian(lambda a, b: (a ** 3 * b).sum())(w, v)
    elif which == "jvp":
        out = torch.stack(F.jvp(lambda a: a.tanh(), (w,), (v,)))
    else:                                    # vmap over rows, weights shared
        out = F.vmap(lambda r, a: (r * a).sum(), in_dims=(1, None))(
            torch.tensor(M.copy()).t() * v[:, None], w)
    (out ** 2).sum().backward()
    return out.detach(), out.requires_grad, w.grad, v.grad


@pytest.mark.parametrize("which", ["grad", "grad_and_value", "jacrev", "jacfwd", "hessian",
                                   "jvp", "vmap"])
def test_outer_backward_through_transform(which):
    check(lambda torch: _outer(torch, which))


def test_outer_backward_double_raises():
    import torchlike
    w = torchlike.tensor(X.copy(), requires_grad=True)
    g = torchlike.func.grad(lambda a: (a ** 3).sum())(w)
    assert g.grad_fn.name() == "FuncTransformBackward0"
    with pytest.raises(RuntimeError, match="create_graph=True backward through a torch.func"):
        torchlike.autograd.grad(g.sum(), w, create_graph=True)
    with torchlike.no_grad():
        assert torchlike.func.grad(lambda a: (a ** 3).sum())(w).grad_fn is None
