"""The exact marginal likelihood ``log p(D | S)`` of a discrete network with hidden nodes.

Paper 003 (Sec. 3) judged every approximation against Laplace because "exact computations of
the marginal likelihood are not possible". For small data they are: ``p(D | S)`` is the sum,
over every completion ``H`` of the hidden values, of the complete-data Bayesian-Dirichlet score
``p(D, H | S)`` (paper 003 Eqs. 4-5, Cooper & Herskovits). :func:`exact_log_evidence` organises
that sum so it goes far beyond brute force (for complete data it has one term: Eq. 5,
:func:`hiddenbn.models.priors.bd_log_marginal`, at :func:`complete_data_counts`):

1. Cases are grouped by observed pattern: what matters of a completion is, for each pattern
   ``p`` with ``c_p`` cases, how many of them get each joint hidden configuration ``h`` (a
   composition of ``c_p``, weighted by the multinomial number ``c_p! / prod_h n_h!`` of case
   assignments that give it).
2. Completions are merged by their sufficient statistics ``N_ijk`` as the patterns are added
   one at a time (dynamic programming over a table "statistics -> log total weight"): Eq. 5
   depends on a completion only through ``N_ijk``.
3. Relabelling the states of one hidden node permutes the ``N_ijk`` but leaves Eq. 5 unchanged
   under the symmetric prior ``alpha_ijk = alpha``, so statistics are kept in a canonical label
   order (the per-label blocks sorted), which divides the table by up to ``k!``.

Cost is the number of distinct canonical statistics, which grows polynomially in the counts of
repeated patterns and exponentially only in the number of distinct patterns. Measured on this
machine (``benchmarks/bench_evidence.py``; peak table size, time): paper 003's journal setting,
N = 10 with two hidden states and 64 binary features, 512 statistics in 0.05 s; the same with
N = 16, 32768 in ~4 s, N = 20, 524288 in ~45 s; ``2:2,2,2,2`` at N = 40, 78k in 0.7 s;
``3:2,2,2,2`` at N = 20, 461k in ~7 s (N = 30 exceeds :data:`MAX_STATES` and is refused);
``4:2x32`` at N = 8, 2795 in 0.2 s; the HLC ``2(2(2,2),2(2,2))`` (three hidden nodes, only one
canonicalised) at N = 12, 580k in ~27 s. Beyond that use the Monte-Carlo estimator
(:mod:`hiddenbn.scores.smc`).

Missing cells (:data:`hiddenbn.data.MISSING`, missing at random) are more hidden values:
``p(D_obs | S)`` sums Eq. 5 over every completion of the hidden nodes and the missing cells, so a
pattern's configurations are the joint states of both (:func:`cell_layout`); relabelling a
hidden node still maps completions to completions, so the canonical order stays valid.

Statistics are deduplicated by a random 64-bit linear hash of the statistics vector (two
distinct vectors collide with probability ``2**-64``; with ``M`` distinct vectors the chance of
any collision is below ``M**2 / 2**65``, < 1e-7 for the largest tables allowed here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp

from hiddenbn.data import Dataset
from hiddenbn.errors import DataError, HiddenbnError, ParameterError, option
from hiddenbn.inference.enumeration import (completion_groups, completion_indices, family_indices,
                                            hidden_configurations)
from hiddenbn.models.network import Network, deterministic_table
from hiddenbn.util import limits

#: Most distinct (canonical) sufficient statistics the exact enumeration keeps at once.
MAX_STATES = 1 << 21
#: Refuse before expanding more than this many times ``max_states`` (statistics x splits).
EXPANSION_FACTOR = 8
#: Largest block of integers (states x splits x cells) expanded at once.
EXPANSION_CELLS = 1 << 25
#: Largest layout (patterns x completions x nodes) built when missing cells pad the layout.
MAX_PADDED_CELLS = 1 << 26
#: Seed of the random hash that identifies equal statistics (fixed: results are reproducible).
HASH_SEED = 0x9E3779B97F4A7C15


@dataclass(frozen=True)
class CellLayout:
    """Where each case's completion lands among the parameters' sufficient statistics.

    The cells are the entries ``(i, j, k)`` of every stochastic node's CPT, node by node, row by
    row (deterministic nodes have no parameters and no cells).

    Attributes
    ----------
    cells : int ndarray, shape (m, H, n_stochastic)
        ``cells[p, h]``: the cell of each stochastic node when pattern ``p`` is completed with
        configuration ``h``: a joint state of the hidden nodes (a row of
        :func:`~hiddenbn.inference.enumeration.hidden_configurations`) and, with missing cells, of
        the pattern's missing cells (:func:`~hiddenbn.inference.enumeration.completion_indices`;
        patterns missing more cells have more configurations, ``H`` is the largest number and the
        others are padded).
    possible : bool ndarray, shape (m, H)
        False where a deterministic node rules the configuration out, and for padding.
    n_cells : int
    row_of_cell : int ndarray, shape (n_cells,)
        The CPT row (parent configuration) each cell belongs to, numbered globally.
    row_starts : int ndarray, shape (n_rows,)
        First cell of each row (rows are contiguous).
    row_states : int ndarray, shape (n_rows,)
        ``r_i`` of each row.
    node_of_cell : int ndarray, shape (n_cells,)
        Index of the stochastic node owning each cell.
    stochastic : int ndarray
        Network indices of the stochastic nodes, in order.
    """

    cells: np.ndarray
    possible: np.ndarray
    n_cells: int
    row_of_cell: np.ndarray
    row_starts: np.ndarray
    row_states: np.ndarray
    node_of_cell: np.ndarray
    stochastic: np.ndarray


def cell_layout(network: Network, data: Dataset) -> CellLayout:
    """The :class:`CellLayout` of ``data`` (pattern counts, columns in any order)."""
    if network.kind != "discrete":
        raise HiddenbnError(f"the marginal likelihood is implemented for discrete networks; this "
                            f"network has type {network.kind!r}")
    data = data.for_network(network)
    indices, possible = _completions(network, data.patterns)
    stochastic = [i for i in range(network.n_nodes) if not network.is_deterministic(i)]
    for i in range(network.n_nodes):
        if network.is_deterministic(i):
            possible &= deterministic_table(network, i).ravel()[indices[i]] > 0
    impossible = np.flatnonzero(~possible.any(axis=1))
    if impossible.size:
        raise DataError(f"observed pattern {data.patterns[impossible[0]].tolist()} has "
                        "probability zero under the model (its deterministic nodes cannot "
                        "produce it)")
    sizes = [network.n_parent_configurations(i) * network.cardinalities[i] for i in stochastic]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    cells = np.stack([starts[t] + indices[i] for t, i in enumerate(stochastic)], axis=-1)
    row_states = np.concatenate([np.full(network.n_parent_configurations(i),
                                         network.cardinalities[i]) for i in stochastic]
                                or [np.zeros(0)]).astype(np.int64)
    row_starts = np.concatenate([[0], np.cumsum(row_states)[:-1]]).astype(np.int64)
    return CellLayout(
        cells=cells.astype(np.int64), possible=possible, n_cells=int(starts[-1]),
        row_of_cell=np.repeat(np.arange(row_states.size), row_states),
        row_starts=row_starts, row_states=row_states,
        node_of_cell=np.repeat(np.arange(len(stochastic)), sizes),
        stochastic=np.asarray(stochastic, dtype=np.int64))


def _completions(network: Network, patterns: np.ndarray):
    """CPT indices of every pattern completed in its hidden nodes and missing cells, shape
    ``(m, H)`` per node, padded to the largest number of completions ``H``; and which
    (pattern, completion) pairs are not padding."""
    groups = completion_groups(network, patterns)
    if groups is None:
        indices = family_indices(network, patterns, hidden_configurations(network))
        return indices, np.ones(indices[0].shape, dtype=bool)
    width = max(size for _, size in groups)
    if patterns.shape[0] * width * network.n_nodes > MAX_PADDED_CELLS:
        raise HiddenbnError(f"the patterns with most missing cells have {width} completions each; "
                            f"padding every pattern of {patterns.shape[0]} to as many exceeds "
                            f"{MAX_PADDED_CELLS} cells; use {option('--missing', 'drop')} or data "
                            "with fewer missing cells per case")
    indices = [np.zeros((patterns.shape[0], width), dtype=np.int64)
               for _ in range(network.n_nodes)]
    possible = np.zeros((patterns.shape[0], width), dtype=bool)
    for rows, size in groups:
        for whole, part in zip(indices, completion_indices(network, patterns[rows], size)):
            whole[rows, :size] = part
        possible[rows, :size] = True
    return indices, possible


def complete_data_counts(network: Network, data: Dataset) -> list:
    """``N_ijk`` of a data set that observes every node, as ``(q_i, r_i)`` arrays."""
    if network.hidden_indices.size:
        raise HiddenbnError("complete-data counts need every node observed; this network has "
                            "hidden nodes (use the expected counts of an EM fit)")
    data = data.for_network(network)
    data.require_complete("complete-data counts (use the expected counts of an EM fit)")
    indices = family_indices(network, data.patterns, np.zeros((1, 0), dtype=np.int64))
    return [np.bincount(index[:, 0], weights=data.counts.astype(float),
                        minlength=network.n_parent_configurations(i) * network.cardinalities[i])
            .reshape(network.n_parent_configurations(i), network.cardinalities[i])
            for i, index in enumerate(indices)]


def log_bd_score(layout: CellLayout, statistics: np.ndarray, alpha: float) -> np.ndarray:
    """Paper 003 Eq. 5 for each row of ``statistics`` (shape ``(M, n_cells)``, the ``N_ijk``).

    ``sum_ij [log Gamma(r_i alpha) - log Gamma(r_i alpha + N_ij)] +
    sum_ijk [log Gamma(alpha + N_ijk) - log Gamma(alpha)]``.
    """
    statistics = np.asarray(statistics, dtype=np.float64)
    if layout.n_cells == 0:
        return np.zeros(statistics.shape[0])
    cell_term = (gammaln(alpha + statistics) - gammaln(alpha)).sum(axis=1)
    row_totals = np.add.reduceat(statistics, layout.row_starts, axis=1)
    prior = layout.row_states * alpha
    row_term = (gammaln(prior) - gammaln(prior + row_totals)).sum(axis=1)
    return cell_term + row_term


# --- label symmetry ---------------------------------------------------------------------------
def exchangeable_node(network: Network) -> int | None:
    """The hidden node whose state labels are canonicalised, or None.

    Relabelling a hidden node ``g`` permutes the cells whose family contains ``g``; Eq. 5 with
    ``alpha_ijk = alpha`` is invariant unless a deterministic node reads ``g``'s values. The
    node with most states is chosen (the largest saving, ``k!``).
    """
    candidates = [i for i in network.hidden_indices
                  if network.cardinalities[i] > 1 and not network.is_deterministic(i)
                  and not any(network.is_deterministic(c) for c in network.children(i))]
    if not candidates:
        return None
    return int(max(candidates, key=lambda i: network.cardinalities[i]))


def label_blocks(network: Network, layout: CellLayout, node: int) -> np.ndarray:
    """Cells grouped by the state of ``node`` in their family: shape ``(k, cells per state)``.

    Row ``h`` lists, in a fixed order, the cells whose family has ``node = h``; the same
    position in two rows holds corresponding cells (same node, same other parents, same value).
    """
    k = network.cardinalities[node]
    blocks = [[] for _ in range(k)]
    for t, i in enumerate(layout.stochastic):
        family = (*network.parents[i], int(i))
        if node not in family:
            continue
        cards = [network.cardinalities[f] for f in family]
        first = int(np.flatnonzero(layout.node_of_cell == t)[0])
        digits = np.indices(cards).reshape(len(cards), -1)  # C order = cell order
        position = family.index(node)
        for h in range(k):
            blocks[h].extend(first + np.flatnonzero(digits[position] == h))
    return np.asarray(blocks, dtype=np.int64)


def _hash_vector(size: int, stream: int) -> np.ndarray:
    rng = np.random.default_rng([HASH_SEED, stream])
    return rng.integers(0, np.iinfo(np.uint64).max, size=size, dtype=np.uint64, endpoint=True)


def _canonicalise(states: np.ndarray, blocks: np.ndarray, block_hash: np.ndarray) -> None:
    """Sort each state's per-label blocks by their hash, in place."""
    block_values = states[:, blocks]  # (M, k, cells per state)
    keys = block_values.astype(np.uint64) @ block_hash
    order = np.argsort(keys, axis=1, kind="stable")
    states[:, blocks] = np.take_along_axis(block_values, order[:, :, None], axis=1)


