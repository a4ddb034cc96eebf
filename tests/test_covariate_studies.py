"""Studies whose generators draw covariates: the config's checks (schema and study), and a
small study run in-process whose every score selects a number of classes of latent class
regressions."""

import numpy as np
import pandas as pd
import pytest
from test_workflow import REPO

from hiddenbn.errors import ConfigError, HiddenbnError
from hiddenbn.experiments import studies
from hiddenbn.experiments.workflow_config import check_config, read_schema

COVARIATES = {"age": {"type": "normal", "mean": 40, "sd": 10},
              "dose": {"type": "uniform_integer", "low": 1, "high": 5},
              "arm": {"type": "categorical", "levels": ["placebo", "drug"]}}
STUDY = {"generators": {"g": {"spec": "2:2,2,2,2,2", "covariates": COVARIATES,
                              "coefficient_sd": 0.5}},
         "sample_sizes": [300], "replicates": 2,
         "family": {"type": "latent_class", "hidden_states": {"min": 1, "max": 3}},
         "scores": list(studies.COVARIATE_SCORES),
         "em": {"restarts": 2, "max_iterations": 200, "tolerance": 1e-6}}


def checked(study):
    return studies.check_config({"s": study}, REPO)["s"]


def with_generator(**entry):
    return {**STUDY, "generators": {"g": {"spec": "2:2,2,2,2,2", **entry}}}


def test_covariates_are_normalised_and_leave_the_other_generators_as_they_were():
    study = checked(STUDY)
    assert study["generators"]["g"]["covariates"] == {
        "age": {"type": "normal", "mean": 40, "sd": 10},
        "dose": {"type": "uniform_integer", "low": 1, "high": 5},
        "arm": {"type": "categorical", "levels": ["placebo", "drug"], "probabilities": None}}
    assert study["generators"]["g"]["coefficient_sd"] == 0.5
    assert study["metrics"] == list(studies.METRICS)  # the KL is the conditional one
    defaults = checked(with_generator(covariates={"x": {"type": "normal"}}))
    assert defaults["generators"]["g"]["covariates"]["x"] == {"type": "normal", "mean": 0.0,
                                                             "sd": 1.0}
    assert defaults["generators"]["g"]["coefficient_sd"] == studies.DEFAULT_COEFFICIENT_SD
    plain = checked({**STUDY, "generators": {"g": {"spec": "2:2,2,2,2,2"}},
                     "scores": ["bic_log_evidence"]})
    assert set(plain["generators"]["g"]) == {"spec", "generating_alpha", "parameters"}
    assert plain["metrics"] == list(studies.METRICS)


