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
