"""`torch.use_deterministic_algorithms` and the deterministic debug mode.

Mirrors PyTorch's switches, their argument checks and how they read back. XLA:CPU runs every op
deterministically, so on CPU there is nothing to switch; for a GPU, turning the mode on before
JAX starts its backends adds XLA's `--xla_gpu_deterministic_ops=true` (afterwards XLA's setting
can no longer change, and the mode is only recorded)."""
import os

_STATE = {"enabled": False, "warn_only": False}
_MODES = {"default": 0, "warn": 1, "error": 2}


def _check_bool(value, arg, position=None):
    if type(value) is not bool:
        where = f"'{arg}' (position {position})" if position else f"'{arg}'"
        raise TypeError(f"_set_deterministic_algorithms(): argument {where} must be bool, not "
                        f"{type(value).__name__}")


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Mirrors `torch.use_deterministic_algorithms` (see the module docstring)."""
    _check_bool(mode, "mode", 1)
    _check_bool(warn_only, "warn_only")
    _STATE["enabled"], _STATE["warn_only"] = mode, warn_only
    if mode:
        _xla_gpu_determinism()


def are_deterministic_algorithms_enabled():
    """Mirrors `torch.are_deterministic_algorithms_enabled`."""
    return _STATE["enabled"]


def is_deterministic_algorithms_warn_only_enabled():
    """Mirrors `torch.is_deterministic_algorithms_warn_only_enabled`."""
    return _STATE["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """Mirrors `torch.set_deterministic_debug_mode`: 'default'/0, 'warn'/1 or 'error'/2."""
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = _MODES[debug_mode]
    elif isinstance(debug_mode, int):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                               f"{debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """Mirrors `torch.get_deterministic_debug_mode`."""
    if not _STATE["enabled"]:
        return 0
    return 1 if _STATE["warn_only"] else 2


def _xla_gpu_determinism():
    from jax._src import xla_bridge
    if xla_bridge._backends:          # XLA reads its flags once, when the backends start
        return
    flags = os.environ.get("XLA_FLAGS", "")
    if "--xla_gpu_deterministic_ops" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_gpu_deterministic_ops=true").strip()
