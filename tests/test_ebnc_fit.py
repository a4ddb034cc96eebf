"""Fitting and scoring EBNCs (paper 001 Sec. 5): the analytic gradient and Hessian against finite
differences, the fitted phi against the log odds of Eq. 4, the naive-Bayes EBNC against
scikit-learn's unpenalised logistic regression, Laplace against quadrature, BIC with both
dimension constructions, the exact full-table score against BD of the whole network, and
selection of the true inputs."""

import itertools

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import expit

from hiddenbn.data import Dataset
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.ebnc import fitting as ebnc_fit, model as ebnc
from hiddenbn.errors import HiddenbnError
from hiddenbn.models.network import random_parameters
from hiddenbn.models.priors import bd_log_marginal
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores.approximations import bic_log_evidence
from hiddenbn.scores.exact import complete_data_counts


def naive_bayes(n_inputs, class_states=2):
    nodes = {"Y": {"states": class_states}}
    nodes.update({f"X{i}": {"states": 2, "parents": ["Y"]} for i in range(1, n_inputs + 1)})
    return parse_spec({"nodes": nodes})


SECTION6 = parse_spec({"nodes": {
    "X1": {"states": 2}, "X2": {"states": 2}, "X3": {"states": 2},
    "Y": {"states": 2, "parents": ["X1", "X2"]},
    "X4": {"states": 2, "parents": ["X1", "X3", "Y"]},
    "X5": {"states": 2, "parents": ["X2", "X3", "Y"]}}})


def random_class_data(rng, rows=12, features=4, classes=3):
    design = np.hstack([np.ones((rows, 1)), rng.integers(0, 2, size=(rows, features - 1))])
    return ebnc_fit.ClassData(design.astype(float), rng.integers(0, classes, rows),
                              rng.integers(1, 5, rows).astype(float), classes)


def test_gradient_and_hessian_match_central_differences():
    rng = np.random.default_rng(3)
    data = random_class_data(rng)
    phi = rng.normal(size=(4, 2))
    step = 1e-5
    numeric_gradient = np.zeros(phi.size)
    numeric_hessian = np.zeros((phi.size, phi.size))
    for j in range(phi.size):
        shift = np.zeros(phi.size)
        shift[j] = step
        up, down = phi + shift.reshape(phi.shape), phi - shift.reshape(phi.shape)
        numeric_gradient[j] = (ebnc_fit.log_likelihood(up, data)
                               - ebnc_fit.log_likelihood(down, data)) / (2 * step)
        numeric_hessian[:, j] = (ebnc_fit.gradient(up, data)
                                 - ebnc_fit.gradient(down, data)).ravel() / (2 * step)
    np.testing.assert_allclose(ebnc_fit.gradient(phi, data).ravel(), numeric_gradient,
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ebnc_fit.hessian(phi, data), numeric_hessian, rtol=1e-6,
                               atol=1e-7)


def expected_count_data(network, cpts, target, weight=1000.0):
    """Every (input configuration, class) with count weight * p(y | x): the ML fit is exact."""
    classifier = ebnc.embedded_classifier(network, target)
    cards = [network.cardinalities[i] for i in classifier.inputs]
    configurations = np.array(list(itertools.product(*[range(c) for c in cards])))
    probabilities = ebnc.class_probabilities(
        ebnc.log_odds(network, cpts, target, configurations))
    basis = ebnc.ebnc_basis(network, target)
    design = basis.design_matrix(configurations)
    classes = classifier.n_classes
    rows = ebnc_fit.ClassData(np.repeat(design, classes, axis=0),
                              np.tile(np.arange(classes), len(configurations)),
                              weight * probabilities.ravel(), classes)
    return rows, basis, configurations


@pytest.mark.parametrize("network", [SECTION6, naive_bayes(3, class_states=3)],
                         ids=["section6", "naive_bayes_3_classes"])
def test_fitted_phi_reproduce_the_log_odds_of_equation_4(network):
    cpts = random_parameters(network, np.random.default_rng(5), 1.0)
    rows, basis, configurations = expected_count_data(network, cpts, "Y")
    fit = ebnc_fit.fit_phi(rows, prior_sd=None)
    assert fit.converged
    np.testing.assert_allclose(basis.design_matrix(configurations) @ fit.phi,
                               ebnc.log_odds(network, cpts, "Y", configurations), atol=1e-6)


def test_naive_bayes_ebnc_fit_equals_unpenalised_logistic_regression():
    import sklearn.linear_model as sklearn_linear  # test-only peer (pyproject test extra)
    network = naive_bayes(3)
    rng = np.random.default_rng(11)
    data = sample_dataset(network, random_parameters(network, rng, 1.0), 400, rng)
    score = ebnc_fit.score_ebnc(network, "Y", data)
    rows = data.rows()
    y, x = rows[:, 0], rows[:, 1:]
    model = sklearn_linear.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000)
    model.fit(x, y)
    ours = ebnc_fit.predict(score.ml_fit.phi, ebnc.ebnc_basis(network, "Y").design_matrix(x))
    np.testing.assert_allclose(ours, model.predict_proba(x), atol=1e-6)
    peer_log_likelihood = np.sum(np.log(model.predict_proba(x)[np.arange(len(y)), y]))
    assert score.ml_fit.log_likelihood == pytest.approx(peer_log_likelihood, abs=1e-6)


