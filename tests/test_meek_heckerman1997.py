"""Paper 004 Sec. 5 study: config checks, posteriors, and the quick study end to end."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import meek_heckerman1997 as mh
from hiddenbn.interaction.noisy_max import effect_distribution

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
        rows.append({"generator": "F1", "parameters": "hand-chosen", "replicate": replicate,
                     "N": 100, "model": "F1", **{f"posterior_{v}": value for v in mh.VARIANTS}})
    rows.append({**rows[-1], "parameters": "random", "replicate": 1, "posterior_computed": 0.0})
    summary = mh.replicate_summary(pd.DataFrame(rows))
    computed = summary[(summary.variant == "computed") & (summary.parameters == "hand-chosen")]
    assert computed.iloc[0]["mean"] == pytest.approx(0.4)
    assert computed.iloc[0]["data_sets"] == 3
    assert computed.iloc[0]["low"] == pytest.approx(np.quantile([0.2, 0.4, 0.6], 0.1))
    drawn = summary[(summary.variant == "computed") & (summary.parameters == "random")]
    assert drawn.iloc[0]["mean"] == 0.0 and drawn.iloc[0]["data_sets"] == 1


def test_random_parameters_are_drawn_per_data_set_within_0_and_1():
    model = mh.study_models(STRUCTURES)["F4"]
    first = mh.random_generating_parameters(SECTION, model, np.random.default_rng(1))
    second = mh.random_generating_parameters(SECTION, model, np.random.default_rng(2))
    assert [t.shape for t in first[3:-1]] == [(4, 2)] * 3
    assert not np.allclose(first[3], second[3])
    for table in first[:-1]:
        np.testing.assert_allclose(table.sum(axis=1), 1.0)
        assert ((table > 0) & (table < 1)).all()


@pytest.fixture(scope="module")
def quick_study(tmp_path_factory):
    """The quick configuration's study, run in-process as the pipeline runs it."""
    directory = tmp_path_factory.mktemp("mh97")
    table1 = directory / "table1.csv"
    mh.meek_heckerman_table1(STRUCTURES, PRINTED_TABLE1, SECTION["jacobian_points"], 0).to_csv(
        table1, index=False)
    alternatives = directory / "alternatives.csv"
    ALTERNATIVES.to_csv(alternatives, index=False)
    score_files = []
    for generator in STRUCTURES:
        seeds = [1000 + r for r in range(SECTION["replicates"] + 1)]
        random_seeds = [5000 + r for r in range(SECTION["random_parametrisations"])]
        score_files.append(directory / "tables" / f"scores_{generator}.csv")
        score_files[-1].parent.mkdir(parents=True, exist_ok=True)
        mh.run_generator(SECTION, STRUCTURES, generator, seeds, table1, score_files[-1],
                         directory / "data" / f"{generator}.csv", random_seeds)
    mh.write_report(SECTION, STRUCTURES, table1, alternatives, score_files, directory, 7)
    return directory, pd.concat([pd.read_csv(f) for f in score_files])


def test_quick_study_scores_every_model_on_every_segment(quick_study):
    _, scores = quick_study
    n_models = len(STRUCTURES)
    data_sets = SECTION["replicates"] + 1 + SECTION["random_parametrisations"]
    assert len(scores) == n_models * data_sets * len(SECTION["segments"]) * n_models
    assert set(scores.parameters) == set(mh.PARAMETER_KINDS)
    assert scores.converged.mean() > 0.95  # the rest stopped at max_iterations (reported)
    for variant in mh.VARIANTS:
        totals = scores.groupby(["generator", "parameters", "replicate", "N"])[
            f"posterior_{variant}"].sum()
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
                    "## Claim: the F1 exception", "## Claim: with the unadjusted dimension",
                    "## Claim: similar results", "## Not checked", "### Figure 5: ",
                    "### Beyond the paper: parameters chosen at random",
                    "### Figures 1, 2 and 4: the models"):
        assert heading in comparison
    assert "**Verdict: differs for F2.** F2: ours 8, printed 7" in comparison
    assert "EM reached its tolerance in" in comparison
    assert "## Claim: F5 could also be represented as a full table" in comparison
    larger = pd.read_csv(directory / "tables" / "state_dimensions.csv")
    assert set(zip(larger["cause states"], larger["effect states"])) == set(mh.STATE_COUNTS)
    assert (larger.dimension <= larger.unadjusted).all()
    sensitivity = pd.read_csv(directory / "tables" / "cs_alpha_sensitivity.csv")
    assert sorted(set(sensitivity["cs alpha"])) == [0.5, 1.0, 2.0]
    assert "## CS's Dirichlet alpha: the posterior claims under each" in comparison
    assert mh.FIGURE5_JOINT_ITEM in set(sensitivity.claim)
    assert "Figure 5 as a whole (the accumulation and the F1 exception together)" in comparison
    verdicts = pd.read_csv(directory / "verdicts.csv")
    for item in (mh.ACCUMULATION_ITEM, mh.F1_EXCEPTION_ITEM):
        assert "Figure 5 as a whole" in verdicts.set_index("item").loc[item, "choices"]
    posterior_items = set(sensitivity.claim) - {mh.FIGURE5_JOINT_ITEM}
    for row in verdicts[verdicts["item"].isin(posterior_items)].itertuples():
        assert "CS's Dirichlet alpha" in row.choices
        constructed = set(sensitivity[sensitivity.claim == row.item].verdict) == {
            "consistent by construction"}
        assert ("reproduced under alpha" in row.choices) != constructed
    for name in ("figure5", "figure5_replicates", "figure5_random", "models"):
        assert (directory / "figures" / f"{name}.png").stat().st_size > 10_000
    data = pd.read_csv(directory / "data" / "F1.csv")
    assert list(data.columns) == ["C1", "C2", "C3", "E"] and len(data) == SECTION["cases"]


