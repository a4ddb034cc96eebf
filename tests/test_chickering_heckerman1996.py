"""Paper 003 protocol: Delta c and Table 1 on hand-made fits, and one real fit's invariants."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import chickering_heckerman1996 as ch96
from hiddenbn.experiments.comparison import posterior_weight_distance
from hiddenbn.experiments import reproduction as rp
from hiddenbn.learning.em import fit
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.scores.approximations import score_fit
from hiddenbn.util import seeding


def hand_made_fits():
    """Two data sets; curves chosen so every score's argmax is known by construction."""
    rows = []
    peaks = {1: {"laplace": 4, "cs": 5, "mled": 5, "draper": 3, "bic_log_evidence": 2, "cs_de": 4},
             2: {"laplace": 4, "cs": 4, "mled": 6, "draper": 4, "bic_log_evidence": 3, "cs_de": 4}}
    for replicate, peak in peaks.items():
        for c in range(2, 7):
            row = {"experiment": "e", "replicate": replicate, "hidden_states": c,
                   "laplace_positive_definite": True}
            row.update({score: -float((c - p) ** 2) for score, p in peak.items()})
            rows.append(row)
    return pd.DataFrame(rows)


def test_delta_c_and_table1_by_hand():
    errors = ch96.selection_errors(hand_made_fits())
    scores = ["cs", "mled", "draper", "bic_log_evidence"]
    assert errors.set_index("replicate").loc[1, scores].tolist() == \
        [1, 1, -1, -2]
    assert errors.set_index("replicate").loc[2, scores].tolist() == \
        [0, 2, 0, -1]
    table = ch96.table1(errors, {"e": {"model": "m", "cases": 100}},
                        {"m": {"features": 8, "hidden_states": 4}})
    row = table.iloc[0]
    assert (row.n, row.c, row.N, row.data_sets) == (8, 4, 100, 2)
    assert row.mled_mean == 1.5 and row.mled_sd == pytest.approx(np.std([1, 2], ddof=1))
    assert row.bic_log_evidence_mean == -1.5 and row.cs_de_mean == 0


def test_laplace_undefined_models_are_not_candidates():
    fits = hand_made_fits()
    peak = (fits.replicate == 1) & (fits.hidden_states == 4)
    fits.loc[peak, "laplace"] = np.nan
    assert ch96.selected_states(fits, "laplace").loc[("e", 1)] in (3, 5)


def test_format_mean_sd():
    assert ch96.format_mean_sd(0.0, 0.0) == "0"
    assert ch96.format_mean_sd(-1.0, 0.0) == "-1"
    assert ch96.format_mean_sd(0.2, 0.4472) == "0.2 ± 0.4"


def test_fit_and_score_test_model_invariants():
    generator = latent_class(3, [2] * 6)
    data = sample_dataset(generator, random_parameters(generator, np.random.default_rng(0)), 300,
                          np.random.default_rng(1))
    em = {"restarts": 8, "max_iterations": 100, "tolerance": 1e-6,
          "run_all_iterations": True}
    row = ch96.fit_and_score_test_model(latent_class(3, [2] * 6), data, np.random.default_rng(2),
                                        1.01, em, effective_dimension=17)
    # the paper's protocol is the library's EM with halving restarts, scored by score_fit
    result = fit(latent_class(3, [2] * 6), data, np.random.default_rng(2), 1.01, 8, 100, 1e-6,
                 "halving", True, acceleration="none")
    scores = score_fit(result, data, 17)
    for name, library in (("laplace", "laplace"), ("cs", "cs"), ("cs_de", "cs_plus"),
                          ("mled", "mled"), ("draper", "draper"),
                          ("bic_log_evidence", "bic_log_evidence")):
        assert row[name] == scores[library], name
    assert row["log_posterior"] == result.log_posterior
    assert row["d"] == 2 + 3 * 6
    # log p(D|theta) >= E_q log p(D, H|theta) (Jensen), so CS >= MLED when d' = d
    assert row["cs"] >= row["mled"]
    # CS with d = de adds (ds - de)/2 log N (paper 002's CS+)
    assert row["cs_de"] - row["cs"] == pytest.approx(0.5 * (20 - 17) * np.log(300))
    assert row["draper"] - row["bic_log_evidence"] == pytest.approx(
        0.5 * row["d"] * np.log(2 * np.pi))
    assert row["laplace_positive_definite"] and np.isfinite(row["laplace"])
    assert all(row[f"{step}_seconds"] >= 0 for step in ch96.TIMED)
    assert row["iterations"] <= 100 and row["converged"]


def test_em_is_timed_by_cpu_time_so_other_jobs_on_the_cores_do_not_count(monkeypatch):
    """A fit that waits half a second (as one preempted by other jobs would) adds no EM time."""
    import time

    generator = latent_class(2, [2] * 3)
    data = sample_dataset(generator, random_parameters(generator, np.random.default_rng(0)), 100,
                          np.random.default_rng(1))

    def waiting_fit(*args, **kwargs):
        time.sleep(0.5)
        return fit(*args, **kwargs)

    # compiled first (a cold numba cache costs CPU seconds), then timed
    ch96.fit_and_score_test_model(latent_class(2, [2] * 3), data, np.random.default_rng(2), 1.01,
                                  {"restarts": 2, "max_iterations": 20, "tolerance": 1e-6,
                                   "run_all_iterations": False}, timing_seconds=0.01)
    monkeypatch.setattr(ch96, "fit", waiting_fit)
    em = {"restarts": 2, "max_iterations": 20, "tolerance": 1e-6, "run_all_iterations": False}
    row = ch96.fit_and_score_test_model(latent_class(2, [2] * 3), data, np.random.default_rng(2),
                                        1.01, em, timing_seconds=0.01)
    assert 0 <= row["em_seconds"] < 0.25


def test_check_config_names_bad_references():
    section = {"models": {"m": {}}, "replicates": 2, "figures": {"figure1": ["e"]},
               "timing": {"experiment": "e", "replicate": 3},
               "experiments": {"e": {"model": "m", "test_states": {"min": 1, "max": 2}}}}
    with pytest.raises(HiddenbnError, match="timing.replicate: 3 exceeds replicates"):
        ch96.check_config(section)
    section["figures"]["figure1"] = ["nope"]
    with pytest.raises(HiddenbnError, match="figures.figure1: unknown experiment 'nope'"):
        ch96.check_config(section)
    section["figures"]["figure1"] = ["e"]
    section["prior_sensitivity"] = {"prior_alphas": [1.1], "experiments": ["e", "f"]}
    with pytest.raises(HiddenbnError, match="prior_sensitivity.experiments: unknown experiment "
                                            "'f'; use names under"):
        ch96.check_config(section)
    del section["prior_sensitivity"]
    section["range_variants"] = {"e": {"min": 1, "max": 3}}
    with pytest.raises(HiddenbnError, match=r"range_variants.e: 1..3 must lie within the "
                                            r"experiment's test_states, 1..2"):
        ch96.check_config(section)
    section["range_variants"] = {"f": {"min": 1, "max": 2}}
    with pytest.raises(HiddenbnError, match="range_variants.f: unknown experiment 'f'"):
        ch96.check_config(section)
    section["range_variants"] = {"e": {"min": 1, "max": 2}}
    with pytest.raises(HiddenbnError, match="range_variants.e: 1..2 .* and be narrower"):
        ch96.check_config(section)


def test_a_range_variant_chooses_again_among_the_fits_of_its_range():
    """Laplace peaks at 4 states and BIC at 2 in both data sets: from 4 up, BIC's choice is the
    lowest model of the variant, 4, so its Δc moves from -2 to 0 while CS's (at 5) stays +1;
    both are judged against the printed cell."""
    rows = []
    for replicate in (1, 2):
        for states in range(2, 7):
            rows.append({"experiment": "e", "replicate": replicate, "protocol": "paper",
                         "hidden_states": states, "laplace": -abs(states - 4),
                         "cs": -abs(states - 5), "mled": -abs(states - 5),
                         "draper": -abs(states - 4), "bic_log_evidence": -states,
                         "cs_de": -abs(states - 5)})
    section = {"experiments": {"e": {"model": "m", "cases": 400,
                                     "test_states": {"min": 2, "max": 6}}},
               "models": {"m": {"hidden_states": 4, "features": 64}},
               "range_variants": {"e": {"min": 4, "max": 6}}}
    printed = pd.DataFrame([{"n": "64", "c": "4", "N": "400", "cs": "1", "mled": "1",
                             "draper": "0", "bic_log_evidence": "-2"}])
    table = ch96.range_variant_table(pd.DataFrame(rows), section, printed).set_index("score")
    assert (table["full range"] == "2..6").all() and (table["variant range"] == "4..6").all()
    assert table.loc["CS", "ours (full)"] == table.loc["CS", "ours (variant)"]
    assert table.loc["CS", "agrees (variant)"] == "yes"
    bic = table.loc[ch96.LABELS["bic_log_evidence"]]
    assert (bic["ours (full)"], bic["agrees (full)"]) == (ch96.format_mean_sd(-2, 0), "yes")
    assert (bic["ours (variant)"], bic["agrees (variant)"]) == (ch96.format_mean_sd(0, 0), "no")
    lines = ch96.range_variant_lines(pd.DataFrame(table.reset_index()))
    assert lines[0] == f"## {ch96.RANGE_VARIANTS_TITLE}"
    assert ch96.range_variant_lines(pd.DataFrame()) == []


DRAWS_SECTION = {
    "models": {"m": {"hidden_states": 4, "features": 64}},
    "experiments": {"e": {"model": "m", "cases": 400, "test_states": {"min": 2, "max": 6}},
                    "f": {"model": "m", "cases": 100, "test_states": {"min": 2, "max": 6}}},
    "generating_draws": {"experiments": ["e"], "draws": 3}}


def test_further_generating_draws_leave_draw_1_s_names_and_seeds_as_they_were():
    experiments, models = ch96.generating_draws(DRAWS_SECTION)
    assert list(experiments) == ["e_draw2", "e_draw3"] and list(models) == ["m_draw2", "m_draw3"]
    assert experiments["e_draw2"] == {"model": "m_draw2", "cases": 400, "drawn_from": "e",
                                      "draw": 2, "test_states": {"min": 2, "max": 6}}
    assert models["m_draw3"] == {"hidden_states": 4, "features": 64, "drawn_from": "m",
                                 "draw": 3}
    # draw 1 is the config's entry: its name and the key of its seed are those without the key
    assert ch96.drawn_name("e", 1) == "e" and ch96.drawn_name("e", 2) == "e_draw2"
    key = ("chickering_heckerman1996", "data", "m", 400, 1)
    assert ch96.draw_seed_key(*key) == ch96.draw_seed_key(*key, draw=1) == key
    assert ch96.draw_seed_key(*key, draw=2) == (*key, 2)
    assert len({seeding.job_seed(7, *ch96.draw_seed_key(*key, draw=d)) for d in (1, 2, 3)}) == 3
    without = {k: v for k, v in DRAWS_SECTION.items() if k != "generating_draws"}
    assert ch96.generating_draws(without) == ({}, {})


def test_check_config_names_bad_generating_draws():
    section = {**DRAWS_SECTION, "figures": {}, "replicates": 5,
               "timing": {"experiment": "e", "replicate": 1}}
    ch96.check_config(section)
    with pytest.raises(HiddenbnError, match="generating_draws.experiments: unknown experiment "
                                            "'g'"):
        ch96.check_config({**section, "generating_draws": {"experiments": ["g"], "draws": 2}})
    clash = {**section["experiments"], "e_draw2": section["experiments"]["f"]}
    with pytest.raises(HiddenbnError, match=r"experiments.e_draw2: the name of a further "):
        ch96.check_config({**section, "experiments": clash})


def draw_fits(peaks: dict) -> pd.DataFrame:
    """Fits of experiment e's draws (name -> the states where (Laplace, CS) peak, per data set
    of two), under the paper's protocol; every other score peaks with Laplace."""
    rows = []
    for name, per_replicate in peaks.items():
        for replicate, (laplace, cs) in enumerate(per_replicate, start=1):
            for states in range(2, 7):
                rows.append({"experiment": name, "replicate": replicate, "protocol": "paper",
                             "hidden_states": states, "laplace": -abs(states - laplace),
                             "cs": -abs(states - cs), "mled": -abs(states - laplace),
                             "draper": -abs(states - laplace),
                             "bic_log_evidence": -abs(states - laplace),
                             "cs_de": -abs(states - laplace)})
    return pd.DataFrame(rows)


