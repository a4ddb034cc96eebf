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

Missing cells (:data:`~hiddenbn.data.MISSING`) are missing at random: the likelihood of a
pattern is that of its observed part, ``p(x_obs) = sum_{h, x_mis} p(x_obs, x_mis, h)``, and the
expected counts are those of the data completed in the hidden nodes *and* the missing cells,
``E(N_ijk | x_obs)`` summed over the cases (paper 003 Eq. 11 with the missing cells among the
unobserved values: standard EM, so the M step stays the MAP update of paper 003). Enumeration
completes each pattern in the joint states of the hidden nodes and of its missing cells
(:func:`completion_indices`; deterministic nodes keep working through their 0/1 tables); the
latent class E step gives a missing cell the factor 1 (a leaf summed out) and then completes it
from its class (``theta_{j,x,h}`` times the class mass of the cases missing ``X_j``). Complete
data take the code paths of before, to the last bit.

Everything is in log space: a class or state with probability zero contributes ``-inf`` to the
log joint and zero to the posterior, and no pattern-count is ever divided by zero.
"""

from __future__ import annotations

import functools
import math
from contextlib import contextmanager

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

from hiddenbn.data import MISSING
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
#: :func:`latent_class_design` is used up to this many cells and mean columns per variable.
DESIGN_MAX_CELLS = 1 << 24
DESIGN_MAX_MEAN_STATES = 4
#: Rows of the design per block of the BLAS E step (the blocks follow the data, not the threads).
DESIGN_BLOCK_ROWS = 4096
#: Up to this many pattern x variable x class cells the latent class E step is one serial numba
#: pass: the BLAS and thread set-up of the other paths costs more than such work (see
#: :func:`latent_class_statistics`).
SERIAL_MAX_CELLS = 1 << 15


# --- general networks: enumeration of the hidden configurations ------------------------------
def hidden_configuration_count(network: Network) -> int:
    """The number of joint states of the hidden nodes (a Python int: thousands of nodes
    overflow floats)."""
    return math.prod(int(network.cardinalities[i]) for i in network.hidden_indices)


def hidden_configurations(network: Network) -> np.ndarray:
    """All joint states of the hidden nodes, shape ``(H, n_hidden)``, in C order."""
    cards = [network.cardinalities[i] for i in network.hidden_indices]
    size = hidden_configuration_count(network)
    if size > MAX_HIDDEN_CONFIGURATIONS:
        raise HiddenbnError(f"the hidden nodes have {approximately(size)} joint states; exact "
                            "inference by enumeration handles at most "
                            f"{MAX_HIDDEN_CONFIGURATIONS}")
    if not cards:
        return np.zeros((1, 0), dtype=np.int64)
    return np.indices(cards).reshape(len(cards), -1).T


def family_indices(network: Network, patterns: np.ndarray, hidden_states: np.ndarray) -> list:
    """For each node, the flat index ``j * r_i + k`` of its CPT entry per (pattern, config).

    ``patterns`` holds the observed nodes in network order (no missing cell), ``hidden_states``
    the hidden ones (rows of :func:`hidden_configurations`). Returns arrays of shape
    ``(m, H)``.
    """
    column = np.full(network.n_nodes, -1)
    column[network.observed_indices] = np.arange(network.observed_indices.size)
    hidden_column = np.full(network.n_nodes, -1)
    hidden_column[network.hidden_indices] = np.arange(network.hidden_indices.size)
    indices = []
    for i in range(network.n_nodes):
        family = (*network.parents[i], i)
        observed_part = np.zeros(patterns.shape[0], dtype=np.int64)
        hidden_part = np.zeros(hidden_states.shape[0], dtype=np.int64)
        for member, stride in zip(family, _family_strides(network, family)):
            if network.hidden[member]:
                hidden_part += hidden_states[:, hidden_column[member]] * stride
            else:
                observed_part += patterns[:, column[member]].astype(np.int64) * stride
        indices.append(observed_part[:, None] + hidden_part[None, :])
    return indices


def _family_strides(network: Network, family) -> list:
    """Place value of each member of ``family`` in the flat index of its CPT (C order)."""
    cards = [network.cardinalities[f] for f in family]
    return [int(np.prod(cards[t + 1:], dtype=np.int64)) for t in range(len(family))]


def completion_groups(network: Network, patterns: np.ndarray):
    """Patterns with missing cells grouped by their number of completions: ``(rows, size)``
    pairs (``rows`` ascending), or None when no cell is missing.

    A pattern is completed in the joint states of the hidden nodes and of its missing cells,
    ``size`` of them (:func:`completion_indices`). Raises a one-line
    :class:`~hiddenbn.errors.HiddenbnError` when a pattern has more than
    :data:`MAX_HIDDEN_CONFIGURATIONS`.
    """
    absent = patterns == MISSING
    if not absent.any():
        return None
    hidden = math.prod(int(network.cardinalities[i]) for i in network.hidden_indices)
    cards = np.asarray(network.observed_cardinalities, dtype=np.float64)
    # in logs first: the exact product of many missing cells' states overflows int64
    log_sizes = np.log2(hidden) + np.where(absent, np.log2(cards), 0.0).sum(axis=1)
    worst = int(np.argmax(log_sizes))
    if log_sizes[worst] > np.log2(MAX_HIDDEN_CONFIGURATIONS) + 1e-9:
        missing = network.observed_indices[absent[worst]]
        size = hidden * math.prod(int(network.cardinalities[i]) for i in missing)
        names = ", ".join(network.names[i] for i in missing)
        raise HiddenbnError(f"the hidden nodes and the {missing.size} missing cells of a pattern "
                            f"({names}) have {approximately(size)} joint states; exact inference "
                            f"by enumeration handles at most {MAX_HIDDEN_CONFIGURATIONS}; use "
                            "--missing drop or data with fewer missing cells per case")
    sizes = hidden * np.prod(np.where(absent, cards.astype(np.int64), 1), axis=1)
    values, which = np.unique(sizes, return_inverse=True)
    order = np.argsort(which.ravel(), kind="stable")
    bounds = np.cumsum(np.bincount(which.ravel(), minlength=values.size))[:-1]
    return [(rows, int(size)) for rows, size in zip(np.split(order, bounds), values)]


def completion_indices(network: Network, patterns: np.ndarray, size: int) -> list:
    """:func:`family_indices` of patterns with missing cells, each completed in the ``size``
    joint states of the hidden nodes and of its missing cells, in C order over those nodes
    (hidden nodes first, then the missing ones, each in network order), as if they were all
    hidden.

    Every pattern must have ``size`` completions (one group of :func:`completion_groups`).
    The patterns are handled by missingness together: per node, the part of the index from
    the completed nodes is computed once per missingness (``O(G size)``) and gathered.
    """
    cards = np.asarray(network.cardinalities, dtype=np.int64)
    absent = patterns == MISSING
    enumerated = np.zeros((patterns.shape[0], network.n_nodes), dtype=bool)
    enumerated[:, network.hidden_indices] = True
    enumerated[:, network.observed_indices] = absent
    masks, which = np.unique(enumerated, axis=0, return_inverse=True)
    which = which.ravel()
    order = np.concatenate([network.hidden_indices, network.observed_indices]).astype(np.int64)
    radix = np.where(masks[:, order], cards[order], 1)
    place = np.ones_like(radix)  # C order: the last completed node varies fastest
    place[:, :-1] = np.cumprod(radix[:, :0:-1], axis=1)[:, ::-1]
    places = np.empty_like(place)
    places[:, order] = place
    configurations = np.arange(size, dtype=np.int64)
    values = np.zeros((patterns.shape[0], network.n_nodes), dtype=np.int64)
    values[:, network.observed_indices] = np.where(absent, 0, patterns)
    indices = []
    for i in range(network.n_nodes):
        family = (*network.parents[i], i)
        observed_part = np.zeros(patterns.shape[0], dtype=np.int64)
        completed_part = np.zeros((masks.shape[0], size), dtype=np.int64)
        for member, stride in zip(family, _family_strides(network, family)):
            observed_part += values[:, member] * stride
            if masks[:, member].any():
                digit = (configurations[None, :] // places[:, member, None]) % cards[member]
                completed_part += np.where(masks[:, member, None], digit * stride, 0)
        indices.append(observed_part[:, None] + completed_part[which])
    return indices


def completed_chunks(network: Network, patterns: np.ndarray,
                     chunk_cells: int = ENUMERATION_CHUNK_CELLS):
    """Yield ``(rows, indices)``: chunks of at most about ``chunk_cells`` (pattern,
    completion) pairs and their CPT indices. Complete data: slices of the patterns and
    :func:`family_indices`; with missing cells: index arrays of one
    :func:`completion_groups` group and :func:`completion_indices`."""
    hidden_states = hidden_configurations(network)
    groups = completion_groups(network, patterns)
    if groups is None:
        step = max(1, chunk_cells // hidden_states.shape[0])
        for start in range(0, patterns.shape[0], step):
            rows = slice(start, min(start + step, patterns.shape[0]))
            yield rows, family_indices(network, patterns[rows], hidden_states)
        return
    for group, size in groups:
        step = max(1, chunk_cells // size)
        for start in range(0, group.size, step):
            rows = group[start:start + step]
            yield rows, completion_indices(network, patterns[rows], size)


def _log_tables(network: Network, cpts) -> list:
    with np.errstate(divide="ignore"):
        return [np.log(table).ravel() for table in node_tables(network, cpts)]


def posterior_chunks(network: Network, cpts, patterns: np.ndarray,
                     chunk_cells: int = ENUMERATION_CHUNK_CELLS):
    """Yield ``(rows, indices, weights, log_marginal)`` for chunks of patterns.

    The chunks are those of :func:`completed_chunks`: ``rows`` selects them in ``patterns``
    (a slice; an index array when cells are missing) and ``indices`` are their CPT indices
    per (pattern, completion). A pattern's completions are the joint states of the hidden
    nodes and then of its missing cells, so ``weights[p, h] = p(h, x_mis | x_obs)`` (reshaped
    to ``(rows, H_hidden, -1)`` and summed over the last axis: ``p(h | x_obs)``) and
    ``log_marginal[p] = log p(x_obs)``. Raises :class:`~hiddenbn.errors.DataError` if a
    pattern has probability zero (only deterministic nodes can cause that).
    """
    logs = _log_tables(network, cpts)
    for rows, indices in completed_chunks(network, patterns, chunk_cells):
        log_joint = sum(log_table[index] for log_table, index in zip(logs, indices))
        top = log_joint.max(axis=1)
        if not np.all(np.isfinite(top)):
            bad = np.arange(patterns.shape[0])[rows][np.flatnonzero(~np.isfinite(top))[0]]
            raise DataError(f"observed pattern {patterns[bad].tolist()} has probability zero "
                            "under the model (its deterministic nodes cannot produce it)")
        weights = np.exp(log_joint - top[:, None])
        total = weights.sum(axis=1)
        weights /= total[:, None]
        yield rows, indices, weights, top + np.log(total)


def enumeration_statistics(network: Network, cpts, patterns: np.ndarray, counts: np.ndarray):
    """Expected counts (paper 003 Eq. 11) and log-likelihood by enumerating hidden states.

    A missing cell is enumerated with the hidden nodes (:func:`posterior_chunks`), so
    ``E(N_ijk)`` are the counts of the data completed in both, and every CPT row of them
    adds up to the expected number of cases in its parent configuration.

    Parameters
    ----------
    network : Network
        A discrete network.
    cpts : list
        One ``(q_i, r_i)`` table per node, ``None`` for deterministic nodes.
    patterns, counts : ndarray
        Observed patterns (columns = observed nodes in network order, cells possibly
        :data:`~hiddenbn.data.MISSING`) and their counts.

    Returns
    -------
    expected : list of ndarray
        ``E(N_ijk)`` as a ``(q_i, r_i)`` array per node (deterministic nodes included).
    log_likelihood : float
        ``sum_p counts_p log p(x_p)`` (of the observed part of each pattern).
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
    """The gather E step; cell ``(p, j)`` reads and adds to row ``offsets[j] + x_pj`` (see
    :func:`latent_class_statistics` for where a missing cell lands)."""
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


