"""Posteriors over the hidden variables given observed patterns, and expected counts.

Two exact methods, both working on pattern counts (:class:`~hiddenbn.data.Dataset`), so their
cost follows the number of distinct patterns ``m``, not the number of cases ``N``:

* :func:`enumeration_statistics` for any discrete network: every joint configuration of the
  hidden nodes is enumerated, ``log p(x_p, h) = sum_i log p(x_i | pa_i)`` is summed node by
  node, and the expected sufficient statistics of paper 003 Eq. 11 are accumulated with
  ``bincount``. Deterministic nodes (paper 004) enter through their 0/1 tables, so impossible
  configurations get weight zero. Cost ``O(m H n)`` with ``H`` the number of hidden
  configurations; networks with more than :data:`MAX_HIDDEN_CONFIGURATIONS` are refused.
* :func:`latent_class_statistics` for the latent class / naive-Bayes model with a hidden root
  (paper 003 Sec. 3, paper 002 Sec. 2.2): a numba gather kernel, parallel over fixed blocks
  of patterns, for wide data (~128 variables with ~64 states, ~64 hidden states, 10^6
  patterns) at ``O(m n k)`` per E step; for variables with few states, two BLAS products on
  the state-indicator matrix of :func:`latent_class_design` instead (``O(m sum(r_j - 1) k)``,
  faster per flop), in fixed blocks of rows.

Both are bit-identical for any number of threads and any numba cache state
(:mod:`hiddenbn.threads` says how).

Everything is in log space: a class or state with probability zero contributes ``-inf`` to the
log joint and zero to the posterior, and no pattern-count is ever divided by zero.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import numba
import numpy as np

from hiddenbn.errors import DataError, HiddenbnError
from hiddenbn.limits import approximately
from hiddenbn.models import Network, node_tables
from hiddenbn.threads import block_starts, map_blocks

#: Largest number of joint hidden configurations that :func:`enumeration_statistics` enumerates.
MAX_HIDDEN_CONFIGURATIONS = 1 << 16
#: Pattern-by-configuration cells processed at once (bounds the memory of enumeration).
ENUMERATION_CHUNK_CELLS = 1 << 22
#: Fixed number of pattern blocks of the latent class kernel (results do not depend on threads).
LATENT_CLASS_BLOCKS = 16
#: Below this many pattern x variable x class cells the latent class kernel runs on one thread.
PARALLEL_MIN_CELLS = 1 << 22
#: :func:`latent_class_design` is used up to this many cells and mean free states per variable.
DESIGN_MAX_CELLS = 1 << 24
DESIGN_MAX_MEAN_STATES = 4
#: Rows of the design per block of the BLAS E step (the blocks follow the data, not the threads).
DESIGN_BLOCK_ROWS = 4096


# --- general networks: enumeration of the hidden configurations ------------------------------
def hidden_configurations(network: Network) -> np.ndarray:
    """All joint states of the hidden nodes, shape ``(H, n_hidden)``, in C order."""
    cards = [network.cardinalities[i] for i in network.hidden_indices]
    size = math.prod(int(r) for r in cards)  # a Python int: thousands of nodes overflow floats
    if size > MAX_HIDDEN_CONFIGURATIONS:
        raise HiddenbnError(f"the hidden nodes have {approximately(size)} joint states; exact "
                            "inference by enumeration handles at most "
                            f"{MAX_HIDDEN_CONFIGURATIONS}")
    if not cards:
        return np.zeros((1, 0), dtype=np.int64)
    return np.indices(cards).reshape(len(cards), -1).T


def family_indices(network: Network, patterns: np.ndarray, hidden_states: np.ndarray) -> list:
    """For each node, the flat index ``j * r_i + k`` of its CPT entry per (pattern, config).

    ``patterns`` holds the observed nodes in network order, ``hidden_states`` the hidden ones
    (rows of :func:`hidden_configurations`). Returns arrays of shape ``(m, H)``.
    """
    column = np.full(network.n_nodes, -1)
    column[network.observed_indices] = np.arange(network.observed_indices.size)
    hidden_column = np.full(network.n_nodes, -1)
    hidden_column[network.hidden_indices] = np.arange(network.hidden_indices.size)
    indices = []
    for i in range(network.n_nodes):
        family = (*network.parents[i], i)
        cards = [network.cardinalities[f] for f in family]
        strides = [int(np.prod(cards[t + 1:], dtype=np.int64)) for t in range(len(family))]
        observed_part = np.zeros(patterns.shape[0], dtype=np.int64)
        hidden_part = np.zeros(hidden_states.shape[0], dtype=np.int64)
        for member, stride in zip(family, strides):
            if network.hidden[member]:
                hidden_part += hidden_states[:, hidden_column[member]] * stride
            else:
                observed_part += patterns[:, column[member]].astype(np.int64) * stride
        indices.append(observed_part[:, None] + hidden_part[None, :])
    return indices


def _log_tables(network: Network, cpts) -> list:
    with np.errstate(divide="ignore"):
        return [np.log(table).ravel() for table in node_tables(network, cpts)]


def posterior_chunks(network: Network, cpts, patterns: np.ndarray):
    """Yield ``(rows, indices, weights, log_marginal)`` for chunks of patterns.

    ``weights[p, h] = p(h | x_p)`` and ``log_marginal[p] = log p(x_p)``; ``indices`` are the
    :func:`family_indices` of the chunk. Raises :class:`~hiddenbn.errors.DataError` if a
    pattern has probability zero (only deterministic nodes can cause that).
    """
    hidden_states = hidden_configurations(network)
    logs = _log_tables(network, cpts)
    step = max(1, ENUMERATION_CHUNK_CELLS // hidden_states.shape[0])
    for start in range(0, patterns.shape[0], step):
        rows = slice(start, min(start + step, patterns.shape[0]))
        indices = family_indices(network, patterns[rows], hidden_states)
        log_joint = sum(log_table[index] for log_table, index in zip(logs, indices))
        top = log_joint.max(axis=1)
        if not np.all(np.isfinite(top)):
            bad = start + int(np.flatnonzero(~np.isfinite(top))[0])
            raise DataError(f"observed pattern {patterns[bad].tolist()} has probability zero "
                            "under the model (its deterministic nodes cannot produce it)")
        weights = np.exp(log_joint - top[:, None])
        total = weights.sum(axis=1)
        weights /= total[:, None]
        yield rows, indices, weights, top + np.log(total)


def enumeration_statistics(network: Network, cpts, patterns: np.ndarray, counts: np.ndarray):
    """Expected counts (paper 003 Eq. 11) and log-likelihood by enumerating hidden states.

    Parameters
    ----------
    network : Network
        A discrete network.
    cpts : list
        One ``(q_i, r_i)`` table per node, ``None`` for deterministic nodes.
    patterns, counts : ndarray
        Observed patterns (columns = observed nodes in network order) and their counts.

    Returns
    -------
    expected : list of ndarray
        ``E(N_ijk)`` as a ``(q_i, r_i)`` array per node (deterministic nodes included).
    log_likelihood : float
        ``sum_p counts_p log p(x_p)``.
    """
    sizes = [network.n_parent_configurations(i) * network.cardinalities[i]
             for i in range(network.n_nodes)]
    expected = [np.zeros(size) for size in sizes]
    log_likelihood = 0.0
    counts = np.asarray(counts, dtype=np.float64)
    for rows, indices, weights, log_marginal in posterior_chunks(network, cpts, patterns):
        mass = weights * counts[rows, None]
        log_likelihood += float(counts[rows] @ log_marginal)
        for total, index, size in zip(expected, indices, sizes):
            total += np.bincount(index.ravel(), weights=mass.ravel(), minlength=size)
    shaped = [total.reshape(network.n_parent_configurations(i), network.cardinalities[i])
              for i, total in enumerate(expected)]
    return shaped, log_likelihood


# --- latent class / naive Bayes with a hidden root -------------------------------------------
def is_latent_class(network: Network) -> bool:
    """True for a hidden root whose children are all the other nodes, observed and parentless
    otherwise: the model of paper 003 Sec. 3 and paper 002 Sec. 2.2."""
    return (network.kind == "discrete" and network.n_nodes >= 2
            and network.hidden[0] and not network.parents[0]
            and not any(network.hidden[1:])
            and all(pa == (0,) for pa in network.parents[1:])
            and not any(network.is_deterministic(i) for i in range(network.n_nodes)))


@contextmanager
def _threads_for(cells: int):
    """One numba thread for small work (waking threads costs more than the work), else all."""
    threads = numba.get_num_threads()
    if cells < PARALLEL_MIN_CELLS:
        numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(threads)


def state_offsets(cardinalities) -> np.ndarray:
    """Start row of each observed variable in the packed ``(sum r_j, k)`` table."""
    return np.concatenate([[0], np.cumsum(cardinalities)[:-1]]).astype(np.int64)


@numba.njit(cache=True)
def _weigh_row(row, count):
    """In place: ``log p(x, h)`` becomes ``count p(h | x)``; returns ``count log p(x)``.

    A pattern of probability zero gets zero weights and ``-inf``.
    """
    top = row.max()
    if top == -np.inf:
        row[:] = 0.0
        return -np.inf
    total = 0.0
    for h in range(row.shape[0]):
        row[h] = np.exp(row[h] - top)
        total += row[h]
    scale = count / total
    for h in range(row.shape[0]):
        row[h] *= scale
    return count * (top + np.log(total))


@numba.njit(cache=True, parallel=True)
def _latent_class_kernel(patterns, counts, log_weights, log_table, offsets, n_blocks):
    m, n = patterns.shape
    k = log_weights.shape[0]
    table_stats = np.zeros((n_blocks, log_table.shape[0], k))
    class_stats = np.zeros((n_blocks, k))
    log_likelihood = np.zeros(n_blocks)
    block_size = (m + n_blocks - 1) // n_blocks
    for b in numba.prange(n_blocks):
        joint = np.empty(k)
        for p in range(b * block_size, min(m, (b + 1) * block_size)):
            for h in range(k):
                joint[h] = log_weights[h]
            for j in range(n):
                row = offsets[j] + patterns[p, j]
                for h in range(k):
                    joint[h] += log_table[row, h]
            log_likelihood[b] += _weigh_row(joint, counts[p])
            for h in range(k):
                class_stats[b, h] += joint[h]
            for j in range(n):
                row = offsets[j] + patterns[p, j]
                for h in range(k):
                    table_stats[b, row, h] += joint[h]
    return class_stats, table_stats, log_likelihood


def latent_class_design(patterns, cardinalities):
    """Indicators ``Z[p, (j, s)] = [x_pj = s]`` of every non-last state ``s < r_j - 1``, then a
    column of ones.

    With it the latent class E step is two matrix products (BLAS): ``log p(x_p, h) =
    Z[p] @ C`` where the rows of ``C`` are ``log theta_{j,s,h} - log theta_{j,last,h}`` and,
    against the ones column, ``log p(h) + sum_j log theta_{j,last,h}``; and ``Z^T @ (counts *
    posterior)`` gives ``E(N_{j,s,h})`` and, in its last row, ``E(N_h)``. Worth it when the
    states are few (:func:`prefers_design`); the numba gather kernel wins for many states.
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    free = cards - 1
    variable = np.repeat(np.arange(cards.size), free)
    state = np.arange(free.sum()) - state_offsets(free)[variable]
    design = np.ones((patterns.shape[0], free.sum() + 1))
    design[:, :-1] = patterns[:, variable] == state
    return design


