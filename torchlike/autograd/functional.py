"""Mirrors `torch.autograd.functional`: `vjp`, `jvp`, `jacobian`, `hessian`, `vhp`, `hvp`, built
on torchlike's own reverse-mode autograd (`autograd.grad`, with `create_graph=True` for the
higher-order ones; `jvp` uses the double-backward trick, as PyTorch does)."""
from .._core.tensor import Tensor
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tuplify(x, what, fn):
    """(given as a tuple?, tuple of Tensors), with PyTorch's type errors."""
    was_tuple = isinstance(x, tuple)
    items = x if was_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = (f"the value at index {i} has type {type(el)}." if was_tuple
                     else f"the given {what} has type {type(el)}.")
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but {where}")
    return was_tuple, items


def _untuple(res, keep):
    """Undo `_tuplify`: `keep` is one flag, or (outer flag, inner flag) for nested results."""
    if isinstance(keep, tuple):
        outer, inner = keep
        if not inner:
            res = tuple(r[0] for r in res)
        return res if outer else res[0]
    return res if keep else res[0]


def _fresh(inputs, create_graph, need_graph):
    """New tensor objects for the inputs (so the function's own captures of the caller's tensors
    stay distinct), differentiable back to them only under create_graph."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(ts, create_graph):
    if not ts or isinstance(ts[0], Tensor):
        return ts if create_graph else tuple(t.detach() for t in ts)
    return tuple(_finish(t, create_graph) for t in ts)


def _check_v(v, ref, ref_is_tuple):
    if len(v) != len(ref):
        if ref_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(ref)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, ref)):
        if a.size() != b.size():
            pre = f"Entry {i} in " if ref_is_tuple else ""
            raise RuntimeError(f"{pre}v has invalid size: should be {b.size()} but got "
                               f"{a.size()}.")


_STRICT_MSGS = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."),
}


def _strict_check(ts, kind, strict):
    if not strict:
        return
    for i, t in enumerate(ts):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT_MSGS[kind].format(i=i))


def _grad_some(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """`autograd.grad` over the outputs that require grad (None for unreached inputs)."""
    from . import grad
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad([o for o, _ in pairs], inputs, [g for _, g in pairs], allow_unused=True,
                create_graph=create_graph, retain_graph=retain_graph)


_ZERO_MSGS = {
    "back": ("The output of the user-provided function is independent of input {i}. This is not "
             "allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    from .. import zeros_like
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MSGS[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               f"create_graph=True.")
        out.append(g)
    return tuple(out)


def _prepare(func, inputs, v, create_graph, strict, name, v_like):
    """Shared set-up: fresh inputs, checked v, the function's outputs (grad enabled)."""
    in_tuple, inputs = _tuplify(inputs, "inputs", name)
    inputs = _fresh(inputs, create_graph, True)
    if v_like == "inputs" and v is not None:
        _, v = _tuplify(v, "v", name)
        v = _fresh(v, create_graph, False)
        _check_v(v, inputs, in_tuple)
    elif v_like == "inputs":
        if len(inputs) != 1 or inputs[0].nelement() != 1:
            what = ("The vector v can only be None if the input to the user-provided function "
                    "is a single Tensor with a single element." if name in ("vhp", "hvp") else
                    "The vector v can only be None if the input to the user-provided function "
                    "is a single Tensor with a single element.")
            raise RuntimeError(what)
    outputs = func(*inputs)
    out_tuple, outputs = _tuplify(outputs, "outputs of the user-provided function", name)
    _strict_check(outputs, "outputs", strict)
    return in_tuple, inputs, v, out_tuple, outputs


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Mirrors `torch.autograd.functional.vjp`: (func(inputs), v^T J)."""
    with enable_grad():
        in_tuple, inputs, _, out_tuple, outputs = _prepare(func, inputs, None, create_graph,
                                                           strict, "vjp", None)
        if v is not None:
            _, v = _tuplify(v, "v", "vjp")
            v = _fresh(v, create_graph, False)
            _check_v(v, outputs, out_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad_some(outputs, inputs, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "back")
    return (_untuple(_finish(outputs, create_graph), out_tuple),
            _untuple(_finish(res, create_graph), in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Mirrors `torch.autograd.functional.jvp`: (func(inputs), J v), by the double-backward
    trick (the vjp is linear in its cotangent, so differentiating it w.r.t. the cotangent gives
    J v)."""
    from .. import zeros_like
    with enable_grad():
        in_tuple, inputs, v, out_tuple, outputs = _prepare(func, inputs, v, create_graph,
                                                           strict, "jvp", "inputs")
        cts = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad_some(outputs, inputs, cts, create_graph=True)
        _strict_check(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad_some(grad_inputs, cts, v, create_graph=create_graph)
        res = _zeros_for_none(res, outputs, strict, create_graph, "back_trick")
    return (_untuple(_finish(outputs, create_graph), out_tuple),
            _untuple(_finish(res, create_graph), out_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """Mirrors `torch.autograd.functional.jacobian` (one reverse pass per output element;
    `vectorize` and `strategy="forward-mode"` give the same values)."""
    from .. import stack, zeros_like
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                "only implemented for `vectorize=True`.")
    with enable_grad():
        in_tuple, inputs, _, out_tuple, outputs = _prepare(func, inputs, None, create_graph,
                                                           strict, "jacobian", None)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for k in range(out.nelement()):
                gs = _grad_some((flat[k],), inputs, retain_graph=True,
                                create_graph=create_graph)
                for j, (g, inp) in enumerate(zip(gs, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {j}. This is not allowed "
                                               f"in strict mode.")
                        g = zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is "
                                           f"independent of input {i}. This is not allowed in "
                                           f"strict mode when create_graph=True.")
                    rows[j].append(g)
            per_input = []
            for j, inp in enumerate(inputs):
                shape = tuple(out.size()) + tuple(inp.size())
                if rows[j]:
                    per_input.append(stack(rows[j], 0).view(shape))
                else:
                    per_input.append(inp.new_zeros(shape))
            result.append(tuple(per_input))
        result = _finish(tuple(result), create_graph)
        return _untuple(result, (out_tuple, in_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """Mirrors `torch.autograd.functional.hessian`: the jacobian of the gradient."""
    in_tuple, inputs = _tuplify(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_fn(*xs):
        out = func(*xs)
        out_tuple, t_out = _tuplify(out, "outputs of the user-provided function", "hessian")
        _strict_check(t_out, "outputs", strict)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def grad_fn(*xs):
        if outer_jacobian_strategy == "forward-mode":
            xs = tuple(t.requires_grad_(True) for t in xs)
        jac = jacobian(scalar_fn, xs, create_graph=True)
        _strict_check(jac, "jacobian", strict)
        return jac

    res = jacobian(grad_fn, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _untuple(res, (in_tuple, in_tuple))


def _second_order(func, inputs, v, create_graph, strict, name):
    with enable_grad():
        in_tuple, inputs, v, out_tuple, outputs = _prepare(func, inputs, v, create_graph,
                                                           strict, name, "inputs")
        if out_tuple or not isinstance(outputs[0], Tensor):
            raise RuntimeError(f"The function given to {name} should return a single Tensor")
        if outputs[0].nelement() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                               f"contain a single element")
        jac = _grad_some(outputs, inputs, create_graph=True)
        _strict_check(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad_some(jac, inputs, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "double_back")
    return (_untuple(_finish(outputs, create_graph), out_tuple),
            _untuple(_finish(res, create_graph), in_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Mirrors `torch.autograd.functional.vhp`: (func(inputs), v^T H)."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Mirrors `torch.autograd.functional.hvp`: (func(inputs), H v). The Hessian of a twice
    differentiable scalar function is symmetric, so H v is computed as (v^T H)^T by one
    backward through the gradient."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp")