# --- every claim check fails where its claim is false ---------------------------------------
GENERATORS = ("F1", "F2", "F3", "F4", "F5")
SIZES = (100, 1600)


def summary_of(generating, others=None, parameters="hand-chosen", variant="computed"):
    """A replicate summary where the generating model's mean posterior is ``generating[g]``
    (one value per N in SIZES) and ``others[g]`` names another model with its means."""
    others = others or {}
    rows = []
    for g in GENERATORS:
        means = {g: generating[g], **({others[g][0]: others[g][1]} if g in others else {})}
        rest = [m for m in GENERATORS if m not in means]
        for i, n in enumerate(SIZES):
            left = 1.0 - sum(v[i] for v in means.values())
            for model in GENERATORS:
                mean = means[model][i] if model in means else left / len(rest)
                rows.append({"parameters": parameters, "generator": g, "N": n, "model": model,
                             "variant": variant, "mean": mean, "low": mean, "high": mean,
                             "data_sets": 20})
    return pd.DataFrame(rows)


#: What the paper says Figure 5 shows: mass accumulates on every generator but F1, whose mass
#: goes to F2.
PAPER_FIGURE5 = {"F1": (0.3, 0.2), "F2": (0.4, 0.8), "F3": (0.3, 0.7), "F4": (0.3, 0.6),
                 "F5": (0.5, 0.9)}


def test_accumulation_holds_as_the_paper_says_and_fails_where_mass_leaves():
    paper = summary_of(PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))})
    assert mh.accumulation_row(paper)["verdict"] == "reproduced"
    falling = summary_of({**PAPER_FIGURE5, "F3": (0.5, 0.4)}, {"F1": ("F2", (0.5, 0.7))})
    row = mh.accumulation_row(falling)
    assert row["verdict"] == "partly reproduced" and "F3" in row["explanation"]
    beaten = summary_of({**PAPER_FIGURE5, "F4": (0.2, 0.3)}, {"F4": ("F5", (0.3, 0.6))})
    assert mh.accumulation_row(beaten)["verdict"] == "partly reproduced"
    nowhere = summary_of({g: (0.5, 0.1) for g in GENERATORS})
    assert mh.accumulation_row(nowhere)["verdict"] == "not reproduced"
    # a posterior that has settled near 1 still accumulates
    settled = summary_of({**PAPER_FIGURE5, "F5": (1.0, 1.0)}, {"F1": ("F2", (0.5, 0.7))})
    assert mh.accumulation_row(settled)["verdict"] == "reproduced"


def loglik_scores(larger_model, smaller_model, generator, gap=0.5, cs_gaps=(0.0, 0.0)):
    """Fits of ``generator``'s data sets in which ``larger_model`` fits ``gap`` nats better
    than ``smaller_model``, and the unadjusted CS gap larger - smaller is ``cs_gaps`` by N."""
    rows = []
    for replicate in (1, 2):
        for n, cs_gap in zip(SIZES, cs_gaps):
            rows += [{"generator": generator, "parameters": "hand-chosen",
                      "replicate": replicate, "N": n, "model": smaller_model, "loglik": -100.0,
                      "cs_unadjusted": -110.0},
                     {"generator": generator, "parameters": "hand-chosen",
                      "replicate": replicate, "N": n, "model": larger_model,
                      "loglik": -100.0 + gap, "cs_unadjusted": -110.0 + cs_gap}]
    return pd.DataFrame(rows)


