"""Three-step latent class regression (Vermunt 2010; Bakk, Tekle & Vermunt 2013) and the
generator of latent class data with covariates.

The naive step 3 is checked against statsmodels' multinomial logit of the assigned classes;
the ML step 3's log-likelihood, gradient and observed information against an independent
computation of its likelihood and finite differences; BCH's sandwich against finite-difference
scores per case. The bias test draws one large data set in the paper's medium separation and
checks that the naive slopes are attenuated while BCH's and ML's recover the generating ones;
it applies the same check to the naive estimate, so removing the correction fails it.
"""

import doctest
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.special import logsumexp, softmax

from hiddenbn.data import covariate_sampling
from hiddenbn.data.covariate_sampling import (CategoricalCovariate, LatentClassRegressionModel,
                                              NormalCovariate, bakk_tekle_vermunt_model)
from hiddenbn.errors import HiddenbnError, ParameterError
from hiddenbn.inference.latent_class import class_posteriors
from hiddenbn.regression import three_step
from hiddenbn.regression.covariates import covariate_design
from hiddenbn.regression.multinomial_logit import coefficients_from_free, free_coefficients
from hiddenbn.util import seeding

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.bench_three_step import classified, three_step_estimates  # noqa: E402


def mixed_model():
    """Three classes, a normal and a three-level covariate, two items of 2 and 3 states."""
    coefficients = np.array([[0.0, 0.5, -0.5], [0.0, 1.0, -0.8], [0.0, -1.0, 0.7],
                             [0.0, 0.6, 1.2]])
    tables = (np.array([[0.8, 0.2], [0.3, 0.7], [0.5, 0.5]]),
              np.array([[0.6, 0.3, 0.1], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3]]))
    return LatentClassRegressionModel((NormalCovariate("age", 0.0, 1.0),
                                       CategoricalCovariate("group", ("a", "b", "c"))),
                                      coefficients, tables, ("Y1", "Y2"))


def test_the_generator_draws_its_logit_and_its_item_tables():
    import statsmodels.api as sm

    model = mixed_model()
    sample = model.sample(10_000, np.random.default_rng(5))
    design = covariate_design(sample.frame, ["age", "group"], items=model.item_names)
    assert design.names == model.design_names == sample.design_names
    np.testing.assert_array_equal(design.matrix, sample.design)
    fit = sm.MNLogit(sample.classes, sample.design).fit(disp=0)
    z = (np.asarray(fit.params) - model.coefficients[:, 1:]) / np.asarray(fit.bse)
    assert np.abs(z).max() < 4
    for name, table in zip(model.item_names, model.item_tables):
        for k in range(3):
            states = sample.frame[name].to_numpy()[sample.classes == k]
            frequencies = np.bincount(states, minlength=table.shape[1]) / states.size
            se = np.sqrt(table[k] * (1 - table[k]) / states.size)
            assert np.all(np.abs(frequencies - table[k]) < 4 * se)


def test_the_bakk_setting_has_equal_classes_and_matches_stepmix():
    stepmix_datasets = pytest.importorskip("stepmix.datasets")
    model = bakk_tekle_vermunt_model(0.8)
    support = np.arange(1, 6)
    mean = model.class_probabilities(model.design([support])).mean(axis=0)
    np.testing.assert_allclose(mean, 1 / 3, atol=1e-10)
    # StepMix's generator of the setting: its classes given Z agree with the model's
    items, z, labels = stepmix_datasets.data_bakk_covariate(60_000, 0.8, random_state=3)
    expected = model.class_probabilities(model.design([support]))
    for value in support:
        chosen = labels[z[:, 0] == value]
        frequencies = np.bincount(chosen, minlength=3) / chosen.size
        se = np.sqrt(expected[value - 1] * (1 - expected[value - 1]) / chosen.size)
        assert np.all(np.abs(frequencies - expected[value - 1]) < 4 * se + 1e-9)
        # class 1 answers every item 1 with probability 0.8
    np.testing.assert_allclose(items[labels == 0].mean(axis=0), 0.8, atol=0.02)


def test_bad_models_are_refused_in_one_line():
    with pytest.raises(ParameterError, match="column 0 all zero"):
        LatentClassRegressionModel((NormalCovariate("age"),), np.ones((2, 2)),
                                   (np.full((2, 2), 0.5),))
    with pytest.raises(ParameterError, match="2 x K"):
        LatentClassRegressionModel((NormalCovariate("age"),), np.zeros((3, 2)),
                                   (np.full((2, 2), 0.5),))
    with pytest.raises(ParameterError, match="above 0.5"):
        bakk_tekle_vermunt_model(0.4)


