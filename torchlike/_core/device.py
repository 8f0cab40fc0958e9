"""`torch.device` and its mapping onto `jax.devices()`.

Mirrors `torch.device`. 'cpu' is JAX's CPU device; 'cuda:N' is the N-th JAX GPU. On a machine
without a GPU, asking for CUDA fails the way a CPU-only PyTorch build does.
"""
import functools
import re as _re
import threading

import jax
import numpy as np

from . import simulated
from .tracing import tracing

_TYPES = ("cpu", "cuda", "meta", "mps", "xla", "xpu", "hpu", "mtia", "privateuseone")


class device:
    """Mirrors `torch.device`."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            if not gpus():  # a bare index means the current accelerator, as in PyTorch
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got "
                f"({_typename(type)}), but expected one of:\n * (torch.device device)\n"
                f"      didn't match because some of the arguments have invalid types: "
                f"(!{_typename(type)}!)\n * (str type, int index = -1)\n")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                            f"{_typename(index)}")
        spec = type
        if not _re.fullmatch(r"[a-zA-Z_]+(:(0|[1-9][0-9]*))?", spec):
            raise RuntimeError(f"Invalid device string: '{type}'")
        if ":" in spec:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was "
                                   f"passed explicitly: {spec}")
            spec, _, idx = spec.partition(":")
            index = int(idx)
        if spec not in _TYPES:
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
                "fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type "
                f"at start of device string: {type}")
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative")
        self.type = spec
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):  # torch.device('cpu') == 'cpu' is False in PyTorch
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index) if self.index is not None else (self.type,))

    def __enter__(self):  # inside the block, factory functions default to this device
        mode_stack().append(DeviceMode(self))
        DEFAULT_USED[0] = True
        return self

    def __exit__(self, *exc):
        stack = mode_stack()
        if stack:
            stack.pop()
        return False


def _typename(x):
    return type(x).__name__


CPU = device("cpu")
# The default device of PyTorch's factory functions, per thread as in PyTorch: `stack` mirrors
# its stack of DeviceContext modes (`with device(...)` pushes one; `set_default_device` manages
# its own, see torchlike/_default_device.py), `ctx` is the one `set_default_device` made.
DEFAULT = threading.local()
DEFAULT_USED = [False]  # whether any thread ever made one: the factories' fast path


class DeviceMode:
    """One of PyTorch's DeviceContext modes: its device and the mode it displaced."""

    __slots__ = ("device", "prev")

    def __init__(self, d):
        self.device, self.prev = d, None


def mode_stack():
    return DEFAULT.__dict__.setdefault("stack", [])


def default_device():
    """The device a factory call naming none uses (None: the CPU)."""
    stack = getattr(DEFAULT, "stack", None)
    return stack[-1].device if stack else None


@functools.lru_cache(maxsize=None)
def gpus():
    """JAX's accelerator devices (GPU or TPU), in order; in the simulated mode, XLA CPU
    devices standing in for them (see `simulated`)."""
    if simulated.COUNT:
        return simulated.devices()
    out = []
    for backend in ("gpu", "tpu"):
        try:
            out.extend(jax.devices(backend))
        except RuntimeError:
            pass
    return tuple(out)


@functools.lru_cache(maxsize=None)
def cpu_jax_device():
    return jax.devices("cpu")[0]


_current_cuda = [0]


def current_cuda_index():
    return _current_cuda[0]


def set_current_cuda_index(i):
    _current_cuda[0] = i


def no_cuda_error():
    return AssertionError("Torch not compiled with CUDA enabled")


def invalid_ordinal_error():
    """What CUDA PyTorch raises for a device index past the last GPU (text as PyTorch 2.11's
    CUDA build gives it on a one-GPU machine)."""
    from .._errors import AcceleratorError
    return AcceleratorError(
        "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough "
        "GPUs?\nCUDA kernel errors might be asynchronously reported at some other API call, so "
        "the stacktrace below might be incorrect.\nFor debugging consider passing "
        "CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "
        "assertions.\n")


