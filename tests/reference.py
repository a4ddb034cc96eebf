"""Slow reference computations for the tests (independent of the library's fast paths)."""

import numba
import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

from hiddenbn.data import MISSING
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import HiddenbnError
from hiddenbn.inference.enumeration import posterior_chunks
from hiddenbn.models.network import node_tables, random_parameters
from hiddenbn.models.priors import bd_node_term
from hiddenbn.scores.exact import compositions

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
        scores += bd_node_term(statistics[:, offsets[i]:offsets[i + 1]].reshape(
            -1, network.n_parent_configurations(i), network.cardinalities[i]), alpha)
    return float(logsumexp(scores))


def dense_joint(network, cpts):
    operands = []
    for i, table in enumerate(node_tables(network, cpts)):
        shape = [network.cardinalities[p] for p in network.parents[i]] + [network.cardinalities[i]]
        operands += [table.reshape(shape), [*network.parents[i], i]]
    return np.einsum(*operands, list(range(network.n_nodes)))


def brute_force_statistics(network, cpts, data):
    """Expected counts of the data completed in hidden nodes and missing cells, and the
    observed-data log-likelihood, from the dense joint table over every node."""
    joint = dense_joint(network, cpts)
    tables = node_tables(network, cpts)
    expected = [np.zeros(t.shape) for t in tables]
    log_likelihood = 0.0
    for pattern, count in zip(data.patterns, data.counts):
        index = [slice(None)] * network.n_nodes
        for column, node in enumerate(network.observed_indices):
            if pattern[column] != MISSING:
                index[node] = slice(pattern[column], pattern[column] + 1)
        completion = np.zeros_like(joint)
        completion[tuple(index)] = joint[tuple(index)]
        marginal = completion.sum()
        log_likelihood += count * np.log(marginal)
        for i in range(network.n_nodes):
            family = [*network.parents[i], i]
            others = tuple(a for a in range(network.n_nodes) if a not in family)
            family_table = completion.sum(axis=others)
            order = np.argsort(np.argsort(family))
            expected[i] += count * np.transpose(family_table, order).reshape(expected[i].shape) \
                / marginal
    return expected, log_likelihood


def central_difference_hessian(function, x, step):
    d = x.size
    hessian = np.zeros((d, d))
    for a in range(d):
        for b in range(a, d):
            def shifted(sa, sb):
                y = x.copy()
                y[a] += sa * step
                y[b] += sb * step
                return function(y)
            hessian[a, b] = hessian[b, a] = (shifted(1, 1) - shifted(1, -1) - shifted(-1, 1)
                                             + shifted(-1, -1)) / (4 * step * step)
    return hessian


def assert_e_step_identical_on_one_and_two_threads(engine, state) -> None:
    """The engine's E step at ``state`` gives the same bits on one numba thread as on two."""
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = engine.e_step(state)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = engine.e_step(state)
    finally:
        numba.set_num_threads(threads)
    assert one.log_likelihood == two.log_likelihood
    for a, b in zip(one.expected, two.expected):
        np.testing.assert_array_equal(a, b)


def model_and_data(network, n_cases, missing_rate, rng):
    """Random CPTs of ``network`` and a sample of ``n_cases`` from them, ``missing_rate`` of
    the cells blanked."""
    cpts = random_parameters(network, rng)
    return cpts, sample_dataset(network, cpts, n_cases, rng, missing_rate)


def assert_statistics_equal(ours, theirs, n_cases):
    """Two ``(expected counts, log-likelihood)`` results equal to 1e-10 relative."""
    (expected, log_likelihood), (reference, reference_log_likelihood) = ours, theirs
    assert log_likelihood == pytest.approx(reference_log_likelihood, rel=1e-10)
    for table, reference_table in zip(expected, reference, strict=True):
        assert table.shape == reference_table.shape
        np.testing.assert_allclose(table, reference_table, rtol=1e-10, atol=1e-12 * n_cases)