TABLE1 = mh.meek_heckerman_table1(STRUCTURES, PRINTED_TABLE1, 1, 0)


def f1_fits(posteriors):
    """Fits of F1's data sets (F2 fits 0.5 nats better than F1, :func:`loglik_scores`) with each
    model's posterior with our dimensions per data set: ``posteriors[model]``, one value per
    data set (the same at every N; models not given share the rest)."""
    rows = []
    replicates = len(next(iter(posteriors.values())))
    for replicate in range(1, replicates + 1):
        given = {m: v[replicate - 1] for m, v in posteriors.items()}
        rest = (1.0 - sum(given.values())) / (len(GENERATORS) - len(given))
        for n in SIZES:
            rows += [{"generator": "F1", "parameters": "hand-chosen", "replicate": replicate,
                      "N": n, "model": m, "loglik": -99.5 if m == "F2" else -100.0,
                      "cs_unadjusted": -110.0, "posterior_computed": given.get(m, rest)}
                     for m in GENERATORS]
    return pd.DataFrame(rows)


#: F1's data sets as the paper describes them: F2 takes the mass, clearly ahead of F1.
F2_AHEAD = {"F1": (0.2, 0.25, 0.15, 0.2), "F2": (0.7, 0.65, 0.75, 0.7)}


def test_f1_exception_holds_where_f2_takes_the_mass_and_fails_where_f1_keeps_it():
    printed = summary_of(PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))}, variant="printed")
    paper = pd.concat([summary_of(PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))}), printed])
    assert mh.f1_exception_row(paper, f1_fits(F2_AHEAD), TABLE1)["verdict"] == "reproduced"
    ours = pd.concat([summary_of({**PAPER_FIGURE5, "F1": (0.3, 0.8)}), printed])
    row = mh.f1_exception_row(ours, f1_fits({"F1": (0.8, 0.85, 0.75, 0.8)}), TABLE1)
    assert row["verdict"] == "not reproduced"
    assert row["explanation"].startswith(
        "computed: F1 leads every other model beyond noise; F2's fitted log-likelihood is at "
        "least F1's in 8 of 8 fits of F1's data (its 4 independent data sets at each of the 2 N)")


def test_f1_exception_needs_f2_ahead_beyond_noise_and_every_other_generator_accumulating():
    printed = summary_of(PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))}, variant="printed")
    paper = pd.concat([summary_of(PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))}), printed])
    # F2 ahead of F1 on average, but the paired difference swings from data set to data set
    tie = f1_fits({"F1": (0.1, 0.6, 0.2, 0.4), "F2": (0.6, 0.1, 0.5, 0.3)})
    row = mh.f1_exception_row(paper, tie, TABLE1)
    assert row["verdict"] == "not decided"
    assert row["explanation"].startswith("computed: F2 leads within noise of F1 (a lead beyond 2")
    # F2 ahead beyond noise, but F3's data go to F5 (the run at CS alpha >= 2): not *the* one
    lost = pd.concat([summary_of({**PAPER_FIGURE5, "F3": (0.3, 0.1)},
                                 {"F1": ("F2", (0.5, 0.7)), "F3": ("F5", (0.3, 0.8))}), printed])
    row = mh.f1_exception_row(lost, f1_fits(F2_AHEAD), TABLE1)
    assert row["verdict"] == "not reproduced"
    assert "F1 is not the one exception: F3 (most probable F5) does not accumulate either" in \
        row["explanation"]
    # F1's data go to F3 beyond noise: the mass leaves F1, but not for F2
    elsewhere = pd.concat([summary_of(PAPER_FIGURE5, {"F1": ("F3", (0.5, 0.7))}), printed])
    row = mh.f1_exception_row(elsewhere, f1_fits({"F1": F2_AHEAD["F1"], "F3": F2_AHEAD["F2"]}),
                              TABLE1)
    assert row["verdict"] == "not reproduced"
    assert "F1's data go to F3, not to F2" in row["explanation"]


