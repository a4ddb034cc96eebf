"""The tree E step by sum-product message passing (hiddenbn.inference.message_passing) against
enumeration of every hidden configuration, its per-pattern family posteriors, and its engine in
EM."""

import re

import numba
import numpy as np
import pytest

from hiddenbn.errors import DataError, HiddenbnError
from hiddenbn.inference import message_passing
from hiddenbn.inference.enumeration import (MAX_HIDDEN_CONFIGURATIONS, enumeration_statistics,
                                            posterior_chunks)
from hiddenbn.inference.message_passing import is_tree, tree_family_posteriors, tree_statistics
from hiddenbn.learning import em
from hiddenbn.learning.engine import NetworkEngine
from hiddenbn.models.network import Network, latent_class, random_parameters
from hiddenbn.models.spec import parse_spec
from reference import (assert_e_step_identical_on_one_and_two_threads, assert_statistics_equal,
                       model_and_data)

#: Paper 002's hierarchical latent class model (Table 2's generator).
PAPER_HLC = "5(3(2,2),3(2,2),2)"
#: Two trees, one with an observed internal node (Y, over hidden Z over observed leaves).
FOREST = {"nodes": {
    "H": {"states": 3, "hidden": True}, "A": {"states": 2, "parents": ["H"]},
    "B": {"states": 3, "parents": ["H"]}, "G": {"states": 2, "parents": ["H"], "hidden": True},
    "C": {"states": 2, "parents": ["G"]}, "D": {"states": 2, "parents": ["G"]},
    "Y": {"states": 3}, "Z": {"states": 2, "parents": ["Y"], "hidden": True},
    "E": {"states": 2, "parents": ["Z"]}, "F": {"states": 4, "parents": ["Z"]}}}
#: Not a tree: C has two parents.
TWO_PARENTS = {"nodes": {
    "H": {"states": 2, "hidden": True}, "A": {"states": 2}, "B": {"states": 2, "parents": ["H"]},
    "C": {"states": 2, "parents": ["H", "A"]}}}
#: A tree of 20 ternary hidden nodes over 60 binary leaves, 3^20 ~ 3.5e9 hidden configurations.
BRANCH = "3(3(2,2,2),3(2,2,2),3(2,2,2),3(2,2,2),2,2,2)"
SMALL_BRANCH = "3(3(2,2,2),3(2,2,2),3(2,2,2),2,2,2)"
LARGE_TREE = f"3({BRANCH},{BRANCH},{BRANCH},{SMALL_BRANCH},2,2,2)"


def random_tree(rng, n_nodes: int) -> Network:
    """A random tree (2-4 states a node): each node hangs under a random earlier one; leaves are
    observed, and so is each internal node with probability 1/4."""
    parents = [()] + [(int(rng.integers(0, i)),) for i in range(1, n_nodes)]
    internal = {p[0] for p in parents if p}
    hidden = tuple(i in internal and rng.random() >= 0.25 for i in range(n_nodes))
    return Network(names=tuple(f"V{i}" for i in range(n_nodes)),
                   cardinalities=tuple(int(r) for r in rng.integers(2, 5, n_nodes)),
                   parents=tuple(parents), hidden=hidden, functions=(None,) * n_nodes)


def random_trees():
    rng = np.random.default_rng(2024)
    return [random_tree(rng, int(rng.integers(5, 11))) for _ in range(6)]


NETWORKS = {"paper 002 HLC": parse_spec(PAPER_HLC), "forest": parse_spec(FOREST),
            **{f"random tree {k}": network for k, network in enumerate(random_trees())}}




def test_is_tree_accepts_trees_and_forests_only(noisy_max_network):
    assert is_tree(parse_spec(PAPER_HLC)) and is_tree(parse_spec(FOREST))
    assert is_tree(latent_class(3, [2, 2, 2]))
    assert not is_tree(parse_spec(TWO_PARENTS))
    assert not is_tree(noisy_max_network)  # two parents and a deterministic node
    deterministic_chain = parse_spec({"nodes": {
        "A": {"states": 3, "hidden": True}, "B": {"function": "max", "parents": ["A"]}}})
    assert not is_tree(deterministic_chain)


