"""Poisson and Gaussian noisy-additive interaction models (paper 004 Sec. 3.2)."""

import itertools

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from hiddenbn.errors import DataError
from hiddenbn.interaction.noisy_additive import (additive_dimension, adjusted_cheeseman_stutz,
                                                 fit_additive, gaussian_completed_log_marginal,
                                                 gaussian_log_likelihood,
                                                 gaussian_mechanism_posterior, gaussian_statistics,
                                                 poisson_completed_log_marginal,
                                                 poisson_log_likelihood,
                                                 poisson_mechanism_posterior, poisson_statistics,
                                                 sample_additive, standard_additive_dimension,
                                                 summarise)
from hiddenbn.models.interaction import load_interaction

CAUSE_TABLES = [np.array([[0.4, 0.6]]), np.array([[0.5, 0.5]]), np.array([[0.7, 0.3]])]


def model(family):
    return load_interaction({"interaction": family, "causes": {"C1": 2, "C2": 2, "C3": 2},
                             "mechanisms": {"X1": ["C1", "C2"], "X2": ["C2", "C3"], "L": []}})


def test_poisson_posterior_equals_brute_force_and_binomial():
    rates = np.array([0.7, 2.5, 0.2])
    for e in (0, 1, 4, 9):
        posterior = poisson_mechanism_posterior(rates, e)
        brute = np.zeros_like(posterior)
        for states in itertools.product(range(e + 1), repeat=3):
            if sum(states) == e:
                weight = np.prod(stats.poisson.pmf(states, rates))
                for i, k in enumerate(states):
                    brute[i, k] += weight
        np.testing.assert_allclose(posterior, brute / brute.sum(axis=1, keepdims=True), rtol=1e-10)
        for i in range(3):
            np.testing.assert_allclose(posterior[i], stats.binom.pmf(np.arange(e + 1), e,
                                                                     rates[i] / rates.sum()),
                                       rtol=1e-10, atol=1e-300)


def test_gaussian_posterior_equals_the_conditional_normal():
    means, variances = np.array([1.0, -0.5, 2.0]), np.array([0.5, 2.0, 1.5])
    # joint of (X1, X2, X3, E) with E = sum X: condition on E by the Schur complement
    transform = np.vstack([np.eye(3), np.ones(3)])
    covariance = transform @ np.diag(variances) @ transform.T
    e = 1.7
    mean = means + covariance[:3, 3] / covariance[3, 3] * (e - means.sum())
    variance = np.diag(covariance[:3, :3] - np.outer(covariance[:3, 3], covariance[3, :3])
                       / covariance[3, 3])
    got_mean, got_variance = gaussian_mechanism_posterior(means, variances, e)
    np.testing.assert_allclose(got_mean, mean)
    np.testing.assert_allclose(got_variance, variance)


@pytest.fixture
def poisson_data(rng):
    m = model("poisson")
    rates = np.array([0.5, 1.0, 2.0, 0.2, 0.3, 1.5, 0.1, 2.5, 0.4])
    causes, effect = sample_additive(m, CAUSE_TABLES, rates, None, 4000, rng)
    return m, rates, causes, effect


def test_poisson_expected_statistics_are_sums_of_bounded_posterior_means(poisson_data, rng):
    m, _, causes, effect = poisson_data
    causes, effect = causes[:300], effect[:300]
    rates = rng.uniform(0.1, 3.0, int(m.mechanism_offsets()[-1]))
    rows = m.mechanism_rows(causes)
    s1 = np.zeros(rates.size)
    for case in range(causes.shape[0]):  # case by case, without the grouping by cause pattern
        posterior = poisson_mechanism_posterior(rates[rows[case]], effect[case])
        np.add.at(s1, rows[case], posterior @ np.arange(effect[case] + 1))
    grouped = poisson_statistics(m, rates, summarise(causes, effect))
    np.testing.assert_allclose(grouped["s1"], s1, rtol=1e-10)
    np.testing.assert_allclose(grouped["n"], np.bincount(rows.ravel(), minlength=rates.size))


