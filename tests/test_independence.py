"""d-separation and the independencies a parameter point adds beyond its structure, against
pgmpy's d-separation and scikit-learn's mutual information."""

from itertools import combinations

import numpy as np
import pytest
from pgmpy.base import DAG
from sklearn.metrics import mutual_info_score

from hiddenbn.errors import SpecError
from hiddenbn.models import independence
from hiddenbn.models.network import observed_distribution, random_parameters
from hiddenbn.models.spec import parse_spec

#: A collider, a chain, a fork and a node with two parents and a child: every d-separation rule.
NETWORK = parse_spec({"nodes": {
    "A": {"states": 2}, "B": {"states": 3}, "C": {"states": 2, "parents": ["A", "B"]},
    "D": {"states": 2, "parents": ["C"]}, "E": {"states": 2, "parents": ["B"]},
    "F": {"states": 2, "parents": ["D", "E"]}}})


def statements(network):
    nodes = range(network.n_nodes)
    for a, b in combinations(nodes, 2):
        rest = [v for v in nodes if v not in (a, b)]
        for size in range(len(rest) + 1):
            yield from ((a, b, given) for given in combinations(rest, size))


def test_d_separation_agrees_with_pgmpy_on_every_statement():
    names = NETWORK.names
    dag = DAG([(names[p], names[i]) for i in range(NETWORK.n_nodes) for p in NETWORK.parents[i]])
    for a, b, given in statements(NETWORK):
        ours = independence.d_separated(NETWORK, a, b, given)
        assert ours != dag.is_dconnected(names[a], names[b], [names[g] for g in given]), \
            (a, b, given)


def test_conditional_mutual_information_agrees_with_scikit_learn():
    joint = observed_distribution(NETWORK, random_parameters(NETWORK, np.random.default_rng(1)))
    a, b, given = 0, 4, (2, 3)  # A, E given C, D
    table = joint.sum(axis=(1, 5)).transpose(1, 2, 0, 3)  # C, D, A, E
    # scikit-learn takes integer counts, and multiplies two of them in int64
    counts = np.rint(table * 1e9).astype(np.int64)
    expected = sum(table[c, d].sum() * mutual_info_score(None, None, contingency=counts[c, d])
                   for c in range(2) for d in range(2))
    ours = independence.conditional_mutual_information(joint, a, b, given)
    assert ours == pytest.approx(expected, rel=1e-6) and ours > 1e-6


def test_a_random_point_is_faithful_and_a_flat_table_adds_independencies():
    rng = np.random.default_rng(2)
    cpts = random_parameters(NETWORK, rng)
    found = independence.independence_statements(NETWORK, cpts)
    assert len(found) == 15 * 2 ** 4
    assert max(s.information for s in found if s.separated) < 1e-14
    assert independence.unencoded_independencies(NETWORK, cpts) == []
    # E's table the same for every state of B cuts the arc B -> E, never the arc E -> F
    e = NETWORK.index("E")
    cpts[e] = np.repeat(cpts[e][:1], 3, axis=0)
    texts = {s.text(NETWORK) for s in independence.unencoded_independencies(NETWORK, cpts)}
    assert {"B _||_ E", "A _||_ E | C"} <= texts and not any(t.startswith("E _||_ F")
                                                             for t in texts)


def test_hidden_nodes_and_large_networks_are_refused():
    with pytest.raises(SpecError, match="remove 'hidden'"):
        independence.independence_statements(parse_spec("2(2,2)"), None)
    chain = parse_spec({"nodes": {f"X{i}": {"states": 2} for i in range(13)}})
    with pytest.raises(SpecError, match="limited to 12"):
        independence.independence_statements(chain, None)
