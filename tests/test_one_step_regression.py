"""One-step latent class regression (hiddenbn.regression.one_step, fit --covariates).

Checked against independent computations: the observed log-likelihood maximised by
scipy.optimize from the generating parameters (its own likelihood, written here), today's
latent class fit (a design of the constant alone is that model), EM from the generating
parameters (the oracle), and the observed information against finite differences of the
log-likelihood. Bad inputs each give one line and exit 2.
"""

import dataclasses
import doctest
import json

import numpy as np
import numba
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.special import expit, logsumexp
from threadpoolctl import threadpool_limits

import hiddenbn
from hiddenbn.cli import main
from hiddenbn.models.network import latent_class
from hiddenbn.regression import one_step as one_step_module
from hiddenbn.regression.one_step import (RegressionCases, coefficient_table, fit_one_step,
                                          observed_information, one_step_scores)

#: Generating parameters of the binary-covariate data: logit of class 2 (intercept, slope) and
#: p(item = 1 | class) per item (rows) and class (columns).
BETA = (-0.6, 1.4)
ITEMS = np.array([[0.2, 0.85], [0.25, 0.8], [0.15, 0.7], [0.3, 0.9]])


def binary_covariate_data(n=400, seed=3):
    """Items (n x 4), the binary covariate z and the classes drawn from BETA and ITEMS."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    classes = (rng.random(n) < expit(BETA[0] + BETA[1] * z)).astype(int)
    items = (rng.random((n, 4)) < ITEMS[:, classes].T).astype(int)
    return items, z, classes


def independent_log_likelihood(vector, items, z):
    """log p(items | z) of K = 2 with parameters (beta_0, beta_1, logit p(x_j = 1 | h) for h,
    then j), written without the package."""
    beta, logits = vector[:2], vector[2:].reshape(2, -1)
    log_prior = np.column_stack([np.zeros(z.size), beta[0] + beta[1] * z])
    log_prior -= logsumexp(log_prior, axis=1, keepdims=True)
    log_items = np.stack([(items * -np.logaddexp(0, -logits[h])
                           + (1 - items) * -np.logaddexp(0, logits[h])).sum(axis=1)
                          for h in range(2)], axis=1)
    return float(logsumexp(log_prior + log_items, axis=1).sum())


def fitted_vector(fit):
    """The fit as ``independent_log_likelihood``'s vector, its classes in the order that puts
    class 1 nearer the generating class 1."""
    beta = fit.coefficients[:, 1].copy()
    probabilities = np.array([fit.cpts[j + 1][:, 1] for j in range(4)])  # item x class
    if np.abs(probabilities - ITEMS).sum() > np.abs(probabilities[:, ::-1] - ITEMS).sum():
        beta, probabilities = -beta, probabilities[:, ::-1]  # label switching
    return np.concatenate([beta, np.log(probabilities.T / (1 - probabilities.T)).ravel()])


def one_step(items, design, classes=2, **options):
    cases = RegressionCases.grouped(items, design, [2] * items.shape[1])
    return fit_one_step(latent_class(classes, [2] * items.shape[1]), cases, **options)


def test_em_reaches_the_maximum_that_scipy_finds_from_the_generating_parameters():
    items, z, _ = binary_covariate_data()
    fit = one_step(items, np.column_stack([np.ones(z.size), z]), seed=1)
    start = np.concatenate([BETA, np.log(ITEMS.T / (1 - ITEMS.T)).ravel()])
    optimum = minimize(lambda v: -independent_log_likelihood(v, items, z), start,
                       method="BFGS", options={"gtol": 1e-9, "maxiter": 10000})
    assert fit.log_likelihood == pytest.approx(-optimum.fun, rel=1e-8)
    assert independent_log_likelihood(fitted_vector(fit), items, z) == pytest.approx(
        fit.log_likelihood, rel=1e-12)
    np.testing.assert_allclose(fitted_vector(fit)[:2], optimum.x[:2], atol=1e-4)
    # the coefficients' standard errors do not depend on how the item probabilities are
    # parametrised: here logits, in the package free probabilities
    point, step, d = fitted_vector(fit), 1e-4, 10
    hessian = np.empty((d, d))
    for a in range(d):
        for b in range(d):
            shift = np.zeros((2, d))
            shift[0, a] = shift[1, b] = step
            hessian[a, b] = sum(sign * independent_log_likelihood(point + s0 * shift[0]
                                                                  + s1 * shift[1], items, z)
                                for sign, s0, s1 in ((1, 1, 1), (-1, 1, -1), (-1, -1, 1),
                                                     (1, -1, -1))) / (4 * step ** 2)
    errors = np.sqrt(np.diag(np.linalg.inv(-hessian)))[:2]
    table = coefficient_table(fit, observed_information(fit.engine, fit.state))
    np.testing.assert_allclose(table.standard_error[:, 0], errors, rtol=1e-3)


def test_a_design_of_the_constant_alone_is_todays_latent_class_fit():
    frame = hiddenbn.sample("3:2,2,3,2,2", n=300, seed=8)
    today = hiddenbn.fit(frame, classes=3, seed=2, skip_de=True)
    data = today.data
    fit = fit_one_step(today.network, RegressionCases.grouped(
        data.patterns, np.ones((data.n_patterns, 1)), data.cardinalities, data.counts), seed=2)
    assert fit.log_likelihood == pytest.approx(today.log_likelihood, rel=1e-10, abs=0)
    np.testing.assert_allclose(np.sort(fit.cpts[0][0]), np.sort(today.fit.cpts[0][0]),
                               atol=1e-4)


def two_covariate_data(n=400, seed=5):
    """Three classes, items of 2, 3 and 2 states with missing cells, a numeric and a binary
    covariate; with the generating coefficients and tables."""
    rng = np.random.default_rng(seed)
    design = np.column_stack([np.ones(n), rng.normal(size=n), rng.integers(0, 2, n)])
    coefficients = np.array([[0.0, 0.3, -0.2], [0.0, 1.2, -0.8], [0.0, -0.7, 0.9]])
    network = latent_class(3, [2, 3, 2, 2])
    tables = [np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]),
              np.array([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3]]),
              np.array([[0.8, 0.2], [0.7, 0.3], [0.1, 0.9]]),
              np.array([[0.15, 0.85], [0.85, 0.15], [0.6, 0.4]])]
    eta = design @ coefficients
    prior = np.exp(eta - logsumexp(eta, axis=1, keepdims=True))
    classes = (rng.random(n)[:, None] > np.cumsum(prior, axis=1)).sum(axis=1)
    items = np.column_stack([(rng.random(n)[:, None] > np.cumsum(t[classes], axis=1)).sum(1)
                             for t in tables])
    items[rng.random(items.shape) < 0.05] = -1
    cpts = [np.full((1, 3), 1 / 3)] + tables
    return network, RegressionCases.grouped(items, design, [2, 3, 2, 2]), coefficients, cpts


def test_em_from_the_generating_parameters_reaches_the_mode_of_the_search():
    network, cases, coefficients, cpts = two_covariate_data()
    searched = fit_one_step(network, cases, seed=0, restarts=4)
    oracle = fit_one_step(network, cases, initial=(coefficients, cpts))
    assert searched.converged and oracle.converged
    assert searched.log_likelihood == pytest.approx(oracle.log_likelihood, rel=1e-9)
    assert searched.replicated


def test_the_observed_information_is_the_negative_hessian_by_finite_differences():
    network, cases, coefficients, cpts = two_covariate_data(n=300)
    fit = fit_one_step(network, cases, initial=(coefficients, cpts), max_iterations=50)
    engine, (beta, table) = fit.engine, fit.state
    information = observed_information(engine, fit.state)
    assert not information.fixed_rows
    free_rows = [o + s for o, r in zip(engine.offsets, engine.cards) for s in range(r - 1)]

    def log_likelihood(vector):
        """Coefficients of classes 2..k, then each item row's free entries by item, class."""
        new_beta = beta.copy()
        new_beta[:, 1:] = vector[:6].reshape(2, 3).T
        new_table, at = table.copy(), 6
        for o, r in zip(engine.offsets, engine.cards):
            for h in range(3):
                new_table[o:o + r - 1, h] = vector[at:at + r - 1]
                new_table[o + r - 1, h] = 1 - vector[at:at + r - 1].sum()
                at += r - 1
        return engine.e_step((new_beta, new_table)).log_likelihood

    point = np.concatenate([beta[:, 1:].T.ravel()] + [
        table[o:o + r - 1, h] for o, r in zip(engine.offsets, engine.cards) for h in range(3)])
    assert len(free_rows) * 3 + 6 == point.size == information.matrix.shape[0]
    step, d = 1e-4, point.size
    hessian = np.empty((d, d))
    for a in range(d):
        for b in range(a, d):
            shifts = [np.zeros(d), np.zeros(d)]
            shifts[0][a] = shifts[1][b] = step
            plus, minus = shifts[0] + shifts[1], shifts[0] - shifts[1]
            hessian[a, b] = hessian[b, a] = (
                log_likelihood(point + plus) - log_likelihood(point + minus)
                - log_likelihood(point - minus) + log_likelihood(point - plus)) / (4 * step ** 2)
    np.testing.assert_allclose(information.matrix, -hessian, rtol=1e-4,
                               atol=1e-5 * np.abs(hessian).max())


