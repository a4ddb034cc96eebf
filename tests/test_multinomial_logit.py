"""The weighted multinomial logit: checked against statsmodels' MNLogit and scikit-learn's
LogisticRegression, replicated rows, finite differences and a generic optimiser; separation
found where the data separate the classes and not where they overlap."""

import warnings

import numpy as np
import pytest

from hiddenbn.errors import DataError
from hiddenbn.regression.multinomial_logit import (SeparationError, class_probabilities,
                                                   coefficients_from_free, fit_multinomial_logit,
                                                   free_coefficients, log_likelihood_gradient,
                                                   log_likelihood_hessian, separating_direction,
                                                   weighted_log_likelihood)

TRUE = np.array([[0.0, 0.5, -0.5], [0.0, 1.0, -1.0], [0.0, 0.5, 1.0]])


def generated(n=400, seed=0):
    """A design (intercept, a normal and a 0/1 covariate) and classes drawn from TRUE."""
    rng = np.random.default_rng(seed)
    matrix = np.column_stack([np.ones(n), rng.normal(size=n), rng.integers(0, 2, n)])
    probabilities = class_probabilities(matrix, TRUE)
    classes = (rng.random(n)[:, None] > probabilities.cumsum(axis=1)).sum(axis=1)
    return matrix, classes


def test_hard_weights_agree_with_statsmodels_mnlogit():
    from statsmodels.discrete.discrete_model import MNLogit

    matrix, classes = generated()
    fit = fit_multinomial_logit(matrix, np.eye(3)[classes])
    peer = MNLogit(classes, matrix).fit(method="newton", tol=1e-12, maxiter=100, disp=0)
    assert fit.converged
    np.testing.assert_allclose(fit.coefficients[:, 1:], peer.params, atol=1e-7)
    np.testing.assert_allclose(fit.coefficients[:, 0], 0)
    assert fit.log_likelihood == pytest.approx(peer.llf, rel=1e-10)
    np.testing.assert_allclose(fit.standard_errors, peer.bse, rtol=1e-6)
    np.testing.assert_allclose(fit.covariance, peer.cov_params(), rtol=1e-6, atol=1e-12)
    assert np.abs(fit.gradient).max() < 1e-6


def test_hard_weights_agree_with_scikit_learn():
    from sklearn.linear_model import LogisticRegression

    matrix, classes = generated(seed=1)
    fit = fit_multinomial_logit(matrix, np.eye(3)[classes])
    # C = inf: no penalty (scikit-learn 1.8 deprecates penalty=None for it)
    peer = LogisticRegression(C=np.inf, tol=1e-10, max_iter=10_000).fit(matrix[:, 1:], classes)
    # scikit-learn's coefficients are not anchored at a class: their differences are ours
    slopes = (peer.coef_ - peer.coef_[0]).T
    intercepts = peer.intercept_ - peer.intercept_[0]
    np.testing.assert_allclose(fit.coefficients[1:], slopes, atol=1e-4)
    np.testing.assert_allclose(fit.coefficients[0], intercepts, atol=1e-4)


def test_fractional_weights_equal_replicated_rows():
    rng = np.random.default_rng(2)
    matrix, _ = generated(n=60, seed=2)
    counts = rng.integers(0, 4, size=(60, 3))
    counts[counts.sum(axis=1) == 0, 0] = 1
    fractional = fit_multinomial_logit(matrix, counts / 4)
    rows = np.repeat(np.repeat(matrix, 3, axis=0), counts.ravel(), axis=0)
    classes = np.repeat(np.tile(np.arange(3), 60), counts.ravel())
    replicated = fit_multinomial_logit(rows, np.eye(3)[classes])
    np.testing.assert_allclose(fractional.coefficients, replicated.coefficients, atol=1e-8)
    assert 4 * fractional.log_likelihood == pytest.approx(replicated.log_likelihood, rel=1e-10)
    # a quarter of the cases: four times the variance
    np.testing.assert_allclose(fractional.covariance, 4 * replicated.covariance, rtol=1e-7)


