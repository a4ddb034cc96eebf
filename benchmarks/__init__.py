"""On-demand benchmarks: `make bench` (or `python -m benchmarks [NAME ...]`).

Each `bench_*.py` module defines `run() -> list[str]`, measures its subject against a baseline in
the same run and returns report lines with ratios; JIT compilation is excluded and reported apart.
"""