def test_further_draws_say_whether_the_draw_explains_a_discrepant_cell():
    """The paper's CS Δc is +2 ± 0: draw 1's 0 ± 0 misses it. Where draw 3 reaches it (+2 in
    both data sets) the draw is a possible cause; where draws 2 and 3 miss it as draw 1 does,
    it is ruled out within the 3 draws. Cells draw 1 reproduces get no sentence."""
    printed = pd.DataFrame([{"n": "64", "c": "4", "N": "400", "cs": "2", "mled": "0",
                             "draper": "0", "bic_log_evidence": "0"}])
    section = DRAWS_SECTION
    fits = draw_fits({"e": [(4, 4), (4, 4)]})
    reached = ch96.generating_draw_table(
        fits, draw_fits({"e_draw2": [(4, 4), (4, 4)], "e_draw3": [(3, 5), (4, 6)]}), section,
        printed).set_index("score")
    cs = reached.loc["CS"]
    assert [cs[f"agrees (draw {d})"] for d in (1, 2, 3)] == ["no", "no", "yes"]
    assert cs["ours (draw 3)"] == ch96.format_mean_sd(2, 0) and cs["paper"] == "2"
    assert (reached.drop("CS")[[f"agrees (draw {d})" for d in (1, 2, 3)]] == "yes").all().all()
    findings = ch96.generating_draw_findings(reached.reset_index())
    assert list(findings) == [(ch96.PROTOCOLS["paper"], "e", "CS")]
    assert findings[(ch96.PROTOCOLS["paper"], "e", "CS")].startswith(
        "the generating draw is a possible cause: draw 3 of the 3 draws reach")
    missed = ch96.generating_draw_table(
        fits, draw_fits({"e_draw2": [(4, 4), (4, 4)], "e_draw3": [(4, 5), (4, 4)]}), section,
        printed)
    [text] = ch96.generating_draw_findings(missed).values()
    # no draw reaches it: what the draws show (how far they move the cell), not a ruling
    assert text.startswith("the paper's 2 is not reached in any of the 3 generating draws: "
                           "their means span 0.0..0.5 (0.5 states), 1.5 states from the "
                           "paper's at the closest")
    assert "ruled out" not in text and "possible cause" not in text
    lines = ch96.generating_draw_lines(missed, section)
    assert lines[0] == f"## {ch96.GENERATING_DRAWS_TITLE}"
    assert f"- CS at e, {ch96.PROTOCOLS['paper']}: {text}." in lines
    # at c = 4 no claim pools the draws: draw 1 is the model of every other section
    assert "every other section; the further draws" in lines[2]
    assert "pool the data sets" not in lines[2]
    # a redrawn model of c = 32 makes the large-c claim pool them, and the text says so
    large = {**section, "models": {"m": {"hidden_states": 32, "features": 64}}}
    lines = ch96.generating_draw_lines(missed, large)
    assert ("every other section and verdict but those named at the end of this paragraph; "
            "the further draws") in lines[2]
    assert lines[2].endswith("The verdicts on 'For large c, Draper does better than CS.', "
                             f"'{ch96.large_c_claim('peaks', 32)}', "
                             f"'{ch96.large_c_claim('flat', 32)}' pool "
                             "the data sets of every draw, each claim being about the "
                             "approximations in general, not about the paper's one draw (draw "
                             "1's verdict alone is in the evidence, 'The paper's claims').")
    # a discrepant cell's explanation then says what the draws showed, not "untested"
    why = ch96.cell_explanation(fits.assign(cs=fits.laplace), "cs", 32, -2.0, 0.5, text)
    assert text in why and ch96.GENERATING_UNTESTED not in why
    # nothing without the key or without the draws' fits
    assert ch96.generating_draw_findings(pd.DataFrame(), reproduced=True) == {}
    assert ch96.generating_draw_table(fits, None, section, printed).empty
    assert ch96.generating_draw_lines(pd.DataFrame(), section) == []
    assert ch96.generating_draw_findings(pd.DataFrame()) == {}


def test_further_draws_say_whether_a_reproduced_cell_depends_on_the_draw():
    """The paper's CS Δc is 0: draws 1 and 2 (0 ± 0) reproduce it, draw 3 (+2 ± 0) does not,
    so its agreement depends on the draw; every other cell agrees in all 3 draws. The verdict
    row of the cell says so, and names the draws in its choices."""
    printed = pd.DataFrame([{"n": "64", "c": "4", "N": "400", "cs": "0", "mled": "0",
                             "draper": "0", "bic_log_evidence": "0"}])
    fits = draw_fits({"e": [(4, 4), (4, 4)]})
    draws = ch96.generating_draw_table(
        fits, draw_fits({"e_draw2": [(4, 4), (4, 4)], "e_draw3": [(3, 5), (4, 6)]}),
        DRAWS_SECTION, printed)
    assert ch96.generating_draw_findings(draws) == {}
    agreements = ch96.generating_draw_findings(draws, reproduced=True)
    key = (ch96.PROTOCOLS["paper"], "e", "CS")
    assert agreements[key] == (f"reproduced in draw 1 and draw 2, not in draw 3 (2): "
                               f"{ch96.DRAW_DEPENDENT}")
    # the counterfactual: cells every draw reproduces say that instead
    assert agreements[(ch96.PROTOCOLS["paper"], "e", "Draper")].startswith(
        "reproduced in all 3 generating draws")
    assert ch96.DRAW_DEPENDENT not in agreements[(ch96.PROTOCOLS["paper"], "e", "Draper")]
    lines = ch96.generating_draw_lines(draws, DRAWS_SECTION)
    assert f"- CS at e, {ch96.PROTOCOLS['paper']}: {agreements[key]}." in lines
    assert not any(line.startswith("- Draper") for line in lines)
    # the verdict row's explanation and choices (table1_cell_rows' annotate)
    annotate = ch96.cell_annotation(fits, DRAWS_SECTION, None, "paper", agreements)
    row = pd.Series({"experiment": "e"})
    note, choices = annotate(row, "cs")
    assert note == agreements[key]
    assert f"3 draws of e's model (comparison.md, '{ch96.GENERATING_DRAWS_TITLE}')" in choices
    assert annotate(row, "draper")[0].startswith("reproduced in all 3")
    assert annotate(row, "cs")[0] != ch96.cell_annotation(fits, DRAWS_SECTION, None, "paper",
                                                          {})(row, "cs")[0]


def test_large_c_claim_is_judged_pooled_over_the_generating_draws():
    """Draper always picks Laplace's model (Δc 0); CS errs by one state in one of draw 1's two
    data sets: within noise on draw 1. Draws 2 and 3 where CS errs in both data sets make CS's
    larger error beyond noise pooled over the 6 data sets (Draper better): the verdict is the
    pooled one, draw 1's stays in the evidence and the explanation says they differ. Draws
    where CS never errs leave the pooled verdict within noise, as draw 1's."""
    section = {**DRAWS_SECTION, "models": {"m": {"hidden_states": 32, "features": 64}},
               "experiments": {"e": DRAWS_SECTION["experiments"]["e"]}}
    check = ch96.claim_draper_beats_cs_for_large_c
    assert check in ch96.POOLED_CHECKS
    fits = draw_fits({"e": [(4, 5), (4, 4)]})
    errors = ch96.selection_errors(fits, ch96.TABLE1_SCORES)
    table = ch96.table1(errors, section["experiments"], section["models"])
    result = check(table, errors)
    assert result[0] == ch96.UNDECIDED
    erring = draw_fits({"e_draw2": [(4, 5), (4, 5)], "e_draw3": [(4, 5), (4, 5)]})
    pooled = ch96.pooled_draw_fits(fits, erring, section, ["e"])
    # every data set stays its own: 6 (experiment, replicate) pairs under draw 1's name
    assert set(pooled.experiment) == {"e"}
    assert len(pooled.groupby(["experiment", "replicate"])) == 6
    verdict, evidence, explanation = ch96.judged_pooled(check, result, table, pooled, section)
    assert verdict == "supported"
    assert evidence.startswith("Pooled over the 3 generating draws, as the verdict reads it "
                               "(data sets: e 6): |mean Δc| for c ≥ 16")
    assert evidence.endswith(f" Draw 1 alone, the paper's design of one draw per generating "
                             f"model (data sets: e 2): {ch96.UNDECIDED}: {result[1]}")
    assert explanation.startswith(f"draw 1 alone gives {ch96.UNDECIDED} (data sets: e 2); the "
                                  "verdict pools the 3 generating draws' data sets")
    # the counterfactual: draws where CS never errs leave the pooled verdict within noise,
    # draw 1's too, and with one verdict there is nothing to explain
    exact = draw_fits({"e_draw2": [(4, 4), (4, 4)], "e_draw3": [(4, 4), (4, 4)]})
    same = ch96.judged_pooled(check, result, table,
                              ch96.pooled_draw_fits(fits, exact, section, ["e"]), section)
    assert same[0] == ch96.UNDECIDED and len(same) == 2
    assert same[1].startswith("Pooled over the 3 generating draws, as the verdict reads it "
                              "(data sets: e 6):")
    # without the draws' fits, or for experiments not redrawn: nothing to pool
    assert ch96.pooled_draw_fits(fits, None, section, ["e"]) is None
    assert ch96.pooled_draw_fits(fits, erring, {**section, "generating_draws": {
        "experiments": [], "draws": 1}}, ["e"]) is None
    assert ch96.pooled_draw_fits(fits, erring, section, []) is None


def test_experiments_on_the_same_data_sets_share_their_fits(tmp_path):
    states = {"min": 2, "max": 8}
    experiments = {"a": {"model": "m64", "cases": 400, "test_states": states},
                   "b": {"model": "m32", "cases": 400, "test_states": states},
                   "c": {"model": "m64", "cases": 400, "test_states": states},
                   "d": {"model": "m64", "cases": 200, "test_states": states},
                   "e": {"model": "m64", "cases": 400, "test_states": {"min": 2, "max": 9}}}
    assert ch96.fitted_as(experiments) == {"a": "a", "b": "b", "c": "a", "d": "d", "e": "e"}
    source = tmp_path / "a.csv"
    pd.DataFrame({"experiment": ["a", "a"], "replicate": [1, 1], "g": [-1.5, -2.0]}).to_csv(
        source, index=False)
    ch96.relabel_fits(source, "c", tmp_path / "c.csv")
    relabelled = pd.read_csv(tmp_path / "c.csv")
    assert list(relabelled.experiment) == ["c", "c"]
    assert relabelled.drop(columns="experiment").equals(
        pd.read_csv(source).drop(columns="experiment"))


def test_both_protocols_the_oracle_and_the_search_summary(tmp_path):
    """Each test model is fitted under the paper's protocol and the search (the better of the
    annealed and the paper's fit); the generating size also gets the oracle start."""
    from hiddenbn.data import write_csv
    from hiddenbn.models.network import save_parameters
    generator = latent_class(3, [2] * 6)
    truth = random_parameters(generator, np.random.default_rng(0))
    data = sample_dataset(generator, truth, 200, np.random.default_rng(1))
    write_csv(tmp_path / "data.csv", data)
    save_parameters(tmp_path / "truth.json", generator, truth)
    em = {"restarts": 4, "max_iterations": 50, "tolerance": 1e-6,
          "run_all_iterations": True}
    fits = ch96.fit_test_models(tmp_path / "data.csv", 6, [2, 3], 7, 1.01, em,
                                {"restarts": 2, "sweeps": 20}, {2: 13, 3: 20},
                                tmp_path / "truth.json", 3)
    assert fits.groupby("hidden_states").protocol.apply(sorted).tolist() == \
        [["paper", "search"]] * 2
    g = fits.pivot(index="hidden_states", columns="protocol", values="log_posterior")
    assert (g.search >= g.paper).all()
    assert fits.loc[fits.hidden_states == 2, "oracle_log_posterior"].isna().all()
    assert fits.loc[fits.hidden_states == 3, "oracle_log_posterior"].notna().all()
    assert set(fits.search_start) <= {"annealed", "random"}
    summary = ch96.search_summary(fits.assign(experiment="e", replicate=1))
    row = summary.iloc[0]
    assert row.fits == 2 and row.oracle_fits == 1
    assert row.gain_max == pytest.approx((g.search - g.paper).max())
    oracle = fits.loc[fits.hidden_states == 3, "oracle_log_posterior"].iloc[0]
    assert row.search_minus_oracle_min == pytest.approx(g.search[3] - oracle)


