"""EM, restart schedule and Laplace timings against StepMix 3.0.0, beside their targets.

Run with ``python -m benchmarks em`` (or ``make bench``). Every ratio is measured in the same
run on identical binary data: StepMix gets the cases as rows (its usual input), hiddenbn the
same cases as pattern counts. Per-iteration times are the best of several repeats; StepMix's
is the time difference between fits of ``K + extra`` and ``K`` iterations divided by ``extra``
(its set-up and initialisation cancel). JIT compile (or cache load) is timed separately.

Targets: EM per iteration >= 2x faster than StepMix for (n, c, N) = (64, 32, 400) and
(64, 32, 100000), >= 100x for (4, 8, 243000); the Laplace score (d = 2079) and the whole
restart schedule plus convergence for (64, 32, 400) each under 1 s on 2 cores. At
(64, 32, 100000) EM per iteration within 2x of the GEMM floor (the flops of the two products
of the design E step, ``Z @ C`` and ``Z^T @ posterior``, at the GFLOPS of a 2000^3 GEMM
measured in the same run) and >= 3x faster than StepMix. Last, the latent class E step's two
paths on the same data, the BLAS products on the design and the pass over groups of
variables, for the sizes around the engine's choice between them
(:func:`hiddenbn.inference.enumeration.prefers_design`).
"""

import dataclasses
import os
import time
import warnings
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from hiddenbn.data import Dataset
from hiddenbn.data.sampling import forward_sample
from hiddenbn.learning import em
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.scores import approximations as scores

CASES = ((64, 32, 400), (64, 32, 100_000), (4, 8, 243_000))
#: Paper 003's printed Table 2 (run times in seconds by dimension d), for the Laplace line.
PRINTED_TABLE2 = (Path(__file__).resolve().parents[1]
                  / "workflow/resources/chickering_heckerman1996/paper_table2.csv")


def printed_laplace_seconds(dimension):
    """The paper's Laplace time for a model of ``dimension`` parameters, as text."""
    table = pd.read_csv(PRINTED_TABLE2)
    row = table[table.d == dimension]
    return f"about {row.laplace.iloc[0]} s" if len(row) else f"no row for d = {dimension}"


def best_time(function, repeats=3):
    """Best wall-clock and best process CPU seconds over ``repeats`` calls.

    CPU time (all threads of this process) is what the code costs when the machine is shared;
    wall time is what a user waits on an otherwise idle machine.
    """
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return np.array([min(walls), min(cpus)])


def seconds(pair):
    return f"{pair[0]:.3f} s wall, {pair[1]:.3f} s CPU"


def synthetic(features, classes, cases, seed=0):
    """Rows and pattern counts of one data set from a random latent class model."""
    network = latent_class(classes, [2] * features)
    rng = np.random.default_rng(seed)
    rows = forward_sample(network, random_parameters(network, rng), cases, rng)
    return network, rows, Dataset.from_rows(network.observed_names, rows, [2] * features)


def hiddenbn_seconds_per_iteration(network, data, iterations, alpha=1.01):
    """Seconds of one EM iteration (M step, then E step) from a random start, the best of
    three runs of ``iterations``."""
    engine = em.make_engine(network, data, alpha)
    state = engine.random_state(np.random.default_rng(1))
    statistics = engine.e_step(state)

    def iterate():
        nonlocal state, statistics
        for _ in range(iterations):
            state = engine.m_step(statistics, state)
            statistics = engine.e_step(state)

    return best_time(iterate) / iterations


