"""Rusakov & Geiger's coefficient of log N as the slope experiment's third prediction: its
domain, its verdict, and its values against two independent computations (the exact evidence
and tempered sampling of ``benchmarks/bench_rusakov_geiger.py``, here on a short ladder)."""

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hiddenbn.experiments import gold_standard as gs
from hiddenbn.models.spec import parse_spec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import bench_rusakov_geiger as bench  # noqa: E402

MODEL = parse_spec("2:2,2,2,2")


def coefficient(truth, model=MODEL, prior_alpha=1.0):
    return gs.rusakov_geiger_coefficient(parse_spec(truth), model, prior_alpha)


def test_the_coefficient_by_type_of_truth():
    assert coefficient("2:2,2,2,2") == (4.5, "4 of 4 features depend on the hidden root "
                                             "(a regular point)")
    assert coefficient(bench.truth_spec(4, 3))[0] == 4.5
    assert coefficient("1:2,2,2,2")[0] == 2.5
    assert coefficient(bench.truth_spec(4, 2)) == (3.5, "exactly two features depend on the "
                                                        "hidden root; at an ideal truth the "
                                                        "slope at finite N lies above it (our "
                                                        "benchmark)")
    assert coefficient(bench.truth_spec(4, 1))[0] == 2.5  # one feature: still independent
    assert coefficient("1:2,2,2", parse_spec("2:2,2,2"))[0] == 2.0


@pytest.mark.parametrize("truth, model, alpha, reason", [
    ("3:2,2,2,2", "3:2,2,2,2", 1.0, "its hidden node has 3 states"),
    ("2:2,2", "2:2,2", 1.0, "the model has 2 features, not 3 or more"),
    ("2:3,2,2", "2:3,2,2", 1.0, "not binary children of the hidden root"),
    ("2(2(2,2),2(2,2))", "2(2(2,2),2(2,2))", 1.0, "it has 3 hidden nodes"),
    ("2:2,2,2,2", "2:2,2,2,2", 1.01, "the prior is not uniform (prior_alpha = 1.01)"),
    ("3:2,2,2,2", "2:2,2,2,2", 1.0, "the truth is of no type checked here"),
    ("2:2,2,2", "2:2,2,2,2", 1.0, "the truth's observed nodes are not the model's"),
])
def test_where_the_coefficient_does_not_apply(truth, model, alpha, reason):
    value, why = gs.rusakov_geiger_coefficient(parse_spec(truth), parse_spec(model), alpha)
    assert value is None and reason in why


def synthetic(slope, setting, spread=(-0.15, -0.05, 0.05, 0.15)):
    """Replicates whose penalties grow exactly as ``slope + d`` per log N, one ``d`` each: the
    fitted slope is ``slope`` with standard error ``std(spread) / 2``."""
    return pd.DataFrame([{"setting": setting, "replicate": r, "cases": n, "ds": 9, "de": 9,
                          "log_likelihood": -float(n), "gold": -n - 1.0 - (slope + d) * np.log(n),
                          "gold_se": 0.1, "cs": -float(n), "cs_plus": -float(n),
                          "bic_log_evidence": -float(n), "bic_plus_log_evidence": -float(n)}
                         for r, d in enumerate(spread, start=1) for n in (100, 400, 1600, 6400)])


