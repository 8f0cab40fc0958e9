"""torchlike's own versions of native extension libraries that Python packages load through
`torch.ops.load_library` (torchvision's `_C` and `image`): a library is recognised by its package and file
name, and loading it registers torchlike's kernels for its operators instead."""
import os


def stand_in(path):
    """The registration function standing in for native library `path`, or None."""
    base = os.path.basename(os.fspath(path)).split(".")[0]
    package = os.path.basename(os.path.dirname(os.path.abspath(os.fspath(path))))
    if package == "torchvision" and base == "_C":
        from . import torchvision_ops
        return torchvision_ops.register
    if package == "torchvision" and base == "image":
        from . import torchvision_image
        return torchvision_image.register
    return None


def define(namespace, schemas, kernels):
    """A `torch.library` DEF library for `namespace` defining `schemas`, with `kernels`
    ({name: function}) as their composite kernels; kept for the process."""
    from .. import library
    lib = library.Library(namespace, "DEF")
    library._KEPT.append(lib)
    for schema in schemas:
        name = lib.define(schema)
        if name in kernels:
            lib.impl(name, kernels[name], "CompositeExplicitAutograd")
    return lib
