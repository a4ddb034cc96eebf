"""EM for Bayesian networks with hidden variables: one engine interface, one restart driver.

A model family enters EM as an *engine* (:class:`~hiddenbn.learning.engine.EMEngine`): its
parameters in some form (the engine's *state*), a random starting state, an E step, an M step and a
log prior. For a discrete network the E step computes the expected sufficient statistics ``E(N_ijk |
theta)`` of paper 003 Eq. 11 (see :mod:`hiddenbn.inference.enumeration`) and the M step is the MAP
update below Eq. 11,

    theta_ijk = (E(N_ijk) + alpha - 1) / (E(N_ij) + r_i (alpha - 1)),

for a symmetric Dirichlet(alpha) prior on every CPT row (paper 003 Eq. 3). ``alpha = 1`` is the
ML update ``E(N_ijk) / E(N_ij)``. A row without expected data under ML (an empty class: the
update is 0/0 and every value is a maximiser) keeps its previous value, so g never decreases.
:class:`EnumerationEngine` (any small discrete network), :class:`TreeEngine` (trees and
forests, by message passing, :mod:`hiddenbn.inference.message_passing`), :class:`JunctionTreeEngine`
(any other network, :mod:`hiddenbn.inference.junction_tree`) and :class:`LatentClassEngine` (the
latent class model, packed) are the network engines of :func:`make_engine`; the noisy-max and
noisy-additive interaction models of paper 004 (:mod:`hiddenbn.interaction.noisy_max`,
:mod:`hiddenbn.interaction.noisy_additive`) bring their own. A new model family is one class
implementing :class:`~hiddenbn.learning.engine.EMEngine`, plus a line in :func:`make_engine` when it
is a network that :func:`fit` should choose (then it implements
:class:`~hiddenbn.learning.engine.NetworkEngine`), or passed to :func:`fit_engine`.

Every iteration is "M step, then E step", so each run always knows
``g(theta) = log p(D | theta) + log p(theta)`` (paper 003, above Eq. 7) at its current
parameters. :func:`fit_engine` is the restart and convergence driver of every engine, with two
restart strategies (paper 003 Sec. 3):

* ``schedule="halving"``: 64 random restarts; after 1 iteration keep the best 32, after 2 more
  the best 16, after 4 more the best 8, ... until one is left; then iterate until the change
  of g falls below the tolerance or ``max_iterations`` pass, recording whether it converged.
  With ``run_all_iterations`` the final phase always runs the ``max_iterations`` iterations,
  as paper 003 does ("to guarantee convergence, we performed 200 EM iterations following the
  initialization phase"), and the tolerance only decides whether the fit is reported as
  converged.
* ``schedule="best-of-n"``: every start runs to convergence, the best g wins.

Every start that runs to the end is an independent search: the result keeps each one's final g
(:attr:`~hiddenbn.learning.engine.EMResult.final_log_posteriors`), so a fit can say how many of them
reached its best (:attr:`Fit.best_found`, within :data:`REPLICATION_TOLERANCE`), as poLCA's authors
advise and Mplus reports ("the best loglikelihood value has been replicated"). Halving runs one
start to the end, so it cannot tell.

The stopping rule is one of :data:`CONVERGENCE`: ``"relative"``, ``|g_t - g_{t-1}| <=
tolerance |g_{t-1}|`` (paper 003), or ``"absolute"``, ``|g_t - g_{t-1}| <= tolerance`` (poLCA's
``tol`` on the log-likelihood). The two protocols are :class:`Stopping` values:
:data:`PAPER_003` (relative 1e-5, all 200 iterations) and :data:`OPTIMUM` (absolute 1e-10, up to
10000 iterations, stopping once converged), which reaches the mode up to the last digits.

EM creeps along directions the data identify weakly: on a tree of 16 ternary hidden nodes over
60 binary leaves (N = 5000) it is still far from the tolerance after 10000 iterations. The
final phase is therefore accelerated by default (:data:`ACCELERATION`, one of
:data:`ACCELERATIONS`): ``"squarem"`` extrapolates along the last two EM steps (SQUAREM, scheme
S3 of Varadhan & Roland 2008, :meth:`~hiddenbn.learning.engine.Run.extrapolate`) and keeps the jump
only where it does not lower g, so g still never decreases; ``"none"`` is plain EM, the papers'
protocol. Every engine takes part: it declares its state as one vector of parameters and back
(:meth:`~hiddenbn.learning.engine.EMEngine.to_vector`,
:meth:`~hiddenbn.learning.engine.EMEngine.from_vector`). An iteration is one E step in both, so
``max_iterations`` is the same budget and the counts compare.

:func:`fit` adds a third for networks, ``schedule="annealing"``, its default: like best-of-n,
but each start is the best hard completion of a simulated-annealing run
(:mod:`hiddenbn.learning.annealing`) instead of a random point; for latent class models the best fit
is then improved by split-and-merge moves (:mod:`hiddenbn.learning.split_merge`). On paper 003's c =
32 data sets it ends 100-650 nats of g above the paper's schedule and above EM started from the
generating parameters (docs/SEARCH.md has the measurements that made it the default). A model whose
joint hidden states are too many to anneal (:func:`hiddenbn.learning.annealing.can_anneal`) gets
random starts instead, and its fit says ``schedule="best-of-n"``.

Initial parameters are drawn from the uniform Dirichlet (or annealed) with a
``numpy.random.Generator`` (outside every kernel), so a seed fixes the fit.

Reference: R. Varadhan and C. Roland (2008), Simple and globally convergent methods for
accelerating the convergence of any EM algorithm, Scand. J. Statist. 35: 335-353.

Data may hold missing cells (:data:`hiddenbn.data.MISSING`), missing at random: both network
engines sum them out of the likelihood and complete them in the expected counts
(:mod:`hiddenbn.inference.enumeration`), so g is the log posterior given the observed cells and EM,
every schedule included, is standard EM on it.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numba
import numpy as np
from scipy.special import xlogy

from hiddenbn.data import Dataset
from hiddenbn.errors import DataError, ParameterError
from hiddenbn.inference import exact as exact_inference
from hiddenbn.inference.enumeration import (enumeration_statistics, is_latent_class,
                                            latent_class_design, latent_class_statistics,
                                            prefers_design, state_groups, state_offsets)
from hiddenbn.inference.junction_tree import junction_tree, junction_tree_statistics
from hiddenbn.inference.message_passing import tree_statistics
from hiddenbn.learning.annealing import SWEEPS, AnnealedStarts, can_anneal
from hiddenbn.learning.engine import EMEngine, EMResult, NetworkEngine, Run, Statistics
from hiddenbn.learning.split_merge import split_merge
from hiddenbn.models.network import Network, check_parameters, random_parameters
from hiddenbn.models.priors import check_alpha, dirichlet_log_normalizer, map_update
from hiddenbn.util import defaults, limits
from hiddenbn.util.defaults import (ACCELERATION, ACCELERATIONS, CONVERGENCE, ENGINE_SCHEDULES,
                                    PRIOR_ALPHA, RESTARTS, SCHEDULE, SCHEDULES)

#: Two searches found the same fit when their final g differ by at most this many nats: a
#: likelihood ratio of 1.01, too small to change any score's choice between models, while two
#: runs into one mode end far closer under the default stopping rule (:data:`OPTIMUM` stops at
#: a change of 1e-10 per iteration). Distinct modes may come closer (0.04 nats apart on paper
#: 003's c = 32 data, docs/SEARCH.md), but then they fit equally well for every purpose here.
#: Runs stopped by the iteration cap, or by a loose tolerance, may differ by more.
REPLICATION_TOLERANCE = 0.01
# CONVERGENCE, the stopping rules of the final phase
# (:meth:`~hiddenbn.learning.engine.Run.converge`: the change of g within ``tolerance |g|``, paper
# 003, or within ``tolerance``, poLCA), ENGINE_SCHEDULES (of :func:`fit_engine`, any engine),
# SCHEDULES (of :func:`fit`, network engines), ACCELERATIONS and the default ACCELERATION of the
# final phase are imported from hiddenbn.util.defaults, where the command line reads them without
# importing numba.


def check_convergence(convergence: str) -> None:
    """Refuse a stopping rule that is not one of :data:`CONVERGENCE`."""
    if convergence not in CONVERGENCE:
        raise ParameterError(f"unknown convergence rule {convergence!r}; use one of "
                             f"{', '.join(CONVERGENCE)}")


def check_acceleration(acceleration: str) -> None:
    """Refuse an acceleration that is not one of :data:`ACCELERATIONS`."""
    if acceleration not in ACCELERATIONS:
        raise ParameterError(f"unknown EM acceleration {acceleration!r}; use one of "
                             f"{', '.join(ACCELERATIONS)}")


@dataclass(frozen=True)
class Stopping:
    """When the final phase of EM stops: a protocol's values of the keywords ``tolerance``,
    ``max_iterations``, ``convergence`` and ``run_all_iterations`` of :func:`fit`,
    :func:`run_em` and :func:`fit_engine` (``fit(..., **dataclasses.asdict(OPTIMUM))``)."""

    tolerance: float
    max_iterations: int
    convergence: str
    run_all_iterations: bool

    def __post_init__(self):
        check_convergence(self.convergence)


#: Paper 003's protocol: relative change of g 1e-5, and always all 200 iterations.
PAPER_003 = Stopping(tolerance=1e-5, max_iterations=200, convergence="relative",
                     run_all_iterations=True)
#: Run to the optimum: absolute change of g 1e-10 (poLCA's ``tol``), at most 10000 iterations
#: (:data:`hiddenbn.util.defaults.OPTIMUM`).
OPTIMUM = Stopping(**defaults.OPTIMUM)


class EnumerationEngine:
    """E and M steps for any discrete network; the state is the list of CPTs. The E step
    enumerates the joint states of the hidden nodes
    (:func:`hiddenbn.inference.enumeration.enumeration_statistics`); the subclasses below replace
    only :attr:`statistics`."""

    name = exact_inference.ENUMERATION
    statistics = staticmethod(enumeration_statistics)

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

    def to_vector(self, state) -> np.ndarray:
        return np.concatenate([t.ravel() for t in state if t is not None])

    def from_vector(self, vector, like):
        if not np.all(vector >= 0):
            return None
        ends = np.cumsum([0 if t is None else t.size for t in like])
        return [None if t is None else vector[end - t.size:end].reshape(t.shape)
                for t, end in zip(like, ends)]

    def e_step(self, state) -> Statistics:
        expected, log_likelihood = self.statistics(self.network, state, self.patterns,
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


class TreeEngine(EnumerationEngine):
    """:class:`EnumerationEngine` with the E step by sum-product message passing
    (:func:`hiddenbn.inference.message_passing.tree_statistics`), for networks where every node has
    at most one parent (:func:`hiddenbn.inference.message_passing.is_tree`): the same statistics at
    a cost linear in the nodes, for trees whose hidden nodes have too many joint states to
    enumerate."""

    name = exact_inference.TREE
    statistics = staticmethod(tree_statistics)


class JunctionTreeEngine(EnumerationEngine):
    """:class:`EnumerationEngine` with the E step on a junction tree
    (:func:`hiddenbn.inference.junction_tree.junction_tree_statistics`), for networks that are not
    trees: the same statistics at a cost exponential only in the largest clique."""

    name = exact_inference.JUNCTION_TREE
    statistics = staticmethod(junction_tree_statistics)

    def __init__(self, network: Network, data: Dataset, alpha: float):
        tree = junction_tree(network)
        tree.check_size()  # refused before any start, with the largest clique named
        super().__init__(network, data, alpha)
        self.name = f"{exact_inference.JUNCTION_TREE} ({tree.describe()})"


@numba.njit(cache=True, nogil=True)
def _latent_class_map_update(class_counts, table_counts, offsets, cards, weights, table, alpha):
    """:func:`~hiddenbn.models.priors.map_update` of both latent class tables in one pass (the numpy
    version's set-up costs more than the work on small data, where EM takes thousands of ~50 us
    iterations)."""
    shift = alpha - 1.0
    k = class_counts.size
    new_weights, new_table = np.empty(k), np.empty(table.shape)
    denominator = class_counts.sum() + k * shift
    for h in range(k):
        new_weights[h] = (class_counts[h] + shift) / denominator if denominator > 0 else weights[h]
    for j in range(offsets.size):
        first, last = offsets[j], offsets[j] + cards[j]
        for h in range(k):
            denominator = cards[j] * shift
            for row in range(first, last):
                denominator += table_counts[row, h]
            for row in range(first, last):
                new_table[row, h] = ((table_counts[row, h] + shift) / denominator
                                     if denominator > 0 else table[row, h])
    return new_weights, new_table


@numba.njit(cache=True, nogil=True)
def _sum_of_logs(weights, table) -> float:
    """``sum log p(h) + sum log theta``: the log prior of a latent class state over ``alpha - 1``
    (Dirichlet, paper 003 Eq. 3), less its normaliser."""
    total = 0.0
    for value in weights:
        total += np.log(value)
    for value in table.ravel():
        total += np.log(value)
    return total


class LatentClassEngine:
    """E and M steps of the latent class model (hidden root, observed children) in packed form.

    The state is ``(weights, table)``: ``p(H)`` of shape ``(k,)`` and the children's CPTs
    stacked as ``table[offsets[j] + x, h] = p(X_j = x | H = h)``, shape ``(sum r_j, k)``.
    """

    name = "latent class"

    def __init__(self, network: Network, data: Dataset, alpha: float):
        self.network, self.alpha = network, alpha
        self.patterns, self.counts = data.patterns, data.counts
        self.cards = np.asarray(network.cardinalities[1:], dtype=np.int64)
        self.offsets = state_offsets(self.cards)
        classes = network.cardinalities[0]
        self.groups = state_groups(self.patterns, self.cards, classes)
        self.design = (latent_class_design(self.patterns, self.cards)
                       if prefers_design(self.patterns, self.cards, classes) else None)
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

    def to_vector(self, state) -> np.ndarray:
        return np.concatenate([state[0], state[1].ravel()])

    def from_vector(self, vector, like):
        if not np.all(vector >= 0):
            return None
        classes = like[0].size
        return vector[:classes], vector[classes:].reshape(like[1].shape)

    def e_step(self, state) -> Statistics:
        class_counts, table_counts, log_likelihood = latent_class_statistics(
            self.patterns, self.counts, state[0], state[1], self.offsets, self.design,
            self.groups)
        return Statistics((class_counts, table_counts), log_likelihood)

    def m_step(self, statistics: Statistics, state):
        class_counts, table_counts = statistics.expected
        return _latent_class_map_update(class_counts, table_counts, self.offsets, self.cards,
                                        state[0], state[1], self.alpha)

    def log_prior(self, state) -> float:
        if self.alpha == 1.0:  # (alpha - 1) log 0 counts as 0
            return self.normalizer
        return self.normalizer + (self.alpha - 1.0) * _sum_of_logs(state[0], state[1])

    def expected_counts(self, statistics: Statistics) -> list:
        return self.to_cpts(statistics.expected)


def make_engine(network: Network, data: Dataset, alpha: float) -> NetworkEngine:
    """The fastest exact engine for ``network``: the latent class kernel when it applies, else
    the method of :func:`hiddenbn.inference.exact.method`: message passing on every other tree
    or forest, a junction tree where enumeration would be slower or refuses, else
    enumeration.

    Trees always take message passing: on paper 002's model ``5(3(2,2),3(2,2),2)`` its E step
    costs about what enumeration's does for the paper's 32 patterns and a fifth of it for
    10^4 distinct patterns, its cost stays flat where enumeration's grows with the joint
    hidden states (half at 12,6,6 hidden states), and beyond
    :data:`~hiddenbn.inference.enumeration.MAX_HIDDEN_CONFIGURATIONS` of them it is the only way."""
    check_alpha(alpha)
    data = data.for_network(network)
    engine = (LatentClassEngine if is_latent_class(network) else
              {exact_inference.TREE: TreeEngine, exact_inference.JUNCTION_TREE: JunctionTreeEngine,
               exact_inference.ENUMERATION: EnumerationEngine}[exact_inference.method(network)])
    return engine(network, data, float(alpha))


@dataclass
class Fit:
    """A fitted network: MAP (or ML) parameters and what the scores need.

    ``expected_counts`` are ``E(N_ijk | theta)`` at the returned parameters (``None`` for
    deterministic nodes); ``trace`` holds g after every iteration of the final phase (every
    cycle under SQUAREM); ``engine`` names the engine whose E step fitted it
    (:attr:`~hiddenbn.learning.engine.NetworkEngine.name`); ``acceleration`` is that of the final
    phase (one of :data:`ACCELERATIONS`); ``final_log_posteriors`` the final g of every search
    (:attr:`~hiddenbn.learning.engine.EMResult.final_log_posteriors`; the best one's is
    ``log_posterior``).
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
    restarts: int
    schedule: str
    acceleration: str
    trace: list = field(default_factory=list)
    engine: str | None = None
    final_log_posteriors: list = field(default_factory=list)

    @property
    def log_posterior(self) -> float:
        """g(theta) = log p(D | theta) + log p(theta)."""
        return self.log_likelihood + self.log_prior

    @property
    def searches(self) -> int:
        """The starts run to the end, each an independent search (one for halving)."""
        return len(self.final_log_posteriors)

    @property
    def best_found(self) -> int:
        """How many searches ended within :data:`REPLICATION_TOLERANCE` of the best g."""
        return best_found(self.final_log_posteriors)

    @property
    def replicated(self) -> bool:
        """Whether more than one search reached the best g."""
        return self.best_found > 1


