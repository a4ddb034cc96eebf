"""What EM works on: the engine interface, one EM run, and the result of a search.

A model family enters EM as an *engine* (:class:`EMEngine`; :class:`NetworkEngine` for a whole
discrete network): its parameters in some form (the engine's *state*), a random starting state,
an E step (:class:`Statistics`), an M step and a log prior. :class:`Run` is one EM trajectory
of an engine: its current state, E step and ``g(theta) = log p(D | theta) + log p(theta)``
(paper 003, above Eq. 7), iterated by plain EM steps or by SQUAREM cycles (Varadhan & Roland
2008, :meth:`Run.extrapolate`) until it converges (:meth:`Run.converge`). :class:`EMResult` is
the run a search kept. The searches that start and compare runs are
:func:`hiddenbn.learning.em.fit_engine` and :func:`hiddenbn.learning.em.fit`; split-and-merge
moves (:mod:`hiddenbn.learning.split_merge`) start runs of their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numba
import numpy as np

from hiddenbn.models.network import Network

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


@dataclass
class Statistics:
    """Expected sufficient statistics of one E step (in the engine's layout) and the
    log-likelihood it yields."""

    expected: object
    log_likelihood: float


@runtime_checkable
class EMEngine(Protocol):
    """A model family as EM sees it: what :func:`~hiddenbn.learning.em.fit_engine` needs to
    fit it.

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
        (:func:`~hiddenbn.models.priors.map_update`). ``state`` is the current state: where the
        update is undefined (no expected data) its value is kept, so g never decreases. Returns a
        new state and leaves ``state`` unchanged.
        """

    def log_prior(self, state) -> float:
        """``log p(state)``, the prior part of g: 0 for ML; possibly up to an additive constant
        (the Dirichlet normaliser) for an engine of part of a model, see the class."""

    def to_vector(self, state) -> np.ndarray:
        """The parameters of ``state`` as one new 1-d float array, in a fixed order: the
        coordinates in which SQUAREM extrapolates (:meth:`Run.extrapolate`)."""

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
    :func:`~hiddenbn.learning.em.fit` and :func:`~hiddenbn.learning.em.run_em` return as a
    :class:`~hiddenbn.learning.em.Fit` (here g is the full log posterior)."""

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


class Run:
    """One EM trajectory: the current state, its E-step statistics and g; with the SQUAREM
    jumps it kept and rejected (:meth:`Run.extrapolate`)."""

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
    """The winning run of :func:`~hiddenbn.learning.em.fit_engine` and how its final phase
    ended.

    ``run`` holds the engine's ``state``, its E-step ``statistics`` and ``g``; ``trace`` holds g
    after every iteration of the final phase (every SQUAREM cycle under ``acceleration``
    ``"squarem"``); ``final_log_posteriors`` the final g of every start that ran to the end, in
    the order of the starts (all of them for best-of-n, the winner alone for halving): the
    independent searches whose agreement a fit reports.
    """

    run: Run
    iterations: int
    converged: bool
    trace: list
    acceleration: str
    final_log_posteriors: list = field(default_factory=list)
