"""Three-step latent class regression in the simulation setting of Bakk, Tekle & Vermunt (2013):
the bias of one-step, naive three-step, BCH and ML estimates of the covariate's coefficients.

Run with ``python -m benchmarks three_step``. The setting
(:func:`hiddenbn.data.covariate_sampling.bakk_tekle_vermunt_model`): three classes, six binary
items answered 1 with probability 0.9, 0.8 or 0.7 by the classes that tend to (high, medium
and low separation), a covariate Z uniform on 1..5 with slopes -1 (class 2) and +1 (class 3)
against class 1 and intercepts that make the classes equally large; sample sizes 500, 1000 and
10000. Each replicate draws a data set, fits the measurement model by the project's search
(:func:`hiddenbn.regression.three_step.measurement_model`), puts its classes in the generating
order (:meth:`~hiddenbn.data.covariate_sampling.LatentClassRegressionModel.class_order`), and
estimates the coefficients four ways:

* ``one-step``: :func:`hiddenbn.regression.one_step.fit_one_step`, EM from the measurement
  model's item tables and the ML three-step coefficients (one start, not the whole search: the
  start is at the one-step maximum's doorstep, and the search would multiply the cost);
* ``naive``, ``bch``, ``ml``: :func:`hiddenbn.regression.three_step.covariate_step`.

The report gives, per setting and estimator, the mean bias of the two slopes and of the two
intercepts with their Monte-Carlo standard errors (the standard deviation over replicates over
sqrt(R)), the slopes' standard deviation over replicates and the mean of their reported
standard errors, and how many replicates an estimator could not give (a singular
classification error matrix for BCH, separation). The mean entropy R-squared of the
measurement model shows the separation. Bakk et al. report the naive estimate biased toward
zero in every setting, and BCH, ML and one-step without noticeable bias at high and medium
separation (with some at low separation and the smallest N).
"""

import time

import numpy as np

from hiddenbn.data.covariate_sampling import bakk_tekle_vermunt_model
from hiddenbn.errors import HiddenbnError
from hiddenbn.inference.latent_class import class_posteriors
from hiddenbn.regression import three_step
from hiddenbn.regression.one_step import RegressionCases, fit_one_step
from hiddenbn.util import seeding

#: Response probabilities of the high, medium and low separation settings.
SEPARATIONS = (0.9, 0.8, 0.7)
SAMPLE_SIZES = (500, 1000, 10000)
#: Replicates per sample size: the Monte-Carlo standard error of a bias is the estimate's spread
#: over sqrt(R), about 0.5 / sqrt(100) = 0.05 at N = 500 and low separation, 0.04 / sqrt(30) =
#: 0.007 at N = 10000 and high separation (where a replicate costs 5 times as much).
REPLICATES = {500: 100, 1000: 100, 10000: 30}
ESTIMATORS = ("one-step", "naive", "bch", "ml")
SEED = 2013


def entropy_r2(posteriors) -> float:
    """The entropy R-squared of a classification: 1 - E / (N log K)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.nansum(posteriors * np.log(posteriors))
    return 1.0 - entropy / (posteriors.shape[0] * np.log(posteriors.shape[1]))


def classified(model, n_cases: int, rng, seed: int):
    """Steps 1 and 2 on one data set drawn from ``model``: ``(sample, rows, cards, measurement
    fit, its item tables in the generating order, posteriors, classification)``."""
    sample = model.sample(n_cases, rng)
    rows = sample.frame[list(model.item_names)].to_numpy(dtype=np.int32)
    cards = [table.shape[1] for table in model.item_tables]
    fit = three_step.measurement_model(rows, model.item_names, cards, model.n_classes, seed)
    order = model.class_order(fit.cpts[1:])
    cpts = [fit.cpts[0][:, order]] + [table[order] for table in fit.cpts[1:]]
    posteriors, _ = class_posteriors(fit.network, cpts, rows)
    return sample, rows, cards, fit, cpts, posteriors, three_step.classify(posteriors)


def three_step_estimates(design, classification) -> dict:
    """``{method: coefficients (p, K) or None}`` of step 3 by every method of
    :data:`hiddenbn.regression.three_step.METHODS` (None where it fails)."""
    estimates = {}
    for method in three_step.METHODS:
        try:
            estimates[method] = three_step.covariate_step(design, classification,
                                                          method).coefficients
        except HiddenbnError:
            estimates[method] = None
    return estimates


def replicate(model, n_cases: int, rng, seed: int):
    """``({estimator: coefficients (p, K) or None}, entropy R^2)`` of one data set."""
    sample, rows, cards, fit, cpts, posteriors, classification = classified(model, n_cases,
                                                                           rng, seed)
    estimates = three_step_estimates(sample.design, classification)
    start = estimates["ml"] if estimates["ml"] is not None else estimates["naive"]
    try:
        one_step = fit_one_step(fit.network, RegressionCases.grouped(rows, sample.design, cards),
                                sample.design_names, initial=(start, cpts))
        estimates["one-step"] = one_step.coefficients
    except HiddenbnError:
        estimates["one-step"] = None
    return estimates, entropy_r2(posteriors)


def setting_lines(separation: float, n_cases: int) -> list:
    model = bakk_tekle_vermunt_model(separation)
    truth = model.coefficients[:, 1:].ravel()  # intercept 2, intercept 3, slope 2, slope 3
    results = {name: [] for name in ESTIMATORS}
    failures = dict.fromkeys(ESTIMATORS, 0)
    r2 = []
    start = time.perf_counter()
    for r in range(REPLICATES[n_cases]):
        rng = seeding.rng(SEED, "bakk", str(separation), n_cases, r)
        estimates, entropy = replicate(model, n_cases, rng, r)
        r2.append(entropy)
        for name in ESTIMATORS:
            if estimates[name] is None:
                failures[name] += 1
            else:
                results[name].append(estimates[name][:, 1:].ravel() - truth)
    seconds = time.perf_counter() - start
    lines = [f"separation {separation}, N = {n_cases}: {REPLICATES[n_cases]} replicates, "
             f"entropy R^2 {np.mean(r2):.2f}, {seconds:.0f} s"]
    for name in ESTIMATORS:
        errors = np.array(results[name])
        if not errors.size:
            lines.append(f"  {name:8s} no estimate in any replicate")
            continue
        bias = errors.mean(axis=0)
        mc = errors.std(axis=0, ddof=1) / np.sqrt(errors.shape[0])
        cells = [f"{b:+.3f} ({m:.3f})" for b, m in zip(bias, mc)]
        lines.append(f"  {name:8s} bias (MC SE): slope2 {cells[2]}  slope3 {cells[3]}  "
                     f"intercept2 {cells[0]}  intercept3 {cells[1]}  SD slopes "
                     f"{errors[:, 2].std(ddof=1):.3f}, {errors[:, 3].std(ddof=1):.3f}"
                     + (f"  failed {failures[name]}" if failures[name] else ""))
    return lines


def run() -> list:
    replicate(bakk_tekle_vermunt_model(0.9), 200, np.random.default_rng(0), 0)  # JIT
    lines = ["Bakk, Tekle & Vermunt (2013) setting; truth: slopes -1 (class 2), +1 (class 3), "
             "intercepts as equal class sizes need; bias = mean(estimate - truth)"]
    for separation in SEPARATIONS:
        for n_cases in SAMPLE_SIZES:
            lines += setting_lines(separation, n_cases)
    return lines
