"""Mirrors `torch._dynamo.config`: settings libraries read and set (accepted; torchlike's
compiler does not read them)."""
import contextlib

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


@contextlib.contextmanager
def patch(*args, **kwargs):
    """Mirrors `torch._dynamo.config.patch(name=value, ...)`: sets the settings for the block
    (also as a decorator, through `contextlib`)."""
    changes = dict(args[0]) if args and isinstance(args[0], dict) else {}
    if len(args) == 2 and isinstance(args[0], str):
        changes[args[0]] = args[1]
    changes.update(kwargs)
    g = globals()
    old = {k: g.get(k) for k in changes}
    g.update(changes)
    try:
        yield
    finally:
        g.update(old)
