"""Split-and-merge moves for latent class fits (Ueda, Nakano, Ghahramani & Hinton 2000, SMEM).

EM moves the cases between classes only a little at a time, so a fit can keep two classes that
describe one group of cases and one class that describes two: a local optimum no EM iteration
leaves. A split-and-merge move merges classes ``i`` and ``j`` (weights added, tables averaged
by weight) and splits a third class ``s`` in two (its cases, weighted by their posterior for
``s``, cut by 2-means on their one-hot states; each half's smoothed state frequencies become a
table), then runs :data:`TRIAL_ITERATIONS` EM iterations. The first move that raises the log
posterior g is kept, and the moves are tried again from there until none raises g.

Candidates, as Ueda et al. rank them: merges by the correlation of the two classes' posteriors
over the cases (classes that claim the same cases first), splits by the mean log-likelihood per
case of the class's cases (the worst-fitting class first). Every pair and class is tried when
the model has at most :data:`EXHAUSTIVE_CLASSES` classes, the :data:`RANKED_CANDIDATES` best of
each beyond.

Missing cells (:data:`hiddenbn.data.MISSING`) are summed out, as in the E step: a case's
posterior, fit and one-hot vector read its observed cells only (its state frequencies count the
cases observed in each variable, and 2-means measures distances over the observed cells).

Measured on paper 003's data (64 binary features, N = 400): after the annealed search
(:mod:`hiddenbn.learning.annealing`) these moves closed the 8-20 nat gaps to EM started from the
generating parameters that remained in some data sets with c = 8 and 16 (docs/SEARCH.md).
"""

from __future__ import annotations

import numba
import numpy as np

from hiddenbn.inference.latent_class import (CHUNK_PATTERNS, class_posteriors, packed_rows,
                                             with_zero_row)
from hiddenbn.learning.engine import Run

#: EM iterations after a move before its g is compared with the current one.
TRIAL_ITERATIONS = 30
#: Up to this many classes every (merge pair, split class) candidate is tried.
EXHAUSTIVE_CLASSES = 10
#: Beyond it, this many of the best-ranked merge pairs and split classes.
RANKED_CANDIDATES = 8
#: Pseudo-count per state in the tables of the two halves of a split.
SPLIT_SMOOTHING = 0.5


def _candidates(engine, rows, state, posteriors):
    """Merge pairs and split classes in Ueda et al.'s order (``rows``: :func:`.packed_rows`)."""
    k = state[0].size
    counts = engine.counts.astype(float)
    weighted = posteriors * np.sqrt(counts)[:, None]
    norms = np.linalg.norm(weighted, axis=0) + 1e-300
    correlation = (weighted.T @ weighted) / np.outer(norms, norms)
    first, second = np.triu_indices(k, 1)
    order = np.argsort(-correlation[first, second], kind="stable")
    merges = [(int(a), int(b)) for a, b in zip(first[order], second[order])]
    mass = posteriors * counts[:, None]
    with np.errstate(divide="ignore"):  # a zero probability (ML fits): log -inf, weight 0
        log_table = with_zero_row(np.log(state[1]))
    fit = np.zeros(k)
    for start in range(0, rows.shape[0], CHUNK_PATTERNS):
        chunk = slice(start, start + CHUNK_PATTERNS)
        # a class with zero mass on a pattern may give it probability zero (log -inf): it
        # adds nothing to the class's fit, not 0 * -inf
        fitted = np.where(mass[chunk] > 0, log_table[rows[chunk]].sum(axis=1), 0.0)
        fit += (mass[chunk] * fitted).sum(axis=0)
    per_case = fit / np.maximum(mass.sum(axis=0), 1e-300)
    splits = [int(s) for s in np.argsort(per_case, kind="stable") if mass[:, s].sum() >= 2]
    if k > EXHAUSTIVE_CLASSES:
        merges, splits = merges[:RANKED_CANDIDATES], splits[:RANKED_CANDIDATES]
    return merges, splits


@numba.njit(cache=True)
def _state_frequencies(rows, mass, offsets, cards):
    """Smoothed state frequencies of each variable under pattern weights ``mass`` (``rows``:
    :func:`.packed_rows`): one column of a latent class table. One pass over the cells, where the
    NumPy version (``bincount``, ``reduceat``) cost most of a 2-means split in set-up."""
    size = offsets[-1] + cards[-1]
    column = np.zeros(size + 1)  # the last entry takes the missing cells
    for p in range(rows.shape[0]):
        for j in range(rows.shape[1]):
            column[rows[p, j]] += mass[p]
    out = np.empty(size)
    for j in range(offsets.size):
        total = 0.0
        for x in range(offsets[j], offsets[j] + cards[j]):
            out[x] = column[x] + SPLIT_SMOOTHING
            total += out[x]
        for x in range(offsets[j], offsets[j] + cards[j]):
            out[x] /= total
    return out


