"""torchlike's programs kept whole on disk (torchlike/_core/programs.py): a second process loads
the executables of torchlike's kernels without tracing them, gets the same values, never
loads a program traced under another configuration, survives damaged entries, and never
stores an executable that JAX itself read from its cache (XLA:CPU cannot run such a copy).
Checked in subprocesses with their own cache folders, against PyTorch where values show."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import torchlike
from torchlike._core import programs

_TRAIN = """
def train(torch, model):
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    x = torch.arange(24, dtype=torch.float32).reshape(4, 6) / 10
    losses = []
    for step in range(3):
        loss = torch.nn.functional.cross_entropy(model(x), torch.tensor([0, 1, 2, 1]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, x
"""

_SCRIPT = r'''
import json, sys
import jax
import torchlike as torch
PRECISION
from torchlike import compile_log
from torchlike._core import programs
TRAIN
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.GELU(), torch.nn.Linear(5, 3))
with compile_log.record() as log:
    losses, x = train(torch, model)
    seq = [model(x[:n]).sum().item() for n in (1, 2, 3)]   # sizes that change: bucketed
print(json.dumps({"counts": compile_log.counts(), "losses": losses, "seq": seq,
                  "stats": programs.stats(),
                  "loads": sorted({e.name for e in log.loads}),
                  "weights": [p.detach().numpy().tolist() for p in model.parameters()]}))
'''


def _run(tmp_path, precision=None, **env):
    script = tmp_path / "prog_script.py"
    line = f"jax.config.update('jax_default_matmul_precision', {precision!r})" if precision \
        else ""
    script.write_text(_SCRIPT.replace("PRECISION", line).replace("TRAIN", _TRAIN))
    full = {k: v for k, v in os.environ.items() if k not in ("TORCHLIKE_CACHE_DIR",
                                                                "TORCHLIKE_COMPILE_CACHE",
                                                                "JAX_COMPILATION_CACHE_DIR")}
    full.update(env)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=full,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _torch_reference():
    """The same three Adam steps in PyTorch, from torchlike's initial weights."""
    torchlike.manual_seed(0)
    tl = torchlike.nn.Sequential(torchlike.nn.Linear(6, 5), torchlike.nn.GELU(),
                                 torchlike.nn.Linear(5, 3))
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.GELU(), torch.nn.Linear(5, 3))
    with torch.no_grad():
        for p, q in zip(model.parameters(), tl.parameters()):
            p.copy_(torch.from_numpy(q.detach().numpy()))
    space = {}
    exec(_TRAIN, space)
    losses, _ = space["train"](torch, model)
    return losses, [p.detach().numpy() for p in model.parameters()]


def _prog_files(folder):
    found = []
    for root, _, files in os.walk(folder):
        found += [os.path.join(root, f) for f in files if f.endswith(".prog")]
    return found


@pytest.fixture(scope="module")
def first_and_second(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("programs")
    folder = str(tmp / "cache")
    first = _run(tmp, TORCHLIKE_CACHE_DIR=folder)
    second = _run(tmp, TORCHLIKE_CACHE_DIR=folder)
    return tmp, folder, first, second


def test_first_process_matches_torch(first_and_second):
    _, _, first, _ = first_and_second
    losses, weights = _torch_reference()
    np.testing.assert_allclose(first["losses"], losses, rtol=1e-5, atol=1e-6)
    for w, ref in zip(first["weights"], weights):
        np.testing.assert_allclose(np.array(w), ref, rtol=1e-5, atol=1e-6)


def test_second_process_traces_nothing_and_gets_the_same_values(first_and_second):
    _, folder, first, second = first_and_second
    assert first["counts"]["traces"] > 0 and first["stats"]["saves"] > 0
    assert _prog_files(folder)
    assert second["counts"]["traces"] == 0, second["counts"]
    assert second["counts"]["compiles"] == 0, second["counts"]
    assert second["stats"]["loads"] > 0 and second["stats"]["saves"] == 0
    assert {"_nn_linear", "fused_backward"} <= set(second["loads"]), second["loads"]
    assert second["losses"] == first["losses"]
    assert second["seq"] == first["seq"]
    assert second["weights"] == first["weights"]


def test_another_trace_configuration_is_not_loaded(first_and_second):
    tmp, folder, first, _ = first_and_second
    other = _run(tmp, precision="tensorfloat32", TORCHLIKE_CACHE_DIR=folder)
    assert other["counts"]["traces"] > 0     # matmul precision is part of the key
    np.testing.assert_allclose(other["losses"], first["losses"], rtol=1e-5)


def test_damaged_entries_are_compiled_again(tmp_path):
    folder = str(tmp_path / "cache")
    first = _run(tmp_path, TORCHLIKE_CACHE_DIR=folder)
    files = _prog_files(folder)
    for f in files:
        with open(f, "wb") as fh:
            fh.write(b"not a program")
    again = _run(tmp_path, TORCHLIKE_CACHE_DIR=folder)
    assert again["stats"]["loads"] == 0 and again["stats"]["saves"] >= len(files)
    assert again["losses"] == first["losses"] and again["weights"] == first["weights"]
    third = _run(tmp_path, TORCHLIKE_CACHE_DIR=folder)
    assert third["counts"]["traces"] == 0 and third["losses"] == first["losses"]


def test_executables_from_a_users_jax_cache_are_not_stored(tmp_path):
    """With the user's own JAX cache folder, a program JAX read from it is not serialized
    again (on XLA:CPU the copy fails when run: 'Function ... not found')."""
    folder, jax_dir = str(tmp_path / "cache"), str(tmp_path / "jax")
    env = dict(TORCHLIKE_CACHE_DIR=folder, JAX_COMPILATION_CACHE_DIR=jax_dir,
               JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
               JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0")
    first = _run(tmp_path, **env)
    assert os.listdir(jax_dir) and _prog_files(folder)
    for f in _prog_files(folder):
        os.unlink(f)
    second = _run(tmp_path, **env)   # JAX's cache hands out every executable
    assert second["counts"]["cache_hits"] > 0
    third = _run(tmp_path, **env)    # what the second stored (if anything) must run
    for r in (second, third):
        assert r["losses"] == first["losses"] and r["weights"] == first["weights"]


def test_caches_off_keeps_plain_jit(tmp_path):
    r = _run(tmp_path, TORCHLIKE_CACHE_DIR=str(tmp_path / "c"), TORCHLIKE_COMPILE_CACHE="0")
    assert r["stats"] == {"loads": 0, "saves": 0}
    assert not (tmp_path / "c").exists()


def _user_fn(x):
    return x


def test_stable_keys():
    from torchlike._core.layout import read_impl
    from torchlike._ops.registry import OPS
    assert programs.stable((1, "a", None, 2.5, (True,))) == "(1,'a',None,2.5,(True))"
    assert programs.stable(read_impl) == "torchlike._core.layout.read_impl"
    assert programs.stable(torchlike.float32) == programs.stable(torchlike.float32)
    assert programs.stable(np.dtype("float32")) == "np.<f4"
    for unstable in (_user_fn, lambda x: x, object(), [torchlike.Generator()]):
        with pytest.raises(programs.Unstable):
            programs.stable(unstable)
    x = torchlike.ones(3)
    (x + x).sum()
    kernel = next(iter(OPS["add"].kernels.values()))
    assert programs.program_of(kernel) is not None
    assert programs.stable(("composed", kernel)).startswith("('composed',P('op','add'")


def test_every_op_row_name_is_unique():
    """Op kernels are keyed by their row's name."""
    from torchlike._ops.registry import OPS
    rows = [row for row in OPS.values() if row is not None]
    assert len({id(r) for r in rows}) == len({r.name for r in rows})
    assert all(row.name == n for n, row in OPS.items() if row is not None)


_LINALG = """
import torchlike as torch
from torchlike._core import programs
b = torch.tensor([[4.0, 1.0], [1.0, 5.0]])
out = [torch.linalg.inv(b), torch.linalg.cholesky(b), torch.linalg.eigh(b)[0],
       torch.linalg.svd(b)[1], torch.linalg.qr(b)[1], torch.linalg.det(b),
       torch.inverse(b.to(torch.bfloat16)).float()]
print([o.tolist() for o in out], programs.stats()["loads"] > 0)
"""


def test_linear_algebra_programs_loaded_in_a_new_process_run(tmp_path):
    """A program that calls LAPACK, loaded whole by a process that has lowered no
    linear-algebra op (so JAX never loaded LAPACK's routines), ran into a segmentation fault."""
    env = dict(os.environ, TORCHLIKE_CACHE_DIR=str(tmp_path / "cache"), JAX_PLATFORMS="cpu")
    runs = [subprocess.run([sys.executable, "-c", _LINALG], capture_output=True, text=True,
                           env=env, timeout=300) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr[-2000:]
    first, second = (r.stdout.strip() for r in runs)
    assert first.endswith("False") and second.endswith("True"), (first, second)
    assert first.rsplit(" ", 1)[0] == second.rsplit(" ", 1)[0]