def test_the_classification_error_matrix_by_its_definition():
    posteriors = softmax(np.random.default_rng(1).normal(size=(40, 3)) * 2, axis=1)
    classification = three_step.classify(posteriors)
    expected = np.zeros((3, 3))
    for s in range(3):
        for t in range(3):
            expected[s, t] = sum(posteriors[i, s] for i in range(40)
                                 if np.argmax(posteriors[i]) == t) / posteriors[:, s].sum()
    np.testing.assert_allclose(classification.error_matrix, expected)
    np.testing.assert_allclose(classification.error_matrix.sum(axis=1), 1.0)
    weights = three_step.bch_weights(classification)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.eye(3)[classification.assigned],
                               weights @ classification.error_matrix, atol=1e-12)


@pytest.fixture(scope="module")
def medium_separation():
    """One large data set of the Bakk et al. setting at medium separation, through steps 1 and
    2, the classes put in the generating model's order."""
    model = bakk_tekle_vermunt_model(0.8)
    sample = model.sample(20_000, np.random.default_rng(11))
    rows = sample.frame[list(model.item_names)].to_numpy(dtype=np.int32)
    fit = three_step.measurement_model(rows, model.item_names, [2] * 6, 3, seed=0)
    order = model.class_order(fit.cpts[1:])
    posteriors, _ = class_posteriors(fit.network, fit.cpts, rows)
    return model, sample, rows, three_step.classify(posteriors[:, order])


def recovered(estimate, truth, tolerance=4.0) -> bool:
    """Whether every free coefficient is within ``tolerance`` standard errors of ``truth``."""
    z = (free_coefficients(estimate.coefficients) - free_coefficients(truth)) \
        / free_coefficients(estimate.standard_errors)
    return bool(np.abs(z).max() < tolerance)


def test_bch_and_ml_recover_the_coefficients_the_naive_estimate_attenuates(medium_separation):
    model, sample, _, classification = medium_separation
    estimates = {method: three_step.covariate_step(sample.design, classification, method)
                 for method in three_step.METHODS}
    slopes = model.coefficients[1, 1:]
    naive = estimates["naive"].coefficients[1, 1:]
    assert np.all(np.abs(naive) < 0.75 * np.abs(slopes))  # attenuated toward zero
    assert np.all(np.sign(naive) == np.sign(slopes))
    assert not recovered(estimates["naive"], model.coefficients)
    assert recovered(estimates["bch"], model.coefficients)
    assert recovered(estimates["ml"], model.coefficients)
    # the corrections cost precision; ML's is the more efficient (Bakk et al. 2013)
    assert np.all(estimates["ml"].standard_errors[:, 1:]
                  <= estimates["bch"].standard_errors[:, 1:])


#: The Monte-Carlo check of the bias pattern: high separation, N = 500, replicates.
BIAS_REPLICATES = 40


def test_over_replicates_bch_and_ml_are_unbiased_and_the_naive_estimate_is_not():
    """Bakk, Tekle & Vermunt (2013), high separation, N = 500: over replicates (each drawn,
    step 1 searched and its classes put in the generating order, as the benchmark does), the
    mean BCH and ML slopes are within 3 Monte-Carlo standard errors of the truth, and the naive
    mean slope is more than 5 of them off, toward zero. Without the correction BCH and ML
    would be the naive estimate, and fail."""
    model = bakk_tekle_vermunt_model(0.9)
    slopes = {method: [] for method in three_step.METHODS}
    for r in range(BIAS_REPLICATES):
        sample, *_, classification = classified(model, 500, seeding.rng(7, "bakk test", r), r)
        for method, estimate in three_step_estimates(sample.design, classification).items():
            slopes[method].append(estimate[1, 1:])
    truth = model.coefficients[1, 1:]  # -1 for class 2, +1 for class 3
    for method, values in slopes.items():
        values = np.array(values)
        bias = values.mean(axis=0) - truth
        z = bias / (values.std(axis=0, ddof=1) / np.sqrt(BIAS_REPLICATES))
        if method == "naive":
            assert np.all(np.abs(z) > 5) and np.all(np.sign(bias) == -np.sign(truth)), z
        else:
            assert np.all(np.abs(z) < 3), (method, z)


def ml_log_likelihood(design, classification, coefficients):
    """``sum_i log sum_s pi_s(z_i) D[s, w_i]``, written out afresh."""
    log_pi = np.log(softmax(design @ coefficients, axis=1))
    log_d = np.log(classification.error_matrix[:, classification.assigned].T)
    return logsumexp(log_pi + log_d, axis=1).sum()


