"""torch.utils.benchmark against real PyTorch. Times differ from run to run, so what is compared
is structure and arithmetic: statistics, reprs and Compare tables of Measurements built from
fixed times, the unit and rounding helpers, and how many times a Timer runs its statement."""
import contextlib
import importlib
import inspect
import io
import pickle
import re

import numpy as np
import pytest

from harness import check

import torchlike


def _b(torch):
    return importlib.import_module(torch.__name__ + ".utils.benchmark")


def _mask(text):
    return re.sub(r"0x[0-9a-f]+", "0x?", text)


def _m(b, times, number=10, metadata=None, **spec):
    spec.setdefault("stmt", "x + y")
    spec.setdefault("setup", "pass")
    return b.Measurement(number, list(times), b.TaskSpec(**spec), metadata)


_RNG = np.random.default_rng(0)
TIMES = {
    "one": [1e-3],
    "two": [2e-6, 3e-6],
    "three": [1e-3, 2e-3, 3e-3],
    "steady": [1e-5, 1.1e-5, 1.2e-5, 1.05e-5],
    "noisy": [3e-5, 9e-5, 2.2e-5, 2.05e-5],
    "fluctuating": [1e-5, 1.15e-5, 1.2e-5, 1.05e-5, 1.0e-5],
    "many": list(5e-4 + 1e-5 * _RNG.standard_normal(37)),
    "wide": list(_RNG.uniform(1e-8, 5.0, 11)),
    "tiny": [3e-10, 4e-10, 3.5e-10, 3.2e-10],
    "seconds": [12.0, 13.5, 12.5, 12.2],
}


# ---- module surface ---------------------------------------------------------------------

NAMES = ["Colorize", "Compare", "Language", "Measurement", "TaskSpec", "Timer", "ordered_unique",
         "select_unit", "set_torch_threads", "timer", "trim_sigfig", "unit_to_english"]


def test_surface():
    def f(torch):
        b = _b(torch)
        return ([hasattr(b, n) for n in NAMES],
                [getattr(b, n).__module__ for n in NAMES if isinstance(getattr(b, n), type)],
                [(e.name, e.value) for e in b.Language], [(e.name, e.value) for e in b.Colorize],
                [b.utils.common.__all__, b.utils.timer.__all__, b.utils.compare.__all__],
                repr(b.Colorize.ROWWISE), repr(b.Language.PYTHON),
                hasattr(torch.utils, "benchmark"))
    check(f)


def _params(fn):
    return [(p.name, str(p.kind), p.default.__name__ if callable(p.default) else repr(p.default))
            for p in inspect.signature(fn).parameters.values()]


def test_signatures():
    check(lambda torch: [_params(fn) for fn in (
        _b(torch).Timer, _b(torch).Timer.timeit, _b(torch).Timer.repeat,
        _b(torch).Timer.autorange, _b(torch).Timer.blocked_autorange,
        _b(torch).Timer.adaptive_autorange, _b(torch).Timer.collect_callgrind,
        _b(torch).Compare, _b(torch).Compare.colorize, _b(torch).Measurement,
        _b(torch).TaskSpec, _b(torch).Measurement.meets_confidence)])


# ---- TaskSpec and Measurement ------------------------------------------------------------

SPECS = [
    dict(stmt="x + y", setup="pass"),
    dict(stmt="x + y", setup="", label="add", sub_label="float"),
    dict(stmt="x + y", setup="x = 1", label="add", description="n=4"),
    dict(stmt="a = 1\nb = a", setup="import math\nx = 2", sub_label="two lines"),
    dict(stmt="a = 1\nb = a", setup="pass", description="d", env="env A", num_threads=4),
    dict(stmt="", setup="pass"),
    dict(stmt="", setup="pass", sub_label="sub"),
]


def test_task_spec():
    def f(torch):
        b = _b(torch)
        out = []
        for spec in SPECS:
            t = b.TaskSpec(**spec)
            out.append((t.title, t.setup_str(), t.summarize(), _mask(repr(t)),
                        t == b.TaskSpec(**spec), hash(t) == hash(b.TaskSpec(**spec))))
        return out
    check(f)


@pytest.mark.parametrize("key", TIMES)
def test_measurement_statistics(key):
    def f(torch):
        m = _m(_b(torch), TIMES[key], number=7, label="L", sub_label="S", env="E")
        return [m.times, m.median, m.mean, m.iqr, m.significant_figures, m.has_warnings,
                m.meets_confidence(), m.meets_confidence(0.5), m.title, m.env, m.as_row_name,
                m.stmt, m.label, m.num_threads, m.number_per_run, m.metadata, _mask(repr(m))]
    check(f, rtol=1e-12, atol=0)


@pytest.mark.parametrize("spec", SPECS)
def test_measurement_repr(spec):
    check(lambda torch: [_mask(repr(_m(_b(torch), t, 100, **spec))) for t in TIMES.values()])


