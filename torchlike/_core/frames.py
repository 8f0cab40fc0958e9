"""Wrapper functions that Python's `warnings` does not count as a frame.

Code compiled under a file name containing "importlib" and "_bootstrap" is skipped when
`warnings.warn` counts `stacklevel` (as the import machinery is), so a warning raised by a
wrapped function still names the line PyTorch's would (the user's call), not the wrapper."""

_FILENAME = "<torchlike wrapper (skipped by warnings like importlib._bootstrap)>"


def define(source, namespace, name):
    """Execute `source` (which defines function `name`) in `namespace`; return the function."""
    exec(compile(source, _FILENAME, "exec"), namespace)  # noqa: S102 - fixed templates
    return namespace[name]