def prefers_design(n_patterns: int, cardinalities) -> bool:
    """True when :func:`latent_class_design` fits in memory and beats the gather kernel."""
    free = np.asarray(cardinalities, dtype=np.int64) - 1
    return bool(free.mean() <= DESIGN_MAX_MEAN_STATES
                and n_patterns * free.sum() <= DESIGN_MAX_CELLS)


@numba.njit(cache=True, nogil=True)
def _subtract_row_maxima(log_joint):
    """In place: each row of ``log_joint`` minus its maximum, which is returned."""
    m, k = log_joint.shape
    top = np.empty(m)
    for p in range(m):
        row_max = log_joint[p, 0]
        for h in range(1, k):
            row_max = max(row_max, log_joint[p, h])
        top[p] = row_max
        for h in range(k):
            log_joint[p, h] -= row_max
    return top


@numba.njit(cache=True, nogil=True)
def _normalise_rows(joint, counts, top):
    """In place: row p of ``joint`` (``p(x_p, h) / max_h p(x_p, h)``) becomes
    ``counts_p p(h | x_p)``; returns ``sum_p counts_p log p(x_p)``."""
    m, k = joint.shape
    log_likelihood = 0.0
    for p in range(m):
        total = 0.0
        for h in range(k):
            total += joint[p, h]
        scale = counts[p] / total
        for h in range(k):
            joint[p, h] *= scale
        log_likelihood += counts[p] * (top[p] + np.log(total))
    return log_likelihood


