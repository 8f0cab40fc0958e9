"""Shared timing helper for the benchmark scripts."""
import statistics
import time


def per_call(fn, n, repeat=5, warmup=None):
    """Median over `repeat` runs of the mean time per call of `fn()`, in microseconds."""
    for _ in range(warmup if warmup is not None else max(3, n // 20)):
        fn()
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(runs)
