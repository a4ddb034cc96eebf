"""Paper 004 Sec. 5 study: config checks, posteriors, and the quick study end to end."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import meek_heckerman1997 as mh
from hiddenbn.noisy_max import effect_distribution

ROOT = Path(__file__).resolve().parents[1]
QUICK = yaml.safe_load((ROOT / "config" / "quick.yaml").read_text())
SECTION = QUICK["meek_heckerman1997"]
STRUCTURES = SECTION["models"]
PRINTED = ROOT / "workflow" / "resources" / "meek_heckerman1997" / "dimensions.yaml"
PRINTED_TABLE1 = yaml.safe_load(PRINTED.read_text())["table1"]


def test_quick_config_is_valid_and_parameters_build_the_tables():
    mh.check_config(SECTION)
    model = mh.study_models(STRUCTURES)["F2"]
    cpts = mh.generating_parameters(SECTION, model, "F2")
    assert [None if t is None else t.shape for t in cpts] == [(1, 2)] * 3 + [(4, 2), (2, 2), None]
    # p(E = 1 | C1 = C2 = 1, C3 = 0) = p(X1 = 1 | 11) or p(X2 = 1 | 0), independently
    x1, x2 = SECTION["parameters"]["F2"][0][3], SECTION["parameters"]["F2"][1][0]
    assert effect_distribution(model, cpts)[0b110, 1] == pytest.approx(1 - (1 - x1) * (1 - x2))


@pytest.mark.parametrize("edit, message", [
    (lambda s: s["parameters"]["F2"].pop(), "2 mechanisms, the config gives 1"),
    (lambda s: s["parameters"]["F3"][0].pop(), "needs 4 probabilities"),
    (lambda s: s["parameters"].pop("F5"), "no entry for model 'F5'"),
    (lambda s: s.update(segments=[100, 5000]), "longer than the data set"),
    (lambda s: s.update(cause_probabilities=[0.5, 0.5]), "cause_probabilities has 2"),
])
def test_config_errors_name_the_key(edit, message):
    section = yaml.safe_load(yaml.safe_dump(SECTION))
    edit(section)
    with pytest.raises(HiddenbnError, match=message):
        mh.check_config(section)


def test_posterior_is_the_normalised_exponential():
    scores = np.array([-1000.0, -1001.0, -1003.5])
    expected = np.exp(scores + 1000) / np.exp(scores + 1000).sum()
    np.testing.assert_allclose(mh.posterior(scores), expected)


def test_replicate_summary_leaves_out_the_paper_data_set():
    rows = []
    for replicate, value in enumerate([0.9, 0.2, 0.4, 0.6]):
        rows.append({"generator": "F1", "replicate": replicate, "N": 100, "model": "F1",
                     **{f"posterior_{v}": value for v in mh.VARIANTS}})
    summary = mh.replicate_summary(pd.DataFrame(rows))
    computed = summary[summary.variant == "computed"].iloc[0]
    assert computed["mean"] == pytest.approx(0.4)
    assert computed["data_sets"] == 3
    assert computed["low"] == pytest.approx(np.quantile([0.2, 0.4, 0.6], 0.1))


@pytest.fixture(scope="module")
def quick_study(tmp_path_factory):
    """The quick configuration's study, run in-process as the pipeline runs it."""
    directory = tmp_path_factory.mktemp("mh97")
    table1 = directory / "table1.csv"
    mh.meek_heckerman_table1(STRUCTURES, PRINTED_TABLE1, SECTION["jacobian_points"], 0).to_csv(
        table1, index=False)
    score_files = []
    for generator in STRUCTURES:
        seeds = [1000 + r for r in range(SECTION["replicates"] + 1)]
        score_files.append(directory / "tables" / f"scores_{generator}.csv")
        score_files[-1].parent.mkdir(parents=True, exist_ok=True)
        mh.run_generator(SECTION, STRUCTURES, generator, seeds, table1, score_files[-1],
                         directory / "data" / f"{generator}.csv")
    mh.write_report(SECTION, STRUCTURES, table1, score_files, directory)
    return directory, pd.concat([pd.read_csv(f) for f in score_files])


def test_quick_study_scores_every_model_on_every_segment(quick_study):
    _, scores = quick_study
    n_models = len(STRUCTURES)
    data_sets = SECTION["replicates"] + 1
    assert len(scores) == n_models * data_sets * len(SECTION["segments"]) * n_models
    assert scores.converged.mean() > 0.95  # the rest stopped at max_iterations (reported)
    for variant in mh.VARIANTS:
        totals = scores.groupby(["generator", "replicate", "N"])[f"posterior_{variant}"].sum()
        np.testing.assert_allclose(totals, 1.0)
    # the three variants share the fits: they differ only by (d_printed - d_computed)/2 log N
    table1 = mh.meek_heckerman_table1(STRUCTURES, PRINTED_TABLE1, 1, 0).set_index("model")
    gap = scores.cs_computed - scores.cs_printed
    expected = 0.5 * (table1.loc[scores.model, "paper dimension"].to_numpy()
                      - table1.loc[scores.model, "dimension"].to_numpy()) * np.log(scores.N)
    np.testing.assert_allclose(gap, expected, atol=1e-9)


def test_quick_study_writes_the_report(quick_study):
    directory, _ = quick_study
    comparison = (directory / "comparison.md").read_text()
    for heading in ("## Table 1: dimensions", "## Claim: mass accumulates",
                    "## Claim: the F1 anomaly", "## Claim: with the unadjusted dimension",
                    "## Not checked"):
        assert heading in comparison
    assert "**Verdict: differs for F2.** F2: ours 8, printed 7" in comparison
    assert "EM reached its tolerance in" in comparison
    assert "## Claim: F5 could also be represented as a full table" in comparison
    larger = pd.read_csv(directory / "tables" / "effect_state_dimensions.csv")
    assert set(larger["effect states"]) == {2, 3, 4}
    assert (larger.dimension <= larger.unadjusted).all()
    for name in ("figure5", "figure5_replicates", "models"):
        assert (directory / "figures" / f"{name}.png").stat().st_size > 10_000
    data = pd.read_csv(directory / "data" / "F1.csv")
    assert list(data.columns) == ["C1", "C2", "C3", "E"] and len(data) == SECTION["cases"]
