"""`torch.utils.tensorboard.SummaryWriter`: the same calls under PyTorch and torchlike write the
same records (read back with TensorBoard's own event-file loader), in the same runs (folders)."""
import glob
import os

import numpy as np
import pytest

import torchlike
import torch as real_torch

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_file_loader import (  # noqa: E402
    LegacyEventFileLoader)
from tensorboard.plugins.hparams import plugin_data_pb2  # noqa: E402


def _records(root):
    """{run folder: [(step, tag, what)]}, wall times left out; hparams content parsed."""
    out = {}
    for path in sorted(glob.glob(os.path.join(root, "**", "events.out.tfevents.*"),
                                 recursive=True)):
        run = os.path.relpath(os.path.dirname(path), root)
        if os.path.basename(run).replace(".", "").isdigit():  # add_hparams' default: the time
            run = os.path.join(os.path.dirname(run), "<time>")
        rows = out.setdefault(run, [])
        for e in LegacyEventFileLoader(path).Load():
            if e.HasField("file_version"):
                rows.append((e.step, "file_version", e.file_version))
            if e.HasField("session_log"):
                rows.append((e.step, "session_log", str(e.session_log)))
            for v in e.summary.value:
                what = v.WhichOneof("value")
                if v.metadata.plugin_data.plugin_name == "hparams":
                    data = plugin_data_pb2.HParamsPluginData.FromString(
                        v.metadata.plugin_data.content)
                    rows.append((e.step, v.tag, str(data)))
                else:
                    meta = str(v.metadata)
                    rows.append((e.step, v.tag, what, str(getattr(v, what)) if what else "",
                                 meta))
    return out


def _workload(torch, root):
    SummaryWriter = __import__(torch.__name__ + ".utils.tensorboard",
                               fromlist=["SummaryWriter"]).SummaryWriter
    g = torch.Generator().manual_seed(0)
    with SummaryWriter(os.path.join(root, "run"), purge_step=3) as w:
        assert w.get_logdir() == os.path.join(root, "run")
        for step in range(3):
            w.add_scalar("loss", 1.0 / (step + 1), step)
        w.add_scalar("t", torch.tensor(0.25), 3)
        w.add_scalar("np", np.float32(2.5), 4)
        w.add_scalar("new", torch.tensor([1.5]), 5, new_style=True)
        w.add_scalar("dbl", 1 / 3, 5, new_style=True, double_precision=True)
        w.add_scalars("grp/x", {"a": 1.0, "b": torch.tensor(2.0)}, 6)
        w.add_histogram("h", torch.randn(1000, generator=g), 7)
        w.add_histogram("h_int", torch.arange(50), 7)
        w.add_histogram("h_pos", torch.rand(100, generator=g) + 3, 7)
        w.add_histogram("h_bins", np.array([0.5, 1.5, 1.6, 3.5]), 8, bins=[0, 1, 2, 3, 4])
        w.add_histogram("h_auto", torch.randn(64, generator=g), 8, bins="auto")
        w.add_histogram("h_max", torch.randn(500, generator=g), 8, max_bins=7)
        w.add_histogram_raw("raw", 0.0, 3.0, 4, 6.0, 14.0, [1.0, 2.0, 3.0], [1, 2, 1], 9)
        w.add_image("chw", torch.rand(3, 4, 5, generator=g), 10)
        w.add_image("hw", torch.rand(4, 6, generator=g), 10, dataformats="HW")
        w.add_image("hwc1", torch.rand(4, 6, 1, generator=g), 10, dataformats="HWC")
        w.add_image("u8", torch.randint(0, 256, (3, 5, 4), generator=g, dtype=torch.uint8), 10)
        w.add_images("batch", torch.rand(10, 1, 3, 2, generator=g), 11)
        w.add_images("nhwc", torch.rand(3, 2, 2, 3, generator=g), 11, dataformats="NHWC")
        w.add_text("note", "**bold** text", 12)
        w.add_hparams({"lr": 0.1, "flag": True, "opt": "adam", "skip": None,
                       "t": torch.tensor([3.0])}, {"acc": 0.9, "loss": torch.tensor(0.5)},
                      run_name="hp", global_step=13)
        w.add_hparams({"lr": 0.2, "opt": "sgd"}, {"acc": 0.8},
                      hparam_domain_discrete={"opt": ["adam", "sgd"]})
        w.flush()
    errors = []
    with SummaryWriter(os.path.join(root, "errors")) as w:
        for call in (lambda: w.add_scalar("x", torch.ones(2)),
                     lambda: w.add_hparams({"x": [1]}, {"a": 1}),
                     lambda: w.add_hparams([1], {"a": 1}),
                     lambda: w.add_image("bad", torch.rand(4, 5), dataformats="CHW"),
                     lambda: w.add_histogram_raw("r", 0, 1, 1, 1, 1, [1.0], [1, 2]),
                     lambda: w.add_scalar("x", object()),
                     lambda: w.add_images("rgba", torch.rand(2, 4, 3, 3)),
                     lambda: w.add_hparams({"b": True}, {"a": 1}, hparam_domain_discrete=[1]),
                     lambda: w.add_hparams({"b": True}, {"a": 1},
                                           hparam_domain_discrete={"b": (True,)}),
                     lambda: w.add_hparams({"b": True, "n": 3}, {"a": 1}, run_name="d",
                                           hparam_domain_discrete={"b": [True, False],
                                                                   "n": [1, 3]})):
            try:
                call()
                errors.append(None)
            except Exception as e:  # noqa: BLE001 - compared
                errors.append((type(e).__name__, str(e)))
    return errors


def test_same_records_as_pytorch(tmp_path):
    errors = [_workload(lib, str(tmp_path / lib.__name__)) for lib in (real_torch, torchlike)]
    assert errors[0] == errors[1]
    expected, actual = (_records(str(tmp_path / lib.__name__)) for lib in (real_torch, torchlike))
    assert sorted(expected) == sorted(actual)
    for run in expected:
        assert expected[run] == actual[run], run


def test_default_log_dir_and_comment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from torchlike.utils.tensorboard import SummaryWriter
    w = SummaryWriter(comment="_exp")
    w.add_scalar("x", 1.0, 0)
    w.close()
    (run,) = os.listdir(tmp_path / "runs")
    assert run.endswith("_exp") and os.listdir(tmp_path / "runs" / run)