def test_measurement_object():
    def f(torch):
        b = _b(torch)
        m = _m(b, [1e-5, 2e-5], metadata={"k": 1})
        out = [m == _m(b, [1e-5, 2e-5], metadata={"k": 1}), m == _m(b, [1e-5]),
               sorted(k for k in vars(m) if not k.startswith("_")), type(m).__module__,
               type(m).__name__]
        for get in (lambda: m.nonexistent, lambda: hash(m)):
            try:
                get()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        copy = pickle.loads(pickle.dumps(m))
        out += [copy == m, _mask(repr(copy)) == _mask(repr(m)), copy.task_spec == m.task_spec]
        return out
    check(f)


def test_empty_measurement():
    def f(torch):
        m = _m(_b(torch), [])
        out = [m.times, m.median, m.mean, m.iqr, m.has_warnings]
        for get in (lambda: m.significant_figures, lambda: repr(m)):
            try:
                get()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        return out
    check(f)


def test_merge():
    def f(torch):
        b = _b(torch)
        ms = [_m(b, [1e-5, 2e-5], 10, label="a"), _m(b, [3e-5], 20, label="b"),
              _m(b, [4e-5, 5e-5], 5, label="a"), _m(b, [6e-5], 1, label="a", env="x")]
        merged = b.Measurement.merge(ms)
        return [(m.number_per_run, m.raw_times, m.label, m.env, m.metadata) for m in merged]
    check(f)


# ---- helpers -----------------------------------------------------------------------------

