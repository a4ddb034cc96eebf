"""EM starts from annealed hard completions: a search that finds the modes random starts miss.

Paper 003's schedule (64 starts drawn from the uniform Dirichlet, the best half kept after 1,
2, 4, ... iterations) is a literal protocol, not a search that reaches the best mode: for its
c = 32 experiment (64 binary features, N = 400) it ends hundreds of nats of log posterior
below EM started from the generating parameters. The posteriors of those fits are nearly hard
(each case belongs to one class), so what EM must find is a partition of the cases, and
coordinate ascent from a random start cannot move a group of cases from one class to another.

This module searches over hard completions ``H`` (one joint hidden configuration per case)
directly, by simulated annealing of the classification log-likelihood

    L(H) = max_theta log p(D, H | theta) = sum_ijk f(N_ijk) - sum_ij f(N_ij),   f(x) = x log x,

where ``N`` are the counts of the completed data (Celeux & Govaert's classification
likelihood). A move redraws one case's configuration ``h`` with probability proportional to
``exp(beta (L(H with h) - L(H)))``: the change is a sum of ``f(N + 1) - f(N)`` over the cells
the case touches, read from a table, so a sweep over ``N`` cases costs ``O(N H n)`` for ``H``
joint hidden configurations and ``n`` nodes (the kernels of :mod:`hiddenbn.inference.collapsed`,
which also serve the sequential Monte-Carlo sampler). ``beta`` rises geometrically from
:data:`BETA_START` to 1 over the first half of the sweeps and from 1 to :data:`BETA_END` over the
second (or until a sweep moves no case), then greedy sweeps (``beta = inf``) run until no case
moves. The best completion seen gives EM its start, ``theta_ijk = (N_ijk + 1) / (N_ij + r_i)`` (no
zero probabilities). A data set of more than :data:`MAX_ANNEALED_CASES` cases is annealed on that
many of them, drawn afresh for each start, and EM then fits all of them: a sweep costs a pass over
its cases, while the start is only frequencies, which a few thousand cases estimate as well as all.

Missing cells (:data:`hiddenbn.data.MISSING`) are completed like hidden values: a case's
configuration covers its hidden nodes and its missing cells. The general moves enumerate them
together (the configurations of :func:`hiddenbn.scores.exact.cell_layout`); the latent class moves
redraw a case's class jointly with its missing cells, ``q(h) ∝ exp(beta gain(h, observed
cells)) prod_j sum_x exp(beta gain(j, x, h))`` over its missing variables ``j`` (the cells of
one case lie in different rows, so their gains add), then each missing value given the new
class, at a cost of ``sum_j r_j k`` per missing cell instead of ``prod_j r_j``. ``L(H)`` and
the starting point are those of the completed data.

Why the classification likelihood and not the collapsed Bayesian-Dirichlet score of paper 003
Eq. 5 (which the SMC sampler uses): the Occam factor of Eq. 5 empties and merges small classes,
and EM from those completions ended 23-203 nats below EM from the classification-likelihood
completions on the c = 32 data sets (docs/SEARCH.md has the measurements).
"""

from __future__ import annotations

import numba
import numpy as np

from hiddenbn.data import MISSING, Dataset
from hiddenbn.errors import HiddenbnError
from hiddenbn.inference.collapsed import (collapsed_layout, configuration_log_predictive, draw,
                                          lift, place)
from hiddenbn.inference.enumeration import (MAX_HIDDEN_CONFIGURATIONS, hidden_configuration_count,
                                            is_latent_class, state_offsets)
from hiddenbn.models.network import Network
from hiddenbn.scores.exact import cell_layout
from hiddenbn.util.defaults import ANNEALING_SWEEPS
from hiddenbn.util.limits import approximately

#: Inverse temperature of the first annealing sweep (moves that lose 2 nats keep e^-1 odds).
BETA_START = 0.5
#: Inverse temperature of the last annealing sweep before the greedy ones.
BETA_END = 20.0
#: Annealing sweeps over the cases per start (then greedy sweeps, at most
#: :data:`MAX_GREEDY_SWEEPS`); in :mod:`hiddenbn.util.defaults`, which the command line reads.
SWEEPS = ANNEALING_SWEEPS
#: Most greedy sweeps after the annealing sweeps of a start.
MAX_GREEDY_SWEEPS = 50
#: Cases whose random first configurations are drawn at once (bounds the memory).
DRAW_CHUNK_CASES = 1 << 16
#: Most cases one annealing run completes (a random subset of a larger data set, drawn per
#: start): its start's frequencies then err by about 0.01, far less than what separates the
#: modes EM must choose between, and a case-by-case sweep of a 10^5-case survey costs no more
#: than one of 2000 cases. Paper 003's data sets (at most 800 cases) are annealed whole.
MAX_ANNEALED_CASES = 2000