def test_nested_fits_count_the_data_sets_the_means_are_over():
    """F1's fits were counted with the paper's data set (105), F4's without it (100)."""
    scores = loglik_scores("F2", "F1", "F1")
    paper = loglik_scores("F2", "F1", "F1", gap=-1.0).assign(replicate=0)
    text = mh.nested_fits(pd.concat([scores, paper]), "F1", "F2", "F1")
    assert "in 4 of 4 fits of F1's data (its 2 independent data sets" in text
    worse = loglik_scores("F2", "F1", "F1", gap=-1.0)
    assert "in 0 of 4 fits" in mh.nested_fits(worse, "F1", "F2", "F1")
    assert "in 4 of 4 fits of F4's data" in mh.nested_fits(
        loglik_scores("F5", "F4", "F4"), "F4", "F5", "F4")


def test_figure5_as_a_whole_needs_both_statements_under_the_same_alpha():
    scores = f1_fits(F2_AHEAD)
    both = [summary_of(PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))}),
            summary_of(PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))}, variant="printed")]
    # what the paper says Figure 5 shows: both statements, so the figure as a whole
    paper = pd.concat(both)
    claims = [mh.accumulation_row(paper), mh.f1_exception_row(paper, scores, TABLE1)]
    assert mh.figure5_joint_row(paper, claims)["verdict"] == "reproduced"
    # the exception holds but F3 loses to F5 (the run at alpha >= 2): not the figure
    lost = pd.concat([summary_of({**PAPER_FIGURE5, "F3": (0.3, 0.1)},
                                 {"F1": ("F2", (0.5, 0.7)), "F3": ("F5", (0.3, 0.8))}), both[1]])
    claims = [mh.accumulation_row(lost), mh.f1_exception_row(lost, scores, TABLE1)]
    row = mh.figure5_joint_row(lost, claims)
    assert row["verdict"] == "not reproduced"
    assert "not accumulating: F3 (most probable F5)" in row["evidence"]
    assert row["explanation"] == ("computed: the accumulation is partly reproduced and the F1 "
                                  "exception is not reproduced")
    # F1 keeps its data (the run at alpha <= 1): not the figure either
    kept = pd.concat([summary_of({**PAPER_FIGURE5, "F1": (0.3, 0.8)}), both[1]])
    claims = [mh.accumulation_row(kept),
              mh.f1_exception_row(kept, f1_fits({"F1": (0.8, 0.85, 0.75, 0.8)}), TABLE1)]
    row = mh.figure5_joint_row(kept, claims)
    assert row["verdict"] == "not reproduced" and "F1 is most probable (80%)" in row["evidence"]


def test_figure5_joint_text_and_the_f1_explanation_name_their_alphas():
    def rows(alpha, accumulation, exception, evidence):
        return [{"cs alpha": alpha, "claim": mh.ACCUMULATION_ITEM, "verdict": accumulation,
                 "evidence": "", "explanation": ""},
                {"cs alpha": alpha, "claim": mh.F1_EXCEPTION_ITEM, "verdict": exception,
                 "evidence": "", "explanation": ""},
                {"cs alpha": alpha, "claim": mh.FIGURE5_JOINT_ITEM,
                 "verdict": "reproduced" if accumulation == exception == "reproduced"
                 else "not reproduced", "evidence": evidence, "explanation": ""}]
    run = pd.DataFrame(
        rows(1.0, "reproduced", "not reproduced", "with F1 generating, F1 is most probable "
             "(60%) with our dimensions; every other generator accumulates")
        + rows(4.0, "partly reproduced", "reproduced", "with F1 generating, F3 is most "
               "probable (48%) with our dimensions; not accumulating: F3 (most probable F5)"))
    assert mh.figure5_joint_text(run).startswith(
        "Figure 5 as a whole (the accumulation and the F1 exception together) is reproduced "
        "under alpha none of them: alpha 1, with F1 generating, F1 is most probable")
    # the F1 explanation per alpha follows the 2-SE rule: F1 ahead beyond noise keeps its data
    # (alpha 1); F2 ahead of F1 within noise (alpha 2, the run's) is not a departure; F3 and F2
    # ahead of F1 beyond noise, within noise of each other (alpha 4), is
    keeps = f1_fits({"F1": (0.6, 0.65, 0.55, 0.6), "F2": (0.2, 0.15, 0.25, 0.2)})
    within = f1_fits({"F2": (0.32, 0.5, 0.14, 0.32), "F1": (0.31, 0.12, 0.5, 0.31)})
    leaves = f1_fits({"F3": (0.48, 0.3, 0.66, 0.48), "F2": (0.39, 0.57, 0.21, 0.39),
                      "F1": (0.06, 0.05, 0.07, 0.06)})
    why = mh.f1_explanation_by_alpha({1.0: keeps, 2.0: within, 4.0: leaves})
    assert why == (
        "this holds at CS alpha 1; at alpha 2 F1 is within noise of the leader (a lead beyond 2 "
        "standard errors of the paired difference tells two models apart; alpha 2: F2 32%, "
        "F1 31%, within noise of each other); at alpha 4 it does not: F1's data leave F1 with "
        "our dimensions too (alpha 4: F1 6%; F3 48%, F2 39%, within noise of each other)")
    # the counterfactual: F2 ahead of F1 beyond noise at alpha 2 is a departure
    ahead = f1_fits({"F2": (0.5, 0.55, 0.45, 0.5), "F1": (0.2, 0.15, 0.25, 0.2)})
    assert mh.f1_explanation_by_alpha({2.0: ahead}) == (
        "this holds at CS alpha none; at alpha 2 it does not: F1's data leave F1 with our "
        "dimensions too (alpha 2: F1 20%; F2 50% most probable)")
    # an alpha under which both statements hold is named
    paper = pd.DataFrame(rows(2.0, "reproduced", "reproduced", "e"))
    assert "reproduced under alpha 2:" in mh.figure5_joint_text(paper)
    assert mh.figure5_joint_text(paper.iloc[:2]) == ""