@numba.njit(cache=True, nogil=True)
def _latent_class_serial(patterns, counts, weights, table, offsets):
    """The gather E step in one serial pass, for small data: ``E(N_h)``, ``E(N_{j,h,x})`` of
    the observed cells, the class mass of the cases missing each variable (zero without missing
    cells) and the log-likelihood, as :func:`latent_class_statistics` combines them."""
    m, n = patterns.shape
    k = weights.shape[0]
    log_weights, log_table = np.log(weights), np.log(table)
    class_counts = np.zeros(k)
    table_counts = np.zeros(table.shape)
    missing_mass = np.zeros((n, k))
    joint = np.empty(k)
    log_likelihood = 0.0
    for p in range(m):
        joint[:] = log_weights
        for j in range(n):
            if patterns[p, j] >= 0:
                row = offsets[j] + patterns[p, j]
                for h in range(k):
                    joint[h] += log_table[row, h]
        log_likelihood += _weigh_row(joint, counts[p])
        for h in range(k):
            class_counts[h] += joint[h]
        for j in range(n):
            if patterns[p, j] >= 0:
                row = offsets[j] + patterns[p, j]
                for h in range(k):
                    table_counts[row, h] += joint[h]
            else:
                for h in range(k):
                    missing_mass[j, h] += joint[h]
    return class_counts, table_counts, missing_mass, log_likelihood


