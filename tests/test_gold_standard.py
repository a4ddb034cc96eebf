"""The gold-standard experiment's bookkeeping: slopes, Delta c, errors, verdicts and findings."""

import numpy as np
import pandas as pd
import pytest

from hiddenbn.experiments import gold_standard as gs


def synthetic_slopes(slope, replicates=4, noise=0.05, seed=0, setting="toy",
                     sizes=(100, 200, 400, 800, 1600, 3200)):
    rng = np.random.default_rng(seed)
    rows = []
    for replicate in range(1, replicates + 1):
        for n in sizes:
            gap = 3.0 + slope * np.log(n) + rng.normal(0, noise)
            rows.append({"setting": setting, "replicate": replicate, "cases": n, "ds": 14,
                         "de": 13, "log_likelihood": -n * 1.0, "gold": -n * 1.0 - gap,
                         "gold_se": 0.1, "cs": -n - gap + 1.0, "cs_plus": -n - gap + 0.5,
                         "bic": -n - gap - 2.0, "bic_plus": -n - gap - 1.0})
    return pd.DataFrame(rows)


def test_fitted_slope_recovers_a_known_slope():
    table = gs.fitted_slopes(synthetic_slopes(6.5)).iloc[0]
    assert table["slope"] == pytest.approx(6.5, abs=0.05)
    assert table["slope_upper"] == pytest.approx(6.5, abs=0.1)
    assert table["upper_from_N"] == 800
    assert (table["ds_half"], table["de_half"]) == (7.0, 6.5)
    assert 0 < table["slope_se"] < 0.05


def test_each_setting_has_its_own_sizes_and_asymptotic_end():
    slopes = pd.concat([synthetic_slopes(6.5),
                        synthetic_slopes(2.0, setting="small", sizes=(100, 400, 1600, 6400))])
    table = gs.fitted_slopes(slopes).set_index("setting")
    assert table.loc["toy", "upper_from_N"] == 800 and table.loc["small", "upper_from_N"] == 1600
    assert table.loc["small", "slope_upper"] == pytest.approx(2.0, abs=0.1)


def test_slope_verdicts():
    assert gs.slope_verdict(6.5, 0.1, 7.0, 6.5) == "consistent with de/2 (2 SE)"
    assert gs.slope_verdict(6.8, 0.2, 7.0, 6.5) == "consistent with de/2 and ds/2 (2 SE)"
    assert gs.slope_verdict(4.0, 0.3, 7.0, 6.5).startswith("below both")
    assert gs.slope_verdict(8.0, 0.3, 7.0, 6.5).startswith("above both")


def test_delta_c_against_the_gold_standard_and_laplace():
    states = [2, 3, 4]
    frame = pd.DataFrame({
        "experiment": "e", "replicate": 1, "hidden_states": states,
        "gold": [-10.0, -5.0, -6.0], "gold_se": [0.5, 0.5, 0.5],
        "laplace": [-9.0, -8.0, -7.0],      # picks 4
        "bic": [-1.0, -2.0, -3.0],          # picks 2
        "cs": [-3.0, -1.0, -2.0], "cs_plus": [-3.0, -1.0, -2.0], "mled": [0.0, 1.0, 2.0],
        "draper": [0.0, 0.0, -1.0], "bic_plus": [np.nan] * 3})
    row = gs.selection_errors(frame, ["experiment", "replicate"]).iloc[0]
    assert row["gold_states"] == 3
    assert row["gold_margin_se"] == pytest.approx(1.0 / np.hypot(0.5, 0.5))
    assert (row["bic_vs_gold"], row["laplace_vs_gold"], row["mled_vs_gold"]) == (-1, 1, 1)
    assert (row["bic_vs_laplace"], row["cs_vs_laplace"]) == (-2, -1)
    assert "bic_plus_vs_gold" not in row.index and "gold_few_runs" not in row.index
    for runs, few in (([8.0, 1.5, 8.0], True), ([8.0, 8.0, 1.5], True), ([1.0, 8.0, 8.0], False)):
        row = gs.selection_errors(frame.assign(gold_effective_runs=runs),
                                  ["experiment", "replicate"]).iloc[0]
        assert row["gold_few_runs"] == few  # the best (3 states) or the runner-up (4) only


def test_score_errors_and_the_cs_plus_comparison():
    slopes = synthetic_slopes(5.0, replicates=2)
    comparison = gs.cs_plus_comparison(slopes)
    assert np.allclose(comparison["abs_cs"], 1.0) and np.allclose(comparison["abs_cs_plus"], 0.5)
    assert comparison["cs_plus_closer"].all()
    frame = slopes.assign(hidden_states=3, laplace=slopes["gold"] + 0.25, mled=slopes["gold"],
                          draper=slopes["gold"] - 4.0)
    errors = gs.score_errors(frame, ["setting"]).iloc[0]
    assert errors["laplace_mean"] == pytest.approx(0.25)
    assert errors["bic_mean"] == pytest.approx(-2.0)
    assert errors["draper_std"] == pytest.approx(0.0)


