"""Causal interaction models: structure, spec, NMI mechanism posteriors and EM (paper 004)."""

import itertools

import numpy as np
import pytest

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import SpecError
from hiddenbn.inference.enumeration import enumeration_statistics
from hiddenbn.interaction.noisy_max import (effect_distribution, fit_noisy_max,
                                            mechanism_posteriors, stacked_tables)
from hiddenbn.models.interaction import from_network, load_interaction, noisy_max_model
from hiddenbn.models.network import observed_distribution, random_parameters


@pytest.fixture
def three_state_model():
    """Causes with 2, 3, 2 states; an interacting pair, a single cause, a leak; 3-state effect."""
    return noisy_max_model([[1, 2], [3]], cause_states=(2, 3, 2), effect_states=3, leak=True)


def test_yaml_form_and_network_form_agree(tmp_path, three_state_model):
    path = tmp_path / "nmi.yaml"
    path.write_text("interaction: noisy-max\ncauses: {C1: 2, C2: 3, C3: 2}\n"
                    "mechanisms: {X1: [C1, C2], X2: [C3], L: []}\neffect: {name: E, states: 3}\n")
    model = load_interaction(path)
    assert model == three_state_model
    assert from_network(model.network()) == model
    assert load_interaction(model.network().to_dict()) == model


@pytest.mark.parametrize("document, message", [
    ({"interaction": "noisy-or", "causes": {"C": 2}, "mechanisms": {"X": ["C"]}}, "not a family"),
    ({"interaction": "poisson", "causes": {"C": 2}, "mechanisms": {"X": ["D"]}}, "unknown cause"),
    ({"interaction": "poisson", "causes": {"C": 2}, "mechanisms": {"X": ["C"]},
      "effect": {"states": 3}}, "unbounded"),
    ({"interaction": "noisy-max", "causes": {"C": 1}, "mechanisms": {"X": ["C"]}}, "at least 2"),
    ({"interaction": "noisy-max", "causes": {"C": 2}, "mechanisms": {"C": ["C"]}}, "used twice"),
])
def test_bad_interaction_specs_name_the_problem(document, message):
    with pytest.raises(SpecError, match=message):
        load_interaction(document)


def test_network_without_noisy_max_shape_is_refused():
    with pytest.raises(SpecError, match="function: max"):
        load_interaction("2:2,2")


def brute_force_posteriors(model, table, causes, effect):
    """p(X | c, e) by enumerating every joint mechanism state (independent of the closed form)."""
    rows = model.mechanism_rows(causes[None])[0]
    r = table.shape[1]
    posterior = np.zeros((model.n_mechanisms, r))
    total = 0.0
    for states in itertools.product(range(r), repeat=model.n_mechanisms):
        if max(states) != effect:
            continue
        weight = np.prod([table[row, k] for row, k in zip(rows, states)])
        total += weight
        for i, k in enumerate(states):
            posterior[i, k] += weight
    return posterior / total, total


def test_mechanism_posteriors_equal_brute_force_enumeration(three_state_model, rng):
    model = three_state_model
    table = rng.dirichlet(np.ones(3), size=int(model.mechanism_offsets()[-1]))
    causes = model.cause_configurations()
    cases = np.repeat(causes, 3, axis=0)
    effect = np.tile(np.arange(3), causes.shape[0])
    posterior, likelihood = mechanism_posteriors(model, table, cases, effect)
    for p in range(cases.shape[0]):
        expected, total = brute_force_posteriors(model, table, cases[p], effect[p])
        np.testing.assert_allclose(posterior[p], expected, rtol=1e-12, atol=1e-15)
        assert likelihood[p] == pytest.approx(total, rel=1e-12)


def test_mechanism_posteriors_with_zero_entries(rng):
    """A mechanism that can never reach the effect's value must not break the formula."""
    model = noisy_max_model([[1], [2]], effect_states=3)
    table = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [1.0, 0.0, 0.0], [0.1, 0.1, 0.8]])
    causes = np.array([[0, 1], [0, 1], [1, 0]])  # first case: X1 cannot reach 2, X2 must
    effect = np.array([2, 0, 2])
    posterior, likelihood = mechanism_posteriors(model, table, causes, effect)
    for p in range(3):
        expected, total = brute_force_posteriors(model, table, causes[p], effect[p])
        np.testing.assert_allclose(posterior[p], expected, atol=1e-15)
        assert likelihood[p] == pytest.approx(total)


def test_effect_distribution_equals_the_network_marginal(three_state_model, rng):
    model = three_state_model
    network = model.network()
    cpts = random_parameters(network, rng)
    joint = observed_distribution(network, cpts)  # axes: causes..., effect
    conditional = (joint / joint.sum(axis=-1, keepdims=True)).reshape(-1, 3)
    np.testing.assert_allclose(effect_distribution(model, cpts), conditional, atol=1e-14)


