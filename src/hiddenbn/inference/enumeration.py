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
  (paper 003 Sec. 3, paper 002 Sec. 2.2), at ``O(m n k / g)`` per E step: consecutive
  variables are taken ``g`` at a time (:func:`state_groups`), each group's ``log p(x_group |
  h)`` tabulated for all its joint states, so a pattern's ``log p(x_p, h)`` is a sum of one
  row per group and its posterior is added to one row of counts per group (a numba pass,
  parallel over fixed blocks of patterns; from wide data of ~128 variables with ~64 states,
  one per group, to 10^5 binary patterns, ~6 per group). For a few thousand patterns of
  variables with few states, two BLAS products on the state-indicator matrix of
  :func:`latent_class_design` instead.

Both are bit-identical for any number of threads and any numba cache state
(:mod:`hiddenbn.util.threads` says how).

Missing cells (:data:`~hiddenbn.data.MISSING`) are missing at random: the likelihood of a
pattern is that of its observed part, ``p(x_obs) = sum_{h, x_mis} p(x_obs, x_mis, h)``, and the
expected counts are those of the data completed in the hidden nodes *and* the missing cells,
``E(N_ijk | x_obs)`` summed over the cases (paper 003 Eq. 11 with the missing cells among the
unobserved values: standard EM, so the M step stays the MAP update of paper 003). Enumeration
completes each pattern in the joint states of the hidden nodes and of its missing cells
(:func:`completion_indices`; deterministic nodes keep working through their 0/1 tables); the
latent class E step gives a missing cell the factor 1 (a leaf summed out) and then completes it
from its class (``theta_{j,x,h}`` times the class mass of the cases missing ``X_j``).

Everything is in log space: a class or state with probability zero contributes ``-inf`` to the
log joint and zero to the posterior, and no pattern-count is ever divided by zero.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

from hiddenbn.data import MISSING
from hiddenbn.errors import DataError, HiddenbnError, option
from hiddenbn.models.network import Network, node_tables
from hiddenbn.util.limits import GROUP_TABLE_BYTES, GROUP_TABLE_ROWS, approximately
from hiddenbn.util.threads import one_blas_thread

#: Largest number of joint hidden configurations that :func:`enumeration_statistics` enumerates.
MAX_HIDDEN_CONFIGURATIONS = 1 << 16
#: Pattern-by-configuration cells processed at once (bounds the memory of enumeration).
ENUMERATION_CHUNK_CELLS = 1 << 22
#: Fixed number of pattern blocks of the latent class E step (results do not depend on threads).
LATENT_CLASS_BLOCKS = 16
#: Below this many pattern x group x class cells the latent class E step runs on one thread.
PARALLEL_MIN_CELLS = 1 << 22
#: :func:`latent_class_design` is used for variables of up to this many columns on average,
#: from this many pattern x variable x class cells up to this many pattern x class cells
#: (measured: ``python -m benchmarks em``).
DESIGN_MAX_MEAN_STATES = 4
#: Fewest pattern x variable x class cells of the design path (see above).
DESIGN_MIN_CELLS = 1 << 16
#: Most pattern x class cells of the design path (see above).
DESIGN_MAX_PATTERN_CLASSES = 1 << 14


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
                            f"{option('--missing', 'drop')} or data with fewer missing cells per "
                            "case")
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


def state_offsets(cardinalities) -> np.ndarray:
    """Start row of each observed variable in the packed ``(sum r_j, k)`` table."""
    return np.concatenate([[0], np.cumsum(cardinalities)[:-1]]).astype(np.int64)


# ``exp`` of the latent class E step is written out below so that LLVM vectorises it: NumPy's
# float64 exp is scalar libm code on AVX2 machines (it was ~1/3 of the E step at (64, 32,
# 10^5)); it is within 1 ulp of libm's, and the same on any thread (no fastmath: plain IEEE
# operations).
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


@numba.njit(cache=True, nogil=True, inline="always")
def _weigh_row(row, count):
    """In place: ``log p(x, h)`` becomes ``count p(h | x)``; returns ``count log p(x)``. One
    pass while the row is in L1 (its maximum, exp, sum, scale). A pattern of probability zero
    gets zero weights and ``-inf``."""
    k = row.shape[0]
    top = row[0]
    for h in range(1, k):
        top = max(top, row[h])
    if top == -np.inf:
        row[:] = 0.0
        return -np.inf
    for h in range(k):
        row[h] = _exp_nonpositive(row[h] - top)
    total = 0.0
    for h in range(k):
        total += row[h]
    scale = count / total
    for h in range(k):
        row[h] *= scale
    return count * (top + np.log(total))


