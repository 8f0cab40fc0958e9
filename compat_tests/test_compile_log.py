"""torchlike.compile_log: every trace and compile is counted (JAX's own events) and reported with
torchlike's reason (the op, the key part or operand type that changed, the user's line).
Stated facts about torchlike's own extension; shapes are fresh per test so the events happen."""
import os
import subprocess
import sys

import torchlike as torch
from torchlike import compile_log

_HERE = os.path.basename(__file__)


def _fresh(n):
    """A length no other test uses, so the kernels below are traced here."""
    return 1000 + n


def _forget(*names):
    """Start the log's history of these ops/programs afresh (other tests in this process may
    have traced the same kernels), and drop the op-table kernels of the ops."""
    from torchlike._ops.registry import OPS
    for name in names:
        compile_log._SEEN.pop(name, None)
        if name in OPS:
            OPS[name].kernels.clear()
            OPS[name].fast.clear()


def test_new_shape_is_reported_with_op_operand_and_line():
    n = _fresh(1)
    torch.ones(n).exp()
    before = compile_log.counts()
    with compile_log.record() as log:
        torch.ones(n + 1).exp()
    traces = [e for e in log.traces if e.name == "exp"]
    assert len(traces) == 1, log.events
    e = traces[0]
    assert e.reason == f"new operand types: operand 0 f32[{n}] -> f32[{n + 1}]"
    assert e.where.startswith(_HERE + ":")
    assert any(c.name == "exp" for c in log.compiles)
    after = compile_log.counts()
    assert after["traces"] >= before["traces"] + 1
    assert after["compiles"] >= before["compiles"] + 1
    assert after["compile_seconds"] > before["compile_seconds"]


def test_same_shape_again_is_not_reported():
    x = torch.ones(_fresh(2))
    x.sin()
    with compile_log.record() as log:
        x.sin()
        x.sin()
    assert log.events == []


def test_changed_static_argument_names_the_key_part():
    _forget("cumsum")
    x = torch.ones(3, _fresh(3))
    x.cumsum(0)
    with compile_log.record() as log:
        x.cumsum(1)
    (e,) = [e for e in log.traces if e.name == "cumsum"]
    assert e.reason.startswith("new kernel key: static arguments[0] 0 -> 1 ")


def test_backward_programs_are_reported():
    from torchlike.autograd import fused
    fused._ENTRIES.clear()   # the graph's structure may have been seen by another test
    fused._FAMILIES.clear()
    _forget("fused_backward")
    w = torch.ones(_fresh(4), requires_grad=True)
    with compile_log.record() as log:
        for _ in range(2):   # the second sighting of the graph compiles the fused backward
            (w * 2).sum().backward()
    names = {e.name for e in log.traces}
    assert {"mul", "sum", "mul_backward", "sum_backward", "fused_backward"} <= names, names
    fused = [e for e in log.traces if e.name == "fused_backward"]
    assert fused[0].reason.startswith("first call")


def test_environment_switch_reports_on_stderr(tmp_path):
    script = tmp_path / "shapes.py"
    script.write_text("import torchlike as torch\n"
                      "for n in (3, 4):\n"
                      "    torch.ones(n).tanh()\n")
    env = dict(os.environ, TORCHLIKE_LOG_COMPILES="1")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("torchlike: trace tanh")]
    assert lines == [
        lines[0],
        lines[1],
    ] and "at shapes.py:3: first call (f32[3])" in lines[0], r.stderr
    assert "at shapes.py:3: new operand types: operand 0 f32[3] -> f32[4]" in lines[1]
    assert "torchlike: compile tanh" in r.stderr
    quiet = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           env=dict(os.environ, TORCHLIKE_LOG_COMPILES="0"), timeout=300)
    assert quiet.returncode == 0 and "torchlike:" not in quiet.stderr


def test_reason_names_the_closest_shape_seen_before():
    """A kernel used at several places (several shapes) is compared with the closest one."""
    n = _fresh(5)
    torch.ones(n, 3).cosh()
    torch.ones(7, n + 1).cosh()
    with compile_log.record() as log:
        torch.ones(n, 4).cosh()
    (e,) = [e for e in log.traces if e.name == "cosh"]
    assert e.reason == f"new operand types: operand 0 f32[{n},3] -> f32[{n},4]"


def test_composite_kernels_are_reported_by_name_with_a_reason():
    """A kernel built by a `programs.factory` builder (layer norm here) is reported under its
    builder's name, with why it was traced: first at one width, then at another."""
    x = torch.randn(2, _fresh(7))
    with compile_log.record() as log:
        torch.nn.functional.layer_norm(x, (x.shape[-1],))
        y = torch.randn(3, _fresh(7))
        torch.nn.functional.layer_norm(y, (y.shape[-1],))
    first, second = [e for e in log.traces if e.name == "ln_fn"]
    assert first.reason.startswith("first call (f32[2,1007]") or \
        first.reason.startswith("new operand types")
    assert second.reason == "new operand types: operand 0 f32[2,1007] -> f32[3,1007]"