def _merge(states: np.ndarray, log_weights: np.ndarray, state_hash: np.ndarray):
    """Add up the weights of equal statistics (rows of ``states``) in log space."""
    keys = states.astype(np.uint64) @ state_hash
    order = np.argsort(keys, kind="stable")
    keys, states, log_weights = keys[order], states[order], log_weights[order]
    first = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    top = np.maximum.reduceat(log_weights, first)
    group = np.repeat(np.arange(first.size), np.diff(np.append(first, keys.size)))
    total = np.bincount(group, weights=np.exp(log_weights - top[group]), minlength=first.size)
    return states[first], top + np.log(total)


def compositions(total: int, parts: int) -> np.ndarray:
    """Every ordered way to write ``total`` as ``parts`` non-negative integers, shape (Q, parts)."""
    if parts == 1:
        return np.array([[total]], dtype=np.int64)
    rows = [np.concatenate([[first], rest]) for first in range(total, -1, -1)
            for rest in compositions(total - first, parts - 1)]
    return np.asarray(rows, dtype=np.int64)


def _refuse(max_states: int):
    raise HiddenbnError(f"the exact marginal likelihood needs more than {max_states} distinct "
                        f"sufficient statistics for this data set; use {option('--method', 'mc')} "
                        "(sequential Monte Carlo) instead")


