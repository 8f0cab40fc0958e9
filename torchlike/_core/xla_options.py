"""XLA compile options torchlike sets for the programs it compiles.

Eager PyTorch compiles nothing, so the time XLA takes to compile each small kernel is time a
PyTorch program never spends. On XLA:CPU the older loop emitters
(`--xla_cpu_use_fusion_emitters=false`) compile a kernel in about half the time of the fusion
emitters, and the kernels run as fast (measured on this project's 2-core CPU, one thread:
gelu chain over 256x64x256 37 -> 16 ms to compile, 16.7 ms to run either way; log_softmax over
4096x1024 39 -> 17 ms, 7.4 ms; layer norm over 8192x384 33 -> 16 ms, 3.0 ms; an Adam update of
four 2048x2048 arrays 128 -> 74 ms, 23.6 / 23.1 ms; a linear layer's backward 124 -> 48 ms).

XLA reads XLA_FLAGS once, when JAX starts its backends, so this applies when torchlike is
imported first; a flag already in XLA_FLAGS wins, and TORCHLIKE_XLA_DEFAULTS=1 leaves XLA's
defaults alone. XLA aborts the process on a flag it does not know, and jaxlib 0.11 no longer
knows this one, so the flags are set only for the jaxlib versions they were measured with.

Programs of many ops (fused eager's segments, the fused backward, `torch.compile`'s steps) are
compiled once and run every step, and there the fusion emitters' code is the faster: the small
CNN's training step (two conv stages, SGD) ran 10-20% faster with them, fused and compiled.
Those programs ask for them back (`whole_program()`: a per-compile option, when the flag was
set here).
"""
import os

_FLAGS = ("--xla_cpu_use_fusion_emitters=false",)
_KNOWN_UP_TO = (0, 10)     # the last jaxlib minor version whose XLA has these flags
_SET = [False]             # whether apply() set them


def _known():
    import jaxlib.version
    return tuple(jaxlib.version.__version_info__[:2]) <= _KNOWN_UP_TO


def apply():
    """Add torchlike's XLA flags to XLA_FLAGS (before JAX's backends start)."""
    if os.environ.get("TORCHLIKE_XLA_DEFAULTS", "0") == "1":
        return
    from jax._src import xla_bridge
    if xla_bridge._backends or not _known():
        return
    flags = os.environ.get("XLA_FLAGS", "")
    for flag in _FLAGS:
        if flag.split("=")[0] not in flags:
            flags = (flags + " " + flag).strip()
            _SET[0] = True
    os.environ["XLA_FLAGS"] = flags


WHOLE_PROGRAM_MAX_OPS = 64   # longer programs keep the loop emitters (see whole_program)


def whole_program(n_ops=0):
    """`programs.jit` options for a program of `n_ops` recorded ops (kernels, graph nodes, a
    compiled step's traced calls):
    XLA's fusion emitters again, where `apply()` turned them off (see the module docstring);
    else none. Not past `WHOLE_PROGRAM_MAX_OPS`: the fusion emitters' compile time grows much
    faster with a long chain of elementwise ops (a 512-call `clamp` chain: 1.4 ms -> 37 ms a
    call, compile-bound, on this CPU), so a long program keeps the compile cost bounded."""
    if not _SET[0] or n_ops > WHOLE_PROGRAM_MAX_OPS:
        return {}
    return {"compile_options": {"xla_cpu_use_fusion_emitters": True}}
