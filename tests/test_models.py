"""The discrete-network core: parameterisation, exact observed distribution, parameter files."""

import itertools
import json

import numpy as np
import pytest

from hiddenbn.errors import HiddenbnError, ParameterError
from hiddenbn.models.network import (check_parameters, free_parameters, latent_class,
                                     load_parameters, observed_distribution, parameters_from_free,
                                     random_parameters, save_parameters)
from hiddenbn.models.spec import parse_spec


def brute_force_observed_distribution(network, cpts):
    """Sum the joint over every configuration of every node, one configuration at a time."""
    result = {}
    for config in itertools.product(*[range(r) for r in network.cardinalities]):
        p = 1.0
        for i in range(network.n_nodes):
            parent_values = [config[q] for q in network.parents[i]]
            if network.functions[i] == "max":
                p *= float(config[i] == max(parent_values))
            elif network.functions[i] == "sum":
                p *= float(config[i] == sum(parent_values))
            else:
                row = 0
                for q, v in zip(network.parents[i], parent_values):
                    row = row * network.cardinalities[q] + v
                p *= cpts[i][row, config[i]]
        key = tuple(config[i] for i in network.observed_indices)
        result[key] = result.get(key, 0.0) + p
    return result


@pytest.mark.parametrize("spec", ["3:2,3,2", "2(3(2,2),2)", "noisy_max"])
def test_observed_distribution_matches_brute_force(spec, noisy_max_network, rng):
    network = noisy_max_network if spec == "noisy_max" else parse_spec(spec)
    cpts = random_parameters(network, rng, alpha=0.7)
    dense = observed_distribution(network, cpts)
    assert dense.shape == network.observed_cardinalities
    for key, p in brute_force_observed_distribution(network, cpts).items():
        assert dense[key] == pytest.approx(p, abs=1e-14)
    assert dense.sum() == pytest.approx(1.0)


def test_free_parameters_round_trip(noisy_max_network, rng):
    cpts = random_parameters(noisy_max_network, rng)
    theta = free_parameters(noisy_max_network, cpts)
    assert theta.shape == (noisy_max_network.standard_dimension,)
    back = parameters_from_free(noisy_max_network, theta)
    for a, b in zip(cpts, back):
        assert (a is None and b is None) or np.allclose(a, b, atol=1e-15)


def test_random_parameters_follow_the_dirichlet(rng):
    # Dirichlet(alpha) rows have mean 1/r and variance (r-1)/(r^2 (r alpha + 1))
    network = latent_class(1, [4])
    alpha = 0.5
    rows = np.vstack([random_parameters(network, rng, alpha)[1] for _ in range(20000)])
    assert rows.mean(axis=0) == pytest.approx(np.full(4, 0.25), abs=0.01)
    assert rows.var(axis=0) == pytest.approx(np.full(4, 3 / (16 * 3)), rel=0.05)


def test_same_seed_same_parameters():
    network = parse_spec("5(3(2,2),3(2,2),2)")
    a = random_parameters(network, np.random.default_rng(9))
    b = random_parameters(network, np.random.default_rng(9))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_parameter_file_round_trip_and_errors(tmp_path, noisy_max_network, rng):
    cpts = random_parameters(noisy_max_network, rng)
    path = tmp_path / "p.json"
    save_parameters(path, noisy_max_network, cpts)
    loaded = load_parameters(path, noisy_max_network)
    assert all((a is None and b is None) or np.array_equal(a, b) for a, b in zip(cpts, loaded))

    document = json.loads(path.read_text())
    document["cpts"]["Y"][0] = [0.5, 0.6, -0.1]
    path.write_text(json.dumps(document))
    with pytest.raises(ParameterError, match="node 'Y': table has a negative"):
        load_parameters(path, noisy_max_network)
    document["cpts"]["Y"][0] = [0.5, 0.6, 0.1]
    path.write_text(json.dumps(document))
    with pytest.raises(ParameterError, match="node 'Y': row 0 sums to 1.2"):
        load_parameters(path, noisy_max_network)
    with pytest.raises(ParameterError, match=r"node 'H1': table has shape \(1, 3\), expected"):
        check_parameters(latent_class(2, [2]), [np.full((1, 3), 1 / 3), np.eye(2)])
    document["cpts"]["Y"][0] = [0.3, 0.6, 0.1]
    document["cpts"]["E"] = [[1.0]]
    path.write_text(json.dumps(document))
    with pytest.raises(ParameterError, match="'E' is deterministic"):
        load_parameters(path, noisy_max_network)
    path.write_text("{not json")
    with pytest.raises(ParameterError, match="is not valid JSON"):
        load_parameters(path, noisy_max_network)


def test_dense_distribution_refuses_huge_state_spaces(rng):
    network = latent_class(2, [2] * 30)
    with pytest.raises(HiddenbnError, match="joint states"):
        observed_distribution(network, random_parameters(network, rng))


def test_ordered_names_are_the_observed_deterministic_nodes_and_their_parents():
    network = parse_spec({"nodes": {"A": {"states": 2}, "B": {"states": 2},
                                    "H": {"states": 2, "hidden": True},
                                    "M": {"function": "max", "parents": ["A", "H"]},
                                    "S": {"function": "sum", "parents": ["B"]},
                                    "Y": {"states": 2, "parents": ["M"]}}})
    assert network.ordered_names == {"A", "B", "M", "S"}
    assert parse_spec("2:2,2").ordered_names == frozenset()
