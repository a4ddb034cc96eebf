"""Exact inference on a discrete network by the method that suits its structure.

Three exact methods give the same posteriors (to rounding), at costs that follow different
things:

* **message passing** (:mod:`hiddenbn.inference.message_passing`) on trees and forests, every
  hierarchical latent class model among them: linear in the nodes;
* **junction tree** (:mod:`hiddenbn.inference.junction_tree`) on any other network: exponential only
  in the largest clique of the triangulated moral graph;
* **enumeration** (:mod:`hiddenbn.inference.enumeration`) of every joint state of the hidden nodes:
  for small networks, where it is the fastest.

:func:`method` picks one (:func:`hiddenbn.inference.junction_tree.prefers_junction_tree` decides
between the last two); :func:`expected_statistics` gives the expected counts of paper 003 Eq. 11 and
the log-likelihood, :func:`family_posteriors` the posterior of every family per pattern, and
:func:`posterior_marginals` that of every hidden node per pattern. Every function takes observed
patterns (columns = observed nodes in network order, cells possibly :data:`~hiddenbn.data.MISSING`,
summed out) and CPTs whose rows need not add up to one: a caller that zeroes all but column ``s`` of
node ``a``'s CPT gets the quantities of the joint with ``X_a = s`` (what the exact Hessian of
:mod:`hiddenbn.scores.approximations` does).
"""

from __future__ import annotations

import numpy as np

from hiddenbn.inference.enumeration import (ENUMERATION_CHUNK_CELLS, enumeration_statistics,
                                            posterior_chunks)
from hiddenbn.inference.junction_tree import (junction_tree_family_posteriors,
                                              junction_tree_statistics, prefers_junction_tree)
from hiddenbn.inference.message_passing import is_tree, tree_family_posteriors, tree_statistics
from hiddenbn.models.network import Network

#: The methods, by the name every output reports.
TREE, JUNCTION_TREE, ENUMERATION = "message passing (tree)", "junction tree", "enumeration"


def method(network: Network) -> str:
    """The exact method for ``network``: :data:`TREE` for trees and forests without
    deterministic nodes, else :data:`JUNCTION_TREE` where it is expected to be faster than
    enumeration (always when enumeration refuses), else :data:`ENUMERATION`."""
    if is_tree(network):
        return TREE
    return JUNCTION_TREE if prefers_junction_tree(network) else ENUMERATION


def statistics_function(network: Network):
    """The function ``(network, cpts, patterns, counts) -> (expected counts, log-likelihood)``
    of :func:`method`'s choice (the contract of
    :func:`~hiddenbn.inference.enumeration.enumeration_statistics`)."""
    chosen = method(network)
    if chosen == TREE:
        return tree_statistics
    if chosen == JUNCTION_TREE:
        return junction_tree_statistics
    return enumeration_statistics


def expected_statistics(network: Network, cpts, patterns: np.ndarray, counts: np.ndarray):
    """``(E(N_ijk) per node, sum_p counts_p log p(x_p))`` by :func:`method`'s choice
    (paper 003 Eq. 11; missing cells completed, deterministic nodes included)."""
    return statistics_function(network)(network, cpts, patterns, counts)


def enumeration_family_posteriors(network: Network, cpts, patterns: np.ndarray,
                                  chunk_cells: int = ENUMERATION_CHUNK_CELLS):
    """:func:`family_posteriors` by enumerating the hidden configurations and missing cells
    (:func:`~hiddenbn.inference.enumeration.posterior_chunks`)."""
    m = patterns.shape[0]
    sizes = [network.n_parent_configurations(i) * network.cardinalities[i]
             for i in range(network.n_nodes)]
    flat = [np.zeros(m * size) for size in sizes]
    log_marginal = np.empty(m)
    positions = np.arange(m)
    for rows, indices, weights, chunk_log_marginal in posterior_chunks(network, cpts, patterns,
                                                                       chunk_cells):
        log_marginal[rows] = chunk_log_marginal
        owner = positions[rows][:, None]
        for total, index, size in zip(flat, indices, sizes):
            total += np.bincount((owner * size + index).ravel(), weights=weights.ravel(),
                                 minlength=m * size)
    posteriors = [total.reshape(m, network.n_parent_configurations(i), network.cardinalities[i])
                  for i, total in enumerate(flat)]
    return posteriors, log_marginal


def family_posteriors(network: Network, cpts, patterns: np.ndarray):
    """The posterior of every family per pattern, by :func:`method`'s choice.

    Returns
    -------
    posteriors : list of ndarray
        ``posteriors[i][p, j, k] = p(X_pa(i) = j, X_i = k | x_p)``, shape ``(m, q_i, r_i)``,
        for every node (an observed node's own state is its observed one, or completed when
        its cell is missing; parent configurations in C order over the parents).
    log_marginal : ndarray, shape (m,)
        ``log p(x_p)`` of the observed cells.

    Raises :class:`~hiddenbn.errors.DataError` if a pattern has probability zero.
    """
    chosen = method(network)
    if chosen == TREE:
        return tree_family_posteriors(network, cpts, patterns)
    if chosen == JUNCTION_TREE:
        return junction_tree_family_posteriors(network, cpts, patterns)
    return enumeration_family_posteriors(network, cpts, patterns)


def posterior_marginals(network: Network, cpts, patterns: np.ndarray) -> dict:
    """``p(X_h = s | x_p)`` of every hidden node ``h`` per pattern: ``{name: (m, r_h)
    array}`` in network order, from :func:`family_posteriors` (each node's family posterior
    summed over its parents)."""
    posteriors, _ = family_posteriors(network, cpts, np.asarray(patterns))
    return {network.names[i]: posteriors[i].sum(axis=1) for i in network.hidden_indices}
