"""Mirrors `torch.optim.Adam`, `AdamW`, `Adamax`, `NAdam`, `RAdam` (optax `scale_by_adam`,
`scale_by_adamax`, moments and bias corrections; see `_rules.py`)."""
from .._core.tensor import Tensor
from . import _rules
from ._checks import check, check_betas, check_fused, check_lr
from ._optax_base import OptaxOptimizer, scalar_dtype, zeros_state
from .optimizer import _to_scalar


def _check_common(lr, betas, eps, weight_decay):
    check_lr(lr)
    check((not 0.0 <= eps, f"Invalid epsilon value: {eps}"))
    check_betas(betas)
    check((not 0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}"))


class Adam(OptaxOptimizer):
    """Mirrors `torch.optim.Adam` (`capturable`/`differentiable` are accepted and stored; the
    update is the same)."""

    _hyper = ("lr", "betas", "eps", "weight_decay")
    _rule = staticmethod(_rules.adam)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and "
                                 "foreach=True")
        _check_common(lr, betas, eps, weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        betas = tuple(map(_to_scalar, betas))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable, self)

    def _flags(self, group):
        return (group["maximize"], group["weight_decay"] != 0,
                group["decoupled_weight_decay"], group["amsgrad"])

    def _init_state(self, p, group):
        keys = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if group["amsgrad"] else ())
        return zeros_state(p, *keys)


class AdamW(Adam):
    """Mirrors `torch.optim.AdamW` (Adam with `decoupled_weight_decay=True`)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


class Adamax(OptaxOptimizer):
    """Mirrors `torch.optim.Adamax`."""

    _hyper = ("lr", "betas", "eps", "weight_decay")
    _rule = staticmethod(_rules.adamax)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_common(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _flags(self, group):
        return (group["maximize"], group["weight_decay"] != 0)

    def _init_state(self, p, group):
        return zeros_state(p, "exp_avg", "exp_inf")


class NAdam(OptaxOptimizer):
    """Mirrors `torch.optim.NAdam`."""

    _hyper = ("lr", "betas", "eps", "weight_decay", "momentum_decay")
    _rule = staticmethod(_rules.nadam)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_common(lr, betas, eps, weight_decay)
        check((not 0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}"))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _flags(self, group):
        return (group["maximize"], group["weight_decay"] != 0, group["decoupled_weight_decay"])

    def _init_state(self, p, group):
        import torchlike
        st = zeros_state(p)
        st["mu_product"] = torchlike.tensor(1.0, dtype=scalar_dtype())
        st.update(zeros_state(p, "exp_avg", "exp_avg_sq", step=False))
        return st


class RAdam(OptaxOptimizer):
    """Mirrors `torch.optim.RAdam`."""

    _hyper = ("lr", "betas", "eps", "weight_decay")
    _rule = staticmethod(_rules.radam)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_common(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _flags(self, group):
        return (group["maximize"], group["weight_decay"] != 0, group["decoupled_weight_decay"])

    def _init_state(self, p, group):
        return zeros_state(p, "exp_avg", "exp_avg_sq")
