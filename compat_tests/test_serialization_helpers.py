"""Helpers shared by the serialization tests (no tests here): write a checkpoint with one
library, read it with both, and compare what they see (values, dtypes, layouts, storage
sharing) in a library-neutral form."""
import collections
import io

import numpy as np
import torch as real_torch

import torchlike
from harness import Raised, run

LIBS = {"torch": real_torch, "torchlike": torchlike}


def plain(x):
    """A library-neutral description of a loaded object (tensors -> dtype/shape/stride/offset/
    requires_grad/class name/NumPy values), for comparing what each library loaded."""
    if isinstance(x, (real_torch.Tensor, torchlike.Tensor)):
        t = x.detach()
        if isinstance(x, real_torch.Tensor):
            a = (t.float() if t.dtype == real_torch.bfloat16 else t).cpu().numpy()
        else:
            a = np.asarray(t._value())
            a = a.astype(np.float32) if a.dtype.name == "bfloat16" else a
        return ("tensor", type(x).__name__, str(x.dtype), tuple(x.shape), tuple(x.stride()),
                x.storage_offset(), x.requires_grad, a,
                tuple(sorted((k, plain(v)) for k, v in vars(x).items()
                             if not k.startswith("_"))))
    if isinstance(x, (real_torch.Size, torchlike.Size)):
        return ("Size", tuple(x))
    if isinstance(x, (real_torch.dtype, torchlike.dtype)):
        return ("dtype", str(x))
    if isinstance(x, (real_torch.device, torchlike.device)):
        return ("device", str(x))
    if isinstance(x, Raised):
        return ("raised", x.type, x.msg)
    if isinstance(x, dict):
        return (type(x).__name__, [(k, plain(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v) for v in x])
    if isinstance(x, (set, frozenset)):
        return (type(x).__name__, sorted(x, key=repr))
    return (type(x).__name__, x)


def assert_plain_equal(a, b, path="obj"):
    """Recursive equality of two `plain` descriptions (NaNs equal)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), path
        assert a.dtype == b.dtype and a.shape == b.shape, f"{path}: {a.dtype}{a.shape} vs " \
                                                          f"{b.dtype}{b.shape}"
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), f"{path}: {a} vs {b}"
        return
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), f"{path}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_plain_equal(x, y, f"{path}[{i}]")
        return
    assert type(a) is type(b) and a == b, f"{path}: {a!r} vs {b!r}"


def write(writer, make, path, **kw):
    """Build the object with library `writer` and save it to `path`."""
    lib = LIBS[writer]
    lib.save(make(lib), path, **kw)
    return path


def read_both(path, scenario=None, **load_kw):
    """Load `path` (a path, or the bytes of a checkpoint) with both libraries (optionally
    running `scenario(lib, obj)` on the result) and return their `plain` descriptions; asserts
    they agree."""
    out = {}
    for name, lib in LIBS.items():
        def go(lib):
            obj = lib.load(io.BytesIO(path) if isinstance(path, bytes) else path, **load_kw)
            return scenario(lib, obj) if scenario else obj
        out[name] = plain(run(go, lib))
    assert_plain_equal(out["torch"], out["torchlike"], f"load {str(path)[-40:]}")
    return out["torch"]


def ordered(pairs):
    return collections.OrderedDict(pairs)
