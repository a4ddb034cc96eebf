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
Why SMC over data, not AIS or Chib
    Chib's candidate estimator needs the posterior ordinate at one parameter point, and the
    posterior of a model with a hidden node has ``k!`` label-switched copies of every mode: the
    Rao-Blackwellised ordinate is correct only if the chain visits all of them, and the
    correction (averaging over the ``k!`` relabellings) costs ``k!`` (40320 for ``k = 8``).
    We first built annealed importance sampling with likelihood tempering: it is unbiased, but
    for ``n = 32, c = 4, N = 400`` independent runs disagreed by ~100 nats after 1000
    temperatures, because single-site Gibbs chains at high ``beta`` freeze in different
    clusterings and nothing removes the bad ones. Adding data gradually lets the clustering form
    while the posterior is still broad, and resampling removes particles that took a wrong
    turn; both matter for mixtures. No ordinate and no mode labelling are needed, so label
    switching is harmless.
Standard error
    ``runs`` independent runs of ``particles`` particles each, each with its own random case
    order; each run gives ``log Z_r``; the estimate is ``log mean(Z_r)`` and its standard error
    ``sd(log Z_r) / sqrt(runs)`` (the delta method). The tests check it against the exact value
    of :mod:`hiddenbn.evidence` over many seeds, and against Eq. 5 when nothing is hidden. The
    delta method needs runs that agree to well within a nat; where they end in different
    modes it is not the estimate's error (:attr:`MonteCarloEvidence.effective_runs`), and more
    particles per run do not bring them together (``python -m benchmarks evidence``).

Missing cells (:data:`hiddenbn.data.MISSING`, missing at random) are more hidden values: a
case's configuration covers its hidden nodes and its missing cells (the layout of
:func:`hiddenbn.evidence.cell_layout`), so the predictive sums them out and the estimate is of
``p(D_obs | S)``.

Random draws come from ``numpy.random.Generator`` streams (one per run) outside the kernels;
particles are updated independently between resampling steps, so results do not depend on the
thread count; the kernels are compiled without ``fastmath``, so neither on the compiler's choice
of summation order (:mod:`hiddenbn.threads`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from scipy.special import logsumexp

from hiddenbn import limits
from hiddenbn.collapsed import (collapsed_layout, configuration_log_predictive, draw, lift,
                                place, update)
from hiddenbn.data import Dataset
from hiddenbn.errors import ParameterError
from hiddenbn.evidence import CellLayout, cell_layout
from hiddenbn.models import Network

#: Resample a run when its effective sample size falls below this fraction of its particles.
RESAMPLE_THRESHOLD = 0.5

#: Below this many effective runs an estimate is one or two runs' and its standard error is
#: not its error (:attr:`MonteCarloEvidence.effective_runs`).
FEW_RUNS = 2.0


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
                  run_of_particle, length, layout, cell_log, row_log, uniforms):
    """Systematic-scan collapsed Gibbs sweeps over cases ``0..length-1`` of the particles in
    ``movers`` (``uniforms[t, sweep, case]``); each case's joint hidden configuration is
    redrawn given all the others."""
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
                h, _ = draw(log_q, top, uniforms[t, sweep, case])
                assignments[particle, case] = h
                place(counts[particle], row_counts[particle], terms[particle], layout,
                      cell_log, row_log, p, old, h, removed)


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
                     moves: int = 1) -> MonteCarloEvidence:
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
    """
    return nested_smc_log_evidence(network, [data], rng, alpha, runs, particles, moves)[0]


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
                            moves: int = 1) -> list[MonteCarloEvidence]:
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
    if particles < 1 or moves < 0:
        raise ParameterError("need at least one particle per run and a non-negative number of "
                             "Gibbs sweeps")
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
    resampling_steps = 0
    for position in range(n_cases):
        uniforms = np.concatenate([stream.random(particles) for stream in streams])
        _add_case(assignments, counts, row_counts, terms, log_increments, case_patterns,
                  run_of_particle, position, collapsed, cell_log, row_log, uniforms)
        increments = log_increments.reshape(runs, particles)
        normalised = log_weights - _log_sum_exp(log_weights)[:, None]
        log_evidence += _log_sum_exp(normalised + increments)
        log_weights += increments
        if position + 1 in ends:
            at_ends[position + 1] = (log_evidence.copy(), resampling_steps)
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
        if moves:
            sweep_uniforms = np.concatenate([streams[run].random((particles, moves,
                                                                  position + 1))
                                             for run in weak])
            _gibbs_sweeps(movers, assignments, counts, row_counts, terms, case_patterns,
                          run_of_particle, position + 1, collapsed, cell_log, row_log,
                          sweep_uniforms)
    return [_estimate(*at_ends.get(end, (np.zeros(runs), 0)), runs, particles, moves)
            for end in ends]


def _estimate(run_estimates, resampling_steps, runs, particles, moves) -> MonteCarloEvidence:
    """``log mean(Z_r)`` and its delta-method standard error ``sd(log Z_r) / sqrt(runs)``."""
    return MonteCarloEvidence(float(logsumexp(run_estimates) - np.log(runs)),
                              float(run_estimates.std(ddof=1) / np.sqrt(runs)),
                              run_estimates, runs, particles, moves, resampling_steps)
