"""Runs a script (argv[1], with argv[2:]) on real PyTorch with real torchvision: torchvision's
C++ library cannot load beside the CPU torch wheel, so its operators are defined here with the
NumPy reference kernels (`reference_ops.py`) before torchvision is imported, and its request to
load that library succeeds (its other native libraries still fail to load, as they do here)."""
import os
import runpy
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_ops  # noqa: E402

SCHEMAS = runpy.run_path(os.path.join(HERE, "..", "..", "torchlike", "_extensions",
                                      "torchvision_schemas.py"))["SCHEMAS"]
_LIB = reference_ops.register(torch, SCHEMAS)
_load_library = torch.ops.load_library


def _load(path):
    if os.path.basename(os.path.dirname(path)) == "torchvision" and \
            os.path.basename(path).startswith("_C."):
        return        # its operators are the ones defined above
    _load_library(path)


torch.ops.load_library = _load
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
