"""sBIC (Drton & Plummer 2017) against hand-computed bounds, plain iteration and BIC's closed
form."""

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from hiddenbn.errors import ParameterError
from hiddenbn.scores import singular_bic as sbic

EIGHT_BINARY = [2] * 8


def iterated_sbic(log_likelihoods, coefficients, n_cases, multiplicities=None, step=1.0):
    """The defining equations iterated jointly to their fixed point from L'(M_i) = L(M_i, M_i),
    every model updated at once: ``log L'_i <- logsumexp_j(log L_ij + log L'_j) -
    logsumexp_j(log L'_j)`` over ``j <= i`` (uniform prior). No quadratic is solved.

    ``step = 1`` is the plain iteration. Where a model's submodels have far larger L(M_i, M_j)
    than L(M_i, M_i) the plain map's derivative at the fixed point nears -1 and the iteration
    swings for millions of steps; ``step = 1/2`` (each step averaged with the last) then
    converges in a few dozen."""
    size = len(log_likelihoods)
    m = np.ones((size, size)) if multiplicities is None else np.asarray(multiplicities)
    log_l = (np.asarray(log_likelihoods)[:, None] - np.asarray(coefficients) * math.log(n_cases)
             + (m - 1) * math.log(math.log(n_cases)))
    current = np.diag(log_l).copy()
    for _ in range(10_000):
        updated = np.array([logsumexp(log_l[i, :i + 1] + current[:i + 1])
                            - logsumexp(current[:i + 1]) for i in range(size)])
        updated = current + step * (updated - current)
        # rounding keeps values of some hundreds moving by a few 1e-14
        if np.max(np.abs(updated - current)) < 1e-12:
            return updated
        current = updated
    raise AssertionError("the iteration did not converge")


def test_learning_coefficients_are_the_bounds_computed_by_hand():
    # 8 binary items: d_1 = 8; lambda_ij = 1/2 min(8j + j - 1 + (i - j) phi, 8i + j - 1)
    assert sbic.one_class_dimension(EIGHT_BINARY) == 8
    at_4 = sbic.latent_class_learning_coefficients(3, EIGHT_BINARY, 4.0)
    assert np.array_equal(np.tril(at_4), [[4.0, 0, 0], [6.0, 8.5, 0], [8.0, 10.5, 13.0]])
    assert np.isnan(at_4[np.triu_indices(3, 1)]).all()
    # phi above d_1: an empty class costs its d_1 / 2 item parameters instead, 1/2 (16 + 0)
    assert sbic.latent_class_learning_coefficients(2, EIGHT_BINARY, 10.0)[1, 0] == 8.0
    # items of 3 and 2 states: d_1 = 3, phi = 2: 1/2 min(3j + j - 1 + 2(i - j), 3i + j - 1)
    mixed = sbic.latent_class_learning_coefficients(3, [3, 2], 2.0)
    assert np.array_equal(np.tril(mixed), [[1.5, 0, 0], [2.5, 3.5, 0], [3.5, 4.5, 5.5]])


def test_the_diagonal_is_half_the_standard_dimension_and_phi_defaults_as_the_package():
    from hiddenbn.models.network import latent_class

    coefficients = sbic.latent_class_learning_coefficients(6, [2, 3, 4], 1.7)
    for k in range(1, 7):
        assert coefficients[k - 1, k - 1] == latent_class(k, [2, 3, 4]).standard_dimension / 2
    assert sbic.default_phi(EIGHT_BINARY) == 4.5  # the vignette's (r + 1) / 2 for r = 8 items
    assert sbic.default_phi([3, 2]) == 2.0


@pytest.mark.parametrize("n_cases, scale, phi, step", [
    (50, 1.0, 4.0, 1.0), (50, 1.0, 4.5, 1.0), (7, 0.1, 0.5, 1.0), (50, 1.0, 4.5, 0.5),
    (5000, 4.0, 3.0, 0.5)])
