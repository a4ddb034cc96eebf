"""Exact inference by the method that suits the network (hiddenbn.inference.exact) and the
exact Hessian by Louis' identity (hiddenbn.scores.approximations), against enumeration of every
hidden configuration and against finite differences of the log-likelihood."""

import numpy as np
import pytest

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.inference import exact as exact_inference
from hiddenbn.inference.enumeration import MAX_HIDDEN_CONFIGURATIONS, hidden_configuration_count
from hiddenbn.inference.exact import ENUMERATION, JUNCTION_TREE, TREE
from hiddenbn.inference.message_passing import tree_statistics
from hiddenbn.learning import em
from hiddenbn.learning.selection import fit_and_score
from hiddenbn.models.network import free_parameters, parameters_from_free, random_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores import approximations as scores
from test_junction_tree import DETERMINISTIC, HIDDEN_MAX

#: Paper 002's hierarchical latent class model (Table 2's generator).
PAPER_HLC = "5(3(2,2),3(2,2),2)"
#: A forest: a tree with an observed internal node, and a second tree.
FOREST = {"nodes": {
    "H": {"states": 3, "hidden": True}, "A": {"states": 2, "parents": ["H"]},
    "G": {"states": 2, "parents": ["H"], "hidden": True}, "C": {"states": 2, "parents": ["G"]},
    "D": {"states": 3, "parents": ["G"]}, "Y": {"states": 2}, "Z": {"states": 2, "parents": ["Y"],
                                                                    "hidden": True},
    "E": {"states": 2, "parents": ["Z"]}, "F": {"states": 3, "parents": ["Z"]}}}
#: Two hidden parents sharing children (a W), with an observed parent of a hidden node.
W_STRUCTURE = {"nodes": {
    "A": {"states": 2, "hidden": True}, "O": {"states": 2},
    "B": {"states": 3, "hidden": True, "parents": ["O"]},
    "X1": {"states": 2, "parents": ["A"]}, "X2": {"states": 3, "parents": ["A", "B"]},
    "X3": {"states": 2, "parents": ["A", "B"]}, "X4": {"states": 2, "parents": ["B"]},
    "X5": {"states": 2, "parents": ["B", "O"]}}}
#: A tree of 20 ternary hidden nodes over 60 binary leaves: 3^20 ~ 3.5e9 hidden configurations.
BRANCH = "3(3(2,2,2),3(2,2,2),3(2,2,2),3(2,2,2),2,2,2)"
SMALL_BRANCH = "3(3(2,2,2),3(2,2,2),3(2,2,2),2,2,2)"
LARGE_TREE = f"3({BRANCH},{BRANCH},{BRANCH},{SMALL_BRANCH},2,2,2)"


def model_and_data(spec, n_cases, missing_rate, seed):
    rng = np.random.default_rng(seed)
    network = parse_spec(spec)
    cpts = random_parameters(network, rng)
    return network, cpts, sample_dataset(network, cpts, n_cases, rng, missing_rate).for_network(
        network)


@pytest.fixture
def force_method(monkeypatch):
    """Make :func:`exact_inference.method` return ``chosen`` for every network."""
    def force(chosen):
        monkeypatch.setattr(exact_inference, "method", lambda network: chosen)
    return force


def test_each_network_gets_its_method():
    assert exact_inference.method(parse_spec(PAPER_HLC)) == TREE
    assert exact_inference.method(parse_spec(FOREST)) == TREE
    assert exact_inference.method(parse_spec(LARGE_TREE)) == TREE
    assert exact_inference.method(parse_spec(W_STRUCTURE)) in (ENUMERATION, JUNCTION_TREE)


@pytest.mark.parametrize("missing_rate", [0.0, 0.15])
@pytest.mark.parametrize("spec, chosen", [(PAPER_HLC, TREE), (FOREST, TREE),
                                          (W_STRUCTURE, JUNCTION_TREE)])