# --- the E step over groups of variables (any data) ------------------------------------------
class StateGroups(NamedTuple):
    """Consecutive observed variables taken together, and each pattern's joint state of each
    group, for :func:`latent_class_statistics`.

    A group of variables with ``S`` joint states gets a table of ``log p(x_group | h)`` for
    all ``S`` states at once; then ``log p(x_p, h)`` is one table row per group, and the
    pattern's posterior is added to one row of counts per group: the work per pattern
    falls by the number of variables per group (the "Four Russians" method of Boolean matrix
    products, Arlazarov et al. 1970), and the tables' cost, ``S`` rows per group, is paid once
    per E step, not per pattern.

    Attributes
    ----------
    codes : int32 ndarray, shape (m, n_groups)
        Row of pattern ``p``'s joint state of group ``g`` in the stacked tables:
        ``code_starts[g] + sum_j digit_j * stride_j``, the variables' digits in mixed radix
        with the first variable of the group changing fastest.
    group_starts : int ndarray, shape (n_groups + 1,)
        First variable of each group (the groups are consecutive variables), then ``n``.
    radices : int ndarray, shape (n,)
        Digits of each variable: its states, plus one (the last digit) when the data miss some
        of its cells: a missing cell adds ``log 1`` and collects the class mass of the cases
        missing it.
    code_starts : int ndarray, shape (n_groups + 1,)
        First row of each group's table in the stack, then the number of rows.
    """

    codes: np.ndarray
    group_starts: np.ndarray
    radices: np.ndarray
    code_starts: np.ndarray


#: The cost of a table row relative to a pattern's, per variable it sums (building the tables
#: and summing the counts back per variable run slower than the patterns' pass; measured).
GROUP_TABLE_ROW_COST = 3


def _consecutive_groups(radices, max_states: int) -> np.ndarray:
    """Start of each group when consecutive variables are grouped while their joint states
    stay within ``max_states`` (a variable with more states is a group of its own)."""
    starts, states = [0], 1
    for j, radix in enumerate(radices):
        if states * radix > max_states and j > starts[-1]:
            starts.append(j)
            states = 1
        states *= int(radix)
    return np.array(starts + [len(radices)], dtype=np.int64)


def _group_states(radices, group_starts) -> np.ndarray:
    return np.array([math.prod(int(r) for r in radices[a:b])
                     for a, b in zip(group_starts[:-1], group_starts[1:])], dtype=np.int64)


