"""Exact E step on tree-structured networks by two-pass sum-product message passing.

On a network where every node has at most one parent (a hierarchical latent class model, paper
002, or a forest of them) the posteriors that the E step needs follow from Pearl's belief
propagation on trees, i.e. the sum-product algorithm: one pass from the leaves up and one back
down, per observed pattern. Its cost is ``O(m sum_i r_pa(i) r_i)`` for ``m`` patterns, linear in
the number of nodes, where enumeration (:func:`hiddenbn.inference.enumeration_statistics`)
pays for every joint configuration of the hidden nodes.

The roots of a forest are the children of a virtual node with one state, so one root and many
are the same case and ``p(x_p)`` is what reaches the virtual node. With ``e_i`` the evidence
of node ``i`` (the indicator of its observed state; all ones for a hidden node or a missing
cell, which sums the node out) and ``theta_c[j, k] = p(X_c = k | X_pa(c) = j)``:

* upward: ``lambda_i = e_i * prod_{c child of i} mu_c`` with the message
  ``mu_c[j] = sum_k theta_c[j, k] lambda_c[k]``; ``lambda_i[k] = p(x below i | X_i = k)``;
* downward: ``a_c = pi_i * e_i * prod_{c' child of i, c' != c} mu_c'`` and
  ``pi_c = a_c @ theta_c``; ``a_c[j] = p(X_i = j, x outside the subtree of c)``.

Then ``p(X_pa(c) = j, X_c = k | x_p) = a_c[j] theta_c[j, k] lambda_c[k] / Z_p`` with
``Z_p = sum_j a_c[j] mu_c[j] = p(x_p)``, and the expected sufficient statistics of paper 003
Eq. 11 are ``E(N_cjk) = theta_c[j, k] sum_p (c_p / Z_p) a_c[p, j] lambda_c[p, k]``: one matrix
product per node over a block of patterns. A missing cell's node is completed like a hidden
one (its expected counts are those of the data completed in it, as enumeration gives).

The products exclude one child by prefix and suffix products (Shafer-Shenoy), never by division,
so zero probabilities need no special case. Every vector is rescaled per pattern to a maximum of
one after each product (it would underflow under many children); the upward pass adds up the
logs of the scales, which give ``log p(x_p)``, and the downward pass drops them (each node's
posterior is normalised by its own ``Z_p``).

Patterns go in blocks whose size follows the network alone, on :func:`hiddenbn.threads.map_blocks`
(one BLAS thread, partial sums added in block order), so the result is the same for any number
of threads.
"""

from __future__ import annotations

import numpy as np

from hiddenbn.errors import DataError
from hiddenbn.models import Network
from hiddenbn.threads import block_starts, map_blocks

#: Pattern-by-state cells of the messages held per block of patterns (bounds the memory).
TREE_BLOCK_CELLS = 1 << 21
#: Below this many pattern-by-state products per E step the blocks run on one thread.
PARALLEL_MIN_PRODUCTS = 1 << 22


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