@dataclass(frozen=True)
class ExactEvidence:
    """The exact ``log p(D | S)`` and the size of the enumeration that gave it."""

    log_evidence: float
    peak_states: int
    canonical_node: str | None


def exact_log_evidence(network: Network, data: Dataset, alpha: float = 1.0,
                       max_states: int = MAX_STATES) -> ExactEvidence:
    """``log p(D | S)`` exactly: every completion of the hidden values, summed (Eqs. 4-5).

    Parameters
    ----------
    network : Network
        A discrete network; hidden and deterministic nodes allowed.
    data : Dataset
        Pattern counts over the observed nodes.
    alpha : float
        Symmetric Dirichlet prior ``alpha_ijk = alpha`` on every CPT row (paper 003 Eq. 3).
    max_states : int
        Refuse (:class:`~hiddenbn.errors.HiddenbnError`) when more distinct canonical
        statistics than this would be kept.

    Notes
    -----
    See the module docstring for the organisation. The enumeration never approximates: the
    only failure mode is running out of the ``max_states`` budget, which raises.
    """
    limits.check_dirichlet_alpha(alpha, ParameterError)
    data = data.for_network(network)
    layout = cell_layout(network, data)
    node = exchangeable_node(network)
    blocks = None if node is None else label_blocks(network, layout, node)
    state_hash = _hash_vector(layout.n_cells, 0)
    block_hash = None if blocks is None else _hash_vector(blocks.shape[1], 1)
    states = np.zeros((1, layout.n_cells), dtype=np.int32)
    log_weights = np.zeros(1)
    peak = 1
    # rarest patterns first: their few splits keep the table small while it is built up
    for p in np.argsort(data.counts, kind="stable"):
        count = int(data.counts[p])
        allowed = np.flatnonzero(layout.possible[p])
        # the splits are counted before they are built: a large count has too many to list
        if states.shape[0] * math.comb(count + allowed.size - 1, allowed.size - 1) \
                > EXPANSION_FACTOR * max_states:
            _refuse(max_states)
        splits = compositions(count, allowed.size)
        contribution = np.zeros((allowed.size, layout.n_cells), dtype=np.int32)
        for h_index, h in enumerate(allowed):
            np.add.at(contribution[h_index], layout.cells[p, h], 1)
        added = (splits @ contribution).astype(np.int32)  # (Q, cells)
        log_multinomial = gammaln(count + 1.0) - gammaln(splits + 1.0).sum(axis=1)
        chunk = max(1, EXPANSION_CELLS // max(1, splits.shape[0] * layout.n_cells))
        parts = []
        for start in range(0, states.shape[0], chunk):
            expanded = (states[start:start + chunk, None, :] + added[None]).reshape(
                -1, layout.n_cells)
            weights = (log_weights[start:start + chunk, None] + log_multinomial[None]).ravel()
            if blocks is not None:
                _canonicalise(expanded, blocks, block_hash)
            parts.append(_merge(expanded, weights, state_hash))
        states, log_weights = _merge(np.concatenate([s for s, _ in parts]),
                                     np.concatenate([w for _, w in parts]), state_hash)
        peak = max(peak, states.shape[0])
        if states.shape[0] > max_states:
            _refuse(max_states)
    scores = np.concatenate([log_bd_score(layout, states[s:s + 65536], alpha)
                             for s in range(0, states.shape[0], 65536)])
    return ExactEvidence(float(logsumexp(log_weights + scores)), peak,
                         None if node is None else network.names[node])