def noisy_classification(n_cases: int, seed: int, sharpness: float):
    """A sample of :func:`mixed_model` and step 2 from posteriors that favour each case's true
    class by ``sharpness`` on the log scale, blurred by standard normal noise."""
    sample = mixed_model().sample(n_cases, np.random.default_rng(seed))
    noise = np.random.default_rng(seed + 1).normal(size=(n_cases, 3))
    posteriors = softmax(sharpness * np.eye(3)[sample.classes] + noise, axis=1)
    return sample, three_step.classify(posteriors)


def test_the_ml_step_maximises_its_likelihood_with_the_observed_information():
    sample, classification = noisy_classification(1500, 2, 2.0)
    estimate = three_step.covariate_step(sample.design, classification, "ml")
    free = free_coefficients(estimate.coefficients)
    p = sample.design.shape[1]

    def value(vector):
        return ml_log_likelihood(sample.design, classification, coefficients_from_free(vector, p))

    assert value(free) == pytest.approx(estimate.log_likelihood, rel=1e-12)
    h = 1e-4
    eye = np.eye(free.size) * h
    gradient = np.array([(value(free + e) - value(free - e)) / (2 * h) for e in eye])
    assert np.abs(gradient).max() < 1e-4
    hessian = np.array([[(value(free + a + b) - value(free + a - b) - value(free - a + b)
                          + value(free - a - b)) / (4 * h * h) for b in eye] for a in eye])
    np.testing.assert_allclose(np.linalg.inv(estimate.covariance), -hessian, rtol=2e-4,
                               atol=1e-3)


def test_the_naive_step_is_statsmodels_multinomial_logit_of_the_assigned_classes():
    import statsmodels.api as sm

    sample, classification = noisy_classification(2000, 4, 1.0)
    estimate = three_step.covariate_step(sample.design, classification, "naive")
    peer = sm.MNLogit(classification.assigned, sample.design).fit(disp=0, method="newton",
                                                                 tol=1e-12)
    np.testing.assert_allclose(estimate.coefficients[:, 1:], peer.params, atol=1e-6)
    np.testing.assert_allclose(estimate.standard_errors[:, 1:], peer.bse, rtol=1e-6)
    assert estimate.log_likelihood == pytest.approx(peer.llf, rel=1e-10)


def test_the_bch_sandwich_from_finite_difference_scores():
    sample, classification = noisy_classification(300, 7, 3.0)
    estimate = three_step.covariate_step(sample.design, classification, "bch")
    weights = three_step.bch_weights(classification)
    assert (weights < 0).any()  # BCH's weights: some negative
    p = sample.design.shape[1]
    free = free_coefficients(estimate.coefficients)

    def case_values(vector):
        matrix = coefficients_from_free(vector, p)
        return (weights * np.log(softmax(sample.design @ matrix, axis=1))).sum(axis=1)

    h = 1e-5
    scores = np.column_stack([(case_values(free + e) - case_values(free - e)) / (2 * h)
                              for e in np.eye(free.size) * h])
    np.testing.assert_allclose(scores.sum(axis=0), 0.0, atol=1e-5)
    hessian = sum(np.outer(g, g) for g in scores)
    bread = np.linalg.inv(-np.array([[(case_values(free + a + b) - case_values(free + a - b)
                                       - case_values(free - a + b)
                                       + case_values(free - a - b)).sum() / 4e-6
                                      for b in np.eye(free.size) * 1e-3]
                                     for a in np.eye(free.size) * 1e-3]))
    np.testing.assert_allclose(estimate.covariance, bread @ hessian @ bread, rtol=1e-3)


def test_three_step_in_one_call_is_its_steps():
    model = bakk_tekle_vermunt_model(0.9)
    sample = model.sample(1000, np.random.default_rng(12))
    names = list(model.item_names)
    rows = sample.frame[names].to_numpy(dtype=np.int32)
    whole = three_step.three_step(rows, names, [2] * 6, sample.design, 3, "ml", seed=0)
    fit = three_step.measurement_model(rows, names, [2] * 6, 3, seed=0)
    posteriors, _ = class_posteriors(fit.network, fit.cpts, rows)
    steps = three_step.covariate_step(sample.design, three_step.classify(posteriors), "ml")
    np.testing.assert_array_equal(whole.coefficients, steps.coefficients)


