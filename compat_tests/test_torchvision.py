"""torchvision 0.28 on torchlike, unmodified, under the drop-in runner: the same workload
(`torchvision_scripts/workload.py`: datasets, v1 and v2 transforms, DataLoader, image I/O,
utils, models trained for two steps, the native box and RoI operators) runs under
`python -m torchlike` and on real PyTorch, and every result is compared. Real torchvision's C++
part cannot load beside the CPU torch wheel, so on the PyTorch side its operators run NumPy
reference kernels written from their definitions (`reference_ops.py`); everything else is
torchvision's own Python code on both sides, with the same seeds (torchlike draws PyTorch's
CPU random streams). The seeds' CIFAR-10 snippet runs verbatim on a CIFAR-10 folder in the
dataset's own format."""
import importlib.util
import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torchvision_scripts")
# the tests share a module fixture that runs both workloads: one xdist worker runs them all
pytestmark = pytest.mark.xdist_group("torchvision")
LABELS = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
          "truck"]


def test_torchvision_is_installed():
    """The test extra installs torchvision (without it the tests below cannot run)."""
    assert importlib.util.find_spec("torchvision") is not None, \
        "install the test extra: pip install -e '.[test]'"


def _cifar(root, per_batch=4):
    d = os.path.join(root, "cifar-10-batches-py")
    os.makedirs(d)
    rng = np.random.default_rng(0)
    batches = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    for name in batches:
        with open(os.path.join(d, name), "wb") as f:
            pickle.dump({"data": rng.integers(0, 256, (per_batch, 3072), dtype=np.uint8),
                         "labels": [int(v) for v in rng.integers(0, 10, per_batch)]}, f)
    with open(os.path.join(d, "batches.meta"), "wb") as f:
        pickle.dump({"label_names": LABELS}, f)


def _folder(root):
    rng = np.random.default_rng(1)
    for cls, n in (("cat", 3), ("dog", 2)):
        os.makedirs(os.path.join(root, "folder", cls))
        for i in range(n):
            Image.fromarray(rng.integers(0, 256, (12, 10, 3), dtype=np.uint8)).save(
                os.path.join(root, "folder", cls, f"{i}.png"))


def _run(args, cwd, runner, wait=True, **extra_env):
    # `cifar_site/sitecustomize.py`: CIFAR10 accepts the test's files (in the workers too)
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "cifar_site"), **extra_env)
    env["OMP_NUM_THREADS"] = "1"
    cmd = [sys.executable] + (["-m", "torchlike"] if runner else []) + args
    if not wait:
        return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("tv"))
    _cifar(root)
    _folder(root)
    return root


@pytest.fixture(scope="module")
def results(data):
    """The workload's results under torchlike and on real PyTorch (run side by side)."""
    runs = {}
    for runner, name in ((True, "torchlike"), (False, "torch")):
        path = os.path.join(data, f"{name}.npz")
        args = ([] if runner else [os.path.join(HERE, "real_torchvision.py")]) + \
            [os.path.join(HERE, "workload.py"), path, data]
        runs[name] = (path, _run(args, data, runner, wait=False, CIFAR_ROOT=data))
    out = {}
    for name, (path, p) in runs.items():
        stdout, stderr = p.communicate(timeout=900)
        assert p.returncode == 0, f"{name}:\n{stdout}\n{stderr[-4000:]}"
        out[name] = dict(np.load(path))
    return out


# per-result tolerances (default: exact); float pipelines through XLA's kernels
TOL = {
    r"v1_pipe_\d|cifar_\d+|loader_.*|folder_.*|fake_\d|grid": (1e-6, 1e-6),
    r"v1_(resize_tensor|resize_bicubic|rotation|affine|perspective|blur|color_jitter|"
    r"adjust_hue|adjust_gamma|sharpness|autocontrast|grayscale|random_resized_crop)": (1e-5, 1e-5),
    r"v2_img|v2_mixup_like": (1e-5, 1e-5),
    r"(resnet18|mobilenet_v3_small)_(eval|first_grad)": (2e-4, 2e-5),
    r"(resnet18|mobilenet_v3_small)_losses": (1e-4, 1e-5),
    r"roi_.*|multiscale|box_iou|giou|box_convert|sigmoid_focal": (1e-5, 1e-5),
}


def _tol(key):
    for pattern, tol in TOL.items():
        if re.fullmatch(pattern, key):
            return tol
    return None


def test_same_results_as_real_torchvision(results):
    ours, real = results["torchlike"], results["torch"]
    assert sorted(k for k in ours if not k.startswith("tl_")) == sorted(real)
    bad = []
    for key in sorted(real):
        a, b = real[key], ours[key]
        if a.shape != b.shape or a.dtype != b.dtype:
            bad.append(f"{key}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}")
            continue
        tol = _tol(key)
        if tol is None or a.dtype.kind not in "fc":
            if not np.array_equal(a, b):
                diff = (np.abs(a.astype(float) - b.astype(float)).max()
                        if a.dtype.kind in "biuf" else "")
                bad.append(f"{key}: differs {diff}")
        elif not np.allclose(b, a, rtol=tol[0], atol=tol[1]):
            bad.append(f"{key}: max diff {np.abs(a - b).max()}")
    assert not bad, "\n".join(bad)


def test_results_are_not_trivial(results):
    """The workload exercised what it claims (a guard against a comparison of empty results)."""
    r = results["torchlike"]
    assert r["cifar_len"].tolist() == [20, 4]
    assert r["v2_types"].tolist() == ["Image", "BoundingBoxes", "Mask"]
    assert r["nms"].size > 5 and r["roi_align_True_2"].shape == (9, 3, 4, 5)
    assert np.abs(r["roi_align_True_2_grad"]).sum() > 0
    assert r["resnet18_losses"].shape == (2,)


def test_image_io_matches_pillow(results, data):
    """torchvision.io's codecs (torchlike's stand-in for its `image` extension) against
    Pillow: decoded pixels, modes, PNG round trips, JPEG decoding of its own encoding."""
    r = results["torchlike"]
    pil = Image.open(os.path.join(data, "folder", "cat", "0.png"))
    rgb = np.asarray(pil.convert("RGB")).transpose(2, 0, 1)
    assert r["tl_io_read"].dtype == np.uint8 and np.array_equal(r["tl_io_read"], rgb)
    assert np.array_equal(r["tl_io_gray"], np.asarray(pil.convert("L"))[None])
    assert np.array_equal(r["tl_io_png_roundtrip"], rgb)
    import io
    jpeg = Image.open(io.BytesIO(r["tl_io_jpeg_bytes"].tobytes()))
    assert jpeg.format == "JPEG"
    assert np.array_equal(r["tl_io_jpeg"], np.asarray(jpeg.convert("RGB")).transpose(2, 0, 1))


def test_seed_cifar_snippet_runs_unmodified(tmp_path):
    """The seeds' `MyDataset` over CIFAR10 with a `DataLoader(num_workers=1)` printing each
    batch's dataset index."""
    _cifar(str(tmp_path / "YOUR_PATH"))
    p = _run([os.path.join(HERE, "seed_cifar_index.py")], str(tmp_path), True)
    assert p.returncode == 0, p.stderr[-4000:]
    lines = p.stdout.splitlines()
    assert len(lines) == 20
    seen = []
    for i, line in enumerate(lines):
        m = re.fullmatch(r"Batch idx (\d+), dataset index tensor\(\[(\d+)\]\)", line)
        assert m and int(m.group(1)) == i, line
        seen.append(int(m.group(2)))
    assert sorted(seen) == list(range(20))
