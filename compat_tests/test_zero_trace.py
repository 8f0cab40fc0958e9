"""After warm-up nothing is traced or compiled: fixed-shape training loops of every style (MLP,
CNN with batch norm, nn.LSTM/GRU, hand-written cells looped over time, custom Function and
hooks, gradient clipping, schedulers, dropout, GPT-style attention) trace and compile zero
programs from their third step on (from the fifth with fused eager on), counted by
torchlike.compile_log in a fresh process (kernels compiled by other tests cannot hide a
trace)."""
import json
import os
import subprocess
import sys

import pytest

_SCRIPT = os.path.join(os.path.dirname(__file__), "runner_scripts", "zero_trace_styles.py")
_STYLES = ["mlp", "cnn", "lstm", "gru", "cells", "function_and_hooks", "transformer",
           "gpt_attention"]


def _run(fused):
    r = subprocess.run([sys.executable, _SCRIPT, *_STYLES], capture_output=True, text=True,
                       timeout=900, env=dict(os.environ, TORCHLIKE_LOG_COMPILES="0",
                                             TORCHLIKE_FUSED_EAGER="1" if fused else "0"))
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def per_style():
    return _run(fused=False)


@pytest.fixture(scope="module")
def per_style_fused():
    return _run(fused=True)


@pytest.mark.parametrize("style", _STYLES)
def test_nothing_traced_or_compiled_from_the_third_step(per_style, style):
    steps = per_style[style]
    assert len(steps) == 7
    assert steps[0], "the first step compiles its kernels (the count must see them)"
    assert steps[2:] == [[]] * 5, steps[2:]


@pytest.mark.parametrize("style", _STYLES)
def test_fused_eager_compiles_nothing_from_the_fifth_step(per_style_fused, style):
    """Fused eager compiles a segment at its second sighting. The backward joins the forward's
    segment once its own program exists (compiled at the graph's second sighting), so the
    step's segment settles at the third step and is compiled at the fourth."""
    steps = per_style_fused[style]
    assert len(steps) == 7
    assert steps[0], "the first step compiles its kernels (the count must see them)"
    assert any("fused_eager_segment" in e for s in steps[1:4] for e in s), steps[1:4]
    assert steps[4:] == [[]] * 3, steps[4:]