def _design_block(design, counts, coefficients, start, stop):
    """E step of rows ``start:stop``: ``(posterior^T Z, sum_p counts_p log p(x_p))``."""
    rows = design[start:stop]
    joint = rows @ coefficients
    top = _subtract_row_maxima(joint)
    # NumPy's exp is vectorised (SIMD); numba's scalar exp costs several times more here
    np.exp(joint, out=joint)
    log_likelihood = _normalise_rows(joint, counts[start:stop], top)
    # posterior^T Z, transposed by the caller: OpenBLAS runs this orientation ~20% faster for a
    # C-ordered Z
    return joint.T @ rows, log_likelihood


def _statistics_by_design(design, counts, weights, table, offsets, cards):
    last = offsets + cards - 1
    free_rows = np.delete(np.arange(table.shape[0]), last)
    log_table = np.log(table)
    variable = np.repeat(np.arange(cards.size), cards - 1)
    coefficients = np.empty((free_rows.size + 1, table.shape[1]))
    coefficients[:-1] = log_table[free_rows] - log_table[last][variable]
    coefficients[-1] = np.log(weights) + log_table[last].sum(axis=0)
    counts = np.asarray(counts, dtype=np.float64)
    blocks = map_blocks(
        lambda start, stop: _design_block(design, counts, coefficients, start, stop),
        block_starts(design.shape[0], DESIGN_BLOCK_ROWS),
        parallel=design.shape[0] * table.shape[1] * cards.size >= PARALLEL_MIN_CELLS)
    # the blocks' sums are added in block order: the same result on any number of threads
    expected, log_likelihood = blocks[0][0].copy(), blocks[0][1]
    for block_expected, block_log_likelihood in blocks[1:]:
        expected += block_expected
        log_likelihood += block_log_likelihood
    expected = expected.T
    class_counts, free_counts = expected[-1], expected[:-1]
    table_counts = np.empty_like(table)
    table_counts[free_rows] = free_counts
    # every observed variable has at least two states, so each has a free row; the difference
    # cancels to a tiny negative number when a last-state probability is ~1e-16 (the M step
    # would then give a negative probability), so clip it at the true lower bound 0
    table_counts[last] = np.maximum(
        class_counts - np.add.reduceat(free_counts, state_offsets(cards - 1), axis=0), 0.0)
    return class_counts, table_counts, float(log_likelihood)


