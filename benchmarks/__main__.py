"""Run every benchmark module (or those named on the command line) and print their reports."""

import importlib
import pkgutil
import sys
from pathlib import Path


def main(names):
    available = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])
                       if m.name.startswith("bench_"))
    chosen = [f"bench_{n.removeprefix('bench_')}" for n in names] or available
    unknown = sorted(set(chosen) - set(available))
    if unknown:
        sys.exit(f"unknown benchmark {unknown[0]}; available: {', '.join(available)}")
    for name in chosen:
        print(f"== {name}", flush=True)
        for line in importlib.import_module(f"benchmarks.{name}").run():
            print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