def test_poisson_ml_equals_direct_maximisation(poisson_data, rng):
    m, rates, causes, effect = poisson_data
    summary = summarise(causes, effect)
    fit = fit_additive(m, summary, rng, restarts=2)
    result = optimize.minimize(lambda x: -poisson_log_likelihood(m, np.exp(x), summary),
                               np.log(rates), method="Nelder-Mead",
                               options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 40000,
                                        "maxfev": 40000})
    direct = -result.fun
    em_effect = poisson_log_likelihood(m, fit.means, summary)
    assert em_effect >= direct - 1e-6
    assert em_effect == pytest.approx(direct, abs=1e-4)
    # identifiable: the total rate per cause configuration, recovered within sampling error
    incidence = m.incidence()
    truth, estimate = incidence @ rates, incidence @ fit.means
    config_counts = np.bincount(np.ravel_multi_index(causes.T, (2, 2, 2)), minlength=8)
    assert np.all(np.abs(estimate - truth) < 4 * np.sqrt(truth / config_counts))


def test_gaussian_ml_equals_direct_maximisation(rng):
    m = model("gaussian")
    size = int(m.mechanism_offsets()[-1])
    means, variances = rng.normal(0, 2, size), rng.uniform(0.3, 2.0, size)
    causes, effect = sample_additive(m, CAUSE_TABLES, means, variances, 3000, rng)
    summary = summarise(causes, effect)
    fit = fit_additive(m, summary, rng, restarts=3, tolerance=1e-13, max_iterations=50000)
    result = optimize.minimize(
        lambda x: -gaussian_log_likelihood(m, x[:size], np.exp(x[size:]), summary),
        np.concatenate([means, np.log(variances)]), method="BFGS", options={"gtol": 1e-8})
    em_effect = gaussian_log_likelihood(m, fit.means, fit.variances, summary)
    assert em_effect >= -result.fun - 1e-6
    assert em_effect == pytest.approx(-result.fun, abs=1e-3)
    incidence = m.incidence()
    np.testing.assert_allclose(incidence @ fit.means, incidence @ result.x[:size], atol=1e-2)


def test_gaussian_expected_second_moments_equal_case_by_case_posteriors(rng):
    m = model("gaussian")
    size = int(m.mechanism_offsets()[-1])
    means, variances = rng.normal(0, 1, size), rng.uniform(0.3, 2.0, size)
    causes, effect = sample_additive(m, CAUSE_TABLES, means, variances, 300, rng)
    grouped = gaussian_statistics(m, means, variances, summarise(causes, effect))
    rows = m.mechanism_rows(causes)
    s1, s2 = np.zeros(size), np.zeros(size)
    for case in range(causes.shape[0]):
        mean, variance = gaussian_mechanism_posterior(means[rows[case]], variances[rows[case]],
                                                      effect[case])
        np.add.at(s1, rows[case], mean)
        np.add.at(s2, rows[case], variance + mean**2)
    np.testing.assert_allclose(grouped["s1"], s1, rtol=1e-10)
    np.testing.assert_allclose(grouped["s2"], s2, rtol=1e-10)


def test_map_fits_are_fixed_points_of_the_conjugate_modes(poisson_data, rng):
    m, _, causes, effect = poisson_data
    prior = (2.0, 0.5)
    fit = fit_additive(m, summarise(causes, effect), rng, prior=prior, restarts=1, tolerance=1e-14)
    n, s1 = fit.expected["n"], fit.expected["s1"]
    np.testing.assert_allclose(fit.means, (s1 + prior[0] - 1) / (n + prior[1]), rtol=1e-5)


def test_completed_log_marginals_equal_numerical_integration():
    n, s1 = 7.0, 12.3
    a, b = 2.0, 1.5

    def poisson_integrand(rate):  # completed-data likelihood without the log x! base measure
        return np.exp(s1 * np.log(rate) - n * rate) * stats.gamma.pdf(rate, a, scale=1 / b)

    value, _ = integrate.quad(poisson_integrand, 0, np.inf, epsabs=0, epsrel=1e-12)
    assert poisson_completed_log_marginal(np.array([n]), np.array([s1]), (a, b)) == \
        pytest.approx(np.log(value), rel=1e-9)
    x = np.array([0.3, 1.2, -0.4])
    prior = (0.5, 2.0, 3.0, 1.5)
    m0, k0, a0, b0 = prior
    # under NIG the data are multivariate Student-t: 2 a0 degrees of freedom, location m0,
    # shape (b0 / a0)(I + 1 1^T / k0)
    shape = b0 / a0 * (np.eye(3) + np.ones((3, 3)) / k0)
    reference = stats.multivariate_t.logpdf(x, loc=np.full(3, m0), shape=shape, df=2 * a0)
    ours = gaussian_completed_log_marginal(np.array([3.0]), np.array([x.sum()]),
                                           np.array([(x**2).sum()]), prior)
    assert ours == pytest.approx(reference, rel=1e-10)