def latent_class_design(patterns, cardinalities):
    """Indicators ``Z[p, (j, s)] = [x_pj = s]`` of every non-last state ``s < r_j - 1``; when a
    cell is missing, one column ``[x_pj missing]`` per variable; then a column of ones.

    With it the latent class E step is two matrix products (BLAS): ``log p(x_p, h) =
    Z[p] @ C`` where the rows of ``C`` are ``log theta_{j,s,h} - log theta_{j,last,h}``, against
    the missing columns ``-log theta_{j,last,h}`` (a missing cell's row block is zero, and its
    column takes its last-state factor back out of the ones column: the cell contributes
    ``log 1``) and, against the ones column, ``log p(h) + sum_j log theta_{j,last,h}``; and
    ``Z^T @ (counts * posterior)`` gives ``E(N_{j,s,h})`` of the observed cells, the class mass
    of the cases missing each variable, and, in its last row, ``E(N_h)``. Worth it when the
    states are few (:func:`prefers_design`); the numba gather kernel wins for many states.
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    free = cards - 1
    variable = np.repeat(np.arange(cards.size), free)
    state = np.arange(free.sum()) - state_offsets(free)[variable]
    absent = patterns == MISSING
    extra = cards.size if absent.any() else 0
    design = np.ones((patterns.shape[0], free.sum() + extra + 1))
    design[:, :free.sum()] = patterns[:, variable] == state
    if extra:
        design[:, free.sum():-1] = absent
    return design


def takes_serial_pass(patterns, classes: int) -> bool:
    """Whether :func:`latent_class_statistics` does the E step of ``patterns`` with ``classes``
    classes in one serial pass (:data:`SERIAL_MAX_CELLS`), never reading a design."""
    return patterns.size * classes <= SERIAL_MAX_CELLS


def prefers_design(n_patterns: int, cardinalities, missing: bool = False) -> bool:
    """True when :func:`latent_class_design` fits in memory and beats the gather kernel: few
    columns per variable (``missing``: the data have missing cells, so the design has one
    more per variable)."""
    free = np.asarray(cardinalities, dtype=np.int64) - 1
    columns = free.sum() + (free.size if missing else 0)
    return bool(columns <= DESIGN_MAX_MEAN_STATES * free.size
                and n_patterns * columns <= DESIGN_MAX_CELLS)


# ``exp`` of the design E step is written out below so that LLVM vectorises it: NumPy's float64
# exp is scalar libm code on AVX2 machines (it was ~1/3 of the E step at (64, 32, 10^5)); it is
# within 1 ulp of libm's, and the same on any thread (no fastmath: plain IEEE operations).
_LOG2_E = 1.4426950408889634
_LN2_HIGH = 6.93147180369123816490e-01  # fdlibm's split of log 2: n * _LN2_HIGH is exact
_LN2_LOW = 1.90821492927058770002e-10
_ROUNDING_SHIFT = 6755399441055744.0  # 1.5 * 2^52: x + it - it rounds x to an integer
#: Below this, ``exp`` is under the smallest normal number and is taken as 0.
_EXP_FLOOR = -708.0


@intrinsic
def _float_from_bits(typingctx, bits):
    """The float64 whose IEEE bits are the int64 ``bits`` (a bitcast, vectorisable)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))
    return types.float64(types.int64), codegen