def test_a_fit_is_the_same_to_the_last_bit_on_one_thread_and_on_two():
    network, cases, _, _ = two_covariate_data(n=300)
    fits = []
    for threads in (1, 2):
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        with threadpool_limits(threads):
            fits.append(fit_one_step(network, cases, seed=4, restarts=3))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert fits[0].log_likelihood == fits[1].log_likelihood
    assert np.array_equal(fits[0].coefficients, fits[1].coefficients)
    assert fits[0].final_log_posteriors == fits[1].final_log_posteriors


def test_every_score_counts_the_coefficients():
    network, cases, coefficients, cpts = two_covariate_data(n=300)
    fit = fit_one_step(network, cases, initial=(coefficients, cpts))
    information = observed_information(fit.engine, fit.state)
    scores, statistics, _, notes = one_step_scores(fit, information, 2.0)
    d = 3 * 2 + 3 * (1 + 2 + 1 + 1)
    assert fit.n_parameters == statistics["n_parameters"] == d
    n = fit.n_cases
    assert scores["bic_log_evidence"] == pytest.approx(fit.log_likelihood - d / 2 * np.log(n))
    # Draper (paper 003 Eq. 10): BIC + d/2 log 2 pi with the same d
    assert scores["draper"] == pytest.approx(fit.log_likelihood - d / 2 * np.log(n)
                                             + d / 2 * np.log(2 * np.pi), rel=1e-12)
    assert statistics["aic"] == pytest.approx(-2 * fit.log_likelihood + 2 * d)
    assert statistics["sabic"] == pytest.approx(-2 * fit.log_likelihood
                                                + d * np.log((n + 2) / 24))
    assert scores["icl_log_evidence"] < scores["bic_log_evidence"]
    assert scores["laplace"] is not None and not notes
    table = coefficient_table(fit, information)
    np.testing.assert_allclose(table.odds_ratio, np.exp(table.estimate))
    assert np.all(table.standard_error > 0)


