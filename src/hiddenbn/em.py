"""EM for discrete Bayesian networks with hidden nodes, and the restart schedule of paper 003.

The E step computes the expected sufficient statistics ``E(N_ijk | theta)`` of paper 003
Eq. 11 (see :mod:`hiddenbn.inference`); the M step is the MAP update below Eq. 11,

    theta_ijk = (E(N_ijk) + alpha - 1) / (E(N_ij) + r_i (alpha - 1)),

for a symmetric Dirichlet(alpha) prior on every CPT row (paper 003 Eq. 3). ``alpha = 1`` is the
ML update ``E(N_ijk) / E(N_ij)``. A row without expected data under ML (an empty class: the
update is 0/0 and every value is a maximiser) keeps its previous value, so g never decreases.

Every iteration is "M step, then E step", so each run always knows
``g(theta) = log p(D | theta) + log p(theta)`` (paper 003, above Eq. 7) at its current
parameters. Two restart strategies (paper 003 Sec. 3):

* :func:`fit` with ``schedule="halving"``: 64 random starts; after 1 iteration keep the best 32,
  after 2 more the best 16, after 4 more the best 8, ... until one is left; then iterate until
  the relative change of g falls below ``tolerance`` (1e-5) or ``max_iterations`` (200) pass,
  recording whether it converged. With ``run_all_iterations`` the final phase always runs the
  ``max_iterations`` iterations, as paper 003 does ("to guarantee convergence, we performed 200
  EM iterations following the initialization phase"), and the tolerance only decides whether
  the fit is reported as converged.
* ``schedule="best-of-n"``: every start runs to convergence, the best g wins.
* ``schedule="annealing"``: like best-of-n, but each start is the best hard completion of a
  simulated-annealing run (:mod:`hiddenbn.annealing`) instead of a random point; for latent
  class models the best fit is then improved by split-and-merge moves
  (:mod:`hiddenbn.split_merge`). This is the search to use when the answer matters: on paper
  003's c = 32 data sets it ends 100-650 nats of g above the paper's schedule and above EM
  started from the generating parameters.

Initial parameters are drawn from the uniform Dirichlet (or annealed) with a
``numpy.random.Generator`` (outside every kernel), so a seed fixes the fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import xlogy

from hiddenbn.annealing import SWEEPS, AnnealedStarts
from hiddenbn.data import Dataset
from hiddenbn.errors import ParameterError
from hiddenbn.inference import (enumeration_statistics, is_latent_class,
                                latent_class_design, latent_class_statistics, prefers_design,
                                state_offsets)
from hiddenbn.models import Network, check_parameters, random_parameters
from hiddenbn.scores import dirichlet_log_normalizer
from hiddenbn.split_merge import split_merge

SCHEDULES = ("halving", "best-of-n", "annealing")


def map_update(expected, totals, states, previous, alpha: float):
    """The MAP (or, for ``alpha = 1``, ML) M step of paper 003, elementwise.

    ``totals`` are the row sums ``E(N_ij)`` and ``states`` the row lengths ``r_i``, both
    broadcast against ``expected``. Rows whose denominator is not positive (no expected data and
    ``alpha = 1``) keep ``previous``.
    """
    denominator = totals + states * (alpha - 1.0)
    empty = denominator <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        updated = (expected + (alpha - 1.0)) / denominator
    return np.where(empty, previous, updated)


@dataclass
class Statistics:
    """Expected sufficient statistics of one E step and the log-likelihood it yields."""

    expected: object
    log_likelihood: float


class EnumerationEngine:
    """E and M steps for any discrete network; the state is the list of CPTs."""

    def __init__(self, network: Network, data: Dataset, alpha: float):
        self.network, self.alpha = network, alpha
        self.patterns, self.counts = data.patterns, data.counts
        self.normalizer = dirichlet_log_normalizer(network, alpha)

    def random_state(self, rng):
        return random_parameters(self.network, rng, 1.0)

    def from_cpts(self, cpts):
        return [None if t is None else np.array(t, dtype=float) for t in cpts]

    def to_cpts(self, state):
        return state

    def e_step(self, state) -> Statistics:
        expected, log_likelihood = enumeration_statistics(self.network, state, self.patterns,
                                                          self.counts)
        return Statistics(expected, log_likelihood)

    def m_step(self, statistics: Statistics, state):
        return [None if old is None else
                map_update(e, e.sum(axis=1, keepdims=True), old.shape[1], old, self.alpha)
                for e, old in zip(statistics.expected, state)]

    def log_prior(self, state) -> float:
        return self.normalizer + sum(float(xlogy(self.alpha - 1.0, t).sum())
                                     for t in state if t is not None)

    def expected_counts(self, statistics: Statistics) -> list:
        return [None if self.network.is_deterministic(i) else e
                for i, e in enumerate(statistics.expected)]


class LatentClassEngine:
    """E and M steps of the latent class model (hidden root, observed children) in packed form.

    The state is ``(weights, table)``: ``p(H)`` of shape ``(k,)`` and the children's CPTs
    stacked as ``table[offsets[j] + x, h] = p(X_j = x | H = h)``, shape ``(sum r_j, k)``.
    """

    def __init__(self, network: Network, data: Dataset, alpha: float):
        self.network, self.alpha = network, alpha
        self.patterns, self.counts = data.patterns, data.counts
        self.cards = np.asarray(network.cardinalities[1:], dtype=np.int64)
        self.offsets = state_offsets(self.cards)
        self.row_states = np.repeat(self.cards, self.cards)[:, None].astype(float)
        self.design = (latent_class_design(self.patterns, self.cards)
                       if prefers_design(data.n_patterns, self.cards) else None)
        self.normalizer = dirichlet_log_normalizer(network, alpha)

    def random_state(self, rng):
        return self.from_cpts(random_parameters(self.network, rng, 1.0))

    def from_cpts(self, cpts):
        return (np.array(cpts[0][0], dtype=float),
                np.ascontiguousarray(np.vstack([t.T for t in cpts[1:]]), dtype=float))

    def to_cpts(self, state):
        weights, table = state
        return [weights[None, :].copy()] + [table[o:o + r].T.copy()
                                            for o, r in zip(self.offsets, self.cards)]

    def e_step(self, state) -> Statistics:
        class_counts, table_counts, log_likelihood = latent_class_statistics(
            self.patterns, self.counts, state[0], state[1], self.offsets, self.design)
        return Statistics((class_counts, table_counts), log_likelihood)

    def m_step(self, statistics: Statistics, state):
        class_counts, table_counts = statistics.expected
        weights = map_update(class_counts, class_counts.sum(), class_counts.size, state[0],
                             self.alpha)
        totals = np.repeat(np.add.reduceat(table_counts, self.offsets, axis=0), self.cards, axis=0)
        table = map_update(table_counts, totals, self.row_states, state[1], self.alpha)
        return weights, table

    def log_prior(self, state) -> float:
        return self.normalizer + float(xlogy(self.alpha - 1.0, state[0]).sum()
                                       + xlogy(self.alpha - 1.0, state[1]).sum())

    def expected_counts(self, statistics: Statistics) -> list:
        return self.to_cpts(statistics.expected)


def make_engine(network: Network, data: Dataset, alpha: float):
    """The fastest exact engine for ``network``: the latent class kernel when it applies."""
    if not alpha >= 1.0:
        raise ParameterError(f"the MAP M step needs a Dirichlet alpha of at least 1 (1 gives ML), "
                             f"got {alpha}")
    data = data.for_network(network)
    engine = LatentClassEngine if is_latent_class(network) else EnumerationEngine
    return engine(network, data, float(alpha))


@dataclass
class Fit:
    """A fitted network: MAP (or ML) parameters and what the scores need.

    ``expected_counts`` are ``E(N_ijk | theta)`` at the returned parameters (``None`` for
    deterministic nodes); ``trace`` holds g after every iteration of the final phase.
    """

    network: Network
    cpts: list
    alpha: float
    log_likelihood: float
    log_prior: float
    expected_counts: list
    n_cases: int
    iterations: int
    converged: bool
    starts: int
    schedule: str
    trace: list = field(default_factory=list)

    @property
    def log_posterior(self) -> float:
        """g(theta) = log p(D | theta) + log p(theta)."""
        return self.log_likelihood + self.log_prior


class _Run:
    """One EM trajectory: the current state, its E-step statistics and g."""

    def __init__(self, engine, state):
        self.engine, self.state = engine, state
        self.statistics = engine.e_step(state)
        self.g = self.statistics.log_likelihood + engine.log_prior(state)

    def step(self) -> float:
        """One M step then one E step; returns the new g."""
        self.state = self.engine.m_step(self.statistics, self.state)
        self.statistics = self.engine.e_step(self.state)
        self.g = self.statistics.log_likelihood + self.engine.log_prior(self.state)
        return self.g

    def converge(self, max_iterations: int, tolerance: float, run_all: bool = False):
        """Iterate until the relative change of g is below ``tolerance`` (with ``run_all``: for
        all ``max_iterations`` unless g stops changing); (iterations, converged, trace)."""
        trace, small = [], False
        for iteration in range(1, max_iterations + 1):
            previous = self.g
            trace.append(self.step())
            change = abs(self.g - previous)
            small = change <= tolerance * max(abs(previous), np.finfo(float).tiny)
            if small and (not run_all or change == 0.0):
                return iteration, True, trace
        return max_iterations, small, trace


def _finish(engine, run: _Run, iterations, converged, trace, starts, schedule, n_cases) -> Fit:
    return Fit(network=engine.network, cpts=engine.to_cpts(run.state), alpha=engine.alpha,
               log_likelihood=run.statistics.log_likelihood, log_prior=engine.log_prior(run.state),
               expected_counts=engine.expected_counts(run.statistics), n_cases=n_cases,
               iterations=iterations, converged=converged, starts=starts, schedule=schedule,
               trace=trace)


def run_em(network: Network, data: Dataset, cpts, alpha: float = 1.01,
           max_iterations: int = 200, tolerance: float = 1e-5,
           run_all_iterations: bool = False) -> Fit:
    """EM from the given parameters until convergence (one start; the final phase of
    :func:`fit`). Started from the parameters that generated the data, it is the oracle that
    shows whether a search found the mode near the truth."""
    engine = make_engine(network, data, alpha)
    run = _Run(engine, engine.from_cpts(check_parameters(network, cpts)))
    return _finish(engine, run, *run.converge(max_iterations, tolerance, run_all_iterations),
                   1, "single", data.n_cases)


def fit(network: Network, data: Dataset, rng: np.random.Generator, alpha: float = 1.01,
        starts: int = 64, max_iterations: int = 200, tolerance: float = 1e-5,
        schedule: str = "halving", run_all_iterations: bool = False,
        sweeps: int = SWEEPS) -> Fit:
    """MAP parameters by EM with random restarts (paper 003 Sec. 3).

    Parameters
    ----------
    network : Network
        A discrete network; hidden nodes are summed out exactly.
    data : Dataset
        Pattern counts with a column for every observed node.
    rng : numpy.random.Generator
        Source of the initial parameters (each CPT row from the uniform Dirichlet).
    alpha : float
        Symmetric Dirichlet prior parameter (paper 003 uses 1.01); 1 gives ML.
    starts : int
        Number of random initialisations (64 in the paper).
    max_iterations, tolerance : int, float
        The final phase stops when ``|g_t - g_{t-1}| <= tolerance |g_{t-1}|`` (converged) or
        after ``max_iterations`` iterations (not converged).
    run_all_iterations : bool
        Paper 003's protocol: always run the ``max_iterations`` (stopping only at an exact
        fixed point); the fit is converged if the last relative change is within ``tolerance``.
    schedule : {"halving", "best-of-n", "annealing"}
        Keep the best half after 1, 2, 4, ... iterations until one start is left (paper 003),
        run every start to convergence and keep the best, or the same from annealed starts.
    sweeps : int
        Annealing sweeps over the cases per start (``schedule="annealing"`` only).
    """
    if schedule not in SCHEDULES:
        raise ParameterError(f"unknown restart schedule {schedule!r}; use one of "
                             f"{', '.join(SCHEDULES)}")
    if starts < 1:
        raise ParameterError(f"need at least one EM start, got {starts}")
    if schedule == "annealing" and sweeps < 1:
        raise ParameterError(f"the annealed search needs at least one sweep, got {sweeps}")
    engine = make_engine(network, data, alpha)
    if schedule == "annealing":
        annealed = AnnealedStarts(network, data, sweeps)
        runs = [_Run(engine, engine.from_cpts(annealed.parameters(rng))) for _ in range(starts)]
    else:
        runs = [_Run(engine, engine.random_state(rng)) for _ in range(starts)]
    if schedule != "halving":
        outcomes = [(run, run.converge(max_iterations, tolerance, run_all_iterations))
                    for run in runs]
        run, outcome = max(outcomes, key=lambda pair: pair[0].g)
        if schedule == "annealing" and isinstance(engine, LatentClassEngine):
            run, moves = split_merge(engine, run, rng)
            if moves:
                outcome = run.converge(max_iterations, tolerance, run_all_iterations)
        return _finish(engine, run, *outcome, starts, schedule, data.n_cases)
    iterations = 1
    while len(runs) > 1:
        for run in runs:
            for _ in range(iterations):
                run.step()
        runs = sorted(runs, key=lambda run: run.g, reverse=True)[:len(runs) // 2]
        iterations *= 2
    run = runs[0]
    return _finish(engine, run, *run.converge(max_iterations, tolerance, run_all_iterations),
                   starts, schedule, data.n_cases)