def _two_means(engine, rows, mass: np.ndarray, rng: np.random.Generator,
               iterations: int = 10):
    """Split cases weighted by ``mass`` in two by 2-means on their one-hot states (``rows``:
    :func:`.packed_rows`), from two of its patterns drawn k-means++ style; ``(the two halves'
    weights, their state frequencies)``, or ``None`` when the class holds a single pattern or a
    half empties."""
    support = np.flatnonzero(mass > 0)
    if support.size < 2:
        return None
    p = mass[support] / mass[support].sum()
    first = support[rng.choice(support.size, p=p)]
    differing = (rows[support] != rows[first]).sum(axis=1).astype(float)
    second = support[rng.choice(support.size, p=p * differing / (p * differing).sum())
                     if differing.any() else rng.choice(support.size, p=p)]
    return _lloyd_two_means(rows, mass, first, second, engine.offsets, engine.cards,
                            iterations)


@numba.njit(cache=True)
def _lloyd_two_means(rows, mass, first, second, offsets, cards, iterations):
    """Lloyd's iterations from centres at patterns ``first`` and ``second``: each pattern to
    the nearer centre of state frequencies (the first on a tie), each centre to its half's
    smoothed frequencies. Returns ``((half_0, half_1), (centre_0, centre_1))``: the halves'
    pattern weights and the centres of the last iteration, their frequencies. One numba pass
    per iteration: in NumPy the set-up of the small products cost more than the work (a
    2-means split is called for every candidate move)."""
    start = np.zeros(mass.size)
    start[first] = 1.0
    centre_0 = _state_frequencies(rows, start, offsets, cards)
    start[first], start[second] = 0.0, 1.0
    centre_1 = _state_frequencies(rows, start, offsets, cards)
    half_0, half_1 = np.zeros(mass.size), np.zeros(mass.size)
    for _ in range(iterations):
        distance_0 = _distances(centre_0, rows, offsets, cards)
        distance_1 = _distances(centre_1, rows, offsets, cards)
        for p in range(mass.size):
            nearer_0 = distance_0[p] <= distance_1[p]
            half_0[p] = mass[p] if nearer_0 else 0.0
            half_1[p] = 0.0 if nearer_0 else mass[p]
        if not (half_0 > 0).any() or not (half_1 > 0).any():
            return None
        centre_0 = _state_frequencies(rows, half_0, offsets, cards)
        centre_1 = _state_frequencies(rows, half_1, offsets, cards)
    return (half_0, half_1), (centre_0, centre_1)


@numba.njit(cache=True)
def _distances(q, rows, offsets, cards):
    """Squared distance of each one-hot pattern to a centre of state frequencies ``q`` over
    its observed cells, ``sum_j (1 - 2 q[j, x_j] + sum_s q[j, s]^2)``, less the constant 1s
    (a missing cell, row ``q.size`` in ``rows``, adds nothing)."""
    squares = np.zeros(offsets.size)
    for j in range(offsets.size):
        for x in range(offsets[j], offsets[j] + cards[j]):
            squares[j] += q[x] * q[x]
    total = squares.sum()
    distance = np.empty(rows.shape[0])
    for p in range(rows.shape[0]):
        value = total
        for j in range(rows.shape[1]):
            if rows[p, j] < q.size:
                value -= 2.0 * q[rows[p, j]]
            else:
                value -= squares[j]
        distance[p] = value
    return distance


def _moved(engine, rows, state, posteriors, merge, split, rng):
    """The state after merging ``merge`` and splitting ``split`` (into the freed column)."""
    (i, j), s = merge, split
    weights, table = state[0].copy(), state[1].copy()
    mass = posteriors[:, s] * engine.counts
    split_in_two = _two_means(engine, rows, mass, rng)
    if split_in_two is None:
        return None
    halves, frequencies = split_in_two
    table[:, i] = (weights[i] * table[:, i] + weights[j] * table[:, j]) / (weights[i]
                                                                           + weights[j])
    weights[i] += weights[j]
    share = halves[0].sum() / (halves[0].sum() + halves[1].sum())
    table[:, s], table[:, j] = frequencies
    weights[s], weights[j] = weights[s] * share, weights[s] * (1 - share)
    return weights / weights.sum(), np.ascontiguousarray(table)


def split_merge(engine, run, rng: np.random.Generator, trial_iterations: int = TRIAL_ITERATIONS):
    """Apply improving split-and-merge moves to ``run`` (an EM run of a latent class engine,
    :class:`~hiddenbn.learning.engine.Run`) until none raises g; returns the final run and the
    number of moves kept. Models with fewer than three classes are returned as they are."""
    kept = 0
    if run.state[0].size < 3:
        return run, kept
    rows = packed_rows(engine.patterns, engine.cards)
    while True:
        posteriors, _ = class_posteriors(engine.network, engine.to_cpts(run.state),
                                         engine.patterns)
        merges, splits = _candidates(engine, rows, run.state, posteriors)
        improved = None
        for merge in merges:
            for split in splits:
                if split in merge:
                    continue
                state = _moved(engine, rows, run.state, posteriors, merge, split, rng)
                if state is None:
                    continue
                trial = Run(engine, state)
                for _ in range(trial_iterations):
                    trial.step()
                if trial.g > run.g + 1e-9 * abs(run.g):
                    improved = trial
                    break
            if improved is not None:
                break
        if improved is None:
            return run, kept
        run, kept = improved, kept + 1