@pytest.fixture(scope="module")
def covariate_file(tmp_path_factory):
    """A data file of four items, a numeric covariate (one missing) and a categorical one."""
    rng = np.random.default_rng(0)
    n = 300
    age = rng.uniform(20, 60, n).round()
    sex = rng.choice(["F", "M"], n)
    member = rng.random(n) < expit((age - 40) / 8 + 0.7 * (sex == "M"))
    items = (rng.random((n, 4)) < np.where(member, 0.85, 0.15)[:, None]).astype(int)
    frame = pd.DataFrame(items, columns=list("abcd")).assign(age=age, sex=sex)
    frame.loc[3, "age"] = None
    frame.loc[5, "a"] = None
    path = tmp_path_factory.mktemp("regression") / "data.csv"
    frame.to_csv(path, index=False)
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_prints_what_the_python_function_returns(capsys, covariate_file, tmp_path):
    options = ["--classes", "2", "--covariates", "age,sex", "--seed", "1", "--predict-at",
               "age=30,sex=M"]
    code, text, _ = run(capsys, "fit", covariate_file, *options, "--posteriors",
                        tmp_path / "posteriors.csv")
    assert code == 0
    code, as_json, _ = run(capsys, "fit", covariate_file, *options, "--json")
    result = hiddenbn.fit(covariate_file, classes=2, covariates=["age", "sex"], seed=1,
                          predict_at=[{"age": 30, "sex": "M"}])
    assert text == str(result) + "\n" and as_json == result.to_json() + "\n"
    report = json.loads(as_json)
    assert report["references"] == {"sex": "F"} and report["dropped_rows"] == 1
    assert report["notes"][0] == "1 of 300 rows have a missing covariate and were dropped"
    assert {c["covariate"] for c in report["coefficients"]} == {"(intercept)", "age", "sex=M"}
    assert report["predictions"][0]["probabilities"] == pytest.approx(
        result.predict({"age": 30, "sex": "M"})[0].tolist())
    posteriors = pd.read_csv(tmp_path / "posteriors.csv", keep_default_na=False)
    assert len(posteriors) == 300 and posteriors.loc[3, "dropped"] == "missing covariate"
    assert posteriors.loc[3, "p_class1"] == ""


