"""Whether code runs inside a JAX trace (jax.jit, torchlike.compile, torch.func transforms).

Caches of concrete device arrays (recurring Python scalars, implicit root gradients) must not
feed a trace: JAX would capture them as constants of the outer program, and jax 0.10's C++
dispatch then calls that program without them ("Execution supplied 2 arguments but compiled
program expected 4")."""
from jax._src import core as _core

_CTX = _core.trace_ctx
_EVAL = _core.EvalTrace


def tracing():
    """True inside a JAX trace (~0.1 us)."""
    return _CTX.trace.__class__ is not _EVAL
