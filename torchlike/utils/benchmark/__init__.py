"""Mirrors `torch.utils.benchmark`: `Timer`, `Measurement`, `Compare` and their helpers.

Not here yet (their names raise `NotAvailable`): the fuzzers and Callgrind's instruction counts.
"""
from . import utils
from .utils.common import (
    Measurement, TaskSpec, ordered_unique, select_unit, set_torch_threads, trim_sigfig,
    unit_to_english)
from .utils.compare import Colorize, Compare
from .utils.timer import Language, Timer, timer
from ..._missing import NotAvailable as _NotAvailable

__all__ = ["Colorize", "Compare", "Language", "Measurement", "TaskSpec", "Timer",
           "ordered_unique", "select_unit", "set_torch_threads", "timer", "trim_sigfig",
           "unit_to_english", "utils"]

_ABSENT = ("CallgrindStats", "CopyIfCallgrind", "FunctionCount", "FunctionCounts",
           "FuzzedParameter", "FuzzedSparseTensor", "FuzzedTensor", "Fuzzer", "ParameterAlias")


def __getattr__(name):
    if name in _ABSENT:
        raise _NotAvailable(f"torch.utils.benchmark.{name} is not available in torchlike yet")
    raise AttributeError(f"module 'torch.utils.benchmark' has no attribute '{name}'")