def test_the_plot_draws_the_class_probabilities_against_a_covariate(covariate_file, tmp_path):
    result = hiddenbn.fit(covariate_file, classes=2, covariates="age", columns="a,b,c,d")
    result.plot(tmp_path / "curve.png", covariate="age")
    assert (tmp_path / "curve.png").stat().st_size > 1000


@pytest.mark.parametrize("argv, message", [
    (["--covariates", "sex", "--plot", "x.png", "--plot-covariate", "sex"],
     "--plot-covariate 'sex' is categorical"),
    (["--covariates", "age", "--plot", "x.png", "--plot-covariate", "sex"],
     "--plot-covariate 'sex' is not one of --covariates"),
    (["--predict-at", "age=3"], "--predict-at does not act without --covariates"),
    (["--covariates", "age", "--predict-at", "age"], "write each covariate as name=value"),
    (["--covariates", "age,sex", "--predict-at", "age=30"], "no value of covariate 'sex'"),
    (["--covariates", "age", "--wbic"], "--wbic does not act with --covariates"),
    (["--covariates", "height"], "has no column 'height'"),
])
def test_a_bad_option_gets_one_line(capsys, covariate_file, tmp_path, argv, message):
    code, out, err = run(capsys, "fit", covariate_file, "--classes", "2", "--columns",
                         "a,b,c,d", *[tmp_path / a if a == "x.png" else a for a in argv])
    assert code == 2 and out == "" and not (tmp_path / "x.png").exists()
    assert err.startswith("hiddenbn: error: ") and err.count("\n") == 1 and message in err


def test_a_covariate_on_a_model_that_is_not_latent_class_gets_one_line(capsys, covariate_file):
    code, _, err = run(capsys, "fit", covariate_file, "--model", "2(2(2,2),2(2,2))",
                       "--columns", "a,b,c,d", "--covariates", "age")
    assert code == 2 and "is a tree" in err and err.count("\n") == 1


@pytest.mark.parametrize("column, message", [
    (["5"] * 40, "a constant"), ([""] * 40, "only missing cells"),
    (["1", "2", "x", "3"] * 10, "row 3, column 'w': 'x' is text where a number is expected"),
    (["F", "M"] * 19 + ["3", "F"], "row 39, column 'w': '3' is a number among text labels; "
     "correct the cell, or name the covariate categorical (--categorical"),
    ([f"p{row:03d}" for row in range(40)], "covariate 'w' has 40 levels in 40 rows used, a "
     "different one in (nearly) every row: an identifier, not a covariate; leave it out"),
])
def test_a_bad_covariate_gets_one_line_naming_it(capsys, tmp_path, column, message):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.integers(0, 2, (40, 3)), columns=list("abc")).assign(w=column)
    frame.to_csv(tmp_path / "data.csv", index=False)
    code, _, err = run(capsys, "fit", tmp_path / "data.csv", "--classes", "2", "--covariates",
                       "w")
    assert code == 2 and message in err and "'w'" in err and err.count("\n") == 1
    assert len(err) < 300 + len(str(tmp_path))


def write_separated_file(path):
    """Four items that copy a binary group: the group separates two classes."""
    group = np.random.default_rng(1).integers(0, 2, 120)
    items = np.where(group[:, None] == 1, 1, 0) * np.ones((1, 4), dtype=int)
    pd.DataFrame(items, columns=list("abcd")).assign(group=group).to_csv(path, index=False)


