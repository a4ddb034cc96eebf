"""Exact inference on trees: the message-passing E step against the enumeration of hidden states.

Run with ``python -m benchmarks message_passing``. One E step (expected counts and the
log-likelihood, paper 003 Eq. 11) of :class:`hiddenbn.learning.em.TreeEngine` (the numba kernel of
:mod:`hiddenbn.inference.message_passing`) against :class:`hiddenbn.learning.em.EnumerationEngine`
on the same data and parameters, the ratio measured in the same run; one EM iteration on paper 002's
model against pgmpy 1.1's ``ExpectationMaximization`` with latent variables on the same cases (its
time per iteration from the difference of a 3- and a 1-iteration run, so its set-up cancels); then
how the message-passing E step grows with the number of hidden nodes (10 to 100, where enumeration
is impossible) and with the number of distinct patterns, on all of numba's threads and on one; last
the exact Hessian of the Laplace score by Louis' identity, against enumeration's on paper 002's
model and on the 20-hidden / 60-leaf tree at N = 10^5. Every engine is warmed up first, so numba's
compile time (or cache load) is never timed.

The trees are hierarchical latent class models: a complete binary tree of ternary hidden nodes,
each with three binary observed leaves (``hlc_tree``), paper 002's model 5,3,3:2,2,2,2,2 and a
wider tree of 4-state nodes.
"""

import logging
import os
import time
import warnings

import numba
import numpy as np
import pandas as pd

from benchmarks.bench_em import best_time, hiddenbn_seconds_per_iteration
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.learning import em
from hiddenbn.models.network import random_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores import approximations as scores

#: Paper 002's HLC model (Fig. 2) and a wider tree both engines can still fit.
COMPARED = ("5(3(2,2),3(2,2),2)", "4(4(3,3,3,3),4(3,3,3,3),4(3,3,3,3))")
COMPARED_CASES = 10_000
GROWTH_HIDDEN = (10, 20, 50, 100)
GROWTH_CASES = 10_000
PATTERN_GROWTH = (1_000, 10_000, 100_000)
LAPLACE_CASES = 100_000
LAPLACE_EM_ITERATIONS = 300


def hlc_tree(hidden: int) -> str:
    """A tree shorthand of ``hidden`` ternary hidden nodes (a complete binary tree in
    breadth-first order), each with three binary observed leaves."""
    def node(i):
        below = [node(c) for c in (2 * i + 1, 2 * i + 2) if c < hidden]
        return "3(" + ",".join(below + ["2"] * 3) + ")"
    return node(0)


def e_step_seconds(engine, state, threads=None):
    """(wall, CPU) seconds of one E step, the best of three after a warm-up call (which compiles
    or loads the numba kernels), on ``threads`` numba threads (default: all)."""
    before = numba.get_num_threads()
    numba.set_num_threads(threads or before)
    try:
        engine.e_step(state)
        return best_time(lambda: engine.e_step(state))
    finally:
        numba.set_num_threads(before)


def pgmpy_seconds_per_iteration(network, data) -> float:
    """Wall seconds of one iteration of pgmpy's EM with the network's hidden nodes as latents,
    on the cases of ``data`` as rows."""
    with warnings.catch_warnings():  # pgmpy 1.1 announces a renaming on import
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.estimators import ExpectationMaximization
        from pgmpy.models import DiscreteBayesianNetwork

    names = network.names
    model = DiscreteBayesianNetwork(
        [(names[p], names[i]) for i in range(network.n_nodes) for p in network.parents[i]],
        latents={names[i] for i in network.hidden_indices})
    rows = pd.DataFrame(data.rows(), columns=data.names)
    cardinalities = {names[i]: network.cardinalities[i] for i in network.hidden_indices}

    def fit(iterations):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ExpectationMaximization(model, rows).get_parameters(
                latent_card=cardinalities, max_iter=iterations, seed=0, show_progress=False)

    logging.disable(logging.WARNING)  # pgmpy logs every data type it infers
    try:
        return (best_time(lambda: fit(3), 2)[0] - best_time(lambda: fit(1), 2)[0]) / 2
    finally:
        logging.disable(logging.NOTSET)


def setup(spec: str, cases: int, seed: int = 0):
    network = parse_spec(spec)
    rng = np.random.default_rng(seed)
    cpts = random_parameters(network, rng)
    return network, sample_dataset(network, cpts, cases, rng), random_parameters(network, rng)


