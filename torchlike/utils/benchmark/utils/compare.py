"""Mirrors `torch.utils.benchmark.utils.compare`: `Compare`, the tables of many Measurements
(rendered by `_table.py`), and `Colorize`."""
import collections

from . import _table
from ._table import Colorize
from .common import Measurement

__all__ = ["Colorize", "Compare"]


class Compare:
    """Mirrors `torch.utils.benchmark.Compare`: one table per label, replicates (equal
    TaskSpecs) merged."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        """Append `results`, which must all be Measurements."""
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} "
                                 "instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        """Color each time against the best of its column (or of its row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def _render(self):
        by_label = collections.defaultdict(list)
        for r in Measurement.merge(self._results):
            by_label[r.label].append(r)
        return [_table.render(group, self._colorize, self._trim_significant_figures,
                              self._highlight_warnings) for group in by_label.values()]


Compare.__module__ = "torch.utils.benchmark.utils.compare"