@pytest.mark.parametrize("estimator", [[], ["--three-step", "bch"], ["--three-step", "ml"]])
def test_a_covariate_that_separates_the_classes_gets_one_line(capsys, tmp_path, estimator):
    write_separated_file(tmp_path / "data.csv")
    code, _, err = run(capsys, "fit", tmp_path / "data.csv", "--classes", "2", "--covariates",
                       "group", "--categorical", "group", *estimator, "--posteriors",
                       tmp_path / "new" / "posteriors.csv")
    assert code == 2 and err.count("\n") == 1 and not (tmp_path / "new").exists()
    assert "the covariates separate the classes: the coefficient of 'group=1' for class" in err


def test_select_lists_a_separated_number_of_classes_and_selects_among_the_others(capsys,
                                                                                 tmp_path):
    write_separated_file(tmp_path / "data.csv")
    argv = ["select", tmp_path / "data.csv", "--covariates", "group", "--categorical", "group",
            "--restarts", "2"]
    code, text, err = run(capsys, *argv, "--classes", "1..2")
    assert code == 0 and err == ""
    assert "\n  2 separated: no maximum likelihood estimate (see note)\n" in text
    assert "note: k = 2: the covariates separate the classes: the coefficient of 'group=1' for " \
           "class 2 runs to infinity" in text
    code, as_json, _ = run(capsys, *argv, "--classes", "1..2", "--json")
    report = json.loads(as_json, parse_constant=pytest.fail)  # strict: no NaN or Infinity
    assert [m["separated"] for m in report["models"]] == [False, True]
    assert report["models"][1]["bic_log_evidence"] is None
    assert set(report["selected"].values()) == {1}
    result = hiddenbn.select(tmp_path / "data.csv", classes=[1, 2], covariates="group",
                             categorical=["group"], restarts=2)
    assert result.to_frame()["bic"].isna().tolist() == [False, True]
    code, out, err = run(capsys, *argv, "--classes", "2")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("hiddenbn: error: 2 classes: the covariates separate the classes")


def test_select_fits_a_regression_per_number_of_classes(capsys, covariate_file):
    argv = ["select", covariate_file, "--classes", "1..2", "--covariates", "age", "--columns",
            "a,b,c,d", "--restarts", "2"]
    code, as_json, _ = run(capsys, *argv, "--json")
    result = hiddenbn.select(covariate_file, classes=[1, 2], covariates="age", columns="a,b,c,d",
                             restarts=2)
    assert code == 0 and as_json == result.to_json() + "\n"
    frame = result.to_frame()
    assert frame["n_parameters"].tolist() == [4, 4 * 2 + 2]
    assert result.selected["bic_log_evidence"] == result.selected["bic"] == 2
    single = hiddenbn.fit(covariate_file, classes=2, covariates="age", columns="a,b,c,d",
                          restarts=2)
    assert frame.loc[2, "loglik"] == single.log_likelihood
    code, _, err = run(capsys, *argv, "--blrt", "19")
    assert code == 2 and "--blrt does not act with --covariates" in err


def test_missing_drop_drops_the_cases_with_a_missing_item_too(capsys, covariate_file, tmp_path):
    code, as_json, _ = run(capsys, "fit", covariate_file, "--classes", "2", "--covariates",
                           "age", "--columns", "a,b,c,d", "--missing", "drop", "--restarts", "2",
                           "--json", "--posteriors", tmp_path / "new" / "posteriors.csv")
    report = json.loads(as_json)
    assert code == 0 and report["n_cases"] == 298 and report["missing_cells"] == 0
    # a folder that does not exist yet is made, as for every output (atomic_output)
    posteriors = pd.read_csv(tmp_path / "new" / "posteriors.csv", keep_default_na=False)
    assert posteriors["dropped"].tolist()[3:6] == ["missing covariate", "",
                                                   "missing item (--missing drop)"]
    result = hiddenbn.fit(covariate_file, classes=2, covariates="age", columns="a,b,c,d",
                          missing="drop", restarts=2)  # the reason names Python's keyword
    assert result.posteriors()["dropped"].tolist()[3:6] == ["missing covariate", "",
                                                            "missing item (missing='drop')"]


