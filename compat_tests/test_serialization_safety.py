"""torch.load safety: hostile pickles never run (default weights_only=True), the allow-list API,
damaged archives fail with PyTorch's errors before anything is returned, and an interrupted
torch.save leaves the previous checkpoint intact. Every error is compared with real PyTorch's."""
import collections
import io
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
import zipfile

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import Raised, assert_same, run
from test_serialization_helpers import read_both


class _Reduce:
    """Pickles as `func(*args)` (how an attacker's object pickles)."""

    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def _s(text):
    b = text.encode()
    return b"X" + len(b).to_bytes(4, "little") + b


def _corpus(marker):
    touch = f"touch {marker}"
    py = f"open({marker!r}, 'w').close()"
    return {
        "os.system": b"\x80\x02cos\nsystem\n" + _s(touch) + b"\x85R.",
        "posix.system (pickled __reduce__)": pickle.dumps(_Reduce(os.system, (touch,)), 2),
        "eval": b"\x80\x02c__builtin__\neval\n" + _s(py) + b"\x85R.",
        "exec": b"\x80\x02cbuiltins\nexec\n" + _s(py) + b"\x85R.",
        "subprocess.call": pickle.dumps(_Reduce(subprocess.call, (["touch", marker],)), 2),
        "getattr chain": b"\x80\x02cbuiltins\ngetattr\n(cbuiltins\n__import__\n" + _s("os")
                         + b"\x85R" + _s("system") + b"tR" + _s(touch) + b"\x85R.",
        "__import__": b"\x80\x02c__builtin__\n__import__\n" + _s("os") + b"\x85R.",
        "nested __reduce__": pickle.dumps(
            {"model": [collections.OrderedDict(w={"x": _Reduce(os.system, (touch,))})]}, 2),
        "__setstate__ via BUILD on OrderedDict": b"\x80\x02ccollections\nOrderedDict\n)R}"
                                                 + _s("__setstate__")
                                                 + b"cbuiltins\nexec\nsb.",
        "BUILD on a list": b"\x80\x02]}" + _s("append") + b"Nsb.",
        "BUILD on a dict": b"\x80\x02}}" + _s("x") + b"Ksb.",
        "INST opcode": b"\x80\x02(" + _s(touch) + b"ios\nsystem\n.",
        "OBJ opcode": b"\x80\x02(o.",
        "protocol 4 STACK_GLOBAL": pickle.dumps(_Reduce(os.system, (touch,)), 4),
        "EXT1 opcode": b"\x80\x02\x82\x01.",
        "reduce of a non-callable": b"\x80\x02" + _s("abc") + b")R.",
        "persistent id of a module": b"\x80\x02(" + _s("module") + _s("os") + b"NNtQ.",
        "copyreg._reconstructor": pickle.dumps(_Reduce(__import__("copyreg")._reconstructor,
                                                       (object, object, None)), 2),
        "numpy reconstruct": pickle.dumps(np.arange(3), 2),
        "torch module class": b"\x80\x02ctorch.nn.modules.linear\nLinear\n)\x81.",
    }


def _zipped(data_pkl):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", data_pkl)
        z.writestr("archive/byteorder", b"little")
        z.writestr("archive/version", b"3\n")
    return buf.getvalue()


@pytest.mark.parametrize("container", ["bare", "zip"])
def test_hostile_pickles_never_run(tmp_path, container):
    marker = str(tmp_path / "pwned")
    for name, payload in _corpus(marker).items():
        path = tmp_path / f"{container}.pt"
        path.write_bytes(_zipped(payload) if container == "zip" else payload)
        got = run(lambda lib: lib.load(path), torchlike)
        assert not os.path.exists(marker), f"{name}: ran code"
        assert isinstance(got, Raised) and got.type == "UnpicklingError", f"{name}: {got!r}"
        want = run(lambda lib: lib.load(path), real_torch)
        assert not os.path.exists(marker), f"{name}: real torch ran code"
        assert_same(want, got, path=name)  # PyTorch refuses it the same way, word for word


class Point:
    """A user class to allow-list."""

    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return type(other) is Point and other.x == self.x


def test_safe_globals_api(tmp_path):
    path = tmp_path / "p.pt"
    real_torch.save({"p": Point(3), "t": real_torch.ones(2)}, path)
    for lib in (real_torch, torchlike):
        lib.serialization.clear_safe_globals()
    read_both(str(path))  # refused, same message
    for lib in (real_torch, torchlike):
        lib.serialization.add_safe_globals([Point])
    assert torchlike.serialization.get_safe_globals() == [Point]
    read_both(str(path))
    assert torchlike.load(path)["p"] == Point(3)
    for lib in (real_torch, torchlike):
        lib.serialization.clear_safe_globals()
    assert torchlike.serialization.get_safe_globals() == []

    def scoped(lib, _):
        with lib.serialization.safe_globals([(Point, f"{__name__}.Point")]):
            inside = lib.load(path)["p"].x
        return [inside, lib.serialization.get_safe_globals()]
    read_both(str(path), lambda lib, obj: obj, weights_only=False)
    for lib in (real_torch, torchlike):
        assert run(scoped, lib, None) == [3, []]