def best_found(final_log_posteriors) -> int:
    """How many of the searches' final g lie within :data:`REPLICATION_TOLERANCE` of the
    largest (0 for none)."""
    if not final_log_posteriors:
        return 0
    top = max(final_log_posteriors)
    return sum(g >= top - REPLICATION_TOLERANCE for g in final_log_posteriors)


def _final_phase(run: Run, max_iterations: int, tolerance: float, run_all: bool,
                 convergence: str, acceleration: str) -> EMResult:
    """``run`` iterated to convergence (:meth:`~hiddenbn.learning.engine.Run.converge`), the one
    search of its result."""
    result = EMResult(run, *run.converge(max_iterations, tolerance, run_all, convergence,
                                         acceleration), acceleration)
    result.final_log_posteriors = [result.run.g]
    return result


def _check_search(schedule: str, schedules: tuple, restarts: int, convergence: str,
                  max_iterations: int, tolerance: float, acceleration: str) -> None:
    check_convergence(convergence)
    check_acceleration(acceleration)
    if schedule not in schedules:
        raise ParameterError(f"unknown restart schedule {schedule!r}; use one of "
                             f"{', '.join(schedules)}")
    for name, value in (("EM starts", restarts), ("final EM iterations", max_iterations)):
        limits.require_whole_number(value, 1, f"the number of {name}", ParameterError)
    if not (isinstance(tolerance, numbers.Real) and 0 <= tolerance < math.inf):
        # NaN never compares below it: every fit ran to the cap and counted as not converged
        raise ParameterError(f"the EM tolerance must be a finite number of at least 0, got "
                             f"{tolerance!r}")