def annealed_cases(n_cases: int, rng: np.random.Generator):
    """The cases (ascending indices) one annealing run completes: ``None`` for all of them, up
    to :data:`MAX_ANNEALED_CASES`; beyond, that many drawn from ``rng`` without replacement."""
    if n_cases <= MAX_ANNEALED_CASES:
        return None
    return np.sort(rng.choice(n_cases, MAX_ANNEALED_CASES, replace=False))


def inverse_temperatures(sweeps: int) -> np.ndarray:
    """The annealing schedule: ``BETA_START -> 1`` over the first half, ``1 -> BETA_END`` over
    the second, geometrically."""
    first = sweeps // 2
    return np.concatenate([np.geomspace(BETA_START, 1.0, first, endpoint=False),
                           np.geomspace(1.0, BETA_END, sweeps - first)])


@numba.njit(cache=True)
def _sweep(assignments, counts, row_counts, terms, case_patterns, layout, gain, row_gain,
           beta, uniforms):
    """Redraw every case's configuration in turn at inverse temperature ``beta`` (``inf``:
    the best, the lowest index among ties); returns how many cases moved."""
    log_q = np.empty(layout.cells.shape[1])
    moved = 0
    for case in range(case_patterns.size):
        p = case_patterns[case]
        old = assignments[case]
        removed = lift(counts, row_counts, terms, layout, gain, row_gain, p, old)
        top = configuration_log_predictive(log_q, terms, layout, p, removed)
        if beta == np.inf:
            new = 0
            while log_q[new] != top:
                new += 1
        else:
            for h in range(log_q.size):
                log_q[h] = beta * (log_q[h] - top)
            new, _ = draw(log_q, 0.0, uniforms[case])
        if new != old:
            moved += 1
        assignments[case] = new
        place(counts, row_counts, terms, layout, gain, row_gain, p, old, new, removed)
    return moved


@numba.njit(cache=True)
def _first_maximum(values):
    """Index of the first largest entry (greedy moves: the lowest index among ties)."""
    top = values.max()
    best = 0
    while values[best] != top:
        best += 1
    return best


@numba.njit(cache=True)
def _soft_maximum(gains, offset, states, h, beta):
    """``(1/beta) log sum_x exp(beta gains[offset + x, h])`` (``beta = inf``: the maximum)."""
    top = -np.inf
    for x in range(states):
        top = max(top, gains[offset + x, h])
    if beta == np.inf:
        return top
    total = 0.0
    for x in range(states):
        total += np.exp(beta * (gains[offset + x, h] - top))
    return top + np.log(total) / beta


@numba.njit(cache=True)
def _sweep_latent_class(assignments, rows, counts, gains, class_sizes, gain, beta, uniforms,
                        missing_starts, missing_variables, offsets, cards):
    """:func:`_sweep` for the latent class model, on its own layout: ``counts[r, h]`` cases of
    class ``h`` with ``offsets[j] + x_j = r``, ``gains[r, h] = gain[counts[r, h]]`` kept up to
    date, so a case's gain for every class is ``(1 - n) gain[N_h]`` plus ``n`` contiguous rows
    of ``gains`` (the rows ``(j, h)`` of the children all have ``N_h`` cases).

    The missing cells of case ``c`` are the variables ``missing_variables[missing_starts[c]:
    missing_starts[c + 1]]`` (ascending); ``rows`` holds their current completion. They are
    redrawn with the class (module docstring), with the uniforms after the cases' ones; a
    case moves when its class or one of them changes."""
    n_cases, n = rows.shape
    k = class_sizes.size
    log_q = np.empty(k)
    log_s = np.empty(cards.max())
    moved = 0
    for case in range(n_cases):
        old = assignments[case]
        first, stop = missing_starts[case], missing_starts[case + 1]
        class_sizes[old] -= 1
        for j in range(n):
            r = rows[case, j]
            counts[r, old] -= 1
            gains[r, old] = gain[counts[r, old]]
        for h in range(k):
            log_q[h] = (1 - n) * gain[class_sizes[h]]
        t = first
        for j in range(n):
            if t < stop and missing_variables[t] == j:  # summed over its values below
                t += 1
                continue
            r = rows[case, j]
            for h in range(k):
                log_q[h] += gains[r, h]
        for t in range(first, stop):
            j = missing_variables[t]
            for h in range(k):
                log_q[h] += _soft_maximum(gains, offsets[j], cards[j], h, beta)
        top = log_q.max()
        if beta == np.inf:
            new = _first_maximum(log_q)
        else:
            for h in range(k):
                log_q[h] = beta * (log_q[h] - top)
            new, _ = draw(log_q, 0.0, uniforms[case])
        changed = new != old
        for t in range(first, stop):  # the missing values given the new class
            j = missing_variables[t]
            states = log_s[:cards[j]]
            for x in range(cards[j]):
                states[x] = gains[offsets[j] + x, new]
            if beta == np.inf:
                x = _first_maximum(states)
            else:
                top = states.max()
                for x in range(cards[j]):
                    states[x] = beta * (states[x] - top)
                x, _ = draw(states, 0.0, uniforms[n_cases + t])
            changed = changed or rows[case, j] != offsets[j] + x
            rows[case, j] = offsets[j] + x
        if changed:
            moved += 1
        assignments[case] = new
        class_sizes[new] += 1
        for j in range(n):
            r = rows[case, j]
            counts[r, new] += 1
            gains[r, new] = gain[counts[r, new]]
    return moved


