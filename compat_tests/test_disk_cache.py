"""The on-disk caches of compiled programs (torchlike/_core/disk_cache.py: JAX's persistent
compilation cache; torchlike/_core/programs.py: whole executables of torchlike's own programs):
on by default, a second process loads what the first compiled (and traces nothing),
`TORCHLIKE_COMPILE_CACHE=0` turns them off, each folder stays under its size cap, and
processes writing the same folder at once never read a partial entry. Stated facts, checked in
subprocesses with their own folders."""
import json
import os
import subprocess
import sys

_SCRIPT = """
import json, torchlike as torch
from torchlike import compile_log
from torchlike._core import disk_cache, programs
x = torch.arange(SIZE, dtype=torch.float32)
y = ((x * 2 + 1).exp().sum() / x.numel()).item()
store = programs._STATE["store"]
print(json.dumps({"counts": compile_log.counts(), "dir": disk_cache._STATE["dir"], "y": y,
                  "programs": store.dir if store else None}))
"""


def _run(tmp_path, n=37, **env):
    script = tmp_path / f"cache_{n}.py"
    script.write_text(_SCRIPT.replace("SIZE", str(n)))
    full = {k: v for k, v in os.environ.items() if k not in ("TORCHLIKE_CACHE_DIR",
                                                                "TORCHLIKE_COMPILE_CACHE")}
    full.update(env)
    return subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=full)


def _result(p):
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _entries(r, which="both"):
    """The entries of the JAX cache folder and of the programs folder of result `r`."""
    found = []
    for key, suffix in (("dir", "-cache"), ("programs", ".prog")):
        if which in ("both", key):
            found += [os.path.join(r[key], n) for n in os.listdir(r[key]) if n.endswith(suffix)]
    return found


def test_second_process_loads_instead_of_compiling(tmp_path):
    folder = str(tmp_path / "cache")
    first = _result(_run(tmp_path, TORCHLIKE_CACHE_DIR=folder))
    assert first["dir"].startswith(folder) and first["programs"].startswith(folder)
    assert first["counts"]["compiles"] > 0 and first["counts"]["cache_hits"] == 0
    n = len(_entries(first))
    assert n >= first["counts"]["compiles"]
    assert _entries(first, "programs"), "torchlike's op kernels are kept whole"
    second = _result(_run(tmp_path, TORCHLIKE_CACHE_DIR=folder))
    assert second["counts"]["compiles"] == 0 and second["counts"]["traces"] == 0
    assert second["counts"]["cache_hits"] >= first["counts"]["compiles"]
    assert second["y"] == first["y"]
    assert len(_entries(first)) == n


def test_default_folder_is_the_user_cache(tmp_path):
    r = _result(_run(tmp_path, XDG_CACHE_HOME=str(tmp_path / "xdg")))
    assert r["dir"].startswith(str(tmp_path / "xdg" / "torchlike" / "xla"))
    assert r["programs"].startswith(str(tmp_path / "xdg" / "torchlike" / "programs"))
    assert _entries(r, "programs")


def test_switch_turns_it_off(tmp_path):
    r = _result(_run(tmp_path, XDG_CACHE_HOME=str(tmp_path / "xdg"), TORCHLIKE_COMPILE_CACHE="0"))
    assert r["dir"] is None
    assert not (tmp_path / "xdg").exists()


def test_size_cap_evicts_least_recently_used(tmp_path):
    folder = str(tmp_path / "cache")
    cap_mb = 0.05   # ~51 KB: a handful of small programs
    for n in range(40, 46):
        r = _result(_run(tmp_path, n, TORCHLIKE_CACHE_DIR=folder, TORCHLIKE_CACHE_MAX_MB=str(cap_mb)))
    for which in ("dir", "programs"):
        sizes = [os.path.getsize(e) for e in _entries(r, which)]
        assert sum(sizes) <= cap_mb * 2 ** 20, which
        assert not [n for n in os.listdir(r[which]) if n.startswith(".tmp-")]
    assert _entries(r, "programs")


def test_concurrent_writers_then_a_reader(tmp_path):
    folder = str(tmp_path / "cache")
    procs = [_run(tmp_path, 50, TORCHLIKE_CACHE_DIR=folder) for _ in range(3)]
    results = [_result(p) for p in procs]
    assert len({r["y"] for r in results}) == 1
    reader = _result(_run(tmp_path, 50, TORCHLIKE_CACHE_DIR=folder))
    assert reader["counts"]["compiles"] == 0 and reader["counts"]["cache_hits"] > 0
    assert reader["y"] == results[0]["y"]
    assert reader["counts"]["traces"] == 0
    for which in ("dir", "programs"):
        assert not [n for n in os.listdir(reader[which]) if n.startswith(".tmp-")]
