"""Mirrors `torch.compiler`: the questions libraries ask about compilation, and the decorators
they put on code that must not be traced. torchlike's compiler is `torchlike.compile` (one XLA
program per step, see docs/compile.md): `is_compiling()` is True while it traces a function."""
import functools

__all__ = ["compile", "reset", "allow_in_graph", "substitute_in_graph", "list_backends",
           "disable", "set_stance", "cudagraph_mark_step_begin", "wrap_numpy", "is_compiling",
           "is_dynamo_compiling", "is_exporting", "assume_constant_result"]


def compile(*args, **kwargs):  # noqa: A001
    """Mirrors `torch.compiler.compile` (`torch.compile`)."""
    from ._compile import compile as _compile
    return _compile(*args, **kwargs)


_DISABLED = [0]    # depth of `torch.compiler.disable`d calls running


def is_compiling():
    """Mirrors `torch.compiler.is_compiling`: True inside a `torchlike.compile` trace, except
    within a `torch.compiler.disable`d function (which PyTorch runs eagerly)."""
    from ._compile.patches import TRACING
    return TRACING[0] and not _DISABLED[0]


is_dynamo_compiling = is_compiling


def is_exporting():
    """Mirrors `torch.compiler.is_exporting` (torchlike has no `torch.export`)."""
    return False


def reset():
    """Mirrors `torch.compiler.reset` (each `torchlike.compile` keeps its own programs)."""


def list_backends(exclude_tags=("debug", "experimental")):
    """Mirrors `torch.compiler.list_backends`: torchlike compiles with XLA only."""
    return ["inductor"]


def _passthrough(fn=None, *args, **kwargs):
    """A decorator that leaves the function as it is (with or without arguments)."""
    if fn is None or not callable(fn):
        return lambda f: f
    return fn


def disable(fn=None, recursive=True, *, reason=None):
    """Mirrors `torch.compiler.disable`: `is_compiling()` is False while the function runs, as
    in PyTorch, which runs it eagerly. Divergence: under `torchlike.compile` its operations are
    still traced into the compiled program (a module is returned as it is)."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    from .nn.modules.module import Module
    if isinstance(fn, Module) or not callable(fn):
        return fn

    @functools.wraps(fn)
    def eager(*args, **kwargs):
        _DISABLED[0] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _DISABLED[0] -= 1
    eager._torchdynamo_disable = True
    return eager


def allow_in_graph(fn):
    """Mirrors `torch.compiler.allow_in_graph`."""
    return fn


def assume_constant_result(fn):
    """Mirrors `torch.compiler.assume_constant_result`."""
    return fn


def substitute_in_graph(original_fn, *, can_constant_fold_through=False,
                        skip_signature_check=False):
    """Mirrors `torch.compiler.substitute_in_graph`: returns a decorator giving back
    `original_fn`'s polyfill unchanged."""
    return lambda polyfill: polyfill


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    """Mirrors `torch.compiler.set_stance` (accepted; as a decorator or context manager)."""
    return _Stance()


class _Stance:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapped


def cudagraph_mark_step_begin():
    """Mirrors `torch.compiler.cudagraph_mark_step_begin` (no CUDA graphs in torchlike)."""


def wrap_numpy(fn):
    """Mirrors `torch.compiler.wrap_numpy`: the function gets NumPy arrays for its tensor
    arguments and its NumPy results come back as tensors."""
    from .utils import _pytree as pytree
    from ._core.tensor import Tensor

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        import numpy as np
        from ._ops.creation import from_numpy
        args, kwargs = pytree.tree_map_only(Tensor, lambda t: t.numpy(), (args, kwargs))
        out = fn(*args, **kwargs)
        return pytree.tree_map_only(np.ndarray, from_numpy, out)
    return wrapped