def test_poisson_dimension_is_the_jacobian_rank_of_the_observed_distribution(rng):
    """Finite-difference Jacobian of p(c, e) (e truncated) has rank = additive_dimension."""
    m = model("poisson")
    rates = rng.uniform(0.5, 2.0, int(m.mechanism_offsets()[-1]))
    configurations = m.cause_configurations()
    rows = m.mechanism_rows(configurations)

    def distribution(rate_vector):  # the effect part, given the causes
        return stats.poisson.pmf(np.arange(25)[None, :],
                                 rate_vector[rows].sum(axis=1)[:, None]).ravel()

    step = 1e-6
    jacobian = np.column_stack([(distribution(rates + step * unit)
                                 - distribution(rates - step * unit)) / (2 * step)
                                for unit in np.eye(rates.size)])
    singular = np.linalg.svd(jacobian, compute_uv=False)
    rank = int(np.sum(singular > 1e-7 * singular[0]))
    assert additive_dimension(m) == rank + m.cause_dimension
    assert standard_additive_dimension(m) == rates.size + 3
    assert rank < rates.size  # the two pairwise mechanisms and the leak are not all identifiable


def test_adjusted_cheeseman_stutz_prefers_the_generating_structure(rng):
    generating = model("poisson")
    rates = np.array([0.2, 0.2, 3.0, 0.2, 0.1, 0.1, 0.1, 2.0, 0.05])
    causes, effect = sample_additive(generating, CAUSE_TABLES, rates, None, 3000, rng)
    summary = summarise(causes, effect)
    independent = load_interaction({"interaction": "poisson",
                                    "causes": {"C1": 2, "C2": 2, "C3": 2},
                                    "mechanisms": {"X1": ["C1"], "X2": ["C2"], "X3": ["C3"]}})
    prior = (1.0, 0.1)
    scores = [adjusted_cheeseman_stutz(fit_additive(m_, summary, rng, prior=prior, restarts=2,
                                                    tolerance=1e-8), prior)
              for m_ in (generating, independent)]
    assert scores[0] > scores[1]


def test_gaussian_map_fit_is_a_fixed_point_of_the_nig_mode(rng):
    m = model("gaussian")
    size = int(m.mechanism_offsets()[-1])
    causes, effect = sample_additive(m, CAUSE_TABLES, rng.normal(0, 1, size),
                                     rng.uniform(0.3, 2.0, size), 1000, rng)
    prior = (0.0, 1.0, 2.0, 1.0)
    fit = fit_additive(m, summarise(causes, effect), rng, prior=prior, restarts=1, tolerance=1e-14)
    n, s1, s2 = fit.expected["n"], fit.expected["s1"], fit.expected["s2"]
    mean = s1 / (1.0 + n)
    scale = 1.0 + 0.5 * (s2 - (1.0 + n) * mean**2)
    np.testing.assert_allclose(fit.means, mean, atol=1e-4)
    np.testing.assert_allclose(fit.variances, scale / (2.0 + 0.5 * n + 1.5), rtol=1e-4)



@pytest.mark.parametrize("causes, effect", [
    ([[0, 0], [1, 0], [0, 1]], [1.0, 2.0, 3.5]),  # one case per configuration of (C1, C2)
    ([[0, 0], [0, 0], [1, 0], [1, 0]], [1.0, 1.0, 2.0, 2.5]),  # (0, 0): two equal values
])
def test_gaussian_data_without_a_maximum_are_refused_not_fitted_to_nan(causes, effect, rng):
    m = load_interaction({"interaction": "gaussian", "causes": {"C1": 2, "C2": 2},
                          "mechanisms": {"X1": ["C1", "C2"], "L": []}})
    with pytest.raises(DataError,
                       match=r"with C1 = 0, C2 = 0 gives? the effect 'E' a single value"):
        fit_additive(m, summarise(causes, effect), rng, restarts=1)


def test_gaussian_data_with_two_values_per_configuration_fit(rng):
    m = load_interaction({"interaction": "gaussian", "causes": {"C1": 2, "C2": 2},
                          "mechanisms": {"X1": ["C1", "C2"], "L": []}})
    causes = [[0, 0], [0, 0], [1, 0], [1, 0], [0, 1], [0, 1]]
    fit = fit_additive(m, summarise(causes, [1.0, 1.5, 2.0, 2.7, 3.5, 3.1]), rng, restarts=2)
    assert fit.converged and np.isfinite(fit.log_likelihood)