def run():
    lines = [f"machine: {os.cpu_count()} CPUs, {numba.get_num_threads()} numba threads, load "
             f"average {os.getloadavg()[0]:.1f} at start (other work inflates every time)"]
    for spec in COMPARED:
        network, data, cpts = setup(spec, COMPARED_CASES)
        tree, enumeration = (em.TreeEngine(network, data, 1.0),
                             em.EnumerationEngine(network, data, 1.0))
        ours = e_step_seconds(tree, tree.from_cpts(cpts))
        theirs = e_step_seconds(enumeration, enumeration.from_cpts(cpts))
        lines.append(f"E step of {spec}, N = {COMPARED_CASES:,} ({data.n_patterns:,} patterns): "
                     f"message passing {ours[0] * 1e3:.2f} ms, enumeration "
                     f"{theirs[0] * 1e3:.2f} ms, ratio {theirs[0] / ours[0]:.1f}x")
    network, data, _ = setup(COMPARED[0], COMPARED_CASES)
    ours = hiddenbn_seconds_per_iteration(network, data, 20, alpha=1.0)[0]
    theirs = pgmpy_seconds_per_iteration(network, data)
    lines.append(f"EM iteration of {COMPARED[0]}, N = {COMPARED_CASES:,}: hiddenbn "
                 f"({em.make_engine(network, data, 1.0).name}) {ours * 1e3:.2f} ms, pgmpy 1.1 "
                 f"ExpectationMaximization {theirs * 1e3:.0f} ms, ratio {theirs / ours:.0f}x")
    for hidden in GROWTH_HIDDEN:
        network, data, cpts = setup(hlc_tree(hidden), GROWTH_CASES)
        engine = em.make_engine(network, data, 1.0)
        wall = e_step_seconds(engine, engine.from_cpts(cpts))[0]
        one = e_step_seconds(engine, engine.from_cpts(cpts), threads=1)[0]
        lines.append(f"E step, {hidden} hidden nodes, {network.observed_indices.size} observed, "
                     f"N = {GROWTH_CASES:,} ({data.n_patterns:,} patterns; {engine.name}): "
                     f"{wall * 1e3:.1f} ms, {wall / data.n_patterns * 1e6:.2f} us per pattern "
                     f"({one * 1e3:.1f} ms on one thread)")
    for cases in PATTERN_GROWTH:
        network, data, cpts = setup(hlc_tree(20), cases)
        engine = em.make_engine(network, data, 1.0)
        wall = e_step_seconds(engine, engine.from_cpts(cpts))[0]
        one = e_step_seconds(engine, engine.from_cpts(cpts), threads=1)[0]
        lines.append(f"E step, 20 hidden nodes, N = {cases:,} ({data.n_patterns:,} patterns): "
                     f"{wall * 1e3:.1f} ms ({one * 1e3:.1f} ms on one thread)")
    lines += laplace_lines()
    lines.append(f"load average {os.getloadavg()[0]:.1f} at the end")
    return lines


def laplace_lines():
    """The exact negative Hessian of the Laplace score by Louis' identity (clamped message
    passing, :func:`hiddenbn.scores.approximations.negative_hessian`) against enumeration's on paper
    002's model, and alone on the 20-hidden / 60-leaf tree at N = 10^5 at the mode EM reaches from
    the generating parameters, with one E step there for scale."""
    network, data, cpts = setup(COMPARED[0], COMPARED_CASES)
    data = data.for_network(network)
    louis = best_time(lambda: scores.likelihood_hessian_by_louis(network, cpts, data))[0]
    enumerated = best_time(lambda: scores.likelihood_hessian_by_enumeration(network, cpts,
                                                                              data))[0]
    lines = [f"Laplace Hessian of {COMPARED[0]}, N = {COMPARED_CASES:,}: Louis' identity "
             f"{louis * 1e3:.1f} ms, enumeration {enumerated * 1e3:.1f} ms"]
    network, data, _ = setup(hlc_tree(20), LAPLACE_CASES)
    data = data.for_network(network)
    # at the mode EM reaches from the generating parameters (setup's first draw), as a score
    # would be computed at a fit
    fitted = em.run_em(network, data, random_parameters(network, np.random.default_rng(0)),
                       alpha=1.0, max_iterations=LAPLACE_EM_ITERATIONS)
    engine = em.make_engine(network, data, 1.0)
    e_step = e_step_seconds(engine, engine.from_cpts(fitted.cpts))[0]
    start = time.perf_counter()
    value = scores.laplace_of_fit(fitted, data)
    seconds = time.perf_counter() - start
    lines.append(f"Laplace Hessian, 20 hidden nodes, 60 observed, N = {LAPLACE_CASES:,} "
                 f"({data.n_patterns:,} patterns, d = {network.standard_dimension}): "
                 f"{seconds:.1f} s (one E step {e_step * 1e3:.0f} ms; at EM's mode from the "
                 f"generating parameters: Laplace {value.value:.1f}, positive definite "
                 f"{value.positive_definite})")
    return lines