def test_fit_statistics_equal_enumeration_over_hidden_states(three_state_model, rng):
    model = three_state_model
    network = model.network()
    data = sample_dataset(network, random_parameters(network, rng), 3000, rng)
    fit = fit_noisy_max(model, data, rng, alpha=1.5, restarts=2, max_iterations=30)
    expected, log_likelihood = enumeration_statistics(
        network, fit.cpts, data.for_network(network).patterns, data.for_network(network).counts)
    assert fit.log_likelihood == pytest.approx(log_likelihood, rel=1e-12)
    for ours, reference in zip(fit.expected_counts, expected):
        if ours is not None:
            np.testing.assert_allclose(ours, reference, rtol=1e-10, atol=1e-9)


def test_map_fit_is_a_fixed_point_of_the_map_update(three_state_model, rng):
    model = three_state_model
    network = model.network()
    data = sample_dataset(network, random_parameters(network, rng), 2000, rng)
    alpha = 2.0
    fit = fit_noisy_max(model, data, rng, alpha=alpha, restarts=2, max_iterations=5000,
                        tolerance=1e-13)
    for table, counts in zip(fit.cpts, fit.expected_counts):
        if table is not None:
            update = (counts + alpha - 1) / (counts.sum(axis=1, keepdims=True)
                                             + table.shape[1] * (alpha - 1))
            np.testing.assert_allclose(table, update, atol=1e-5)


def test_em_recovers_the_conditional_of_the_effect(rng):
    """The identifiable quantity p(E | c) is recovered within sampling error (F3 of Fig. 4)."""
    model = noisy_max_model([[1, 2], [2, 3]])
    network = model.network()
    cpts = [np.array([[0.5, 0.5]])] * 3 + [np.array([[0.9, 0.1], [0.6, 0.4], [0.7, 0.3],
                                                     [0.2, 0.8]]),
                                           np.array([[0.8, 0.2], [0.3, 0.7], [0.5, 0.5],
                                                     [0.4, 0.6]]), None]
    cases = 100_000
    data = sample_dataset(network, cpts, cases, rng)
    fit = fit_noisy_max(model, data, rng, restarts=4)
    truth = effect_distribution(model, cpts)[:, 1]
    estimate = effect_distribution(model, fit.cpts)[:, 1]
    standard_error = np.sqrt(truth * (1 - truth) / (cases / 8))
    assert np.all(np.abs(estimate - truth) < 4 * standard_error)
    assert fit.converged
    # the ML fit is at least as likely as the generating parameters
    _, true_log_likelihood = enumeration_statistics(
        network, cpts, data.for_network(network).patterns, data.for_network(network).counts)
    assert fit.log_likelihood >= true_log_likelihood - 1e-6


def test_stacked_tables_follow_the_mechanism_offsets(three_state_model, rng):
    model = three_state_model
    cpts = random_parameters(model.network(), rng)
    table = stacked_tables(model, cpts)
    offsets = model.mechanism_offsets()
    for i in range(model.n_mechanisms):
        np.testing.assert_array_equal(table[offsets[i]:offsets[i + 1]], cpts[model.n_causes + i])


def test_nested_mechanisms_go_through_the_general_network_path(rng):
    """Sec. 3.3 (stretch): a mechanism with an inner hidden node is an ordinary network with a
    max node; the NMI reader refuses it by name, the general EM fits it, and the dimension
    engine ranks it."""
    from hiddenbn.dimension.effective import effective_dimension
    from hiddenbn.learning.em import fit
    from hiddenbn.models.spec import parse_spec

    network = parse_spec({"nodes": {
        "C1": {"states": 2}, "C2": {"states": 2}, "C3": {"states": 2},
        "M": {"states": 2, "hidden": True, "parents": ["C1", "C2"]},
        "X1": {"states": 2, "hidden": True, "parents": ["M", "C2"]},
        "X2": {"states": 2, "hidden": True, "parents": ["C3"]},
        "E": {"function": "max", "parents": ["X1", "X2"]}}})
    with pytest.raises(SpecError, match="'M' is neither a mechanism"):
        from_network(network)
    truth = random_parameters(network, rng)
    data = sample_dataset(network, truth, 4000, rng)
    result = fit(network, data, rng, alpha=1.0, restarts=4, max_iterations=300)
    _, true_log_likelihood = enumeration_statistics(
        network, truth, data.for_network(network).patterns, data.for_network(network).counts)
    assert result.log_likelihood >= true_log_likelihood - 1e-6
    # E given the causes has at most 8 free values, plus the causes' 3
    assert effective_dimension(network, points=2) <= 11 < network.standard_dimension
