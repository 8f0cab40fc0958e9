"""The drop-in runner (`python -m torchlike script.py`): the same script under real Python+torch
and under the runner prints the same; missing features fail with one clear line; `--check`
lists what a script uses; the table of torch names equals what real torch has."""
import json
import os
import subprocess
import sys

import pytest
import torch as real_torch

import torchlike
from torchlike import _missing
from harness import check
from torch_names import TABLE

HERE = os.path.join(os.path.dirname(__file__), "runner_scripts")


def _run(*args, cwd=HERE):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_same_output_as_real_torch():
    real = _run("basic_script.py", "--lr", "0.1")
    ours = _run("-m", "torchlike", "basic_script.py", "--lr", "0.1")
    assert real.returncode == 0, real.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == real.stdout


def test_script_from_another_directory_keeps_its_imports():
    ours = _run("-m", "torchlike", os.path.join(HERE, "basic_script.py"), cwd="/")
    assert ours.returncode == 0, ours.stderr
    assert "argv []" in ours.stdout


def test_missing_feature_is_one_clear_line():
    ours = _run("-m", "torchlike", "missing_script.py")
    assert ours.returncode == 1
    assert ours.stdout == "before\n"
    lines = ours.stderr.strip().splitlines()
    assert lines[-1] == ("NotImplementedError: torch.special.airy_ai is not available in "
                         "torchlike yet")
    assert "missing_script.py\", line 5" in ours.stderr and "Traceback" not in ours.stderr


def test_spawned_children_get_torchlike_too():
    ours = _run("-m", "torchlike", "worker_script.py")
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.splitlines() == ["('torchlike', 3.0)", "parent torchlike"]


def test_check_lists_used_and_missing_names():
    ours = _run("-m", "torchlike", "--check", "missing_script.py")
    assert ours.returncode == 1
    out = ours.stdout.splitlines()
    assert out[0] == "missing_script.py: uses 3 torch names"
    assert out[1:4] == ["  torch", "  torch.ones", "  torch.special.airy_ai"]
    assert out[4:] == ["torchlike lacks 1:", "  torch.special.airy_ai  (line 5)"]
    ok = _run("-m", "torchlike", "--check", "basic_script.py")
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "torchlike has all of them"


def test_lacks_finds_submodules_imported_explicitly():
    """`torch.utils.benchmark` is not an attribute until imported, in PyTorch too."""
    from torchlike._runner import lacks
    assert lacks("torch.utils.benchmark.Timer") is None
    assert lacks("torch.nn.utils.prune.l1_unstructured") is None
    assert lacks("torch.utils.no_such_module") == "torch.utils.no_such_module"


def test_install_as_torch_in_process():
    code = ("import torchlike, sys; torchlike.install_as_torch(); import torch; "
            "import torch.nn.functional as F; from torch.utils import data; "
            "print(torch is torchlike, F is torchlike.nn.functional, data.__name__)")
    out = _run("-c", code)
    assert out.stdout.split() == ["True", "True", "torchlike.utils.data"], out.stderr


@pytest.mark.parametrize("name", ["no_such_function", "Tensr"])
def test_typo_is_torchs_attribute_error(name):
    check(lambda torch: getattr(torch, name))
    check(lambda torch: hasattr(torch, name))


def test_missing_torch_name_is_not_available_and_hasattr_false():
    with pytest.raises(NotImplementedError, match=r"^torch\.lobpcg is not available"):
        torchlike.lobpcg  # noqa: B018 - the attribute access is the test
    assert hasattr(real_torch, "lobpcg") and not hasattr(torchlike, "lobpcg")
    x = torchlike.ones(2)
    with pytest.raises(NotImplementedError,
                       match=r"^torch\.Tensor\.to_sparse_csr is not available"):
        x.to_sparse_csr()
    check(lambda torch: torch.ones(2).no_such_method())


def test_names_table_is_real_torchs():
    # Which torch submodules are imported depends on what ran before: read them in a fresh process
    out = subprocess.run([sys.executable, "-c", "import json, torch_names; "
                          "print(json.dumps(torch_names.live_table()))"],
                         cwd=os.path.dirname(__file__), capture_output=True, text=True,
                         timeout=300)
    with open(TABLE) as f:
        stored = json.load(f)
    assert stored == json.loads(out.stdout), out.stderr[-2000:]
    assert _missing.torch_table()["torch.nn"] == frozenset(stored["torch.nn"])


def test_from_missing_torch_module_import_name_is_one_clear_line(tmp_path):
    """`from torch.optim.swa_utils import X` (a torch module torchlike lacks) reports the missing
    name, not a ModuleNotFoundError for torchlike's own stand-in module."""
    (tmp_path / "s.py").write_text("from torch.optim.swa_utils import AveragedModel\n")
    ours = _run("-m", "torchlike", "s.py", cwd=tmp_path)
    assert ours.returncode == 1
    assert ours.stderr.strip().splitlines()[-1] == (
        "NotImplementedError: torch.optim.swa_utils.AveragedModel is not available in "
        "torchlike yet"), ours.stderr


def test_missing_function_shadowing_a_torch_module_raises_not_available():
    """`torch.nn.utils.spectral_norm` is both a torch module and the function that shadows it:
    calling torchlike's stand-in says what is missing (not "'module' object is not callable")."""
    assert callable(real_torch.nn.utils.spectral_norm)
    with pytest.raises(NotImplementedError,
                       match=r"^torch\.nn\.utils\.spectral_norm is not available in torchlike"):
        torchlike.nn.utils.spectral_norm(torchlike.nn.Linear(2, 2))


def test_packaging_metadata_sees_torchlike_as_torch(tmp_path):
    """Under the runner, `importlib.metadata` answers for `torch` with torchlike's version (in
    that process only), and `find_spec` finds torch's submodules."""
    script = tmp_path / "meta.py"
    script.write_text(
        "import importlib.metadata as md, importlib.util, torch\n"
        "print(md.version('torch'), md.distribution('torch').metadata['Name'])\n"
        "print(torch.__version__ == md.version('torch'))\n"
        "print(all(importlib.util.find_spec(m) is not None for m in\n"
        "          ('torch.nn', 'torch.utils.data', 'torch.nn.functional', 'torch.optim')))\n")
    out = _run("-m", "torchlike", str(script))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"{torchlike.__version__} torch", "True", "True"]
