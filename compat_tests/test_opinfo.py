"""PyTorch's OpInfo operator database through torchlike: every entry, compared with PyTorch.

One test per database entry. In CI it runs each entry's first sample (`opinfo.scope.CI`): every
variant at float32 and int64, the error inputs, a float64 gradient. The whole database
at every dtype, eight samples each, is `compat_tests/opinfo/sweep.py` (its report is the coverage
page's). A case that fails must be stated in `opinfo/stated.py` with its reason; a stated
difference that no longer fails fails the test, so that the list only shrinks.
"""
import pytest

from opinfo import cases, load_op_db, scope, stated

ENTRIES = {op.full_name: op for op in load_op_db()}


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_entry(name):
    op = ENTRIES[name]
    found = cases.op_cases(op, **scope.CI)
    failing = [c for c in found if not c.ok]
    unexplained = [c for c in failing if not stated.explains(c)]
    assert not unexplained, "\n".join(
        f"{c.kind} {c.dtype} {c.variant} sample {c.index}: {c.detail}" for c in unexplained[:8])
    for key, reason in stated.for_op(name).items():
        kinds = [c for c in found if stated.matches(key, c)]
        if kinds:  # a stated difference the CI samples reach must still be seen
            assert any(not c.ok for c in kinds), f"{name}: {key} passes now: remove '{reason}'"
