"""Collapsed moves: a case's hidden configuration given every other case's completion.

With the parameters integrated out under a Dirichlet prior, the probability of completing case
``l`` (observed pattern ``p``) with the joint hidden configuration ``h``, given the completions
of the other cases, depends only on the sufficient statistics ``N_ijk`` of those completions:

    p(x_l, h | H_-l, D_-l) = prod_i (alpha + N_ijk) / (r_i alpha + N_ij)

over the cells ``ijk`` that ``(x_p, h)`` touches (paper 003 Eq. 5, one case at a time). The
kernels below work on the cell layout of :func:`hiddenbn.evidence.cell_layout` with the two
terms read from tables (``cell_log[N]``, ``row_log[kind, N]``); each cell keeps its term net of
its row's, ``cell_log[N_ijk] - row_log[kind_ij, N_ij]``, current as the counts change, so the
predictive reads one value per cell, and the same kernels serve any per-cell gain: the
sequential Monte-Carlo sampler (:mod:`hiddenbn.smc`) uses the log predictive above, the
annealed search (:mod:`hiddenbn.annealing`) the change of the classification log-likelihood.
"""

import math

import numba
import numpy as np


@numba.njit(cache=True)
def draw(log_q, top, u):
    """Turn ``log_q`` into weights in place, draw a configuration with uniform ``u``; return
    ``(configuration, log sum of the weights)``."""
    total = 0.0
    for h in range(log_q.size):
        log_q[h] = math.exp(log_q[h] - top)
        total += log_q[h]
    threshold = u * total
    chosen = -1
    running = 0.0
    for h in range(log_q.size):
        if log_q[h] > 0.0:
            chosen = h  # the last possible configuration absorbs rounding at the top
            running += log_q[h]
            if running > threshold:
                break
    return chosen, top + math.log(total)


@numba.njit(cache=True)
def configuration_log_predictive(log_q, cell_term, p, cells, possible):
    """``log_q[h] = log p(x_p, h | statistics)`` for every configuration; returns the max.

    It reads the net terms that :func:`update` keeps current (``cell_term[c] =
    cell_log[counts[c]] - row_log[row_kind[r], row_counts[r]]`` for the row ``r`` of cell
    ``c``): one read per cell where the tables would take six lookups."""
    top = -np.inf
    for h in range(cells.shape[1]):
        if not possible[p, h]:
            log_q[h] = -np.inf
            continue
        value = 0.0
        for s in range(cells.shape[2]):
            value += cell_term[cells[p, h, s]]
        log_q[h] = value
        top = max(top, value)
    return top


def initial_terms(row_of_cell, row_kind, cell_log, row_log, counts, row_counts):
    """The net term of every cell at the given counts (what :func:`update` keeps current)."""
    return cell_log[counts] - row_log[row_kind[row_of_cell], row_counts[row_of_cell]]


@numba.njit(cache=True)
def update(counts, row_counts, cell_term, cells, row_of_cell, row_starts, row_states, row_kind,
           cell_log, row_log, p, h, delta):
    """Add (``delta = 1``) or remove (``-1``) case pattern ``p`` completed with ``h``: its
    cells' and rows' counts, and the net terms of every cell of the rows it touches (a row's
    count enters each of its cells' terms)."""
    for s in range(cells.shape[2]):
        cell = cells[p, h, s]
        row = row_of_cell[cell]
        counts[cell] += delta
        row_counts[row] += delta
        row_value = row_log[row_kind[row], row_counts[row]]
        for other in range(row_starts[row], row_starts[row] + row_states[row]):
            cell_term[other] = cell_log[counts[other]] - row_value
