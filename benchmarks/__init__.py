"""On-demand benchmarks: `make bench` (or `python -m benchmarks [NAME ...]`).

Each `bench_*.py` module defines `run() -> list[str]`, measures its subject against a baseline in
the same run and returns report lines with ratios; JIT compilation is excluded and reported apart.
"""

import time


def best_time(function, repeats=3):
    """The best wall-clock seconds of ``repeats`` calls of ``function()``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)