@numba.njit(cache=True, inline="always")
def _exp_nonpositive(x):
    """``exp(x)`` for ``x <= 0`` to ~1 ulp, 0 below :data:`_EXP_FLOOR` (< 3.1e-308): Cody-Waite
    reduction ``x = n log 2 + r``, ``|r| <= log(2) / 2``, and ``exp(r)`` by its Taylor
    polynomial of degree 13 (remainder < 2e-18)."""
    clipped = max(x, _EXP_FLOOR)
    n = (clipped * _LOG2_E + _ROUNDING_SHIFT) - _ROUNDING_SHIFT
    r = (clipped - n * _LN2_HIGH) - n * _LN2_LOW
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    value = p * _float_from_bits((np.int64(n) + 1023) << 52)  # times 2^n, n >= -1022
    return value if x >= _EXP_FLOOR else 0.0


@numba.njit(cache=True, nogil=True)
def _weigh_rows(joint, counts):
    """In place: row p of ``joint`` (``log p(x_p, h)``) becomes ``counts_p p(h | x_p)``;
    returns ``sum_p counts_p log p(x_p)``. One pass per row (its maximum, exp, sum, scale)
    while the row is in L1."""
    m, k = joint.shape
    log_likelihood = 0.0
    for p in range(m):
        row = joint[p]
        top = row[0]
        for h in range(1, k):
            top = max(top, row[h])
        for h in range(k):
            row[h] = _exp_nonpositive(row[h] - top)
        total = 0.0
        for h in range(k):
            total += row[h]
        scale = counts[p] / total
        for h in range(k):
            row[h] *= scale
        log_likelihood += counts[p] * (top + np.log(total))
    return log_likelihood


