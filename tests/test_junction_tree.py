"""The junction-tree E step (hiddenbn.inference.junction_tree) against enumeration of every hidden
configuration, message passing on trees and a forward recursion on a ladder too large to
enumerate."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from hiddenbn.data import MISSING, Dataset
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import DataError, HiddenbnError
from hiddenbn.inference import junction_tree as jt
from hiddenbn.inference.enumeration import (MAX_HIDDEN_CONFIGURATIONS, enumeration_statistics,
                                            hidden_configuration_count, posterior_chunks)
from hiddenbn.inference.message_passing import tree_statistics
from hiddenbn.models.network import Network, random_parameters
from hiddenbn.models.spec import parse_spec
from reference import (assert_e_step_identical_on_one_and_two_threads, assert_statistics_equal,
                       model_and_data)


def w_structure(hidden=2, states=3, children=6) -> Network:
    """``hidden`` hidden roots, every one a parent of each of ``children`` binary children."""
    nodes = {f"H{k}": {"states": states, "hidden": True} for k in range(hidden)}
    nodes.update({f"X{k}": {"states": 2, "parents": [f"H{h}" for h in range(hidden)]}
                  for k in range(children)})
    return parse_spec({"nodes": nodes})


def ladder(hidden: int) -> Network:
    """A chain of binary hidden nodes ``H0 -> H1 -> ...``, each consecutive pair the parents
    of two binary observed children (a chain of W's)."""
    nodes = {f"H{k}": {"states": 2, "hidden": True, **({"parents": [f"H{k - 1}"]} if k else {})}
             for k in range(hidden)}
    for k in range(hidden - 1):
        for c in range(2):
            nodes[f"X{k}_{c}"] = {"states": 2, "parents": [f"H{k}", f"H{k + 1}"]}
    return parse_spec({"nodes": nodes})


def random_dag(rng, n_nodes: int) -> Network:
    """Nodes of 2-4 states, each with up to 3 earlier parents; about a third hidden (hidden
    nodes get hidden and observed parents), at least one hidden and one observed."""
    parents = tuple(tuple(sorted(rng.choice(i, size=min(i, int(rng.integers(0, 4))),
                                            replace=False).tolist())) for i in range(n_nodes))
    hidden = [bool(rng.random() < 0.35) for _ in range(n_nodes)]
    hidden[int(rng.integers(0, n_nodes - 1))] = True
    hidden[-1] = False
    return Network(names=tuple(f"V{i}" for i in range(n_nodes)),
                   cardinalities=tuple(int(r) for r in rng.integers(2, 5, n_nodes)),
                   parents=parents, hidden=tuple(hidden), functions=(None,) * n_nodes)


#: Paper 004 style: causes, hidden mechanisms, a max effect, and a sum node over two hidden ones.
DETERMINISTIC = {"nodes": {
    "C1": {"states": 2}, "C2": {"states": 3},
    "M1": {"states": 3, "parents": ["C1"], "hidden": True},
    "M2": {"states": 2, "parents": ["C1", "C2"], "hidden": True},
    "E": {"function": "max", "parents": ["M1", "M2"]},
    "Z": {"states": 2, "hidden": True}, "Y": {"states": 3, "parents": ["Z", "C2"]},
    "S": {"function": "sum", "parents": ["M1", "Z"]}}}
#: A hidden deterministic node (max of two hidden nodes) with observed children.
HIDDEN_MAX = {"nodes": {
    "A": {"states": 3, "hidden": True}, "B": {"states": 2, "hidden": True},
    "D": {"function": "max", "parents": ["A", "B"], "hidden": True},
    "X": {"states": 2, "parents": ["D"]}, "Y": {"states": 3, "parents": ["D", "A"]},
    "Z": {"states": 2, "parents": ["B"]}}}

RNG_DAGS = np.random.default_rng(7)
NETWORKS = {"W": w_structure(), "W three parents": w_structure(3, 2, 5),
            "deterministic": parse_spec(DETERMINISTIC), "hidden max": parse_spec(HIDDEN_MAX),
            "HLC": parse_spec("5(3(2,2),3(2,2),2)"),
            **{f"random DAG {k}": random_dag(RNG_DAGS, int(RNG_DAGS.integers(5, 9)))
               for k in range(5)}}




def enumeration_posteriors(network, cpts, patterns):
    """Family posteriors per pattern from :func:`posterior_chunks` (flat CPT index per
    completion, its posterior weight)."""
    m = patterns.shape[0]
    posteriors = [np.zeros((m, network.n_parent_configurations(i) * network.cardinalities[i]))
                  for i in range(network.n_nodes)]
    log_marginal = np.zeros(m)
    for rows, indices, weights, chunk_log_marginal in posterior_chunks(network, cpts, patterns):
        where = np.arange(m)[rows]
        log_marginal[where] = chunk_log_marginal
        for posterior, index in zip(posteriors, indices):
            np.add.at(posterior, (np.broadcast_to(where[:, None], index.shape), index), weights)
    return ([p.reshape(m, network.n_parent_configurations(i), network.cardinalities[i])
             for i, p in enumerate(posteriors)], log_marginal)


def test_random_dags_have_hidden_nodes_with_several_parents():
    dags = [n for name, n in NETWORKS.items() if name.startswith("random DAG")]
    assert any(len(pa) >= 2 and n.hidden[i] for n in dags for i, pa in enumerate(n.parents))
    assert any(len(pa) == 3 for n in dags for pa in n.parents)
    assert all(n.hidden_indices.size and n.observed_indices.size for n in dags)
    assert any(n.hidden[p] for n in dags for i, pa in enumerate(n.parents) if n.hidden[i]
               for p in pa)


@pytest.mark.parametrize("missing_rate", [0.0, 0.15])
@pytest.mark.parametrize("name", NETWORKS)
def test_statistics_and_posteriors_equal_enumeration(name, missing_rate, rng):
    network = NETWORKS[name]
    cpts, data = model_and_data(network, 1500, missing_rate, rng)
    assert data.has_missing == (missing_rate > 0)
    ours = jt.junction_tree_statistics(network, cpts, data.patterns, data.counts)
    assert_statistics_equal(ours, enumeration_statistics(network, cpts, data.patterns,
                                                         data.counts), data.n_cases)
    posteriors, log_marginal = jt.junction_tree_family_posteriors(network, cpts, data.patterns)
    reference, reference_log_marginal = enumeration_posteriors(network, cpts, data.patterns)
    np.testing.assert_allclose(log_marginal, reference_log_marginal, rtol=1e-10)
    for i, (posterior, expected) in enumerate(zip(posteriors, reference, strict=True)):
        np.testing.assert_allclose(posterior, expected, rtol=1e-9, atol=1e-12)
        # the statistics are the count-weighted sum of the posteriors
        np.testing.assert_allclose(np.tensordot(data.counts, posterior, axes=1), ours[0][i],
                                   rtol=1e-10, atol=1e-12 * data.n_cases)
    assert float(data.counts @ log_marginal) == pytest.approx(ours[1], rel=1e-12)


def test_observed_family_posterior_fixes_the_observed_value(rng):
    network = NETWORKS["W"]
    cpts, data = model_and_data(network, 300, 0.15, rng)
    posteriors, _ = jt.junction_tree_family_posteriors(network, cpts, data.patterns)
    for column, node in enumerate(network.observed_indices):
        values = data.patterns[:, column]
        totals = posteriors[node].sum(axis=1)  # (m, r): the node's own posterior
        seen = values != MISSING
        np.testing.assert_allclose(totals[seen, values[seen]], 1.0, rtol=1e-12)
        np.testing.assert_allclose(totals[~seen].sum(axis=1), 1.0, rtol=1e-12)
        assert (totals[~seen] > 0).all()


@pytest.mark.parametrize("name", ["W", "deterministic", "random DAG 1"])
def test_clamped_unnormalised_tables_equal_enumeration(name, rng):
    """A caller clamps X_a = s by zeroing the other columns of its table: the log-likelihood is
    log p(x, X_a = s) and the counts are the clamped joint's."""
    network = NETWORKS[name]
    cpts = random_parameters(network, rng)
    a = int(network.hidden_indices[0])
    sampling = [table.copy() if table is not None else None for table in cpts]
    sampling[a][:, 0], sampling[a][:, 1:] = 1.0, 0.0  # data drawn with X_a = 0: all possible
    data = sample_dataset(network, sampling, 800, rng, 0.15)
    cpts[a][:, 1:] = 0.0  # clamp to state 0 (rows now sum to less than one)
    with np.errstate(all="raise"):  # no log(0) or 0/0 warning leaks
        ours = jt.junction_tree_statistics(network, cpts, data.patterns, data.counts)
    assert_statistics_equal(ours, enumeration_statistics(network, cpts, data.patterns,
                                                         data.counts), data.n_cases)
    assert np.all(ours[0][a][:, 1:] == 0.0)
    assert all(np.isfinite(table).all() for table in ours[0])


def test_a_zero_probability_pattern_is_a_data_error():
    network = parse_spec({"nodes": {"A": {"states": 2, "hidden": True},
                                    "B": {"states": 2, "hidden": True},
                                    "E": {"function": "max", "parents": ["A", "B"]},
                                    "F": {"function": "sum", "parents": ["A", "B"]}}})
    cpts = [np.array([[0.5, 0.5]]), np.array([[0.5, 0.5]]), None, None]
    data = Dataset(("E", "F"), np.array([[1, 1], [0, 2]], dtype=np.int32), np.array([2, 3]))
    with pytest.raises(DataError, match=r"observed pattern \[0, 2\] has probability zero") as err:
        jt.junction_tree_statistics(network, cpts, data.patterns, data.counts)
    assert "\n" not in str(err.value)
    with pytest.raises(DataError, match=r"\[0, 2\] has probability zero"):
        jt.junction_tree_family_posteriors(network, cpts, data.patterns)
    expected, _ = jt.junction_tree_statistics(network, cpts, data.patterns[:1], data.counts[:1])
    np.testing.assert_allclose(expected[3], [[0, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 0]])


def test_clique_structure_of_known_networks():
    tree = jt.junction_tree(w_structure(2, 3, 4))  # H0, H1 -> X0..X3
    assert tree.cliques == ((0, 1, 2), (0, 1, 3), (0, 1, 4), (0, 1, 5))
    assert tree.parent == (-1, 0, 0, 0) and tree.separators == ((), (0, 1), (0, 1), (0, 1))
    assert tree.clique_states == (18, 18, 18, 18) and tree.largest_clique_size == 3
    assert tree.family_clique == (0, 0, 0, 1, 2, 3)
    assert tree.describe() == "4 cliques, largest 3 nodes / 18 states"
    # the ladder triangulates without fill-in: cliques {H_k, H_k+1, X_k_c}
    network = ladder(4)
    tree = jt.junction_tree(network)
    names = [sorted(network.names[v] for v in clique) for clique in tree.cliques]
    assert len(names) == 6 and all(len(c) == 3 and sum(n.startswith("H") for n in c) == 2
                                   for c in names)
    # noisy max: the effect's parents are married into one clique with it
    noisy = parse_spec({"nodes": {**{f"C{k}": {"states": 2} for k in range(8)},
                                  **{f"M{k}": {"states": 2, "parents": [f"C{k}"], "hidden": True}
                                     for k in range(8)},
                                  "E": {"function": "max",
                                        "parents": [f"M{k}" for k in range(8)]}}})
    tree = jt.junction_tree(noisy)
    assert tree.describe() == "9 cliques, largest 9 nodes / 512 states"
    # a disconnected network is one tree joined by empty separators
    forest = parse_spec({"nodes": {"A": {"states": 2, "hidden": True},
                                   "B": {"states": 3, "parents": ["A"]}, "C": {"states": 2}}})
    tree = jt.junction_tree(forest)
    assert tree.n_cliques == 2 and () in tree.separators[1:]


def test_every_family_is_in_its_clique_and_the_tree_has_running_intersection():
    for network in NETWORKS.values():
        tree = jt.junction_tree(network)
        for i, c in enumerate(tree.family_clique):
            assert {*network.parents[i], i} <= set(tree.cliques[c])
        for v in range(network.n_nodes):  # the cliques holding v form a connected subtree
            holding = [c for c, clique in enumerate(tree.cliques) if v in clique]
            tops = [c for c in holding if tree.parent[c] < 0 or tree.parent[c] not in holding]
            assert len(tops) == 1


def test_a_clique_too_large_is_refused_in_one_line(rng, monkeypatch):
    network = w_structure(3, 3, 4)
    cpts, data = model_and_data(network, 50, 0.0, rng)
    monkeypatch.setattr(jt, "MAX_CLIQUE_STATES", 50)
    with pytest.raises(HiddenbnError) as err:
        jt.junction_tree_statistics(network, cpts, data.patterns, data.counts)
    message = str(err.value)
    assert "\n" not in message
    assert "(H0, H1, H2, X0) has 54 joint states" in message and "at most 50" in message
    assert "fewer or smaller hidden parents" in message


def test_many_blocks_and_threads_give_the_same_bits(rng, monkeypatch):
    network = NETWORKS["deterministic"]
    cpts, data = model_and_data(network, 20000, 0.15, rng)
    tree = jt.junction_tree(network)
    monkeypatch.setattr(jt, "BLOCK_CELLS", 7 * tree.total_states)  # blocks of 7 patterns
    monkeypatch.setattr(jt, "PARALLEL_MIN_CELLS", 0)
    assert data.n_patterns > 70 and data.n_patterns % 7
    assert_statistics_equal(jt.junction_tree_statistics(network, cpts, data.patterns,
                                                        data.counts),
                            enumeration_statistics(network, cpts, data.patterns, data.counts),
                            data.n_cases)

    class Engine:  # the E step as the EM engines expose it
        def e_step(self, state):
            expected, log_likelihood = jt.junction_tree_statistics(network, state, data.patterns,
                                                                   data.counts)
            return SimpleNamespace(expected=expected, log_likelihood=log_likelihood)

    assert_e_step_identical_on_one_and_two_threads(Engine(), cpts)


def test_a_tree_too_large_to_enumerate_equals_message_passing(rng):
    branch = "3(3(2,2,2),3(2,2,2),3(2,2,2),2,2)"
    network = parse_spec(f"3({branch},{branch},{branch},2,2)")
    assert hidden_configuration_count(network) > MAX_HIDDEN_CONFIGURATIONS
    assert jt.prefers_junction_tree(network)
    cpts, data = model_and_data(network, 3000, 0.1, rng)
    assert_statistics_equal(jt.junction_tree_statistics(network, cpts, data.patterns,
                                                        data.counts),
                            tree_statistics(network, cpts, data.patterns, data.counts),
                            data.n_cases)


def forward_log_likelihood(network, cpts, patterns, hidden):
    """``log p(x)`` per pattern of :func:`ladder` by the forward recursion over the hidden
    chain (missing children summed out), rescaled at every step."""
    column = {int(v): t for t, v in enumerate(network.observed_indices)}
    children = [[i for i, pa in enumerate(network.parents) if pa == (k, k + 1)]
                for k in range(hidden - 1)]
    alpha = np.tile(cpts[0][0], (patterns.shape[0], 1))  # p(H0, x so far)
    log_scale = np.zeros(patterns.shape[0])
    for k in range(hidden - 1):
        # joint over (H_k, H_k+1): transition times the pair's children's likelihoods
        pair = alpha[:, :, None] * cpts[k + 1][None, :, :]
        for child in children[k]:
            x = patterns[:, column[child]]
            table = cpts[child].reshape(2, 2, 2)
            likelihood = np.where((x == MISSING)[:, None, None], 1.0,
                                  np.moveaxis(table[:, :, np.maximum(x, 0)], 2, 0))
            pair *= likelihood
        alpha = pair.sum(axis=1)
        scale = alpha.max(axis=1)
        alpha /= scale[:, None]
        log_scale += np.log(scale)
    return log_scale + np.log(alpha.sum(axis=1))


def test_a_ladder_enumeration_refuses(rng):
    hidden = 18
    network = ladder(hidden)
    assert hidden_configuration_count(network) == 2**18 > MAX_HIDDEN_CONFIGURATIONS
    assert jt.prefers_junction_tree(network)
    assert jt.junction_tree(network).largest_clique_size == 3
    cpts, data = model_and_data(network, 4000, 0.1, rng)
    expected, log_likelihood = jt.junction_tree_statistics(network, cpts, data.patterns,
                                                           data.counts)
    reference = forward_log_likelihood(network, cpts, data.patterns, hidden)
    assert log_likelihood == pytest.approx(float(data.counts @ reference), rel=1e-12)
    _, log_marginal = jt.junction_tree_family_posteriors(network, cpts, data.patterns)
    np.testing.assert_allclose(log_marginal, reference, rtol=1e-12)
    # one completed data set: every family holds the N cases, and the rows of a child's counts
    # add up to the expected counts of its parents' configurations
    for i, parents in enumerate(network.parents):
        assert expected[i].sum() == pytest.approx(data.n_cases, rel=1e-12)
        if len(parents) == 2:
            h = parents[0]
            # E(N[H_h, H_h+1]) is the counts table of H_h+1 (parent H_h)
            np.testing.assert_allclose(expected[i].sum(axis=1), expected[h + 1].ravel(),
                                       rtol=1e-10)


def test_engine_choice():
    # enumeration refused: always the junction tree
    assert jt.prefers_junction_tree(ladder(18))
    # small networks that are not trees stay with enumeration (trees and latent class models
    # never ask: they take message passing or the latent class kernels)
    assert not jt.prefers_junction_tree(parse_spec(DETERMINISTIC))
    # a noisy-max effect of 10 causes: measured 2.7x faster on its junction tree
    causes = {f"C{k}": {"states": 2} for k in range(10)}
    mechanisms = {f"M{k}": {"states": 2, "parents": [f"C{k}"], "hidden": True} for k in range(10)}
    effect = {"E": {"function": "max", "parents": list(mechanisms)}}
    assert jt.prefers_junction_tree(parse_spec({"nodes": {**causes, **mechanisms, **effect}}))
    assert not jt.prefers_junction_tree(w_structure(2, 3, 20))  # 9 hidden states: enumerate
    assert jt.prefers_junction_tree(ladder(10))  # 1024 hidden states, cliques of 8
    assert math.isfinite(jt.junction_tree_cost(ladder(10)))