@pytest.mark.parametrize("signs", ["posteriors", "negative"])
def test_gradient_and_hessian_are_the_derivatives_of_the_log_likelihood(signs):
    rng = np.random.default_rng(3)
    matrix, _ = generated(n=30, seed=3)
    weights = rng.dirichlet(np.ones(3), size=30)
    if signs == "negative":  # BCH weights: rows summing to 1, single weights below 0
        weights = weights * 2 - np.roll(weights, 1, axis=1)
        assert (weights < 0).any()
    free = rng.normal(scale=0.5, size=6)
    point = coefficients_from_free(free, 3)

    def value(vector):
        return weighted_log_likelihood(matrix, weights, coefficients_from_free(vector, 3))

    step = 1e-5
    basis = np.eye(6) * step
    numeric_gradient = np.array([(value(free + e) - value(free - e)) / (2 * step)
                                 for e in basis])
    np.testing.assert_allclose(log_likelihood_gradient(matrix, weights, point),
                               numeric_gradient, rtol=1e-6, atol=1e-7)
    numeric_hessian = np.array([
        (log_likelihood_gradient(matrix, weights, coefficients_from_free(free + e, 3))
         - log_likelihood_gradient(matrix, weights, coefficients_from_free(free - e, 3)))
        / (2 * step) for e in basis])
    np.testing.assert_allclose(log_likelihood_hessian(matrix, weights, point),
                               numeric_hessian, rtol=1e-6, atol=1e-7)


def test_negative_weights_reach_the_maximum_a_generic_optimiser_finds():
    from scipy.optimize import minimize

    rng = np.random.default_rng(4)
    matrix, classes = generated(n=300, seed=4)
    # BCH weights: modal classes drawn with classification errors, weighted by the inverse
    # of the error matrix (rows sum to 1, off-diagonal weights below 0)
    errors = np.full((3, 3), 0.1) + 0.7 * np.eye(3)
    modal = (rng.random(300)[:, None] > errors[classes].cumsum(axis=1)).sum(axis=1)
    weights = np.linalg.inv(errors)[modal]
    assert (weights < 0).any()
    fit = fit_multinomial_logit(matrix, weights)
    assert fit.converged

    def negative(vector):
        return -weighted_log_likelihood(matrix, weights, coefficients_from_free(vector, 3))

    peer = minimize(negative, rng.normal(scale=0.1, size=6), method="BFGS",
                    options={"gtol": 1e-9})
    assert fit.log_likelihood == pytest.approx(-peer.fun, rel=1e-9)
    np.testing.assert_allclose(free_coefficients(fit.coefficients), peer.x, atol=1e-4)


def test_negative_weights_that_make_the_likelihood_unbounded_are_refused():
    matrix, classes = generated(n=200, seed=4)
    hard = np.eye(3)[classes]
    # each row pushes its next class's probability to 0: a class's intercept gains without end
    weights = 1.3 * hard - 0.3 * np.roll(hard, 1, axis=1)
    with pytest.raises(SeparationError, match="runs to infinity"):
        fit_multinomial_logit(matrix, weights)


def test_probabilities_stay_finite_for_huge_predictors():
    probabilities = class_probabilities(np.array([[1.0, 1e3]]),
                                        np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 2.0]]))
    assert np.isfinite(probabilities).all()
    np.testing.assert_allclose(probabilities, [[0, 0, 1]], atol=1e-300)


def test_the_order_of_the_free_coefficients_is_class_by_class():
    coefficients = np.array([[0.0, 1.0, 3.0], [0.0, 2.0, 4.0]])
    assert free_coefficients(coefficients).tolist() == [1.0, 2.0, 3.0, 4.0]
    np.testing.assert_array_equal(coefficients_from_free([1, 2, 3, 4], 2), coefficients)


