"""The deprecated per-device spellings (`torch.cpu.amp.autocast`, `torch.cuda.amp.GradScaler`,
...): subclasses of the `torch.amp` classes that first give PyTorch's FutureWarning."""
import functools
import warnings


def _warn(old, new):
    warnings.warn(f"`torch.{old}(args...)` is deprecated. Please use `torch.{new}` instead.",
                  FutureWarning, stacklevel=3)


def autocast_alias(base, device_type, default_dtype, module):
    """`torch.<device_type>.amp.autocast(enabled=True, dtype=..., cache_enabled=True)`."""
    def __init__(self, enabled=True, dtype=default_dtype, cache_enabled=True):
        _warn(f"{device_type}.amp.autocast", f"amp.autocast('{device_type}', args...)")
        base.__init__(self, device_type, enabled=enabled, dtype=dtype,
                      cache_enabled=cache_enabled)
    return type("autocast", (base,), {"__init__": __init__, "__module__": module,
                                      "__doc__": f"See `torch.autocast` (device '{device_type}'"
                                                 f"; deprecated in PyTorch)."})


def grad_scaler_alias(base, device_type, module):
    """`torch.<device_type>.amp.GradScaler(init_scale=2.**16, ...)`."""
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _warn(f"{device_type}.amp.GradScaler", f"amp.GradScaler('{device_type}', args...)")
        base.__init__(self, device_type, init_scale=init_scale, growth_factor=growth_factor,
                      backoff_factor=backoff_factor, growth_interval=growth_interval,
                      enabled=enabled)
    return type("GradScaler", (base,), {"__init__": __init__, "__module__": module,
                                        "__doc__": f"See `torch.amp.GradScaler` (device "
                                                   f"'{device_type}'; deprecated in PyTorch)."})


def custom_fwd_alias(custom_fwd, device_type):
    def fwd(fwd=None, *, cast_inputs=None):
        _warn(f"{device_type}.amp.custom_fwd", f"amp.custom_fwd(args..., "
              f"device_type='{device_type}')")
        return functools.partial(custom_fwd, device_type=device_type)(fwd=fwd,
                                                                      cast_inputs=cast_inputs)
    fwd.__name__ = fwd.__qualname__ = "custom_fwd"
    return fwd


def custom_bwd_alias(custom_bwd, device_type):
    def bwd(bwd):
        _warn(f"{device_type}.amp.custom_bwd", f"amp.custom_bwd(args..., "
              f"device_type='{device_type}')")
        return functools.partial(custom_bwd, device_type=device_type)(bwd)
    bwd.__name__ = bwd.__qualname__ = "custom_bwd"
    return bwd
