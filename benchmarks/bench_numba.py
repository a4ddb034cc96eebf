"""numba's compile time per group of kernels, on a cold and on a warm cache.

Run with ``python -m benchmarks numba``. ``python -m hiddenbn.jit_cache`` calls every group of
kernels once (:func:`hiddenbn.jit_cache.warm`); here it runs twice in fresh processes on the
same new, empty ``NUMBA_CACHE_DIR``: the first run's times are the first-run compile times a
job on a fresh machine (or SLURM node) pays, the second's what every later job pays once the
cache holds the kernels (loading them). The difference is what warming a shared cache before a
cluster run saves each kind of job.
"""

import os
import subprocess
import sys
import tempfile


def jit_cache_run(cache: str) -> list[tuple[str, float]]:
    """``(group, seconds)`` of one ``python -m hiddenbn.jit_cache`` on ``cache``."""
    done = subprocess.run([sys.executable, "-m", "hiddenbn.jit_cache"], capture_output=True,
                          text=True, check=True, env={**os.environ, "NUMBA_CACHE_DIR": cache})
    timings = []
    for line in done.stdout.splitlines():
        seconds, name = line.split(" s  ", 1)
        timings.append((name, float(seconds)))
    return timings


def run():
    lines = [f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start"]
    with tempfile.TemporaryDirectory() as cache:
        cold, warm = jit_cache_run(cache), jit_cache_run(cache)
    for (name, first), (_, again) in zip(cold, warm):
        lines.append(f"{name}: first run (compile) {first:.2f} s, from the cache {again:.2f} s")
    lines.append(f"all kernels: compile {sum(s for _, s in cold):.1f} s on a cold cache, "
                 f"{sum(s for _, s in warm):.1f} s from a warm one (python -m hiddenbn.jit_cache "
                 "fills a shared NUMBA_CACHE_DIR before a cluster run)")
    return lines
