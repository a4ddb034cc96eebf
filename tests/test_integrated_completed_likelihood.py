"""ICL (BIC less the entropy of the hidden nodes' posterior) against brute force over the cases."""

import itertools
import math

import numpy as np
import pytest
from scipy.special import xlogy

from hiddenbn.data import MISSING, Dataset
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.learning import selection
from hiddenbn.models.network import latent_class, node_tables, random_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores import integrated_completed_likelihood as icl


def brute_force_entropy(network, cpts, data: Dataset) -> float:
    """``sum_n H(h | x_n)`` case by case: every joint state of the hidden nodes and of the
    case's missing cells is enumerated, ``p(x, h)`` is the product of the node tables, the
    missing cells are summed out of ``p(h, x_obs)``."""
    tables = node_tables(network, cpts)
    cards = network.cardinalities
    data = data.for_network(network)
    total = 0.0
    for pattern, count in zip(data.patterns, data.counts):
        for _ in range(int(count)):  # case by case, as the definition sums
            unknown = [int(i) for i in network.hidden_indices] + [
                int(network.observed_indices[c]) for c in np.flatnonzero(pattern == MISSING)]
            hidden_count = network.hidden_indices.size
            mass = {}
            for states in itertools.product(*(range(cards[i]) for i in unknown)):
                values = np.empty(network.n_nodes, dtype=int)
                values[network.observed_indices] = pattern
                values[unknown] = states
                probability = 1.0
                for i, table in enumerate(tables):
                    parents = network.parents[i]
                    row = (int(np.ravel_multi_index(values[list(parents)],
                                                    [cards[p] for p in parents]))
                           if parents else 0)
                    probability *= table[row, values[i]]
                key = states[:hidden_count]
                mass[key] = mass.get(key, 0.0) + probability
            posterior = np.array(list(mass.values()))
            posterior /= posterior.sum()
            total -= float(xlogy(posterior, posterior).sum())
    return total


@pytest.mark.parametrize("spec", ["3:2,3,2,2", "2(2(2,2),3(2,2))", "noisy-max"])
def test_hidden_entropy_is_the_sum_over_cases_of_the_posterior_entropy(spec, rng,
                                                                      noisy_max_network):
    """A latent class model (class posteriors), a hierarchical latent class tree (message
    passing) and a network with a deterministic node (its family posteriors)."""
    network = noisy_max_network if spec == "noisy-max" else parse_spec(spec)
    cpts = random_parameters(network, rng, alpha=2.0)
    data = sample_dataset(network, cpts, 60, rng)
    assert data.n_patterns < data.n_cases  # patterns with several cases count each
    entropy, reason = icl.hidden_entropy(network, cpts, data)
    assert reason is None
    assert entropy == pytest.approx(brute_force_entropy(network, cpts, data), rel=1e-9)


def test_a_latent_class_model_sums_missing_items_out_and_other_networks_refuse(rng):
    network = latent_class(3, [2, 3, 2])
    cpts = random_parameters(network, rng, alpha=2.0)
    data = sample_dataset(network, cpts, 40, rng, missing_rate=0.3)
    assert (data.patterns == MISSING).any()
    entropy, _ = icl.hidden_entropy(network, cpts, data)
    assert entropy == pytest.approx(brute_force_entropy(network, cpts, data), rel=1e-9)
    tree = parse_spec("2(2(2,2),2)")
    tree_cpts = random_parameters(tree, rng)
    assert icl.hidden_entropy(tree, tree_cpts, sample_dataset(tree, tree_cpts, 40, rng, 0.3)) \
        == (None, icl.MISSING_CELLS_NOTE)


def test_every_fit_scores_icl_as_bic_less_the_entropy_and_one_class_as_bic(rng):
    network = latent_class(2, [2, 2, 3])
    truth = random_parameters(network, rng, alpha=1.0)
    data = sample_dataset(network, truth, 200, rng)
    for k in (1, 2):
        outcome = selection.fit_and_score(latent_class(k, [2, 2, 3], data.names), data, seed=3,
                                          restarts=2, with_effective_dimension=False,
                                          with_laplace=False)
        scores, fit = outcome["scores"], outcome["fit"]
        entropy = brute_force_entropy(fit.network, fit.cpts, data)
        assert scores["icl_log_evidence"] == pytest.approx(
            scores["bic_log_evidence"] - entropy, abs=1e-8)
        assert (entropy == 0) == (k == 1)
    hierarchical = parse_spec("2(2(2,2),3)")
    outcome = selection.fit_and_score(hierarchical, data, seed=3, restarts=2,
                                      with_effective_dimension=False, with_laplace=False)
    fit = outcome["fit"]
    assert outcome["scores"]["icl_log_evidence"] == pytest.approx(
        outcome["scores"]["bic_log_evidence"] - brute_force_entropy(fit.network, fit.cpts, data),
        abs=1e-8)
    assert math.isfinite(outcome["scores"]["icl_log_evidence"])


def test_the_estimators_icl_is_bic_plus_twice_the_entropy(rng):
    from hiddenbn.estimators import LatentClassModel

    network = latent_class(3, [2, 2, 2, 3])
    data = sample_dataset(network, random_parameters(network, rng, alpha=1.0), 150, rng)
    rows = np.repeat(data.patterns, data.counts, axis=0)
    model = LatentClassModel(3, random_state=2).fit(rows)
    fitted = latent_class(3, [2, 2, 2, 3])
    cpts = [model.weights_[None, :], *model.item_probabilities_]
    assert model.icl(rows) == pytest.approx(
        model.bic(rows) + 2 * brute_force_entropy(fitted, cpts, data), rel=1e-10)


def test_a_noisy_max_fit_scores_icl_from_its_own_expected_counts(rng):
    """The noisy-max EM's expected counts (not an E step of the network) give the entropy."""
    from hiddenbn.models.interaction import interaction_from_dict
    from hiddenbn.interaction.noisy_max import noisy_max_outcome

    model = interaction_from_dict({"interaction": "noisy-max", "causes": {"C1": 2, "C2": 3},
                                   "mechanisms": {"X1": ["C1"], "X2": ["C2"]},
                                   "effect": {"name": "E", "states": 3}})
    network = model.network()
    data = sample_dataset(network, random_parameters(network, rng, alpha=2.0), 80, rng)
    outcome = noisy_max_outcome(model, data, seed=1, alpha=1.0, restarts=2,
                                with_effective_dimension=False)
    fit = outcome["fit"]
    assert outcome["scores"]["icl_log_evidence"] == pytest.approx(
        outcome["scores"]["bic_log_evidence"] - brute_force_entropy(fit.network, fit.cpts, data),
        abs=1e-7)