def test_the_quadratic_and_iteration_reach_one_fixed_point(n_cases, scale, phi, step):
    rng = np.random.default_rng(int(n_cases * phi))
    # log-likelihoods rising with the classes, as fits of nested models do
    log_likelihoods = -250.0 * scale + np.cumsum(rng.uniform(0, 15 * scale, 6))
    coefficients = sbic.latent_class_learning_coefficients(6, EIGHT_BINARY, phi)
    closed_form = sbic.sbic_log_evidence(log_likelihoods, coefficients, n_cases)
    iterated = iterated_sbic(log_likelihoods, coefficients, n_cases, step=step)
    assert closed_form == pytest.approx(iterated, abs=1e-10)
    # the submodels count: sBIC is not BIC with lambda_ii (L'(M_i) = L(M_i, M_i))
    diagonal = log_likelihoods - np.diag(coefficients) * math.log(n_cases)
    assert np.max(np.abs(closed_form - diagonal)) > 0.1
    assert np.array_equal(closed_form, sbic.latent_class_sbic(log_likelihoods, EIGHT_BINARY,
                                                               n_cases, phi))


def test_multiplicities_enter_as_log_log_n():
    log_likelihoods = [-120.0, -110.0, -104.0]
    coefficients = np.array([[2.0, 0, 0], [3.0, 4.5, 0], [3.5, 5.0, 7.0]])
    multiplicities = np.array([[1, 1, 1], [2, 1, 1], [3, 2, 1]])
    assert sbic.sbic_log_evidence(log_likelihoods, coefficients, 200, multiplicities) == \
        pytest.approx(iterated_sbic(log_likelihoods, coefficients, 200, multiplicities),
                      abs=1e-10)


def test_sbic_is_bic_when_every_coefficient_is_half_the_dimension():
    """L(M_i, M_j) = L(M_i, M_i) for every j makes L'(M_i) = L(M_i, M_i) the fixed point."""
    dimensions = np.array([8.0, 17.0, 26.0, 35.0])
    log_likelihoods = np.array([-300.0, -280.0, -276.0, -275.0])
    coefficients = np.repeat(dimensions[:, None] / 2, 4, axis=1)
    bic = log_likelihoods - dimensions / 2 * math.log(80)
    assert sbic.sbic_log_evidence(log_likelihoods, coefficients, 80) == \
        pytest.approx(bic, abs=1e-10)


def test_likelihoods_far_beyond_floats_keep_every_model():
    """10^4 nats between models: exp() of the package's normalised values would give 0 and a
    sBIC of -inf for the smallest models; the log-space root keeps them."""
    log_likelihoods = -1e6 + np.array([0.0, 2e4, 3e4, 3.1e4])
    values = sbic.latent_class_sbic(log_likelihoods, EIGHT_BINARY, 10**6)
    assert np.isfinite(values).all()
    assert values[0] == pytest.approx(log_likelihoods[0] - 4 * math.log(10**6), abs=1e-9)
    coefficients = sbic.latent_class_learning_coefficients(4, EIGHT_BINARY, 4.5)
    assert values == pytest.approx(iterated_sbic(log_likelihoods, coefficients, 10**6, step=0.5),
                                   rel=1e-15, abs=1e-9)


@pytest.mark.parametrize("phi", [0.0, -1.0, math.nan, math.inf, "4"])
def test_a_bad_phi_is_refused_in_one_line(phi):
    with pytest.raises(ParameterError, match=r"phi must be a finite number above 0, got .*; "
                                             r"give e\.g\. phi = 4") as raised:
        sbic.latent_class_learning_coefficients(3, EIGHT_BINARY, phi)
    assert "\n" not in str(raised.value)


def test_mismatched_shapes_are_refused():
    with pytest.raises(ParameterError, match="sBIC of 2 models needs 2 x 2 learning"):
        sbic.sbic_log_evidence([-1.0, -2.0], np.zeros((3, 3)), 10)