def test_subset_is_consistent_by_construction_and_fails_for_a_model_that_is_not_a_superset():
    # our F2 was reconstructed to contain F1: that is no evidence for the paper's F2
    row = mh.subset_row(SECTION, STRUCTURES)
    assert row["verdict"] == "consistent by construction"
    assert "not tested" in row["explanation"]
    # a cause in two mechanisms still contains F1 (F3 does)
    assert mh.subset_row(SECTION, {**STRUCTURES, "F2": [[1, 2], [2, 3]]})["verdict"] == \
        "consistent by construction"
    # an F2 in which C3 has no mechanism cannot give F1's distribution
    row = mh.subset_row(SECTION, {**STRUCTURES, "F2": [[1, 2], [2]]})
    assert row["verdict"] == "not reproduced" and "a cause has no mechanism" in row["explanation"]


ALTERNATIVES = mh.nine_parameter_structures(1, 0, PRINTED_TABLE1["F2"]["unadjusted"])


def test_binary_only_is_not_applicable_without_an_f2_of_f1s_dimension():
    def table(f1, f2):
        return pd.DataFrame([{"cause states": c, "effect states": e, "model": m, "dimension": d}
                             for (c, e), a, b in zip(((2, 2), (2, 3), (3, 2)), f1, f2)
                             for m, d in (("F1", a), ("F2", b))])

    # ours: every admissible F2 (a 9-parameter structure other than F1's) has dimension 8
    row = mh.binary_only_row(table((7, 11, 9), (8, 13, 10)), ALTERNATIVES, STRUCTURES)
    assert row["verdict"] == "not checked" and row["explanation"].startswith("not applicable")
    # the paper's reading: an admissible F2 with F1's dimension, equal only when binary
    admissible = ALTERNATIVES.assign(dimension=7)
    assert mh.binary_only_row(table((7, 11, 9), (7, 13, 10)), admissible,
                              STRUCTURES)["verdict"] == "reproduced"
    row = mh.binary_only_row(table((7, 11, 9), (7, 13, 9)), admissible, STRUCTURES)
    assert row["verdict"] == "not reproduced" and "(3, 2)" in row["explanation"]


def test_state_dimensions_vary_the_causes_and_the_effect():
    dims = mh.state_dimensions(STRUCTURES, states=((2, 2), (3, 2)), points=1).set_index(
        ["cause states", "model"])
    assert dims.loc[(2, "F1"), "dimension"] == 7 and dims.loc[(2, "F2"), "dimension"] == 8
    # three 3-state causes: 6 cause parameters, each mechanism 3 rows
    assert dims.loc[(3, "F1"), "unadjusted"] == 6 + 9


def test_full_table_is_consistent_by_construction_and_fails_on_a_smaller_f5():
    paper = pd.DataFrame({"model": list(PRINTED_TABLE1),
                          "dimension": [v["dimension"] for v in PRINTED_TABLE1.values()]})
    assert mh.full_table_row(paper)["verdict"] == "consistent by construction"
    smaller = paper.assign(dimension=paper.dimension - (paper.model == "F5"))
    assert mh.full_table_row(smaller)["verdict"] == "not reproduced"


