"""Collapsed moves: a case's hidden configuration given every other case's completion.

With the parameters integrated out under a Dirichlet prior, the probability of completing case
``l`` (observed pattern ``p``) with the joint hidden configuration ``h``, given the completions
of the other cases, depends only on the sufficient statistics ``N_ijk`` of those completions:

    p(x_l, h | H_-l, D_-l) = prod_i (alpha + N_ijk) / (r_i alpha + N_ij)

over the cells ``ijk`` that ``(x_p, h)`` touches (paper 003 Eq. 5, one case at a time). The
kernels below work on the cell layout of :func:`hiddenbn.evidence.cell_layout` with the two
terms read from tables (``cell_log[N]``, ``row_log[kind, N]``), each cell's and row's term kept
at its current count as the counts change, so the same kernels serve any per-cell gain: the
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
def configuration_log_predictive(log_q, cell_value, row_value, p, cells, possible, row_of_cell):
    """``log_q[h] = log p(x_p, h | statistics)`` for every configuration; returns the max.

    It reads the per-cell and per-row values that :func:`update` keeps current
    (``cell_value[c] = cell_log[counts[c]]``, ``row_value[r] = row_log[row_kind[r],
    row_counts[r]]``): two reads per cell where the tables would take six lookups."""
    top = -np.inf
    for h in range(cells.shape[1]):
        if not possible[p, h]:
            log_q[h] = -np.inf
            continue
        value = 0.0
        for s in range(cells.shape[2]):
            cell = cells[p, h, s]
            value += cell_value[cell] - row_value[row_of_cell[cell]]
        log_q[h] = value
        top = max(top, value)
    return top


@numba.njit(cache=True)
def update(counts, row_counts, cell_value, row_value, cells, row_of_cell, row_kind,
                  cell_log, row_log, p, h, delta):
    """Add (``delta = 1``) or remove (``-1``) case pattern ``p`` completed with ``h``: its
    cells' and rows' counts, and the values :func:`configuration_log_predictive` reads."""
    for s in range(cells.shape[2]):
        cell = cells[p, h, s]
        row = row_of_cell[cell]
        counts[cell] += delta
        row_counts[row] += delta
        cell_value[cell] = cell_log[counts[cell]]
        row_value[row] = row_log[row_kind[row], row_counts[row]]
