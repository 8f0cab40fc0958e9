"""Mirrors `torch.utils.checkpoint` (activation checkpointing). torchlike keeps the forward's
activations instead of recomputing them in backward, so a checkpointed call gives the values and
gradients PyTorch's recomputation gives (dropout included: there is no second forward whose random
numbers would have to be replayed). The argument checks, warnings, and the reentrant variant's
outputs not requiring grad when no input does, follow PyTorch."""
import contextlib
import warnings

from .._core.tensor import Tensor
from ..autograd import grad_mode

__all__ = ["checkpoint", "checkpoint_sequential", "check_backward_validity", "noop_context_fn"]


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def check_backward_validity(inputs):
    if not any(isinstance(inp, Tensor) and inp.requires_grad for inp in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


def _explicit_reentrant(use_reentrant, who, since):
    if use_reentrant is None:
        warnings.warn(
            f"{who}: the use_reentrant parameter should be passed explicitly. {since} "
            "use_reentrant=False is recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
            "differences between the two variants.", stacklevel=3)
        return True
    return use_reentrant


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Mirrors `torch.utils.checkpoint.checkpoint`."""
    use_reentrant = _explicit_reentrant(
        use_reentrant, "torch.utils.checkpoint",
        "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
        "exception.")
    kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if not use_reentrant:
        forward_ctx, _ = context_fn()
        with forward_ctx:
            return function(*args, **kwargs)
    if context_fn is not noop_context_fn or debug is not False:
        raise ValueError("Passing `context_fn` or `debug` is only supported when "
                         "use_reentrant=False.")
    check_backward_validity(args)
    if any(isinstance(a, Tensor) and a.requires_grad for a in args):
        return function(*args)
    with grad_mode.no_grad():  # PyTorch's reentrant forward runs without grad
        return function(*args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Mirrors `torch.utils.checkpoint.checkpoint_sequential`."""
    from ..nn.modules.container import Sequential
    use_reentrant = _explicit_reentrant(
        use_reentrant, "torch.utils.checkpoint.checkpoint_sequential",
        "In version 2.9 we will raise an exception if use_reentrant is not passed.")
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
