"""Greedy BD structure search (paper 003 Sec. 5 comparison model)."""

import itertools

import numpy as np
import pytest

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.learning.structure_search import greedy_search
from hiddenbn.models.network import Network, random_parameters
from hiddenbn.models.priors import bd_log_marginal
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores.exact import complete_data_counts


def bd_of_parent_sets(names, cards, parent_sets, data):
    """Exact BD score of a DAG given as parent sets, or None if it has a cycle."""
    order, placed = [], set()
    while len(order) < len(names):
        ready = [i for i in range(len(names)) if i not in placed and parent_sets[i] <= placed]
        if not ready:
            return None
        order.append(ready[0])
        placed.add(ready[0])
    position = {node: k for k, node in enumerate(order)}
    network = Network(tuple(names[i] for i in order), tuple(cards[i] for i in order),
                      tuple(tuple(sorted(position[p] for p in parent_sets[i])) for i in order),
                      (False,) * len(order), (None,) * len(order))
    return bd_log_marginal(network, complete_data_counts(network, data), 1.0)


@pytest.fixture
def data():
    net = parse_spec({"nodes": {"A": {"states": 2}, "B": {"states": 3, "parents": ["A"]},
                                "C": {"states": 2, "parents": ["A", "B"]}, "D": {"states": 2}}})
    cpts = random_parameters(net, np.random.default_rng(1), alpha=0.3)
    return sample_dataset(net, cpts, 2000, np.random.default_rng(2))


def test_score_is_the_exact_bd_of_the_returned_dag(data):
    found, score = greedy_search(data)
    assert score == pytest.approx(bd_log_marginal(found, complete_data_counts(found, data), 1.0))


def test_result_is_a_local_optimum_under_add_delete_reverse(data):
    found, score = greedy_search(data)
    names = list(data.names)
    index = {name: data.names.index(name) for name in names}
    parent_sets = [set() for _ in names]
    for i, pa in enumerate(found.parents):
        parent_sets[index[found.names[i]]] = {index[found.names[p]] for p in pa}
    cards = [int(data.patterns[:, k].max()) + 1 for k in range(len(names))]
    for a, b in itertools.permutations(range(len(names)), 2):
        neighbour = [set(s) for s in parent_sets]
        if a in neighbour[b]:
            neighbour[b].discard(a)
            candidates = [neighbour, [set(s) for s in neighbour]]
            candidates[1][a].add(b)
        else:
            neighbour[b].add(a)
            candidates = [neighbour]
        for candidate in candidates:
            value = bd_of_parent_sets(names, cards, candidate, data)
            assert value is None or value <= score + 1e-9


def test_recovers_the_skeleton_of_a_strong_dependence():
    net = parse_spec({"nodes": {"A": {"states": 2}, "B": {"states": 2, "parents": ["A"]},
                                "C": {"states": 2}}})
    cpts = [np.array([[0.5, 0.5]]), np.array([[0.95, 0.05], [0.05, 0.95]]), np.array([[0.5, 0.5]])]
    data = sample_dataset(net, cpts, 3000, np.random.default_rng(0))
    found, _ = greedy_search(data)
    arcs = {frozenset((found.names[i], found.names[p])) for i, pa in enumerate(found.parents)
            for p in pa}
    assert arcs == {frozenset(("A", "B"))}


def test_bd_with_uniform_prior_equals_pgmpy_k2(data):
    """Peer check: Eq. 5 with alpha = 1 is the K2 score (Cooper & Herskovits 1992)."""
    import warnings

    import pandas as pd
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.estimators import K2
        from pgmpy.models import DiscreteBayesianNetwork

    found, score = greedy_search(data)
    frame = pd.DataFrame(data.rows(), columns=list(data.names))
    arcs = [(found.names[p], found.names[i]) for i, pa in enumerate(found.parents) for p in pa]
    model = DiscreteBayesianNetwork(arcs)
    model.add_nodes_from(data.names)
    assert K2(frame).score(model) == pytest.approx(score, rel=1e-10)
    empty = DiscreteBayesianNetwork()
    empty.add_nodes_from(data.names)
    assert K2(frame).score(empty) == pytest.approx(
        bd_of_parent_sets(list(data.names), [2, 3, 2, 2], [set()] * 4, data), rel=1e-10)


def equivalence_class(network):
    """Skeleton and v-structures (a -> c <- b with a, b not adjacent): Verma & Pearl's class."""
    arcs = {(network.names[p], network.names[i]) for i, pa in enumerate(network.parents)
            for p in pa}
    skeleton = {frozenset(arc) for arc in arcs}
    v_structures = {(frozenset((a, b)), c) for (a, c) in arcs for (b, c2) in arcs
                    if c == c2 and a != b and frozenset((a, b)) not in skeleton}
    return skeleton, v_structures


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_recovers_the_equivalence_class_on_easy_data(seed):
    # a tree with strong arcs; every DAG of its class (same skeleton, no v-structure) scores
    # the same, so the search must return that skeleton and introduce no v-structure
    truth = parse_spec({"nodes": {"A": {"states": 2}, "B": {"states": 3, "parents": ["A"]},
                                  "C": {"states": 2, "parents": ["B"]},
                                  "D": {"states": 2, "parents": ["A"]}, "E": {"states": 2}}})
    cpts = [np.array([[0.5, 0.5]]), np.array([[0.8, 0.15, 0.05], [0.1, 0.2, 0.7]]),
            np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]]), np.array([[0.85, 0.15], [0.2, 0.8]]),
            np.array([[0.3, 0.7]])]
    data = sample_dataset(truth, cpts, 4000, np.random.default_rng(seed))
    found, _ = greedy_search(data)
    assert equivalence_class(found) == equivalence_class(truth)