def test_unadjusted_holds_where_f5_pulls_away_and_fails_where_f4_keeps_up():
    unadjusted = {g: (0.2, 0.1) for g in GENERATORS}
    summary = pd.concat([summary_of(PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))}),
                         summary_of(unadjusted, {"F4": ("F5", (0.7, 0.9))},
                                    variant="unadjusted")])
    growing = loglik_scores("F5", "F4", "F4", cs_gaps=(3.0, 9.0))
    # implied by F5 containing F4 with the smaller unadjusted penalty: no evidence
    row = mh.unadjusted_row(growing, summary, TABLE1)
    assert row["verdict"] == "consistent by construction"
    assert "follow from the nesting and the parameter counts" in row["explanation"]
    shrinking = loglik_scores("F5", "F4", "F4", cs_gaps=(9.0, 3.0))
    assert mh.unadjusted_row(shrinking, summary, TABLE1)["verdict"] == "partly reproduced"
    f4_ahead = pd.concat([summary_of(PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))}),
                          summary_of({**unadjusted, "F4": (0.7, 0.8)}, {"F4": ("F5", (0.2, 0.1))},
                                     variant="unadjusted")])
    row = mh.unadjusted_row(shrinking, f4_ahead, TABLE1)
    assert row["verdict"] == "not reproduced" and "does not grow" in row["explanation"]


def both_dimensions(generating, others=None, printed=None, parameters="hand-chosen"):
    """:func:`summary_of` with our dimensions and with the printed ones (``printed``: the
    printed dimensions' ``(generating, others)``, by default the same as ours)."""
    printed = printed or (generating, others)
    return pd.concat([summary_of(generating, others, parameters),
                      summary_of(*printed, parameters, "printed")])


def scores_of(summary, spread=0.0):
    """Per-data-set posteriors with ``summary``'s means: two data sets, model ``F<k>``'s
    posterior ``k spread`` above its mean on one and below on the other, in opposite order
    for even ``k``, so that two models' paired difference has a standard error of at least
    ``spread``."""
    rows = [{"generator": r.generator, "parameters": r.parameters, "N": r.N, "model": r.model,
             "variant": f"posterior_{r.variant}", "replicate": replicate,
             "value": r.mean + sign * (-1) ** k * k * spread}
            for r in summary.itertuples() for k in [int(r.model[1:])]
            for replicate, sign in ((1, 1), (2, -1))]
    return pd.DataFrame(rows).pivot_table(
        index=["generator", "parameters", "replicate", "N", "model"], columns="variant",
        values="value").reset_index()


#: Our run: F1 keeps its data with our dimensions and goes to F2 with the printed ones.
OURS = ({**PAPER_FIGURE5, "F1": (0.3, 0.8)}, None, (PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))}))


def random_row(hand, drawn, spread=0.0):
    run = pd.concat([hand, drawn])
    return mh.random_parameters_row(run, scores_of(run, spread))


def test_random_parameters_hold_where_they_give_the_hand_chosen_pattern():
    hand = both_dimensions(*OURS)
    # the same pattern as the hand-chosen run, F1 keeping its data with our dimensions as there:
    # the F1 exception is judged by its own claim, not again here
    row = random_row(hand, both_dimensions(*OURS, parameters="random"))
    assert row["verdict"] == "reproduced" and row["explanation"] == ""
    assert "our dimensions: F1 → F1 (80%) / F1 (80%)" in row["ours"]
    assert "the printed dimensions: F1 → F2 (70%) / F2 (70%)" in row["ours"]
    assert "in 10 of 10;" in row["ours"]
    # with random parameters F3's data go to F5 under both dimensions
    moved = ({**OURS[0], "F3": (0.3, 0.1)}, {"F3": ("F5", (0.3, 0.8))},
             ({**PAPER_FIGURE5, "F3": (0.3, 0.1)}, {"F1": ("F2", (0.5, 0.7)),
                                                    "F3": ("F5", (0.3, 0.8))}))
    row = random_row(hand, both_dimensions(*moved, parameters="random"))
    assert row["verdict"] == "partly reproduced"
    assert row["explanation"] == ("computed: the most probable model differs beyond noise with "
                                  "our dimensions for F3 (hand-chosen F3, random F5); with the "
                                  "printed dimensions for F3 (hand-chosen F3, random F5)")
    # the F1 exception appearing with random parameters only is a difference too
    leaves = (PAPER_FIGURE5, {"F1": ("F2", (0.5, 0.7))}, OURS[2])
    row = random_row(hand, both_dimensions(*leaves, parameters="random"))
    assert row["verdict"] == "partly reproduced" and "for F1 (hand-chosen F1, random F2)" in \
        row["explanation"]
    # every generator's data end on another model
    shifted = {g: m for g, m in zip(GENERATORS, GENERATORS[2:] + GENERATORS[:2])}
    elsewhere = {g: (shifted[g], (0.1, 0.9)) for g in GENERATORS}
    low = {g: (0.1, 0.05) for g in GENERATORS}
    row = random_row(hand, both_dimensions(low, elsewhere, (low, elsewhere),
                                           parameters="random"))
    assert row["verdict"] == "not reproduced"
    assert mh.random_parameters_row(hand, scores_of(hand))["verdict"] == "not checked"


