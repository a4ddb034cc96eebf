"""EM for Bayesian networks with hidden variables: one engine interface, one restart driver.

A model family enters EM as an *engine* (:class:`EMEngine`): its parameters in some form (the
engine's *state*), a random starting state, an E step, an M step and a log prior. For a
discrete network the E step computes the expected sufficient statistics
``E(N_ijk | theta)`` of paper 003 Eq. 11 (see :mod:`hiddenbn.inference.enumeration`) and the M step
is the MAP update below Eq. 11,

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
implementing :class:`EMEngine`, plus a line in :func:`make_engine` when it is a network that
:func:`fit` should choose (then it implements :class:`NetworkEngine`), or passed to
:func:`fit_engine`.

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
(:attr:`EMResult.final_log_posteriors`), so a fit can say how many of them reached its best
(:attr:`Fit.best_found`, within :data:`REPLICATION_TOLERANCE`), as poLCA's authors advise and
Mplus reports ("the best loglikelihood value has been replicated"). Halving runs one start to
the end, so it cannot tell.

The stopping rule is one of :data:`CONVERGENCE`: ``"relative"``, ``|g_t - g_{t-1}| <=
tolerance |g_{t-1}|`` (paper 003), or ``"absolute"``, ``|g_t - g_{t-1}| <= tolerance`` (poLCA's
``tol`` on the log-likelihood). The two protocols are :class:`Stopping` values:
:data:`PAPER_003` (relative 1e-5, all 200 iterations) and :data:`OPTIMUM` (absolute 1e-10, up to
10000 iterations, stopping once converged), which reaches the mode up to the last digits.

EM creeps along directions the data identify weakly: on a tree of 16 ternary hidden nodes over
60 binary leaves (N = 5000) it is still far from the tolerance after 10000 iterations. The
final phase is therefore accelerated by default (:data:`ACCELERATION`, one of
:data:`ACCELERATIONS`): ``"squarem"`` extrapolates along the last two EM steps (SQUAREM, scheme
S3 of Varadhan & Roland 2008, :meth:`_Run.extrapolate`) and keeps the jump only where it does
not lower g, so g still never decreases; ``"none"`` is plain EM, the papers' protocol. Every
engine takes part: it declares its state as one vector of parameters and back
(:meth:`EMEngine.to_vector`, :meth:`EMEngine.from_vector`). An iteration is one E step in
both, so ``max_iterations`` is the same budget and the counts compare.

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
from typing import Protocol, runtime_checkable

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
from hiddenbn.learning.split_merge import split_merge
from hiddenbn.models.network import Network, check_parameters, random_parameters
from hiddenbn.scores.approximations import dirichlet_log_normalizer
from hiddenbn.util import defaults, limits
from hiddenbn.util.defaults import (ACCELERATION, ACCELERATIONS, CONVERGENCE, ENGINE_SCHEDULES,
                                    PRIOR_ALPHA, RESTARTS, SCHEDULE, SCHEDULES)

#: Halvings of a SQUAREM step length towards plain EM's (-1) while the extrapolated point is
#: outside the parameter space (a negative probability); then the cycle takes the plain step.
SQUAREM_HALVINGS = 20
#: Factor by which the bound of SQUAREM's step length grows after a jump accepted at the bound
#: and shrinks after one rejected there (from 1, plain EM's; the SQUAREM package's ``mstep``).
SQUAREM_BOUND_FACTOR = 4.0
#: E steps a SQUAREM cycle may take after its first plain step (a rejected jump: at the jump,
#: after the stabilising step, and at the plain second step); with fewer left under
#: ``max_iterations`` the final phase takes plain steps, so it never passes the cap.
SQUAREM_MOST_STEPS = 3
#: Floor of ``|g|`` in the relative convergence rule (looked up once: it is read every iteration).
TINY = np.finfo(float).tiny
#: Two searches found the same fit when their final g differ by at most this many nats: a
#: likelihood ratio of 1.01, too small to change any score's choice between models, while two
#: runs into one mode end far closer under the default stopping rule (:data:`OPTIMUM` stops at
#: a change of 1e-10 per iteration). Distinct modes may come closer (0.04 nats apart on paper
#: 003's c = 32 data, docs/SEARCH.md), but then they fit equally well for every purpose here.
#: Runs stopped by the iteration cap, or by a loose tolerance, may differ by more.
REPLICATION_TOLERANCE = 0.01
# CONVERGENCE, the stopping rules of the final phase (:meth:`_Run.converge`: the change of g
# within ``tolerance |g|``, paper 003, or within ``tolerance``, poLCA), ENGINE_SCHEDULES (of
# :func:`fit_engine`, any engine), SCHEDULES (of :func:`fit`, network engines), ACCELERATIONS
# and the default ACCELERATION of the final phase are imported from hiddenbn.util.defaults, where
# the command line reads them without importing numba.


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


def check_alpha(alpha: float) -> None:
    """Refuse a Dirichlet parameter the MAP update cannot use: below 1 the mode of a row with
    a zero count is on the boundary, and the update of paper 003 gives a negative value."""
    if not alpha >= 1.0:
        raise ParameterError(f"the MAP M step needs a Dirichlet alpha of at least 1 (1 gives ML), "
                             f"got {alpha}; give an alpha (--prior-alpha) of 1 or more")
    limits.check_dirichlet_alpha(alpha, ParameterError)


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
    """Expected sufficient statistics of one E step (in the engine's layout) and the
    log-likelihood it yields."""

    expected: object
    log_likelihood: float


@runtime_checkable
class EMEngine(Protocol):
    """A model family as EM sees it: what :func:`fit_engine` needs to fit it.

    The *state* is the family's parameters in the form its steps want (a list of CPTs, packed
    arrays, a vector of rates, ...); the driver only passes it from one step to the next. The
    objective is ``g(state) = e_step(state).log_likelihood + log_prior(state)``, the log
    posterior up to a constant (paper 003, above Eq. 7). The driver's default stopping rule is
    relative to g, so an engine whose parameters are part of a larger model (the mechanisms of
    an interaction model, whose observed causes are fitted in closed form) reports g of its
    part.
    """

    def random_state(self, rng: np.random.Generator):
        """A starting state drawn from ``rng`` (the driver's only use of it)."""

    def e_step(self, state) -> Statistics:
        """The E step at ``state``.

        Returns
        -------
        Statistics
            ``expected``: the expected sufficient statistics given the data (for CPTs, the
            counts ``E(N_ijk | theta)`` of paper 003 Eq. 11, in whatever layout ``m_step``
            reads); ``log_likelihood``: ``log p(D | state)``.
        """

    def m_step(self, statistics: Statistics, state):
        """The M step: the state maximising the expected complete-data log posterior.

        For CPTs under Dirichlet(alpha) priors this is the MAP update below paper 003 Eq. 11
        (:func:`map_update`). ``state`` is the current state: where the update is undefined
        (no expected data) its value is kept, so g never decreases. Returns a new state and
        leaves ``state`` unchanged.
        """

    def log_prior(self, state) -> float:
        """``log p(state)``, the prior part of g: 0 for ML; possibly up to an additive constant
        (the Dirichlet normaliser) for an engine of part of a model, see the class."""

    def to_vector(self, state) -> np.ndarray:
        """The parameters of ``state`` as one new 1-d float array, in a fixed order: the
        coordinates in which SQUAREM extrapolates (:meth:`_Run.extrapolate`)."""

    def from_vector(self, vector: np.ndarray, like):
        """The state whose parameters are ``vector`` (:meth:`to_vector`'s order), laid out as
        the state ``like``; ``None`` when ``vector`` is outside the parameter space.

        SQUAREM's extrapolated points are affine combinations of states (coefficients adding
        up to 1), so a row of probabilities still sums to 1 but may hold a negative entry, and
        a variance may be negative: such a point has no state, and the driver moves the jump
        back towards plain EM.
        """


@runtime_checkable
class NetworkEngine(EMEngine, Protocol):
    """An engine of a whole discrete network with Dirichlet(``alpha``) CPT priors, whose fit
    :func:`fit` and :func:`run_em` return as a :class:`Fit` (here g is the full log
    posterior)."""

    network: Network
    alpha: float
    #: How the E step is computed, for reports ("enumeration", "message passing (tree)", ...).
    name: str

    def from_cpts(self, cpts):
        """The state holding ``cpts`` (network order, ``None`` for deterministic nodes)."""

    def to_cpts(self, state) -> list:
        """The CPTs of ``state`` in network order (``None`` for deterministic nodes)."""

    def expected_counts(self, statistics: Statistics) -> list:
        """``E(N_ijk | theta)`` per node in network order, ``None`` for deterministic nodes
        (what the scores of :mod:`hiddenbn.scores.approximations` need)."""


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
    """:func:`map_update` of both latent class tables in one pass (the numpy version's set-up
    costs more than the work on small data, where EM takes thousands of ~50 us iterations)."""
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
    (:attr:`NetworkEngine.name`); ``acceleration`` is that of the final phase (one of
    :data:`ACCELERATIONS`); ``final_log_posteriors`` the final g of every search
    (:attr:`EMResult.final_log_posteriors`; the best one's is ``log_posterior``).
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


@numba.njit(cache=True, nogil=True)
def _squared_norms(first, second):
    """``(sum first^2, sum second^2)``, added in index order: the same last bits on any number
    of threads (a BLAS dot product splits its sum by thread)."""
    total_first, total_second = 0.0, 0.0
    for i in range(first.size):
        total_first += first[i] * first[i]
        total_second += second[i] * second[i]
    return total_first, total_second


def squarem_step_length(change, curvature) -> float:
    """The step length of SQUAREM's scheme S3 (Varadhan & Roland 2008):
    ``-|change| / |curvature|``, at most -1 (-1 is plain EM's two steps; also where the
    curvature is 0 or the ratio is not a number)."""
    squared_change, squared_curvature = _squared_norms(change, curvature)
    if not squared_curvature > 0:
        return -1.0
    length = -math.sqrt(squared_change / squared_curvature)
    return length if length < -1.0 else -1.0


class _Run:
    """One EM trajectory: the current state, its E-step statistics and g; with the SQUAREM
    jumps it kept and rejected (:meth:`extrapolate`)."""

    def __init__(self, engine: EMEngine, state):
        self.engine = engine
        self.move_to(state)
        self.longest_jump = 1.0  # the bound of |SQUAREM's step length| (:meth:`extrapolate`)
        self.jumps_kept = self.jumps_rejected = 0

    def move_to(self, state) -> float:
        """Make ``state`` current: its E step and g; returns g."""
        self.state = state
        self.statistics = self.engine.e_step(state)
        self.g = self.statistics.log_likelihood + self.engine.log_prior(state)
        return self.g

    def step(self) -> float:
        """One M step then one E step; returns the new g."""
        return self.move_to(self.engine.m_step(self.statistics, self.state))

    def extrapolate(self, start) -> int:
        """The rest of a SQUAREM cycle (Varadhan & Roland 2008, scheme S3), whose first EM step
        went from ``start`` to the current state; returns the E steps it took (1 to 3).

        With ``x0 = start``, ``x1`` the current state and ``x2`` its M step, ``r = x1 - x0``,
        ``v = x2 - 2 x1 + x0`` and the step length ``a`` of :func:`squarem_step_length`, the
        jump goes to ``x0 - 2 a r + a^2 v`` (``a = -1`` gives ``x2``). Its coefficients add up
        to 1, so every row of probabilities still sums to 1; while an entry is negative (the
        engine's :meth:`~EMEngine.from_vector` gives no state) ``a`` moves half-way towards
        -1, at most :data:`SQUAREM_HALVINGS` times. One EM step from the jump stabilises it
        (S3's last step); it is kept only if its g is at least that of ``x1``, so a cycle never
        ends below a plain EM step and g never decreases. Otherwise, and where no jump
        remains, the cycle ends at ``x2``, plain EM's second step.

        ``|a|`` is bounded, as in the SQUAREM package: from 1 (plain EM), the bound grows
        :data:`SQUAREM_BOUND_FACTOR`-fold whenever a cycle takes a step at it, and a rejected
        jump of length ``a`` sets it to ``|a| / SQUAREM_BOUND_FACTOR`` (at least 1). Unbounded,
        S3's length reached thousands where g is flat, and hundreds of such jumps in a row
        were rejected.
        """
        engine = self.engine
        first_g = self.g
        second = engine.m_step(self.statistics, self.state)
        x0, x1 = engine.to_vector(start), engine.to_vector(self.state)
        change, curvature = x1 - x0, engine.to_vector(second) - 2 * x1 + x0
        length = max(squarem_step_length(change, curvature), -self.longest_jump)
        jump = None
        for _ in range(SQUAREM_HALVINGS):
            if length == -1.0:
                break
            jump = engine.from_vector(x0 - 2 * length * change + length**2 * curvature, start)
            if jump is not None:
                break
            length = (length - 1.0) / 2
        at_bound = length == -self.longest_jump
        if jump is not None:
            self.move_to(jump)
            if self.step() >= first_g:  # False for NaN: a jump where the data are impossible
                self.jumps_kept += 1
                self.longest_jump *= SQUAREM_BOUND_FACTOR if at_bound else 1.0
                return 2
            self.jumps_rejected += 1
            self.longest_jump = max(1.0, -length / SQUAREM_BOUND_FACTOR)
        elif at_bound:  # plain EM's two steps at a bound of 1
            self.longest_jump *= SQUAREM_BOUND_FACTOR
        self.move_to(second)
        return 1 if jump is None else 3

    def converge(self, max_iterations: int, tolerance: float, run_all: bool = False,
                 convergence: str = "relative", acceleration: str = "none"):
        """Iterate until ``|g_t - g_{t-1}| <= tolerance * |g_{t-1}|`` (``convergence =
        "relative"``) or ``<= tolerance`` (``"absolute"``) over an EM step (with ``run_all``:
        for all ``max_iterations``, converged when the last change is within the tolerance);
        (iterations, converged, trace).

        With ``acceleration="squarem"`` each EM step that does not stop the run is the first
        of a SQUAREM cycle (:meth:`extrapolate`); an iteration is still one E step, and
        ``trace`` holds g after every cycle (every step of plain EM).
        """
        relative = convergence == "relative"
        accelerate = acceleration == "squarem"
        trace, small, iteration = [], False, 0
        while iteration < max_iterations:
            start, previous = self.state, self.g
            self.step()
            iteration += 1
            change = abs(self.g - previous)
            small = change <= tolerance * (max(abs(previous), TINY) if relative else 1.0)
            if small and not run_all:
                trace.append(self.g)
                return iteration, True, trace
            if accelerate and max_iterations - iteration >= SQUAREM_MOST_STEPS:
                iteration += self.extrapolate(start)
            trace.append(self.g)
        return max_iterations, small, trace


@dataclass
class EMResult:
    """The winning run of :func:`fit_engine` and how its final phase ended.

    ``run`` holds the engine's ``state``, its E-step ``statistics`` and ``g``; ``trace`` holds g
    after every iteration of the final phase (every SQUAREM cycle under ``acceleration``
    ``"squarem"``); ``final_log_posteriors`` the final g of every start that ran to the end, in
    the order of the starts (all of them for best-of-n, the winner alone for halving): the
    independent searches whose agreement a fit reports.
    """

    run: _Run
    iterations: int
    converged: bool
    trace: list
    acceleration: str
    final_log_posteriors: list = field(default_factory=list)


def _final_phase(run: _Run, max_iterations: int, tolerance: float, run_all: bool,
                 convergence: str, acceleration: str) -> EMResult:
    """``run`` iterated to convergence (:meth:`_Run.converge`), the one search of its result."""
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
        SQUAREM cycles (Varadhan & Roland 2008; :meth:`_Run.extrapolate`), or plain EM, the
        papers' protocol. An iteration is one E step either way.
    """
    _check_search(schedule, ENGINE_SCHEDULES, restarts, convergence, max_iterations,
                  tolerance, acceleration)
    draw = engine.random_state if draw is None else draw
    runs = [_Run(engine, draw(rng)) for _ in range(restarts)]
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
    :func:`fit`, with its prior, stopping and ``acceleration`` keywords and their defaults). Started from the parameters
    that generated the data, it is the oracle that shows whether a search found the mode near
    the truth."""
    check_convergence(convergence)
    check_acceleration(acceleration)
    engine = make_engine(network, data, alpha)
    run = _Run(engine, engine.from_cpts(check_parameters(network, cpts)))
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