def test_weights_only_refuses_whole_module_but_unsafe_load_works(tmp_path):
    path = tmp_path / "m.pt"
    real_torch.save(real_torch.nn.Sequential(real_torch.nn.Linear(2, 3), real_torch.nn.ReLU()),
                    path)
    read_both(str(path))  # the same UnpicklingError text
    m = torchlike.load(path, weights_only=False)
    assert type(m) is torchlike.nn.Sequential and type(m[0]) is torchlike.nn.Linear


# ---- damaged archives ----------------------------------------------------------------------------

def _good():
    buf = io.BytesIO()
    real_torch.save({"a": real_torch.arange(100.0), "b": real_torch.ones(3)}, buf)
    return buf.getvalue()


def _rezip(entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, d in entries:
            z.writestr(n, d)
    return buf.getvalue()


def _damaged():
    raw = _good()
    z = zipfile.ZipFile(io.BytesIO(raw))
    info = {i.filename: i for i in z.infolist()}
    pkl = z.read("archive/data.pkl")
    v = ("archive/version", b"3\n")

    def patch(at, val):
        b = bytearray(raw)
        b[at:at + len(val)] = val
        return bytes(b)
    return {
        "truncated half": raw[:len(raw) // 2], "truncated tail": raw[:-10],
        "truncated head": raw[:100], "empty": b"", "garbage": b"garbage bytes here",
        "zip magic only": b"PK\x03\x04" + b"\0" * 50,
        "bad local header": patch(info["archive/data/0"].header_offset, b"XXXX"),
        "bad central directory": patch(raw.rindex(b"PK\x01\x02"), b"XXXX"),
        "no version": _rezip([("archive/data.pkl", pkl)]),
        "no data.pkl": _rezip([v, ("archive/foo", b"x")]),
        "missing storage": _rezip([("archive/data.pkl", pkl), v]),
        "short storage": _rezip([("archive/data.pkl", pkl), ("archive/data/0", b"\0" * 12), v]),
        "mixed folders": _rezip([("archive/data.pkl", pkl), ("other/data/0", b"\0" * 400), v]),
        "truncated pickle": _rezip([("archive/data.pkl", pkl[:50]), v]),
        "version too new": _rezip([("archive/data.pkl", pkl), ("archive/version", b"99\n")]),
        "version garbage": _rezip([("archive/data.pkl", pkl), ("archive/version", b"abc\n")]),
        "bad byteorder": _rezip([("archive/data.pkl", pkl), ("archive/byteorder", b"middle"), v]),
    }


@pytest.mark.parametrize("weights_only", [True, False])
def test_damaged_archives_raise_torchs_errors(tmp_path, weights_only):
    for name, data in _damaged().items():
        path = tmp_path / "bad.pt"
        path.write_bytes(data)
        want = run(lambda lib: lib.load(path, weights_only=weights_only), real_torch)
        got = run(lambda lib: lib.load(path, weights_only=weights_only), torchlike)
        assert isinstance(want, Raised), name
        assert_same(want, got, path=name)


def test_failed_load_leaves_the_model_untouched(tmp_path):
    model = torchlike.nn.Linear(3, 2)
    before = {k: np.asarray(v._value()).copy() for k, v in model.state_dict().items()}
    torchlike.save(model.state_dict(), tmp_path / "ok.pt")
    data = (tmp_path / "ok.pt").read_bytes()
    for cut in (len(data) // 3, len(data) - 30):
        (tmp_path / "bad.pt").write_bytes(data[:cut])
        with pytest.raises(RuntimeError, match="PytorchStreamReader failed"):
            model.load_state_dict(torchlike.load(tmp_path / "bad.pt"))
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(np.asarray(v._value()), before[k])


# ---- interrupted saves ---------------------------------------------------------------------------

_SLOW_SAVER = textwrap.dedent("""
    import sys, time
    import torchlike
    from torchlike.serialization import _zipfile
    write_record = _zipfile.ZipWriter.write_record
    def slow(self, name, data, crc=None):
        write_record(self, name, data, crc)
        if name.startswith("data/"):
            print("writing", flush=True)
            time.sleep(0.5)
    _zipfile.ZipWriter.write_record = slow
    big = {f"w{i}": torchlike.full((256, 1024), float(i)) for i in range(8)}
    torchlike.save(big, sys.argv[1])
    print("done", flush=True)
""")


def test_killed_save_leaves_previous_checkpoint_intact(tmp_path):
    path = tmp_path / "ckpt.pt"
    torchlike.save({"w": torchlike.arange(5.0)}, path)
    old = path.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_SAVER, str(path)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "writing"
        time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert path.read_bytes() == old
    for lib in (real_torch, torchlike):
        assert lib.load(path)["w"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    leftovers = [p for p in os.listdir(tmp_path) if p != "ckpt.pt"]
    assert leftovers and all(p.startswith(".ckpt.pt.") for p in leftovers)  # the partial temp


def test_failed_save_keeps_old_file_and_cleans_up(tmp_path):
    path = tmp_path / "ckpt.pt"
    torchlike.save({"w": torchlike.arange(5.0)}, path)
    old = path.read_bytes()

    class Unpicklable:
        def __reduce__(self):
            raise RuntimeError("cannot pickle this")
    with pytest.raises(RuntimeError, match="cannot pickle this"):
        torchlike.save({"w": torchlike.ones(2), "x": Unpicklable()}, path)
    assert path.read_bytes() == old
    assert os.listdir(tmp_path) == ["ckpt.pt"]
