"""The machinery of the sBIC vignette benchmark (``python -m benchmarks sbic_vignette``) on a few
data sets: the generating model, the choices and the test that compares two tables."""

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest, chi2_contingency

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import bench_sbic_vignette as vignette  # noqa: E402


def test_the_generating_model_is_the_vignettes():
    network, cpts = vignette.generating_parameters()
    assert network.cardinalities == (4,) + (2,) * 8
    # the vignette's P, row by row: p1 = 0.85 marks the class, p2 = 0.1 and p3 = 0.2 elsewhere
    p1, p2, p3 = 0.85, 0.1, 0.2
    expected = [[p1, p2, p2, p2], [p1, p3, p3, p3], [p2, p1, p2, p2], [p3, p1, p3, p3],
                [p2, p2, p1, p2], [p3, p3, p1, p3], [p2, p2, p2, p1], [p3, p3, p3, p1]]
    assert np.array_equal([table[:, 0] for table in cpts[1:]], expected)
    assert np.array_equal(cpts[0], [[0.25] * 4])
    assert all(sum(column) == 100 for column in vignette.VIGNETTE_TABLE.values())


def test_choices_are_the_best_model_of_each_criterion_on_a_few_data_sets():
    chosen = vignette.choices(replicates=2, max_classes=3, phis=(4.0, 40.0), n_cases=50)
    assert set(chosen) == {"BIC", "sBIC4", "sBIC40"}
    assert all(len(c) == 2 and set(c) <= {1, 2, 3} for c in chosen.values())
    assert vignette.frequencies(chosen["BIC"], 3) == tuple(
        chosen["BIC"].count(k) for k in (1, 2, 3))


def test_the_homogeneity_test_and_intervals_match_independent_computations():
    rng = np.random.default_rng(0)
    # a column without counts leaves the test (scipy refuses its expected counts of 0)
    table = np.array([[38, 42, 20, 0], [30, 50, 15, 0]])
    assert vignette.chi_square(table) == pytest.approx(
        chi2_contingency(table[:, :3], correction=False).statistic)
    # two equal tables: the statistic is 0, every permutation is as extreme
    assert vignette.homogeneity_p_value([38, 42, 20], [38, 42, 20], rng, 200) == 1.0
    # disjoint supports: no permutation is as extreme as the data
    assert vignette.homogeneity_p_value([100, 0, 0], [0, 0, 100], rng, 200) == 1 / 201
    # large counts: the permutation p-value is the chi-square distribution's
    ours, theirs = np.array([300, 330, 370]), np.array([330, 320, 350])
    asymptotic = chi2_contingency(np.vstack([ours, theirs]), correction=False).pvalue
    assert vignette.homogeneity_p_value(ours, theirs, rng, 4000) == pytest.approx(asymptotic,
                                                                                  abs=0.03)
    low, high = vignette.wilson_interval(38, 100)
    reference = binomtest(38, 100).proportion_ci(method="wilson")
    assert (low, high) == pytest.approx((reference.low, reference.high), abs=1e-6)


def test_the_report_states_each_columns_verdict():
    chosen = {name: [k for k, count in enumerate(column, 1) for _ in range(count)]
              for name, column in vignette.VIGNETTE_TABLE.items()}
    lines = vignette.comparison_lines(chosen, permutations=200)
    assert lines[-1] == ("verdict: 6 of 6 columns agree with the vignette within Monte-Carlo "
                         "error")
    assert "sBIC4 chooses 4: ours 75/100 (95% Wilson 66-82%), vignette 75/100" in lines