def separated(kind):
    """Two or three classes along x, separated completely, quasi-completely or not at all."""
    x = np.arange(10.0)
    classes = (x > 4).astype(int)
    if kind == "quasi-complete":  # one x in both classes
        x = np.array([0, 1, 2, 3, 4, 4, 5, 6, 7, 8.0])
    elif kind == "three classes":  # class 3 is the rows with x > 7, class 1 and 2 overlap
        classes = np.array([0, 1, 0, 1, 0, 1, 0, 2, 2, 2])
    elif kind == "overlapping":  # (a swap of two rows is not enough: with z, x separates them)
        classes = np.array([0, 1, 0, 0, 1, 0, 1, 1, 0, 1])
    matrix = np.column_stack([np.ones(10), x, np.arange(10) % 3 == 0])
    return matrix, np.eye(classes.max() + 1)[classes]


@pytest.mark.parametrize("kind,message", [
    ("complete", "coefficient of 'x' for class 2 runs to infinity"),
    ("quasi-complete", "coefficient of 'x' for class 2 runs to infinity"),
    ("three classes", "coefficient of 'x' for class 3 runs to infinity")])
def test_separation_is_reported_naming_the_covariate_and_the_class(kind, message):
    matrix, weights = separated(kind)
    with pytest.raises(SeparationError, match=message) as error:
        fit_multinomial_logit(matrix, weights, names=["(intercept)", "x", "z"])
    assert "\n" not in str(error.value)


def test_overlapping_classes_are_not_separated():
    matrix, weights = separated("overlapping")
    assert separating_direction(matrix, weights) is None
    fit = fit_multinomial_logit(matrix, weights)
    assert fit.converged and np.abs(fit.coefficients).max() < 10


def test_posteriors_are_separated_only_where_they_are_0_or_1_to_rounding():
    matrix, weights = separated("complete")
    assert separating_direction(matrix, 0.98 * weights + 0.01) is None
    # as EM leaves the posteriors of a class whose coefficient diverges
    with pytest.raises(SeparationError, match="'x' for class 2"):
        fit_multinomial_logit(matrix, (1 - 2e-12) * weights + 1e-12,
                              names=["(intercept)", "x", "z"])


def test_a_class_without_weight_is_separation_by_the_intercept():
    matrix, weights = separated("overlapping")
    weights = np.column_stack([weights, np.zeros(10)])  # no row in class 3
    with pytest.raises(SeparationError, match="'[(]intercept[)]' for class 3"):
        fit_multinomial_logit(matrix, weights, names=["(intercept)", "x", "z"])


def test_non_convergence_is_reported():
    matrix, classes = generated(seed=5)
    fit = fit_multinomial_logit(matrix, np.eye(3)[classes], max_iterations=1)
    assert not fit.converged and fit.iterations == 1


def test_mismatched_shapes_are_refused_in_one_line():
    with pytest.raises(DataError, match="as many rows"):
        fit_multinomial_logit(np.ones((3, 1)), np.ones((4, 2)))


def test_a_covariates_units_and_origin_change_only_its_coefficients():
    """The fit runs on the standardised design: a column in other units and from another
    origin (a far offset that would ruin Newton's conditioning on the raw design) gives the
    same maximum, the coefficients mapped exactly, and no numpy warning."""
    matrix, classes = generated()
    weights = np.eye(3)[classes]
    base = fit_multinomial_logit(matrix, weights)
    moved = matrix.copy()
    moved[:, 1] = matrix[:, 1] * 1e3 + 1e6  # x' = a x + b
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = fit_multinomial_logit(moved, weights)
    assert fit.log_likelihood == pytest.approx(base.log_likelihood, rel=1e-12)
    np.testing.assert_allclose(fit.coefficients[1], base.coefficients[1] / 1e3, rtol=1e-7)
    np.testing.assert_allclose(fit.coefficients[0],
                               base.coefficients[0] - 1e6 * base.coefficients[1] / 1e3,
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fit.standard_errors[1], base.standard_errors[1] / 1e3,
                               rtol=1e-6)