@pytest.mark.parametrize("study, message", [
    (with_generator(covariates={"x": {"type": "poisson"}}),
     "studies.s.generators.g.covariates.x.type: unknown kind of covariate 'poisson'; use one of "
     "normal, uniform_integer, categorical"),
    (with_generator(covariates={"x": {"type": "normal", "low": 1}}),
     "covariates.x.low: not a setting of a normal covariate; it takes mean, sd"),
    (with_generator(covariates={"x": {"type": "uniform_integer", "low": 1}}),
     "covariates.x: a uniform_integer covariate needs high"),
    (with_generator(covariates={"x": {"type": "uniform_integer", "low": 3, "high": 3}}),
     "covariates.x: low 3 is not below high 3, so the covariate would be constant"),
    (with_generator(covariates={"x": {"type": "categorical", "levels": ["a", "a"]}}),
     "covariates.x.levels: a level is listed twice"),
    (with_generator(covariates={"x": {"type": "categorical", "levels": ["a", "b"],
                                      "probabilities": [0.5, 0.6]}}),
     "covariates.x.probabilities: need one probability per level (2), adding up to 1"),
    (with_generator(covariates={"X1": {"type": "normal"}}),
     "covariates.X1: 'X1' is also an item of the spec; give the covariate another name"),
    ({**STUDY, "generators": {"g": {"spec": "3(2(2,2,2),2(2,2),2)", "covariates": COVARIATES}}},
     "covariates predict the class of a latent class model, and the spec is not one"),
    (with_generator(coefficient_sd=2.0),
     "generators.g.coefficient_sd: the logit coefficients are those of covariates, and the "
     "generator has none"),
    ({**STUDY, "scores": ["bic_log_evidence", "cs"]},
     "studies.s.scores: cs is not defined for a latent class regression (generator g draws "
     "covariates); use any of loglik, bic_log_evidence, draper, icl_log_evidence, laplace"),
    (with_generator(spec="2:" + ",".join(["2"] * 26), covariates=COVARIATES),
     "joint states, more than the 33554432 the exact KL can hold; remove kl from the study's "
     "metrics"),
    ({**STUDY, "family": {"type": "models", "models": {"a": "2:2,2,2,2,2"}}},
     "studies.s.family: generator g draws covariates, which predict the class of latent class "
     "regressions; give family {type: latent_class"),
])
def test_a_bad_covariate_study_names_the_key_and_the_fix(study, message):
    with pytest.raises(HiddenbnError) as error:
        checked(study)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_the_schema_takes_covariates_and_refuses_a_misspelt_key():
    config = {"seed": 1, "studies": {"s": STUDY}}
    assert "covariates" in check_config(config, read_schema(), REPO)["s"]["generators"]["g"]
    bad = {"seed": 1, "studies": {"s": with_generator(covariates={"x": {"type": "normal",
                                                                        "sigma": 2}})}}
    with pytest.raises(ConfigError, match="sigma"):
        check_config(bad, read_schema(), REPO)
    negative = {"seed": 1, "studies": {"s": with_generator(covariates={"x": {"type": "normal"}},
                                                           coefficient_sd=-1)}}
    with pytest.raises(ConfigError, match="coefficient_sd"):
        check_config(negative, read_schema(), REPO)


def test_the_true_coefficients_are_drawn_per_replicate_and_shared_by_every_n():
    from hiddenbn.models.spec import parse_spec

    study = checked(STUDY)
    entry, network = study["generators"]["g"], parse_spec("2:2,2,2,2,2")
    cpts = studies.generating_parameters(network, entry, 101)
    model = studies.regression_model(network, entry, cpts, 101)
    assert model.design_names == ("(intercept)", "age", "dose", "arm=drug")
    assert model.coefficients.shape == (4, 2) and (model.coefficients[:, 0] == 0).all()
    again = studies.regression_model(network, entry, cpts, 101).coefficients
    other = studies.regression_model(network, entry, cpts, 102).coefficients
    np.testing.assert_array_equal(model.coefficients, again)
    assert not np.allclose(model.coefficients, other)
    # the item probabilities are the spec's, as a study without covariates draws them
    for table, index in zip(model.item_tables, network.observed_indices):
        np.testing.assert_array_equal(table, cpts[index])


def test_a_covariate_study_selects_the_classes_by_every_score(tmp_path):
    study = checked({**STUDY, "sample_sizes": [250], "replicates": 1})
    fits, selections = studies.run_job(study, "g", 250, [(101, 1001)])
    labels = ["1:2,2,2,2,2", "2:2,2,2,2,2", "3:2,2,2,2,2"]
    assert fits.model.tolist() == labels and fits.is_true.tolist() == [False, True, False]
    # d counts the coefficients of the three covariates and the intercept, p = 4 per class
    assert fits.ds.tolist() == [5, 4 + 2 * 5, 2 * 4 + 3 * 5]
    np.testing.assert_allclose(fits.bic_log_evidence,
                               fits.loglik - fits.ds / 2 * np.log(250), rtol=1e-12)
    np.testing.assert_allclose(fits.draper, fits.loglik - fits.ds / 2 * np.log(250 / (2 * np.pi)),
                               rtol=1e-12)
    # the conditional KL of every fit, carried by the selections of it
    assert np.isfinite(fits.kl_bits).all() and (fits.kl_bits >= 0).all()
    for chosen in selections.itertuples():
        assert chosen.kl_bits == fits.loc[fits.model == chosen.model, "kl_bits"].item()
    assert (fits.icl_log_evidence <= fits.bic_log_evidence + 1e-9).all()
    assert selections.score.tolist() == list(studies.COVARIATE_SCORES)
    for chosen in selections.itertuples():
        assert chosen.model == fits.loc[fits[chosen.score].idxmax(), "model"], chosen.score
    assert selections.loc[selections.score == "loglik", "model"].item() == labels[-1]

    studies.write_summary("s", study, fits, selections, tmp_path)
    for name in studies.summary_files(study):
        assert (tmp_path / name).is_file(), name
    frequency = pd.read_csv(tmp_path / "tables" / "frequency.csv")
    assert sorted(frequency.score) == sorted(studies.COVARIATE_SCORES)
    text = (tmp_path / "summary.md").read_text()
    assert "multinomial logit of the covariates age (normal), dose (uniform integer), arm " \
           "(categorical)" in text
    assert "The true model, 2:2,2,2,2,2, is in the family." in text
    assert "| conditional KL(true ‖ selected), bits |" in text


