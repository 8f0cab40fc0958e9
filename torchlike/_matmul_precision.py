"""`torch.set_float32_matmul_precision` / `get_float32_matmul_precision`.

Mirrors PyTorch: 'highest' (the default: full float32), 'high' (TF32 allowed) or 'medium'
(bfloat16 allowed) for float32 matrix products. The setting becomes JAX's default matmul
precision, which XLA honours on GPUs and TPUs (whose own default would be TF32 or bfloat16
passes: importing torchlike sets 'highest', PyTorch's default); XLA:CPU always computes in full
float32 (as PyTorch's CPU kernels do on most CPUs), so on CPU it changes nothing but what is
read back. `torch.backends.cuda.matmul.allow_tf32` reads and sets the same switch, as in
PyTorch. Convolutions keep full float32 (see `nn/_functional/conv.py`)."""
import warnings

import jax

_JAX_PRECISION = {"highest": "highest", "high": "tensorfloat32", "medium": "bfloat16"}
_CURRENT = ["highest"]


def get_float32_matmul_precision():
    """Mirrors `torch.get_float32_matmul_precision`."""
    return _CURRENT[0]


def set_float32_matmul_precision(precision):
    """Mirrors `torch.set_float32_matmul_precision` (see the module docstring)."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in _JAX_PRECISION:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      f"setFloat32MatmulPrecision call has no effect. (Triggered internally at "
                      f"/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)", UserWarning)
        return
    _CURRENT[0] = precision
    jax.config.update("jax_default_matmul_precision", _JAX_PRECISION[precision])


jax.config.update("jax_default_matmul_precision", _JAX_PRECISION[_CURRENT[0]])
