"""Exact E step on tree-structured networks by two-pass sum-product message passing.

On a network where every node has at most one parent (a hierarchical latent class model, paper
002, or a forest of them) the posteriors that the E step needs follow from Pearl's belief
propagation on trees, i.e. the sum-product algorithm: one pass from the leaves up and one back
down, per observed pattern. Its cost is ``O(m sum_i r_pa(i) r_i)`` for ``m`` patterns, linear in
the number of nodes, where enumeration
(:func:`hiddenbn.inference.enumeration.enumeration_statistics`) pays for every joint configuration
of the hidden nodes.

The roots of a forest are the children of a virtual node with one state, so one root and many
are the same case and ``p(x_p)`` is what reaches the virtual node. With ``e_i`` the evidence
of node ``i`` (the indicator of its observed state; all ones for a hidden node or a missing
cell, which sums the node out) and ``theta_c[j, k] = p(X_c = k | X_pa(c) = j)``:

* upward: ``lambda_i = e_i * prod_{c child of i} mu_c`` with the message
  ``mu_c[j] = sum_k theta_c[j, k] lambda_c[k]``; ``lambda_i[k] = p(x below i | X_i = k)``;
* downward: ``a_c = pi_i * e_i * prod_{c' child of i, c' != c} mu_c'`` and
  ``pi_c = a_c @ theta_c``; ``a_c[j] = p(X_i = j, x outside the subtree of c)``.

Then ``p(X_pa(c) = j, X_c = k | x_p) = a_c[j] theta_c[j, k] lambda_c[k] / Z_p`` with
``Z_p = sum_j a_c[j] mu_c[j] = p(x_p)`` (:func:`tree_family_posteriors`), and the expected
sufficient statistics of paper 003 Eq. 11 are
``E(N_cjk) = theta_c[j, k] sum_p (c_p / Z_p) a_c[p, j] lambda_c[p, k]`` (:func:`tree_statistics`).
A missing cell's node is completed like a hidden one (its expected counts are those of the data
completed in it, as enumeration gives). Nothing assumes that a CPT row adds up to one: with
node ``a``'s CPT zero outside column ``s`` (``X_a = s`` clamped) the same passes give
``log p(x_p, X_a = s)`` and that joint's counts.

The products exclude one child by prefix and suffix products (Shafer-Shenoy), never by division,
so zero probabilities need no special case. Every vector is rescaled per pattern after each
product, by ``2 ** 256`` or ``2 ** -256`` at a time whenever its maximum leaves
``[2 ** -256, 2 ** 256)`` (exact: powers of two, and rarely needed; without it a node with
hundreds of observed children would underflow); the upward pass adds up the powers of two, so
``log p(x_p) = log lambda_virtual + e log 2``, and the downward pass drops them (each family
posterior is normalised by its own ``Z_p``). Zeros propagate up unchanged, so a pattern of
probability zero reaches the virtual node as zero and is refused
(:class:`~hiddenbn.errors.DataError`); the downward pass cannot meet ``Z_p = 0`` but for an
underflow of extreme parameters, which is refused the same way.

Both functions run one numba kernel, :func:`_tree_block`, on the tree flattened into arrays
(:func:`_layout`: cardinalities, CSR children, offsets into one packed array of every CPT, the
observed column of each node); a flag chooses between adding up expected counts and writing
each pattern's family posteriors. The kernel loops over the patterns itself, :data:`CHUNK` at a
time through each node (every vector is a states-by-patterns array, the innermost loops run
over the patterns), so the cost per pattern is a few multiply-adds per CPT cell and is linear
in the nodes; the NumPy version it replaced, vectorised over blocks of patterns, paid call
overhead per node per block, and its blocks shrank as the network grew (2 to 8 times slower on
one thread, and superlinear in the nodes). The kernel takes one block of patterns; the blocks,
as many as the data alone decide (:func:`_block_count`), run on
:func:`hiddenbn.util.threads.map_blocks` (the kernel releases the GIL), each adding into its own
partial counts, which are added up afterwards in block order: the result is the same to the
last bit on any number of threads (:mod:`hiddenbn.util.threads`); small work runs on one thread
(:data:`PARALLEL_MIN_PRODUCTS`). A ``parallel=True`` kernel with ``numba.prange`` over the
same blocks ran as fast but took 18 to 23 s to compile cold against about 7 s for this one
(numba optimises the callee again inside the parallel loop's function), and its OpenMP threads
spin while they wait, which cost twice the time when another process held a core.
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np

from hiddenbn.errors import DataError
from hiddenbn.models.network import Network
from hiddenbn.util.threads import block_starts, map_blocks

#: Most blocks of patterns per E step (fixed by the data, never by the number of threads).
TREE_BLOCKS = 64
#: Fewest patterns per block (fewer patterns make fewer blocks).
BLOCK_MIN_PATTERNS = 256
#: Most cells of the per-block partial expected counts (bounds their memory: 128 MB).
PARTIAL_MAX_CELLS = 1 << 24
#: Below this many pattern-by-CPT-cell products per E step the kernel runs on one thread.
PARALLEL_MIN_PRODUCTS = 1 << 20
#: Patterns the kernel takes through each node at once (its innermost loops run over them).
CHUNK = 32
#: A vector is rescaled, by 2 ** 256 at a time, when its maximum leaves [2 ** -256, 2 ** 256).
_LOW, _HIGH, _UP, _DOWN = 2.0 ** -256, 2.0 ** 256, 2.0 ** 256, 2.0 ** -256


def is_tree(network: Network) -> bool:
    """True for a discrete network whose nodes have at most one parent each (a tree or a forest)
    and which has no deterministic node, the networks :func:`tree_statistics` handles."""
    return (network.kind == "discrete"
            and all(len(parents) <= 1 for parents in network.parents)
            and not any(network.is_deterministic(i) for i in range(network.n_nodes)))


def tree_children(network: Network) -> list[list[int]]:
    """The children of every node, in network order, and last those of the virtual node with
    one state above the roots: the roots."""
    children: list[list[int]] = [[] for _ in range(network.n_nodes + 1)]
    for i, parents in enumerate(network.parents):
        children[parents[0] if parents else network.n_nodes].append(i)
    return children


@functools.lru_cache(maxsize=32)
def _layout(network: Network) -> tuple:
    """The tree as flat arrays for the kernel, node ``n`` being the virtual node (one state)
    above the roots: ``(cardinalities, table offsets, child starts, children, observed
    columns, state offsets, message offsets, work rows)``.

    Node ``i``'s CPT is ``table[table_offsets[i]:table_offsets[i + 1]]`` (``(q_i, r_i)`` in C
    order), its children ``children[child_starts[i]:child_starts[i + 1]]`` (CSR), its
    ``lambda_i`` and belief are rows ``state_offsets[i]:state_offsets[i + 1]`` of the kernel's
    state-by-pattern arrays, its message ``mu_i`` (``r_pa(i)`` rows) starts at row
    ``message_offsets[i]``, its observed column is ``columns[i]`` (-1: hidden), and ``work``
    rows hold any node's suffix products. Cached per network (nothing writes to the arrays).
    """
    n = network.n_nodes
    children = tree_children(network)
    parent = [p[0] if p else n for p in network.parents]
    cards = np.array([*network.cardinalities, 1], dtype=np.int64)
    index = functools.partial(np.asarray, dtype=np.int64)
    table_offsets = index(np.cumsum([0] + [cards[parent[i]] * cards[i] for i in range(n)]))
    child_starts = index(np.cumsum([0] + [len(c) for c in children]))
    child_list = index([c for cs in children for c in cs])
    columns = np.full(n + 1, -1, dtype=np.int64)
    columns[network.observed_indices] = np.arange(network.observed_indices.size)
    state_offsets = index(np.cumsum(np.concatenate([[0], cards])))
    message_offsets = index(np.cumsum([0] + [cards[parent[i]] for i in range(n)]))
    work = max(len(children[i]) * int(cards[i]) for i in range(n + 1))
    return (cards, table_offsets, child_starts, child_list, columns, state_offsets,
            message_offsets, work)


@numba.njit(cache=True)
def _rescale(values, start, stop, w, tops, exponents):
    """Per pattern ``p < w``: rows ``start:stop`` of column ``p`` of ``values`` times
    ``2 ** -256`` or ``2 ** 256`` (exact) until their maximum is in ``[2 ** -256, 2 ** 256)``,
    and ``exponents[p]`` plus the powers of two taken out. A column of zeros stays as it is
    (its pattern has probability zero); so does one with a maximum of inf or NaN."""
    for p in range(w):
        tops[p] = values[start, p]
    for k in range(start + 1, stop):
        for p in range(w):
            tops[p] = max(tops[p], values[k, p])
    for p in range(w):
        top = tops[p]
        if _LOW <= top < _HIGH or not 0.0 < top < np.inf:
            continue
        while top < _LOW:
            top *= _UP
            exponents[p] -= 256
            for k in range(start, stop):
                values[k, p] *= _UP
        while top >= _HIGH:
            top *= _DOWN
            exponents[p] += 256
            for k in range(start, stop):
                values[k, p] *= _DOWN


@numba.njit(cache=True, nogil=True)
def _tree_block(patterns, counts, table, cards, table_offsets, child_starts, child_list, columns,
           state_offsets, message_offsets, work_size, start, stop, b, posterior, partial,
           log_marginal):
    """Sum-product on patterns ``start:stop`` (the module docstring has the equations).

    ``posterior`` False: adds to row ``b`` of ``partial`` the block's
    ``sum_p (c_p / Z_p) a_c[p, j] lambda_c[p, k]`` per CPT cell (packed like ``table``; times
    ``theta_c[j, k]`` they are ``E(N_cjk)``). ``posterior`` True: writes rows ``start:stop`` of
    ``partial``, shape ``(m, cells)``, the family posteriors ``p(X_pa(c) = j, X_c = k | x_p)``.
    Both write ``log_marginal[start:stop]``. Returns ``(bad, sum_p c_p log p(x_p))`` with
    ``bad`` the block's first pattern of probability zero, ``m + p`` for a first pattern ``p``
    with a state out of range, or -1 (then the block stops).

    The patterns go through the passes :data:`CHUNK` at a time, every vector a
    ``(states, CHUNK)`` array whose innermost loops run over the patterns; each pattern's
    arithmetic is the same whatever the chunk or block it is in.
    """
    m = patterns.shape[0]
    n = cards.shape[0] - 1
    max_card = 1
    for i in range(n + 1):
        max_card = max(max_card, cards[i])
    log_two = math.log(2.0)
    lambdas = np.empty((state_offsets[n + 1], CHUNK))  # lambda_i, node by node
    beliefs = np.empty((state_offsets[n + 1], CHUNK))  # pi_i * e_i, what i passes down
    messages = np.empty((message_offsets[n], CHUNK))  # mu_i, node by node
    suffix = np.empty((work_size, CHUNK))  # prod_{v >= u} mu_{c_v}, children c_v of a node
    prefix = np.empty((max_card, CHUNK))  # belief_i * prod_{v < u} mu_{c_v}
    outside = np.empty((max_card, CHUNK))  # a_c
    states = np.empty((n + 1, CHUNK), dtype=np.int64)  # observed state, -1: summed out
    exponents = np.zeros(CHUNK, dtype=np.int64)  # powers of two taken out of lambda
    dropped = np.zeros(CHUNK, dtype=np.int64)  # those taken out on the way down
    tops = np.empty(CHUNK)
    ratio = np.empty(CHUNK)  # c_p / Z_p, or 1 / Z_p
    weighted = np.empty((max_card, CHUNK))  # a_c[j] c_p / Z_p, or a_c[j] / Z_p
    bad, log_likelihood = -1, 0.0
    for chunk in range(start, stop, CHUNK):
        w = min(CHUNK, stop - chunk)
        for p in range(w):
            exponents[p] = 0
            for i in range(n + 1):
                state = -1 if columns[i] < 0 else patterns[chunk + p, columns[i]]
                if state < -1 or state >= cards[i]:
                    state = -2
                states[i, p] = state
                if state == -2 and bad < 0:
                    bad = m + chunk + p
        if bad >= 0:
            break
        # --- upward: children before parents (network order reversed), the virtual node last
        for step in range(n + 1):
            i = n - 1 - step if step < n else n
            lo, hi = state_offsets[i], state_offsets[i + 1]
            for k in range(hi - lo):
                for p in range(w):
                    lambdas[lo + k, p] = 1.0 if states[i, p] < 0 or states[i, p] == k else 0.0
            for t in range(child_starts[i], child_starts[i + 1]):
                start = message_offsets[child_list[t]]
                for k in range(hi - lo):
                    for p in range(w):
                        lambdas[lo + k, p] *= messages[start + k, p]
                _rescale(lambdas, lo, hi, w, tops, exponents)
            if i == n:
                break
            r, start, offset = hi - lo, message_offsets[i], table_offsets[i]
            for j in range((table_offsets[i + 1] - offset) // r):
                row = offset + j * r
                for p in range(w):
                    messages[start + j, p] = table[row] * lambdas[lo, p]
                for k in range(1, r):
                    for p in range(w):
                        messages[start + j, p] += table[row + k] * lambdas[lo + k, p]
        root = state_offsets[n]
        for p in range(w):
            if not lambdas[root, p] > 0.0 and bad < 0:  # zero all the way up
                bad = chunk + p
        if bad >= 0:
            break
        for p in range(w):
            log_marginal[chunk + p] = math.log(lambdas[root, p]) + exponents[p] * log_two
            log_likelihood += counts[chunk + p] * log_marginal[chunk + p]
        # --- downward: the virtual node, then network order (parents before children)
        for p in range(w):
            beliefs[root, p] = 1.0
        for step in range(n + 1):
            i = n if step == 0 else step - 1
            first, last = child_starts[i], child_starts[i + 1]
            if first == last:
                continue
            lo, r = state_offsets[i], cards[i]
            # rows u r:(u + 1) r of suffix = prod_{v >= u} mu_{c_v} for u > 0, rescaled
            for u in range(last - first - 1, 0, -1):
                start = message_offsets[child_list[first + u]]
                for k in range(r):
                    for p in range(w):
                        suffix[u * r + k, p] = messages[start + k, p] * (
                            1.0 if first + u == last - 1 else suffix[(u + 1) * r + k, p])
                _rescale(suffix, u * r, (u + 1) * r, w, tops, dropped)
            for k in range(r):
                for p in range(w):
                    prefix[k, p] = beliefs[lo + k, p]
            for u in range(last - first):
                c = child_list[first + u]
                for k in range(r):
                    for p in range(w):
                        outside[k, p] = prefix[k, p] * (
                            1.0 if first + u == last - 1 else suffix[(u + 1) * r + k, p])
                _rescale(outside, 0, r, w, tops, dropped)
                start, offset = message_offsets[c], table_offsets[c]
                c_lo, c_r = state_offsets[c], cards[c]
                for p in range(w):
                    ratio[p] = outside[0, p] * messages[start, p]
                for j in range(1, r):
                    for p in range(w):
                        ratio[p] += outside[j, p] * messages[start + j, p]
                for p in range(w):  # Z_p is p(x_p) times a positive scale
                    if not ratio[p] > 0.0 and bad < 0:
                        bad = chunk + p
                    ratio[p] = (1.0 if posterior else counts[chunk + p]) / ratio[p]
                for j in range(r):
                    for p in range(w):
                        weighted[j, p] = outside[j, p] * ratio[p]
                    row = offset + j * c_r
                    for k in range(c_r):
                        if posterior:
                            for p in range(w):
                                partial[chunk + p, row + k] = (
                                    weighted[j, p] * table[row + k] * lambdas[c_lo + k, p])
                        else:
                            total = 0.0
                            for p in range(w):
                                total += weighted[j, p] * lambdas[c_lo + k, p]
                            partial[b, row + k] += total
                if child_starts[c] < child_starts[c + 1]:
                    # belief_c = (a_c @ theta_c) * e_c, rescaled
                    for k in range(c_r):
                        for p in range(w):
                            beliefs[c_lo + k, p] = outside[0, p] * table[offset + k]
                    for j in range(1, r):
                        row = offset + j * c_r
                        for k in range(c_r):
                            for p in range(w):
                                beliefs[c_lo + k, p] += outside[j, p] * table[row + k]
                    for k in range(c_r):
                        for p in range(w):
                            if states[c, p] >= 0 and states[c, p] != k:
                                beliefs[c_lo + k, p] = 0.0
                    _rescale(beliefs, c_lo, c_lo + c_r, w, tops, dropped)
                if first + u < last - 1:
                    for k in range(r):
                        for p in range(w):
                            prefix[k, p] *= messages[start + k, p]
                    _rescale(prefix, 0, r, w, tops, dropped)
        if bad >= 0:
            break
    return bad, log_likelihood


def _block_count(n_patterns: int, cells: int) -> int:
    """Blocks of patterns of the kernel: at most :data:`TREE_BLOCKS`, of at least
    :data:`BLOCK_MIN_PATTERNS` patterns, with at most :data:`PARTIAL_MAX_CELLS` partial counts
    in all; a function of the data and the network, never of the threads."""
    return max(1, min(TREE_BLOCKS, n_patterns // BLOCK_MIN_PATTERNS,
                      PARTIAL_MAX_CELLS // max(cells, 1)))


def _sum_product(network: Network, cpts, patterns, counts, posterior: bool):
    """:func:`_tree_block` on every block of patterns, on the network's layout; raises
    :class:`~hiddenbn.errors.DataError` for a pattern of probability zero (or a state out of
    range). Returns ``(partial, log_likelihood per block, log_marginal, table offsets)``."""
    cards, table_offsets, *structure = _layout(network)
    if len(cpts) != network.n_nodes:
        raise ValueError(f"{len(cpts)} CPTs for a network of {network.n_nodes} nodes")
    tables = [np.asarray(table, dtype=np.float64) for table in cpts]
    for i, table in enumerate(tables):
        if table.size != table_offsets[i + 1] - table_offsets[i]:
            raise ValueError(f"node {network.names[i]!r}: a CPT of shape {table.shape}, "
                             f"expected ({network.n_parent_configurations(i)}, {cards[i]})")
    table = np.concatenate([t.ravel() for t in tables])
    patterns = np.asarray(patterns)
    if patterns.ndim != 2 or patterns.shape[1] != network.observed_indices.size:
        raise ValueError(f"patterns of shape {patterns.shape}: expected one column per observed "
                         f"node ({network.observed_indices.size})")
    kernel_patterns = np.ascontiguousarray(patterns, dtype=np.int32)
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    m = patterns.shape[0]
    n_blocks = (max(1, min(TREE_BLOCKS, m // BLOCK_MIN_PATTERNS)) if posterior
                else _block_count(m, table.size))
    per_block = -(-m // n_blocks)  # rounded up, then to whole chunks; the last block is short
    block_size = max(1, -(-per_block // CHUNK)) * CHUNK
    bounds = block_starts(m, block_size) or [(0, 0)]
    partial = np.zeros((m, table.size) if posterior else (len(bounds), table.size))
    log_marginal = np.zeros(m)
    results = map_blocks(
        lambda start, stop: _tree_block(kernel_patterns, counts, table, cards, table_offsets,
                                        *structure, start, stop, start // block_size,
                                        posterior, partial, log_marginal),
        bounds, parallel=m * table.size >= PARALLEL_MIN_PRODUCTS)
    bad = np.array([b for b, _ in results])
    log_likelihood = np.array([ll for _, ll in results])
    flagged = bad[bad >= 0]
    if flagged.size:  # the first bad pattern of the first block that has one: the first
        first = int(flagged[0])
        if first >= m:
            raise DataError(f"pattern {patterns[first - m].tolist()} has a state outside its "
                            "node's states")
        raise DataError(f"observed pattern {patterns[first].tolist()} has probability zero "
                        "under the model")
    return partial, log_likelihood, log_marginal, table_offsets


def tree_statistics(network: Network, cpts, patterns: np.ndarray, counts: np.ndarray):
    """Expected counts (paper 003 Eq. 11) and log-likelihood by sum-product on a tree.

    The contract of :func:`hiddenbn.inference.enumeration.enumeration_statistics`, for a network
    that :func:`is_tree` accepts, at a cost that follows the network (``O(m sum_i r_pa(i) r_i)``),
    not the number of joint hidden states.

    Parameters
    ----------
    network : Network
        A tree or forest (:func:`is_tree`).
    cpts : list
        One ``(q_i, r_i)`` table per node (nonnegative; rows need not add up to one).
    patterns, counts : ndarray
        Observed patterns (columns = observed nodes in network order, cells possibly
        :data:`~hiddenbn.data.MISSING`) and their counts.

    Returns
    -------
    expected : list of ndarray
        ``E(N_ijk)`` as a ``(q_i, r_i)`` array per node, missing cells completed.
    log_likelihood : float
        ``sum_p counts_p log p(x_p)`` (of the observed part of each pattern).

    Raises :class:`~hiddenbn.errors.DataError` if a pattern has probability zero.
    """
    counts = np.asarray(counts, dtype=np.float64)
    partial, log_likelihood, _, offsets = _sum_product(network, cpts, patterns, counts, False)
    sums = partial.sum(axis=0)  # the blocks in order: the same bits on any number of threads
    expected = [np.asarray(table, dtype=np.float64)
                * sums[offsets[i]:offsets[i + 1]].reshape(np.shape(table))
                for i, table in enumerate(cpts)]
    return expected, float(log_likelihood.sum())


def tree_family_posteriors(network: Network, cpts, patterns: np.ndarray):
    """Per pattern, the posterior of every node's family, by sum-product on a tree.

    Parameters
    ----------
    network : Network
        A tree or forest (:func:`is_tree`).
    cpts : list
        One ``(q_i, r_i)`` table per node (nonnegative; rows need not add up to one).
    patterns : ndarray
        Observed patterns (columns = observed nodes in network order, cells possibly
        :data:`~hiddenbn.data.MISSING`).

    Returns
    -------
    posteriors : list of ndarray
        Per node ``i``, shape ``(m, q_i, r_i)``: ``p(X_pa(i) = j, X_i = k | x_p)`` (a root has
        ``q_i = 1``; an observed node's posterior sits on its observed state, or is completed
        when its cell is missing). Views of one ``(m, sum_i q_i r_i)`` array.
    log_marginal : ndarray, shape (m,)
        ``log p(x_p)`` of the observed part of each pattern.

    Raises :class:`~hiddenbn.errors.DataError` if a pattern has probability zero.
    """
    m = np.shape(patterns)[0]
    partial, _, log_marginal, offsets = _sum_product(network, cpts, patterns, np.ones(m), True)
    posteriors = [partial[:, offsets[i]:offsets[i + 1]].reshape(
                      m, network.n_parent_configurations(i), network.cardinalities[i])
                  for i in range(network.n_nodes)]
    return posteriors, log_marginal
