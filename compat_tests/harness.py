"""Differential-test harness: run the same code under real PyTorch and torchlike and compare.

    check(lambda torch: torch.ones(2, 3).sum(0))

runs the function once with `torch` bound to real PyTorch and once with torchlike, and asserts
the results agree: tensors (dtype, shape, values — exact for bool/int, with tolerance for
floats), Python scalars, nested tuples/lists/dicts/namedtuples, and raised exceptions (same type
and message).
"""
import math
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import torch as real_torch

import torchlike

FLOAT_TOL = {
    "float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2), "float32": (1e-5, 1e-6),
    "float64": (1e-10, 1e-12), "complex64": (1e-5, 1e-6), "complex128": (1e-10, 1e-12),
}


class Raised:
    """An exception captured from one side, compared by type name and message."""

    def __init__(self, exc):
        self.type = type(exc).__name__
        self.msg = str(exc)

    def __repr__(self):
        return f"{self.type}: {self.msg}"


def run(fn, lib, *args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib, *args)
    except Exception as e:  # noqa: BLE001 - we compare exceptions too
        return Raised(e)


def _normalise_msg(msg):
    # torch appends C++ frames in debug builds; keep the first line block only
    return msg.split("\nException raised from")[0].strip()


def _is_tensor(x):
    return isinstance(x, (real_torch.Tensor, torchlike.Tensor))


def to_numpy(t):
    if isinstance(t, real_torch.Tensor):
        t = t.detach().cpu()
        if t.dtype == real_torch.bfloat16:
            return t.float().numpy()
        return t.resolve_conj().resolve_neg().numpy()
    a = np.asarray(t._value())
    if a.dtype.name == "bfloat16":
        a = a.astype(np.float32)
    return a


def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def assert_same(expected, actual, rtol=None, atol=None, path="result", check_stride=False):
    """Assert torchlike's `actual` matches PyTorch's `expected` (recursively)."""
    if isinstance(expected, Raised) or isinstance(actual, Raised):
        assert isinstance(expected, Raised) and isinstance(actual, Raised), \
            f"{path}: torch gave {expected!r}, torchlike gave {actual!r}"
        assert expected.type == actual.type, f"{path}: exception type {expected!r} vs {actual!r}"
        assert _normalise_msg(expected.msg) == _normalise_msg(actual.msg), \
            f"{path}: exception message\n torch:     {expected.msg!r}\n torchlike: {actual.msg!r}"
        return
    if _is_tensor(expected):
        assert isinstance(actual, torchlike.Tensor), f"{path}: expected a Tensor, got {type(actual)}"
        assert dtype_name(expected) == dtype_name(actual), \
            f"{path}: dtype {expected.dtype} vs {actual.dtype}"
        assert tuple(expected.shape) == tuple(actual.shape), \
            f"{path}: shape {tuple(expected.shape)} vs {tuple(actual.shape)}"
        if check_stride:
            assert tuple(expected.stride()) == tuple(actual.stride()), \
                f"{path}: stride {expected.stride()} vs {actual.stride()}"
            assert expected.storage_offset() == actual.storage_offset(), f"{path}: offset"
        e, a = to_numpy(expected), to_numpy(actual)
        name = dtype_name(expected)
        if name in FLOAT_TOL:
            r, t = FLOAT_TOL[name]
            np.testing.assert_allclose(a, e, rtol=rtol if rtol is not None else r,
                                       atol=atol if atol is not None else t, equal_nan=True,
                                       err_msg=path)
        else:
            np.testing.assert_array_equal(a, e, err_msg=path)
        return
    if isinstance(expected, (real_torch.Size,)):
        assert isinstance(actual, torchlike.Size) and tuple(expected) == tuple(actual), \
            f"{path}: {expected} vs {actual}"
        return
    if isinstance(expected, real_torch.dtype):
        assert str(expected) == str(actual), f"{path}: {expected} vs {actual}"
        return
    if isinstance(expected, real_torch.device):
        assert str(expected) == str(actual), f"{path}: {expected} vs {actual}"
        return
    if isinstance(expected, tuple) and hasattr(expected, "_fields"):
        assert hasattr(actual, "_fields"), f"{path}: expected a named tuple, got {type(actual)}"
        assert tuple(expected._fields) == tuple(actual._fields), f"{path}: fields"
    if isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)), f"{path}: expected a sequence, got {actual!r}"
        if type(expected) in (list, tuple):
            assert type(actual) is type(expected), \
                f"{path}: container {type(expected).__name__} vs {type(actual).__name__}"
        assert len(expected) == len(actual), f"{path}: length {len(expected)} vs {len(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, rtol, atol, f"{path}[{i}]", check_stride)
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and list(expected) == list(actual), \
            f"{path}: keys {list(expected)} vs {list(actual) if isinstance(actual, dict) else actual}"
        for k in expected:
            assert_same(expected[k], actual[k], rtol, atol, f"{path}[{k!r}]", check_stride)
        return
    if isinstance(expected, float) and isinstance(actual, float):
        if math.isnan(expected):
            assert math.isnan(actual), f"{path}: {expected} vs {actual}"
        else:
            assert math.isclose(expected, actual, rel_tol=1e-6 if rtol is None else rtol,
                                abs_tol=1e-9 if atol is None else atol), \
                f"{path}: {expected} vs {actual}"
        return
    assert type(expected) is type(actual) and expected == actual, \
        f"{path}: {expected!r} ({type(expected).__name__}) vs {actual!r} ({type(actual).__name__})"


def check(fn, *args, rtol=None, atol=None, check_stride=False):
    """Run `fn(torch, *args)` under real torch and torchlike; assert the results agree."""
    expected = run(fn, real_torch, *args)
    actual = run(fn, torchlike, *args)
    assert_same(expected, actual, rtol, atol, check_stride=check_stride)
    return expected, actual


def same_repr(fn, *args):
    """Assert `repr(fn(torch))` is byte-identical under both libraries."""
    e = run(fn, real_torch, *args)
    a = run(fn, torchlike, *args)
    e = e if isinstance(e, Raised) else repr(e)
    a = a if isinstance(a, Raised) else repr(a)
    if isinstance(e, Raised) or isinstance(a, Raised):
        assert_same(e, a)
    else:
        assert e == a, f"repr differs\n torch:\n{e}\n torchlike:\n{a}"


def both(np_array):
    """Build the same input for both libraries from a NumPy array (a fresh copy each)."""
    return lambda lib: lib.tensor(np_array.copy())


def run_script(code, tmp_path, torchlike):
    """stdout and stderr of `code` run as a script with real torch or through the runner."""
    folder = tmp_path / ("torchlike" if torchlike else "torch")
    folder.mkdir(exist_ok=True)
    path = folder / "script.py"   # the same file name on both sides: warnings print it
    path.write_text(code)
    cmd = [sys.executable] + (["-m", "torchlike"] if torchlike else []) + [str(path)]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    out = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout, out.stderr


def same_script_output(code, tmp_path):
    """The script prints the same (stdout and stderr) under both libraries; returns what it
    printed."""
    real = run_script(code, tmp_path, torchlike=False)
    ours = run_script(code, tmp_path, torchlike=True)
    ours = tuple(o.replace(str(tmp_path / "torchlike"), str(tmp_path / "torch")) for o in ours)
    assert ours == real, f"torch:\n{real[0]}{real[1]}\ntorchlike:\n{ours[0]}{ours[1]}"
    return real