@pytest.mark.parametrize("missing_rate", [0.0, 0.15])
@pytest.mark.parametrize("name", NETWORKS)
def test_statistics_equal_enumeration(name, missing_rate, rng):
    network = NETWORKS[name]
    cpts, data = model_and_data(network, 1500, missing_rate, rng)
    assert data.has_missing == (missing_rate > 0)
    assert_statistics_equal(tree_statistics(network, cpts, data.patterns, data.counts),
                            enumeration_statistics(network, cpts, data.patterns, data.counts),
                            data.n_cases)


def test_statistics_equal_enumeration_over_many_blocks(rng, monkeypatch):
    network = NETWORKS["paper 002 HLC"]
    cpts, data = model_and_data(network, 5000, 0.15, rng)
    # blocks of one chunk of patterns each, the last one short
    monkeypatch.setattr(message_passing, "TREE_BLOCKS", data.n_patterns)
    monkeypatch.setattr(message_passing, "BLOCK_MIN_PATTERNS", 1)
    assert data.n_patterns > 3 * message_passing.CHUNK and data.n_patterns % message_passing.CHUNK
    assert_statistics_equal(tree_statistics(network, cpts, data.patterns, data.counts),
                            enumeration_statistics(network, cpts, data.patterns, data.counts),
                            data.n_cases)


def test_zero_probabilities_give_zero_counts_and_an_impossible_pattern_is_refused(rng):
    network = parse_spec(PAPER_HLC)
    cpts, data = model_and_data(network, 800, 0.15, rng)
    cpts[1][0] = [1.0, 0.0, 0.0]  # H2 is 0 whenever H1 is
    cpts[3][:, 1] = [0.0, 0.4, 0.7]  # X1 = 1 rules H2 = 0 out, hence H1 = 0 too
    cpts[3][:, 0] = 1.0 - cpts[3][:, 1]
    ours = tree_statistics(network, cpts, data.patterns, data.counts)
    assert_statistics_equal(ours, enumeration_statistics(network, cpts, data.patterns,
                                                         data.counts), data.n_cases)
    assert ours[0][3][0, 1] == 0.0  # no case of X1 = 1 has H2 = 0
    cpts[3][:, 1] = 0.0  # now X1 = 1 is impossible
    cpts[3][:, 0] = 1.0
    with pytest.raises(DataError, match="probability zero"):
        tree_statistics(network, cpts, data.patterns, data.counts)


@pytest.mark.parametrize("missing_rate", [0.0, 0.15])
@pytest.mark.parametrize("name", ["paper 002 HLC", "forest", "random tree 1"])
def test_em_follows_the_enumeration_path(name, missing_rate, rng):
    network = NETWORKS[name]
    _, data = model_and_data(network, 1000, missing_rate, rng)
    data = data.for_network(network)
    start = random_parameters(network, rng)
    paths = {}
    for engine in (em.TreeEngine(network, data, 1.01), em.EnumerationEngine(network, data, 1.01)):
        paths[engine.name] = em.fit_engine(engine, None, restarts=1, max_iterations=20,
                                           tolerance=0.0, draw=lambda _: start,
                                           acceleration="none")  # step by step
    tree, enumeration = paths["message passing (tree)"], paths["enumeration"]
    assert len(tree.trace) == len(enumeration.trace) == 20
    np.testing.assert_allclose(tree.trace, enumeration.trace, rtol=1e-9)
    for table, reference in zip(tree.run.state, enumeration.run.state, strict=True):
        np.testing.assert_allclose(table, reference, rtol=1e-8, atol=1e-12)


def test_make_engine_picks_by_structure(rng, noisy_max_network):
    cases = [(latent_class(3, [2, 2, 2]), em.LatentClassEngine, "latent class"),
             (parse_spec(PAPER_HLC), em.TreeEngine, "message passing (tree)"),
             (parse_spec(FOREST), em.TreeEngine, "message passing (tree)"),
             (parse_spec(TWO_PARENTS), em.EnumerationEngine, "enumeration"),
             (noisy_max_network, em.EnumerationEngine, "enumeration")]
    for network, kind, name in cases:
        _, data = model_and_data(network, 50, 0.0, rng)
        engine = em.make_engine(network, data, 1.01)
        assert type(engine) is kind and engine.name == name
        assert isinstance(engine, NetworkEngine)


