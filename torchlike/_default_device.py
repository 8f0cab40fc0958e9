"""`torch.set_default_device` / `torch.get_default_device`: the device PyTorch's factory
functions use when a call names none (also inside `with torch.device(...)` blocks). The state, a
mirror of PyTorch's per-thread stack of DeviceContext modes, lives in `_core/device.py`."""
import functools

from ._core import device as dev
from ._core import frames
from ._ops.registry import FUNCTIONS

# PyTorch's `_device_constructors()` that torchlike has (not the *_like functions, which follow
# their input, nor `torch.Tensor(...)`, `from_numpy`, or the deprecated `range`, which PyTorch
# wraps in Python so its mode no longer recognises it)
CONSTRUCTORS = ("empty", "empty_strided", "ones", "arange", "eye", "fft_fftfreq",
                "fft_rfftfreq", "full", "linspace", "logspace", "rand", "randn", "randint",
                "randperm", "tril_indices", "triu_indices", "zeros", "asarray", "tensor",
                "as_tensor", "scalar_tensor")


def set_default_device(device):
    """Mirrors `torch.set_default_device`: `None` goes back to the CPU. On a machine without a
    GPU 'cuda' is accepted here and fails where a tensor is made, as in a CPU-only PyTorch.
    PyTorch's mode-stack behaviour is kept, quirks included: the new default displaces the
    devices of open `with torch.device(...)` blocks, and clearing it brings back the last one
    it displaced."""
    ctx = getattr(dev.DEFAULT, "ctx", None)
    if ctx is not None:
        _exit(ctx)
    new = None
    if device is not None:
        new = dev.DeviceMode(dev.device(device))
        _enter(new)
    dev.DEFAULT.ctx = new
    dev.DEFAULT_USED[0] = True


def _enter(mode):
    """PyTorch's DeviceContext.__enter__: the mode goes to the bottom of the stack, alone; the
    topmost device mode it removes is remembered."""
    stack = dev.mode_stack()
    for old in stack:
        mode.prev = old
    stack[:] = [mode]


def _exit(mode):
    """PyTorch's DeviceContext.__exit__: pop the bottom mode, put back the remembered one."""
    stack = dev.mode_stack()
    if len(stack) > 1:
        stack.pop()
        raise AssertionError("Found nested DeviceContext on the mode stack where none expected")
    if stack:
        stack.pop()
    if mode.prev is not None:
        stack.append(mode.prev)


def get_default_device():
    """Mirrors `torch.get_default_device`: the innermost device mode, else the device set,
    else the CPU. A device without an index is answered, as PyTorch does, with the device of
    a new empty tensor ('cuda' -> 'cuda:0', or PyTorch's error without a GPU)."""
    d = dev.default_device()
    if d is None:
        ctx = getattr(dev.DEFAULT, "ctx", None)
        d = ctx.device if ctx is not None else None
    if d is None:
        return dev.CPU
    return d if d.index is not None else FUNCTIONS["tensor"]([]).device


def _defaulting(fn):
    """`fn` taking the default device when a call names none; invisible to `warnings` (see
    `_core/frames.py`), so the warnings the factories raise name the user's line."""
    return functools.wraps(fn)(frames.define(_WRAPPER, {"fn": fn, "dev": dev},
                                             "with_default_device"))


_WRAPPER = """
def with_default_device(*args, **kwargs):
    if dev.DEFAULT_USED[0] and kwargs.get("device") is None:
        d = dev.default_device()
        if d is not None:
            kwargs["device"] = d
    return fn(*args, **kwargs)
"""


def install(namespace):
    """Route the factory functions in FUNCTIONS and `namespace` through the default device."""
    for name in CONSTRUCTORS:
        FUNCTIONS[name] = namespace[name] = _defaulting(FUNCTIONS[name])
