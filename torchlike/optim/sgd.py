"""Mirrors `torch.optim.SGD` (momentum through `optax.trace`)."""
from . import _rules
from ._checks import check, check_fused, check_lr
from ._optax_base import OptaxOptimizer


class SGD(OptaxOptimizer):
    """Mirrors `torch.optim.SGD`."""

    _hyper = ("lr", "momentum", "dampening", "weight_decay")
    _rule = staticmethod(_rules.sgd)

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_lr(lr)
        check((momentum < 0.0, f"Invalid momentum value: {momentum}"),
              (weight_decay < 0.0, f"Invalid weight_decay value: {weight_decay}"))
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable, self)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("nesterov", False), ("maximize", False), ("foreach", None),
                         ("differentiable", False), ("fused", False)):
                group.setdefault(k, v)

    def _flags(self, group):
        return (group["maximize"], group["weight_decay"] != 0, group["momentum"] != 0,
                group["nesterov"])

    def _init_state(self, p, group):
        # PyTorch creates `momentum_buffer` (a copy of the first gradient) at the first step and
        # keeps no state at all without momentum.
        return {} if group["momentum"] != 0 else None
