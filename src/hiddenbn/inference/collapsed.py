"""Collapsed moves: a case's hidden configuration given every other case's completion.

With the parameters integrated out under a Dirichlet prior, the probability of completing case
``l`` (observed pattern ``p``) with the joint hidden configuration ``h``, given the completions
of the other cases, depends only on the sufficient statistics ``N_ijk`` of those completions::

    p(x_l, h | H_-l, D_-l) = prod_i (alpha + N_ijk) / (r_i alpha + N_ij)

over the cells ``ijk`` that ``(x_p, h)`` touches (paper 003 Eq. 5, one case at a time). The
kernels below work on the cell layout of :func:`hiddenbn.scores.exact.cell_layout` (arranged by
:func:`collapsed_layout`) with the two terms read from tables (``cell_log[N]``,
``row_log[kind, N]``); each cell keeps its term net of its row's, ``cell_log[N_ijk] -
row_log[kind_ij, N_ij]``, current as the counts change, so the predictive reads one value per
cell, and the same kernels serve any per-cell gain: the sequential Monte-Carlo sampler
(:mod:`hiddenbn.scores.smc`) uses the log predictive above, the annealed search
(:mod:`hiddenbn.learning.annealing`) the change of the classification log-likelihood.

A move is :func:`lift`, :func:`configuration_log_predictive`, a draw, :func:`place`.
"""

import math
from typing import NamedTuple

import numba
import numpy as np

#: The net terms :func:`update` keeps for every cell (the first axis of ``terms``): at the
#: counts, at one case fewer in the cell and its row, at one case fewer in its row alone.
FULL, FEWER, FEWER_IN_ROW = 0, 1, 2


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


@numba.njit(cache=True, inline='always')
def configuration_log_predictive(log_q, terms, layout, p, removed):
    """``log_q[h] = log p(x_p, h | statistics)`` for every configuration; returns the max.

    ``terms`` are what :func:`update` keeps current: one read per cell where the tables would
    take six lookups. In a layout of runs (:class:`CollapsedLayout`) the statistics are the
    counts less the case's own completion ``removed`` (``-1``: the case is not among them),
    without touching them (:func:`lift`): its own cells read ``FEWER``, the other cells of the
    rows it touches ``FEWER_IN_ROW``, the rest ``FULL``; node by node, all configurations at
    once, so a run's reads are contiguous. Otherwise configuration by configuration, through
    the cells (``removed`` is -1: :func:`lift` took the case out of the counts). Either way
    each ``log_q[h]`` adds its terms in node order."""
    cells, possible, segment_of, run_start = (layout.cells, layout.possible, layout.segment_of,
                                              layout.run_start)
    top = -np.inf
    if not layout.in_runs:
        full = terms[FULL]
        for h in range(log_q.size):
            if not possible[p, h]:
                log_q[h] = -np.inf
                continue
            value = 0.0
            for s in range(cells.shape[2]):
                value += full[cells[p, h, s]]
            log_q[h] = value
            top = max(top, value)
        return top
    for h in range(log_q.size):
        log_q[h] = 0.0
    removed_value = 0.0
    for s in range(segment_of.shape[1]):
        segment = segment_of[p, s]
        first = run_start[segment]
        kind = FULL
        if removed >= 0:
            removed_value += terms[FEWER, first + removed]
            kind = layout.segment_terms[segment]
        for h in range(log_q.size):
            log_q[h] += terms[kind, first + h]
    if removed >= 0:  # the kinds above read the removed configuration's own cells as FULL
        log_q[removed] = removed_value  # or FEWER_IN_ROW
    for h in range(log_q.size):
        if possible[p, h]:
            top = max(top, log_q[h])
        else:
            log_q[h] = -np.inf
    return top


@numba.njit(cache=True, inline='always')
def lift(counts, row_counts, terms, layout, cell_log, row_log, p, old):
    """Start a move of a case (pattern ``p``, completed with ``old``): returns the ``removed``
    argument of :func:`configuration_log_predictive`, ``old`` in a layout of runs, whose
    predictive leaves the case out by itself, else ``-1`` once the case is out of the counts.
    :func:`place` ends the move."""
    if layout.in_runs:
        return old
    update(counts, row_counts, terms, layout, cell_log, row_log, p, old, -1)
    return -1


@numba.njit(cache=True, inline='always')
def place(counts, row_counts, terms, layout, cell_log, row_log, p, old, new, removed):
    """End a move that :func:`lift` started: the case completed with ``new`` in the counts
    (a move that keeps its configuration in a layout of runs touches nothing)."""
    if removed < 0:
        update(counts, row_counts, terms, layout, cell_log, row_log, p, new, 1)
    elif new != old:
        update(counts, row_counts, terms, layout, cell_log, row_log, p, old, -1)
        update(counts, row_counts, terms, layout, cell_log, row_log, p, new, 1)