def test_the_verdict_passes_on_a_matching_slope_and_fails_on_a_counterfactual():
    coefficients = {"no_effect": (2.5, "the hidden root has no effect"),
                    "regular": (4.5, "a regular point"), "autoclass": (None, "3 states")}
    slopes = pd.concat([synthetic(2.5, "no_effect"), synthetic(2.5, "regular"),
                        synthetic(6.0, "autoclass")])
    table = gs.fitted_slopes(slopes, coefficients).set_index("setting")
    assert table.loc["no_effect", "rusakov_geiger"] == 2.5
    assert np.isnan(table.loc["autoclass", "rusakov_geiger"])
    assert "rusakov_geiger" not in gs.fitted_slopes(slopes)  # unchanged without coefficients
    row = table.loc["no_effect"]
    assert gs.rusakov_geiger_verdict(row.slope, row.slope_se, 2.5) == \
        "consistent with our R-G coefficient 2.5 (2 SE)"
    # the same data against the regular point's 4.5: the counterfactual fails
    assert gs.rusakov_geiger_verdict(row.slope, row.slope_se, 4.5) == \
        "below our R-G coefficient 4.5 by more than 2 SE"
    assert gs.rusakov_geiger_verdict(5.0, 0.1, 4.5).startswith("above")
    text = gs.findings(pd.DataFrame(), pd.DataFrame(), slopes, rusakov_geiger=coefficients)
    assert "ours (`rusakov_geiger_coefficient`; column `rusakov_geiger`), computed by tempered " \
           "sampling" in text and "so the values are not checked against its statement" in text
    assert "no_effect (the hidden root has no effect): 2.5; over all N 2.50 ± 0.06, consistent " \
           "with our R-G coefficient 2.5 (3.18 SE, t with 3 df), detecting a difference of 0.21 " \
           "or more; for N >= 1600" in text
    assert "regular (a regular point): 4.5; over all N 2.50 ± 0.06, below our R-G coefficient " \
           "4.5 by more than 3.18 SE, t with 3 df, detecting a difference of 0.21 or more; " \
           "for N" in text
    assert "cannot tell them apart" not in text
    # a wide spread: consistent with 2.5 and with the regular point's 4.5, which it says
    wide = gs.findings(pd.DataFrame(), pd.DataFrame(), pd.concat(
        [synthetic(3.0, "no_effect", spread=(-1.5, -0.5, 0.5, 1.5)), synthetic(2.5, "regular")]),
        rusakov_geiger=coefficients)
    assert "no_effect (the hidden root has no effect): 2.5; over all N 3.00 ± 0.65, consistent " \
           "with our R-G coefficient 2.5 (3.18 SE, t with 3 df), detecting a difference of 2.05 " \
           "or more; consistent with 4.5 too (another type's coefficient): it cannot tell them " \
           "apart" in wide
    # the coefficients scaled by the regular controls' shortfall of their own d/2 (0.94 here):
    # the slope at the coefficient fails the scaled value, a slope at the scaled value passes
    assert re.search(r"the regular control's slope is 0\.94 ± 0\.\d\d of its own d/2", text)
    assert "not to the singular part" in text and "a heuristic, not a prediction" in text
    assert "no_effect 2.36 ± 0.03, slope 2.50 ± 0.06: above it by more than 2 combined SE; " \
           "regular is a control itself." in text
    scaled = gs.findings(pd.DataFrame(), pd.DataFrame(), pd.concat(
        [synthetic(2.36, "no_effect"), synthetic(2.5, "regular"), synthetic(6.0, "autoclass")]),
        rusakov_geiger=coefficients)
    # within noise of the unscaled 2.5 as well: the slopes do not tell scaling from none
    assert "no_effect 2.36 ± 0.03, slope 2.36 ± 0.06: consistent with it, and with the unscaled " \
           "2.5 too (above): these slopes do not tell the heuristic's scaling from none" in scaled
    tight = gs.findings(pd.DataFrame(), pd.DataFrame(), pd.concat(
        [synthetic(2.36, "no_effect", spread=(-0.03, -0.01, 0.01, 0.03)),
         synthetic(2.5, "regular"), synthetic(6.0, "autoclass")]), rusakov_geiger=coefficients)
    assert "slope 2.36 ± 0.01: consistent with it;" in tight and "unscaled" not in tight
    assert "regular control's slope" not in gs.findings(
        pd.DataFrame(), pd.DataFrame(), slopes[slopes.setting == "no_effect"],
        rusakov_geiger=coefficients)
    assert "autoclass: does not apply (3 states)." in text
    # a singular truth is no regular control, though de = ds, and is judged by its coefficient
    assert "Regular controls (autoclass, regular, de = ds)" in text
    assert "agrees with it in 1 of 1 (no_effect): no_effect consistent with our R-G " \
           "coefficient 2.5" in text


def test_the_coefficients_against_exact_evidence_and_tempered_sampling():
    """n = 3: the tempered slope N E_N[K] meets the exact evidence's slope at small N and levels
    off at each type's coefficient (the alternatives differ by 0.25 or more: (n + 1)/2 = 2 and
    3n/4 = 2.25 for the root without effect; (2n - 1)/2 = 2.5 and ds/2 = 3.5 for the others)."""
    ladder = np.geomspace(1, 1e5, 31)
    for features, kind, dependent, q in bench.CASES[:3]:
        expected, _ = coefficient(bench.truth_spec(features, dependent), parse_spec("2:2,2,2"))
        means, _ = bench.tempered_slopes(q, ladder, replicas=3, iterations=6000, seed=1)
        assert means[ladder >= 1e3].mean() == pytest.approx(expected, abs=0.1), kind
        if kind == "no effect":  # the exact slope from 32 to 64 cases, and the tempered there
            exact = (bench.exact_penalty(q, 64) - bench.exact_penalty(q, 32)) / np.log(2)
            between = (ladder >= 32) & (ladder <= 64)
            assert means[between].mean() == pytest.approx(exact, abs=0.06)
            assert exact < expected - 0.1  # not yet asymptotic at these N