def test_family_posteriors_and_marginals_equal_enumeration(spec, chosen, missing_rate,
                                                           force_method):
    network, cpts, data = model_and_data(spec, 300, missing_rate, 7)
    expected, log_marginal = exact_inference.enumeration_family_posteriors(
        network, cpts, data.patterns)
    force_method(chosen)
    ours, our_log_marginal = exact_inference.family_posteriors(network, cpts, data.patterns)
    np.testing.assert_allclose(our_log_marginal, log_marginal, rtol=1e-12)
    for mine, reference in zip(ours, expected):
        np.testing.assert_allclose(mine, reference, rtol=1e-10, atol=1e-13)
    marginals = exact_inference.posterior_marginals(network, cpts, data.patterns)
    assert list(marginals) == [network.names[i] for i in network.hidden_indices]
    for i in network.hidden_indices:
        np.testing.assert_allclose(marginals[network.names[i]], expected[i].sum(axis=1),
                                   rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(marginals[network.names[i]].sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("missing_rate", [0.0, 0.15])
@pytest.mark.parametrize("spec, chosen", [(PAPER_HLC, TREE), (FOREST, TREE),
                                          (W_STRUCTURE, JUNCTION_TREE),
                                          (DETERMINISTIC, JUNCTION_TREE)])
def test_louis_hessian_equals_enumeration(spec, chosen, missing_rate, force_method):
    network, cpts, data = model_and_data(spec, 400, missing_rate, 11)
    enumerated = scores.likelihood_hessian_by_enumeration(network, cpts, data)
    force_method(chosen)
    assert scores._by_louis(network)
    louis = scores.likelihood_hessian_by_louis(network, cpts, data)
    np.testing.assert_allclose(louis, enumerated, rtol=0, atol=1e-10 * np.abs(enumerated).max())


def test_negative_hessian_of_a_tree_takes_louis_and_keeps_the_prior():
    network, cpts, data = model_and_data(PAPER_HLC, 200, 0.0, 3)
    assert scores._by_louis(network)
    prior = scores.prior_negative_hessian(network, cpts, 1.5)
    np.testing.assert_allclose(
        scores.negative_hessian(network, data, cpts, 1.5),
        prior - scores.likelihood_hessian_by_enumeration(network, cpts, data), rtol=1e-10,
        atol=1e-10)


def test_louis_hessian_of_a_tree_too_large_to_enumerate_matches_finite_differences():
    """Directional second derivatives ``u^T H u`` of log p(D | theta) on the 20-hidden /
    60-leaf tree, against central differences of the log-likelihood by message passing."""
    network, cpts, data = model_and_data(LARGE_TREE, 300, 0.1, 5)
    assert hidden_configuration_count(network) > MAX_HIDDEN_CONFIGURATIONS
    hessian = scores.likelihood_hessian_by_louis(network, cpts, data)
    theta = free_parameters(network, cpts)

    def log_likelihood(point):
        return tree_statistics(network, parameters_from_free(network, point), data.patterns,
                               data.counts)[1]

    rng = np.random.default_rng(0)
    step = 1e-4
    for _ in range(4):
        direction = rng.normal(size=theta.size)
        direction *= 0.05 / np.abs(direction).max()
        numeric = (log_likelihood(theta + step * direction) - 2 * log_likelihood(theta)
                   + log_likelihood(theta - step * direction)) / step ** 2
        assert direction @ hessian @ direction == pytest.approx(numeric, rel=1e-4)


def test_fit_and_score_gives_laplace_on_a_tree_past_enumeration():
    network, _, data = model_and_data(LARGE_TREE, 300, 0.0, 9)
    outcome = fit_and_score(network, data, seed=1, restarts=2, with_effective_dimension=False,
                            max_iterations=5)
    assert np.isfinite(outcome["scores"]["laplace"]) or \
        not outcome["scores"]["laplace_positive_definite"]
    assert "Laplace" not in (outcome["note"] or "")
    assert scores.hessian_refusal(network) is None


def test_a_deterministic_parent_keeps_the_enumeration_hessian(force_method):
    network, cpts, data = model_and_data(HIDDEN_MAX, 300, 0.0, 2)
    force_method(JUNCTION_TREE)
    assert not scores._by_louis(network) and scores.hessian_refusal(network) is None
    np.testing.assert_array_equal(
        scores.negative_hessian(network, data, cpts, 1.0),
        -scores.likelihood_hessian_by_enumeration(network, cpts, data))


@pytest.mark.parametrize("missing_rate", [0.0, 0.15])
@pytest.mark.parametrize("spec", [W_STRUCTURE, DETERMINISTIC])
def test_junction_tree_em_follows_the_enumeration_path(spec, missing_rate):
    network, _, data = model_and_data(spec, 1000, missing_rate, 13)
    start = random_parameters(network, np.random.default_rng(14))
    paths = {}
    for engine in (em.JunctionTreeEngine(network, data, 1.01),
                   em.EnumerationEngine(network, data, 1.01)):
        paths[type(engine)] = em.fit_engine(engine, None, restarts=1, max_iterations=20,
                                            tolerance=0.0, draw=lambda _: start,
                                            acceleration="none")  # step by step
    ours, reference = paths[em.JunctionTreeEngine], paths[em.EnumerationEngine]
    assert len(ours.trace) == len(reference.trace) == 20
    np.testing.assert_allclose(ours.trace, reference.trace, rtol=1e-9)
    for table, expected in zip(ours.run.state, reference.run.state, strict=True):
        if expected is not None:
            np.testing.assert_allclose(table, expected, rtol=1e-8, atol=1e-12)


def test_fit_reports_the_junction_tree_and_its_cliques():
    network, _, data = model_and_data(W_STRUCTURE, 200, 0.0, 4)
    engine = em.JunctionTreeEngine(network, data, 1.0)
    assert engine.name.startswith("junction tree (") and "largest" in engine.name


def test_the_annealed_search_past_enumeration_starts_at_random_and_says_so():
    """The annealing moves score every joint hidden state; a tree with more of them than
    MAX_HIDDEN_CONFIGURATIONS gets random starts, each run to convergence, and the note says
    why (EM itself fits it exactly, by message passing)."""
    network, _, data = model_and_data(LARGE_TREE, 50, 0.0, 6)
    options = {"restarts": 2, "max_iterations": 5, "schedule": "annealing"}
    fit = em.fit(network, data, np.random.default_rng(0), **options)
    assert fit.schedule == "best-of-n" and fit.searches == 2
    outcome = fit_and_score(network, data, 0, 1.0, with_effective_dimension=False,
                            with_laplace=False, **options)
    assert f"at most {MAX_HIDDEN_CONFIGURATIONS}, and this model has" in outcome["note"]
    assert outcome["fit"].schedule == "best-of-n"
