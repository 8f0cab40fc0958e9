"""Mirrors `torch._dynamo.config`: settings libraries read and set (accepted; torchlike's
compiler does not read them). As in PyTorch, a setting that does not exist is an AttributeError,
to read, to set, and to `patch`."""
import contextlib
import sys
import types

cache_size_limit = 8
recompile_limit = 8
accumulated_cache_size_limit = 256
accumulated_recompile_limit = 256
suppress_errors = False
verbose = False
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
automatic_dynamic_shapes = True
assume_static_by_default = True
optimize_ddp = True
inline_inbuilt_nn_modules = True
skip_nnmodule_hook_guards = True
error_on_recompile = False
allow_unspec_int_on_nn_module = False
force_parameter_static_shapes = True
force_nn_module_property_static_shapes = True
guard_nn_modules = False
specialize_int = False
specialize_float = False
dynamic_shapes = True
allow_rnn = False
traceable_tensor_subclasses = set()
_OWN = {"contextlib", "sys", "types", "patch"}


def _missing(name):
    return AttributeError(f"torch._dynamo.config.{name} does not exist")


def patch(*args, **kwargs):
    """Mirrors `torch._dynamo.config.patch(name=value, ...)` (or `patch('name', value)`,
    `patch({'name': value})`): the settings changed for a block, as a context manager or a
    decorator."""
    changes = dict(args[0]) if args and isinstance(args[0], dict) else {}
    if len(args) == 2 and isinstance(args[0], str):
        changes[args[0]] = args[1]
    changes.update(kwargs)

    @contextlib.contextmanager
    def patched():
        module = sys.modules[__name__]
        for k in changes:
            if k.startswith("_") or k in _OWN or k not in vars(module):
                raise _missing(k)
        old = {k: getattr(module, k) for k in changes}
        for k, v in changes.items():
            setattr(module, k, v)
        try:
            yield
        finally:
            for k, v in old.items():
                setattr(module, k, v)
    return patched()


class _ConfigModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _missing(name)

    def __setattr__(self, name, value):
        if not name.startswith("_") and name not in vars(self):
            raise _missing(name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _ConfigModule