def state_groups(patterns, cardinalities, classes: int,
                 max_states: int | None = None) -> StateGroups:
    """:class:`StateGroups` of ``patterns`` for a model of ``classes`` classes: consecutive
    variables while their joint states stay within ``max_states`` (1: every variable alone).

    By default the group size minimises the work of an E step, ``2 m`` per group (a pass
    adding table rows, a pass adding the posterior to counts) plus
    :data:`GROUP_TABLE_ROW_COST` per table row and variable summed, among groups of up to 1,
    2, 4, ... joint states whose tables have at most :data:`~hiddenbn.util.limits.GROUP_TABLE_ROWS`
    rows in all, fewer when their copies would pass :data:`~hiddenbn.util.limits.GROUP_TABLE_BYTES`
    (unless single variables have more): a few patterns take pairs or single
    variables (the plain gather of ``log theta_{j, x_j, h}``), 10^5 binary patterns groups of
    about six.
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    radices = cards + (patterns == MISSING).any(axis=0)
    m = patterns.shape[0]
    # the tables and a block of counts per block of patterns, float64 each
    max_rows = min(GROUP_TABLE_ROWS,
                   GROUP_TABLE_BYTES // (8 * classes * (LATENT_CLASS_BLOCKS + 1)))
    best = None
    for limit in ((max_states,) if max_states
                  else (1 << power for power in range(GROUP_TABLE_ROWS.bit_length()))):
        group_starts = _consecutive_groups(radices, limit)
        states = _group_states(radices, group_starts)
        if best is not None and states.sum() > max_rows:
            break
        cost = 2 * m * states.size + GROUP_TABLE_ROW_COST * int(
            states @ (np.diff(group_starts) + 1))
        if best is None or cost < best[0]:
            best = cost, group_starts, states
    _, group_starts, states = best
    code_starts = np.concatenate([[0], np.cumsum(states)]).astype(np.int64)
    codes = np.empty((m, states.size), dtype=np.int32)
    for g, (first, stop) in enumerate(zip(group_starts[:-1], group_starts[1:])):
        # a group at a time: no int64 copy of all the patterns
        cells = patterns[:, first:stop]
        digits = np.where(cells == MISSING, cards[first:stop], cells).astype(np.int64)
        strides = np.concatenate([[1], np.cumprod(radices[first:stop - 1])])
        codes[:, g] = code_starts[g] + digits @ strides
    return StateGroups(codes, group_starts, radices, code_starts)


@numba.njit(cache=True, nogil=True)
def _group_tables(weights, table, offsets, groups):
    """``tables[code_starts[g] + s, h] = sum_{j in g} log theta_{j, x_j(s), h}`` (a missing
    digit adds ``log 1``), plus ``log p(h)`` in group 0's rows: ``log p(x_p, h)`` is the sum of
    a pattern's rows (the naive-Bayes factorisation of paper 003 Sec. 3). Each variable
    multiplies the states built so far by its digits."""
    k = table.shape[1]
    log_table = np.log(table)
    tables = np.zeros((groups.code_starts[-1], k))
    for g in range(groups.group_starts.size - 1):
        base, states = groups.code_starts[g], 1
        for j in range(groups.group_starts[g], groups.group_starts[g + 1]):
            cards = (offsets[j + 1] if j + 1 < offsets.size else table.shape[0]) - offsets[j]
            # the highest digit first: digit 0 then reads the states built so far last
            for x in range(groups.radices[j] - 1, -1, -1):
                for s in range(states):
                    for h in range(k):
                        tables[base + x * states + s, h] = tables[base + s, h] + (
                            log_table[offsets[j] + x, h] if x < cards else 0.0)
            states *= groups.radices[j]
    log_weights = np.log(weights)
    for row in range(groups.code_starts[1]):
        for h in range(k):
            tables[row, h] += log_weights[h]
    return tables


@numba.njit(cache=True, nogil=True, inline="always")
def _group_rows(codes, counts, tables, row_counts, start, stop):
    """Patterns ``start:stop``: each one's ``log p(x_p, h)`` from its table rows, weighed into
    ``counts_p p(h | x_p)`` and added to the same rows of ``row_counts``; returns their
    ``sum_p counts_p log p(x_p)``."""
    n_groups = codes.shape[1]
    k = tables.shape[1]
    joint = np.empty(k)
    log_likelihood = 0.0
    for p in range(start, stop):
        code = codes[p, 0]
        for h in range(k):
            joint[h] = tables[code, h]
        for g in range(1, n_groups):
            code = codes[p, g]
            for h in range(k):
                joint[h] += tables[code, h]
        log_likelihood += _weigh_row(joint, counts[p])
        for g in range(n_groups):
            code = codes[p, g]
            for h in range(k):
                row_counts[code, h] += joint[h]
    return log_likelihood


@numba.njit(cache=True, nogil=True)
def _group_summaries(row_counts, offsets, size, groups):
    """From the counts per table row: ``E(N_h)`` (group 0's rows), ``E(N_{j,h,x})`` of the
    observed cells in the packed layout (``(size, k)``) and the class mass of the cases
    missing each variable ``(n, k)``: a variable's count of digit ``x`` sums the rows of its
    group whose states have that digit."""
    k = row_counts.shape[1]
    n = offsets.size
    table_counts = np.zeros((size, k))
    missing_mass = np.zeros((n, k))
    for g in range(groups.group_starts.size - 1):
        base = groups.code_starts[g]
        states = groups.code_starts[g + 1] - base
        stride = 1
        for j in range(groups.group_starts[g], groups.group_starts[g + 1]):
            radix = groups.radices[j]
            cards = (offsets[j + 1] if j + 1 < offsets.size else size) - offsets[j]
            for high in range(0, states, stride * radix):
                for x in range(radix):
                    target = table_counts[offsets[j] + x] if x < cards else missing_mass[j]
                    for low in range(stride):
                        source = row_counts[base + high + x * stride + low]
                        for h in range(k):
                            target[h] += source[h]
            stride *= radix
    class_counts = np.zeros(k)
    for row in range(groups.code_starts[1]):
        for h in range(k):
            class_counts[h] += row_counts[row, h]
    return class_counts, table_counts, missing_mass


@numba.njit(cache=True, nogil=True)
def _group_statistics(groups, counts, weights, table, offsets):
    """:func:`_statistics_by_groups` in one serial pass (small data: one call, no threads):
    ``(E(N_h), E(N_{j,h,x})`` of the observed cells, class mass of the cases missing each
    variable, log-likelihood)``."""
    tables = _group_tables(weights, table, offsets, groups)
    row_counts = np.zeros(tables.shape)
    log_likelihood = _group_rows(groups.codes, counts, tables, row_counts, 0,
                                 groups.codes.shape[0])
    class_counts, table_counts, missing_mass = _group_summaries(row_counts, offsets,
                                                                table.shape[0], groups)
    return class_counts, table_counts, missing_mass, log_likelihood


@numba.njit(cache=True, nogil=True, parallel=True)
def _group_statistics_in_blocks(groups, counts, weights, table, offsets, n_blocks):
    """:func:`_group_statistics` over ``n_blocks`` fixed blocks of patterns on numba's
    threads, the blocks' sums added in block order (the same on any number of threads)."""
    tables = _group_tables(weights, table, offsets, groups)
    m = groups.codes.shape[0]
    block_counts = np.zeros((n_blocks,) + tables.shape)
    block_log_likelihood = np.zeros(n_blocks)
    block_size = (m + n_blocks - 1) // n_blocks
    for b in numba.prange(n_blocks):
        block_log_likelihood[b] = _group_rows(groups.codes, counts, tables, block_counts[b],
                                              b * block_size, min(m, (b + 1) * block_size))
    row_counts = block_counts[0]
    log_likelihood = block_log_likelihood[0]
    for b in range(1, n_blocks):
        row_counts += block_counts[b]
        log_likelihood += block_log_likelihood[b]
    class_counts, table_counts, missing_mass = _group_summaries(row_counts, offsets,
                                                                table.shape[0], groups)
    return class_counts, table_counts, missing_mass, log_likelihood


def _statistics_by_groups(groups: StateGroups, counts, weights, table, offsets):
    """:func:`latent_class_statistics` over :func:`state_groups`: ``(E(N_h), E(N_{j,h,x}) of
    the observed cells, class mass of the cases missing each variable (n, k) or None (complete
    data), log-likelihood)``."""
    counts = np.asarray(counts, dtype=np.float64)
    cells = groups.codes.size * weights.size
    if cells < PARALLEL_MIN_CELLS:
        statistics = _group_statistics(groups, counts, weights, table, offsets)
    else:
        statistics = _group_statistics_in_blocks(groups, counts, weights, table, offsets,
                                                 LATENT_CLASS_BLOCKS)
    class_counts, table_counts, missing_mass, log_likelihood = statistics
    # complete data leave every missing digit's mass zero
    return (class_counts, table_counts, missing_mass if missing_mass.any() else None,
            float(log_likelihood))


# --- the E step by BLAS products (moderate data, variables of few states) --------------------
def latent_class_design(patterns, cardinalities):
    """Indicators ``Z[p, (j, s)] = [x_pj = s]`` of every non-last state ``s < r_j - 1``; when a
    cell is missing, one column ``[x_pj missing]`` per variable; then a column of ones.

    With it the latent class E step is two matrix products (BLAS): ``log p(x_p, h) =
    Z[p] @ C`` where the rows of ``C`` are ``log theta_{j,s,h} - log theta_{j,last,h}``, against
    the missing columns ``-log theta_{j,last,h}`` (a missing cell's row block is zero, and its
    column takes its last-state factor back out of the ones column: the cell contributes
    ``log 1``) and, against the ones column, ``log p(h) + sum_j log theta_{j,last,h}``; and
    ``Z^T @ (counts * posterior)`` gives ``E(N_{j,s,h})`` of the observed cells, the class mass
    of the cases missing each variable, and, in its last row, ``E(N_h)``. Worth it for a few
    thousand patterns of variables with few states (:func:`prefers_design`); past that the
    products run slowly on such tall, narrow matrices and :func:`state_groups` wins.
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


def prefers_design(patterns, cardinalities, classes: int) -> bool:
    """True when :func:`latent_class_design`'s BLAS products beat :func:`state_groups` (both
    measured: ``python -m benchmarks em``): few states per variable (a missing cell
    adds a column), from :data:`DESIGN_MIN_CELLS` pattern x variable x class cells (below,
    BLAS set-up costs more than the work) to :data:`DESIGN_MAX_PATTERN_CLASSES` pattern x
    class cells (past it the group pass, whose work per pattern falls as its groups grow)."""
    free = np.asarray(cardinalities, dtype=np.int64) - 1
    columns = free.sum() + (free.size if (patterns == MISSING).any() else 0)
    return bool(columns <= DESIGN_MAX_MEAN_STATES * free.size
                and patterns.shape[0] * classes <= DESIGN_MAX_PATTERN_CLASSES
                and patterns.size * classes >= DESIGN_MIN_CELLS)


@numba.njit(cache=True, nogil=True)
def _weigh_rows(joint, counts):
    """In place: row p of ``joint`` (``log p(x_p, h)``) becomes ``counts_p p(h | x_p)``;
    returns ``sum_p counts_p log p(x_p)`` (:func:`_weigh_row` row by row)."""
    log_likelihood = 0.0
    for p in range(joint.shape[0]):
        log_likelihood += _weigh_row(joint[p], counts[p])
    return log_likelihood


@functools.lru_cache(maxsize=32)
def _design_layout(offsets: bytes, size: int):
    """Rows of the packed table for :func:`_statistics_by_design`: ``(last-state row of each
    variable, the free rows, the last-state row of each free row's variable, where each
    variable's free rows start among them)``, cached (they depend on the cardinalities alone,
    and the set-up cost a third of a small E step)."""
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
    """:func:`latent_class_statistics` by BLAS (on one thread: the same bits on any number of
    cores), returning what :func:`_statistics_by_groups` does."""
    last, free_rows, last_of_free, free_offsets = _design_layout(
        np.asarray(offsets, dtype=np.int64).tobytes(), table.shape[0])
    coefficients = _design_coefficients(np.log(weights), np.log(table), last, free_rows,
                                        last_of_free, design.shape[1])
    with one_blas_thread():
        joint = design @ coefficients
        log_likelihood = _weigh_rows(joint, np.asarray(counts, dtype=np.float64))
        # posterior^T Z: OpenBLAS runs this orientation ~20% faster for a C-ordered Z
        expected = joint.T @ design
    class_counts, table_counts, missing_mass = _design_counts(expected, table.shape[0], last,
                                                              free_rows, free_offsets)
    missing_columns = design.shape[1] > free_rows.size + 1
    return (class_counts, table_counts, missing_mass if missing_columns else None,
            float(log_likelihood))


def latent_class_statistics(patterns, counts, weights, table, offsets, design=None,
                            groups=None):
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
        :func:`latent_class_design` of ``patterns``: use BLAS products (while every
        probability is positive; zeros take the groups).
    groups : StateGroups, optional
        :func:`state_groups` of ``patterns`` (made here when not given; an EM engine keeps
        them).

    Returns
    -------
    class_counts : ndarray, shape (k,)
        ``E(N_h)``.
    table_counts : ndarray, shape (sum r_j, k)
        ``E(N_{j,h,x})`` in the layout of ``table`` (paper 003 Eq. 11).
    log_likelihood : float
        ``sum_p counts_p log p(x_p)`` of the observed cells.
    """
    if design is not None and np.all(weights > 0) and np.all(table > 0):
        class_counts, table_counts, missing_mass, log_likelihood = _statistics_by_design(
            design, counts, weights, table, offsets)
    else:
        if groups is None:
            groups = state_groups(patterns, np.diff(np.append(offsets, table.shape[0])),
                                  weights.size)
        class_counts, table_counts, missing_mass, log_likelihood = _statistics_by_groups(
            groups, counts, weights, table, offsets)
    if missing_mass is not None:  # complete the missing cells from their classes
        cards = np.diff(np.append(offsets, table.shape[0]))
        table_counts += table * np.repeat(missing_mass, cards, axis=0)
    return class_counts, table_counts, log_likelihood