def test_the_examples_of_the_estimator_run():
    failed, attempted = doctest.testmod(one_step_module, optionflags=doctest.ELLIPSIS)
    assert attempted and not failed


def test_one_point_to_predict_at_may_be_given_alone(covariate_file):
    result = hiddenbn.fit(covariate_file, classes=2, covariates="age", columns="a,b,c,d",
                          restarts=2, predict_at="age=30")
    assert [p["at"] for p in result.predictions] == [{"age": 30.0}]


def numeric_covariate_fit(scale=1.0, shift=0.0, n=300):
    """A fit of two classes with one numeric covariate, ``scale * x + shift``, by EM from
    the generating parameters mapped into those units."""
    items, z, _ = binary_covariate_data(n=n)
    x = z + np.random.default_rng(7).normal(0, 0.5, n)
    beta = np.array([[0.0, BETA[0] - shift * BETA[1] / scale], [0.0, BETA[1] / scale]])
    cpts = [np.full((1, 2), 0.5)] + [np.column_stack([1 - p, p]) for p in ITEMS]
    return one_step(items, np.column_stack([np.ones(n), scale * x + shift]),
                    initial=(beta, cpts)), items, x


def laplace_score(fit):
    information = observed_information(fit.engine, fit.state)
    return one_step_scores(fit, information, 2.0)[0]["laplace"]


def test_the_laplace_score_does_not_depend_on_a_covariates_units_or_origin():
    base = laplace_score(numeric_covariate_fit()[0])
    for scale, shift in [(12.0, 0.0), (1e-6, 0.0), (1.0, -45.0), (3e4, 1e5)]:
        assert laplace_score(numeric_covariate_fit(scale, shift)[0]) == pytest.approx(
            base, rel=1e-8), (scale, shift)