def latent_class_statistics(patterns, counts, weights, table, offsets, design=None):
    """E step of the latent class model in packed form.

    Parameters
    ----------
    patterns : int ndarray, shape (m, n)
        Observed patterns; column ``j`` takes states ``0..r_j - 1``.
    counts : ndarray, shape (m,)
        Pattern counts.
    weights : ndarray, shape (k,)
        ``p(H = h)``.
    table : ndarray, shape (sum r_j, k)
        ``table[offsets[j] + x, h] = p(X_j = x | H = h)``.
    offsets : int ndarray, shape (n,)
        :func:`state_offsets` of the observed cardinalities.
    design : ndarray, optional
        :func:`latent_class_design` of ``patterns``: use BLAS products instead of the gather
        kernel (only while every probability is positive; zeros take the kernel).

    Returns
    -------
    class_counts : ndarray, shape (k,)
        ``E(N_h)``.
    table_counts : ndarray, shape (sum r_j, k)
        ``E(N_{j,h,x})`` in the layout of ``table`` (paper 003 Eq. 11).
    log_likelihood : float
    """
    if design is not None and np.all(weights > 0) and np.all(table > 0):
        cards = np.diff(np.append(offsets, table.shape[0]))
        return _statistics_by_design(design, counts, weights, table, offsets, cards)
    with np.errstate(divide="ignore"):
        log_weights, log_table = np.log(weights), np.log(table)
    blocks = max(1, min(LATENT_CLASS_BLOCKS, patterns.shape[0]))
    with _threads_for(patterns.size * weights.size):
        class_stats, table_stats, log_likelihood = _latent_class_kernel(
            np.ascontiguousarray(patterns, dtype=np.int32), np.asarray(counts, dtype=np.float64),
            log_weights, np.ascontiguousarray(log_table), offsets, blocks)
    return class_stats.sum(axis=0), table_stats.sum(axis=0), float(log_likelihood.sum())