PRINTED_TABLE1 = (Path(__file__).resolve().parents[1]
                  / "workflow/resources/chickering_heckerman1996/paper_table1.csv")


def printed_table1():
    return ch96.parse_printed_table1(pd.read_csv(PRINTED_TABLE1, dtype=str))


def test_every_table1_claim_holds_on_the_paper_s_own_table():
    """A claim check that refuted the paper on its own numbers would be wrong; one that finds
    the paper's own differences within noise says so."""
    table = printed_table1()
    assert len(table) == 12 and len(ch96.distinct_experiments(table)) == 10
    assert table.loc[table.c == 32, "cs_mean"].item() == 16.2
    assert table.loc[table.c == 32, "cs_sd"].item() == 1.5
    results = {claim: (verdict, evidence) for claim, verdict, evidence in
               ch96.table1_claims(table)}
    assert len(results) == len(ch96.TABLE1_CLAIMS)
    # over five data sets the paper's CS is not told from MLED (0.2 against 0.6 states at
    # n <= 16, nor in any one experiment): those parts are within noise, nothing is refuted
    partly = {"Draper and CS are the most accurate.",
              "CS and MLED are almost the same, except for small n, where CS does slightly "
              "better."}
    assert {c for c, (v, _) in results.items() if v != "supported"} == partly
    assert all(results[c][0] == "partly supported" for c in partly)
    most, small_n = sorted(partly, reverse=True)
    assert "CS − MLED -0.40 (s.e. 0.81)" in results[small_n][1]
    assert "CS better within noise only" in results[small_n][1]
    assert "CS against MLED: lower beyond noise in 0, higher in 0 of 10" in results[most][1]
    # read by the mean |Δc|, the paper's own c = 32 cell (CS off by 16) puts CS behind BIC
    assert "by the mean |Δc|: not supported" in results[most][1]
    assert "by the medians (no noise rule): supported" in results[most][1]  # 0, 0.2 < 0.3, 0.6
    # the same means over a hundred times the data sets: every difference is beyond noise
    many = table.assign(data_sets=500)
    assert {v for _, v, _ in ch96.table1_claims(many)} == {"supported"}


def test_table1_claims_turn_when_the_numbers_do():
    table = printed_table1()
    worse_draper = table.assign(draper_mean=table.draper_mean - 5.0)  # Draper now errs most
    verdicts = dict((c, v) for c, v, _ in ch96.table1_claims(worse_draper))
    assert "by the medians (no noise rule): not supported" in ch96.claim_draper_cs_most_accurate(
        worse_draper)[1]
    assert verdicts["BIC/MDL is the least accurate and biased toward simple models."] != \
        "supported"
    assert verdicts["Draper and CS are the most accurate."] == "not supported"
    # Draper 5 states further down: at c = 32 still below CS beyond noise, at c = 16 (6.6
    # against 5.0, 2 s.e. 5.8) within noise
    assert verdicts["For large c, Draper does better than CS."] == "supported"
    assert ch96.claim_draper_beats_cs_for_large_c(
        table.assign(draper_mean=table.draper_mean - 20.0))[0] == "not supported"
    assert ch96.claim_draper_beats_cs_for_large_c(table[table.c < ch96.LARGE_C]) is None
    upward_bic = table.assign(bic_log_evidence_mean=-table.bic_log_evidence_mean)
    verdict, evidence = ch96.claim_bic_least_accurate(upward_bic)
    assert verdict == "partly supported" and "above zero in 9" in evidence
    # the duplicated experiments are counted once: doubling a row changes no median
    doubled = pd.concat([table, table.iloc[[4]]], ignore_index=True)
    assert ch96.median_abs_error(doubled) == ch96.median_abs_error(table)
    # CS no better than MLED at small n: equal sums do not show CS "slightly better"
    same = table.assign(mled_mean=table.cs_mean, mled_sd=table.cs_sd)
    assert ch96.claim_cs_mled_almost_same(same)[0] == "partly supported"
    apart = table.assign(mled_mean=table.cs_mean + 1.0)  # far apart at large n as well
    assert ch96.claim_cs_mled_almost_same(apart)[0] != "supported"


def paired_table(cells: dict):
    """Table 1 and the per-data-set Δc of experiments ``{name: (n, c, {score: Δc per data
    set})}`` over five data sets (a score not given: 0; Laplace selects c in every one)."""
    rows, experiments, models = [], {}, {}
    for name, (n, c, deltas) in cells.items():
        experiments[name] = {"model": name, "cases": 400}
        models[name] = {"features": n, "hidden_states": c}
        for replicate in range(5):
            rows.append({"experiment": name, "replicate": replicate + 1, "laplace_states": c,
                         **{s: deltas.get(s, [0] * 5)[replicate] for s in ch96.TABLE1_SCORES}})
    errors = pd.DataFrame(rows)
    return ch96.table1(errors, experiments, models), errors


def test_two_scores_compared_beyond_noise_paired_over_the_data_sets():
    # n = 8: CS selects [2, 3, 3, 3, 2], MLED [2, 2, 2, 3, 2], Laplace 3: CS errs less by 0.4
    # states, one data set in five, within two paired standard errors (0.24)
    cs, mled = [-1, 0, 0, 0, -1], [-1, -1, -1, 0, -1]
    small = {"n8": (8, 3, {"cs": cs, "mled": mled}), "n32": (32, 3, {})}
    table, errors = paired_table(small)
    verdict, evidence = ch96.claim_cs_mled_almost_same(table, errors)
    assert verdict == "partly supported" and "CS − MLED -0.40 (s.e. 0.24)" in evidence
    assert "CS better within noise only" in evidence and "paired over the data sets" in evidence
    # MLED off by two states in every data set: CS better beyond noise
    table, errors = paired_table({**small, "n8": (8, 3, {"cs": cs, "mled": [-2] * 5})})
    verdict, evidence = ch96.claim_cs_mled_almost_same(table, errors)
    assert verdict == "supported" and "CS better beyond noise" in evidence
    # ... and CS off by two: MLED better beyond noise, the claim's second half fails
    table, errors = paired_table({**small, "n8": (8, 3, {"cs": [-2] * 5, "mled": mled})})
    verdict, evidence = ch96.claim_cs_mled_almost_same(table, errors)
    assert verdict == "partly supported" and "MLED better beyond noise" in evidence
    # large c: Draper -4.4 against CS 1.8 (ours at c = 32) within noise, both ways
    large = {"c32": (64, 32, {"draper": [-1, -7, -4, -6, -4], "cs": [5, 4, 0, 0, 0]}),
             "c16": (64, 16, {"draper": [-1, -2, 0, -3, -2], "cs": [0, 2, 0, 0, 2]})}
    table, errors = paired_table(large)
    verdict, evidence = ch96.claim_draper_beats_cs_for_large_c(table, errors)
    # computed and within noise: not decided, not "not checked" (nothing computed)
    assert verdict == rp.UNDECIDED and "neither does better beyond noise" in evidence
    assert "c = 32: Draper 4.4, CS 1.8, +2.60 (s.e. 1.72): within noise" in evidence
    # the paper's c = 32 (Draper -2.2, CS 16.2): Draper better beyond noise
    table, errors = paired_table({**large, "c32": (64, 32, {
        "draper": [-1, -3, -2, -4, -1], "cs": [15, 17, 16, 18, 15]})})
    assert ch96.claim_draper_beats_cs_for_large_c(table, errors)[0] == "supported"
    # CS exact, Draper six states low: CS better beyond noise
    table, errors = paired_table({**large, "c32": (64, 32, {"draper": [-6] * 5, "cs": [0] * 5})})
    verdict, evidence = ch96.claim_draper_beats_cs_for_large_c(table, errors)
    assert verdict == "not supported" and "CS lower beyond noise" in evidence


def test_most_accurate_experiment_by_experiment_and_by_the_mean():
    # ours: most cells 0 for CS, MLED and Draper (medians tie at 0), BIC low; Draper's two
    # large-c errors put it behind MLED by the mean only
    cells = {f"e{i}": (8 + i, 4, {"bic_log_evidence": [-1] * 5}) for i in range(6)}
    cells["c32"] = (64, 32, {"cs": [2, 1, 3, 2, 1], "mled": [2, 1, 3, 2, 1],
                             "draper": [-4, -5, -3, -6, -4], "bic_log_evidence": [-9] * 5})
    table, errors = paired_table(cells)
    verdict, evidence = ch96.claim_draper_cs_most_accurate(table, errors)
    assert "median |Δc| over the distinct experiments: CS 0.00, MLED 0.00, Draper 0.00" in \
        evidence
    assert "mean |Δc|: CS 0.26, MLED 0.26, Draper 0.63, BIC 2.14" in evidence
    # better than BIC beyond noise in 7 of 7; against MLED, CS ties and Draper loses at c = 32
    assert "Draper against MLED: lower beyond noise in 0, higher in 1 of 7" in evidence
    assert verdict == "not supported" and "by the mean |Δc|: not supported" in evidence
    # the medians tie at 0 and cannot tell Draper from MLED (they have no noise rule)
    assert "by the medians (no noise rule): partly supported" in evidence
    # Draper exact at c = 32 too: CS and Draper tie MLED, beat BIC: partly
    table, errors = paired_table({**cells, "c32": (64, 32, {
        "cs": [0] * 5, "mled": [0] * 5, "bic_log_evidence": [-9] * 5})})
    verdict, evidence = ch96.claim_draper_cs_most_accurate(table, errors)
    assert verdict == "partly supported" and "by the mean |Δc|: partly supported" in evidence
    # MLED off by two where Draper and CS are exact: both most accurate beyond noise
    table, errors = paired_table({**cells, "c32": (64, 32, {
        "mled": [2] * 5, "bic_log_evidence": [-9] * 5})})
    verdict, evidence = ch96.claim_draper_cs_most_accurate(table, errors)
    assert verdict == "supported" and "by the mean |Δc|: supported" in evidence
    assert "by the medians (no noise rule): partly supported" in evidence
    # every difference within noise: not decided
    table, errors = paired_table({"e": (32, 4, {"mled": [1, 0, 0, 0, 0],
                                                "bic_log_evidence": [-1, 0, 0, 0, 0]})})
    assert ch96.claim_draper_cs_most_accurate(table, errors)[0] == rp.UNDECIDED


def test_bias_directions_need_signs_beyond_noise_and_draper_below_the_others():
    table = printed_table1()
    verdict, evidence = ch96.claim_bias_directions(table)
    # beyond two standard errors in the paper: CS at c = 32 and 8, Draper at c = 32 and 16
    assert verdict == "supported" and "CS 2 / 0" in evidence and "Draper 0 / 2" in evidence
    # every score errs downward by the same amount (as against the marginal likelihood):
    # Draper's downward error is everyone's, and CS and MLED are not too complex
    down = table.copy()
    for score in ("cs", "mled", "draper"):
        down[f"{score}_mean"] = -np.abs(table[f"{score}_mean"]) - 2.0
        down[f"{score}_sd"] = 0.5
    down = down.assign(laplace_mean=-2.0, laplace_sd=0.5)
    verdict, evidence = ch96.claim_bias_directions(down)
    assert verdict == "not supported"
    assert "Not too complex: CS, MLED" in evidence and "Laplace included" in evidence
    # Draper errs further down than the others: its part holds, for the right reason
    lower = down.assign(draper_mean=down.draper_mean - 3.0)
    assert ch96.claim_bias_directions(lower)[0] == "partly supported"
    # signs within noise count for nothing: one data set off by one state
    noise = table.copy()
    for score in ("cs", "mled", "draper"):
        noise[f"{score}_mean"] = np.sign(table[f"{score}_mean"]) * 0.2
        noise[f"{score}_sd"] = 0.447
    assert ch96.claim_bias_directions(noise)[0] == "not supported"
    # the paper's table has no significant counter-case; one MLED row too simple beyond noise
    # (ours at n = 8: -1.0 +- 0.7) is named, and the strict reading turns partly
    assert "counter-cases (against the stated direction): none; read strictly, allowing none, " \
        "the claim is supported" in ch96.claim_bias_directions(table)[1]
    counter = table.copy()
    counter.loc[counter.n == 8, ["mled_mean", "mled_sd"]] = [-1.0, 0.7]
    verdict, evidence = ch96.claim_bias_directions(counter)
    assert verdict == "supported"  # a tendency allows exceptions
    assert "MLED at n = 8, c = 4, N = 400 (-1.0 ± 0.7)" in evidence
    assert "read strictly, allowing none, the claim is partly supported" in evidence