@numba.njit(cache=True, inline='always')
def update(counts, row_counts, terms, layout, cell_log, row_log, p, h, delta):
    """Add (``delta = 1``) or remove (``-1``) case pattern ``p`` completed with ``h``: its
    cells' and rows' counts, and the terms of every cell of the rows it touches (a row's
    count enters each of its cells' terms; those at one case fewer in a layout of runs only,
    the one predictive that reads them)."""
    cells, row_of_cell, row_starts, row_states = (layout.cells, layout.row_of_cell,
                                                  layout.row_starts, layout.row_states)
    full = terms[FULL]
    for s in range(cells.shape[2]):
        cell = cells[p, h, s]
        row = row_of_cell[cell]
        counts[cell] += delta
        row_counts[row] += delta
        kind = layout.row_kind[row]
        row_value = row_log[kind, row_counts[row]]
        start, stop = row_starts[row], row_starts[row] + row_states[row]
        if not layout.in_runs:  # cell order, one term
            for other in range(start, stop):
                full[other] = cell_log[counts[other]] - row_value
            continue
        # at one case fewer; never read for an empty row or cell (so clamped at zero there)
        fewer_row_value = row_log[kind, max(row_counts[row], 1) - 1]
        for other in range(start, stop):
            slot = layout.slot_of_cell[other]
            cell_value = cell_log[counts[other]]
            full[slot] = cell_value - row_value
            terms[FEWER, slot] = cell_log[max(counts[other], 1) - 1] - fewer_row_value
            terms[FEWER_IN_ROW, slot] = cell_value - fewer_row_value


class CollapsedLayout(NamedTuple):
    """What the kernels read: a :class:`~hiddenbn.scores.exact.CellLayout` with each row's kind
    (its table in ``row_log``), and where the kernels keep each cell's terms.

    For each stochastic node ``s`` a pattern's cells across the configurations,
    ``cells[p, :, s]``, form a *segment*. In a latent class model every segment is ``H``
    distinct cells (a feature's value under each class; the classes themselves), each in a
    row of its own or all in one row. Numbering the terms so that each segment is a *run*
    of consecutive slots turns the predictive's ``H`` scattered reads per node into one
    contiguous block (about 4x faster at 32 classes), and lets it leave a case out without
    updating the counts: in a Gibbs sweep most cases keep their configuration, and such a
    move then costs no update. Any other network (segments that repeat a cell, overlap, or
    share rows in part: nodes without a hidden parent, under part of a joint configuration,
    missing cells) keeps the cell order, and a move updates the counts both ways.

    Attributes
    ----------
    cells, row_of_cell, row_starts, row_states, possible
        As in :class:`~hiddenbn.scores.exact.CellLayout`.
    row_kind : int ndarray, shape (n_rows,)
    slot_of_cell : int ndarray, shape (n_cells,)
        Position of each cell's terms in the kernels' term arrays (a permutation).
    in_runs : bool
        Whether every segment is a run, each of its cells in a row of its own or all in one.
    segment_of : int ndarray, shape (m, n_stochastic)
        The segment of pattern ``p`` and node ``s`` (in a layout of runs; else empty).
    run_start : int ndarray, shape (n_segments,)
        The first slot of each segment.
    segment_terms : int ndarray, shape (n_segments,)
        Which terms a segment's other configurations read when a case's completion is left
        out: ``FULL`` when each lies in a row of its own, ``FEWER_IN_ROW`` when all share it.
    """

    cells: np.ndarray
    row_of_cell: np.ndarray
    row_kind: np.ndarray
    row_starts: np.ndarray
    row_states: np.ndarray
    slot_of_cell: np.ndarray
    in_runs: bool
    possible: np.ndarray
    segment_of: np.ndarray
    run_start: np.ndarray
    segment_terms: np.ndarray

    def terms(self, counts: np.ndarray, row_counts: np.ndarray, cell_log: np.ndarray,
              row_log: np.ndarray) -> np.ndarray:
        """The terms of every cell at the given counts, in slot order: what :func:`update`
        keeps current. Shape ``(3, n_cells)`` in a layout of runs, else ``(1, n_cells)``
        (``FULL`` alone, the only one read)."""
        rows = self.row_of_cell
        kinds = self.row_kind[rows]
        placed = np.empty((3 if self.in_runs else 1, rows.size))
        placed[FULL, self.slot_of_cell] = cell_log[counts] - row_log[kinds, row_counts[rows]]
        if self.in_runs:
            fewer_row_value = row_log[kinds, np.maximum(row_counts[rows], 1) - 1]
            placed[FEWER, self.slot_of_cell] = (cell_log[np.maximum(counts, 1) - 1]
                                                - fewer_row_value)
            placed[FEWER_IN_ROW, self.slot_of_cell] = cell_log[counts] - fewer_row_value
        return placed


