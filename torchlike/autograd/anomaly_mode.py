"""Mirrors `torch.autograd.anomaly_mode`: `detect_anomaly` / `set_detect_anomaly`. The flag is
recorded (and reported by `torch.is_anomaly_enabled`); the engine's error messages do not change
with it."""
import warnings

_STATE = {"enabled": False, "check_nan": True}


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