def _design_block(design, counts, coefficients, start, stop):
    """E step of rows ``start:stop``: ``(posterior^T Z, sum_p counts_p log p(x_p))``."""
    rows = design[start:stop]
    joint = rows @ coefficients
    log_likelihood = _weigh_rows(joint, counts[start:stop])
    # posterior^T Z, transposed by the caller: OpenBLAS runs this orientation ~20% faster for a
    # C-ordered Z
    return joint.T @ rows, log_likelihood


@functools.lru_cache(maxsize=32)
def _design_layout(offsets: bytes, size: int):
    """Rows of the packed table for :func:`_statistics_by_design`: ``(last-state row of each
    variable, the free rows, the last-state row of each free row's variable, where each
    variable's free rows start among them)``, cached as :func:`_kernel_layout` is (they depend on the
    cardinalities alone, and the set-up cost a third of a small E step)."""
    offsets = np.frombuffer(offsets, dtype=np.int64)
    cards = np.diff(np.append(offsets, size))
    last = offsets + cards - 1
    return (last, np.delete(np.arange(size), last), np.repeat(last, cards - 1),
            state_offsets(cards - 1))


@numba.njit(cache=True)
def _design_coefficients(log_weights, log_table, last, free_rows, last_of_free, n_columns):
    """``C`` of :func:`latent_class_design`'s docstring: rows ``log theta_{j,s,h} - log
    theta_{j,last,h}``, then (when the design has missing columns) ``-log theta_{j,last,h}``,
    then ``log p(h) + sum_j log theta_{j,last,h}``."""
    k = log_table.shape[1]
    coefficients = np.empty((n_columns, k))
    for i in range(free_rows.size):
        for h in range(k):
            coefficients[i, h] = log_table[free_rows[i], h] - log_table[last_of_free[i], h]
    if n_columns > free_rows.size + 1:  # missing columns
        for j in range(last.size):
            for h in range(k):
                coefficients[free_rows.size + j, h] = -log_table[last[j], h]
    ones = n_columns - 1
    for h in range(k):
        total = log_table[last[0], h]
        for j in range(1, last.size):
            total += log_table[last[j], h]
        coefficients[ones, h] = log_weights[h] + total
    return coefficients


