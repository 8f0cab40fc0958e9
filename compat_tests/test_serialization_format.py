"""The checkpoint container torchlike writes is PyTorch's (records, order, alignment, zip
fields, pickle globals), `map_location` in all its forms, whole modules, and argument errors —
each compared with real PyTorch."""
import importlib
import inspect
import io
import os
import pickletools
import struct
import warnings
import zipfile

import numpy as np
import pytest
import torch as real_torch

import torchlike
from harness import assert_same, run
from test_serialization_helpers import LIBS, read_both, write


def _sample(lib):
    base = lib.arange(6.0).reshape(2, 3)
    return {"w": base, "v": base.t(), "i": lib.tensor([1, 2], dtype=lib.int64),
            "u": lib.ones(2, dtype=lib.uint16), "p": lib.nn.Parameter(lib.zeros(2)),
            "size": lib.Size([1]), "dt": lib.float16, "dev": lib.device("cpu")}


def _records(data):
    """(name, local header fields, data offset % 64) for each record, and the central dir."""
    z = zipfile.ZipFile(io.BytesIO(data))
    out = []
    for i in z.infolist():
        head = struct.unpack("<IHHHHHIIIHH", data[i.header_offset:i.header_offset + 30])
        start = i.header_offset + 30 + head[9] + head[10]
        out.append((i.filename, head[:9], start % 64, i.flag_bits, i.compress_type,
                    i.create_version, i.extract_version, i.external_attr))
    return out


def _globals(data):
    z = zipfile.ZipFile(io.BytesIO(data))
    pkl = z.read([n for n in z.namelist() if n.endswith("/data.pkl")][0])
    return [arg for op, arg, _ in pickletools.genops(pkl) if op.name == "GLOBAL"]


def test_layout_matches_torch():
    files = {}
    for name, lib in LIBS.items():
        buf = io.BytesIO()
        lib.save(_sample(lib), buf)
        files[name] = buf.getvalue()
    assert _records(files["torch"]) == _records(files["torchlike"])
    assert zipfile.ZipFile(io.BytesIO(files["torchlike"])).testzip() is None  # CRCs are right
    assert sorted(set(_globals(files["torch"]))) == sorted(set(_globals(files["torchlike"])))
    tail = files["torchlike"][-98:]
    assert tail[:4] == b"PK\x06\x06" and tail[-22:-18] == b"PK\x05\x06"  # zip64 end records
    sid = zipfile.ZipFile(io.BytesIO(files["torchlike"])).read("archive/.data/serialization_id")
    assert len(sid) == 40 and sid.isdigit()


def test_archive_folder_named_after_file(tmp_path):
    for fname in ("model.v2.pt", "noext", ".hidden.pt"):
        names = []
        for lib in LIBS.values():
            lib.save(lib.ones(1), tmp_path / fname)
            names.append(zipfile.ZipFile(tmp_path / fname).namelist()[0])
        assert names[0] == names[1]


