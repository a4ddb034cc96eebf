"""The exact marginal likelihood against brute force over every completion, Eq. 5 and a peer."""

import dataclasses
import itertools

import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

from hiddenbn.data import Dataset
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import DataError, HiddenbnError
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.models.priors import bd_log_marginal
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores.exact import complete_data_counts, compositions, exact_log_evidence
from reference import exact_log_marginal_likelihood

W_STRUCTURE = {"nodes": {
    "A": {"states": 2}, "B": {"states": 2}, "H": {"states": 3, "hidden": True},
    "C": {"states": 2, "parents": ["A", "H"]}, "D": {"states": 2, "parents": ["H", "B"]}}}


def brute_force(network, data, alpha):
    """Sum of Eq. 5 over every assignment of hidden values to every single case."""
    complete = dataclasses.replace(network, hidden=(False,) * network.n_nodes)
    hidden = network.hidden_indices
    observed = data.for_network(network).rows()
    configurations = list(itertools.product(*[range(network.cardinalities[i]) for i in hidden]))
    terms = []
    for completion in itertools.product(configurations, repeat=observed.shape[0]):
        rows = np.zeros((observed.shape[0], network.n_nodes), dtype=np.int64)
        rows[:, network.observed_indices] = observed
        if hidden.size:
            rows[:, hidden] = np.array(completion)
        if any(complete.is_deterministic(i) and np.any(
                rows[:, i] != (rows[:, list(complete.parents[i])].max(axis=1)
                               if complete.functions[i] == "max"
                               else rows[:, list(complete.parents[i])].sum(axis=1)))
               for i in range(complete.n_nodes)):
            continue  # a deterministic node contradicts this completion: probability zero
        full = Dataset.from_rows(complete.names, rows, complete.cardinalities)
        terms.append(bd_log_marginal(complete, complete_data_counts(complete, full), alpha))
    return float(logsumexp(terms))


def small_data(network, n, seed):
    rng = np.random.default_rng(seed)
    return sample_dataset(network, random_parameters(network, rng), n, rng)


@pytest.mark.parametrize("network, n, alpha", [
    (latent_class(2, [2, 3]), 6, 1.0),
    (latent_class(3, [2, 2, 2]), 5, 0.7),
    (parse_spec(W_STRUCTURE), 5, 1.0),
    (parse_spec("2(2(2,2),2)"), 4, 1.5),
])
def test_exact_equals_brute_force_over_every_completion(network, n, alpha):
    data = small_data(network, n, 7)
    assert exact_log_evidence(network, data, alpha).log_evidence == pytest.approx(
        brute_force(network, data, alpha), abs=1e-9)


def test_exact_with_a_deterministic_node(noisy_max_network):
    data = small_data(noisy_max_network, 3, 11)
    assert exact_log_evidence(noisy_max_network, data, 1.0).log_evidence == pytest.approx(
        brute_force(noisy_max_network, data, 1.0), abs=1e-9)


def test_nothing_hidden_gives_the_complete_data_bd_score():
    network = parse_spec({"nodes": {"A": {"states": 3}, "B": {"states": 2, "parents": ["A"]},
                                    "C": {"states": 2, "parents": ["A", "B"]}}})
    data = small_data(network, 200, 3)
    expected = bd_log_marginal(network, complete_data_counts(network, data), 1.3)
    result = exact_log_evidence(network, data, 1.3)
    assert result.log_evidence == pytest.approx(expected, abs=1e-9)
    assert result.peak_states == 1


def test_one_hidden_state_is_independent_dirichlet_multinomials():
    """``1:r1,..,rn``: the hidden node is constant, so the X_j are independent a priori."""
    data = small_data(latent_class(2, [2, 3, 4]), 40, 5)
    alpha = 0.8
    expected = sum(gammaln(r * alpha) - gammaln(r * alpha + 40)
                   + sum(gammaln(alpha + np.sum(data.rows()[:, j] == x)) - gammaln(alpha)
                         for x in range(r))
                   for j, r in enumerate([2, 3, 4]))
    result = exact_log_evidence(latent_class(1, [2, 3, 4]), data, alpha)
    assert result.log_evidence == pytest.approx(expected, abs=1e-9)


def test_agrees_with_the_scores_module_peer_on_repeated_patterns():
    network = latent_class(2, [2, 2, 2])
    data = small_data(network, 24, 9)
    assert exact_log_evidence(network, data, 1.01).log_evidence == pytest.approx(
        exact_log_marginal_likelihood(network, data, 1.01), abs=1e-8)


def test_label_symmetry_shrinks_the_table():
    network = latent_class(3, [2, 2, 2, 2])
    data = small_data(network, 12, 2)
    canonical = exact_log_evidence(network, data, 1.0)
    assert canonical.canonical_node == "H1"
    assert canonical.log_evidence == pytest.approx(
        exact_log_marginal_likelihood(network, data, 1.0), abs=1e-8)


def test_budget_and_bad_input_raise_one_line_errors():
    network = latent_class(3, [2, 2, 2, 2])
    data = small_data(network, 30, 1)
    with pytest.raises(HiddenbnError, match="method='mc'") as err:
        exact_log_evidence(network, data, 1.0, max_states=100)
    assert "use --method mc (sequential" in err.value.command_line_message()
    with pytest.raises(HiddenbnError, match="alpha"):
        exact_log_evidence(network, data, 0.0)
    with pytest.raises(DataError, match="X5"):
        exact_log_evidence(latent_class(2, [2] * 5), data, 1.0)


def test_compositions_are_all_ordered_splits():
    rows = compositions(4, 3)
    assert rows.shape == (15, 3)
    assert np.all(rows.sum(axis=1) == 4)
    assert len({tuple(r) for r in rows}) == 15
