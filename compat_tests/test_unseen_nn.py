"""Model / training code as users write it (tutorial and GitHub style), checked against PyTorch:
each test pins a difference found by running such programs under both libraries."""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np

from harness import check

RS = np.random.RandomState(0)


def arr(*shape, dtype=np.float32):
    return RS.randn(*shape).astype(dtype)


def _run_script(tmp_path, source, *prefix):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(source))
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, *prefix, str(path.name)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def test_hinge_embedding_loss_broadcast_error_names_target_first():
    for a, b in [((5, 6), (5,)), ((5,), (5, 6)), ((2, 3), (4, 3))]:
        check(lambda torch: torch.nn.functional.hinge_embedding_loss(
            torch.ones(*a), torch.ones(*b)))


def test_runner_gives_the_script_its_absolute_path(tmp_path):
    """Warnings and tracebacks name the script by its absolute path, as `python script.py`."""
    source = """
        import warnings
        import torch
        import torch.nn.functional as F
        print(__file__)
        F.mse_loss(torch.ones(2, 3), torch.ones(3))
        raise ValueError("boom")
    """
    real = _run_script(tmp_path, source)
    ours = _run_script(tmp_path, source, "-m", "torchlike")
    assert real.stdout == ours.stdout
    assert str(tmp_path / "script.py") in real.stderr
    assert [l for l in real.stderr.splitlines() if "script.py" in l] == \
        [l for l in ours.stderr.splitlines() if "script.py" in l]


def _warnings_of(fn):
    """`fn(torch)` -> a function giving (category name, message, filename) of each warning."""
    def run(torch):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            out = fn(torch)
        return out, [(w.category.__name__, str(w.message), os.path.basename(w.filename))
                     for w in got]
    return run


def test_deprecated_upsample_functions_warn_at_the_caller():
    x = arr(1, 2, 3, 3)
    check(_warnings_of(lambda torch: torch.nn.functional.upsample(
        torch.tensor(x), scale_factor=2)))
    check(_warnings_of(lambda torch: torch.nn.functional.upsample_nearest(
        torch.tensor(x), size=(4, 5))))
    check(_warnings_of(lambda torch: torch.nn.functional.upsample_bilinear(
        torch.tensor(x), scale_factor=2)))
    check(_warnings_of(lambda torch: torch.nn.Upsample(scale_factor=2)(torch.tensor(x))))


def _ckpt_model(torch, w):
    nn = torch.nn
    m = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 2))
    with torch.no_grad():
        for p, a in zip(m.parameters(), w):
            p.copy_(torch.tensor(a))
    return m


def test_activation_checkpoint_matches_a_plain_forward_and_backward():
    w = [0.3 * arr(*s) for s in [(6, 4), (6,), (6, 6), (6,), (2, 6), (2,)]]
    x = arr(3, 4)

    def fn(torch, reentrant, x_grad):
        checkpoint = torch.utils.checkpoint.checkpoint
        checkpoint_sequential = torch.utils.checkpoint.checkpoint_sequential
        m = _ckpt_model(torch, w)
        xx = torch.tensor(x).requires_grad_(x_grad)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            y = checkpoint(m, xx, use_reentrant=reentrant)
            y2 = checkpoint_sequential(m, 2, xx, use_reentrant=reentrant)
        res = [y, y.requires_grad, y2, [str(g.message) for g in got]]
        if y.requires_grad:
            (y.sum() + y2.pow(2).sum()).backward()
            res += [xx.grad, [p.grad for p in m.parameters()]]
        return res

    for reentrant in (True, False):
        for x_grad in (True, False):
            check(lambda torch: fn(torch, reentrant, x_grad))


