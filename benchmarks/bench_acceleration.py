"""SQUAREM against plain EM: iterations and time to the command line's stopping rule.

Run with ``python -m benchmarks acceleration`` (or ``make bench``). Each case fits the same data
from the same start twice in the same run, by plain EM steps and by SQUAREM cycles (Varadhan &
Roland 2008; :meth:`hiddenbn.learning.engine.Run.extrapolate`), both to
:data:`hiddenbn.learning.em.OPTIMUM` (a change of g of at most 1e-10 over an EM step, at most 10000
iterations). It reports the E steps (iterations) each took, the best CPU seconds over the repeats,
their ratios (plain / SQUAREM), whether each converged and how far SQUAREM's g is from plain EM's.

The suite has one slowly converging case per engine: the latent class kernel, message passing,
the junction tree, enumeration, and the noisy-max, Poisson and Gaussian interaction engines;
then the full-size case of ``hiddenbn fit`` with its defaults (64 halved starts): a tree of 16
ternary hidden nodes over 60 binary leaves, N = 5000, prior alpha 1.01, on which plain EM stops
at the cap. That case runs once (about 2 min of plain EM on an idle core). JIT compilation (or
the cache load) is timed apart, by a short fit of every case first.
"""

import dataclasses
import os
import time

import numpy as np

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.interaction.noisy_additive import (GaussianEngine, PoissonEngine, sample_additive,
                                                 summarise)
from hiddenbn.interaction.noisy_max import NoisyMaxEngine
from hiddenbn.learning import em
from hiddenbn.models.interaction import load_interaction, noisy_max_model
from hiddenbn.models.network import random_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.util import seeding

#: Repeats of each small case (the best CPU time counts).
REPEATS = 3
#: The acceptance case: a root and 15 ternary hidden children, each over 4 binary leaves.
TREE_60_LEAVES = "3(" + ",".join(["3(2,2,2,2)"] * 15) + ")"
#: Not a tree: C has two parents.
NOT_A_TREE = {"nodes": {"H": {"states": 2, "hidden": True}, "A": {"states": 2},
                        **{name: {"states": 2, "parents": ["H"]} for name in "BDE"},
                        "C": {"states": 2, "parents": ["H", "A"]}}}


def network_case(spec, cases, seed, engine=em.make_engine):
    """An engine of ``spec`` on ``cases`` cases from uniform Dirichlet parameters."""
    network = parse_spec(spec)
    rng = np.random.default_rng(seed)
    data = sample_dataset(network, random_parameters(network, rng), cases, rng)
    return engine(network, data, 1.01)


def noisy_max_case():
    model = noisy_max_model([[1, 2], [3]], cause_states=(2, 3, 2), effect_states=3, leak=True)
    network = model.network()
    rng = np.random.default_rng(1)
    data = sample_dataset(network, random_parameters(network, rng), 2000, rng)
    return NoisyMaxEngine(model, data, 1.5)


def additive_case(family):
    model = load_interaction({"interaction": family, "causes": {"C1": 2, "C2": 2, "C3": 2},
                              "mechanisms": {"X1": ["C1", "C2"], "X2": ["C2", "C3"], "L": []}})
    rng = np.random.default_rng(0)
    size = int(model.mechanism_offsets()[-1])
    causes = [np.array([[0.4, 0.6]]), np.array([[0.5, 0.5]]), np.array([[0.7, 0.3]])]
    cases, effect = sample_additive(model, causes, rng.uniform(0.5, 2.0, size),
                                    rng.uniform(0.3, 2.0, size), 1000, rng)
    return (PoissonEngine if family == "poisson" else GaussianEngine)(
        model, summarise(cases, effect), None)


#: name: a function building the engine (each with its data).
SUITE = {
    "latent class 2:2,2,2,2,2, N = 1000": lambda: network_case("2:2,2,2,2,2", 1000, 2),
    "message passing 3(3(2,2,2,2) x 3), N = 1000": lambda: network_case(
        "3(" + ",".join(["3(2,2,2,2)"] * 3) + ")", 1000, 5),
    "junction tree (H; B, D, E; C | H, A), N = 1000": lambda: network_case(
        NOT_A_TREE, 1000, 1, em.JunctionTreeEngine),
    "enumeration (H; B, D, E; C | H, A), N = 1000": lambda: network_case(
        NOT_A_TREE, 1000, 1, em.EnumerationEngine),
    "noisy-max (X1 | C1, C2; X2 | C3; leak), N = 2000": noisy_max_case,
    "Poisson NAI (X1 | C1, C2; X2 | C2, C3; L), N = 1000": lambda: additive_case("poisson"),
    "Gaussian NAI (X1 | C1, C2; X2 | C2, C3; L), N = 1000": lambda: additive_case("gaussian"),
}


