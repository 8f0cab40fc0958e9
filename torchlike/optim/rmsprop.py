"""Mirrors `torch.optim.RMSprop`, `Adagrad`, `Adadelta` (optax `scale_by_rms`,
`scale_by_stddev`, `trace`, `scale_by_adadelta`; see `_rules.py`)."""
from . import _rules
from ._checks import check, check_fused, check_lr
from ._optax_base import OptaxOptimizer, scalar_dtype, zeros_state


class RMSprop(OptaxOptimizer):
    """Mirrors `torch.optim.RMSprop`."""

    _hyper = ("lr", "alpha", "eps", "weight_decay", "momentum")
    _rule = staticmethod(_rules.rmsprop)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_lr(lr)
        check((not 0.0 <= eps, f"Invalid epsilon value: {eps}"),
              (not 0.0 <= momentum, f"Invalid momentum value: {momentum}"),
              (not 0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}"),
              (not 0.0 <= alpha, f"Invalid alpha value: {alpha}"))
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _flags(self, group):
        return (group["maximize"], group["weight_decay"] != 0, group["momentum"] > 0,
                group["centered"])

    def _init_state(self, p, group):
        keys = ("square_avg",) + (("momentum_buffer",) if group["momentum"] > 0 else ()) \
            + (("grad_avg",) if group["centered"] else ())
        return zeros_state(p, *keys)


class Adagrad(OptaxOptimizer):
    """Mirrors `torch.optim.Adagrad` (state is created for every param at construction, as in
    PyTorch; sparse gradients are not supported)."""

    _hyper = ("lr", "lr_decay", "eps", "weight_decay")
    _rule = staticmethod(_rules.adagrad)

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_lr(lr)
        check((not 0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}"),
              (not 0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}"),
              (not 0.0 <= initial_accumulator_value,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}"),
              (not 0.0 <= eps, f"Invalid epsilon value: {eps}"))
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable, self)
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(self._init_state(p, group))

    def _flags(self, group):
        return (group["maximize"], group["weight_decay"] != 0)

    def _init_state(self, p, group):
        import torchlike
        v = self.defaults["initial_accumulator_value"]
        return {"step": torchlike.tensor(0.0, dtype=scalar_dtype()),
                "sum": torchlike.full_like(p, complex(v, v) if p.is_complex() else v)}


class Adadelta(OptaxOptimizer):
    """Mirrors `torch.optim.Adadelta`."""

    _hyper = ("lr", "rho", "eps", "weight_decay")
    _rule = staticmethod(_rules.adadelta)

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        check((not 0.0 <= rho <= 1.0, f"Invalid rho value: {rho}"),
              (not 0.0 <= eps, f"Invalid epsilon value: {eps}"),
              (not 0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}"))
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _flags(self, group):
        return (group["maximize"], group["weight_decay"] != 0)

    def _init_state(self, p, group):
        return zeros_state(p, "square_avg", "acc_delta")
