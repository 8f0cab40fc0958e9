"""Wrapper functions that Python's `warnings` does not count as a frame.

Code compiled under a file name containing "importlib" and "_bootstrap" is skipped when
`warnings.warn` counts `stacklevel` (as the import machinery is), so a warning raised by a
wrapped function still names the line PyTorch's would (the user's call), not the wrapper."""

_FILENAME = "<torchlike wrapper (skipped by warnings like importlib._bootstrap)>"


def define(source, namespace, name):
    """Execute `source` (which defines function `name`) in `namespace`; return the function."""
    from .codecache import compiled
    exec(compiled(source, _FILENAME), namespace)  # noqa: S102 - fixed templates
    return namespace[name]


_PACKAGE = __file__.rsplit("/", 2)[0] + "/"  # .../torchlike/


def user_stacklevel():
    """The `stacklevel` that makes a `warnings.warn` in the calling function name the first
    frame outside torchlike (the user's line, as PyTorch's warnings from C++ do)."""
    import sys
    f, level = sys._getframe(1), 1
    while f.f_back is not None and (f.f_code.co_filename.startswith(_PACKAGE) or
                                    f.f_code.co_filename == _FILENAME):
        if f.f_code.co_filename != _FILENAME:  # wrappers `warnings` does not count
            level += 1
        f = f.f_back
    return level


_WARNED = set()


def warn(message, once=False):
    """A `UserWarning` at the user's line, as PyTorch's warnings from C++ are; `once`: only the
    first time in the process (PyTorch's TORCH_WARN_ONCE)."""
    if once:
        if message in _WARNED:
            return
        _WARNED.add(message)
    import warnings
    warnings.warn(message, UserWarning, stacklevel=user_stacklevel())