def test_a_tree_too_large_to_enumerate_fits(rng):
    network = parse_spec(LARGE_TREE)
    assert (len(network.hidden_indices), len(network.observed_indices)) == (20, 60)
    assert set(network.cardinalities[i] for i in network.hidden_indices) == {3}
    cpts, data = model_and_data(network, 2000, 0.05, rng)
    with pytest.raises(HiddenbnError, match=f"at most {MAX_HIDDEN_CONFIGURATIONS}"):
        enumeration_statistics(network, cpts, data.patterns, data.counts)
    fit = em.fit(network, data, np.random.default_rng(5), restarts=2, max_iterations=20,
                 tolerance=0.0, schedule="halving", acceleration="none")  # one g per step
    trace = np.array(fit.trace)
    assert trace.size == 20 and np.all(np.isfinite(trace))
    assert np.all(np.diff(trace) >= -1e-12 * np.abs(trace[1:]))
    # the expected counts are those of one completed data set: every node holds the N cases,
    # and a child's rows add up to its parent's expected state counts
    counts = fit.expected_counts
    for i, parents in enumerate(network.parents):
        assert counts[i].sum() == pytest.approx(data.n_cases, rel=1e-12)
        if parents:
            np.testing.assert_allclose(counts[i].sum(axis=1), counts[parents[0]].sum(axis=0),
                                       rtol=1e-10)


def test_e_step_is_identical_for_one_and_two_threads(rng):
    network = parse_spec(LARGE_TREE)
    cpts, data = model_and_data(network, 10000, 0.0, rng)
    products = sum(network.cardinalities[i] * network.n_parent_configurations(i)
                   for i in range(network.n_nodes))
    assert data.n_patterns * products >= message_passing.PARALLEL_MIN_PRODUCTS  # threads, blocks
    engine = em.make_engine(network, data, 1.0)
    assert isinstance(engine, em.TreeEngine)
    assert_e_step_identical_on_one_and_two_threads(engine, engine.from_cpts(cpts))


def clamped(cpts, node, state):
    """``cpts`` with ``X_node = state`` clamped: the other columns of its CPT zeroed (rows no
    longer add up to one)."""
    cpts = [np.array(table, dtype=float) for table in cpts]
    keep = cpts[node][:, state].copy()
    cpts[node][:] = 0.0
    cpts[node][:, state] = keep
    return cpts


@pytest.mark.parametrize("name", ["paper 002 HLC", "forest", "random tree 2"])
def test_statistics_with_a_clamped_node_equal_enumeration(name, rng):
    network = NETWORKS[name]
    cpts, data = model_and_data(network, 1500, 0.15, rng)
    node = int(network.hidden_indices[-1])
    ours = tree_statistics(network, clamped(cpts, node, 1), data.patterns, data.counts)
    assert_statistics_equal(ours, enumeration_statistics(network, clamped(cpts, node, 1),
                                                         data.patterns, data.counts),
                            data.n_cases)
    assert np.all(ours[0][node][:, 0] == 0.0)


def enumerated_family_posteriors(network, cpts, patterns):
    """``p(X_pa(i) = j, X_i = k | x_p)`` per node as ``(m, q_i, r_i)`` arrays, and ``log
    p(x_p)``, from the enumeration of every completion."""
    m = patterns.shape[0]
    sizes = [network.n_parent_configurations(i) * network.cardinalities[i]
             for i in range(network.n_nodes)]
    flat = [np.zeros(m * size) for size in sizes]
    log_marginal = np.full(m, np.nan)
    for rows, indices, weights, chunk_log_marginal in posterior_chunks(network, cpts, patterns):
        where = np.arange(m)[rows]
        log_marginal[where] = chunk_log_marginal
        for total, index, size in zip(flat, indices, sizes):
            np.add.at(total, where[:, None] * size + index, weights)
    return ([total.reshape(m, network.n_parent_configurations(i), network.cardinalities[i])
             for i, total in enumerate(flat)], log_marginal)