def test_the_laplace_score_is_a_brute_force_laplace_in_the_standardised_coefficients():
    """Laplace's approximation written here: the log-likelihood of the standardised design
    (centred at the lower median, divided by the sample standard deviation), a N(0, 2^2) prior on
    its coefficients and a uniform one on the item probabilities, the Hessian by finite
    differences."""
    fit, items, x = numeric_covariate_fit()
    median = np.sort(x)[(x.size - 1) // 2]
    standard = (x - median) / x.std(ddof=1)

    def log_joint(vector):
        eta = vector[0] + vector[1] * standard
        log_prior = np.column_stack([-np.logaddexp(0, eta), eta - np.logaddexp(0, eta)])
        p = vector[2:].reshape(4, 2)  # p(item = 1 | class), item x class
        log_items = items @ np.log(p) + (1 - items) @ np.log(1 - p)
        return (float(logsumexp(log_prior + log_items, axis=1).sum())
                + float(np.sum(-0.5 * (vector[:2] / 2.0) ** 2 - np.log(2 * np.sqrt(2 * np.pi)))))

    beta = fit.coefficients[:, 1]
    point = np.concatenate([[beta[0] + median * beta[1], beta[1] * x.std(ddof=1)],
                            np.array([fit.cpts[j + 1][:, 1] for j in range(4)]).ravel()])
    d, step = point.size, 1e-4
    hessian = np.empty((d, d))
    for a in range(d):
        for b in range(a, d):
            e_a, e_b = np.eye(d)[a] * step, np.eye(d)[b] * step
            hessian[a, b] = hessian[b, a] = (
                log_joint(point + e_a + e_b) - log_joint(point + e_a - e_b)
                - log_joint(point - e_a + e_b) + log_joint(point - e_a - e_b)) / (4 * step ** 2)
    brute = (log_joint(point) + d / 2 * np.log(2 * np.pi)
             - np.linalg.slogdet(-hessian)[1] / 2)
    assert laplace_score(fit) == pytest.approx(brute, rel=1e-7)


def test_each_report_counts_the_parameters_of_the_model_its_scores_are_for(covariate_file):
    """One-step's d counts the coefficients and the item probabilities; three-step's scores are
    the measurement model's, and so is its d (the intercept is not counted beside the class
    sizes). The scores' header names only the scores printed."""
    reports = {}
    for name, three_step in [("one-step", None), ("three-step", "bch")]:
        result = hiddenbn.fit(covariate_file, classes=2, covariates="age,sex", seed=1,
                              restarts=1, three_step=three_step)
        assert "WBIC" not in str(result)
        reports[name] = json.loads(result.to_json())
    items = 2 * 4  # two classes, four binary items
    one, three = reports["one-step"], reports["three-step"]
    assert one["model"]["n_parameters"] == one["fit_statistics"]["n_parameters"] == 3 + items
    assert three["model"]["n_parameters"] == three["fit_statistics"]["n_parameters"] == 1 + items
    assert three["fit_statistics"]["bic"] == pytest.approx(
        -2 * three["scores"]["loglik"] + (1 + items) * np.log(three["n_cases"]))
    text = str(hiddenbn.select(covariate_file, classes="1..2", covariates="age,sex",
                               restarts=1))
    assert "WBIC" not in text and "laplace" in text


def test_the_laplace_score_does_not_depend_on_which_class_is_the_reference():
    """Relabelling three classes (class 3 first, so the reference changes) is the same fit; its
    prior, and so its Laplace score, are the same."""
    network, cases, coefficients, cpts = two_covariate_data(n=300)
    fit = fit_one_step(network, cases, initial=(coefficients, cpts))
    order = [2, 0, 1]
    beta = fit.coefficients[:, order]
    relabelled = dataclasses.replace(
        fit, coefficients=beta - beta[:, :1],
        cpts=[fit.cpts[0][:, order]] + [table[order] for table in fit.cpts[1:]])
    assert relabelled.log_likelihood == pytest.approx(
        relabelled.engine.e_step(relabelled.state).log_likelihood, rel=1e-12)
    assert laplace_score(relabelled) == pytest.approx(laplace_score(fit), rel=1e-10)


def test_a_far_outlier_reaches_the_maximum_a_large_value_does_or_gets_one_line(capsys, tmp_path,
                                                                              covariate_file):
    """Far out, one row's class is decided by the covariate alone, and the maximum is that of
    any large value; past the outlier limit the row is refused, with no numpy warning."""
    frame = pd.read_csv(covariate_file)
    values = {}
    for age in (1e3, 1e6):
        frame.loc[0, "age"] = age
        frame.to_csv(tmp_path / "data.csv", index=False)
        values[age] = hiddenbn.fit(tmp_path / "data.csv", classes=2, covariates="age,sex",
                                   seed=1, restarts=1).log_likelihood
    assert values[1e6] == pytest.approx(values[1e3], rel=1e-9)
    frame.loc[0, "age"] = 1e100
    frame.to_csv(tmp_path / "data.csv", index=False)
    code, _, err = run(capsys, "fit", tmp_path / "data.csv", "--classes", "2", "--covariates",
                       "age,sex")
    assert code == 2 and err.count("\n") == 1 and "warning" not in err
    assert "row 1, column 'age': 1e+100 is" in err


def test_a_coefficient_without_a_standard_error_keeps_the_table_aligned(tmp_path):
    """An overfit third class with item probabilities at 0 and 1 has no standard errors: its
    "-" cells fill their columns, as the header's are wide."""
    from hiddenbn.data.covariate_sampling import (CategoricalCovariate,
                                                  LatentClassRegressionModel, NormalCovariate)

    model = LatentClassRegressionModel(
        (NormalCovariate("age", 45, 12), CategoricalCovariate("sex", ("F", "M"))),
        np.array([[0.0, 3.0], [0.0, -0.08], [0.0, 0.6]]),
        (np.array([[0.85, 0.15], [0.2, 0.8]]),) * 5, ("q1", "q2", "q3", "q4", "q5"))
    data = tmp_path / "survey.csv"
    model.sample(800, np.random.default_rng(1)).frame.round(1).to_csv(data, index=False)
    text = str(hiddenbn.fit(data, classes=3, covariates="age,sex", seed=0))
    lines = text.splitlines()
    header = next(line for line in lines if line.strip().startswith("covariate"))
    rows = [line for line in lines if line.startswith("  (intercept)")]
    assert rows and any(" - " in row for row in rows), text
    assert all(len(row) == len(header) for row in rows), text
