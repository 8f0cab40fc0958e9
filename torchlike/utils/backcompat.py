"""Mirrors `torch.utils.backcompat`: the switches for PyTorch 0.2's broadcasting and keepdim
backward-compatibility warnings. PyTorch 2 no longer emits those warnings, so the switches only
hold the value set (`torch.utils.backcompat.broadcast_warning.enabled = True` reads back True)."""


class Warning:
    def __init__(self, setter, getter):
        self.setter = setter
        self.getter = getter

    def set_enabled(self, value):
        self.setter(value)

    def get_enabled(self):
        return self.getter()

    enabled = property(get_enabled, set_enabled)


def _flag(name):
    state = [False]

    def setter(value):
        if type(value) is not bool:
            t = type(value)
            tname = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
            raise RuntimeError(f"set_backcompat_{name}_warn expects a bool, but got {tname}")
        state[0] = value
    return setter, lambda: state[0]


broadcast_warning = Warning(*_flag("broadcast"))
keepdim_warning = Warning(*_flag("keepdim"))

__all__ = ["Warning"]
