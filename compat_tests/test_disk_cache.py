"""The persistent compilation cache (torchlike/_core/disk_cache.py): on by default, a second
process loads what the first compiled, `TORCHLIKE_COMPILE_CACHE=0` turns it off, the folder
stays under its size cap, and processes writing the same folder at once never read a partial
entry. Stated facts, checked in subprocesses with their own folders."""
import json
import os
import subprocess
import sys

_SCRIPT = """
import json, torchlike as torch
from torchlike import compile_log
from torchlike._core import disk_cache
x = torch.arange(N, dtype=torch.float32)
y = ((x * 2 + 1).exp().sum() / x.numel()).item()
print(json.dumps({"counts": compile_log.counts(), "dir": disk_cache._STATE["dir"], "y": y}))
"""


def _run(tmp_path, n=37, **env):
    script = tmp_path / f"cache_{n}.py"
    script.write_text(_SCRIPT.replace("N", str(n)))
    full = {k: v for k, v in os.environ.items() if k not in ("TORCHLIKE_CACHE_DIR",
                                                                "TORCHLIKE_COMPILE_CACHE")}
    full.update(env)
    return subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=full)


def _result(p):
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _entries(folder):
    return [n for n in os.listdir(folder) if n.endswith("-cache")]


def test_second_process_loads_instead_of_compiling(tmp_path):
    folder = str(tmp_path / "cache")
    first = _result(_run(tmp_path, TORCHLIKE_CACHE_DIR=folder))
    assert first["dir"].startswith(folder)
    assert first["counts"]["compiles"] > 0 and first["counts"]["cache_hits"] == 0
    n = len(_entries(first["dir"]))
    assert n >= first["counts"]["compiles"]
    second = _result(_run(tmp_path, TORCHLIKE_CACHE_DIR=folder))
    assert second["counts"]["compiles"] == 0
    assert second["counts"]["cache_hits"] == first["counts"]["compiles"]
    assert second["y"] == first["y"]
    assert len(_entries(first["dir"])) == n


def test_default_folder_is_the_user_cache(tmp_path):
    r = _result(_run(tmp_path, XDG_CACHE_HOME=str(tmp_path / "xdg")))
    assert r["dir"].startswith(str(tmp_path / "xdg" / "torchlike" / "xla"))
    assert _entries(r["dir"])


def test_switch_turns_it_off(tmp_path):
    r = _result(_run(tmp_path, XDG_CACHE_HOME=str(tmp_path / "xdg"), TORCHLIKE_COMPILE_CACHE="0"))
    assert r["dir"] is None
    assert not (tmp_path / "xdg").exists()


def test_size_cap_evicts_least_recently_used(tmp_path):
    folder = str(tmp_path / "cache")
    cap_mb = 0.05   # ~51 KB: a handful of small programs
    for n in range(40, 46):
        r = _result(_run(tmp_path, n, TORCHLIKE_CACHE_DIR=folder, TORCHLIKE_CACHE_MAX_MB=str(cap_mb)))
    sizes = [os.path.getsize(os.path.join(r["dir"], e)) for e in _entries(r["dir"])]
    assert sizes and sum(sizes) <= cap_mb * 2 ** 20
    assert not [n for n in os.listdir(r["dir"]) if n.startswith(".tmp-")]


def test_concurrent_writers_then_a_reader(tmp_path):
    folder = str(tmp_path / "cache")
    procs = [_run(tmp_path, 50, TORCHLIKE_CACHE_DIR=folder) for _ in range(3)]
    results = [_result(p) for p in procs]
    assert len({r["y"] for r in results}) == 1
    reader = _result(_run(tmp_path, 50, TORCHLIKE_CACHE_DIR=folder))
    assert reader["counts"]["compiles"] == 0 and reader["counts"]["cache_hits"] > 0
    assert reader["y"] == results[0]["y"]
    assert not [n for n in os.listdir(reader["dir"]) if n.startswith(".tmp-")]