@numba.njit(cache=True)
def _design_counts(expected, size, last, free_rows, free_offsets):
    """Unpack ``posterior^T Z`` (shape ``(k, columns)``): ``(E(N_h), E(N_{j,h,x})`` of the
    observed cells, class mass of the cases missing each variable, ``(n, k)``, zero without
    missing columns)``."""
    k, n_columns = expected.shape
    n = last.size
    class_counts = expected[:, n_columns - 1].copy()
    missing_mass = np.zeros((n, k))
    if n_columns > free_rows.size + 1:
        for j in range(n):
            for h in range(k):
                missing_mass[j, h] = expected[h, free_rows.size + j]
    table_counts = np.empty((size, k))
    for i in range(free_rows.size):
        for h in range(k):
            table_counts[free_rows[i], h] = expected[h, i]
    # the last state of a variable takes its observed mass that no free state took; every
    # observed variable has at least two states, so each has a free row; the difference
    # cancels to a tiny negative number when a last-state probability is ~1e-16 (the M step
    # would then give a negative probability), so clip it at the true lower bound 0
    for j in range(n):
        stop = free_offsets[j + 1] if j + 1 < n else free_rows.size
        for h in range(k):
            taken = expected[h, free_offsets[j]]
            for i in range(free_offsets[j] + 1, stop):
                taken += expected[h, i]
            table_counts[last[j], h] = max(class_counts[h] - missing_mass[j, h] - taken, 0.0)
    return class_counts, table_counts, missing_mass


def _statistics_by_design(design, counts, weights, table, offsets):
    """:func:`latent_class_statistics` by BLAS: ``(E(N_h), E(N_{j,h,x}) of the observed
    cells, class mass of the cases missing each variable (n, k) or None (complete data),
    log-likelihood)``."""
    last, free_rows, last_of_free, free_offsets = _design_layout(
        np.asarray(offsets, dtype=np.int64).tobytes(), table.shape[0])
    coefficients = _design_coefficients(np.log(weights), np.log(table), last, free_rows,
                                        last_of_free, design.shape[1])
    counts = np.asarray(counts, dtype=np.float64)
    blocks = map_blocks(
        lambda start, stop: _design_block(design, counts, coefficients, start, stop),
        block_starts(design.shape[0], DESIGN_BLOCK_ROWS),
        parallel=design.shape[0] * table.shape[1] * last.size >= PARALLEL_MIN_CELLS)
    # the blocks' sums are added in block order: the same result on any number of threads
    expected, log_likelihood = blocks[0][0].copy(), blocks[0][1]
    for block_expected, block_log_likelihood in blocks[1:]:
        expected += block_expected
        log_likelihood += block_log_likelihood
    class_counts, table_counts, missing_mass = _design_counts(expected, table.shape[0], last,
                                                              free_rows, free_offsets)
    missing_columns = design.shape[1] > free_rows.size + 1
    return (class_counts, table_counts, missing_mass if missing_columns else None,
            float(log_likelihood))


@functools.lru_cache(maxsize=32)
def _kernel_layout(offsets: bytes, size: int):
    """Rows of the gather kernel's table for data with missing cells: a blank row (log 1 = 0)
    before each variable's states, so a missing cell, ``MISSING = -1``, reads it (a factor 1,
    with no branch in the kernel) and leaves its class mass there. ``(row of each packed table row, blank row of
    each variable, kernel offsets)``, cached (an E step is often ~50 us; nothing writes to
    them, and read-only arrays would slow numba's dispatch down)."""
    offsets = np.frombuffer(offsets, dtype=np.int64)
    shift = np.arange(1, offsets.size + 1)
    state_rows = np.arange(size) + np.repeat(shift, np.diff(np.append(offsets, size)))
    return state_rows, offsets + shift - 1, offsets + shift