def test_activation_checkpoint_argument_checks_and_default_warning():
    def default(torch):
        checkpoint = torch.utils.checkpoint.checkpoint
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            y = checkpoint(lambda a: a * 2, torch.ones(2, requires_grad=True))
        return y, [(g.category.__name__, str(g.message)) for g in got]

    check(default)
    check(lambda torch: torch.utils.checkpoint.checkpoint(
        lambda a: a, torch.ones(1), use_reentrant=True, foo=1))
    check(lambda torch: torch.utils.checkpoint.checkpoint(
        lambda a: a, torch.ones(1), use_reentrant=True, debug=True))
    check(lambda torch: torch.utils.checkpoint.checkpoint(
        lambda a, b: a * b, torch.ones(2), b=torch.full((2,), 3.0), use_reentrant=False))


def test_backend_switches_training_scripts_set():
    def fn(torch):
        cudnn = torch.backends.cudnn
        before = [cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32,
                  cudnn.benchmark_limit, cudnn.version(), torch.backends.cuda.matmul.allow_tf32,
                  torch.backends.mps.is_available(), torch.backends.mps.is_built()]
        saved = cudnn.benchmark, cudnn.deterministic, torch.backends.cuda.matmul.allow_tf32
        try:
            cudnn.benchmark, cudnn.deterministic = True, True
            torch.backends.cuda.matmul.allow_tf32 = True
            after = [cudnn.benchmark, cudnn.deterministic, torch.backends.cuda.matmul.allow_tf32]
        finally:
            cudnn.benchmark, cudnn.deterministic, torch.backends.cuda.matmul.allow_tf32 = saved
        return before, after

    check(fn)
    check(lambda torch: torch.backends.cudnn.is_available() == torch.cuda.is_available())
    check(lambda torch: hasattr(torch.backends.cudnn, "no_such_flag"))


def test_float32_matmul_precision():
    """Training scripts set it first thing (`torch.set_float32_matmul_precision('high')`)."""
    def f(torch):
        out = [torch.get_float32_matmul_precision()]
        try:
            for p in ("high", "medium", "HIGH", "low", "highest"):
                with warnings.catch_warnings(record=True) as got:
                    warnings.simplefilter("always")
                    torch.set_float32_matmul_precision(p)
                out.append((p, torch.get_float32_matmul_precision(),
                            torch.backends.cuda.matmul.allow_tf32, [str(w.message) for w in got]))
            a = torch.arange(6.0).reshape(2, 3)
            out.append(a @ a.T)
        finally:
            torch.set_float32_matmul_precision("highest")
        return out
    check(f)
    check(lambda torch: torch.set_float32_matmul_precision(3))


def test_deterministic_algorithms_switches():
    """Reproducibility boilerplate (`torch.use_deterministic_algorithms(True)`) and the debug
    mode read back as PyTorch's, with its argument errors."""
    def f(torch):
        out = [torch.are_deterministic_algorithms_enabled(), torch.get_deterministic_debug_mode()]
        try:
            for mode, warn_only in ((True, False), (True, True), (False, False)):
                torch.use_deterministic_algorithms(mode, warn_only=warn_only)
                out.append((torch.are_deterministic_algorithms_enabled(),
                            torch.is_deterministic_algorithms_warn_only_enabled(),
                            torch.get_deterministic_debug_mode()))
            for m in ("warn", "error", "default", 2, 1, 0):
                torch.set_deterministic_debug_mode(m)
                out.append((torch.get_deterministic_debug_mode(),
                            torch.are_deterministic_algorithms_enabled(),
                            torch.is_deterministic_algorithms_warn_only_enabled()))
            out.append(torch.ones(3).sum())
        finally:
            torch.use_deterministic_algorithms(False)
        return out
    check(f)
    for bad in (lambda torch: torch.use_deterministic_algorithms("x"),
                lambda torch: torch.use_deterministic_algorithms(1),
                lambda torch: torch.use_deterministic_algorithms(True, warn_only=1),
                lambda torch: torch.set_deterministic_debug_mode("bad"),
                lambda torch: torch.set_deterministic_debug_mode(5),
                lambda torch: torch.set_deterministic_debug_mode(1.5)):
        check(bad)
