"""Monte-Carlo marginal likelihood: sequential Monte Carlo over collapsed completions.

The quantity is ``p(D | S) = sum_H p(D, H | S)`` (paper 003 Eq. 4), where ``H`` assigns hidden
values to every case and ``p(D, H | S)`` is the complete-data Bayesian-Dirichlet score (Eq. 5).
The parameters are integrated out analytically ("collapsed"), so particles carry only hidden
assignments and their sufficient statistics.

The sampler (resample-move SMC with data annealing; Chopin 2002, MacEachern, Clyde & Liu 1999)
    Cases are added one at a time in a random order, which is the prequential factorisation of
    paper 003 Sec. 2 (Dawid): ``p(D | S) = prod_l p(x_l | x_1..x_{l-1}, S)``. Each particle
    holds a completion of the first ``l - 1`` cases; adding case ``l`` multiplies its weight by
    the exact Rao-Blackwellised predictive
    ``p(x_l | H_<l, x_<l) = sum_h prod_i (alpha + N_ijk) / (r_i alpha + N_ij)``
    (the cells ``ijk`` that ``(x_l, h)`` touches) and draws ``h_l`` from its exact conditional
    (the optimal proposal: the weight does not depend on the draw). When the effective sample
    size of a run falls below half its particles, the run is resampled (systematic) and every
    particle gets ``moves`` collapsed Gibbs sweeps over the cases added so far, which leave
    ``p(H_<=l | x_<=l)`` invariant. ``prod_l sum_i W_i p_i(x_l)`` is an unbiased estimate of
    ``p(D | S)``.
    ``split_merge`` adds Metropolis-Hastings moves that reallocate every case of two
    configurations at once (:func:`hiddenbn.inference.collapsed.reallocate`): they merge and split
    groups of cases, which single-case Gibbs moves cannot.
Tempering (:func:`tempered_smc_log_evidence`; population annealing)
    The same particles, over every case at once, from ``p(H, D)^0`` (uniform completions) to
    ``p(H, D)^1`` through a schedule of inverse temperatures fixed by a pilot run. A model with
    fewer hidden states than the data's clusters must merge them, and each way of merging is a
    mode; adding the cases commits each run to one while few cases are in, and its runs end
    tens of nats apart. Tempering lets the groups form while the whole posterior is still
    broad, and resampling keeps the heavier ones.
Which sampler
    Measured by ``python -m benchmarks evidence`` on paper 003's data (n = 64, N = 400, c = 32).
    With as many hidden states as clusters the SMC over the cases is the cheaper: its runs agree
    within a nat or two at 64 particles, and four times the particles halve their spread;
    tempering costs three to five times as much for runs hardly closer. With fewer states it is
    the other way round: over the cases the runs spread 20-100 nats (four times the particles
    do not bring them together), by tempering 2-5 nats, and its estimate lies 10-25 nats
    higher. Split-merge moves cost three to six times the Gibbs sweeps and brought the runs no
    closer in either sampler. Neither finds every mode: at 4 states on c = 16 data, tempering's
    runs agreed within 4 nats on a mode 20 nats below one that an annealed EM search found
    (which one of eight runs over the cases had found), and a few states below c the runs over
    the cases find modes 20 nats above tempering's; the gold standard pools both there
    (:func:`pooled`).
Why not AIS or Chib
    Chib's candidate estimator needs the posterior ordinate at one parameter point, and the
    posterior of a model with a hidden node has ``k!`` label-switched copies of every mode: the
    Rao-Blackwellised ordinate is correct only if the chain visits all of them, and the
    correction (averaging over the ``k!`` relabellings) costs ``k!`` (40320 for ``k = 8``).
    Annealed importance sampling without resampling was unbiased but, for ``n = 32, c = 4, N =
    400``, its independent runs disagreed by ~100 nats after 1000 temperatures: single-site
    Gibbs chains at high ``beta`` freeze in different clusterings and nothing removes the bad
    ones; tempering above resamples. Neither SMC needs an ordinate or a mode labelling, so
    label switching is harmless.
Standard error
    ``runs`` independent runs of ``particles`` particles each, each with its own random streams
    (over the cases, its own case order); each run gives ``log Z_r``; the estimate is ``log
    mean(Z_r)`` and its standard error ``sd(log Z_r) / sqrt(runs)`` (the delta method). The tests
    check it against the exact value of :mod:`hiddenbn.scores.exact` over many seeds, and against
    Eq. 5 when nothing is hidden. The delta method needs runs that agree to well within a nat;
    where they end in different modes it is not the estimate's error
    (:attr:`MonteCarloEvidence.effective_runs`).

Missing cells (:data:`hiddenbn.data.MISSING`, missing at random) are more hidden values: a
case's configuration covers its hidden nodes and its missing cells (the layout of
:func:`hiddenbn.scores.exact.cell_layout`), so the predictive sums them out and the estimate is of
``p(D_obs | S)``.

Random draws come from ``numpy.random.Generator`` streams (one per run) outside the kernels,
or, for the split-merge moves, from a generator per particle seeded from them
(:func:`hiddenbn.inference.collapsed.next_uniform`); particles are updated independently between
resampling steps, so results do not depend on the thread count; the kernels are compiled
without ``fastmath``, so neither on the compiler's choice of summation order
(:mod:`hiddenbn.util.threads`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from scipy.special import gammaln, logsumexp

from hiddenbn.data import Dataset
from hiddenbn.errors import ParameterError
from hiddenbn.inference.collapsed import (collapsed_layout, configuration_log_predictive, draw,
                                          lift, place, reallocate, update)
from hiddenbn.models.network import Network
from hiddenbn.scores.exact import CellLayout, cell_layout
from hiddenbn.util import limits

#: Resample a run when its effective sample size falls below this fraction of its particles.
RESAMPLE_THRESHOLD = 0.5

#: Below this many effective runs an estimate is one or two runs' and its standard error is
#: not its error (:attr:`MonteCarloEvidence.effective_runs`).
FEW_RUNS = 2.0

#: The runs ended in different modes when fewer than this many of them are missing from the
#: effective number (:attr:`MonteCarloEvidence.ended_in_different_modes`): two runs whose log
#: estimates differ by 1.3 nats count as 1.5 runs, so 2 agreeing runs (2.0 effective, or 1.99
#: from a few hundredths of a nat) are one mode, and a single run is never "different modes".
MODES_MARGIN = 0.5


# --- kernels ---------------------------------------------------------------------------------
@numba.njit(cache=True)
def _add_case(assignments, counts, row_counts, terms, log_increments, case_patterns,
              run_of_particle, position, layout, cell_log, row_log, uniforms):
    """Add case ``position`` to every particle: log predictive into ``log_increments``, then
    draw its hidden configuration from the exact conditional."""
    log_q = np.empty(layout.cells.shape[1])
    for particle in range(assignments.shape[0]):
        p = case_patterns[run_of_particle[particle], position]
        top = configuration_log_predictive(log_q, terms[particle], layout, p, -1)
        h, log_increments[particle] = draw(log_q, top, uniforms[particle])
        assignments[particle, position] = h
        update(counts[particle], row_counts[particle], terms[particle], layout, cell_log,
               row_log, p, h, 1)


@numba.njit(cache=True, parallel=True)
def _gibbs_sweeps(movers, assignments, counts, row_counts, terms, case_patterns,
                  run_of_particle, length, layout, cell_log, row_log, uniforms, beta=1.0):
    """Systematic-scan collapsed Gibbs sweeps over cases ``0..length-1`` of the particles in
    ``movers`` (``uniforms[t, sweep, case]``); each case's joint hidden configuration is
    redrawn given all the others, from its conditional under ``p(H, D)^beta``."""
    for t in numba.prange(movers.size):
        particle = movers[t]
        patterns = case_patterns[run_of_particle[particle]]
        log_q = np.empty(layout.cells.shape[1])
        for sweep in range(uniforms.shape[1]):
            for case in range(length):
                p = patterns[case]
                old = assignments[particle, case]
                removed = lift(counts[particle], row_counts[particle], terms[particle],
                               layout, cell_log, row_log, p, old)
                top = configuration_log_predictive(log_q, terms[particle], layout, p,
                                                   removed)
                if beta != 1.0:
                    for h in range(log_q.size):
                        log_q[h] *= beta
                    top *= beta
                h, _ = draw(log_q, top, uniforms[t, sweep, case])
                assignments[particle, case] = h
                place(counts[particle], row_counts[particle], terms[particle], layout,
                      cell_log, row_log, p, old, h, removed)


@numba.njit(cache=True, parallel=True)
def _split_merge_moves(movers, assignments, counts, row_counts, terms, case_patterns,
                       run_of_particle, length, layout, cell_log, row_log, seeds, moves,
                       width=2):
    """``moves`` split-merge moves (:func:`hiddenbn.inference.collapsed.reallocate`) on cases
    ``0..length-1`` of each particle in ``movers``, particle ``t`` drawing from the generator
    seeded with ``seeds[t]``; returns the number accepted."""
    accepted = np.zeros(movers.size, dtype=np.int64)
    for t in numba.prange(movers.size):
        particle = movers[t]
        patterns = case_patterns[run_of_particle[particle]]
        state = seeds[t:t + 1].copy()
        members = np.empty(length, dtype=np.int64)
        old = np.empty(length, dtype=np.int64)
        new = np.empty(length, dtype=np.int64)
        for _ in range(moves):
            accepted[t] += reallocate(assignments[particle], length, patterns, counts[particle],
                                      row_counts[particle], terms[particle], layout, cell_log,
                                      row_log, state, members, old, new, width) != 0.0
    return accepted.sum()


# --- the sampler -----------------------------------------------------------------------------
@dataclass(frozen=True)
class MonteCarloEvidence:
    """An SMC estimate of ``log p(D | S)`` with its standard error over independent runs."""

    log_evidence: float
    standard_error: float
    run_estimates: np.ndarray
    runs: int
    particles: int
    moves: int
    resampling_steps: int
    split_merge: int = 0
    #: Fraction of the split-merge moves accepted (up to the data set's last case).
    split_merge_acceptance: float = np.nan
    #: Inverse temperatures of :func:`tempered_smc_log_evidence` (0: data annealing).
    temperatures: int = 0

    @property
    def effective_runs(self) -> float:
        """Kish's effective number of runs, ``(sum_r Z_r)^2 / sum_r Z_r^2``: how many runs
        carry the estimate ``log mean(Z_r)``.

        Near ``runs`` when the runs agree (spread of ``log Z_r`` well below a nat), and the
        standard error is then the estimate's error. Near 1 when one run's ``Z_r`` dwarfs the
        others: the runs ended in different modes (a model with fewer hidden states than the
        data's clusters merges them in many ways), the estimate is the best run's, and the
        spread of ``log Z_r`` measures how far the other runs fell, not the error of the
        estimate, which the runs cannot give (a mode that no run found is missing from it).
        """
        weights = np.exp(self.run_estimates - self.run_estimates.max())
        return float(weights.sum() ** 2 / (weights ** 2).sum())

    @property
    def ended_in_different_modes(self) -> bool:
        """Whether the estimate rests on few runs (below :data:`FEW_RUNS` effective runs) and
        at least :data:`MODES_MARGIN` of a run below :attr:`runs`: the runs disagree, so their
        spread is not the estimate's error."""
        return self.effective_runs < min(FEW_RUNS, self.runs - MODES_MARGIN)


def _row_kinds(layout: CellLayout):
    """Index of each CPT row's state count among the distinct state counts."""
    kinds, row_kind = np.unique(layout.row_states, return_inverse=True)
    return kinds, row_kind.astype(np.int64)


def _log_sum_exp(values: np.ndarray) -> np.ndarray:
    """``log sum exp`` along the last axis of finite values (scipy's costs ~0.5 ms a call,
    and the sampler makes several per case)."""
    top = values.max(axis=-1)
    return top + np.log(np.exp(values - top[..., None]).sum(axis=-1))


def _systematic_resample(log_weights: np.ndarray, u: float) -> np.ndarray:
    weights = np.exp(log_weights - _log_sum_exp(log_weights))
    positions = (u + np.arange(weights.size)) / weights.size
    return np.minimum(np.searchsorted(np.cumsum(weights), positions), weights.size - 1)


def smc_log_evidence(network: Network, data: Dataset, rng: np.random.Generator,
                     alpha: float = 1.0, runs: int = 8, particles: int = 64,
                     moves: int = 1, split_merge: int = 0) -> MonteCarloEvidence:
    """``log p(D | S)`` by resample-move sequential Monte Carlo over the cases.

    Parameters
    ----------
    network : Network
        A discrete network (hidden and deterministic nodes allowed).
    data : Dataset
        Pattern counts over the observed nodes.
    rng : numpy.random.Generator
        Source of every random draw (spawned into one independent stream per run).
    alpha : float
        Symmetric Dirichlet prior on every CPT row (paper 003 Eq. 3).
    runs : int
        Independent runs; their spread gives the standard error (at least 2).
    particles : int
        Particles per run.
    moves : int
        Gibbs sweeps over the cases seen so far after each resampling.
    split_merge : int
        Split-merge moves (:func:`hiddenbn.inference.collapsed.reallocate`) per particle after each
        resampling, before the Gibbs sweeps.
    """
    return nested_smc_log_evidence(network, [data], rng, alpha, runs, particles, moves,
                                   split_merge)[0]


def _block_counts(data: list[Dataset]) -> list[np.ndarray]:
    """Each nested data set's cases beyond the previous one, as counts over the patterns of
    the largest (``data[-1]``); refuses data sets that are not nested."""
    largest = data[-1]
    index = {tuple(row): i for i, row in enumerate(largest.patterns.tolist())}
    blocks, previous = [], np.zeros(largest.n_patterns, dtype=np.int64)
    for position, subset in enumerate(data):
        counts = np.zeros(largest.n_patterns, dtype=np.int64)
        for row, count in zip(subset.patterns.tolist(), subset.counts.tolist()):
            if tuple(row) not in index:
                raise ParameterError(f"nested data sets: data set {position + 1} has a case "
                                     "the largest lacks; pass prefixes of one sample, "
                                     "smallest first")
            counts[index[tuple(row)]] = count
        if np.any(counts < previous):
            raise ParameterError(f"nested data sets: data set {position + 1} lacks cases of "
                                 f"data set {position}; pass prefixes of one sample, smallest "
                                 "first")
        blocks.append(counts - previous)
        previous = counts
    return blocks


def nested_smc_log_evidence(network: Network, data: list[Dataset], rng: np.random.Generator,
                            alpha: float = 1.0, runs: int = 8, particles: int = 64,
                            moves: int = 1, split_merge: int = 0) -> list[MonteCarloEvidence]:
    """``log p(D_k | S)`` of every data set of a nested sequence ``D_1 ⊂ D_2 ⊂ ...`` (prefixes
    of one sample, smallest first) from one SMC pass over the largest.

    Each run adds the cases of ``D_1`` in a random order, then those of ``D_2`` beyond ``D_1``
    in a random order, and so on; the prequential factorisation holds for any order, so the
    product of the predictives up to the last case of ``D_k`` is an unbiased estimate of
    ``p(D_k | S)``, with the same sampler as :func:`smc_log_evidence` (whose arguments these
    are). Every prefix's estimate costs what the largest's does alone, where separate passes
    cost the sum over the prefixes (twice the largest for sizes that double). The estimates of
    different prefixes share their runs, so their errors are correlated, as the data sets are.
    With one data set this is :func:`smc_log_evidence`.
    """
    if runs < 2:
        raise ParameterError(f"a standard error needs at least 2 independent runs, got {runs}")
    if particles < 1 or moves < 0 or split_merge < 0:
        raise ParameterError("need at least one particle per run and non-negative numbers of "
                             "Gibbs sweeps and split-merge moves")
    limits.check_dirichlet_alpha(alpha, ParameterError)
    if not data:
        raise ParameterError("need at least one data set")
    data = [subset.for_network(network) for subset in data]
    blocks = _block_counts(data)
    largest = data[-1]
    layout = cell_layout(network, largest)
    kinds, row_kind = _row_kinds(layout)
    n_cases = largest.n_cases
    ends = np.cumsum([block.sum() for block in blocks])
    counts_axis = np.arange(n_cases + 1, dtype=np.float64)
    cell_log = np.log(alpha + counts_axis)
    row_log = np.log(kinds[:, None] * alpha + counts_axis[None, :])
    streams = rng.spawn(runs)
    block_cases = [np.repeat(np.arange(largest.n_patterns), block).astype(np.int64)
                   for block in blocks]
    case_patterns = np.stack([np.concatenate([stream.permutation(cases)
                                              for cases in block_cases])
                              for stream in streams])
    total = runs * particles
    run_of_particle = np.repeat(np.arange(runs), particles).astype(np.int64)
    assignments = np.zeros((total, n_cases), dtype=np.int64)
    counts = np.zeros((total, layout.n_cells), dtype=np.int64)
    row_counts = np.zeros((total, layout.row_states.size), dtype=np.int64)
    # log(alpha + N_ijk) - log(r_i alpha + N_ij) of every cell, kept current by the kernels
    collapsed = collapsed_layout(layout, row_kind)
    terms = np.tile(collapsed.terms(counts[0], row_counts[0], cell_log, row_log), (total, 1, 1))
    log_weights = np.zeros((runs, particles))
    log_evidence = np.zeros(runs)
    at_ends = {}
    log_increments = np.zeros(total)
    resampling_steps = proposed = accepted = 0
    for position in range(n_cases):
        uniforms = np.concatenate([stream.random(particles) for stream in streams])
        _add_case(assignments, counts, row_counts, terms, log_increments, case_patterns,
                  run_of_particle, position, collapsed, cell_log, row_log, uniforms)
        increments = log_increments.reshape(runs, particles)
        normalised = log_weights - _log_sum_exp(log_weights)[:, None]
        log_evidence += _log_sum_exp(normalised + increments)
        log_weights += increments
        if position + 1 in ends:
            at_ends[position + 1] = (log_evidence.copy(), resampling_steps, proposed, accepted)
        ess = np.exp(2 * _log_sum_exp(log_weights) - _log_sum_exp(2 * log_weights))
        weak = np.flatnonzero(ess < RESAMPLE_THRESHOLD * particles)
        if weak.size == 0 or position == n_cases - 1:
            continue
        resampling_steps += 1
        movers = []
        for run in weak:
            members = run * particles + np.arange(particles)
            chosen = members[_systematic_resample(log_weights[run], streams[run].random())]
            assignments[members, :position + 1] = assignments[chosen, :position + 1]
            counts[members] = counts[chosen]
            row_counts[members] = row_counts[chosen]
            terms[members] = terms[chosen]
            log_weights[run] = 0.0
            movers.append(members)
        movers = np.concatenate(movers)
        if split_merge:
            seeds = np.concatenate([streams[run].integers(0, 2 ** 63, particles, dtype=np.uint64)
                                    for run in weak])
            proposed += movers.size * split_merge
            accepted += _split_merge_moves(movers, assignments, counts, row_counts, terms,
                                           case_patterns, run_of_particle, position + 1,
                                           collapsed, cell_log, row_log, seeds, split_merge)
        if moves:
            sweep_uniforms = np.concatenate([streams[run].random((particles, moves,
                                                                  position + 1))
                                             for run in weak])
            _gibbs_sweeps(movers, assignments, counts, row_counts, terms, case_patterns,
                          run_of_particle, position + 1, collapsed, cell_log, row_log,
                          sweep_uniforms)
    return [_estimate(*at_ends.get(end, (np.zeros(runs), 0, 0, 0)), runs, particles, moves,
                      split_merge) for end in ends]


#: A tempering schedule's step keeps this conditional effective sample size (Zhou, Johansen &
#: Aston 2016) in the pilot population: the usual 0.9 to 0.95; measured on paper 003's data
#: (``python -m benchmarks evidence``), finer steps did not bring the runs closer.
TEMPERING_CESS = 0.9
#: Inverse-temperature steps a schedule may take (a pilot that needs more is refused).
MAX_TEMPERATURES = 5000


@numba.njit(cache=True, parallel=True)
def _log_joints(counts, row_counts, row_kind, cell_lgamma, row_lgamma, out):
    """``log p(H, D)`` (Eq. 5) of every particle's completion from its counts, by tables of
    ``log Gamma(alpha + N) - log Gamma(alpha)`` per cell and ``log Gamma(r alpha + N) - log
    Gamma(r alpha)`` per row kind."""
    for i in numba.prange(counts.shape[0]):
        value = 0.0
        for cell in range(counts.shape[1]):
            value += cell_lgamma[counts[i, cell]]
        for row in range(row_counts.shape[1]):
            value -= row_lgamma[row_kind[row], row_counts[i, row]]
        out[i] = value


class _Population:
    """The particles of independent runs over every case of a data set: completions drawn
    uniformly among each case's possible configurations, their counts, and the terms the
    collapsed kernels keep current (:mod:`hiddenbn.inference.collapsed`)."""

    def __init__(self, network: Network, data: Dataset, alpha: float, particles: int,
                 streams: list):
        data = data.for_network(network)
        layout = cell_layout(network, data)
        kinds, row_kind = _row_kinds(layout)
        self.collapsed = collapsed_layout(layout, row_kind)
        self.row_kind = row_kind
        cases = np.repeat(np.arange(data.n_patterns), data.counts).astype(np.int64)
        self.case_patterns = cases[None, :]
        axis = np.arange(cases.size + 1, dtype=np.float64)
        self.cell_log = np.log(alpha + axis)
        self.row_log = np.log(kinds[:, None] * alpha + axis[None, :])
        self.cell_lgamma = gammaln(alpha + axis) - gammaln(alpha)
        prior = kinds[:, None] * alpha
        self.row_lgamma = gammaln(prior + axis[None, :]) - gammaln(prior)
        possible = layout.possible[cases]
        choices = possible.sum(axis=1)
        #: log of the number of completions, the normaliser of the uniform start (beta = 0)
        self.log_start = float(np.log(choices).sum())
        first_possible = np.argsort(~possible, axis=1, kind="stable")
        self.streams, self.particles = streams, particles
        self.assignments = np.concatenate([
            np.take_along_axis(first_possible, np.minimum(
                (stream.random((particles, cases.size)) * choices).astype(np.int64),
                choices - 1).T, axis=1).T for stream in streams])
        total = self.assignments.shape[0]
        self.counts = np.stack([np.bincount(layout.cells[cases, completion].ravel(),
                                            minlength=layout.n_cells)
                                for completion in self.assignments]).astype(np.int64)
        self.row_counts = np.add.reduceat(self.counts, layout.row_starts, axis=1)
        self.terms = np.stack([self.collapsed.terms(counts, row_counts, self.cell_log,
                                                    self.row_log)
                               for counts, row_counts in zip(self.counts, self.row_counts)])
        self.run_of_particle = np.zeros(total, dtype=np.int64)  # every run: the same cases
        self.movers = np.arange(total, dtype=np.int64)

    def log_joints(self) -> np.ndarray:
        """``log p(H, D)`` of every particle, shape ``(runs, particles)``."""
        out = np.empty(self.assignments.shape[0])
        _log_joints(self.counts, self.row_counts, self.row_kind, self.cell_lgamma,
                    self.row_lgamma, out)
        return out.reshape(len(self.streams), self.particles)

    def resample(self, run: int, log_weights: np.ndarray) -> None:
        members = run * self.particles + np.arange(self.particles)
        chosen = members[_systematic_resample(log_weights, self.streams[run].random())]
        for array in (self.assignments, self.counts, self.row_counts, self.terms):
            array[members] = array[chosen]

    def sweep(self, beta: float, moves: int) -> None:
        uniforms = np.concatenate([stream.random((self.particles, moves,
                                                  self.case_patterns.shape[1]))
                                   for stream in self.streams])
        _gibbs_sweeps(self.movers, self.assignments, self.counts, self.row_counts, self.terms,
                      self.case_patterns, self.run_of_particle, self.case_patterns.shape[1],
                      self.collapsed, self.cell_log, self.row_log, uniforms, beta)


def _anneal(population: _Population, next_beta, moves: int):
    """Run the population from ``beta = 0`` to 1, each step to ``next_beta(beta, log_weights,
    log_joints)``: weights times ``p(H, D)^(beta' - beta)``, resampling of a run whose
    effective sample size falls below :data:`RESAMPLE_THRESHOLD`, then ``moves`` Gibbs sweeps
    at ``beta'``. Returns each run's ``log Z_r``, the schedule and the resampling steps."""
    runs, particles = len(population.streams), population.particles
    log_weights = np.zeros((runs, particles))
    log_evidence = np.full(runs, population.log_start)
    beta, schedule, resampling_steps = 0.0, [], 0
    while beta < 1.0:
        if len(schedule) == MAX_TEMPERATURES:
            raise ParameterError(f"tempering needs more than {MAX_TEMPERATURES} inverse "
                                 "temperatures; the data set is too large for this sampler")
        joints = population.log_joints()
        new_beta = next_beta(beta, log_weights, joints)
        increments = (new_beta - beta) * joints
        normalised = log_weights - _log_sum_exp(log_weights)[:, None]
        log_evidence += _log_sum_exp(normalised + increments)
        log_weights += increments
        beta = new_beta
        schedule.append(beta)
        if beta == 1.0:
            break
        ess = np.exp(2 * _log_sum_exp(log_weights) - _log_sum_exp(2 * log_weights))
        for run in np.flatnonzero(ess < RESAMPLE_THRESHOLD * particles):
            population.resample(run, log_weights[run])
            log_weights[run] = 0.0
            resampling_steps += 1
        if moves:
            population.sweep(beta, moves)
    return log_evidence, np.array(schedule), resampling_steps


def _cess_step(beta: float, log_weights: np.ndarray, joints: np.ndarray) -> float:
    """The next inverse temperature at which the conditional effective sample size of the
    (single-run) population is :data:`TEMPERING_CESS` of its particles (bisection), or 1."""
    weights = np.exp(log_weights[0] - _log_sum_exp(log_weights[0]))
    joint = joints[0] - joints[0].max()

    def cess(step):
        increments = np.exp(step * joint)
        return (weights @ increments) ** 2 / (weights @ increments ** 2)

    low, high = 0.0, 1.0 - beta
    if cess(high) >= TEMPERING_CESS:
        return 1.0
    for _ in range(60):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if cess(middle) >= TEMPERING_CESS else (low, middle)
    return beta + max(low, np.finfo(float).eps)


def tempering_schedule(network: Network, data: Dataset, rng: np.random.Generator,
                       alpha: float = 1.0, particles: int = 64, moves: int = 1) -> np.ndarray:
    """Increasing inverse temperatures ``beta_t``, from above 0 to ``beta_T = 1``, for
    :func:`tempered_smc_log_evidence`, from a pilot run of ``particles`` particles whose
    steps each keep :data:`TEMPERING_CESS` of its conditional effective sample size. The
    pilot's estimate is discarded: a schedule chosen from the particles of the runs it
    serves would bias their estimate, one fixed in advance does not."""
    population = _Population(network, data, alpha, particles, [rng])
    return _anneal(population, _cess_step, moves)[1]


def tempered_smc_log_evidence(network: Network, data: Dataset, rng: np.random.Generator,
                              alpha: float = 1.0, runs: int = 8, particles: int = 64,
                              moves: int = 1,
                              schedule: np.ndarray | None = None) -> MonteCarloEvidence:
    """``log p(D | S)`` by tempering: SMC from ``beta = 0`` to 1 through the targets
    ``pi_beta(H) ∝ p(H, D | S)^beta`` over completions of every case (population annealing;
    Neal 2001, Del Moral, Doucet & Jasra 2006).

    At ``beta = 0`` the completions are uniform (exact draws, normaliser the number of
    completions); each step multiplies a particle's weight by ``p(H, D)^(beta' - beta)``, whose
    weighted mean is an unbiased estimate of ``Z_beta' / Z_beta``, resamples a run whose
    effective sample size falls below :data:`RESAMPLE_THRESHOLD`, and moves every particle by
    ``moves`` collapsed Gibbs sweeps at ``beta'`` (:mod:`hiddenbn.inference.collapsed`), which leave
    ``pi_beta'`` invariant. At small ``beta`` the posterior is broad and the sweeps move cases
    between groups freely; as ``beta`` rises the groups form, and resampling keeps the
    particles in the heavier ones. Adding the cases one at a time instead
    (:func:`smc_log_evidence`) commits each run to a way of merging the data's clusters while
    few cases are in, which a model with fewer hidden states than clusters cannot undo: there
    its runs disagree by tens of nats where these agree within a few (``python -m benchmarks
    evidence``). Where the model has as many states as clusters, adding the cases costs less
    for the same agreement.

    ``schedule`` is the inverse temperatures (ending at 1); without it a pilot run
    (:func:`tempering_schedule`, its own random stream) sets it. Other arguments as
    :func:`smc_log_evidence`; nested data sets are not supported.
    """
    if runs < 2:
        raise ParameterError(f"a standard error needs at least 2 independent runs, got {runs}")
    if particles < 1 or moves < 1:
        raise ParameterError("tempering needs at least one particle per run and one Gibbs "
                             "sweep per temperature")
    limits.check_dirichlet_alpha(alpha, ParameterError)
    pilot, *streams = rng.spawn(runs + 1)
    if schedule is None:
        schedule = tempering_schedule(network, data, pilot, alpha, particles, moves)
    schedule = np.asarray(schedule, dtype=float)
    if schedule.size == 0 or schedule[-1] != 1.0 or np.any(np.diff(schedule) <= 0) \
            or schedule[0] <= 0:
        raise ParameterError("a tempering schedule rises strictly from above 0 to 1")
    population = _Population(network, data, alpha, particles, streams)
    steps = iter(schedule)
    log_evidence, _, resampling_steps = _anneal(population, lambda *_: next(steps), moves)
    result = _estimate(log_evidence, resampling_steps, 0, 0, runs, particles, moves, 0)
    return MonteCarloEvidence(**{**result.__dict__, "temperatures": int(schedule.size)})


def pooled(results: list[MonteCarloEvidence]) -> MonteCarloEvidence:
    """The runs of independent estimates of the same ``log p(D | S)`` (by different samplers,
    say) as one: every run's ``Z_r`` is unbiased, so their mean over all runs is too, and a
    sampler that misses a mode the other finds costs the pooled estimate at most the log of
    the share of its runs; :attr:`MonteCarloEvidence.effective_runs` then counts the runs that
    carry it. ``particles``, ``moves`` and ``temperatures`` are the first result's."""
    first = results[0]
    runs = np.concatenate([result.run_estimates for result in results])
    return MonteCarloEvidence(float(logsumexp(runs) - np.log(runs.size)),
                              float(runs.std(ddof=1) / np.sqrt(runs.size)), runs, runs.size,
                              first.particles, first.moves,
                              sum(result.resampling_steps for result in results),
                              temperatures=max(result.temperatures for result in results))


def _estimate(run_estimates, resampling_steps, proposed, accepted, runs, particles, moves,
              split_merge) -> MonteCarloEvidence:
    """``log mean(Z_r)`` and its delta-method standard error ``sd(log Z_r) / sqrt(runs)``."""
    return MonteCarloEvidence(float(logsumexp(run_estimates) - np.log(runs)),
                              float(run_estimates.std(ddof=1) / np.sqrt(runs)),
                              run_estimates, runs, particles, moves, resampling_steps,
                              split_merge, accepted / proposed if proposed else np.nan)
