"""Effective-dimension engine speed (target: Table 1 + HLC in < 5 s on one core).

Times, after JIT warm-up and on one core (BLAS limited to one thread):

* all 21 latent class models of paper 002 Table 1 plus the HLC 5,3,3:2,2,2,2,2, each ranked at
  5 random points both exactly (mod p) and by SVD, as ``dimension_report`` does;
  (a model stops early once both ranks reach their upper bound ``min(ds, dc)``);
* the same 22 models with a plain NumPy baseline in the same run: the analytic Jacobian built
  column by column with ``einsum`` (the observed distribution is multilinear in the tables, so a
  column is the distribution with one table replaced by its derivative) and
  ``numpy.linalg.matrix_rank``, at all 5 points (SVD only, no exact rank);
* a latent class model with 2^16 observed states and 339 parameters (20:2x16), one point, with
  the peak of NumPy allocations (tracemalloc), to show memory stays at O(ds^2 + one block).
"""

import time
import tracemalloc
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from hiddenbn.dimension import effective as dim
from hiddenbn.experiments.comparison import read_printed
from hiddenbn.experiments.kocka_zhang2002 import HLC_SPEC
from hiddenbn.models.network import check_parameters, node_tables, random_parameters
from hiddenbn.models.spec import parse_spec

POINTS = 5
#: Paper 002's printed dimensions: its Table 1 names the latent class models timed here.
PRINTED_DIMENSIONS = (Path(__file__).resolve().parents[1]
                      / "workflow/resources/kocka_zhang2002/dimensions.yaml")


def numpy_jacobian(network, cpts):
    """Baseline: d P(o) / d theta by einsum, one free parameter (column) at a time."""
    tables = node_tables(network, check_parameters(network, cpts))
    shapes = [[network.cardinalities[p] for p in network.parents[i]] + [network.cardinalities[i]]
              for i in range(network.n_nodes)]
    columns = []
    for i in range(network.n_nodes):
        if network.is_deterministic(i):
            continue
        q, r = tables[i].shape
        for j in range(q):
            for k in range(r - 1):
                derivative = np.zeros((q, r))
                derivative[j, k], derivative[j, r - 1] = 1.0, -1.0
                operands = []
                for l in range(network.n_nodes):
                    table = derivative if l == i else tables[l]
                    operands += [table.reshape(shapes[l]), [*network.parents[l], l]]
                columns.append(np.einsum(*operands, list(network.observed_indices),
                                         optimize="greedy").ravel())
    return np.column_stack(columns)


def numpy_rank(network, points, rng):
    ranks = []
    for _ in range(points):
        matrix = numpy_jacobian(network, random_parameters(network, rng, alpha=2.0))
        ranks.append(np.linalg.matrix_rank(matrix, tol=1e-9 * np.linalg.norm(matrix, 2)))
    return max(ranks)


def run():
    table1 = read_printed(PRINTED_DIMENSIONS)["table1"]
    networks = [parse_spec(spec) for spec in table1] + [parse_spec(HLC_SPEC)]
    lines = []
    with threadpool_limits(limits=1):
        start = time.perf_counter()
        dim.dimension_report(parse_spec("2:2,2,2"), points=1)  # JIT compile or cache load
        compile_seconds = time.perf_counter() - start
        lines.append(f"JIT compile or cache load (excluded below): {compile_seconds:.2f} s")

        dim.latent_class_rank.cache_clear()
        start = time.perf_counter()
        reports = [dim.dimension_report(n, points=POINTS) for n in networks]
        engine = time.perf_counter() - start
        ours = [r["de"] for r in reports]
        points_used = sum(r["points_used"] for r in reports)

        rng = np.random.default_rng(0)
        start = time.perf_counter()
        baseline_ranks = [numpy_rank(n, POINTS, rng) for n in networks]
        baseline = time.perf_counter() - start
        agree = sum(a == b for a, b in zip(ours, baseline_ranks))

        big = parse_spec("20:" + ",".join(["2"] * 16))
        tracemalloc.start()
        start = time.perf_counter()
        report = dim.dimension_report(big, points=1)
        big_seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    dense = 2**16 * big.standard_dimension * 8
    lines += [
        f"{len(networks)} models (paper 002 Table 1 + HLC {HLC_SPEC}), up to {POINTS} points "
        "each, one thread",
        f"engine (exact mod p + SVD, every report field; {points_used} points in all, the rest "
        f"skipped once both ranks reach min(ds, dc)): {engine:.2f} s  (target < 5 s)",
        f"NumPy einsum Jacobian + matrix_rank baseline (SVD only): {baseline:.2f} s",
        f"ratio baseline / engine: {baseline / engine:.1f}x; "
        f"ranks agree on {agree}/{len(networks)}",
        f"LC 20:2x16 (65,536 observed states, ds = {big.standard_dimension}), 1 point: "
        f"{big_seconds:.2f} s, de = {report['de']}, peak NumPy memory {peak / 2**20:.0f} MiB "
        f"(a dense Jacobian alone would be {dense / 2**20:.0f} MiB)",
    ]
    return lines