def test_random_parameters_differ_only_beyond_noise():
    hand = both_dimensions(*OURS)
    # with random parameters F4's data end on F2 by a tenth of a point, F4 second
    hair = {"F4": (0.3, 0.399)}, {"F4": ("F2", (0.3, 0.4))}
    drawn = both_dimensions({**OURS[0], **hair[0]}, hair[1],
                            ({**PAPER_FIGURE5, **hair[0]}, {**OURS[2][1], **hair[1]}),
                            parameters="random")
    # F2 and F4 move by 0.1 and 0.2 in step: a paired standard error of 0.1, within noise
    row = random_row(hand, drawn, spread=0.05)
    assert row["verdict"] == "reproduced"
    assert "(within noise: with our dimensions for F4 (hand-chosen F4, random F2)" in row["ours"]
    # the same means on data sets that agree with each other: a real difference
    assert random_row(hand, drawn)["verdict"] == "partly reproduced"


def test_table1_rows_fail_where_the_printed_dimension_differs():
    verdicts = {r["item"].split(" {")[0][-2:]: r["verdict"] for r in mh.dimension_verdicts(TABLE1)}
    assert verdicts == {"F1": "reproduced", "F2": "not reproduced", "F3": "reproduced",
                        "F4": "reproduced", "F5": "reproduced"}
    changed = TABLE1.assign(**{"paper dimension": TABLE1["paper dimension"]
                               + (TABLE1.model == "F4")})
    verdicts = {r["item"].split(" {")[0][-2:]: r["verdict"] for r in mh.dimension_verdicts(changed)}
    assert verdicts["F4"] == "not reproduced"


def test_f2_reason_is_read_from_the_alternatives():
    alternatives = mh.nine_parameter_structures(1, 0, PRINTED_TABLE1["F2"]["unadjusted"])
    assert set(alternatives.unadjusted) == {PRINTED_TABLE1["F2"]["unadjusted"]}
    reason = mh.f2_reason(alternatives, PRINTED_TABLE1)
    assert reason.startswith("computed:") and "belongs to {C1} {C2} {C3}" in reason


def test_figure4_counts_are_consistent_by_construction_unless_the_reconstruction_misses():
    printed = {m: v["unadjusted"] for m, v in PRINTED_TABLE1.items()}
    assert mh.figure4_row(printed, printed)["verdict"] == "consistent by construction"
    assert mh.figure4_row(printed, {**printed, "F3": 12})["verdict"] == "not reproduced"


# --- CS's Dirichlet alpha --------------------------------------------------------------------
def alpha_scores(shift):
    """One data set of F1 at one N where F1 leads F2 by 1 nat at alpha 1; at alpha 4 the
    complete-data term moves F2 by ``shift`` nats."""
    rows = []
    for model, cs in (("F1", -100.0), ("F2", -101.0)):
        rows.append({"generator": "F1", "parameters": "hand-chosen", "replicate": 1, "N": 100,
                     "model": model, "mled@1": -50.0,
                     "mled@4": -50.0 + (shift if model == "F2" else 0.0),
                     **{f"cs_{v}": cs for v in mh.VARIANTS},
                     **{f"posterior_{v}": p for v, p in zip(
                         mh.VARIANTS, [mh.posterior([-100.0, -101.0])[int(model == "F2")]] * 3)}})
    return pd.DataFrame(rows)


