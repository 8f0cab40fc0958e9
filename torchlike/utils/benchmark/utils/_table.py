"""The text table `Compare` prints for the Measurements of one label: a row per (threads, env,
sub-label or stmt), a column per description, medians in one unit, optionally trimmed to their
significant figures, colored against the best of their row or column, and flagged when noisy.
The layout is PyTorch's to the character."""
import enum

import numpy as np

from .common import ordered_unique, select_unit, trim_sigfig, unit_to_english, _log10

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"
SEPARATOR = "  |  "


class Colorize(enum.Enum):
    """Mirrors `torch.utils.benchmark.Colorize`."""
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


Colorize.__module__ = "torch.utils.benchmark.utils.compare"


class _NumberFormat:
    """How one column prints its medians: a common number of integer and decimal digits."""

    def __init__(self, results, scale, trim, highlight):
        present = [r for r in results if r is not None]
        self.trim = trim
        self.highlight = highlight and any(r.has_warnings for r in present)
        digits = [int(np.ceil(_log10(r.median / scale))) for r in present]
        decimals = (min(max(r.significant_figures - d, 0) for r, d in zip(present, digits))
                    if trim else 1)
        self.spec = f">{max(digits) + decimals + (1 if decimals else 0)}.{decimals}f"
        self.flag_spec = f">{7 if self.highlight else 0}"

    def __call__(self, value, sigfigs, spread):
        if value is None:
            return " " * len(self(1, sigfigs, None))
        if self.trim:
            value = trim_sigfig(value, sigfigs)
        flag = f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None else ""
        return format(value, self.spec) + format(flag, self.flag_spec)


def _color(segment, value, best):
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + segment + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + segment + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + segment + TERMINATE * 2
    if value >= best * 2:
        return BAD + segment + TERMINATE * 2
    return segment


def render(results, colorize, trim, highlight):
    """The table of `results` (merged Measurements sharing one label), as PyTorch prints it."""
    unit, scale = select_unit(min(r.median for r in results))
    row_keys = ordered_unique((r.num_threads, r.env, r.as_row_name) for r in results)
    row_keys.sort(key=lambda k: k[:2])
    col_keys = ordered_unique(r.description for r in results)
    cell = {}
    for r in results:
        cell[(r.num_threads, r.env, r.as_row_name), r.description] = r
    rows = [[cell.get((rk, ck)) for ck in col_keys] for rk in row_keys]

    envs = {r.env for r in results}
    show_env = len(envs) > 1
    env_width = max(len(e) for e in envs) if show_env else 0

    # rows are grouped by thread count; each group opens with a "N threads: ---" line
    group, groups, opens, env_shown, prior = -1, [], [], [], (None, "")
    for threads, env, _ in row_keys:
        new_group = group < 0 or threads != prior[0]
        if new_group:
            group += 1
            prior = (threads, "")
        groups.append(group)
        opens.append(threads if new_group else None)
        env_shown.append(show_env and env != prior[1])
        prior = (threads, env)

    formats = [_NumberFormat([row[j] for row in rows], scale, trim, highlight)
               for j in range(len(col_keys))]

    text_rows = [["", *col_keys]]
    for row, show in zip(rows, env_shown):
        first = next(r for r in row if r is not None)
        env = (f"({first.env})" if show else "").ljust(env_width + 4)
        text = ["  " + env + first.as_row_name]
        for m, fmt in zip(row, formats):
            text.append(fmt(None, 1, None) if m is None else fmt(
                m.median / scale, m.significant_figures,
                m.iqr / m.median if m.has_warnings else None))
        text_rows.append(text)
    width = [max(len(c) for c in column) for column in zip(*text_rows)]

    header = SEPARATOR.join(c.center(w) for c, w in zip(text_rows[0], width))
    lines = [header]
    for i, (row, text) in enumerate(zip(rows, text_rows[1:])):
        if opens[i] is not None:
            lines.append(f"{opens[i]} threads: ".ljust(len(header), "-"))
        best = _best(rows, groups, i, colorize)
        out = [text[0].ljust(width[0])]
        for j, (c, w, m) in enumerate(zip(text[1:], width[1:], row)):
            c = c.center(w)
            if colorize is not Colorize.NONE and m is not None and best[j] is not None:
                c = _color(c, m.median, best[j])
            out.append(c)
        lines.append(SEPARATOR.join(out))

    label = results[0].label
    warned = highlight and any(r.has_warnings for r in results)
    return (f"[{(' ' + (label or '') + ' ').center(len(header) - 2, '-')}]\n"
            + "\n".join(lines)
            + f"\n\nTimes are in {unit_to_english(unit)}s ({unit}).\n"
            + ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
               if warned else ""))


def _best(rows, groups, i, colorize):
    """Per column, the median row `i`'s cells are colored against (None: not colored)."""
    if colorize is Colorize.ROWWISE:
        best = min(r.median for r in rows[i] if r is not None)
        return [best] * len(rows[i])
    if colorize is Colorize.COLUMNWISE:
        mates = [row for row, g in zip(rows, groups) if g == groups[i]]
        return [min((row[j].median for row in mates if row[j] is not None), default=None)
                for j in range(len(rows[i]))]
    return [None] * len(rows[i])