def _attempt(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001
        return (type(e).__name__, str(e))


def test_select_unit():
    values = [1e-9, 1e-6, 1e-3, 1.0, 999e-9, 1.0000001e-6, 0.999999e-6, 1e3, 5e-7, 2e-10,
              3.3e-8, 0.25, 0.0, -1.0]
    check(lambda torch: [_attempt(_b(torch).select_unit, t) for t in values])


def test_trim_sigfig():
    cases = [(3.14159, 2), (1234.5, 2), (0.000123456, 3), (2.5, 1), (3.5, 1), (1e-9, 2),
             (-3.14159, 2), (123.456, 1.0), (99.95, 3), (0.5, 4), (0.0, 1), (123.456, 1.5)]
    check(lambda torch: [_attempt(_b(torch).trim_sigfig, x, n) for x, n in cases],
          rtol=0, atol=0)


def test_small_helpers():
    def f(torch):
        b = _b(torch)
        return ([b.unit_to_english(u) for u in ("ns", "us", "ms", "s")],
                _attempt(b.unit_to_english, "h"),
                b.ordered_unique([3, 1, 3, 2, 1]), b.ordered_unique("abca"))
    check(f)


def test_set_torch_threads():
    def f(torch):
        before = torch.get_num_threads()
        with _b(torch).set_torch_threads(1):
            inside = torch.get_num_threads()
        return before, inside, torch.get_num_threads()
    check(f)


# ---- Compare -----------------------------------------------------------------------------

def _table_results(b):
    return [
        _m(b, TIMES["steady"], label="add", description="n=1"),
        _m(b, [2e-5, 2.1e-5, 2.2e-5, 2.05e-5], label="add", description="n=2"),
        _m(b, TIMES["noisy"], label="add", sub_label="float", description="n=1"),
        _m(b, TIMES["fluctuating"], label="add", sub_label="float", description="n=2"),
        _m(b, [3e-5, 3.1e-5], label="mul", description="n=1", num_threads=2, env="A"),
        _m(b, [3e-5, 3.1e-5], label="mul", description="n=1", env="A"),
        _m(b, [6e-5, 8.1e-5], label="mul", description="n=1", env="BB"),
        _m(b, [3e-3, 3.1e-3, 4e-3, 5e-3, 3e-3], label="mul", description="n=2", env="A"),
        _m(b, [3e-7], label="mul", description="n=3", env="BB", sub_label="s"),
        _m(b, TIMES["many"], label=None, description="big"),
        _m(b, [1.0, 1.2], label=None, description="big", stmt="y"),
        _m(b, [4e-5, 4.2e-5], label="add", description="n=1"),   # a replicate, merged
    ]


def test_compare_tables():
    def f(torch):
        b = _b(torch)
        c = b.Compare(_table_results(b))
        out = [str(c)]
        c.trim_significant_figures()
        out.append(str(c))
        c.highlight_warnings()
        out.append(str(c))
        c.colorize()
        out.append(str(c))
        c.colorize(rowwise=True)
        out.append(str(c))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            c.print()
        out.append(buf.getvalue())
        return out
    check(f)


def test_compare_units_and_groups():
    def f(torch):
        b = _b(torch)
        out = []
        for key, times in TIMES.items():
            rows = [_m(b, times, label=key, description=d, sub_label=s, num_threads=t,
                       number=n)
                    for d, s, t, n in (("a", "r1", 1, 1), ("b", "r1", 1, 3), ("a", "r2", 2, 10),
                                       ("c", "r3", 4, 100))]
            c = b.Compare(rows)
            out.append(str(c))
            c.trim_significant_figures()
            c.highlight_warnings()
            c.colorize()
            out.append(str(c))
        return out
    check(f)


def test_compare_extend_and_errors():
    def f(torch):
        b = _b(torch)
        c = b.Compare([])
        out = [str(c)]
        c.extend_results([_m(b, [1e-6], label="x", description="d")])
        out.append(str(c))
        out.append(_attempt(c.extend_results, [_m(b, [2e-6], label="x"), 3]))
        out.append(str(c))    # nothing was added
        out.append(_attempt(lambda: str(b.Compare([_m(b, [1e-6])]))))   # no description
        out.append(_attempt(lambda: str(b.Compare([
            _m(b, [1e-6], description="d"), _m(b, [1e-6], description="e", env="E")]))))
        return out
    check(f)


# ---- Timer -------------------------------------------------------------------------------

def test_timer_counts_runs():
    """timeit(n) runs a warm-up of max(n // 100, 2) then n; the autoranges try blocks of 1, 10,
    ... runs up to their block size, then run whole blocks."""
    def f(torch):
        b = _b(torch)
        runs = []
        t = b.Timer("runs.append(1)", globals={"runs": runs})
        m = t.timeit(50)
        out = [len(runs), m.number_per_run, len(m.raw_times), type(m.raw_times[0]).__name__]
        for measure in (lambda cb: t.blocked_autorange(callback=cb, min_run_time=0.01),
                        lambda cb: t.adaptive_autorange(min_run_time=0.01, max_run_time=0.3,
                                                        callback=cb)):
            runs.clear()
            calls = []
            m = measure(lambda n, s: calls.append(n))
            n = m.number_per_run
            out += [len(runs) == n * len(m.raw_times) + (10 * n - 1) // 9,
                    calls == [n] * len(m.raw_times), sum(m.raw_times) >= 0.01,
                    all(x >= 1e-9 for x in m.raw_times), type(m).__name__]
        return out
    check(f)


def test_timer_spec_and_globals():
    def f(torch):
        b = _b(torch)
        t = b.Timer("\n    x = 1\n    y = x\n", setup="\n  import math\n", label="L",
                    sub_label="S", description="D", env="E", num_threads=2)
        m = t.timeit(3)
        seen = []
        b.Timer("seen.append((torch, torch.get_num_threads()))", globals={"seen": seen},
                num_threads=3).timeit(1)
        return [m.stmt, m.setup, m.global_setup, m.title, m.description, m.env, m.num_threads,
                m.number_per_run, len(m.raw_times), _mask(repr(m)).split("\n")[:4],
                [(lib is torch, n) for lib, n in seen], torch.get_num_threads(),
                b.Timer(timer=lambda: 0.0).timeit(5).raw_times]
    check(f)


def test_timer_errors():
    def f(torch):
        b = _b(torch)
        out = [_attempt(lambda: b.Timer(**kw)) for kw in (
            dict(stmt=1), dict(global_setup="x"), dict(language="rust"), dict(stmt="x +"),
            dict(language="py", global_setup="#include <x>"))]
        t = b.Timer()
        out += [_attempt(t.repeat), _attempt(t.autorange),
                _attempt(lambda: b.Timer("undefined_name").timeit(1))]
        return [o if isinstance(o, tuple) else type(o).__name__ for o in out]
    check(f)


# ---- torchlike only: what has no PyTorch counterpart to compare with ----------------------

def test_absent_parts_raise_not_available():
    from torchlike._missing import NotAvailable
    from torchlike.utils import benchmark as b
    for name in ("Fuzzer", "FuzzedTensor", "CallgrindStats", "FunctionCounts"):
        with pytest.raises(NotAvailable, match=f"torch.utils.benchmark.{name} is not"):
            getattr(b, name)
    with pytest.raises(NotAvailable):
        b.Timer("pass", language="cpp")
    with pytest.raises(NotAvailable):
        b.Timer().collect_callgrind()
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        b.nope


def test_default_timer_waits_for_every_accelerator(monkeypatch):
    from torchlike.utils import benchmark as b
    waited = []
    monkeypatch.setattr(torchlike.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torchlike.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torchlike.cuda, "synchronize", waited.append)
    b.Timer("pass").timeit(5)
    assert waited and waited[:2] == [0, 1] and len(waited) % 2 == 0
    waited.clear()
    b.Timer("pass", timer=lambda: 0.0).timeit(5)   # a clock of one's own: no waiting
    assert waited == []


def test_default_timer_blocks_on_async_cpu_work(monkeypatch):
    import jax
    import jax.numpy as jnp
    from torchlike.utils.benchmark.utils import timer as timer_module
    previous = jax.config.values.get("jax_cpu_enable_async_dispatch")
    jax.config.update("jax_cpu_enable_async_dispatch", True)
    try:
        blocked = []
        real = jax.block_until_ready
        monkeypatch.setattr(jax, "block_until_ready", lambda x: blocked.append(x) or real(x))
        x = jnp.ones((256, 256)) @ jnp.ones((256, 256))
        timer_module.timer()
        assert x.is_ready() and blocked and any(a is x for a in blocked[0])
    finally:
        jax.config.update("jax_cpu_enable_async_dispatch", previous)