def test_scores_under_another_alpha_move_by_the_complete_data_term_only():
    section = {"prior_alpha": 1.0, "sensitivity": {"cs_alphas": [4.0, 1.0]}}
    assert mh.cs_alphas(section) == [1.0, 4.0]
    scores = alpha_scores(3.0)
    same = mh.at_cs_alpha(scores, section, 1.0)
    pd.testing.assert_frame_equal(same, scores)
    moved = mh.at_cs_alpha(scores, section, 4.0).set_index("model")
    assert moved.loc["F2", "cs_computed"] == pytest.approx(-98.0)
    assert moved.loc["F1", "cs_printed"] == pytest.approx(-100.0)
    np.testing.assert_allclose(moved.posterior_computed, mh.posterior([-100.0, -98.0]))


def test_score_segments_record_the_complete_data_term_under_every_alpha():
    section = {**SECTION, "segments": [100], "em": {**SECTION["em"], "restarts": 1},
               "sensitivity": {"cs_alphas": [0.5, 2.0]}}
    rows = mh.sample_cases(section, STRUCTURES, "F1", 3)
    records = pd.DataFrame(mh.score_segments(section, STRUCTURES, rows, TABLE1, 3))
    for alpha in (0.5, 1.0, 2.0):
        assert records[mh.mled_column(alpha)].notna().all()
    # alpha = prior_alpha is the complete-data term inside the main run's CS
    assert not np.allclose(records["mled@0.5"], records["mled@1"])


def test_alpha_choice_says_whether_the_verdict_survives_and_which_alphas_reproduce():
    sensitivity = pd.DataFrame({"cs alpha": [0.1, 1.0, 4.0], "claim": ["c"] * 3,
                                "verdict": ["reproduced"] * 3, "evidence": [""] * 3})
    text = mh.alpha_choice(sensitivity, "c", 1.0)
    assert "survives every alpha" in text and text.endswith("under alpha 0.1, 1, 4")
    changed = sensitivity.assign(verdict=["not reproduced", "reproduced", "not reproduced"])
    text = mh.alpha_choice(changed, "c", 1.0)
    assert "depends on alpha" in text and text.endswith("under alpha 1")
    none = sensitivity.assign(verdict="not reproduced")
    assert mh.alpha_choice(none, "c", 1.0).endswith("none of them")
    # a check that cannot fail reproduces nothing under any alpha, and is not said to fail to
    constructed = sensitivity.assign(verdict="consistent by construction")
    assert mh.alpha_choice(constructed, "c", 1.0).endswith("the verdict survives every alpha")
    constructed.loc[0, "verdict"] = "partly reproduced"
    assert mh.alpha_choice(constructed, "c", 1.0).endswith("none of them")


# --- Sec. 3.1 --------------------------------------------------------------------------------
def test_noisy_or_table_is_one_minus_the_product_of_the_misses():
    table = mh.noisy_or_table([0.2, 0.5])
    np.testing.assert_allclose(table, [[0.0, 0.5], [0.2, 1 - 0.8 * 0.5]])


def test_noisy_or_needs_the_complete_tree_at_random_points_and_not_at_special_ones():
    row = mh.noisy_or_row(mh.noisy_or_points(np.random.default_rng(0), points=20))
    # random points hit a table with two equal rows with probability 0: no evidence
    assert row["verdict"] == "consistent by construction"
    assert row["explanation"].startswith("an implementation check")
    assert "n = 5 (5 parameters, 32 rows): 20 of 20" in row["ours"]
    # a cause that never fires (p = 0) is irrelevant: a smaller tree represents the table
    inert = mh.noisy_or_row([np.array([0.3, 0.0, 0.6]), np.array([0.3, 0.4, 0.6])])
    assert inert["verdict"] == "not reproduced" and "n = 3 (3 parameters, 8 rows): 1 of 2" in \
        inert["ours"]
    # a cause that always fires makes E = 1 whenever present: the other causes are irrelevant
    assert not mh.needs_complete_tree(mh.noisy_or_table([1.0, 0.4]))


def test_e_step_agrees_with_enumeration_and_a_wrong_closed_form_fails():
    assert mh.e_step_row(STRUCTURES, np.random.default_rng(0))["verdict"] == "reproduced"

    def prior(model, table, causes, effect):
        """p(X | c): the posterior without the evidence of E."""
        rows = model.mechanism_rows(causes)
        return table[rows], None

    row = mh.e_step_row(STRUCTURES, np.random.default_rng(0), posteriors=prior)
    assert row["verdict"] == "not reproduced"
