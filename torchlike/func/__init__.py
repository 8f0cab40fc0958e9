"""Mirrors `torch.func`: composable function transforms, each built on its JAX counterpart
(`jax.grad`, `jax.vjp`, `jax.jvp`, `jax.jacrev`, `jax.jacfwd`, `jax.linearize`, `jax.vmap`).

The function runs on tensors whose values are JAX tracers, so torchlike's whole Tensor API
(views, in-place ops, nn.functional) works inside. When an argument requires grad, the results
get one autograd node (first order; see `_outer.py`)."""
from ._autodiff import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._module import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._vmap import vmap


def functionalize(func, *, remove="mutations"):
    """Mirrors `torch.func.functionalize`: torchlike tensors are already functional underneath
    (every in-place op writes a new JAX array), so this returns `func`'s behaviour unchanged."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}."
            " Valid options are:\n     remove='mutations': all inplace and out= operators will be "
            "removed from the program, and replaced with their out-of-place equivalents.\n     "
            "remove='mutations_and_views': In addition to the above, all aliasing operators {view} "
            "will be replaced with their non-aliasing counterparts, {view}_copy.\n")
    return func


def debug_unwrap(tensor, *, recurse=True):
    """Mirrors `torch.func.debug_unwrap`: torchlike's transforms have no wrapper tensors."""
    return tensor


__all__ = ["grad", "grad_and_value", "vmap", "replace_all_batch_norm_modules_", "functionalize",
           "hessian", "jacfwd", "jacrev", "jvp", "linearize", "vjp", "functional_call",
           "stack_module_state", "debug_unwrap"]