def test_laplace_matches_quadrature_for_a_one_parameter_ebnc():
    """The EBNC of a class with no inputs: phi_0 is the log odds; p(D) by 1-D quadrature."""
    network = parse_spec({"nodes": {"Y": {"states": 2}}})
    data = Dataset.from_rows(["Y"], np.array([[0]] * 30 + [[1]] * 70))
    sd = 2.0
    score = ebnc_fit.score_ebnc(network, "Y", data, prior_sd=sd)

    def integrand(phi):
        return np.exp(70 * np.log(expit(phi)) + 30 * np.log(expit(-phi)) + 61.0
                      - 0.5 * phi**2 / sd**2) / np.sqrt(2 * np.pi * sd**2)

    exact = np.log(quad(integrand, -10, 10, points=[np.log(7 / 3)])[0]) - 61.0
    assert score.laplace == pytest.approx(exact, abs=0.01)
    assert score.laplace != pytest.approx(exact, abs=1e-6)  # an approximation, not the value


@pytest.mark.parametrize("method", ["decomposition", "exact", "jacobian"])
def test_bic_uses_a_dimension_all_constructions_agree_on(method):
    rng = np.random.default_rng(2)
    data = sample_dataset(SECTION6, random_parameters(SECTION6, rng, 1.0), 300, rng)
    score = ebnc_fit.score_ebnc(SECTION6, "Y", data)
    d = ebnc.ebnc_dimension(SECTION6, "Y", method, np.random.default_rng(0)).d
    assert score.d == d == score.basis_size
    assert score.bic_log_evidence == pytest.approx(
        bic_log_evidence(score.ml_fit.log_likelihood, d, 300))


def test_non_binary_class_uses_the_jacobian_rank_in_bic():
    curved = parse_spec({"nodes": {"X1": {"states": 2}, "X3": {"states": 2},
                                   "Y": {"states": 4, "parents": ["X1"]},
                                   "X4": {"states": 2, "parents": ["X3", "Y"]}}})
    summary = ebnc.ebnc_dimensions(curved, "Y", np.random.default_rng(0))
    assert ebnc_fit.ebnc_model_dimension(curved, "Y") == summary.d < summary.basis_size


def test_full_table_score_is_the_bd_family_term():
    """BD of X1, X2 -> Y minus BD of X1, X2 alone (independent) is the family term of Y."""
    network = parse_spec({"nodes": {"X1": {"states": 2}, "X2": {"states": 3},
                                    "Y": {"states": 2, "parents": ["X1", "X2"]}}})
    inputs_only = parse_spec({"nodes": {"X1": {"states": 2}, "X2": {"states": 3}}})
    rng = np.random.default_rng(4)
    data = sample_dataset(network, random_parameters(network, rng, 1.0), 60, rng)
    whole = bd_log_marginal(network, complete_data_counts(network, data), 1.0)
    inputs = bd_log_marginal(inputs_only, complete_data_counts(inputs_only, data), 1.0)
    cards = dict(zip(network.names, network.cardinalities))
    assert ebnc_fit.full_table_log_marginal(data, "Y", ("X1", "X2"), cards) == pytest.approx(
        whole - inputs)
    local = {"X1": (), "X2": (), "Y": ("X1", "X2")}
    assert ebnc_fit.network_of_ebncs_score(local, data) == pytest.approx(whole)


def test_network_of_ebncs_adds_local_scores():
    rng = np.random.default_rng(6)
    network = naive_bayes(2)
    data = sample_dataset(network, random_parameters(network, rng, 1.0), 200, rng)
    local = {"Y": network, "X1": (), "X2": ()}
    cards = dict(zip(network.names, network.cardinalities))
    expected = (ebnc_fit.score_ebnc(network, "Y", data).bic_log_evidence
                + ebnc_fit.full_table_log_marginal(data, "X1", (), cards)
                + ebnc_fit.full_table_log_marginal(data, "X2", (), cards))
    assert ebnc_fit.network_of_ebncs_score(local, data, "bic_log_evidence") == pytest.approx(
        expected)
    with pytest.raises(HiddenbnError, match="unknown EBNC score"):
        ebnc_fit.network_of_ebncs_score(local, data, "aic")


def test_selection_recovers_the_relevant_inputs():
    """Y -> X1, X2 with strong effects and an irrelevant X3: both scores keep X1 and X2 only."""
    network = parse_spec({"nodes": {"Y": {"states": 2},
                                    "X1": {"states": 2, "parents": ["Y"]},
                                    "X2": {"states": 2, "parents": ["Y"]},
                                    "X3": {"states": 2}}})
    cpts = [np.array([[0.5, 0.5]]), np.array([[0.8, 0.2], [0.2, 0.8]]),
            np.array([[0.7, 0.3], [0.25, 0.75]]), np.array([[0.5, 0.5]])]
    data = sample_dataset(network, cpts, 3000, np.random.default_rng(8))
    for score in ebnc_fit.SCORES:
        selection = ebnc_fit.select_embedded_network(data, "Y", ["X1", "X2", "X3"], score)
        assert set(selection.inputs) == {"X1", "X2"}
        # greedy ascents: nothing scored on the way beats the better end point
        assert selection.value == pytest.approx(
            max(s.value(score) for _, s in selection.visited.values()), rel=1e-12)
