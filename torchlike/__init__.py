"""torchlike: PyTorch's API on JAX.

`import torchlike as torch` gives a torch-shaped namespace whose tensors emulate PyTorch's
storage, strides, views and in-place semantics on top of jitted JAX kernels.
"""
import logging as _logging
import os as _os
import sys as _sys

import jax as _jax

# JAX logs every trace and compile at DEBUG level: a script that turns on DEBUG logging for
# itself (`logging.basicConfig(level=logging.DEBUG)`) would print JAX's internals, which PyTorch
# never does. JAX's own level settings (JAX_LOGGING_LEVEL, jax_debug_log_modules) still apply.
if _logging.getLogger("jax").level == _logging.NOTSET:
    _logging.getLogger("jax").setLevel(_logging.WARNING)

_jax.config.update("jax_enable_x64", True)

from ._core import simulated as _simulated  # noqa: E402

_simulated.apply()

from ._core import mlir_context as _mlir_context  # noqa: E402
from ._core import xla_options as _xla_options  # noqa: E402

_xla_options.apply()
_mlir_context.apply()
# Eager PyTorch on CPU is synchronous, and so is torchlike by default: XLA:CPU's async dispatch
# hands every small kernel to another thread, which doubles the cost of a small op (measured
# here: 4.9 vs 10.3 us for a jitted 64x64 add). TORCHLIKE_ASYNC_DISPATCH=1 keeps JAX's default.
if _os.environ.get("TORCHLIKE_ASYNC_DISPATCH", "0") != "1":
    _jax.config.update("jax_cpu_enable_async_dispatch", False)


from ._core import disk_cache as _disk_cache  # noqa: E402

_disk_cache.enable()

from ._core import compile_budget as _compile_budget  # noqa: E402

_compile_budget.install()

from . import compile_log  # noqa: E402

compile_log.install()

from ._core import dtype as _dt  # noqa: E402
from ._core.device import device  # noqa: E402
from ._core.dtype import (  # noqa: E402,F401
    bfloat16, complex64, complex128, dtype, float16, float32, float64, int8, int16, int32,
    int64, uint8, uint16, uint32, uint64, finfo, iinfo, get_default_dtype, set_default_dtype,
    promote_types, can_cast,
)
from ._core.size import Size  # noqa: E402
from ._core.tensor import Tensor  # noqa: E402
from ._core.storage import TypedStorage, UntypedStorage  # noqa: E402,F401
from ._ops import load as _load_ops  # noqa: E402

bool = _dt.bool_  # noqa: A001
for _alias, _d in _dt.ALIASES.items():
    globals()[_alias] = _d
cfloat, cdouble = complex64, complex128

from . import torch_version, version  # noqa: E402

__version__ = torch_version.TorchVersion(version.__version__)

_load_ops(globals())

from ._default_device import get_default_device, set_default_device  # noqa: E402,F401
from ._default_device import install as _install_default_device  # noqa: E402

_install_default_device(globals())

from ._core.printing import get_printoptions, set_printoptions  # noqa: E402
from . import cuda, fft, linalg, special  # noqa: E402,F401
from . import signal  # noqa: E402,F401
from . import masked  # noqa: E402,F401
from . import autograd  # noqa: E402,F401
from . import nn  # noqa: E402,F401
from . import optim, utils, multiprocessing, serialization, func  # noqa: E402,F401
from ._compile import compile  # noqa: E402,F401,A001
vmap = func.vmap
from .serialization import load, save  # noqa: E402,F401
from ._matmul_precision import (  # noqa: E402,F401
    get_float32_matmul_precision, set_float32_matmul_precision)
from ._determinism import (  # noqa: E402,F401
    are_deterministic_algorithms_enabled, get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
    use_deterministic_algorithms)
from . import amp, cpu  # noqa: E402,F401
from . import _C, _dynamo, compiler, fx, hub, jit, library, onnx, ops, types  # noqa: E402,F401
from . import distributed, mps, xpu  # noqa: E402,F401
from ._checks import (  # noqa: E402,F401
    _assert, _assert_async, _check, _check_index, _check_is_size, _check_not_implemented,
    _check_tensor_all, _check_tensor_all_with, _check_type, _check_value, _check_with)
from . import testing  # noqa: E402,F401
from ._knobs import (  # noqa: E402,F401
    get_num_interop_threads, get_num_threads, is_warn_always_enabled, set_flush_denormal,
    set_num_interop_threads, set_num_threads, set_warn_always)
from .amp import autocast  # noqa: E402,F401
from .amp.scaling import (  # noqa: E402,F401
    amp_foreach_non_finite_check_and_unscale_ as _amp_foreach_non_finite_check_and_unscale_,
    amp_update_scale_ as _amp_update_scale_)

globals().update(amp.state.TORCH_NAMES)
from .nn import _toplevel as _nn_toplevel  # noqa: E402

_nn_toplevel.publish(globals())
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: E402,F401
                                 is_inference_mode_enabled, no_grad, set_grad_enabled)
from ._ops.creation import LEGACY_TYPES as _LEGACY  # noqa: E402

globals().update(_LEGACY)
from ._core.formats import (  # noqa: E402,F401
    channels_last, channels_last_3d, contiguous_format, layout, memory_format, preserve_format,
    strided)

del _alias, _d

from ._errors import AcceleratorError, OutOfMemoryError  # noqa: E402,F401
from ._runner import install_as_torch  # noqa: E402,F401
from . import overrides  # noqa: E402
from ._ops import registry as _registry  # noqa: E402

overrides.install(_sys.modules[__name__], _registry.GENERATED)
from . import _missing  # noqa: E402

_missing.install_all()
from ._core import codecache as _codecache  # noqa: E402

_codecache.save()   # the generated functions' code, for the next import
_simulated.make_default()
