"""Module full backward hooks: `BackwardHook` wraps a module's tensor inputs and outputs in an
identity autograd `Function` so `hook(module, grad_input, grad_output)` sees the gradients with
respect to the module's inputs and outputs (and may replace grad_input), as in PyTorch."""
from ..._core import grad_state
from ..._core.tensor import Tensor
from ...autograd.function import Function

__all__ = []


class BackwardHookFunction(Function):
    """Identity on its tensor arguments; its node carries the module's hooks."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


def _materialize(grad_fn, grads):
    """The identity node's backward returns its (materialized) output gradients, so inputs
    that do not require grad still show zeros in grad_input, as in PyTorch."""
    if all(g is not None for g in grads):
        return grads
    from ... import zeros
    metas = getattr(grad_fn, "_outs", None) or [None] * len(grads)
    return tuple(zeros(m[0], dtype=m[1], device=m[2]) if g is None and m is not None else g
                 for g, m in zip(grads, metas))


class BackwardHook:
    """Mirrors `torch.utils.hooks.BackwardHook`: `setup_input_hook(args)` before forward,
    `setup_output_hook(result)` after; the user hooks run when the input gradients are ready."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # the output gradients never arrived (outputs unused): nothing to report
                return None
            grad_input = _materialize(grad_fn, grad_input)
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)
        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in tensors_idx]
        if not (grad_state.ENABLED[0] and any(t.requires_grad for t in tensors)):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue with "
                               "a code sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        if type(args) is tuple:
            return tuple(arg_list), tensors_idx
        return type(args)(*arg_list), tensors_idx

    def setup_input_hook(self, args):
        """Wrap the module's tensor inputs; returns the new args."""
        def fn(grad_fn):
            self._set_user_hook(grad_fn)
        res, input_idx = self._apply_on_tensors(fn, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        """Wrap the module's tensor outputs; returns the new result."""
        def fn(grad_fn):
            def hook(grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                         self.n_outputs)
                if self.user_pre_hooks:
                    expected = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        out = user_pre_hook(self.module, self.grad_outputs)
                        if out is None:
                            continue
                        if len(out) != expected:
                            raise RuntimeError("Backward pre hook returned an invalid number of "
                                               f"grad_output, got {len(out)}, but expected "
                                               f"{expected}")
                        self.grad_outputs = out
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    # no input requires grad: the user hooks run here, with None grad_inputs
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and
                                                    all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input "
                                               "requires gradient should always return None "
                                               "or None for all gradients.")
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                return None
            grad_fn.register_prehook(hook)

        is_tuple = True
        if not isinstance(args, tuple):
            args = (args,)
            is_tuple = False
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        if not is_tuple:
            res = res[0]
        return res
