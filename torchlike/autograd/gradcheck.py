"""Mirrors `torch.autograd.gradcheck` / `gradgradcheck`: central finite differences against the
gradients torchlike's autograd computes, per (input, output) pair, as Jacobians laid out
[input element, output element] like PyTorch's; True, or a `GradcheckError` (a RuntimeError)
with PyTorch's message."""
import warnings

import numpy as np

from .._core.tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by `gradcheck` and `gradgradcheck` when a check fails."""


def _as_list(x):
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _outputs(func, inputs):
    out = func(*inputs)
    return _as_list(out) if isinstance(out, (Tensor, tuple, list)) else [out]


def _diff_inputs(inputs):
    return [(j, t) for j, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _numerical(func, inputs, j, outputs, eps):
    """d outputs / d inputs[j] by central differences: one (numel_in, numel_out) float tensor per
    output."""
    from .. import tensor
    from .grad_mode import no_grad
    x = inputs[j]
    cols = [np.zeros((x.numel(), o.numel()), dtype=np.asarray(o.detach()._value()).dtype)
            if isinstance(o, Tensor) else None for o in outputs]
    raw = x.detach()
    for k in range(x.numel()):
        idx = np.unravel_index(k, tuple(x.shape)) if x.dim() else ()
        with no_grad():
            orig = raw[idx].item()
            raw[idx] = orig - eps
        lo = [np.asarray(o.detach()._value()) if isinstance(o, Tensor) else None
              for o in _outputs(func, inputs)]
        with no_grad():
            raw[idx] = orig + eps
        hi = [np.asarray(o.detach()._value()) if isinstance(o, Tensor) else None
              for o in _outputs(func, inputs)]
        with no_grad():
            raw[idx] = orig
        for i, (a, b) in enumerate(zip(lo, hi)):
            if a is not None:
                cols[i][k] = ((b - a) / (2 * eps)).reshape(-1)
    return [None if c is None else tensor(c, dtype=o.dtype)
            for c, o in zip(cols, outputs)]


def _analytical(inputs, j, outputs):
    """d outputs / d inputs[j] from autograd, one (numel_in, numel_out) tensor per output."""
    from .. import zeros
    from . import grad
    x = inputs[j]
    res = []
    for o in outputs:
        if not isinstance(o, Tensor):
            res.append(None)
            continue
        jac = zeros((x.numel(), o.numel()), dtype=o.dtype)
        if o.requires_grad:
            flat = o.reshape(-1)
            for k in range(o.numel()):
                (g,) = grad(flat[k], [x], retain_graph=True, allow_unused=True)
                if g is not None:
                    jac[:, k] = g.detach().reshape(-1).to(o.dtype)
        res.append(jac)
    return res


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Mirrors `torch.autograd.gradcheck`."""
    inputs = tuple(_as_list(inputs)) if isinstance(inputs, (Tensor, tuple, list)) else (inputs,)
    diff = _diff_inputs(inputs)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    for j, t in diff:
        if t.dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{j} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning,
                          stacklevel=2)
    outputs = _outputs(func, inputs)
    if not check_backward_ad:
        return True
    # all analytical Jacobians first: the finite differences perturb the inputs in place
    analytical = {j: _analytical(inputs, j, outputs) for j, _ in diff}
    for j, _ in diff:
        numerical = _numerical(func, inputs, j, outputs, eps)
        for i, (a, n) in enumerate(zip(analytical[j], numerical)):
            if a is None:
                continue
            an, nn = np.asarray(a._value()), np.asarray(n._value())
            if not np.allclose(an, nn, rtol=rtol, atol=atol):
                return _fail(f"Jacobian mismatch for output {i} with respect to input {j},\n"
                             f"numerical:{n}\nanalytical:{a}\n", raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Mirrors `torch.autograd.gradgradcheck`: gradcheck of the function
    (inputs, grad_outputs) -> vjp, with random grad_outputs when none are given."""
    from .. import tensor
    from . import grad
    inputs = tuple(_as_list(inputs)) if isinstance(inputs, (Tensor, tuple, list)) else (inputs,)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        outs = _outputs(func, inputs)
        grad_outputs = tuple(
            tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype, requires_grad=True)
            for o in outs if isinstance(o, Tensor) and o.requires_grad)
    else:
        grad_outputs = tuple(_as_list(grad_outputs))
    n_in = len(inputs)
    diff_idx = [j for j, _ in _diff_inputs(inputs)]

    def new_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = [o for o in _outputs(func, ins) if isinstance(o, Tensor) and o.requires_grad]
        diff_ins = [ins[j] for j in diff_idx]
        gs = grad(outs, diff_ins, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, fast_mode=fast_mode)
