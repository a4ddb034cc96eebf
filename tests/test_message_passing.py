"""The tree E step by sum-product message passing (hiddenbn.message_passing) against enumeration
of every hidden configuration, and its engine in EM."""

import numpy as np
import pytest

from hiddenbn import em, message_passing
from hiddenbn.errors import DataError, HiddenbnError
from hiddenbn.inference import MAX_HIDDEN_CONFIGURATIONS, enumeration_statistics
from hiddenbn.message_passing import is_tree, tree_statistics
from hiddenbn.models import Network, latent_class, random_parameters
from hiddenbn.sampling import sample_dataset
from hiddenbn.spec import parse_spec
from reference import assert_e_step_identical_on_one_and_two_threads

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


def model_and_data(network, n_cases, missing_rate, rng):
    cpts = random_parameters(network, rng)
    return cpts, sample_dataset(network, cpts, n_cases, rng, missing_rate)


def assert_statistics_equal(ours, theirs, n_cases):
    (expected, log_likelihood), (reference, reference_log_likelihood) = ours, theirs
    assert log_likelihood == pytest.approx(reference_log_likelihood, rel=1e-10)
    for table, reference_table in zip(expected, reference, strict=True):
        np.testing.assert_allclose(table, reference_table, rtol=1e-10, atol=1e-12 * n_cases)


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
    cells = sum(network.cardinalities[i] + network.n_parent_configurations(i)
                for i in range(network.n_nodes))
    monkeypatch.setattr(message_passing, "TREE_BLOCK_CELLS", 10 * cells)  # blocks of 10 rows
    assert data.n_patterns > 50 and data.n_patterns % 10  # a short last block too
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
                                           tolerance=0.0, draw=lambda _: start)
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
        assert isinstance(engine, em.NetworkEngine)


def test_a_tree_too_large_to_enumerate_fits(rng):
    network = parse_spec(LARGE_TREE)
    assert (len(network.hidden_indices), len(network.observed_indices)) == (20, 60)
    assert set(network.cardinalities[i] for i in network.hidden_indices) == {3}
    cpts, data = model_and_data(network, 2000, 0.05, rng)
    with pytest.raises(HiddenbnError, match=f"at most {MAX_HIDDEN_CONFIGURATIONS}"):
        enumeration_statistics(network, cpts, data.patterns, data.counts)
    fit = em.fit(network, data, np.random.default_rng(5), restarts=2, max_iterations=20,
                 tolerance=0.0)
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
