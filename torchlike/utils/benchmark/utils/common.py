"""Mirrors `torch.utils.benchmark.utils.common`: `TaskSpec`, `Measurement` and the formatting
helpers.

Statistics are computed as PyTorch's are: quantiles and mean in float64, the significant-figure
estimate and the unit and rounding helpers in the default dtype (float32 unless changed), so
tables and reprs print the same digits. The classes carry PyTorch's module path, so their reprs
read `<torch.utils.benchmark.utils.common.Measurement object at 0x...>`; they pickle through
this module.
"""
import contextlib
import dataclasses
import math
import textwrap

import numpy as np

from ...._core import dtype as _dt

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9   # seconds
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25
_MODULE = "torch.utils.benchmark.utils.common"


def _default(x):
    """`x` as a NumPy value of the default dtype (what `torch.tensor(x)` would hold)."""
    return np.asarray(x, dtype=_dt.get_default_dtype().np)


def _log10(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log10(_default(x))


def _restore(name, values):
    return globals()[name](*values)


class _PicklesHere:
    """Pickles through this module (the class's `__module__` names PyTorch's)."""

    def __reduce__(self):
        fields = dataclasses.fields(self)
        return _restore, (type(self).__name__, tuple(getattr(self, f.name) for f in fields))


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec(_PicklesHere):
    """Mirrors `torch.utils.benchmark.TaskSpec`: what a Timer measures (less its globals)."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str = None
    sub_label: str = None
    description: str = None
    env: str = None
    num_threads: int = 1

    @property
    def title(self):
        """The label (else the one-line stmt) with the sub-label, else the indented stmt."""
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        return (f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n"
                + textwrap.indent(self.stmt, "  "))

    def setup_str(self):
        if self.setup in ("pass", ""):
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self):
        """The task's lines in a Measurement's repr (a multi-line section gets a blank line)."""
        parts = (self.title, self.description or "", self.setup_str())
        return "\n".join(p + "\n" if "\n" in p else p for p in parts if p)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


def _quantile(ordered, q):
    """Linear-interpolation quantile of sorted floats (PyTorch's `quantile`, its `lerp`)."""
    rank = q * (len(ordered) - 1)
    lo, hi = ordered[math.floor(rank)], ordered[math.ceil(rank)]
    w = rank - math.floor(rank)
    return lo + w * (hi - lo) if w < 0.5 else hi - (hi - lo) * (1 - w)


@dataclasses.dataclass(init=True, repr=False)
class Measurement(_PicklesHere):
    """Mirrors `torch.utils.benchmark.Measurement`: the times of `number_per_run` runs of a
    task, per replicate, with their statistics."""
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict = None

    def __post_init__(self):
        self._sorted_times = ()
        self._warnings = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name):
        # the TaskSpec's fields read through (`m.stmt`, `m.label`, ...)
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        self._lazy_init()
        return self._median

    @property
    def mean(self):
        self._lazy_init()
        return self._mean

    @property
    def iqr(self):
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self):
        """A rough precision estimate from the interquartile times (z = 1.645), 1 to 4."""
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4:math.ceil(3 * n / 4)]
        with np.errstate(invalid="ignore", divide="ignore"):
            std = float(_default(np.std(_default(middle).astype(np.float64))))
        sqrt_n = float(np.sqrt(_default(len(middle))))
        ci = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        figures = int(np.floor(_log10(self._median / ci)))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self):
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        ordered = [float(t) for t in self._sorted_times]
        self._median = _quantile(ordered, 0.5)
        self._mean = math.fsum(ordered) / len(ordered)
        self._p25 = _quantile(ordered, 0.25)
        self._p75 = _quantile(ordered, 0.75)
        for threshold, why in ((_IQR_GROSS_WARN_THRESHOLD, "suggests significant "
                                "environmental influence"),
                               (_IQR_WARN_THRESHOLD, "could indicate system fluctuation")):
            if not self.meets_confidence(threshold):
                self._warnings += (
                    f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% of "
                    f"the median measurement.\n           This {why}.",)
                break

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        return self.task_spec.title

    @property
    def env(self):
        """The task's `env` (None when unset, as PyTorch's property ends up answering)."""
        return self.task_spec.env

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to "
                         f"{self._p75 / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {self.num_threads} "
                     f"thread{'s' if self.num_threads > 1 else ''}")
        lines.extend(self._warnings)
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements):
        """One Measurement per distinct TaskSpec, its times normalised to one run each (the
        metadata is dropped)."""
        groups = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(number_per_run=1, raw_times=times, task_spec=spec, metadata=None)
                for spec, times in groups.items()]


TaskSpec.__module__ = Measurement.__module__ = _MODULE


def select_unit(t):
    """The unit ("ns", "us", "ms" or "s") and its scale in seconds for printing time `t`."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(float(_log10(t)) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u):
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """`x` rounded to `n` significant figures (in the default dtype, as PyTorch's is)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    with np.errstate(divide="ignore"):
        magnitude = int(np.ceil(np.log10(np.abs(_default(x)))))
    scale = 10 ** (magnitude - n)
    return float(np.round(_default(x / scale)) * _default(scale))


def ordered_unique(elements):
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n):
    """Mirrors `torch.utils.benchmark.set_torch_threads`: `torch.set_num_threads(n)` inside."""
    from .... import _knobs
    prior = _knobs.get_num_threads()
    try:
        _knobs.set_num_threads(n)
        yield
    finally:
        _knobs.set_num_threads(prior)