def test_standard_error_is_floored_at_one_data_set_off_by_one_state():
    assert ch96.standard_error(0.0, 5) == pytest.approx(1 / 5)
    assert ch96.standard_error(2.0, 4) == pytest.approx(1.0)
    assert ch96.standard_error(np.nan, 1) == 1.0 and np.isnan(ch96.standard_error(0.0, 0))


def test_table1_cells_agree_within_two_combined_standard_errors():
    # a printed 0 (every data set agreed): one data set off by one state is within, four not
    assert ch96.cell_agrees(0.2, 0.447, 5, 0.0, 0.0, 5)[0]
    assert not ch96.cell_agrees(0.8, 0.447, 5, 0.0, 0.0, 5)[0]
    agree, tolerance = ch96.cell_agrees(13.0, 2.0, 5, 16.2, 1.5, 5)
    assert not agree and tolerance == pytest.approx(2 * np.hypot(2.0, 1.5) / np.sqrt(5))
    printed = pd.read_csv(PRINTED_TABLE1, dtype=str)
    table = printed_table1().assign(experiment="e")
    rows = ch96.table1_cell_rows(table, printed, "Table 1")
    # each of the 10 distinct printed rows once; the two printed twice say so
    assert len(rows) == 40 and {r["verdict"] for r in rows} == {"reproduced"}
    twice = [r["item"] for r in rows if "judged once" in r["item"]]
    assert len(twice) == 8 and "n = 64, c = 4, N = 400 (printed in rows 4 and 8" in twice[4]
    # every cell states the rule's reach: 2 combined standard errors, wide where the paper's
    # s.d. is (c = 16, CS: 5.0 ± 6.4)
    wide = next(r for r in rows if r["item"].startswith("Δc of CS, n = 64, c = 16"))
    reach = 2 * np.hypot(6.4, 6.4) / np.sqrt(5)
    assert f"differences beyond {reach:.2f} states" in wide["explanation"]
    moved = table.assign(bic_log_evidence_mean=table.bic_log_evidence_mean - 1.0)
    rows = ch96.table1_cell_rows(moved, printed, "Table 1")
    assert sum(r["verdict"] == "not reproduced" for r in rows) >= 7
    # the annotation (range edges, choices) reaches every cell
    rows = ch96.table1_cell_rows(table, printed, "Table 1",
                                 annotate=lambda row, score: ("edge note", "choice"))
    assert all(r["explanation"].endswith("edge note") and r["choices"] == "choice"
               for r in rows)
    # another protocol's cells check the same printed numbers again: derived, not counted
    assert all(r["derived_from"] == "" for r in rows)
    again = ch96.table1_cell_rows(table, printed, "Table 1", repeated=True)
    assert [r["derived_from"] for r in again] == [r["item"] for r in again]


def test_a_disagreeing_cell_is_explained_from_the_curves():
    fits = hand_made_fits()  # data set 1: Laplace 4, CS 5; data set 2: both 4
    why = ch96.cell_explanation(fits, "cs", 4, 0.5 + 0.3, 0.5)
    assert "CS selects [5, 4] where Laplace selects [4, 4]" in why
    assert "finds the generating c = 4 in 2 of 2" in why
    # a gap 0.3 states beyond the tolerance: one data set of two closes it
    assert "1 of the 2 data sets choosing one state fewer" in why
    # at c = 5 Laplace is 1 nat below its maximum; at c = 4 CS is 1 nat below its own
    assert "falls 1.0 nats short" in why and "Laplace 1.0 nats short" in why
    flat = fits.assign(cs=fits.cs / 4, laplace=fits.laplace / 4)  # gaps of 0.25 nats
    assert "near tie" in ch96.cell_explanation(flat, "cs", 4, -1.6, 0.5)
    assert "3 of the 2" not in ch96.cell_explanation(flat, "cs", 4, -1.6, 0.5)
    # at large c: the Laplace choice the paper's Δc implies if CS sits at c, as Sec. 4 says
    large = fits.assign(experiment="c32", hidden_states=fits.hidden_states + 26)  # 28..32
    large[["laplace", "cs"]] = [[-(c - 28) ** 2, -(c - 32) ** 2] for c in large.hidden_states]
    why = ch96.cell_explanation(large, "cs", 32, 4.0 - 16.2, 2.0)
    assert "its Laplace near 15.8 states (c/2 = 16); ours selects 28.0 on average, CS 32.0" in why
    # the generating draw, never varied, is named as an untested cause at large c only
    assert ch96.GENERATING_UNTESTED in why
    assert ch96.GENERATING_UNTESTED not in ch96.cell_explanation(fits, "cs", 4, 0.8, 0.5)


def test_a_verdict_that_changes_with_the_protocol_names_the_fits_below_the_mode():
    # fig2_c32 of the main run: the paper's protocol ends 212-445 nats below EM started from
    # the generating parameters, the search 107 nats or more above it
    far = pd.Series({"oracle_fits": 5, "paper_minus_oracle_min": -445.2,
                     "paper_minus_oracle_max": -212.5, "search_minus_oracle_min": 107.3})
    # agreement only under the paper's protocol: it rests on fits far below the mode, said
    # from both rows
    for protocol, agrees, other in (("paper", True, False), ("search", False, True)):
        why = ch96.protocol_contrast(protocol, agrees, other, far)
        assert "ends 212 to 445 nats below EM started from the generating parameters" in why
        assert "107 nats or more above it" in why
        assert "the agreement under the paper's protocol rests on fits far below the mode" in why
        assert "the disagreement here comes from EM's local optima" not in why
    assert ch96.protocol_contrast("search", False, True, far).startswith(
        "reproduced under the paper's EM protocol")
    # the other way round: the paper's protocol disagrees, the search reaches the mode and agrees
    assert "the disagreement under the paper's protocol comes from fits far below the mode" in \
        ch96.protocol_contrast("paper", False, True, far)
    # counterfactual: both protocols reach the mode, so nothing says "far below the mode"
    near = pd.Series({**far.to_dict(), "paper_minus_oracle_min": -1.0,
                      "paper_minus_oracle_max": 0.0})
    why = ch96.protocol_contrast("paper", True, False, near)
    assert "far below" not in why and why.startswith("not reproduced under the annealed search")
    assert "far below" not in ch96.protocol_contrast("paper", True, False, None)
    # same verdict under both: nothing to add, or "not EM's local optima alone"
    assert ch96.protocol_contrast("paper", True, True, far) == ""
    assert "not reproduced either" in ch96.protocol_contrast("search", False, False, far)


def test_table2_verdicts_on_the_paper_s_own_times():
    printed = pd.read_csv(PRINTED_TABLE1.with_name("paper_table2.csv"))
    b, se = ch96.scaling_exponent(printed.d, printed.laplace)
    assert 2.4 < b < 3.0 and se < 0.2  # 2800 s at d = 1689 to 6700 s at d = 2339
    ours = printed.rename(columns={step: f"{step}_seconds" for step in ch96.TIMED})
    timing = ours.merge(printed.add_prefix("paper_").rename(columns={"paper_d": "d"}), on="d")
    rows = {r["item"]: r for r in ch96.table2_rows(timing)}
    assert len(rows) == len(ch96.TIMED) + 3
    # the printed CS, Draper and BIC times take 2 values (2 and 3 s), MLED's 3: no exponent
    quantised = {f"{ch96.LABELS[s]}: time grows as d^b"
                 for s in ("cs", "mled", "draper", "bic_log_evidence")}
    # the ratios of the columns are the implementation's, not claims of the text
    ratios = {"Laplace costs several times EM (median ratio over d)",
              "MLED is far cheaper than CS (median ratio CS / MLED over d)"}
    assert {i for i, r in rows.items() if r["verdict"] == "not checked"} == quantised | ratios
    assert all(rows[i]["explanation"].startswith("not checked: implementation-specific")
               for i in ratios)
    assert {r["verdict"] for i, r in rows.items() if i not in quantised | ratios} == \
        {"reproduced"}
    assert "2 distinct values (2, 3 s)" in rows["CS: time grows as d^b"]["explanation"]
    # times printed finely enough to show growth are checked
    assert ch96.quantised(printed.cs) and not ch96.quantised(printed.em)
    assert not ch96.quantised(printed.cs * (printed.d / 1689.0) ** 0.98)
    faster_laplace = timing.assign(laplace_seconds=0.1 * timing.em_seconds)
    verdicts = {r["item"]: r for r in ch96.table2_rows(
        faster_laplace, cases=400, em={"restarts": 64, "max_iterations": 200})}
    assert verdicts["Laplace: time grows as d^b"]["verdict"] == "not reproduced"
    row = verdicts["Laplace costs several times EM (median ratio over d)"]
    assert row["verdict"] == "not checked"
    assert "our ratio Laplace / EM goes from 0.10 to 0.10 (not rising), the paper's from 5.6 " \
        "to 7.7 (rising)" in row["explanation"]
    # counted: 6 x 64 iterations of the schedule and 200 final ones; (400 d^2 + d^3/3) /
    # (584 * 400 d) at d = 1689
    assert ch96.em_iterations(64, 200) == 584
    ratio = (400 * 1689 ** 2 + 1689 ** 3 / 3) / (584 * 400 * 1689)
    assert f"the ratio of operations is {ratio:.1f} at d = 1689" in row["explanation"]
    why = verdicts["Laplace: time grows as d^b"]["explanation"]
    assert "N d² + d³/3" in why and "Conjecture" in why
    # CS as cheap as MLED: the explanation computes what a fresh log p(D | θ) would cost
    cheap_cs = timing.assign(cs_seconds=1.5 * timing.mled_seconds)
    row = {r["item"]: r for r in ch96.table2_rows(cheap_cs)}[
        "MLED is far cheaper than CS (median ratio CS / MLED over d)"]
    assert row["verdict"] == "not checked" and "the paper's 25" in row["explanation"]
    assert "26.0 times MLED" in row["explanation"]  # (0.08 + 2) / 0.08, the median row
    # Laplace no longer the slowest at one d
    slow_bic = timing.assign(bic_log_evidence_seconds=timing.bic_log_evidence_seconds.where(
        timing.d != 1689, 1e4))
    assert {r["item"]: r for r in ch96.table2_rows(slow_bic)}[
        "Laplace is the least efficient score (Sec. 2), at every d"]["verdict"] == \
        "not reproduced"
    # our exponent is fitted over the paper's range of d; the others are shown beside it
    extra = pd.DataFrame({"d": [800, 1200], **{f"{s}_seconds": [1.0, 1.0] for s in ch96.TIMED}})
    wider = pd.concat([timing, extra.assign(laplace_seconds=[100.0, 700.0])],
                      ignore_index=True).sort_values("d")
    row = {r["item"]: r for r in ch96.table2_rows(wider)}["Laplace: time grows as d^b"]
    assert "11 test models" in row["ours"] and "over all 13 (d = 800..2339)" in row["ours"]
    assert row["verdict"] == "reproduced"
    # an agreement over the paper's range only, where our time does not grow over all test
    # models, is scatter: not reproduced (the EM row above grows over all 13, so it holds)
    assert {r["item"]: r for r in ch96.table2_rows(wider)}["EM: time grows as d^b"][
        "verdict"] == "reproduced"
    small = pd.DataFrame({"d": np.arange(200, 1600, 100), **{
        f"{s}_seconds": timing[f"{s}_seconds"].median() for s in ch96.TIMED}})
    flat = {r["item"]: r for r in ch96.table2_rows(pd.concat([small, timing],
                                                             ignore_index=True))}
    row = flat["EM: time grows as d^b"]
    assert row["verdict"] == "not reproduced" and "11 test models" in row["ours"]
    assert "our time does not grow with d" in row["explanation"]
    # times that scatter (a millisecond step timed once on a busy machine): no exponent to judge
    scatter = np.random.default_rng(1).lognormal(0.0, 1.0, len(timing))
    noisy = timing.assign(em_seconds=1e-3 * scatter)
    verdict = {r["item"]: r for r in ch96.table2_rows(noisy)}["EM: time grows as d^b"]
    assert verdict["verdict"] == rp.UNDECIDED and "tell the two apart" in verdict["explanation"]
    # within reach of the paper's b but not shown to grow (b = -0.1 +- 0.5 against a printed
    # 0.98 +- 0.39 had read reproduced): not decided; the same b measured precisely: not
    # reproduced (a paper column printed finely enough to be checked)
    d = timing.d.to_numpy(float)
    wobble = np.exp(0.5 * np.random.default_rng(3).standard_normal(len(d)))
    fine = timing.assign(paper_cs=2.0 * (d / d[0]) ** 0.98 * np.exp(
        0.1 * np.random.default_rng(4).standard_normal(len(d))))
    shaky = fine.assign(cs_seconds=1e-3 * (d / d[0]) ** -0.1 * wobble)
    row = {r["item"]: r for r in ch96.table2_rows(shaky)}["CS: time grows as d^b"]
    b, se = ch96.scaling_exponent(shaky.d, shaky.cs_seconds)
    paper_b, paper_se = ch96.scaling_exponent(fine.d, fine.paper_cs)
    assert abs(b - paper_b) <= 2 * np.hypot(se, paper_se) and b <= 2 * se
    assert row["verdict"] == rp.UNDECIDED
    steady = fine.assign(cs_seconds=1e-3 * (d / d[0]) ** -0.1)
    assert {r["item"]: r for r in ch96.table2_rows(steady)}["CS: time grows as d^b"][
        "verdict"] == "not reproduced"
    flat = fine.assign(cs_seconds=1e-3 * (1 + 1e-3 * scatter))  # fixed costs, precise
    verdict = {r["item"]: r for r in ch96.table2_rows(flat)}["CS: time grows as d^b"]
    assert verdict["verdict"] == "not reproduced" and "fixed costs" in verdict["explanation"]
    # EM: a fixed number of final iterations (Sec. 3's, as ours) is not what makes b differ
    slow_em = timing.assign(em_seconds=timing.em_seconds * (d / d[0]) ** 2, iterations=200)
    why = {r["item"]: r for r in ch96.table2_rows(slow_em)}["EM: time grows as d^b"]
    assert why["verdict"] == "not reproduced" and "the same 200 final iterations" in \
        why["explanation"] and "Sec. 3 fixes the paper's iterations" in why["explanation"]
    assert "fixed costs" not in why["explanation"]
    # ours as run: EM's time barely grows with d (b = 0.08 +- 0.23 against one E step's 1):
    # fixed costs set it, so it cannot test the paper's b
    assert ch96.em_overhead_dominated(0.08, 0.23) and not ch96.em_overhead_dominated(0.7, 0.2)
    flat_em = timing.assign(em_seconds=0.3 * (d / d[0]) ** 0.05 * wobble ** 0.1, iterations=200)
    why = {r["item"]: r for r in ch96.table2_rows(flat_em)}["EM: time grows as d^b"]
    assert why["verdict"] == "not checked" and "cannot test the paper's b" in why["explanation"]
    assert "dominated by fixed costs" in why["explanation"]