def test_the_same_seeds_give_the_same_covariate_study():
    study = checked({**STUDY, "family": {"type": "latent_class",
                                         "hidden_states": {"min": 2, "max": 2}},
                     "em": {"restarts": 1, "max_iterations": 100, "tolerance": 1e-5}})
    first, chosen = studies.run_job(study, "g", 150, [(7, 70)])
    again, chosen_again = studies.run_job(study, "g", 150, [(7, 70)])
    pd.testing.assert_frame_equal(first.drop(columns="fit_seconds"),
                                  again.drop(columns="fit_seconds"))
    pd.testing.assert_frame_equal(chosen, chosen_again)
    other, _ = studies.run_job(study, "g", 150, [(7, 71)])
    assert other.loglik.item() != first.loglik.item()


def _brute_force_conditional_kl(true_classes, true_items, fitted_classes, fitted_items):
    """E_x KL(p(O | x) || p^(O | x)) by a loop over the cases and every joint item state."""
    import itertools

    def probability(classes, items, states):
        return sum(classes[k] * np.prod([t[k, s] for t, s in zip(items, states)])
                   for k in range(len(classes)))

    total = 0.0
    for p_classes, q_classes in zip(true_classes, fitted_classes):
        for states in itertools.product(*(range(t.shape[1]) for t in true_items)):
            p = probability(p_classes, true_items, states)
            total += p * np.log2(p / probability(q_classes, fitted_items, states))
    return total / len(true_classes)


def test_the_conditional_kl_is_the_mean_over_the_cases_of_each_case_s_kl(monkeypatch):
    rng = np.random.default_rng(3)
    true_classes, fitted_classes = rng.dirichlet([1, 1], 5), rng.dirichlet([1, 1, 1], 5)
    true_items = [rng.dirichlet([1, 1], 2), rng.dirichlet([1, 1, 1], 2)]
    fitted_items = [rng.dirichlet([1, 1], 3), rng.dirichlet([1, 1, 1], 3)]
    kl = studies.conditional_kl_bits(true_classes, true_items, fitted_classes, fitted_items)
    assert kl == pytest.approx(_brute_force_conditional_kl(
        true_classes, true_items, fitted_classes, fitted_items), rel=1e-12)
    # not the KL of the distributions averaged over the cases, which is smaller (convexity)
    pooled = studies.conditional_kl_bits(true_classes.mean(axis=0, keepdims=True), true_items,
                                         fitted_classes.mean(axis=0, keepdims=True),
                                         fitted_items)
    assert pooled < 0.9 * kl
    # in blocks of cases: the same mean
    monkeypatch.setattr(studies, "KL_CHUNK_CELLS", 7)
    assert studies.conditional_kl_bits(true_classes, true_items, fitted_classes,
                                       fitted_items) == pytest.approx(kl, rel=1e-12)
    assert studies.conditional_kl_bits(true_classes, true_items, true_classes,
                                       true_items) == pytest.approx(0.0, abs=1e-15)
    fitted_items[0][:, 1] = [0.0, 0.0, 0.0]  # a state the fit never gives
    fitted_items[0][:, 0] = 1.0
    assert studies.conditional_kl_bits(true_classes, true_items, fitted_classes,
                                       fitted_items) == np.inf