def cpu_seconds(function, repeats):
    """The best process CPU seconds of ``repeats`` calls, and the last call's result (CPU
    time: what a fit costs where other work shares the machine)."""
    best = np.inf
    for _ in range(repeats):
        start = time.process_time()
        result = function()
        best = min(best, time.process_time() - start)
    return best, result


def comparison_line(name, plain, accelerated):
    """One case: ``plain`` and ``accelerated`` are ``(cpu seconds, iterations, converged,
    g)``."""
    (plain_seconds, plain_iterations, plain_converged, plain_g) = plain
    (seconds, iterations, converged, g) = accelerated
    return (f"{name}: iterations plain {plain_iterations} ({_ended(plain_converged)}), SQUAREM "
            f"{iterations} ({_ended(converged)}), ratio {plain_iterations / iterations:.1f}x; "
            f"CPU plain {plain_seconds:.2f} s, SQUAREM {seconds:.2f} s, ratio "
            f"{plain_seconds / seconds:.1f}x; g SQUAREM - plain {g - plain_g:+.2e}")


def _ended(converged):
    return "converged" if converged else "at the cap"


def engine_fit(engine, start, acceleration, max_iterations=em.OPTIMUM.max_iterations):
    """One start's EM to :data:`hiddenbn.learning.em.OPTIMUM` (or ``max_iterations``)."""
    options = {**dataclasses.asdict(em.OPTIMUM), "max_iterations": max_iterations}
    return em.fit_engine(engine, None, 1, draw=lambda _: start, acceleration=acceleration,
                         **options)


def suite_lines():
    engines = {name: build() for name, build in SUITE.items()}
    starts = {name: engine.random_state(np.random.default_rng(7))
              for name, engine in engines.items()}
    begin = time.perf_counter()
    for name, engine in engines.items():
        for acceleration in em.ACCELERATIONS:
            engine_fit(engine, starts[name], acceleration, max_iterations=8)
    lines = [f"JIT compile (or cache load) and set-up: {time.perf_counter() - begin:.1f} s"]
    for name, engine in engines.items():
        runs = {}
        for acceleration in ("none", "squarem"):
            seconds, result = cpu_seconds(lambda: engine_fit(engine, starts[name], acceleration),
                                          REPEATS)
            runs[acceleration] = (seconds, result.iterations, result.converged, result.run.g)
        lines.append(comparison_line(name, runs["none"], runs["squarem"]))
    return lines


def tree_lines():
    """The full-size case as ``hiddenbn fit DATA --model TREE --prior-alpha 1.01`` runs it
    (seed 0: 64 halved starts, then OPTIMUM), on the data of ``hiddenbn params TREE --seed 1``
    and ``hiddenbn sample TREE --params ... --n 5000 --seed 2``."""
    network = parse_spec(TREE_60_LEAVES)
    cpts = random_parameters(network, seeding.rng(1, "parameters"), 1.0)
    data = sample_dataset(network, cpts, 5000, seeding.rng(2, "data"))
    runs = {}
    for acceleration in ("none", "squarem"):
        seconds, fit = cpu_seconds(lambda: em.fit(
            network, data, seeding.rng(0, "em", network.to_dict()), alpha=1.01,
            acceleration=acceleration, **dataclasses.asdict(em.OPTIMUM)), 1)
        runs[acceleration] = (seconds, fit.iterations, fit.converged, fit.log_posterior)
    return [comparison_line(f"tree of 16 ternary hidden nodes over 60 binary leaves, N = 5000, "
                            f"64 halved starts ({data.n_patterns} patterns)", runs["none"],
                            runs["squarem"])]


def run():
    lines = [f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start "
             "(times are CPU seconds of this process)"]
    return lines + suite_lines() + tree_lines()