def test_whole_module_globals_and_round_trip(tmp_path):
    def make(nn):
        return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.LayerNorm(4), nn.Dropout(0.1))
    tm = make(real_torch.nn)
    real_torch.save(tm, tmp_path / "t.pt")
    lm = torchlike.load(tmp_path / "t.pt", weights_only=False)
    assert [type(m).__name__ for m in lm] == [type(m).__name__ for m in tm]
    assert all(type(m).__module__.startswith("torchlike.") for m in lm)
    torchlike.save(lm, tmp_path / "l.pt")
    assert set(_globals((tmp_path / "l.pt").read_bytes())) == \
        set(_globals((tmp_path / "t.pt").read_bytes()))
    back = real_torch.load(tmp_path / "l.pt", weights_only=False)
    x = np.random.RandomState(0).randn(2, 3).astype(np.float32)
    tm.eval(), back.eval(), lm.eval()
    want = tm(real_torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(back(real_torch.from_numpy(x)).detach().numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(lm(torchlike.from_numpy(x))._value()), want, rtol=1e-5)


def _nn_classes():
    seen = {}
    for name, obj in vars(torchlike.nn).items():
        if inspect.isclass(obj) and issubclass(obj, torchlike.nn.Module):
            seen[name] = obj
    return sorted(seen.items())


@pytest.mark.parametrize("name", [n for n, _ in _nn_classes()])
def test_module_class_written_under_a_name_real_torch_resolves(name):
    from torchlike.serialization._names import torch_name_of
    module, qualname = torch_name_of(getattr(torchlike.nn, name))
    try:
        found = getattr(importlib.import_module(module), qualname)
    except (ImportError, AttributeError):
        found = None
    assert found is getattr(real_torch.nn, name), f"{name} -> {module}.{qualname}"


# ---- map_location --------------------------------------------------------------------------------

def _retagged(tag):
    """A torch checkpoint whose storages say they were saved on device `tag`."""
    buf = io.BytesIO()
    real_torch.save({"w": real_torch.arange(4.0), "v": real_torch.ones(2, dtype=real_torch.int32)},
                    buf)
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zz:
        for n in z.namelist():
            d = z.read(n)
            if n.endswith("data.pkl"):
                d = d.replace(b"X\x03\x00\x00\x00cpu", b"X" + len(tag).to_bytes(4, "little")
                              + tag.encode())
            zz.writestr(n, d)
    return out.getvalue()


def _seen_by_callable(lib, _):
    seen = []

    def fn(storage, location):
        seen.append((location, storage.nbytes(), str(storage.device)))
        return storage
    out = lib.load(io.BytesIO(_retagged("cuda:0")), map_location=fn)
    return [seen, out]


MAP_LOCATIONS = {
    "none": None, "cpu str": "cpu", "cpu device": "device:cpu", "dict": {"cuda:0": "cpu"},
    "dict miss": {"cuda:1": "cpu"}, "callable identity": lambda s, loc: s,
    "callable none": lambda s, loc: None, "callable cpu()": lambda s, loc: s.cpu(),
    "cuda str": "cuda", "cuda device": "device:cuda:0", "bogus": "bogus", "int": 0,
}


@pytest.mark.parametrize("tag", ["cpu", "cuda:0"])
def test_map_location_forms(tag):
    data = _retagged(tag)
    for name, ml in MAP_LOCATIONS.items():
        def go(lib, ml=ml):
            loc = lib.device(ml[7:]) if isinstance(ml, str) and ml.startswith("device:") else ml
            out = lib.load(io.BytesIO(data), map_location=loc)
            return [out, str(out["w"].device)]
        assert_same(run(go, real_torch), run(go, torchlike), path=f"{tag} {name}")
    read_both(data, lambda lib, obj: obj, map_location="cpu")


def test_map_location_callable_sees_cpu_storages():
    for lib in LIBS.values():
        seen, out = _seen_by_callable(lib, None)
        assert seen == [("cuda:0", 16, "cpu"), ("cuda:0", 8, "cpu")]
        assert str(out["w"].device) == "cpu"


def test_gpu_checkpoint_on_this_machine():
    """A 'cuda:0' checkpoint loads on a GPU when JAX has one, else fails as CPU-only torch does;
    map_location='cpu' always works."""
    data = _retagged("cuda:0")
    out = torchlike.load(io.BytesIO(data), map_location="cpu")
    assert out["w"].device == torchlike.device("cpu")
    if torchlike.cuda.is_available():
        got = torchlike.load(io.BytesIO(data))
        assert got["w"].device == torchlike.device("cuda", 0)
        assert got["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    else:
        assert_same(run(lambda lib: lib.load(io.BytesIO(data)), real_torch),
                    run(lambda lib: lib.load(io.BytesIO(data)), torchlike))


# ---- arguments -----------------------------------------------------------------------------------

def test_argument_errors_match_torch(tmp_path):
    good = io.BytesIO()
    real_torch.save(real_torch.ones(2), good)
    legacy = tmp_path / "legacy.pt"
    real_torch.save(real_torch.ones(2), legacy, _use_new_zipfile_serialization=False)
    cases = {
        "no write": lambda lib: lib.save(lib.ones(1), object()),
        "missing folder": lambda lib: lib.save(lib.ones(1), str(tmp_path / "nope" / "a.pt")),
        "folder as file": lambda lib: lib.save(lib.ones(1), str(tmp_path)),
        "missing file": lambda lib: lib.load(str(tmp_path / "missing.pt")),
        "mmap of a buffer": lambda lib: lib.load(io.BytesIO(good.getvalue()), mmap=True),
        "mmap of a legacy file": lambda lib: lib.load(str(legacy), mmap=True),
        "pickle_module with weights_only": lambda lib: lib.load(
            io.BytesIO(good.getvalue()), pickle_module=__import__("pickle"), weights_only=True),
        "mmap": lambda lib: lib.load(write("torch", lambda l: l.arange(3.0),
                                           str(tmp_path / "m.pt")), mmap=True),
    }
    for name, fn in cases.items():
        assert_same(run(fn, real_torch), run(fn, torchlike), path=name)


def test_pickle_load_args_warn_under_weights_only():
    buf = io.BytesIO()
    real_torch.save(real_torch.ones(2), buf)
    for lib in LIBS.values():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.load(io.BytesIO(buf.getvalue()), encoding="latin1")
        assert [str(x.message) for x in w] == ["pickle_load_args only works if "
                                               "`weights_only=False`."]


def test_save_keeps_permissions_and_leaves_no_temp_files(tmp_path):
    path = tmp_path / "c.pt"
    torchlike.save(torchlike.ones(2), path)
    os.chmod(path, 0o640)
    torchlike.save(torchlike.zeros(2), path)
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o640)
    assert os.listdir(tmp_path) == ["c.pt"]
    assert real_torch.load(path).tolist() == [0.0, 0.0]
