"""Mirrors `torch.autograd.anomaly_mode`: `detect_anomaly` / `set_detect_anomaly`.

While it is on, every graph node keeps the Python traceback of the forward call that made it
(`grad_fn.metadata["traceback_"]`, the user's frames), backward runs node by node, a node whose
gradients contain NaN raises "Function 'SqrtBackward0' returned nan values in its 0th output."
(unless `check_nan=False`), and any error inside a node's backward is preceded by PyTorch's
warning "Error detected in <node>. Traceback of forward call that caused the error: ..."."""
import traceback
import warnings

from .._core import frames

_STATE = {"enabled": False, "check_nan": True}


def forward_stack():
    """The formatted frames of the current call stack outside torchlike (the forward call):
    not its files, its generated op functions ("<string>") or the runner's runpy frames."""
    out = []
    for fs in traceback.extract_stack()[:-1]:
        name = fs.filename
        if name.startswith((frames._PACKAGE, "<frozen ")) or name in _INTERNAL:
            continue
        out.append(f'  File "{name}", line {fs.lineno}, in {fs.name}\n' +
                   (f"    {fs.line.strip()}\n" if fs.line else ""))
    return out


_INTERNAL = (frames._FILENAME, "<string>")


def report(node):
    """PyTorch's warning naming the forward call of `node`, whose backward failed."""
    stack = (node._metadata or {}).get("traceback_")
    if stack is None:
        return
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                  f"error:\n{''.join(stack)} (Triggered internally at "
                  f"/__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)",
                  UserWarning, stacklevel=frames.user_stacklevel())


def check_nan(node, grads):
    """PyTorch's anomaly check of a node's gradients."""
    if not _STATE["check_nan"]:
        return
    import jax.numpy as jnp
    for i, g in enumerate(grads):
        if g is not None and (g.dtype.is_floating_point or g.dtype.is_complex) and \
                bool(jnp.isnan(g._value()).any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               f"output.")


def is_anomaly_enabled():
    return _STATE["enabled"]


def is_anomaly_check_nan_enabled():
    return _STATE["check_nan"]


class detect_anomaly:
    """Mirrors `torch.autograd.detect_anomaly` (context manager and decorator)."""

    def __init__(self, check_nan=True):
        self.prev = _STATE["enabled"]
        self.check_nan = check_nan
        self.prev_check_nan = _STATE["check_nan"]
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        _STATE["enabled"], _STATE["check_nan"] = True, self.check_nan

    def __exit__(self, *exc):
        _STATE["enabled"], _STATE["check_nan"] = self.prev, self.prev_check_nan

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Mirrors `torch.autograd.set_detect_anomaly(mode, check_nan=True)`."""

    def __init__(self, mode, check_nan=True):
        self.prev = _STATE["enabled"]
        self.prev_check_nan = _STATE["check_nan"]
        _STATE["enabled"], _STATE["check_nan"] = bool(mode), bool(check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _STATE["enabled"], _STATE["check_nan"] = self.prev, self.prev_check_nan