def _x_log_x(largest: int) -> np.ndarray:
    """``f(x) = x log x`` for ``x = 0..largest`` (``f(0) = 0``)."""
    x = np.arange(largest + 1, dtype=np.float64)
    f = np.zeros_like(x)
    f[1:] = x[1:] * np.log(x[1:])
    return f


class _CellMoves:
    """Single-case moves of any discrete network, on the cell layout of
    :func:`hiddenbn.scores.exact.cell_layout` (the state: a configuration per case and the counts
    of every cell and CPT row)."""

    def __init__(self, network: Network, data: Dataset):
        self.network = network
        self.layout = cell_layout(network, data)
        data = data.for_network(network)
        self.every_case = np.repeat(np.arange(data.n_patterns), data.counts).astype(np.int64)
        self.f = _x_log_x(self.every_case.size + 1)
        self.gain = np.diff(self.f)
        self.collapsed = collapsed_layout(self.layout,
                                          np.zeros(self.layout.row_states.size, dtype=np.int64))
        self.possible = self.collapsed.possible

    def start(self, rng: np.random.Generator) -> None:
        """A configuration per annealed case (:func:`annealed_cases`), uniform among those its
        pattern allows."""
        chosen = annealed_cases(self.every_case.size, rng)
        self.case_patterns = self.every_case if chosen is None else self.every_case[chosen]
        self.uniforms_per_sweep = self.case_patterns.size
        assignments = np.empty(self.case_patterns.size, dtype=np.int64)
        for start in range(0, assignments.size, DRAW_CHUNK_CASES):
            chunk = self.case_patterns[start:start + DRAW_CHUNK_CASES]
            keys = rng.random((chunk.size, self.possible.shape[1]))
            assignments[start:start + chunk.size] = np.where(
                self.possible[chunk], keys, -1.0).argmax(1)
        self.assign(assignments)

    def assign(self, assignments) -> None:
        """Complete every case with its configuration in ``assignments``."""
        self.assignments = np.asarray(assignments, dtype=np.int64).copy()
        cells = self.layout.cells[self.case_patterns, self.assignments]
        self.counts = np.bincount(cells.ravel(),
                                  minlength=self.layout.n_cells).astype(np.int64)
        self.row_counts = np.bincount(self.layout.row_of_cell, weights=self.counts,
                                      minlength=self.layout.row_states.size).astype(np.int64)
        # each cell's gain net of its row's at their counts, kept current by the sweeps
        self.terms = self.collapsed.terms(self.counts, self.row_counts, self.gain,
                                          self.gain[None, :])

    def sweep(self, beta: float, uniforms) -> int:
        return _sweep(self.assignments, self.counts, self.row_counts, self.terms,
                      self.case_patterns, self.collapsed, self.gain, self.gain[None, :],
                      beta, uniforms)

    def value(self) -> float:
        """``L(H) = sum_ijk f(N_ijk) - sum_ij f(N_ij)``."""
        return float(self.f[self.counts].sum() - self.f[self.row_counts].sum())

    def snapshot(self):
        return self.counts.copy()

    def parameters(self, counts) -> list:
        cpts = [None] * self.network.n_nodes
        start = 0
        for node in self.layout.stochastic:
            rows = self.network.n_parent_configurations(node)
            states = self.network.cardinalities[node]
            table = counts[start:start + rows * states].reshape(rows, states) + 1.0
            cpts[node] = table / table.sum(axis=1, keepdims=True)
            start += rows * states
        return cpts