def _statistics_by_kernel(patterns, counts, weights, table, offsets, missing: bool):
    """:func:`latent_class_statistics` by the gather kernel, returning what
    :func:`_statistics_by_design` does."""
    with np.errstate(divide="ignore"):
        log_weights, log_table = np.log(weights), np.log(table)
    kernel_offsets = offsets
    if missing:
        state_rows, blank_rows, kernel_offsets = _kernel_layout(
            np.asarray(offsets, dtype=np.int64).tobytes(), table.shape[0])
        padded = np.zeros((table.shape[0] + offsets.size, table.shape[1]))
        padded[state_rows] = log_table
        log_table = padded
    blocks = max(1, min(LATENT_CLASS_BLOCKS, patterns.shape[0]))
    with _threads_for(patterns.size * weights.size):
        class_stats, table_stats, log_likelihood = _latent_class_kernel(
            np.ascontiguousarray(patterns, dtype=np.int32), np.asarray(counts, dtype=np.float64),
            log_weights, np.ascontiguousarray(log_table), kernel_offsets, blocks)
    class_counts, table_counts = class_stats.sum(axis=0), table_stats.sum(axis=0)
    if not missing:
        return class_counts, table_counts, None, float(log_likelihood.sum())
    return (class_counts, table_counts[state_rows], table_counts[blank_rows],
            float(log_likelihood.sum()))


def latent_class_statistics(patterns, counts, weights, table, offsets, design=None,
                            missing=None):
    """E step of the latent class model in packed form.

    A missing cell contributes the factor 1 to ``p(x_p, h)`` (its variable, a leaf, summed
    out) and is then completed from the class: with ``M_{j,h}`` the expected number of cases
    of class ``h`` missing ``X_j``, ``E(N_{j,h,x}) = A_{j,h,x} + theta_{j,x,h} M_{j,h}``
    where ``A`` counts the observed cells, the expected counts of the data completed in the
    class and the missing cells (paper 003 Eq. 11), whose rows add up to ``E(N_h)``.

    Parameters
    ----------
    patterns : int ndarray, shape (m, n)
        Observed patterns; column ``j`` takes states ``0..r_j - 1``, or
        :data:`~hiddenbn.data.MISSING`.
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
    missing : bool, optional
        Whether ``patterns`` hold missing cells (looked up when not given); complete data take
        the kernel's plain layout.

    Returns
    -------
    class_counts : ndarray, shape (k,)
        ``E(N_h)``.
    table_counts : ndarray, shape (sum r_j, k)
        ``E(N_{j,h,x})`` in the layout of ``table`` (paper 003 Eq. 11).
    log_likelihood : float
        ``sum_p counts_p log p(x_p)`` of the observed cells.
    """
    if takes_serial_pass(patterns, weights.size):
        class_counts, table_counts, missing_mass, log_likelihood = _latent_class_serial(
            patterns, np.asarray(counts, dtype=np.float64), weights, table, offsets)
        if not missing_mass.any():  # complete data
            missing_mass = None
    elif design is not None and np.all(weights > 0) and np.all(table > 0):
        class_counts, table_counts, missing_mass, log_likelihood = _statistics_by_design(
            design, counts, weights, table, offsets)
    else:
        if missing is None:
            missing = bool((patterns == MISSING).any())
        class_counts, table_counts, missing_mass, log_likelihood = _statistics_by_kernel(
            patterns, counts, weights, table, offsets, missing)
    if missing_mass is not None:  # complete the missing cells from their classes
        cards = np.diff(np.append(offsets, table.shape[0]))
        table_counts += table * np.repeat(missing_mass, cards, axis=0)
    return class_counts, table_counts, log_likelihood