def _rescaled(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values`` (states x patterns) divided by each pattern's maximum, and those maxima."""
    scale = values.max(axis=0)
    return values / scale, scale


def _evidence(network: Network, patterns: np.ndarray) -> list:
    """Per node, the ``(r_i, m)`` evidence of the patterns: the indicator of the observed state,
    all ones for a missing cell; None for a hidden node (all ones, never built)."""
    evidence: list = [None] * network.n_nodes
    for column, i in enumerate(network.observed_indices):
        r = network.cardinalities[i]
        # MISSING = -1 reads the last column, the ones of a node summed out
        indicators = np.hstack([np.eye(r), np.ones((r, 1))])
        evidence[i] = indicators[:, patterns[:, column]]
    return evidence


def _upward(network, cpts, children, evidence, patterns):
    """The upward pass: ``(lambda, mu, log p(x))``, ``lambda[i]`` of shape ``(r_i, m)`` and
    ``mu[i]`` of shape ``(r_pa(i), m)``, rescaled per pattern; ``lambda`` has one more entry,
    that of the virtual node above the roots. Raises :class:`~hiddenbn.errors.DataError` if a
    pattern has probability zero."""
    n, n_patterns = network.n_nodes, patterns.shape[0]
    lambdas: list = [None] * (n + 1)
    messages: list = [None] * n
    log_scale = np.zeros(n_patterns)
    # a pattern of probability zero gets a zero scale, then NaN all the way up: refused below
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (*range(n - 1, -1, -1), n):  # children before parents, the virtual node last
            own = evidence[i] if i < n else None  # None: all ones
            for child in children[i]:
                own, scale = _rescaled(messages[child] if own is None
                                       else own * messages[child])
                log_scale += np.log(scale)
            lambdas[i] = np.ones((network.cardinalities[i], n_patterns)) if own is None else own
            if i < n:
                messages[i] = cpts[i] @ lambdas[i]
        log_marginal = log_scale + np.log(lambdas[n][0])
    impossible = np.flatnonzero(~np.isfinite(log_marginal))
    if impossible.size:
        raise DataError(f"observed pattern {patterns[impossible[0]].tolist()} has probability "
                        "zero under the model")
    return lambdas, messages, log_marginal


def _all_but_one(start: np.ndarray, factors: list) -> list:
    """``start * prod_{t' != t} factors[t']`` for every ``t`` (rescaled per pattern), by prefix
    and suffix products: no division, so zero factors need no care."""
    prefixes = [start]
    for factor in factors[:-1]:
        prefixes.append(_rescaled(prefixes[-1] * factor)[0])
    products: list = [None] * len(factors)
    suffix = None
    for t in range(len(factors) - 1, -1, -1):
        products[t] = prefixes[t] if suffix is None else _rescaled(prefixes[t] * suffix)[0]
        suffix = factors[t] if suffix is None else _rescaled(suffix * factors[t])[0]
    return products


def _block_statistics(network, cpts, children, patterns, counts):
    """Expected counts (paper 003 Eq. 11) and log-likelihood of one block of patterns."""
    n = network.n_nodes
    evidence = _evidence(network, patterns)
    lambdas, messages, log_marginal = _upward(network, cpts, children, evidence, patterns)
    expected: list = [None] * n
    beliefs: list = [None] * (n + 1)  # pi_i * e_i: what node i passes down to its children
    beliefs[n] = np.ones((1, patterns.shape[0]))
    for i in (n, *range(n)):  # the virtual node, then network order: parents before children
        if not children[i]:
            continue
        outside = _all_but_one(beliefs[i], [messages[c] for c in children[i]])
        for child, a in zip(children[i], outside):
            weight = counts / (a * messages[child]).sum(axis=0)  # c_p / Z_p
            expected[child] = cpts[child] * ((a * weight) @ lambdas[child].T)
            if children[child]:
                pi = _rescaled(cpts[child].T @ a)[0]
                beliefs[child] = pi if evidence[child] is None else pi * evidence[child]
    return expected, float(counts @ log_marginal)


def tree_statistics(network: Network, cpts, patterns: np.ndarray, counts: np.ndarray):
    """Expected counts (paper 003 Eq. 11) and log-likelihood by sum-product on a tree.

    The contract of :func:`hiddenbn.inference.enumeration_statistics`, for a network that
    :func:`is_tree` accepts, at a cost that follows the network (``O(m sum_i r_pa(i) r_i)``),
    not the number of joint hidden states.

    Parameters
    ----------
    network : Network
        A tree or forest (:func:`is_tree`).
    cpts : list
        One ``(q_i, r_i)`` table per node.
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
    children = tree_children(network)
    cpts = [np.asarray(table, dtype=np.float64) for table in cpts]
    counts = np.asarray(counts, dtype=np.float64)
    cells = sum(network.cardinalities[i] + network.n_parent_configurations(i)
                for i in range(network.n_nodes))
    products = sum(network.cardinalities[i] * network.n_parent_configurations(i)
                   for i in range(network.n_nodes))
    blocks = map_blocks(
        lambda start, stop: _block_statistics(network, cpts, children, patterns[start:stop],
                                              counts[start:stop]),
        block_starts(patterns.shape[0], max(1, TREE_BLOCK_CELLS // cells)),
        parallel=patterns.shape[0] * products >= PARALLEL_MIN_PRODUCTS)
    expected = [np.zeros((network.n_parent_configurations(i), network.cardinalities[i]))
                for i in range(network.n_nodes)]
    log_likelihood = 0.0
    for block_expected, block_log_likelihood in blocks:  # in block order: any thread count
        for total, part in zip(expected, block_expected):
            total += part
        log_likelihood += block_log_likelihood
    return expected, log_likelihood