def fit_engine(engine: EMEngine, rng: np.random.Generator, restarts: int, max_iterations: int,
               tolerance: float, schedule: str = "best-of-n", run_all_iterations: bool = False,
               draw=None, convergence: str = "relative",
               acceleration: str = ACCELERATION) -> EMResult:
    """EM with random restarts for any engine (paper 003 Sec. 3): the one restart and
    convergence loop.

    Parameters
    ----------
    engine : EMEngine
        The model family and its data.
    rng : numpy.random.Generator
        Source of the starting states; all are drawn, in order, before any EM iteration.
    restarts : int
        Number of starting states.
    max_iterations, tolerance : int, float
        A run stops when ``|g_t - g_{t-1}| <= tolerance |g_{t-1}|`` (or ``<= tolerance``, see
        ``convergence``; converged) or after ``max_iterations`` iterations (not converged).
    schedule : {"halving", "best-of-n"}
        Keep the best half after 1, 2, 4, ... iterations until one start is left, then run it
        to convergence (paper 003); or run every start to convergence and keep the largest g
        (the first of equals), with every start's final g in the result's
        ``final_log_posteriors``.
    run_all_iterations : bool
        Paper 003's protocol: the final phase always runs all ``max_iterations`` ("we performed
        200 EM iterations following the initialization phase"); the fit is converged if the
        change of the last one is within the tolerance, and not converged otherwise.
    draw : callable, optional
        ``draw(rng)`` gives a starting state; ``engine.random_state`` by default.
    convergence : {"relative", "absolute"}
        The stopping rule (:data:`CONVERGENCE`): the change of g relative to ``|g|``
        (paper 003) or absolute (poLCA).
    acceleration : {"squarem", "none"}
        The final phase's (:data:`ACCELERATIONS`; the halving phase takes plain steps):
        SQUAREM cycles (Varadhan & Roland 2008; :meth:`~hiddenbn.learning.engine.Run.extrapolate`),
        or plain EM, the papers' protocol. An iteration is one E step either way.
    """
    _check_search(schedule, ENGINE_SCHEDULES, restarts, convergence, max_iterations,
                  tolerance, acceleration)
    draw = engine.random_state if draw is None else draw
    runs = [Run(engine, draw(rng)) for _ in range(restarts)]
    if schedule == "best-of-n":
        results = [_final_phase(run, max_iterations, tolerance, run_all_iterations, convergence,
                                acceleration) for run in runs]
        best = max(results, key=lambda result: result.run.g)
        best.final_log_posteriors = [result.run.g for result in results]
        return best
    iterations = 1
    while len(runs) > 1:
        for run in runs:
            for _ in range(iterations):
                run.step()
        runs = sorted(runs, key=lambda run: run.g, reverse=True)[:len(runs) // 2]
        iterations *= 2
    return _final_phase(runs[0], max_iterations, tolerance, run_all_iterations, convergence,
                        acceleration)


def _finish(engine: NetworkEngine, result: EMResult, restarts, schedule, n_cases) -> Fit:
    run = result.run
    return Fit(network=engine.network, cpts=engine.to_cpts(run.state), alpha=engine.alpha,
               log_likelihood=run.statistics.log_likelihood, log_prior=engine.log_prior(run.state),
               expected_counts=engine.expected_counts(run.statistics), n_cases=n_cases,
               iterations=result.iterations, converged=result.converged, restarts=restarts,
               schedule=schedule, trace=result.trace, engine=engine.name,
               acceleration=result.acceleration, final_log_posteriors=result.final_log_posteriors)


def run_em(network: Network, data: Dataset, cpts, alpha: float = PRIOR_ALPHA,
           max_iterations: int = OPTIMUM.max_iterations, tolerance: float = OPTIMUM.tolerance,
           run_all_iterations: bool = OPTIMUM.run_all_iterations,
           convergence: str = OPTIMUM.convergence, acceleration: str = ACCELERATION) -> Fit:
    """EM from the given parameters until convergence (one start; the final phase of
    :func:`fit`, with its prior, stopping and ``acceleration`` keywords and their defaults).
    Started from the parameters that generated the data, it is the oracle that shows whether a
    search found the mode near the truth."""
    check_convergence(convergence)
    check_acceleration(acceleration)
    engine = make_engine(network, data, alpha)
    run = Run(engine, engine.from_cpts(check_parameters(network, cpts)))
    result = _final_phase(run, max_iterations, tolerance, run_all_iterations, convergence,
                          acceleration)
    return _finish(engine, result, 1, "single", data.n_cases)


def fit(network: Network, data: Dataset, rng: np.random.Generator, alpha: float = PRIOR_ALPHA,
        restarts: int | None = None, max_iterations: int = OPTIMUM.max_iterations,
        tolerance: float = OPTIMUM.tolerance, schedule: str = SCHEDULE,
        run_all_iterations: bool = OPTIMUM.run_all_iterations, sweeps: int = SWEEPS,
        convergence: str = OPTIMUM.convergence, acceleration: str = ACCELERATION) -> Fit:
    """MAP parameters by EM with restarts: from annealed starts, then split-and-merge moves (the
    default, :data:`~hiddenbn.util.defaults.SCHEDULE`), or :func:`fit_engine`'s random restarts on
    the engine of :func:`make_engine` (paper 003 Sec. 3). Each EM run stops as
    :data:`OPTIMUM` says unless told otherwise; paper 003's protocol is ``restarts=64,
    schedule="halving", acceleration="none", **dataclasses.asdict(PAPER_003)``.

    Parameters
    ----------
    network : Network
        A discrete network; hidden nodes are summed out exactly.
    data : Dataset
        Pattern counts with a column for every observed node; missing cells are summed out
        exactly too (missing at random).
    rng : numpy.random.Generator
        Source of the initial parameters (each CPT row from the uniform Dirichlet).
    alpha : float
        Symmetric Dirichlet prior parameter; the default, :data:`PRIOR_ALPHA` (1, as
        ``hiddenbn fit``), gives ML; paper 003 uses 1.01.
    restarts : int, optional
        Number of starts; by default the schedule's (:data:`~hiddenbn.util.defaults.RESTARTS`: 8
        annealed, 64 random as in the paper).
    max_iterations, tolerance : int, float
        The final phase stops when ``|g_t - g_{t-1}| <= tolerance |g_{t-1}|`` (or ``<=
        tolerance``, see ``convergence``; converged) or after ``max_iterations`` iterations
        (not converged).
    run_all_iterations : bool
        Paper 003's protocol: always run all ``max_iterations``; the fit is converged if the
        change of the last one is within the tolerance, and not converged otherwise.
    schedule : {"annealing", "halving", "best-of-n"}
        Run every start, annealed, to convergence and keep the best (then split-and-merge moves
        for a latent class model); keep the best half after 1, 2, 4, ... iterations until one
        start is left (paper 003); or run every random start to convergence and keep the
        best. A model whose joint hidden states cannot all be scored by the annealing moves
        (:func:`hiddenbn.learning.annealing.can_anneal`) gets random starts for ``"annealing"``, and
        the fit's ``schedule`` says ``"best-of-n"``.
    sweeps : int
        Annealing sweeps over the cases per start (``schedule="annealing"`` only).
    convergence : {"relative", "absolute"}
        The stopping rule (:data:`CONVERGENCE`); :data:`PAPER_003` and :data:`OPTIMUM` hold
        the two protocols' values of these keywords.
    acceleration : {"squarem", "none"}
        The final phase's (:data:`ACCELERATIONS`): SQUAREM cycles (the default) or plain EM
        steps (the papers' protocol); see :func:`fit_engine`.
    """
    # before building anything
    if restarts is None and schedule in RESTARTS:
        restarts = RESTARTS[schedule]
    _check_search(schedule, SCHEDULES, restarts, convergence, max_iterations, tolerance,
                  acceleration)
    if schedule == "annealing" and sweeps < 1:
        raise ParameterError(f"the annealed search needs at least one sweep, got {sweeps}")
    if not data.n_cases > 0:  # every score would be that of no data: +inf BIC, NaN CS
        raise DataError("the data set has no cases; EM needs at least one")
    engine = make_engine(network, data, alpha)
    if schedule == "annealing" and not can_anneal(network):
        schedule = "best-of-n"
    if schedule != "annealing":
        result = fit_engine(engine, rng, restarts, max_iterations, tolerance, schedule,
                            run_all_iterations, convergence=convergence,
                            acceleration=acceleration)
        return _finish(engine, result, restarts, schedule, data.n_cases)
    annealed = AnnealedStarts(network, data, sweeps)
    result = fit_engine(engine, rng, restarts, max_iterations, tolerance, "best-of-n",
                        run_all_iterations,
                        draw=lambda source: engine.from_cpts(annealed.parameters(source)),
                        convergence=convergence, acceleration=acceleration)
    if isinstance(engine, LatentClassEngine):
        run, moves = split_merge(engine, result.run, rng)
        if moves:  # the moves belong to the best start's search: its final g is theirs
            finals = result.final_log_posteriors
            best = finals.index(result.run.g)
            result = _final_phase(run, max_iterations, tolerance, run_all_iterations,
                                  convergence, acceleration)
            result.final_log_posteriors = finals[:best] + [result.run.g] + finals[best + 1:]
    return _finish(engine, result, restarts, schedule, data.n_cases)
