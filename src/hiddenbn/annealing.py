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
joint hidden configurations and ``n`` nodes (the kernels of :mod:`hiddenbn.collapsed`, which
also serve the sequential Monte-Carlo sampler). ``beta`` rises geometrically from
:data:`BETA_START` to 1 over the first half of the sweeps and from 1 to :data:`BETA_END` over
the second (or until a sweep moves no case), then greedy sweeps (``beta = inf``) run until no
case moves. The best completion
seen gives EM its start, ``theta_ijk = (N_ijk + 1) / (N_ij + r_i)`` (no zero probabilities).

Why the classification likelihood and not the collapsed Bayesian-Dirichlet score of paper 003
Eq. 5 (which the SMC sampler uses): the Occam factor of Eq. 5 empties and merges small classes,
and EM from those completions ended 23-203 nats below EM from the classification-likelihood
completions on the c = 32 data sets (docs/SEARCH.md has the measurements).
"""

from __future__ import annotations

import numba
import numpy as np

from hiddenbn.collapsed import configuration_log_predictive, draw, update
from hiddenbn.data import Dataset
from hiddenbn.evidence import cell_layout
from hiddenbn.models import Network

#: Inverse temperature of the first annealing sweep (moves that lose 2 nats keep e^-1 odds).
BETA_START = 0.5
#: Inverse temperature of the last annealing sweep before the greedy ones.
BETA_END = 20.0
#: Annealing sweeps over the cases per start (then greedy sweeps, at most
#: :data:`MAX_GREEDY_SWEEPS`).
SWEEPS = 200
MAX_GREEDY_SWEEPS = 50
#: Cases whose random first configurations are drawn at once (bounds the memory).
DRAW_CHUNK_CASES = 1 << 16


def inverse_temperatures(sweeps: int) -> np.ndarray:
    """The annealing schedule: ``BETA_START -> 1`` over the first half, ``1 -> BETA_END`` over
    the second, geometrically."""
    first = sweeps // 2
    return np.concatenate([np.geomspace(BETA_START, 1.0, first, endpoint=False),
                           np.geomspace(1.0, BETA_END, sweeps - first)])


@numba.njit(cache=True)
def _sweep(assignments, counts, row_counts, case_patterns, cells, possible, row_of_cell,
           row_kind, gain, row_gain, beta, uniforms):
    """Redraw every case's configuration in turn at inverse temperature ``beta`` (``inf``:
    the best, the lowest index among ties); returns how many cases moved."""
    log_q = np.empty(cells.shape[1])
    moved = 0
    for case in range(case_patterns.size):
        p = case_patterns[case]
        old = assignments[case]
        update(counts, row_counts, cells, row_of_cell, p, old, -1)
        top = configuration_log_predictive(log_q, counts, row_counts, p, cells, possible,
                                           row_of_cell, row_kind, gain, row_gain)
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
        update(counts, row_counts, cells, row_of_cell, p, new, 1)
    return moved


class AnnealedStarts:
    """EM starting points for ``network`` on ``data`` from annealed hard completions.

    The cell layout is built once; :meth:`parameters` anneals one completion per call.
    """

    def __init__(self, network: Network, data: Dataset, sweeps: int = SWEEPS):
        self.network = network
        self.layout = cell_layout(network, data)
        data = data.for_network(network)
        self.case_patterns = np.repeat(np.arange(data.n_patterns),
                                       data.counts).astype(np.int64)
        self.betas = inverse_temperatures(sweeps)
        # f(x) = x log x with f(0) = 0, and its increments f(N + 1) - f(N)
        x = np.arange(self.case_patterns.size + 2, dtype=np.float64)
        self.f = np.zeros_like(x)
        self.f[1:] = x[1:] * np.log(x[1:])
        self.gain = np.diff(self.f)
        self.row_kind = np.zeros(self.layout.row_states.size, dtype=np.int64)
        self.possible = np.ascontiguousarray(self.layout.possible)

    def _random_completion(self, rng: np.random.Generator) -> np.ndarray:
        """A configuration per case, uniform among those its pattern allows."""
        out = np.empty(self.case_patterns.size, dtype=np.int64)
        for start in range(0, out.size, DRAW_CHUNK_CASES):
            chunk = self.case_patterns[start:start + DRAW_CHUNK_CASES]
            keys = rng.random((chunk.size, self.possible.shape[1]))
            out[start:start + chunk.size] = np.where(self.possible[chunk], keys, -1.0).argmax(1)
        return out

    def _statistics(self, assignments):
        cells = self.layout.cells[self.case_patterns, assignments]
        counts = np.bincount(cells.ravel(), minlength=self.layout.n_cells).astype(np.int64)
        row_counts = np.bincount(self.layout.row_of_cell, weights=counts,
                                 minlength=self.layout.row_states.size).astype(np.int64)
        return counts, row_counts

    def classification_log_likelihood(self, counts, row_counts) -> float:
        """``L(H) = sum_ijk f(N_ijk) - sum_ij f(N_ij)`` of a completion's counts."""
        return float(self.f[counts].sum() - self.f[row_counts].sum())

    def completion(self, rng: np.random.Generator):
        """The best completion one annealing run visits: ``(counts per cell, L(H))``."""
        layout = self.layout
        assignments = self._random_completion(rng)
        counts, row_counts = self._statistics(assignments)
        row_gain = self.gain[None, :]
        best, best_counts = -np.inf, counts.copy()

        def sweep(beta, uniforms):
            nonlocal best, best_counts
            moved = _sweep(assignments, counts, row_counts, self.case_patterns, layout.cells,
                           self.possible, layout.row_of_cell, self.row_kind, self.gain,
                           row_gain, beta, uniforms)
            value = self.classification_log_likelihood(counts, row_counts)
            if value > best:
                best, best_counts = value, counts.copy()
            return moved

        for beta in self.betas:
            # past beta = 1 a sweep in which no case moves has frozen: only greedy sweeps remain
            if sweep(beta, rng.random(self.case_patterns.size)) == 0 and beta >= 1.0:
                break
        no_uniforms = np.zeros(0)
        for _ in range(MAX_GREEDY_SWEEPS):
            if sweep(np.inf, no_uniforms) == 0:
                break
        return best_counts, best

    def parameters(self, rng: np.random.Generator) -> list:
        """CPTs ``(N_ijk + 1) / (N_ij + r_i)`` of the best annealed completion (``None`` for
        deterministic nodes), a starting point for EM."""
        counts, _ = self.completion(rng)
        cpts = [None] * self.network.n_nodes
        start = 0
        for node in self.layout.stochastic:
            rows = self.network.n_parent_configurations(node)
            states = self.network.cardinalities[node]
            table = counts[start:start + rows * states].reshape(rows, states) + 1.0
            cpts[node] = table / table.sum(axis=1, keepdims=True)
            start += rows * states
        return cpts
