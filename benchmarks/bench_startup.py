"""Start-up of the command line: what a user waits for ``--help``, ``--version`` or a typo.

Run with ``python -m benchmarks startup``. The wall time of a whole ``hiddenbn`` process (the
console script, as a user runs it) for ``--version``, ``--help``, ``fit --help`` and an argument
error, the median of :data:`RUNS` runs each, beside the target (0.5 s); with two
baselines from the same run, ``python -c pass`` (the interpreter alone) and ``python -c "import
numpy"`` (what any command of the library pays at least), and the import time of
:mod:`hiddenbn.cli` itself (median of :data:`RUNS` fresh interpreters, ``perf_counter`` around
the import). None of these may load numba, scipy, pandas or matplotlib (``tests/test_startup.py``
checks that); a command loads them when it runs.
"""

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: Runs per measurement; the median is reported.
RUNS = 7
#: The target for the start-up of --help, --version and an argument error, seconds.
TARGET = 0.5

IMPORT_CLI = ("import time; start = time.perf_counter(); import hiddenbn.cli; "
              "print(time.perf_counter() - start)")


def hiddenbn_command() -> list[str]:
    """The ``hiddenbn`` console script beside this interpreter (else ``python -m hiddenbn``)."""
    script = Path(sys.executable).with_name("hiddenbn")
    if script.exists():
        return [str(script)]
    found = shutil.which("hiddenbn")
    return [found] if found else [sys.executable, "-m", "hiddenbn"]


def median_wall(command: list[str], expected_status: int = 0) -> float:
    """Median wall seconds of ``command`` as a whole process, over :data:`RUNS` runs."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if done.returncode != expected_status:
            raise RuntimeError(f"{' '.join(command)} exited with {done.returncode}, not "
                               f"{expected_status}: {done.stderr.decode()[-300:]}")
    return statistics.median(times)


def median_import_cli() -> float:
    """Median seconds of ``import hiddenbn.cli`` in a fresh interpreter."""
    return statistics.median(
        float(subprocess.run([sys.executable, "-c", IMPORT_CLI], capture_output=True, text=True,
                             check=True).stdout) for _ in range(RUNS))


def run():
    lines = [f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start "
             f"(other work inflates every time); median of {RUNS} runs, whole process"]
    hiddenbn = hiddenbn_command()
    python = median_wall([sys.executable, "-c", "pass"])
    numpy = median_wall([sys.executable, "-c", "import numpy"])
    lines.append(f"baselines: python -c pass {python * 1e3:.0f} ms, python -c 'import numpy' "
                 f"{numpy * 1e3:.0f} ms")
    cases = [("hiddenbn --version", ["--version"], 0), ("hiddenbn --help", ["--help"], 0),
             ("hiddenbn fit --help", ["fit", "--help"], 0),
             ("hiddenbn fit (argument error)", ["fit"], 2)]
    for name, argv, status in cases:
        wall = median_wall(hiddenbn + argv, status)
        lines.append(f"{name}: {wall * 1e3:.0f} ms, target {TARGET * 1e3:.0f} ms "
                     f"({wall / TARGET:.2f} of it; {'met' if wall < TARGET else 'MISSED'}), "
                     f"{wall - python:+.3f} s over python alone")
    lines.append(f"import hiddenbn.cli: {median_import_cli() * 1e3:.1f} ms")
    lines.append(f"load average {os.getloadavg()[0]:.1f} at the end")
    return lines