@pytest.mark.parametrize("clamp", [False, True])
@pytest.mark.parametrize("missing_rate", [0.0, 0.15])
@pytest.mark.parametrize("name", NETWORKS)
def test_family_posteriors_equal_enumeration(name, missing_rate, clamp, rng):
    network = NETWORKS[name]
    cpts, data = model_and_data(network, 400, missing_rate, rng)
    if clamp:  # X_a = 0 for a hidden node a: posteriors given x and X_a = 0, log p(x, X_a = 0)
        cpts = clamped(cpts, int(network.hidden_indices[0]), 0)
    posteriors, log_marginal = tree_family_posteriors(network, cpts, data.patterns)
    reference, reference_log_marginal = enumerated_family_posteriors(network, cpts,
                                                                     data.patterns)
    np.testing.assert_allclose(log_marginal, reference_log_marginal, rtol=1e-10)
    for i, (ours, theirs) in enumerate(zip(posteriors, reference, strict=True)):
        assert ours.shape == (data.n_patterns, network.n_parent_configurations(i),
                              network.cardinalities[i])
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(ours.sum(axis=(1, 2)), 1.0, rtol=1e-12)
    # the counts are the posteriors weighted by the pattern counts, times nothing else
    expected, _ = tree_statistics(network, cpts, data.patterns, data.counts)
    for ours, table in zip(posteriors, expected):
        np.testing.assert_allclose(np.tensordot(data.counts, ours, axes=1), table,
                                   rtol=1e-10, atol=1e-12 * data.n_cases)


def test_family_posteriors_refuse_an_impossible_pattern(rng):
    network = parse_spec(PAPER_HLC)
    cpts, data = model_and_data(network, 300, 0.0, rng)
    cpts[3][:, 1] = 0.0  # X1 = 1 is impossible
    cpts[3][:, 0] = 1.0
    first = int(np.flatnonzero(data.patterns[:, 0] == 1)[0])
    message = (f"observed pattern {data.patterns[first].tolist()} has probability zero under "
               "the model")
    with pytest.raises(DataError, match=f"^{re.escape(message)}$"):
        tree_family_posteriors(network, cpts, data.patterns)
    with pytest.raises(DataError, match="probability zero"):
        tree_statistics(network, cpts, data.patterns, data.counts)


def test_a_state_out_of_range_is_refused(rng):
    network = parse_spec(PAPER_HLC)
    cpts, data = model_and_data(network, 300, 0.0, rng)
    patterns = data.patterns.copy()
    patterns[5, 2] = 2  # a binary node
    with pytest.raises(DataError, match="outside its node's states"):
        tree_statistics(network, cpts, patterns, data.counts)


def test_hundreds_of_leaves_do_not_underflow(rng):
    """p(x) of 1500 leaves is far below the smallest double: the rescaled passes keep it in
    logs, like enumeration (which works in logs)."""
    network = latent_class(3, [3] * 1500)
    cpts = random_parameters(network, rng)
    patterns = np.stack([rng.choice(3, size=1500, p=[0.8, 0.15, 0.05]) for _ in range(40)])
    counts = rng.integers(1, 5, size=40)
    ours = tree_statistics(network, cpts, patterns, counts)
    theirs = enumeration_statistics(network, cpts, patterns, counts)
    assert ours[1] / counts.sum() < np.log(5e-324)  # p(x) below the smallest double
    assert_statistics_equal(ours, theirs, counts.sum())
    posteriors, log_marginal = tree_family_posteriors(network, cpts, patterns)
    reference, reference_log_marginal = enumerated_family_posteriors(network, cpts, patterns)
    np.testing.assert_allclose(log_marginal, reference_log_marginal, rtol=1e-10)
    np.testing.assert_allclose(posteriors[0], reference[0], rtol=1e-9, atol=1e-13)


def test_family_posteriors_are_identical_for_one_and_two_threads(rng):
    network = parse_spec(LARGE_TREE)
    cpts, data = model_and_data(network, 5000, 0.1, rng)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = tree_family_posteriors(network, cpts, data.patterns)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = tree_family_posteriors(network, cpts, data.patterns)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(one[1], two[1])
    for a, b in zip(one[0], two[0]):
        np.testing.assert_array_equal(a, b)