def collapsed_layout(layout, row_kind: np.ndarray) -> CollapsedLayout:
    """The :class:`CollapsedLayout` of a :class:`~hiddenbn.scores.exact.CellLayout`: in runs where
    every node's distinct segments are disjoint runs (placed node by node in sorted order, so
    the result is a function of the cells), else in cell order."""
    cells = layout.cells
    m, configurations, nodes = cells.shape
    segment_of = np.empty((m, nodes), dtype=np.int64)
    segments = []
    for s in range(nodes):
        distinct, inverse = np.unique(cells[:, :, s], axis=0, return_inverse=True)
        segment_of[:, s] = sum(len(block) for block in segments) + inverse.reshape(-1)
        segments.append(distinct)
    segment_cells = np.concatenate(segments)
    rows = np.sort(layout.row_of_cell[segment_cells], axis=1)
    own_rows = np.all(np.diff(rows, axis=1) != 0, axis=1)
    one_row = np.all(rows == rows[:, :1], axis=1)
    in_runs = bool(np.unique(segment_cells).size == segment_cells.size  # disjoint, distinct
                   and np.all(own_rows | one_row))
    common = (cells, layout.row_of_cell, np.asarray(row_kind, dtype=np.int64), layout.row_starts,
              layout.row_states)
    possible = np.ascontiguousarray(layout.possible)
    if not in_runs:
        empty = np.zeros(0, dtype=np.int64)
        return CollapsedLayout(*common, np.arange(layout.n_cells), False, possible,
                               np.zeros((m, 0), dtype=np.int64), empty, empty)
    slot_of_cell = np.empty(layout.n_cells, dtype=np.int64)
    run_start = configurations * np.arange(len(segment_cells))
    slot_of_cell[segment_cells] = run_start[:, None] + np.arange(configurations)
    rest = np.setdiff1d(np.arange(layout.n_cells), segment_cells)  # cells no case reaches
    slot_of_cell[rest] = segment_cells.size + np.arange(rest.size)
    return CollapsedLayout(*common, slot_of_cell, True, possible, segment_of, run_start,
                           np.where(own_rows, FULL, FEWER_IN_ROW).astype(np.int64))


