"""Mirrors `torch.utils.benchmark.utils.timer`: `Timer`, its default clock `timer`, and
`Language`.

A Timer runs its statement through `timeit.Timer` (the clock is `time.perf_counter`), at the
thread count asked for, with `torch` in its globals being torchlike. JAX runs torchlike's kernels
asynchronously on an accelerator (and on the CPU when TORCHLIKE_ASYNC_DISPATCH=1), so the
default clock first waits for the work queued on every device, as PyTorch's synchronizes its
accelerator: each timed block of runs includes the device work it launched.

Divergences: only Python statements (`language="cpp"` and `collect_callgrind` raise
`NotAvailable`).
"""
import enum
import statistics
import textwrap
import timeit

import jax

from .... import _missing, cuda
from . import common

__all__ = ["Timer", "timer", "Language"]


def _wait_for_devices():
    """Block until the kernels dispatched so far, on every device, have finished."""
    if cuda.is_available():
        for index in range(cuda.device_count()):
            cuda.synchronize(index)
    if jax.config.values.get("jax_cpu_enable_async_dispatch"):
        jax.block_until_ready(jax.live_arrays("cpu"))


def timer():
    """Mirrors `torch.utils.benchmark.timer`: `timeit.default_timer()` read once the devices'
    queued work has finished."""
    _wait_for_devices()
    return timeit.default_timer()


class Language(enum.Enum):
    """Mirrors `torch.utils.benchmark.Language` (only PYTHON runs here)."""
    PYTHON = 0
    CPP = 1


def _clean(code):
    code = textwrap.dedent(code)
    return (code[1:] if code[:1] == "\n" else code).rstrip()


class Timer:
    """Mirrors `torch.utils.benchmark.Timer` (Python statements only)."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1,
                 language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            import torchlike
            self._globals.setdefault("torch", torchlike)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely "
                                 "this code can simply be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            raise _missing.NotAvailable("torch.utils.benchmark.Timer(language=Language.CPP) is "
                                        "not available in torchlike yet")
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt, setup = _clean(stmt), _clean(setup)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label, sub_label=sub_label,
            description=description, env=env, num_threads=num_threads)

    def _timeit(self, number):
        return max(self._timer.timeit(number), 1e-9)

    def _measurement(self, number, times):
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def timeit(self, number=1000000):
        """`timeit.Timer.timeit`'s semantics (after a warm-up of `number // 100` runs, at least
        2): one replicate of `number` runs."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return self._measurement(number, [self._timeit(number=number)])

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number, stop, min_run_time, max_run_time=None, callback=None):
        """Replicates of `number` runs until `min_run_time` seconds are spent and `stop(times)`
        agrees, or `max_run_time` is passed."""
        total, times, can_stop = 0.0, [], False
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        """Runs per replicate: grown tenfold until the clock's overhead is at most 1e-4 of a
        block lasting min_run_time / 1000, or a block outlasts min_run_time."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = statistics.median_low([self._timeit(0) for _ in range(5)])
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Replicates of a block of runs sized to hide the clock's overhead, for at least
        `min_run_time` seconds."""
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time,
                                       callback=callback)
        return self._measurement(number, times)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Like `blocked_autorange`, replicating until IQR / median < `threshold` (with more
        than 3 replicates and `min_run_time` spent) or `max_run_time` is spent."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop(times):
            return len(times) > 3 and self._measurement(number, times).meets_confidence(
                threshold=threshold)
        times = self._measurement_loop(number, stop, min_run_time, max_run_time, callback)
        return self._measurement(number, times)

    def collect_callgrind(self, number=100, *, repeats=None, collect_baseline=True,
                          retain_out_file=False):
        raise _missing.NotAvailable("torch.utils.benchmark.Timer.collect_callgrind is not "
                                    "available in torchlike yet")


Timer.__module__ = Language.__module__ = "torch.utils.benchmark.utils.timer"
