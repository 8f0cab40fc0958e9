"""Grad modes: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode` (context managers
and decorators) and `is_grad_enabled`. Mirrors `torch.autograd.grad_mode`."""
import functools
import inspect

from .._core import grad_state


def is_grad_enabled():
    """Mirrors `torch.is_grad_enabled`."""
    return grad_state.ENABLED[0]


def is_inference_mode_enabled():
    return grad_state.INFERENCE[0]


class _DecoratorContextManager:
    """A context manager that is also a decorator (functions and generator functions)."""

    def __call__(self, fn):
        if inspect.isclass(fn):
            raise RuntimeError("Cannot decorate a class with a grad mode")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen(*args, **kwargs):
                g = fn(*args, **kwargs)
                with self.clone():
                    response = g.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            g.close()
                        raise
                    try:
                        with self.clone():
                            response = g.send(request)
                    except StopIteration as e:
                        return e.value
            return gen

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapped

    def clone(self):
        return type(self)()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a decorator without parentheses (`@torch.no_grad`)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Mirrors `torch.no_grad`."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = grad_state.ENABLED[0]
        grad_state.ENABLED[0] = False

    def __exit__(self, *exc):
        grad_state.ENABLED[0] = self.prev


class enable_grad(_NoParamDecoratorContextManager):
    """Mirrors `torch.enable_grad`."""

    def __enter__(self):
        self.prev = grad_state.ENABLED[0]
        grad_state.ENABLED[0] = True

    def __exit__(self, *exc):
        grad_state.ENABLED[0] = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Mirrors `torch.set_grad_enabled`: takes effect at once, and also works as a context
    manager / decorator restoring the previous mode."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                            f"{type(mode).__name__}")
        self.prev = grad_state.ENABLED[0]
        self.mode = mode
        grad_state.ENABLED[0] = mode

    def __call__(self, fn):
        grad_state.ENABLED[0] = self.prev
        return super().__call__(fn)

    def __enter__(self):
        grad_state.ENABLED[0] = self.mode

    def __exit__(self, *exc):
        grad_state.ENABLED[0] = self.prev

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_DecoratorContextManager):
    """Mirrors `torch.inference_mode` (no recording, like `no_grad`)."""

    def __init__(self, mode=True):
        self.mode = mode

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self):
        self.prev = (grad_state.ENABLED[0], grad_state.INFERENCE[0])
        if self.mode:
            grad_state.ENABLED[0] = False
            grad_state.INFERENCE[0] = True

    def __exit__(self, *exc):
        grad_state.ENABLED[0], grad_state.INFERENCE[0] = self.prev

    def clone(self):
        return type(self)(self.mode)


_MULTITHREADING = [True]


def is_multithreading_enabled():
    return _MULTITHREADING[0]


class set_multithreading_enabled(_DecoratorContextManager):
    """Mirrors `torch.autograd.set_multithreading_enabled` (backward always runs on the calling
    thread here; the flag is only recorded)."""

    def __init__(self, mode):
        self.prev = _MULTITHREADING[0]
        _MULTITHREADING[0] = bool(mode)
        self.mode = mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _MULTITHREADING[0] = self.prev

    def clone(self):
        return type(self)(self.mode)


class _force_original_view_tracking(_DecoratorContextManager):
    """Accepted for compatibility: view replay is not used, so this is a no-op."""

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        pass

    def clone(self):
        return type(self)(self.mode)


class _unsafe_preserve_version_counter(_DecoratorContextManager):
    """Mirrors `torch.autograd.grad_mode._unsafe_preserve_version_counter`: restores the
    tensors' version counters on exit."""

    def __init__(self, tensors):
        from .._core.tensor import Tensor
        self.tensors = (tensors,) if isinstance(tensors, Tensor) else tensors
        if not isinstance(self.tensors, tuple):
            raise AssertionError("Expected tensors to be a tuple")
        self.prev_versions = tuple(t._vc[0] for t in self.tensors)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        for t, v in zip(self.tensors, self.prev_versions):
            t._vc[0] = v


class enforce_grad_layout_policy(_DecoratorContextManager):
    """Accepted for compatibility (gradient layouts are not strided here): a no-op."""

    def __init__(self, policy=None):
        self.policy = policy

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        pass

    def clone(self):
        return type(self)(self.policy)
