"""One MLIR context for many of JAX's lowerings.

JAX lowers every new program to an MLIR module in a fresh MLIR context, and making a context
(loading its dialects) costs ~7 ms on this project's CPU: as much as lowering a small kernel
and a quarter of its whole compile at XLA's lowest optimisation level. torchlike compiles a
kernel per op and shape, so the fresh context was ~25% of a compile-bound test file's time
(61 -> 45 s) and of a script's cold start. A context can hold many modules; torchlike makes
JAX's `make_ir_context` hand out one per thread, made anew every `RENEW` lowerings so that what
a context keeps for the process (its uniqued types and attributes) stays bounded.

TORCHLIKE_XLA_DEFAULTS=1 leaves JAX as it is (as for the XLA flags in `xla_options`).
"""
import os
import threading

RENEW = 256
_MADE = [0]   # contexts made by JAX's own function since apply()


def apply():
    """Make JAX reuse its MLIR contexts (see the module docstring); False where it does not."""
    if os.environ.get("TORCHLIKE_XLA_DEFAULTS", "0") == "1":
        return False
    try:
        from jax._src.interpreters import mlir
        make = mlir.make_ir_context
    except (ImportError, AttributeError):
        return False
    if getattr(make, "torchlike_reused", False):
        return True
    local = threading.local()

    def make_ir_context():
        ctx = getattr(local, "ctx", None)
        if ctx is None or local.uses >= RENEW:
            ctx = local.ctx = make()
            local.uses = 0
            _MADE[0] += 1
        local.uses += 1
        return ctx

    make_ir_context.torchlike_reused = True
    make_ir_context.__doc__ = make.__doc__
    mlir.make_ir_context = make_ir_context
    return True


def contexts_made():
    """How many MLIR contexts JAX made since torchlike's import."""
    return _MADE[0]