# --- split-merge: reallocate the cases of two configurations --------------------------------
@numba.njit(cache=True, inline='always')
def next_uniform(state):
    """A uniform on [0, 1) from the SplitMix64 generator whose 64-bit state is ``state[0]``
    (Steele, Lea & Flood 2014), advanced in place: a stream per particle that a kernel can
    draw from as often as it needs, seeded from a NumPy generator outside it, so that results
    do not depend on the thread count."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)  # top 53 bits


@numba.njit(cache=True, inline='always')
def configuration_log_value(terms, layout, p, h):
    """``log p(x_p, h | statistics)`` of one configuration (``-inf`` where the pattern rules it
    out), the case itself not among the statistics: one entry of
    :func:`configuration_log_predictive` with ``removed = -1``."""
    if not layout.possible[p, h]:
        return -np.inf
    full = terms[FULL]
    value = 0.0
    if layout.in_runs:
        for s in range(layout.segment_of.shape[1]):
            value += full[layout.run_start[layout.segment_of[p, s]] + h]
    else:
        for s in range(layout.cells.shape[2]):
            value += full[layout.cells[p, h, s]]
    return value


@numba.njit(cache=True, inline='always')
def _allocate(members, size, start, chosen, labels, draws, patterns, counts, row_counts, terms,
              layout, cell_log, row_log, state, values, beta):
    """Add the cases ``members[:size]`` (out of the counts), from ``start`` on cyclically, each
    to one of the configurations ``labels`` in proportion to its predictive, raised to
    ``beta``, given the cases added before it; ``draws`` false: to ``chosen[t]`` instead.
    Returns ``(sum_t log sum_h v_h^beta, sum_t log v_chosen)`` over the steps (``v_h``: the
    predictives of the labels; ``values`` a work array of their number), and leaves the
    choices in ``chosen``."""
    log_total = 0.0
    log_chosen = 0.0
    for step in range(size):
        t = (start + step) % size
        p = patterns[members[t]]
        top = -np.inf
        for j in range(labels.size):
            values[j] = configuration_log_value(terms, layout, p, labels[j])
            top = max(top, values[j])
        total = 0.0
        for j in range(labels.size):
            total += math.exp(beta * (values[j] - top))
        log_total += beta * top + math.log(total)
        j = 0
        if draws:
            threshold = next_uniform(state) * total
            running = math.exp(beta * (values[0] - top))
            while running <= threshold and j < labels.size - 1:
                j += 1
                running += math.exp(beta * (values[j] - top))
            chosen[t] = labels[j]
        else:
            while labels[j] != chosen[t]:
                j += 1
        log_chosen += values[j]
        update(counts, row_counts, terms, layout, cell_log, row_log, p, chosen[t], 1)
    return log_total, log_chosen


@numba.njit(cache=True)
def reallocate(assignment, length, patterns, counts, row_counts, terms, layout, cell_log,
               row_log, state, members, old, new, width=2, beta=1.0):
    """One split-merge move (Metropolis-Hastings) on a completion of cases ``0..length-1``,
    leaving ``p(H | x)`` (Eq. 5 as a function of the completion ``H``) invariant; returns
    whether it was accepted.

    ``width`` configurations are chosen: the one of a case drawn uniformly, and the others
    uniformly among the rest, so the set ``L`` is chosen with probability ``sum_{h in L} n_h /
    (length binom(C - 1, width - 1))``, which a move within the set does not change. Every case
    completed with one of them is taken out and added back one at a time (in their order from a
    uniform starting point), each drawn among them from its predictive given those added
    before it (sequential allocation; Dahl 2003). This proposal can merge groups of cases into
    one configuration and split one group in two at once, which Gibbs moves of one case at a
    time cannot: the posterior of a mixture with fewer states than the data's clusters has a
    mode for each way of merging them (Jain & Neal 2004 for the moves; exact here because the
    parameters are integrated out). By the chain rule of Eq. 5 the completion's probability
    over the proposal's is the product of the normalisers ``sum_{h in L} v_h`` of the steps,
    so the move is accepted with probability ``min(1, prod_t sum_h v_h along the proposal /
    the same along the current completion)``, the latter in the same order.

    ``members``, ``old`` and ``new`` are work arrays of ``length`` entries; ``state`` the
    particle's generator (:func:`next_uniform`).
    """
    configurations = layout.cells.shape[1]
    width = min(width, configurations)
    if width < 2 or length < 2:
        return 0.0
    labels = np.empty(width, dtype=np.int64)
    labels[0] = assignment[min(int(next_uniform(state) * length), length - 1)]
    for j in range(1, width):  # a uniform draw among the configurations not yet chosen
        rank = min(int(next_uniform(state) * (configurations - j)), configurations - j - 1)
        h = -1
        while rank >= 0:
            h += 1
            taken = False
            for i in range(j):
                taken |= labels[i] == h
            if not taken:
                rank -= 1
        labels[j] = h
    size = 0
    for case in range(length):
        for j in range(width):
            if assignment[case] == labels[j]:
                members[size] = case
                old[size] = assignment[case]
                size += 1
    values = np.empty(width)
    start = min(int(next_uniform(state) * size), size - 1)
    _move_all(members, size, old, -1, patterns, counts, row_counts, terms, layout, cell_log,
              row_log)
    log_proposed, log_new = _allocate(members, size, start, new, labels, True, patterns,
                                      counts, row_counts, terms, layout, cell_log, row_log,
                                      state, values, beta)
    _move_all(members, size, new, -1, patterns, counts, row_counts, terms, layout, cell_log,
              row_log)
    log_current, log_old = _allocate(members, size, start, old, labels, False, patterns,
                                     counts, row_counts, terms, layout, cell_log, row_log,
                                     state, values, beta)
    if math.log(1.0 - next_uniform(state)) >= log_proposed - log_current:
        return 0.0
    _move_all(members, size, old, -1, patterns, counts, row_counts, terms, layout, cell_log,
              row_log)
    _move_all(members, size, new, 1, patterns, counts, row_counts, terms, layout, cell_log,
              row_log)
    for t in range(size):
        assignment[members[t]] = new[t]
    return log_new - log_old


@numba.njit(cache=True, inline='always')
def _move_all(members, size, chosen, delta, patterns, counts, row_counts, terms, layout,
              cell_log, row_log):
    """Add (``delta = 1``) or take out (``-1``) the cases ``members[:size]``, each completed
    with ``chosen[t]``."""
    for t in range(size):
        update(counts, row_counts, terms, layout, cell_log, row_log, patterns[members[t]],
               chosen[t], delta)