def test_table2_s_verdicts_and_readable_headers_in_comparison_md():
    printed = pd.read_csv(PRINTED_TABLE1.with_name("paper_table2.csv"))
    timing = printed.rename(columns={step: f"{step}_seconds" for step in ch96.TIMED}).merge(
        printed.add_prefix("paper_").rename(columns={"paper_d": "d"}), on="d").assign(
        hidden_states=lambda t: (t.d - 1) // 65, iterations=200)
    rows = ch96.table2_rows(timing)
    text = "\n".join(ch96._table2_lines(timing, rows))
    assert "| hidden states |" in text and "| EM (s) | Laplace (s) |" in text
    assert "| paper BIC (s) |" in text and "bic_log_evidence" not in text
    assert "Table 2's verdicts" in text
    assert "| Laplace is the least efficient score (Sec. 2), at every d | yes | yes | " \
        "reproduced | — |" in text
    # without verdicts (none computed) only the table
    assert "Table 2's verdicts" not in "\n".join(ch96._table2_lines(timing, []))


SECTION3 = pd.read_csv(PRINTED_TABLE1.with_name("paper_section3.csv")).iloc[0]


def test_convergence_and_reality_check_claims():
    fits = pd.DataFrame({"converged": [True] * 549 + [False]})
    verdict, evidence, why = ch96.claim_convergence(fits, SECTION3)
    assert verdict == "supported" and "the paper: 549 of 550" in evidence
    assert why.startswith("weak check: the criterion is met")
    assert ch96.claim_convergence(pd.DataFrame({"converged": [True] * 95 + [False] * 5}),
                                  SECTION3)[0] == "partly supported"
    assert ch96.claim_convergence(pd.DataFrame({"converged": [True, False, False]}),
                                  SECTION3)[0] == "not supported"
    # with the last relative change of every fit: how far inside the tolerance they ended
    em = {"tolerance": 1e-5, "max_iterations": 200, "run_all_iterations": True}
    changes = np.array([1e-9] * 90 + [3e-6] * 9 + [5e-5])
    fits = pd.DataFrame({"converged": changes <= 1e-5, "last_relative_change": changes,
                         "log_posterior": -2e4})
    verdict, evidence, why = ch96.claim_convergence(fits, SECTION3, em)
    assert verdict == "supported" and "99 of 100 fits" in evidence
    # the oracle says how good the modes are, which the criterion does not
    oracle = fits.assign(oracle_log_posterior=[-2e4 + 300.0] * 10 + [None] * 90)
    assert "ranges from -300.0 to -300.0 nats (10 fits" in ch96.claim_convergence(
        oracle, SECTION3, em)[2]
    assert "after all 200 final iterations" in evidence and "largest" in evidence
    assert "90 would meet a tolerance 10 times smaller" in evidence and "0.20 nats" in evidence
    # fits that stopped at the cap still moving beyond the tolerance are not converged
    moving = fits.assign(last_relative_change=1e-4, converged=False)
    assert ch96.claim_convergence(moving, SECTION3, em)[::2] == ("not supported", "")
    assert ch96.last_relative_change([-100.0, -99.0]) == pytest.approx(0.01)
    assert np.isnan(ch96.last_relative_change([-100.0]))
    reality = pd.DataFrame({"repetition": [1, 2], "hidden_states": [3, 3],
                            "cs_states": [3, 3], "mled_states": [3, 2],
                            "draper_states": [3, 3], "bic_log_evidence_states": [3, 3]})
    verdict, evidence = ch96.claim_reality_same_model(reality, 3)
    assert verdict == "partly supported" and "agree in 1 of 2" in evidence
    assert ch96.claim_reality_same_model(reality.assign(mled_states=3), 3)[0] == "supported"
    # the paper's own Δm (26 ± 33 over five) holds by its rule, the sign of the mean
    printed = pd.read_csv(PRINTED_TABLE1.with_name("paper_reality_check.csv")).iloc[0]
    paper = pd.DataFrame({"delta_m": 26 + 33 * np.array([-1.2, -0.4, 0.0, 0.4, 1.2]),
                          "hidden_states": 3})
    assert paper.delta_m.mean() == pytest.approx(printed.delta_m_mean)
    assert ch96.claim_reality_delta_m(paper)[0] == "supported"
    assert ch96.claim_reality_delta_m(paper.assign(delta_m=-paper.delta_m))[0] == \
        "not supported"


def test_shape_distance_and_draper_cs_shapes():
    fits = hand_made_fits()  # every curve -(c - peak)^2 over c = 2..6
    # data set 1: Laplace peaks at 4, BIC at 2: shapes differ by |(c-2)^2 - (c-4)^2| on average
    one = fits[fits.replicate == 1]
    expected = np.mean([abs((c - 4) ** 2 - (c - 2) ** 2) for c in range(2, 7)])
    assert ch96.curve_shape_distance(one, "bic_log_evidence") == pytest.approx(expected)
    assert ch96.curve_shape_distance(one, "laplace") == 0.0
    assert ch96.curve_shape_distance(one, "bic_log_evidence", reference="bic_log_evidence") == 0.0
    # the posterior weights by hand: exp(-(c - peak)^2) normalised, half the summed differences
    states = np.arange(2, 7)
    laplace, bic = np.exp(-(states - 4.0) ** 2), np.exp(-(states - 2.0) ** 2)
    by_hand = 0.5 * np.abs(laplace / laplace.sum() - bic / bic.sum()).sum()
    assert ch96.curve_shape_distance(one, "bic_log_evidence",
                                     distance=posterior_weight_distance) == \
        pytest.approx(by_hand)
    # the paper's reading: CS one state above Laplace's peak, Draper one below, BIC two below
    # and steeper; five data sets with their own noise
    states = range(2, 9)
    paper = curves({e: (states, {"laplace": peaked(5, 10), "cs": peaked(6, 10),
                                 "mled": peaked(6, 10), "draper": peaked(4, 10),
                                 "bic_log_evidence": peaked(3, 30)}) for e in ("e1", "e2")},
                   noise=1.0)
    verdict, evidence = ch96.draper_cs_verdicts(paper)["shape"]
    assert verdict == "supported" and "equally good within the noise" in evidence
    assert ch96.draper_cs_verdicts(
        paper.assign(draper=paper.bic_log_evidence))["shape"][0] == "not supported"
    # CS's curve 2.5 times as steep as Laplace's: nearer BIC/MDL than Draper, beyond the noise
    sharper_cs = paper.assign(cs=2.5 * paper.laplace)
    verdict, evidence = ch96.draper_cs_verdicts(sharper_cs)["shape"]
    assert verdict == "partly supported" and "Draper is the closer beyond the noise" in evidence
    # the names limit the data sets (experiments sharing their fits are counted once)
    assert "over 5 data sets" in ch96.draper_cs_verdicts(paper, ["e1"])["shape"][1]


def test_draper_cs_for_model_averaging_is_judged_by_the_posterior_weights():
    """Curves -a (c - c0)^2 with noise: CS and Draper peak half a state either side of Laplace,
    BIC two states below and steeper: equally good, both better than BIC, by the weights and by
    shape. A Draper ten times flatter than Laplace and a CS nearly twice as steep lie equally
    far in shape, but Draper spreads its weight over every test model: by the weights CS is
    the closer beyond the noise, and the claim, judged by the weights, is partly supported."""
    states = range(2, 9)

    def bowl(c0, a):
        return lambda c: -a * (c - c0) ** 2

    def fits(cs, draper):
        return curves({e: (states, {"laplace": bowl(5, 0.5), "cs": cs, "mled": cs,
                                    "draper": draper, "bic_log_evidence": bowl(3, 3)})
                       for e in ("e1", "e2")}, noise=0.3)

    paper = fits(bowl(5.5, 0.5), bowl(4.5, 0.5))
    verdict, evidence = ch96.claim_draper_cs_averaging(paper)
    assert verdict == "supported"
    assert evidence.startswith("In the posterior weights (what model averaging uses): "
                               "total-variation distance")
    assert "Draper − CS +0.06 (s.e. 0.04), CS the closer in 7 of 10, Draper in 3, the same to " \
           "two decimals in 0: equally good within the noise; both better than BIC/MDL beyond " \
           "the noise (2 standard errors, paired): yes. In shape" in evidence
    assert evidence.endswith("by shape the claim is supported.")
    # counterfactual: equal in shape, apart in the weights
    verdict, evidence = ch96.claim_draper_cs_averaging(fits(bowl(5, 0.95), bowl(5, 0.05)))
    assert verdict == "partly supported"
    assert "CS is the closer beyond the noise; both better than BIC/MDL beyond the noise (2 " \
           "standard errors, paired): yes. In shape" in evidence
    assert evidence.endswith("by shape the claim is supported.")
    # counterfactual: Draper on BIC's curve is no better than BIC by either measure
    verdicts = ch96.draper_cs_verdicts(paper.assign(draper=paper.bic_log_evidence))
    assert [verdicts[m][0] for m in ("weights", "shape")] == ["not supported"] * 2
    # the choices say the verdict follows our reading, and what the paper did (Sec. 3's words)
    choice = ch96.THRESHOLD_CHOICES["averaging"]
    assert "the verdict follows the weights" in choice
    assert ("the paper 'simply compared plots of log marginal likelihood versus states of the "
            "hidden variable' (Sec. 3), which is closer to the curves' shape distance") in choice


# --- the curves of Figures 1-3, built from the paper's words ---------------------------------
def curves(experiments: dict, replicates=(1, 2, 3, 4, 5), seed=0, noise=0.5):
    """Fits whose curves follow ``experiments``: name -> (test states, {score: f(c)}); every
    data set adds its own noise of s.d. ``noise`` nats."""
    rng = np.random.default_rng(seed)
    rows = []
    for name, (states, shapes) in experiments.items():
        for replicate in replicates:
            for c in states:
                rows.append({"experiment": name, "replicate": replicate, "hidden_states": c,
                             "laplace_positive_definite": True,
                             **{s: f(c) + noise * rng.standard_normal()
                                for s, f in shapes.items()}})
    return pd.DataFrame(rows)


def peaked(c0, height):
    """A curve with one peak at ``c0``, ``height`` nats above the neighbouring test models."""
    return lambda c: -height * abs(c - c0) - 5.0 * (c - c0) ** 2


SHARPEN_SECTION = {
    "models": {f"m{n}": {"hidden_states": 4, "features": n} for n in (8, 16, 32, 64)},
    "experiments": {f"e{n}": {"model": f"m{n}", "cases": 400,
                              "test_states": {"min": 2, "max": 8}} for n in (8, 16, 32, 64)},
    "figures": {"figure1": ["e8", "e16", "e32", "e64"]}}


def test_curves_sharpen_with_n_as_the_paper_says_and_not_when_flat_or_saturated():
    heights = {"e8": 10.0, "e16": 20.0, "e32": 40.0, "e64": 80.0}
    paper = curves({name: (range(2, 9), {s: peaked(4, h) for s in ch96.SCORES})
                    for name, h in heights.items()})
    steps = ch96.sharpening_steps(paper, SHARPEN_SECTION)
    assert len(steps) == 3 * len(ch96.SCORES) * len(ch96.PEAKEDNESS)
    verdict, evidence = ch96.claim_curves_sharpen(steps)
    assert verdict == "supported" and "15 of 15 steps" in evidence
    # Laplace's weights 1.00, 0.00, 0.00, 0.00: c chosen at n = 8, then far below the best
    # test model, and no more peaked about c as n grows (a 0 -> 0 step)
    saturated = curves({name: (range(2, 9), {s: peaked(4 if name == "e8" else 2, 60.0)
                                             for s in ch96.SCORES}) for name in heights})
    steps = ch96.sharpening_steps(saturated, SHARPEN_SECTION)
    verdict, _, why = ch96.claim_curves_sharpen(steps)
    assert verdict == "not supported" and "Laplace, n 8 → 16: " in why
    flat = curves({name: (range(2, 9), {s: peaked(4, 30.0) for s in ch96.SCORES})
                   for name in heights})
    assert ch96.claim_curves_sharpen(ch96.sharpening_steps(flat, SHARPEN_SECTION))[0] == \
        "not supported"
    # one data set (the one-data-set figure): any move in the stated direction holds
    one = ch96.sharpening_steps(paper, SHARPEN_SECTION, replicate=1)
    assert one.holds.all() and (one.tolerance == 0).all()


def test_peak_log_odds_does_not_saturate():
    curve = pd.Series({2: -50.0, 3: -10.0, 4: 0.0, 5: -30.0})
    assert ch96.peak_log_odds(curve, 4) == 10.0
    assert ch96.peak_log_odds(curve, 3) == -10.0
    assert ch96.peak_log_odds(curve, 2, neighbours=True) == -40.0
    assert np.isnan(ch96.peak_log_odds(curve, 7))


def two_peaks(c, first, second, right_fall):
    """A curve with a broad peak at c/2 (height ``first``), a sharp one at c (``second``) and a
    fall of ``right_fall`` nats per state beyond c."""
    def f(s):
        broad = first - 8.0 * (s - c / 2) ** 2 / c
        sharp = second - 30.0 * abs(s - c) if s <= c else second - right_fall * (s - c)
        return max(broad, sharp)
    return f


def test_two_peaks_and_the_flat_cs_curve_as_the_paper_describes_them():
    c, states = 32, range(12, 41)
    paper = curves({"c32": (states, {
        "laplace": two_peaks(c, 0.0, -20.0, 40.0), "draper": two_peaks(c, 0.0, -30.0, 45.0),
        "bic_log_evidence": two_peaks(c, 0.0, -40.0, 60.0), "cs": two_peaks(c, -20.0, 0.0, 5.0),
        "mled": two_peaks(c, -20.0, -2.0, 6.0)})})
    table = printed_table1()
    paper_row = table[table.c == c].assign(experiment="c32")
    verdict, evidence = ch96.claim_two_peaks(paper, c)
    assert verdict == "supported", evidence
    assert "the paper's 16.2 ± 1.5" in ch96._cs_delta_text(
        paper_row, pd.read_csv(PRINTED_TABLE1, dtype=str), "c32")
    assert "with the first peak below 21.3: supported, below 26.7: supported" in evidence
    verdict, evidence = ch96.claim_cs_flat_right(paper, c)
    assert verdict == "supported" and "at 1/1.5: supported, at 1/3: not supported" in evidence
    # one broad peak near c/2 and none at c (what we find for Laplace and Draper): the claim's
    # subject is missing, whichever peak "dominates"
    single = curves({"c32": (states, {s: peaked(20, 30.0) for s in ch96.SCORES})})
    verdict, evidence, why = ch96.claim_two_peaks(single, c)
    assert verdict == "not supported" and "local maximum nearest c: [20, 20, 20, 20, 20]" in \
        evidence
    assert why.startswith("no local maximum within 2 states of c in most data sets: Laplace, CS")
    assert "the other peak higher in most data sets: CS" in why
    verdict, _, why = ch96.claim_cs_flat_right(single, c)
    assert verdict == "not supported" and "times as fast as CS" in why
    # both peaks present but CS's second peak lower than its first: partly
    swapped = paper.assign(cs=paper.laplace)
    assert ch96.claim_two_peaks(swapped, c)[0] == "partly supported"


def test_the_large_c_curve_claims_pool_the_generating_draws():
    """Draw 1 has one broad peak in every data set (not supported); draws 2 and 3 have both
    peaks, so that most of the 15 pooled data sets do (supported): the verdict is the pooled
    one, with draw 1's in the evidence and the difference explained. Without further draws the
    verdict is draw 1's alone, and the claims pooled are named for comparison.md."""
    c, states = 32, range(12, 41)
    shapes = {"laplace": two_peaks(c, 0.0, -20.0, 40.0), "draper": two_peaks(c, 0.0, -30.0, 45.0),
              "bic_log_evidence": two_peaks(c, 0.0, -40.0, 60.0),
              "cs": two_peaks(c, -20.0, 0.0, 5.0), "mled": two_peaks(c, -20.0, -2.0, 6.0)}
    single = curves({"c32": (states, {s: peaked(20, 30.0) for s in ch96.SCORES})})
    redrawn = pd.concat([curves({f"c32_draw{d}": (states, shapes)}, seed=d) for d in (2, 3)])
    section = {"experiments": {"c32": {"model": "m", "cases": 400}},
               "models": {"m": {"hidden_states": c, "features": 64}},
               "generating_draws": {"experiments": ["c32"], "draws": 3}}
    pooled = ch96.pooled_draw_fits(single, redrawn, section, ["c32"])
    verdict, evidence, why = ch96.judged_on_draws(ch96.claim_two_peaks, single, pooled, 3, c)
    assert verdict == "supported"
    assert evidence.startswith("Pooled over the 3 generating draws, as the verdict reads it "
                               "(data sets: c32 15): Laplace: both peaks in 10 of 15 data sets")
    assert "Draw 1 alone, the paper's design of one draw per generating model (data sets: " \
        "c32 5): not supported: Laplace: both peaks in 0 of 5" in evidence
    assert why.startswith("draw 1 alone gives not supported (data sets: c32 5)")
    # the counterfactual: no further draws, draw 1's verdict alone, unchanged
    assert ch96.judged_on_draws(ch96.claim_two_peaks, single, None, 1, c) == \
        ch96.claim_two_peaks(single, c)
    # the flat-right claim pools the same way, and both are named as pooled
    flat = ch96.judged_on_draws(ch96.claim_cs_flat_right, single, pooled, 3, c)
    assert flat[1].startswith("Pooled over the 3 generating draws")
    assert ch96.large_c_claim("peaks", c) in ch96.pooled_claims(section, {"c32"})
    assert ch96.large_c_claim("flat", c) in ch96.pooled_claims(section, {"c32"})
    assert not ch96.pooled_claims(section, set())


def test_error_bars_and_cs_against_mled_on_the_figures():
    section = {**SHARPEN_SECTION, "figures": {"figure1": ["e8", "e64"]}}
    shapes = {"e8": (range(2, 9), {"laplace": peaked(4, 100.0), "cs": peaked(4, 100.0),
                                   "mled": peaked(4, 300.0), "draper": peaked(4, 90.0),
                                   "bic_log_evidence": peaked(4, 150.0)}),
              "e64": (range(2, 9), {"laplace": peaked(4, 100.0), "cs": peaked(4, 101.0),
                                    "mled": peaked(4, 102.0), "draper": peaked(4, 90.0),
                                    "bic_log_evidence": peaked(4, 150.0)})}
    fits = curves(shapes, noise=1.0)
    verdict, evidence = ch96.claim_error_bars_invisible(fits, ["e8", "e64"])
    assert verdict == "supported" and "halved or doubled, at 1.25% / 2.5%" in evidence
    verdict, evidence = ch96.claim_cs_mled_curves(fits, section, ["e8", "e64"])
    assert verdict == "supported", evidence
    # data sets whose curves differ by tens of nats: visible error bars
    noisy = curves(shapes, noise=60.0)
    verdict, _, why = ch96.claim_error_bars_invisible(noisy, ["e8", "e64"])
    assert verdict == "not supported" and why.startswith("median bar per panel")
    # MLED apart from CS at n = 64 as well, and closer to Laplace at n = 8
    apart = fits.assign(mled=np.where(fits.experiment == "e64", fits.mled - 5 * fits.hidden_states
                                      ** 2, fits.laplace))
    verdict, _, why = ch96.claim_cs_mled_curves(apart, section, ["e8", "e64"])
    assert verdict == "not supported" and "apart beyond 5% at e64 (n = 64, N = 400)" in why
    assert "MLED as near Laplace's shape as CS at e8" in why


def test_the_d_prime_equals_d_assumption():
    fits = hand_made_fits().pipe(lambda f: f.assign(cs_de=f.cs))
    dimensions = [pd.DataFrame({"hidden_states": [2, 3, 4, 5, 6], "ds": [17, 26, 35, 44, 53],
                                "de": [17, 26, 35, 44, 53]})]
    verdict, evidence = ch96.claim_dimension_assumption(fits, dimensions)
    assert verdict == "supported" and "de = ds for 5 of the 5" in evidence
    deficient = [dimensions[0].assign(de=[17, 26, 35, 44, 50])]
    assert ch96.claim_dimension_assumption(fits, deficient)[0] == "partly supported"
    # CS with d = de now selects another model in data set 1 (cs_de peaks at 4, CS at 5)
    verdict, evidence = ch96.claim_dimension_assumption(hand_made_fits(), deficient)
    assert verdict == "not supported" and "in 1 of 2 data sets" in evidence
    assert ch96.claim_dimension_assumption(fits, [dimensions[0].assign(de=np.nan)]) is None


def test_conclusions_unchanged_by_the_prior_and_changed_by_a_counterfactual():
    table = printed_table1().assign(experiment=lambda t: [f"e{i}" for i in range(len(t))])
    verdict, evidence = ch96.claim_prior_unchanged(table, {"ε = 0.1": table.copy()})
    assert verdict == "supported" and "verdicts changed through cells that moved: none" in \
        evidence
    nudged = table.copy()
    nudged.loc[table.c == 16, "bic_log_evidence_mean"] = -6.0  # one cell moves, no verdict changes
    assert ch96.claim_prior_unchanged(table, {"ML": nudged})[0] == "partly supported"
    flipped = table.assign(draper_mean=table.draper_mean - 5.0)  # Draper now errs most
    verdict, evidence = ch96.claim_prior_unchanged(table, {"ε = 0.001": flipped})
    assert verdict == "not supported" and "through cells that moved: ε = 0.001: 'BIC/MDL" in \
        evidence and "ε = 0.001: 'Draper and CS are the most accurate.' partly supported → " \
        "not supported" in evidence
    assert ch96.claim_prior_unchanged(table, {}) is None
    # the same means, every s.d. 0: no cell moves, but a claim check at its threshold turns
    # (its comparisons now beyond noise); a change of label is not a change of the cells
    sharp = table.assign(**{f"{s}_sd": 0.0 for s in ch96.TABLE1_SCORES})
    verdict, evidence = ch96.claim_prior_unchanged(table, {"ε = 0.1": sharp})
    assert verdict == "supported" and "moved beyond two combined standard errors: 0 of" in \
        evidence
    # the flip is not counted, but its new verdict goes against the paper's sentence: said
    assert "stayed within noise (a check at its threshold, not counted): ε = 0.1: 'Draper and " \
        "CS are the most accurate.' partly supported → not supported (at this prior the check " \
        "reads against the paper's sentence, not merely short of it)" in evidence
    # the opposite flip (toward the sentence) is named without that clause
    evidence = ch96.claim_prior_unchanged(sharp, {"ε = 0.1": table})[1]
    assert "'Draper and CS are the most accurate.' not supported → partly supported;" in \
        evidence and "reads against" not in evidence


def test_prior_variants_refit_from_the_main_fit_s_starts(tmp_path):
    """At the main prior the refit equals the main fit (same EM starts); at ML, Laplace comes
    from the main fit's MAP and log p(D | θ) does not fall."""
    from hiddenbn.data import write_csv
    generator = latent_class(3, [2] * 6)
    data = sample_dataset(generator, random_parameters(generator, np.random.default_rng(0)), 200,
                          np.random.default_rng(1))
    write_csv(tmp_path / "data.csv", data)
    em = {"restarts": 4, "max_iterations": 40, "tolerance": 1e-6, "run_all_iterations": True}
    # the paper protocol's row of the main fit (fit_test_models) of data set 1, seed 7
    main = pd.DataFrame([ch96.fit_and_score_test_model(latent_class(c, [2] * 6), data,
                                                       seeding.rng(7, "em", c), 1.01, em)
                         for c in (2, 3)]).assign(experiment="e", replicate=1)
    variants = ch96.fit_prior_variants([tmp_path / "data.csv"], 6, [2, 3], [7], 1.01,
                                       [1.01, 1.0], em).assign(experiment="e")
    paper = main.set_index("hidden_states")
    same = variants[variants.prior_alpha == 1.01].set_index("hidden_states")
    for score in ("laplace", "cs", "mled", "draper", "bic_log_evidence", "log_likelihood"):
        assert same[score].to_numpy() == pytest.approx(paper[score].to_numpy()), score
    ml = variants[variants.prior_alpha == 1.0].set_index("hidden_states")
    assert ml.laplace.isna().all()
    # EM went on from the MAP without the prior: the likelihood rises, a little
    rise = ml.log_likelihood - paper.log_likelihood
    assert (rise >= -1e-9).all() and (rise < 1.0).all()
    merged = ch96.prior_variant_fits(main, variants)[1.0]
    assert merged.set_index("hidden_states").laplace.to_numpy() == \
        pytest.approx(paper.laplace.to_numpy())


def test_delta_m_grows_with_the_models():
    reality = pd.DataFrame({"features": [12, 12, 16, 16], "generating_states": [3, 3, 4, 4],
                            "delta_m": [20.0, 30.0, 50.0, 70.0]})
    verdict, evidence = ch96.claim_delta_m_grows(reality)
    assert verdict == "supported" and "n = 16, c = 4: 60.0" in evidence
    assert ch96.claim_delta_m_grows(reality.assign(delta_m=[50.0, 70.0, 20.0, 30.0]))[0] == \
        "not supported"


def test_reality_check_explains_mled_leaving_the_generating_c():
    reality = pd.DataFrame({"repetition": [1, 2], "hidden_states": [3, 3],
                            "cs_states": [3, 3], "mled_states": [3, 2],
                            "draper_states": [3, 3], "bic_log_evidence_states": [3, 3],
                            "mled_choice_cs_deficit": [0.0, 22.6],
                            "mled_choice_entropy_deficit": [0.0, 40.9]})
    why = ch96.reality_mled_explanation(reality, 3)
    assert why.startswith("Only MLED") and "by 22.6 nats" in why and "add 40.9 nats" in why
    assert "also leave" in ch96.reality_mled_explanation(
        reality.assign(bic_log_evidence_states=[2, 3]), 3)


def test_a_table1_claim_that_fails_points_at_the_gold_standard_after_its_own_explanation():
    claim = "For large c, Draper does better than CS."
    section = {"experiments": {"fig2_c32": {}}, "gold_standard_experiments": ["fig2_c32"]}
    [row] = ch96.verdict_rows({"paper": [(claim, "not supported", "e", "draw 1 alone gives "
                                          "not decided", "")]}, section)
    assert row["explanation"].startswith("draw 1 alone gives not decided; Δc is measured "
                                         "against the states Laplace selects")
    assert ch96.GOLD_VERDICTS_WHERE in row["explanation"]
    # without an explanation of its own: the pointer alone
    [row] = ch96.verdict_rows({"paper": [(claim, "not supported", "e", "", "")]}, section)
    assert row["explanation"].startswith("Δc is measured against the states Laplace selects")
    # the counterfactual: a supported claim keeps its own explanation only
    [row] = ch96.verdict_rows({"paper": [(claim, "supported", "e", "draw 1 alone gives not "
                                          "decided", "")]}, section)
    assert row["explanation"] == "draw 1 alone gives not decided"


def test_a_verdict_that_changes_with_the_search_keeps_its_own_explanation():
    claim = "c = 32: two peaks"
    rows = ch96.verdict_rows({"paper": [(claim, "partly supported", "e1", "computed cause",
                                         "a choice")],
                              "search": [(claim, "not supported", "e2", "", "")]})
    paper, search = rows
    assert paper["verdict"] == "partly reproduced" and search["verdict"] == "not reproduced"
    # the paper's protocol is counted; the search checks the same claim again
    assert paper["derived_from"] == "" and search["derived_from"] == claim
    alone = ch96.verdict_rows({"search": [(claim, "not supported", "e2", "", "")]})
    assert alone[0]["derived_from"] == ""
    assert paper["explanation"].startswith("not supported under the annealed search")
    assert paper["explanation"].endswith(". computed cause")
    assert search["explanation"].startswith("partly supported under the paper's EM protocol")
    # with the search table: where the paper's protocol ends below the mode, by how much
    table = pd.DataFrame({"experiment": ["fig2_c32", "fig2_c4"], "oracle_fits": [5, 5],
                          "paper_minus_oracle_min": [-445.2, 0.0],
                          "paper_minus_oracle_max": [-212.5, 0.0],
                          "search_minus_oracle_min": [107.3, 0.0]})
    paper, _ = ch96.verdict_rows({"paper": [(claim, "partly supported", "e1", "", "")],
                                  "search": [(claim, "not supported", "e2", "", "")]},
                                 shortfall=table)
    assert "on data sets of fig2_c32 (by up to 445), the search at most 0 nats below it, so the " \
        "paper's protocol's verdict rests on fits below the mode" in paper["explanation"]
    # counterfactual: the search ends far below the mode too, or neither does
    assert "both protocols' verdicts rest" in ch96.shortfall_text(
        table.assign(search_minus_oracle_min=[-50.0, 0.0]))
    assert "both protocols end within" in ch96.shortfall_text(
        table.assign(paper_minus_oracle_min=[-1.0, 0.0]))


# --- the test-model ranges, their edges and the reconstruction choices ------------------------
FIGURES = pd.read_csv(PRINTED_TABLE1.with_name("paper_figures.csv"))
RANGES_SECTION = {
    "models": {"n64": {"hidden_states": 4, "features": 64},
               "c32": {"hidden_states": 32, "features": 64}},
    "experiments": {"fig1_n64": {"model": "n64", "cases": 400, "test_states": {"min": 2, "max": 8}},
                    "fig2_c4": {"model": "n64", "cases": 400, "test_states": {"min": 2, "max": 8}},
                    "fig2_c32": {"model": "c32", "cases": 400,
                                 "test_states": {"min": 12, "max": 40}}},
    "figures": {"figure1": ["fig1_n64"], "figure2": ["fig2_c32", "fig2_c4"]}}


def test_ranges_stated_by_the_paper_and_reconstructed_ones():
    assert ch96.range_origin(RANGES_SECTION, FIGURES, "fig1_n64") == "stated"
    # Figure 2's c = 4 panel is Figure 1's n = 64 experiment (Table 1 prints it twice)
    assert ch96.range_origin(RANGES_SECTION, FIGURES, "fig2_c4") == "stated"
    assert ch96.range_origin(RANGES_SECTION, FIGURES, "fig2_c32") == "reconstructed"
    wider = {**RANGES_SECTION, "experiments": {
        **RANGES_SECTION["experiments"],
        "fig1_n64": {"model": "n64", "cases": 400, "test_states": {"min": 1, "max": 8}}}}
    assert ch96.range_origin(wider, FIGURES, "fig1_n64") == "reconstructed"
    choices = ch96.choices_text(RANGES_SECTION, FIGURES, ["fig2_c32", "fig1_n64"], "paper")
    assert choices.startswith("test-model ranges fig2_c32 12..40 (reconstructed")
    assert "fig1_n64" not in choices and "generating parameters" in choices
    assert "annealed search" in choices
    assert "2 standard errors" in ch96.choices_text(RANGES_SECTION, FIGURES, [], "search",
                                                    ch96.NOISE_CHOICE)


def test_a_choice_at_the_edge_of_the_range_is_named_as_censored():
    # BIC falls from the lowest test model on (its peak lies below the range), as ours did at
    # c = 32 over 12..40; the others peak inside
    states = range(12, 41)
    fits = curves({"fig2_c32": (states, {"laplace": peaked(18, 10), "cs": peaked(20, 10),
                                         "mled": peaked(20, 10), "draper": peaked(15, 10),
                                         "bic_log_evidence": peaked(8, 30)})})
    edges = ch96.range_edges(fits, "bic_log_evidence")
    assert edges.low.all() and not edges.high.any() and (edges.selected == 12).all()
    note = ch96.edge_note(fits, RANGES_SECTION, FIGURES)
    assert note.startswith("range edges, where a choice is censored")
    assert "fig2_c32 (test models 12..40, reconstructed): BIC selects the lowest test " \
        "model (12) in 5 of 5 data sets" in note and "Laplace" not in note
    # a range wide enough: nothing to name
    wide = curves({"fig2_c32": (range(4, 41), {s: peaked(p, 10) for s, p in (
        ("laplace", 18), ("cs", 20), ("mled", 20), ("draper", 15), ("bic_log_evidence", 8))})})
    assert ch96.edge_note(wide, RANGES_SECTION, FIGURES) == ""
    # the Table 1 claims that rest on those choices name the edge
    table = ch96.table1(ch96.selection_errors(fits, ch96.TABLE1_SCORES),
                        {"fig2_c32": RANGES_SECTION["experiments"]["fig2_c32"]},
                        RANGES_SECTION["models"])
    printed = {"section3": SECTION3, "figures": FIGURES,
               "table1": pd.read_csv(PRINTED_TABLE1, dtype=str)}
    section = {**RANGES_SECTION, "em": {"restarts": 64, "tolerance": 1e-5,
                                        "max_iterations": 200, "run_all_iterations": True}}
    rows = ch96.claims(fits.assign(converged=True), table, None, printed, section)
    bic = next(r for r in rows if r[0].startswith("BIC/MDL is the least accurate"))
    assert "BIC selects the lowest test model (12)" in bic[2] + bic[3]
    assert bic[4].startswith("test-model ranges fig2_c32 12..40")


def test_edges_and_fit_counts_follow_the_experiments_a_claim_reads():
    # fig2_c32: BIC at the lowest test model; fig1_n64: CS and BIC at the lowest (2), and
    # fig2_c4 the same experiment printed again (its fits are fig1_n64's)
    small = {"laplace": peaked(4, 10), "cs": peaked(1, 10), "mled": peaked(4, 10),
             "draper": peaked(4, 10), "bic_log_evidence": peaked(1, 10)}
    large = {"laplace": peaked(18, 10), "cs": peaked(20, 10), "mled": peaked(20, 10),
             "draper": peaked(15, 10), "bic_log_evidence": peaked(8, 30)}
    fits = curves({"fig2_c32": (range(12, 41), large), "fig1_n64": (range(2, 9), small)})
    fits = pd.concat([fits, fits[fits.experiment == "fig1_n64"].assign(experiment="fig2_c4")],
                     ignore_index=True).assign(converged=True)
    table = ch96.table1(ch96.selection_errors(fits, ch96.TABLE1_SCORES),
                        RANGES_SECTION["experiments"], RANGES_SECTION["models"])
    printed = {"section3": SECTION3, "figures": FIGURES,
               "table1": pd.read_csv(PRINTED_TABLE1, dtype=str)}
    section = {**RANGES_SECTION, "em": {"restarts": 64, "tolerance": 1e-5,
                                        "max_iterations": 200, "run_all_iterations": True}}
    rows = {r[0]: r for r in ch96.claims(fits, table, None, printed, section)}
    text = lambda row: row[2] + row[3]  # noqa: E731
    # a claim over every experiment and score names every edge
    bic = text(rows["BIC/MDL is the least accurate and biased toward simple models."])
    assert "fig1_n64 (test models 2..8, the paper's own range): CS selects the lowest" in bic
    assert "BIC selects the lowest test model (12)" in bic and "fig2_c4" not in bic
    # the large-c claim reads Draper and CS at c >= 16: neither fig1_n64 nor BIC's edge
    large_c = text(rows["For large c, Draper does better than CS."])
    assert "range edges" not in large_c
    # the directions of CS, MLED and Draper: fig1_n64's CS edge, not BIC's
    signs = text(next(r for c, r in rows.items() if c.startswith("CS and MLED tend to")))
    assert "CS selects the lowest test model (2)" in signs and "BIC" not in signs
    # fits counted once: 29 + 7 test models over 5 data sets, not fig2_c4's 35 again
    converged = next(r for c, r in rows.items() if c.startswith("EM converged"))
    assert converged[2].startswith(f"{5 * (29 + 7)} of {5 * (29 + 7)} fits met")
    own = ch96.distinct_fits(fits, table)
    assert set(own.experiment) == {"fig2_c32", "fig1_n64"} and len(own) == 5 * (29 + 7)
    # the two-peaks verdict at c = 32 names the generating draw as an untested cause
    peaks = next(r for c, r in rows.items() if c.startswith("c = 32: two peaks"))
    assert peaks[1] != "supported" and ch96.GENERATING_UNTESTED in peaks[3]
    # with further draws of c = 32's model, it says what they showed of CS's Δc instead
    drawn = {**section, "generating_draws": {"experiments": ["fig2_c32"], "draws": 3}}
    found = {(ch96.PROTOCOLS["paper"], "fig2_c32", "CS"): "the generating draw is ruled out"}
    rows = {r[0]: r for r in ch96.claims(fits, table, None, printed, drawn,
                                         draw_findings=found)}
    peaks = next(r for c, r in rows.items() if c.startswith("c = 32: two peaks"))
    assert "of CS's Δc, the generating draw is ruled out" in peaks[3]
    assert ch96.GENERATING_UNTESTED not in peaks[3]
    title = ch96.GENERATING_DRAWS_TITLE
    # the draws were not computed for the curves' claims: their choices keep the one draw
    assert "3 draws of" not in peaks[4] and ch96.GENERATING_CHOICE in peaks[4]
    assert (f"3 draws of fig2_c32's model (comparison.md, '{title}'), draw 1 the verdict's"
            in ch96.choices_text(drawn, FIGURES, ["fig2_c32"], "paper", draws="draw 1"))
    assert ch96.GENERATING_CHOICE in ch96.choices_text(drawn, FIGURES, ["fig2_c32"], "paper")
    # an experiment without further draws keeps the one draw, not varied
    assert ch96.GENERATING_CHOICE in ch96.choices_text(drawn, FIGURES, ["fig1_n64"], "paper",
                                                       draws="pooled")
    # with the draws' fits, the large-c claim is judged pooled over them, and names them
    draws = pd.concat([fits[fits.experiment == "fig2_c32"].assign(experiment=f"fig2_c32_draw{d}")
                       for d in (2, 3)], ignore_index=True)
    rows = {r[0]: r for r in ch96.claims(fits, table, None, printed, drawn, draw_fits=draws)}
    large_c = rows["For large c, Draper does better than CS."]
    assert large_c[2].startswith("Pooled over the 3 generating draws, as the verdict reads it "
                                 "(data sets: fig2_c32 15):")
    assert "Draw 1 alone, the paper's design of one draw per generating model (data sets: " \
        "fig2_c32 5):" in large_c[2]
    assert (f"3 draws of fig2_c32's model (comparison.md, '{title}'), "
            f"{ch96.DRAW_READINGS['pooled']}") in large_c[4]
    bic = rows["BIC/MDL is the least accurate and biased toward simple models."]
    assert "3 draws of" not in bic[4] and ch96.GENERATING_CHOICE in bic[4]


def test_the_large_c_verdict_pools_the_draws_in_the_claims_and_their_rows():
    """Draw 1: Draper errs by 3 states and CS by 2 in every data set (CS better: not
    supported). Draws 2 and 3: Draper picks Laplace's model and CS errs by 2 (draw 2) or sits
    at the top of the range (draw 3), so pooled Draper does better: the row's verdict is the
    pooled one, its explanation names draw 1's, and the edge in draw 3 is named over the 15
    data sets. Without the draws' fits the verdict is draw 1's, as before."""
    shapes = {"laplace": peaked(18, 10), "cs": peaked(20, 10), "mled": peaked(20, 10),
              "draper": peaked(15, 10), "bic_log_evidence": peaked(15, 10)}
    fits = curves({"fig2_c32": (range(12, 41), shapes)}).assign(converged=True)
    table = ch96.table1(ch96.selection_errors(fits, ch96.TABLE1_SCORES),
                        {"fig2_c32": RANGES_SECTION["experiments"]["fig2_c32"]},
                        RANGES_SECTION["models"])
    draws = pd.concat([curves({f"fig2_c32_draw{d}": (range(12, 41), {
        **shapes, "draper": peaked(18, 10), "cs": peaked(cs, 10)})}, seed=d)
        for d, cs in ((2, 20), (3, 45))], ignore_index=True)
    printed = {"section3": SECTION3, "figures": FIGURES,
               "table1": pd.read_csv(PRINTED_TABLE1, dtype=str)}
    section = {**RANGES_SECTION, "experiments": {
        "fig2_c32": RANGES_SECTION["experiments"]["fig2_c32"]},
               "figures": {"figure2": ["fig2_c32"]},
               "generating_draws": {"experiments": ["fig2_c32"], "draws": 3},
               "em": {"restarts": 64, "tolerance": 1e-5, "max_iterations": 200,
                      "run_all_iterations": True}}
    claim = "For large c, Draper does better than CS."

    def row(draw_fits):
        claim_list = ch96.claims(fits, table, None, printed, section, draw_fits=draw_fits)
        return next(r for r in ch96.verdict_rows({"paper": claim_list}, section)
                    if r["item"] == claim)

    pooled = row(draws)
    assert pooled["verdict"] == "reproduced"
    assert pooled["ours"].startswith("Pooled over the 3 generating draws, as the verdict reads "
                                     "it (data sets: fig2_c32 15):")
    assert "Draw 1 alone, the paper's design of one draw per generating model (data sets: " \
        "fig2_c32 5): not supported: " in pooled["ours"]
    assert pooled["explanation"].startswith("draw 1 alone gives not supported (data sets: "
                                            "fig2_c32 5); the verdict pools the 3 generating")
    assert "CS selects the highest test model (40) in 5 of 15 data sets" in pooled["explanation"]
    assert ch96.DRAW_READINGS["pooled"] in pooled["choices"]
    # the counterfactual: without the draws' fits, draw 1's verdict, no edge, no draws named
    alone = row(None)
    assert alone["verdict"] == "not reproduced" and "Pooled" not in alone["ours"]
    assert "highest test model" not in alone["ours"] + alone["explanation"]
    assert ch96.GENERATING_CHOICE in alone["choices"]
    assert alone["explanation"].startswith("Δc is measured against the states Laplace selects")


def test_explanations_point_to_the_gold_standard_sections_that_exist():
    section = {"experiments": {"fig2_c32": {}, "fig1_n8": {}}}
    assert "this run has no gold standard" in ch96.gold_reference(section)
    assert "scores none of fig2_c32" in ch96.gold_reference(
        {**section, "gold_standard_experiments": ["fig1_n8"]}, ["fig2_c32"])
    where = ch96.gold_reference({**section, "gold_standard_experiments": ["fig2_c32"]})
    assert ch96.GOLD_FINDINGS_SECTION in where and ch96.GOLD_VERDICTS_WHERE in where
    # the names are the gold standard's own
    source = (Path(__file__).resolve().parents[1]
              / "src/hiddenbn/experiments/gold_standard.py").read_text()
    for name in (ch96.GOLD_FINDINGS_SECTION, ch96.GOLD_VERDICTS_WHERE, ch96.GOLD_SHAPES,
                 ch96.GOLD_SCORES_SECTION):
        assert name in source
    # ICL and sBIC, not in Table 1, are pointed to where the gold standard judges them
    note = ch96.new_scores_note({**section, "gold_standard_experiments": ["fig1_n8"]})
    assert note.startswith("ICL and sBIC") and ch96.GOLD_SCORES_SECTION in note
    assert "no gold standard" in ch96.new_scores_note(section)


def test_figures_label_their_axis_as_the_paper_s_captions_do(monkeypatch, tmp_path):
    labels = []
    monkeypatch.setattr("hiddenbn.reports.plots.save_figure",
                        lambda figure, path: labels.append(figure.axes[0].get_ylabel()))
    fits = hand_made_fits()
    experiments = {"e": {"model": "m", "cases": 100}}
    models = {"m": {"features": 8, "hidden_states": 4}}
    for replicate in (1, None):
        ch96.figure_score_curves(fits, ["e"], experiments, models, tmp_path / "f", replicate)
    assert labels == ["approximate log marginal likelihood",
                      "approximate log marginal likelihood − its maximum"]


def test_the_em_protocol_as_run_is_stated():
    assert ch96.halving_rounds(64) == [(64, 1), (32, 2), (16, 4), (8, 8), (4, 16), (2, 32)]
    fits = pd.DataFrame({"protocol": "paper", "iterations": 200, "converged": [True, False],
                         "last_relative_change": [1e-9, 2e-5]})
    text = "\n".join(ch96._em_protocol_lines(fits, {"restarts": 64, "tolerance": 1e-5,
                                                    "max_iterations": 200,
                                                    "run_all_iterations": True}))
    assert "run 1 iteration (64 starts), 2 iterations (32 starts)" in text
    assert "(384 iterations over all starts); then the one left runs all 200 final" in text
    assert "would run 64 iterations of its own" in text
    assert "| the paper's EM protocol | 2 | 200-200 | 1 |" in text
