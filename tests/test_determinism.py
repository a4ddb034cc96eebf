"""Results identical to the last bit on a cold or warm numba cache and on 1 or 2 threads.

Each run is a fresh process of ``determinism_probe.py`` (digests of E steps, an EM fit with its
scores, an SMC estimate). Before the fix this failed twice over: the BLAS E step gave other last
bits on a cold numba cache than on a warm one (``fastmath`` let the compiler reorder sums, and
the freshly compiled and the cached machine code did so differently), and other last bits with
two OpenBLAS threads than with one (OpenBLAS's split of a product over its threads).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = Path(__file__).with_name("determinism_probe.py")


def probe(cache: Path, numba_threads: int, blas_threads: int) -> dict:
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache),
                   "NUMBA_NUM_THREADS": str(numba_threads)}
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        environment[variable] = str(blas_threads)
    done = subprocess.run([sys.executable, str(PROBE), str(numba_threads)], env=environment,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_results_do_not_depend_on_the_numba_cache_or_the_threads(tmp_path):
    cache = tmp_path / "numba-cache"  # empty: the first run compiles every kernel
    runs = {"cold cache, 1 thread": probe(cache, 1, 1),
            "warm cache, 1 thread": probe(cache, 1, 1),
            "warm cache, 2 numba and 2 BLAS threads": probe(cache, 2, 2),
            "warm cache, 1 numba and 2 BLAS threads": probe(cache, 1, 2)}
    assert any(cache.rglob("*.nbc")), "the first run should have filled the numba cache"
    (reference_name, reference), *others = runs.items()
    for name, digests in others:
        differing = sorted(key for key in reference if digests[key] != reference[key])
        assert not differing, f"{name} differs from {reference_name} in {differing}"