def stepmix_seconds_per_iteration(rows, classes, extra):
    import stepmix

    def fit(iterations):
        model = stepmix.StepMix(n_components=classes, measurement="binary", n_init=1,
                                max_iter=iterations, abs_tol=0.0, rel_tol=0.0, random_state=0,
                                progress_bar=0, verbose=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # it warns that max_iter stopped it
            model.fit(rows)

    base = 2
    return (best_time(lambda: fit(base + extra), 2) - best_time(lambda: fit(base), 2)) / extra


def gemm_floor(rows, columns, classes):
    """Seconds of the two products of the design E step, ``(rows x columns) @ (columns x
    classes)`` and its transpose product, at the GFLOPS of a 2000^3 GEMM (NumPy's BLAS on all
    its threads), and those GFLOPS; plus the measured seconds of the two products (BLAS on
    skinny matrices runs below its large-GEMM speed)."""
    rng = np.random.default_rng(0)
    square = rng.random((2000, 2000))
    square @ square
    gflops = 2 * 2000 ** 3 / best_time(lambda: square @ square)[0] / 1e9
    design = (rng.random((rows, columns)) < 0.5).astype(float)
    coefficients, posterior = rng.random((columns, classes)), rng.random((rows, classes))
    products = best_time(lambda: (design @ coefficients, posterior.T @ design))[0]
    return 2 * 2 * rows * columns * classes / gflops / 1e9, gflops, products


def e_step_paths():
    """The E step by the design and by the groups, side by side, and the engine's choice."""
    from hiddenbn.inference import enumeration as inference

    lines = []
    for features, classes, states in ((64, 32, 2), (64, 10, 2), (20, 8, 3)):
        for cases in (500, 1500, 4000, 16_000):
            network = latent_class(classes, [states] * features)
            rng = np.random.default_rng(0)
            rows = forward_sample(network, random_parameters(network, rng), cases, rng)
            data = Dataset.from_rows(network.observed_names, rows, [states] * features)
            engine = em.make_engine(network, data, 1.01)
            state = engine.random_state(np.random.default_rng(1))
            chosen = "design" if engine.design is not None else "groups"
            design = inference.latent_class_design(data.patterns, engine.cards)
            repeats = max(3, int(3e6 / (data.n_patterns * features * classes)))

            def by(design):
                def e_steps():
                    for _ in range(repeats):
                        inference.latent_class_statistics(
                            data.patterns, data.counts, state[0], state[1], engine.offsets,
                            design, engine.groups)
                return best_time(e_steps)[0] / repeats * 1e3

            lines.append(f"E step n={features} r={states} c={classes} m={data.n_patterns}: "
                         f"design {by(design):.3f} ms, groups of "
                         f"{features / engine.groups.codes.shape[1]:.1f} variables "
                         f"{by(None):.3f} ms; the engine takes the {chosen}")
    return lines


def run():
    lines = [f"machine: {os.cpu_count()} CPUs, numba threads {numba.get_num_threads()}, "
             f"load average {os.getloadavg()[0]:.1f} at start (other work inflates every time)"]
    start = time.perf_counter()
    tiny_network, _, tiny = synthetic(3, 2, 50)
    fitted = em.fit(tiny_network, tiny, np.random.default_rng(0), restarts=2)
    scores.negative_hessian(tiny_network, tiny, fitted.cpts, 1.01)
    lines.append(f"JIT compile or cache load (excluded below): {time.perf_counter() - start:.2f} s")

    for features, classes, cases in CASES:
        network, rows, data = synthetic(features, classes, cases)
        ours = hiddenbn_seconds_per_iteration(network, data, 50 if cases < 1000 else 5)
        theirs = stepmix_seconds_per_iteration(rows, classes, 20 if cases < 1000 else 6)
        ratio = theirs / ours
        lines.append(f"EM per iteration, n={features} c={classes} N={cases} "
                     f"({data.n_patterns} patterns): hiddenbn {ours[0] * 1e3:.3f} ms wall / "
                     f"{ours[1] * 1e3:.3f} ms CPU, StepMix {theirs[0] * 1e3:.3f} / "
                     f"{theirs[1] * 1e3:.3f} ms, ratio {ratio[0]:.1f}x wall, {ratio[1]:.1f}x CPU")
        if (features, classes, cases) == (64, 32, 100_000):
            engine = em.make_engine(network, data, 1.01)
            columns = engine.design.shape[1] if engine.design is not None else features + 1
            floor, gflops, products = gemm_floor(data.n_patterns, columns, classes)
            lines.append(f"  GEMM floor: 2 products {data.n_patterns} x {columns} x {classes} at "
                         f"{gflops:.1f} GFLOPS (2000^3 GEMM) = {floor * 1e3:.1f} ms (NumPy's "
                         f"products themselves: {products * 1e3:.1f} ms); hiddenbn / floor "
                         f"{ours[0] / floor:.2f}x (target <= 2x), StepMix / hiddenbn "
                         f"{ratio[0]:.1f}x wall (target >= 3x)")

    network, _, data = synthetic(64, 32, 400)
    paper = {"restarts": 64, "schedule": "halving", **dataclasses.asdict(em.PAPER_003),
             "run_all_iterations": False}
    result = em.fit(network, data, np.random.default_rng(2), **paper)
    schedule = best_time(lambda: em.fit(network, data, np.random.default_rng(2), **paper))
    lines.append(f"restart schedule (64 starts, 1+2+...+32 iterations) plus convergence, "
                 f"n=64 c=32 N=400: {seconds(schedule)} (converged: {result.converged}, "
                 f"{result.iterations} final iterations)")
    laplace_seconds = best_time(lambda: scores.laplace(
        result.log_likelihood, result.log_prior,
        scores.negative_hessian(network, data, result.cpts, result.alpha)))
    approximation = scores.laplace(result.log_likelihood, result.log_prior,
                                   scores.negative_hessian(network, data, result.cpts,
                                                           result.alpha))
    lines.append(f"Laplace score, n=64 c=32 N=400 (d={approximation.dimension}): "
                 f"{seconds(laplace_seconds)} (exact Hessian + Cholesky; positive definite: "
                 f"{approximation.positive_definite}; the paper's Table 2: "
                 f"{printed_laplace_seconds(approximation.dimension)})")
    lines += e_step_paths()
    lines.append(f"load average {os.getloadavg()[0]:.1f} at the end")
    return lines