def no_aten_cuda_error():
    """What a CPU-only PyTorch raises where CUDA is reached below Python (`t.type(
    torch.cuda.FloatTensor)`)."""
    return RuntimeError(
        "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two "
        "shared libraries: a CPU library and a CUDA library; this error has occurred because you "
        "are trying to use some CUDA functionality, but the CUDA library has not been loaded by "
        "the dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
        "directly use any symbols from the CUDA library! One common culprit is a lack of "
        "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
        "library dependencies if you don't depend on any of their symbols.  You can check if "
        "this has occurred by using ldd on your binary to see if there is a dependency on "
        "*_cuda.so library.")


_CUDA = {}   # index -> its one canonical device (the dispatcher compares devices by identity)


def canonical(dev):
    """A `device` from a str/int/device; 'cuda' gets the current index. None stays None."""
    if dev is None:
        return None
    if not isinstance(dev, device):
        dev = device(dev)
    if dev.type == "cpu":
        return CPU
    if dev.type == "cuda":
        g = gpus()
        if not g:
            raise no_cuda_error()
        idx = current_cuda_index() if dev.index is None else dev.index
        if idx >= len(g):
            raise invalid_ordinal_error()
        d = _CUDA.get(idx)
        if d is None:
            d = _CUDA[idx] = device("cuda", idx)
        return d
    if dev.type == "meta":
        return dev
    raise RuntimeError(f"Device type {dev.type.upper()} is not supported by torchlike")


def put(np_array, dev=None):
    """A JAX array on torch device `dev` (default the CPU) holding a copy of `np_array`.
    A transfer compiles nothing, where `jnp.asarray` of a NumPy array compiles a staging
    program per shape; the copy keeps the array from aliasing NumPy memory that may change."""
    target = cpu_jax_device() if dev is None else jax_device(dev)
    return transfer(np.array(np_array, copy=True), target)


_TRANSFER = {}   # jax device (or None) -> (XLA's transfer function, its sharding, x64 state)


def transfer(a, target=None):
    """`jax.device_put(a, target)` for a NumPy array or scalar `a` (committed to `target`; on
    the default device, uncommitted, when None), through XLA's own transfer: ~14 us here
    against ~150 us for `jax.device_put`'s Python path, paid by every `torch.tensor`, host
    copy and recurring scalar. Anything else, and anything inside a trace (where
    `jax.device_put` stages the transfer instead of making a constant), goes to
    `jax.device_put`."""
    if not isinstance(a, (np.ndarray, np.generic)) or tracing():
        return jax.device_put(a, target)
    try:
        put_fn, sharding, x64 = _TRANSFER[target]
    except KeyError:
        try:
            from jax._src.lib import xla_client
            dev = target if target is not None else jax.devices()[0]
            put_fn = xla_client.batched_device_put
            sharding = jax.sharding.SingleDeviceSharding(dev)
        except Exception:  # a JAX without it: its public path
            put_fn = sharding = None
        x64 = bool(jax.config.jax_enable_x64)
        _TRANSFER[target] = put_fn, sharding, x64
    if put_fn is None or a.dtype == object or x64 != jax.config.jax_enable_x64:
        return jax.device_put(a, target)
    from jax._src.core import ShapedArray
    a = np.asarray(a)
    return put_fn(ShapedArray(a.shape, a.dtype), sharding, [a], list(sharding.device_set),
                  target is not None, enable_x64=x64)


def of_jax_device(jd):
    """The torch device of a jax.Device: `cuda:N` for the N-th accelerator (simulated ones
    included), else the CPU."""
    g = gpus()
    if jd in g:
        return canonical(device("cuda", g.index(jd)))
    return CPU


def jax_device(dev):
    """The jax.Device behind a canonical torch device."""
    if dev.type == "cuda":
        return gpus()[dev.index]
    return cpu_jax_device()
