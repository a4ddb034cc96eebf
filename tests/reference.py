"""Slow reference computations for the tests (independent of the library's fast paths)."""

import numpy as np
from scipy.special import gammaln, logsumexp

from hiddenbn.errors import HiddenbnError
from hiddenbn.evidence import compositions
from hiddenbn.inference import posterior_chunks
from hiddenbn.scores import _bd_node_term

#: Largest number of completions :func:`exact_log_marginal_likelihood` sums over.
MAX_COMPLETIONS = 1 << 21


def exact_log_marginal_likelihood(network, data, alpha: float) -> float:
    """``log p(D | S)`` summed over every completion of the hidden values (paper 003 Eq. 4).

    Each completion is a complete data set scored exactly by Eq. 5; completions are grouped by
    how many of the ``c_p`` cases of pattern ``p`` get hidden configuration ``h`` (a
    multinomial number of orderings). Feasible only for tiny data sets: raises
    :class:`~hiddenbn.errors.HiddenbnError` beyond :data:`MAX_COMPLETIONS` groups.
    """
    data = data.for_network(network)
    uniform = [None if network.is_deterministic(i) else
               np.full((network.n_parent_configurations(i), network.cardinalities[i]),
                       1.0 / network.cardinalities[i]) for i in range(network.n_nodes)]
    sizes = [network.n_parent_configurations(i) * network.cardinalities[i]
             for i in range(network.n_nodes)]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    statistics = np.zeros((1, offsets[-1]))
    log_orderings = np.zeros(1)
    for rows, indices, weights, _ in posterior_chunks(network, uniform, data.patterns):
        for p in range(weights.shape[0]):
            possible = np.flatnonzero(weights[p] > 0)
            count = int(data.counts[rows][p])
            splits = compositions(count, possible.size)
            if statistics.shape[0] * splits.shape[0] > MAX_COMPLETIONS:
                raise HiddenbnError("too many completions for the exact marginal likelihood; "
                                    "use a smaller data set")
            contribution = np.zeros((splits.shape[0], offsets[-1]))
            for i, index in enumerate(indices):
                np.add.at(contribution.T, offsets[i] + index[p, possible], splits.T)
            statistics = (statistics[:, None, :] + contribution[None]).reshape(-1, offsets[-1])
            multinomial = gammaln(count + 1) - gammaln(splits + 1).sum(axis=1)
            log_orderings = (log_orderings[:, None] + multinomial[None]).ravel()
    scores = log_orderings.copy()
    for i in range(network.n_nodes):
        if network.is_deterministic(i):
            continue
        scores += _bd_node_term(statistics[:, offsets[i]:offsets[i + 1]].reshape(
            -1, network.n_parent_configurations(i), network.cardinalities[i]), alpha)
    return float(logsumexp(scores))
