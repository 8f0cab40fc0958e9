"""Mirrors `torch.optim.ASGD` and `torch.optim.Rprop` (PyTorch-specific rules, `_rules.py`)."""
from . import _rules
from ._checks import check, check_lr
from ._optax_base import OptaxOptimizer, scalar_dtype, zeros_state
from .optimizer import _to_scalar


class ASGD(OptaxOptimizer):
    """Mirrors `torch.optim.ASGD`."""

    _hyper = ("lr", "lambd", "alpha", "t0", "weight_decay")
    _rule = staticmethod(_rules.asgd)
    _device_state = ("step", "eta", "mu")   # PyTorch's ASGD keeps them with the parameter

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check((not 0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}"))
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _flags(self, group):
        return (group["maximize"], group["weight_decay"] != 0)

    def _init_state(self, p, group):
        import torchlike
        sd = scalar_dtype()
        st = {"step": torchlike.zeros((), dtype=sd),
              "eta": torchlike.tensor(float(_to_scalar(group["lr"])), dtype=sd),
              "mu": torchlike.ones((), dtype=sd)}
        st.update(zeros_state(p, "ax", step=False))
        return st


class Rprop(OptaxOptimizer):
    """Mirrors `torch.optim.Rprop`."""

    _hyper = ("etas", "step_sizes")
    _rule = staticmethod(_rules.rprop)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        check((not 0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}"))
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _flags(self, group):
        return (group["maximize"],)

    def _init_state(self, p, group):
        import torchlike
        st = zeros_state(p, "prev")
        lr = _to_scalar(group["lr"])
        st["step_size"] = torchlike.full_like(p.grad, complex(lr, lr) if p.is_complex() else lr)
        return st