def test_bad_input_is_refused_in_one_line(medium_separation):
    _, sample, _, classification = medium_separation
    with pytest.raises(HiddenbnError, match="choose one of bch, ml"):
        three_step.covariate_step(sample.design, classification, "em")
    with pytest.raises(HiddenbnError, match="one design row per case"):
        three_step.covariate_step(sample.design[:10], classification, "bch")
    assigned = np.arange(300) % 2
    separated = np.column_stack([np.ones(300), assigned + np.linspace(0, 0.01, 300)])
    for method in ("naive", "ml"):
        with pytest.raises(HiddenbnError,
                           match="coefficient of 'z' for class 2 runs to infinity"):
            three_step.covariate_step(separated, three_step.classify(np.eye(2)[assigned] * 0.98
                                                                     + 0.01),
                                      method, names=["(intercept)", "z"])
    uninformative = three_step.classify(np.full((50, 3), 1 / 3) + [0.01, 0, 0])
    with pytest.raises(HiddenbnError, match="singular.*use the ML correction"):
        three_step.bch_weights(uninformative)


@pytest.mark.parametrize("module", [covariate_sampling, three_step])
def test_the_examples_run(module):
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted and not failed


def test_grouped_rows_with_counts_give_the_estimates_of_one_row_per_case():
    model = bakk_tekle_vermunt_model(0.8)
    sample = model.sample(3000, np.random.default_rng(9))
    rows = sample.frame[list(model.item_names)].to_numpy(dtype=np.int32)
    fit = three_step.measurement_model(rows, model.item_names, [2] * 6, 3, seed=0)
    keys, first, counts = np.unique(np.hstack([rows, sample.design]), axis=0,
                                    return_index=True, return_counts=True)
    posteriors, _ = class_posteriors(fit.network, fit.cpts, rows)
    each = three_step.classify(posteriors)
    grouped = three_step.classify(posteriors[first], counts)
    assert counts.size < 400
    np.testing.assert_allclose(grouped.error_matrix, each.error_matrix, atol=1e-12)
    for method in three_step.METHODS:
        one = three_step.covariate_step(sample.design, each, method)
        other = three_step.covariate_step(sample.design[first], grouped, method)
        np.testing.assert_allclose(other.coefficients, one.coefficients, atol=1e-7)
        np.testing.assert_allclose(other.covariance, one.covariance, rtol=1e-6)


def test_fit_three_step_from_the_command_line_and_python(tmp_path, capsys):
    import json

    import hiddenbn
    from hiddenbn.cli import main

    model = bakk_tekle_vermunt_model(0.9)
    sample = model.sample(800, np.random.default_rng(13))
    path = tmp_path / "data.csv"
    sample.frame.to_csv(path, index=False)
    result = hiddenbn.fit(path, classes=3, covariates="Z", three_step="ml", seed=2)
    rows = sample.frame[list(model.item_names)].to_numpy(dtype=np.int32)
    library = three_step.three_step(rows, model.item_names, [2] * 6, sample.design, 3, "ml",
                                    seed=2)
    np.testing.assert_allclose(result.fit.coefficients, library.coefficients, atol=1e-6)
    assert result.to_dict()["model"]["estimator"] == "three-step ML"
    estimate = result.coefficients.loc[("2", "Z")]
    assert estimate["standard_error"] == pytest.approx(library.standard_errors[1, 1], rel=1e-5)
    assert main(["fit", str(path), "--classes", "3", "--covariates", "Z", "--three-step", "ml",
                 "--seed", "2", "--json"]) in (None, 0)
    printed, in_python = json.loads(capsys.readouterr().out), result.to_dict()
    note = ("the scores are the measurement model's (step 1, d counts its item probabilities and "
            "class sizes); the one-step fit (without {}) gives those of the model with the "
            "covariates")  # naming the option as the caller wrote it
    assert note.format("--three-step") in printed["notes"]
    assert note.format("three_step=") in in_python["notes"]
    assert printed == {**in_python, "notes": [
        text.replace(note.format("three_step="), note.format("--three-step"))
        for text in in_python["notes"]]}
    with pytest.raises(HiddenbnError, match="give covariates too"):
        hiddenbn.fit(path, classes=3, three_step="bch")
    with pytest.raises(HiddenbnError, match="choose one of bch, ml"):
        hiddenbn.fit(path, classes=3, covariates="Z", three_step="em")
    with pytest.raises(HiddenbnError, match="has one class; give 2 classes or more"):
        hiddenbn.fit(path, classes=1, covariates="Z", three_step="ml")
