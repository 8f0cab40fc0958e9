import os
import sys
import zlib

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("JAX_PLATFORMS", "cpu")
# The suite checks semantics, and compiling thousands of small XLA programs dominates its time:
# XLA's backend optimisation level 0 halves compile time (measured: test_nn_conv.py 243 -> 126 s)
# and changes code speed, not what the HLO computes. Benchmarks run at the default level.
# (torchlike itself adds `--xla_cpu_use_fusion_emitters=false`, see _core/xla_options.py:
# test_nn_conv.py 72 -> 48 s at level 0.)
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")
# An exception raised through a jitted call (the error cases PyTorch's errors are checked on)
# makes JAX filter its traceback, ~9 ms per exception under pytest's deep stacks (os.path
# calls per frame); the messages, which the tests compare, are the same either way.
os.environ.setdefault("JAX_TRACEBACK_FILTERING", "off")
# The persistent compilation cache is on by default; the suite gives it a folder of its own
# (shared by the xdist workers, who inherit this environment), so that what earlier runs left
# on disk cannot turn the compiles that tests count into cache loads.
if "TORCHLIKE_CACHE_DIR" not in os.environ:
    import atexit
    import shutil
    import tempfile
    os.environ["TORCHLIKE_CACHE_DIR"] = tempfile.mkdtemp(prefix="torchlike-test-cache-")
    _OWNER = os.getpid()
    atexit.register(lambda: os.getpid() == _OWNER and shutil.rmtree(
        os.environ["TORCHLIKE_CACHE_DIR"], ignore_errors=True))

_RNG_NAMES = ("R", "RNG", "rng", "_RNG")

# The tests measured to take 15 s or more (one run of the suite with --durations, 2026-11-28),
# longest first. They are collected first, so that xdist's workers, handed one test at a time
# (`--dist loadgroup`, pyproject.toml), start them early and end together instead of one
# worker running a long test alone at the end of the run.
_HEAVY = (
    "test_simulated_accelerator.py::test_accelerator_suite_in_simulated_mode",
    "test_torchvision.py::",
    "test_transformers.py::test_transformers_same_results",
    "test_transformers.py::test_timm_torchmetrics_einops",
    "test_view_grad_property.py::test_random_view_chains_backward",
    "test_compile.py::test_compiled_training_is_reproducible_per_seed",
    "test_examples.py::test_char_transformer",
    "test_multiprocessing_shared.py::test_best_practices_hogwild",
    "test_docs.py::test_console_blocks[docs/ecosystem.md",
    "test_programs.py::test_executables_from_a_users_jax_cache_are_not_stored",
    "test_zero_trace.py::",
    "test_views_property.py::test_random_view_chains",
    "test_unseen_probes.py::test_parametrize_and_weight_norm_script",
    "test_examples.py::test_digits_cnn",
    "test_disk_cache.py::test_size_cap_evicts_least_recently_used",
    "test_programs.py::test_damaged_entries_are_compiled_again",
    "test_testing_module.py::test_assert_close[T.assert_close(torch.tensor([1 + 1j, 2])",
    "test_nn_grid_sample.py::test_size_one_dims",
    "test_runtime_knobs.py::test_thread_counts_in_a_fresh_process",
    "test_reduction.py::test_table[cummax-bool]",
    "test_nn_init.py::test_returns_same_tensor_and_runs_under_no_grad",
    "test_runner.py::test_spawned_children_get_torchlike_too",
    "test_memory_flat.py::test_training_with_sampling_does_not_grow",
    "test_unseen_nn.py::test_runner_gives_the_script_its_absolute_path",
    "test_nn_rnn.py::test_lstm_proj_size",
    "test_seeds_audit.py::",
    "test_runner.py::test_same_output_as_real_torch",
    "test_runtime_knobs.py::test_default_device_mode_stack_quirks_in_a_fresh_process",
    "test_data_workers.py::",
    "test_programs.py::test_first_process_matches_torch",
    "test_compile.py::",
    "test_examples.py::",
)


def pytest_collection_modifyitems(config, items):
    """The heavy tests (above) first, longest first; the others keep their order."""
    def rank(item):
        nodeid = item.nodeid
        for i, pattern in enumerate(_HEAVY):
            if pattern in nodeid:
                return i
        return len(_HEAVY)
    items.sort(key=rank)

# Every call that a torchlike.compile guard lets through is also walked in full, and the two
# must agree (a guard that passes where the full walk differs raises AssertionError).
from torchlike._compile import guard as _compile_guard  # noqa: E402
_compile_guard.CHECK[0] = True


@pytest.fixture
def op_by_op():
    """Fused eager off for the test (see torchlike/_core/lazy.py): for tests of what the
    op-by-op dispatcher alone does (size classes)."""
    from torchlike._core import lazy
    was = lazy.ON[0]
    lazy.enable(False)
    try:
        yield
    finally:
        lazy.enable(was)


@pytest.fixture(autouse=True)
def _reseed_module_rngs(request):
    """Test modules draw inputs from module-level RandomStates; reseed them per test (from the
    test's id) so a test's inputs don't depend on which tests ran before it on its xdist
    worker."""
    seed = zlib.crc32(request.node.nodeid.encode())
    for name in _RNG_NAMES:
        rng = getattr(request.module, name, None)
        if isinstance(rng, np.random.RandomState):
            rng.seed(seed)
    yield


# ---- crash diagnostics for xdist workers ------------------------------------------------------
# A worker that dies (segfault, OOM kill) shows up in the controller only as "worker crashed".
# Each worker therefore writes faulthandler tracebacks and its memory use to a file that the
# controller prints in the terminal summary.

_FAULT_DIR_ENV = "TORCHLIKE_TEST_FAULT_DIR"
_fault_file = None
_test_count = [0]


def _rss_mb():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 2**20
    except OSError:
        return -1


def pytest_configure(config):
    global _fault_file
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        if _FAULT_DIR_ENV not in os.environ:
            import tempfile
            os.environ[_FAULT_DIR_ENV] = tempfile.mkdtemp(prefix="torchlike-faults-")
        return
    import faulthandler
    _fault_file = open(os.path.join(os.environ[_FAULT_DIR_ENV], f"{worker}.log"), "w")
    faulthandler.enable(file=_fault_file, all_threads=True)


def pytest_runtest_logstart(nodeid, location):
    if _fault_file is not None:
        _test_count[0] += 1
        if _test_count[0] % 250 == 0:
            from torchlike._core.compile_budget import map_count
            _fault_file.write(f"[{_test_count[0]} tests] rss {_rss_mb()} MB, {map_count()} memory "
                              f"maps, before {nodeid}\n")
            _fault_file.flush()


def pytest_terminal_summary(terminalreporter):
    folder = os.environ.get(_FAULT_DIR_ENV)
    if os.environ.get("PYTEST_XDIST_WORKER") or not folder or not os.path.isdir(folder):
        return
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            lines = f.read().splitlines()
        if not lines:
            continue
        crashed = any("Fatal Python error" in ln for ln in lines)
        shown = lines if crashed else lines[-1:]
        terminalreporter.write_sep("-", f"worker {name[:-4]}: {'CRASH' if crashed else 'memory'}")
        terminalreporter.write_line("\n".join(shown[-80:]))