def test_findings_state_each_experiment():
    slopes = synthetic_slopes(6.5)
    text = gs.findings(pd.DataFrame(), pd.DataFrame(), slopes)
    assert "## 3. The penalty" in text and "toy (ds/2 = 7, de/2 = 6.5)" in text
    assert "consistent with de/2 (2 SE)" in text
    assert "CS+ is closer to the gold standard than CS in 24 of 24 fits" in text


def test_findings_count_the_estimates_that_rest_on_few_runs():
    paper = pd.DataFrame({"hidden_states": [2, 3, 4, 5, 6], "generating_states": 4,
                          "gold_effective_runs": [1.0, 1.9, 1.2, 2.0, 7.5]})
    line, = gs._run_agreement_lines(paper)
    assert "3 of 5 estimates rest on fewer than 2 effective runs" in line
    assert "2 of 2 with fewer hidden states than the generating model; 1 of 3 with as many" \
        in line
    assert gs._run_agreement_lines(paper.drop(columns="gold_effective_runs")) == []


def test_exact_cell_on_a_tiny_setting():
    section = {"hidden_states": 2, "features": 4, "cases": 8, "test_states": {"min": 1, "max": 2}}
    em = {"restarts": 4, "tolerance": 1e-5, "max_iterations": 50,
          "run_all_iterations": False}
    table = gs.exact_cell(section, em, 1.01, {"runs": 6, "particles": 32}, seed=3)
    assert list(table["hidden_states"]) == [1, 2]
    assert np.all(np.abs(table["gold"] - table["exact"]) <= 4 * table["gold_se"] + 1e-9)
    assert table.loc[0, "gold_se"] < 1e-9  # one hidden state: nothing to sample
    assert table.loc[0, "gold_effective_runs"] == pytest.approx(6.0)
    for score in gs.SCORES:
        assert np.isfinite(table.loc[1, score]) or score == "laplace"


def test_paper_003_claims_against_the_gold_standard():
    """Curves -(k - peak)^2 over k = 2..6: the gold peaks at 4; BIC at 2, Draper at 3, CS and
    MLED at 5, Laplace at 4, as paper 003 says they err; the checks then agree with it."""
    rows = []
    peaks = {"gold": 4, "laplace": 4, "cs": 5, "mled": 5, "draper": 3, "bic": 2,
             "cs_plus": 5, "bic_plus": 2}
    for experiment, c in (("a", 4), ("b", 16)):
        for replicate in (1, 2):
            for k in range(2, 7):
                row = {"experiment": experiment, "replicate": replicate, "hidden_states": k,
                       "features": 8, "generating_states": c, "cases": 400, "gold_se": 0.1}
                row.update({s: -float((k - p) ** 2) for s, p in peaks.items()})
                rows.append(row)
    paper = pd.DataFrame(rows)
    table = gs.table1_against_gold(paper)
    assert table.set_index("experiment").loc["a", ["cs_mean", "draper_mean", "bic_mean",
                                                    "laplace_mean"]].tolist() == [1, -1, -2, 0]
    verdicts = {r["item"]: r["verdict"] for r in gs.paper003_verdict_rows(paper)}
    assert verdicts["BIC/MDL is the least accurate and biased toward simple models."] == \
        "reproduced"
    assert verdicts["Laplace is the most accurate approximation (paper 003's assumption, Sec. 3)"] \
        == "reproduced"
    assert verdicts["For large c, Draper does better than CS."] == "not reproduced"


def test_paper_cell_in_parts_gives_the_whole(tmp_path):
    """A data set's test models split over jobs: the parts together are the one-job table, each
    test model's estimate the same (its seed depends on the test model alone)."""
    from hiddenbn.data import Dataset, write_csv

    rng = np.random.default_rng(5)
    features = 3
    data = Dataset.from_rows([f"X{i}" for i in range(1, features + 1)],
                             rng.integers(0, 2, size=(12, features)), [2] * features)
    write_csv(tmp_path / "data.csv", data)
    fits = pd.DataFrame([{"experiment": "toy", "replicate": 1, "protocol": protocol,
                          "hidden_states": c, "log_likelihood": -30.0 - c, "de": 2 * c,
                          "cs_de": -35.0 - c}
                         for c in (1, 2, 3) for protocol in ("paper", "search")])
    fits.to_csv(tmp_path / "fits.csv", index=False)
    smc = {"runs": 2, "particles": 8, "moves": 1}

    def cell(part, parts):
        return gs.paper_cell(tmp_path / "data.csv", tmp_path / "fits.csv", features, 1.0, smc,
                             seed=11, part=part, parts=parts)

    whole = cell(1, 1)
    parts = [cell(1, 2), cell(2, 2)]
    assert sorted(parts[0]["hidden_states"].unique()) == [1, 3]
    assert sorted(parts[1]["hidden_states"].unique()) == [2]
    joined = pd.concat(parts).sort_values(["hidden_states", "protocol"], ignore_index=True)
    pd.testing.assert_frame_equal(joined, whole.sort_values(["hidden_states", "protocol"],
                                                            ignore_index=True))