class _LatentClassMoves:
    """The same moves for the latent class model, several times faster
    (:func:`_sweep_latent_class`)."""

    def __init__(self, network: Network, data: Dataset):
        self.network = network
        data = data.for_network(network)
        self.cards = np.asarray(network.cardinalities[1:], dtype=np.int64)
        self.offsets = state_offsets(self.cards)
        # a missing cell's row is set by start (its first completion)
        self.every_row = np.repeat(data.patterns.astype(np.int64) + self.offsets, data.counts,
                                   axis=0)
        self.every_absent = np.repeat(data.patterns == MISSING, data.counts, axis=0)
        self.k = network.cardinalities[0]
        self.f = _x_log_x(self.every_row.shape[0] + 1)
        self.gain = np.diff(self.f)

    def start(self, rng: np.random.Generator) -> None:
        chosen = annealed_cases(self.every_row.shape[0], rng)
        self.rows, absent = ((self.every_row, self.every_absent) if chosen is None else
                             (self.every_row[chosen], self.every_absent[chosen]))
        self.missing_cases, self.missing_variables = np.nonzero(absent)  # case by case
        self.missing_starts = np.concatenate([[0], np.cumsum(absent.sum(axis=1))])
        self.uniforms_per_sweep = self.rows.shape[0] + self.missing_variables.size
        n_cases = self.rows.shape[0]
        self.assignments = rng.integers(0, self.k, n_cases).astype(np.int64)
        if self.missing_variables.size:  # missing cells start uniform, like the classes
            variables = self.missing_variables
            self.rows[self.missing_cases, variables] = (
                self.offsets[variables] + rng.integers(0, self.cards[variables]))
        self.class_sizes = np.bincount(self.assignments, minlength=self.k).astype(np.int64)
        self.counts = np.zeros((int(self.cards.sum()), self.k), dtype=np.int64)
        for j in range(self.rows.shape[1]):
            np.add.at(self.counts, (self.rows[:, j], self.assignments), 1)
        self.gains = self.gain[self.counts]

    def sweep(self, beta: float, uniforms) -> int:
        return _sweep_latent_class(self.assignments, self.rows, self.counts, self.gains,
                                   self.class_sizes, self.gain, beta, uniforms,
                                   self.missing_starts, self.missing_variables, self.offsets,
                                   self.cards)

    def value(self) -> float:
        """``L(H)``: the class node's cells and row, then the children's."""
        n = self.rows.shape[1]
        return float(self.f[self.counts].sum() + (1 - n) * self.f[self.class_sizes].sum()
                     - self.f[self.rows.shape[0]])

    def snapshot(self):
        return self.class_sizes.copy(), self.counts.copy()

    def parameters(self, snapshot) -> list:
        class_sizes, counts = snapshot
        weights = (class_sizes + 1.0) / (class_sizes.sum() + self.k)
        cpts = [weights[None, :]]
        for offset, states in zip(self.offsets, self.cards):
            table = counts[offset:offset + states].T + 1.0
            cpts.append(table / table.sum(axis=1, keepdims=True))
        return cpts


def can_anneal(network: Network) -> bool:
    """Whether the moves can score every joint state of the hidden nodes of ``network``: the
    latent class model always (its own moves), any other network up to
    :data:`~hiddenbn.inference.enumeration.MAX_HIDDEN_CONFIGURATIONS` of them. EM itself has no such
    limit, so :func:`hiddenbn.learning.em.fit` gives the others random starts."""
    return (is_latent_class(network)
            or hidden_configuration_count(network) <= MAX_HIDDEN_CONFIGURATIONS)


class AnnealedStarts:
    """EM starting points for ``network`` on ``data`` from annealed hard completions.

    The layout is built once (the latent class model gets its own, faster moves);
    :meth:`parameters` anneals one completion per call.
    """

    def __init__(self, network: Network, data: Dataset, sweeps: int = SWEEPS):
        self.network = network
        if not can_anneal(network):
            raise HiddenbnError(
                f"the annealed search scores every joint state of the hidden nodes, "
                f"{approximately(hidden_configuration_count(network))} here, at most "
                f"{MAX_HIDDEN_CONFIGURATIONS}; start EM at random points instead")
        self.moves = (_LatentClassMoves if is_latent_class(network) else _CellMoves)(
            network, data)
        self.betas = inverse_temperatures(sweeps)

    def completion(self, rng: np.random.Generator):
        """The best completion one annealing run visits: ``(its counts, L(H))``."""
        moves = self.moves
        moves.start(rng)
        best, best_snapshot = -np.inf, moves.snapshot()

        def sweep(beta, uniforms):
            nonlocal best, best_snapshot
            moved = moves.sweep(beta, uniforms)
            value = moves.value()
            if value > best:
                best, best_snapshot = value, moves.snapshot()
            return moved

        for beta in self.betas:
            # past beta = 1 a sweep in which no case moves has frozen: only greedy sweeps remain
            if sweep(beta, rng.random(moves.uniforms_per_sweep)) == 0 and beta >= 1.0:
                break
        no_uniforms = np.zeros(0)
        for _ in range(MAX_GREEDY_SWEEPS):
            if sweep(np.inf, no_uniforms) == 0:
                break
        return best_snapshot, best

    def parameters(self, rng: np.random.Generator) -> list:
        """CPTs ``(N_ijk + 1) / (N_ij + r_i)`` of the best annealed completion (``None`` for
        deterministic nodes), a starting point for EM."""
        return self.moves.parameters(self.completion(rng)[0])
