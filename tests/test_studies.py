"""User studies from the config: config errors, tiny studies run in-process and checked
for content, regeneration of a replicate with the command line, and the example config's dry
run."""

import copy
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from test_workflow import REPO, snakemake

from hiddenbn import cli
from hiddenbn.data import read_csv
from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import studies
from hiddenbn.inference.enumeration import MAX_HIDDEN_CONFIGURATIONS, hidden_configuration_count
from hiddenbn.learning.selection import SELECTION_SCORE_NAMES, fit_and_score
from hiddenbn.models.network import latent_class, load_parameters, save_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores.singular_bic import default_phi, latent_class_learning_coefficients
from test_singular_bic import iterated_sbic

EXAMPLE = REPO / "config" / "studies_example.yaml"
EM = {"restarts": 2, "max_iterations": 200, "tolerance": 1e-5}
LC_STUDY = {"generators": {"g": {"spec": "2:2,2,2,2"}}, "sample_sizes": [200, 800],
            "replicates": 2, "family": {"type": "latent_class", "hidden_states": {"min": 1,
                                                                                "max": 3}},
            "scores": ["bic_log_evidence", "cs_plus", "laplace"], "em": EM}
TREE = "3(2(2,2,2),2(2,2),2)"
# not a hierarchical latent class model: the observed X1 has a child
CHAIN = {"nodes": {"H1": {"states": 2, "hidden": True}, "X1": {"states": 2, "parents": ["H1"]},
                   "X2": {"states": 2, "parents": ["X1"]}, "X3": {"states": 2, "parents": ["H1"]},
                   "X4": {"states": 2, "parents": ["H1"]}}}


def checked(study, base=REPO):
    return studies.check_config({"s": study}, base)["s"]


def edited(edit):
    study = copy.deepcopy(LC_STUDY)
    edit(study)
    return study


def _set_generator(study, **entry):
    study["generators"]["g"] = entry


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.update(scores=["bic_log_evidence", "bicc"]),
     "studies.s.scores: unknown score 'bicc'; use any of " + ", ".join(SELECTION_SCORE_NAMES)),
    (lambda s: (s.update(scores=["sbic_log_evidence"]),
                s["family"].update(hidden_states={"min": 2, "max": 3})),
     "studies.s.scores: sbic_log_evidence weighs each model against all its submodels, so it "
     "needs the latent class models of 1..K classes; give family {type: latent_class, "
     "hidden_states: {min: 1, max: K}}, or drop sbic_log_evidence"),
    (lambda s: s.update(scores=["sbic_log_evidence"], generators={"g": {"spec": TREE}},
                        family={"type": "hill_climb"}),
     "studies.s.scores: sbic_log_evidence weighs each model against all its submodels"),
    (lambda s: s.update(metrics=["kl", "speed"]), "studies.s.metrics: unknown metric 'speed'"),
    (lambda s: _set_generator(s, spec="3(2,2"),
     "studies.s.generators.g.spec: tree spec '3(2,2', character 6: expected ',' or ')'"),
    (lambda s: _set_generator(s, spec="missing.yaml"),
     "studies.s.generators.g.spec: spec file " + str(REPO / "missing.yaml") + " does not exist"),
    (lambda s: _set_generator(s, spec={"type": "gaussian", "nodes": {"A": {}, "B": {
        "parents": ["A"]}}}), "studies.s.generators.g.spec: a gaussian network"),
    (lambda s: _set_generator(s, spec="2:2,2,2,2", generating_alpha=1.0, parameters="p.json"),
     "studies.s.generators.g: give generating_alpha (fresh random parameters per replicate) or "
     "parameters"),
    (lambda s: _set_generator(s, spec="2:2,2,2,2", parameters="nowhere.json"),
     "studies.s.generators.g.parameters: parameter file " + str(REPO / "nowhere.json") +
     " does not exist"),
    (lambda s: s["family"].update(type="forest"), "studies.s.family.type: unknown family "
                                                  "'forest'; use one of latent_class, hill_climb"),
    (lambda s: s["family"].update(hidden_states={"min": 4, "max": 2}),
     "studies.s.family.hidden_states: min 4 exceeds max 2"),
    (lambda s: s["family"].update(structure=TREE),
     "studies.s.family.structure: not a setting of family latent_class; it takes hidden_states"),
    (lambda s: s.update(family={"type": "models"}), "studies.s.family: family models needs models"),
    (lambda s: s.update(generators={"g": {"spec": CHAIN}}, family={"type": "hill_climb"}),
     "studies.s.family (type hill_climb, generator g): the hill-climb needs a hierarchical "
     "latent class model"),
    (lambda s: s.update(generators={"g": {"spec": "2(2(2,2,2),2(2,2,2))"}},
                        family={"type": "hill_climb"}),
     "the climb starts with every hidden node binary, which is not a regular model here"),
    (lambda s: s.update(family={"type": "hill_climb", "structure": CHAIN}),
     "studies.s.family.structure: the hill-climb needs a hierarchical latent class model"),
    (lambda s: s.update(family={"type": "models", "models": {"a": "2:2,2,2", "b": "2:2,2,2,2"}}),
     "studies.s.family.models.a: its observed variables X1 (2 states), X2 (2 states), X3 (2 "
     "states) differ from generator g's X1 (2 states), X2 (2 states), X3 (2 states), X4 (2 "
     "states)"),
    (lambda s: s.update(family={"type": "models", "models": {"a": "2:2,2,2,3"}}),
     "a candidate must model the same observed variables (names and state counts)"),
    (lambda s: _set_generator(s, spec="2:" + ",".join(["2"] * 26)),
     "studies.s.generators.g.spec: the observed variables have 6.71e+07 joint states, more than "
     "the 33554432 the exact KL can hold; remove kl from the study's metrics"),
])
def test_config_errors_name_the_key_and_the_fix(edit, message):
    with pytest.raises(HiddenbnError) as error:
        checked(edited(edit))
    assert message in str(error.value)


def test_parameter_file_must_belong_to_the_spec(tmp_path):
    save_parameters(tmp_path / "lc3.json", latent_class(3, [2] * 4),
                    [np.full((1, 3), 1 / 3)] + [np.full((3, 2), 0.5)] * 4)
    study = edited(lambda s: _set_generator(s, spec="2:2,2,2,2", parameters="lc3.json"))
    with pytest.raises(HiddenbnError, match="lc3.json: node 'H1': table has shape"):
        checked(study, tmp_path)
    # shapes that fit but a different network: the file's own spec says so
    save_parameters(tmp_path / "named.json", latent_class(2, [2] * 4, ["A", "B", "C", "D"]),
                    [np.full((1, 2), 0.5)] + [np.full((2, 2), 0.5)] * 4)
    document = json.loads((tmp_path / "named.json").read_text())
    document["cpts"] = {{"A": "X1", "B": "X2", "C": "X3", "D": "X4"}.get(k, k): v
                        for k, v in document["cpts"].items()}
    (tmp_path / "named.json").write_text(json.dumps(document))
    study = edited(lambda s: _set_generator(s, spec="2:2,2,2,2", parameters="named.json"))
    with pytest.raises(HiddenbnError, match="named.json was written for another model: its "
                                            "network has a node 'A', which the model has not"):
        checked(study, tmp_path)


def test_relative_files_are_read_from_the_base_folder_and_defaults_filled(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "tree.yaml").write_text(
        "nodes: {H: {states: 2, hidden: true}, X1: {states: 2, parents: [H]}, "
        "X2: {states: 2, parents: [H]}, X3: {states: 3, parents: [H]}}\n")
    study = checked({"generators": {"g": {"spec": "models/tree.yaml"}}, "sample_sizes": [9, 3, 9],
                     "replicates": 1, "family": {"type": "latent_class",
                                                 "hidden_states": {"min": 1, "max": 2}},
                     "scores": ["bic_log_evidence"]}, tmp_path)
    assert study["generators"]["g"] == {"spec": str(tmp_path / "models" / "tree.yaml"),
                                        "generating_alpha": studies.DEFAULT_ALPHA,
                                        "parameters": None}
    assert study["sample_sizes"] == [3, 9]
    assert study["em"] == studies.DEFAULT_EM and study["metrics"] == list(studies.METRICS)
    assert studies.generator_files(study, "g") == [str(tmp_path / "models" / "tree.yaml")]
    # the LC candidates take the generator's variables, and the true one equals the generator
    assert studies.true_model(study, "g") == "2:2,2,3"


def run(study, generator="g"):
    fits, selections = [], []
    for cases in study["sample_sizes"]:
        seeds = [(100 + r, 1000 * cases + r) for r in range(1, study["replicates"] + 1)]
        f, s = studies.run_job(study, generator, cases, seeds)
        fits.append(f)
        selections.append(s)
    return pd.concat(fits, ignore_index=True), pd.concat(selections, ignore_index=True)


def test_latent_class_study_content(tmp_path):
    study = checked(LC_STUDY)
    fits, selections = run(study)
    labels = ["1:2,2,2,2", "2:2,2,2,2", "3:2,2,2,2"]
    assert len(fits) == 2 * 2 * 3 and len(selections) == 2 * 2 * 3
    assert set(fits.model) == set(labels) and set(selections.model) <= set(labels)
    assert (fits.kl_bits >= 0).all() and (selections.kl_bits >= 0).all()
    assert (fits.is_true == (fits.model == "2:2,2,2,2")).all()
    assert (fits.ds == 4 * fits.hidden_states + fits.hidden_states - 1).all()
    for (cases, replicate, score), chosen in selections.groupby(["cases", "replicate", "score"]):
        models = fits[(fits.cases == cases) & (fits.replicate == replicate)]
        best = models.loc[models[score].idxmax()]
        assert chosen.model.item() == best.model and chosen.kl_bits.item() == best.kl_bits
    # the same seeds give the same study; parameters are shared by every N of a replicate
    again, _ = run(study)
    pd.testing.assert_frame_equal(fits.drop(columns="fit_seconds"),
                                  again.drop(columns="fit_seconds"))
    # measured times are named so that comparing two runs' outputs leaves them out
    from run_outputs import TIMING_SUFFIX
    for table in (fits, studies.time_table(fits)):
        timings = [column for column in table.columns if "seconds" in column]
        assert timings and all(column.endswith(TIMING_SUFFIX) for column in timings)
    network = parse_spec("2:2,2,2,2")
    first = studies.generating_parameters(network, study["generators"]["g"], 101)
    assert not np.allclose(first[0], studies.generating_parameters(
        network, study["generators"]["g"], 102)[0])

    studies.write_summary("s", study, fits, selections, tmp_path)
    for name in studies.summary_files(study):
        assert (tmp_path / name).is_file(), name
    summary = pd.read_csv(tmp_path / "tables" / "summary.csv")
    assert len(summary) == 2 * 3 and (summary.replicates == 2).all()
    assert (summary.kl_bits_mean > 0).all() and summary.recovered.between(0, 1).all()
    frequency = pd.read_csv(tmp_path / "tables" / "frequency.csv")
    assert np.allclose(frequency.groupby(["cases", "score"])["share"].sum(), 1.0)
    assert (pd.read_csv(tmp_path / "tables" / "time.csv").models_fitted == 3).all()
    text = (tmp_path / "summary.md").read_text()
    assert "The true model, 2:2,2,2,2, is in the family." in text
    assert "selected most often (share)" in text and "Lowest mean KL" in text
    # a reader sees the scores' labels; the header alone maps them to the code's names
    assert [line for line in text.splitlines() if "cs_plus" in line] == [
        line for line in text.splitlines() if line.startswith("Family:")]
    assert "Scores: BIC (bic_log_evidence), CS+ (cs_plus), Laplace (laplace)." in text
    assert "| 200 | CS+ | 2 |" in text


def test_hill_climb_study_walks_regular_models_one_state_at_a_time():
    study = checked({"generators": {"tree": {"spec": TREE}}, "sample_sizes": [1500],
                     "replicates": 1, "family": {"type": "hill_climb"},
                     "scores": ["bic_log_evidence", "bic_plus_log_evidence"],
                     "metrics": ["kl", "selected"], "em": EM})
    fits, selections = run(study, "tree")
    assert studies.true_model(study, "tree") == "H1=3,H2=2,H3=2"
    assert len(selections) == 2 and (fits.kl_bits >= 0).all()
    assert fits.model.is_unique and set(selections.model) <= set(fits.model)
    for path in selections.path:
        steps = path.split(" > ")
        assert steps[0] == "H1=2,H2=2,H3=2"
        totals = [sum(int(part.split("=")[1]) for part in step.split(",")) for step in steps]
        assert totals == list(range(6, 6 + len(steps)))
    assert "tables/time.csv" not in studies.summary_files(study)


def test_models_study_needs_no_kl_and_selects_among_the_named_candidates(tmp_path):
    two = {"nodes": {"A": {"states": 2, "hidden": True}, "B": {"states": 2, "hidden": True},
                     "X1": {"states": 2, "parents": ["A"]}, "X2": {"states": 2, "parents": ["A"]},
                     "X3": {"states": 2, "parents": ["A", "B"]},
                     "X4": {"states": 2, "parents": ["B"]}}}
    study = checked({"generators": {"g": {"spec": two, "generating_alpha": 0.5}},
                     "sample_sizes": [400], "replicates": 2,
                     "family": {"type": "models", "models": {"lc2": "2:2,2,2,2", "two": two}},
                     "scores": ["bic_log_evidence", "mled"], "metrics": ["selected"], "em": EM})
    assert studies.true_model(study, "g") == "two"
    fits, selections = run(study)
    assert "kl_bits" not in fits and "kl_bits" not in selections
    assert set(fits.model) == {"lc2", "two"} and len(fits) == 4
    assert (fits.hidden_states == fits.model.map({"lc2": 2, "two": 4})).all()
    studies.write_summary("m", study, fits, selections, tmp_path)
    assert studies.summary_files(study) == ["summary.md", "tables/fits.csv",
                                            "tables/selections.csv", "tables/summary.csv",
                                            "tables/frequency.csv", "figures/selection.png",
                                            "figures/selection.pdf"]
    assert "KL" not in (tmp_path / "summary.md").read_text()


def search(study) -> dict:
    """The EM options a study's fits use (its own, else the defaults: the default schedule)."""
    return {key: study["em"][key] for key in ("max_iterations", "tolerance", "convergence",
                                              "schedule", "acceleration")}


def test_a_replicate_is_regenerated_by_the_command_line(tmp_path):
    study = checked(edited(lambda s: s.update(sample_sizes=[300], replicates=1,
                                              scores=["bic_log_evidence"])))
    fits, _ = studies.run_job(study, "g", 300, [(17, 23)])
    truth, data = tmp_path / "truth.json", tmp_path / "data.csv"
    assert cli.main(["params", "2:2,2,2,2", "--seed", "17", "--generating-alpha", "1.0", "-o",
                     str(truth)]) == 0
    assert cli.main(["sample", "2:2,2,2,2", "--params", str(truth), "--n", "300", "--seed",
                     "23", "--counts", "-o", str(data)]) == 0
    network = parse_spec("2:2,2,2,2")
    assert all(np.array_equal(a, b) for a, b in zip(
        load_parameters(truth, network),
        studies.generating_parameters(network, study["generators"]["g"], 17)))
    refit = fit_and_score(network, read_csv(data), 23, 1.01, EM["restarts"], False, False,
                          **search(study))
    row = fits[fits.model == "2:2,2,2,2"].iloc[0]
    assert math.isclose(row.loglik, refit["fit"].log_likelihood, rel_tol=1e-12)


def test_sbic_is_computed_over_the_chain_of_latent_class_candidates():
    study = checked(edited(lambda s: s.update(sample_sizes=[300], replicates=1,
                                              scores=["bic_log_evidence", "sbic_log_evidence"])))
    fits, selections = studies.run_job(study, "g", 300, [(17, 23)])
    fits = fits.sort_values("hidden_states")
    assert list(fits.hidden_states) == [1, 2, 3]
    bounds = latent_class_learning_coefficients(3, [2] * 4, default_phi([2] * 4))
    np.testing.assert_allclose(fits.sbic_log_evidence,
                               iterated_sbic(list(fits.loglik), bounds, 300, step=0.5),
                               atol=1e-8)
    # one class has no proper submodel: its sBIC is its BIC
    assert fits.sbic_log_evidence.iloc[0] == pytest.approx(fits.bic_log_evidence.iloc[0],
                                                           abs=1e-9)
    chosen = selections.set_index("score").loc["sbic_log_evidence", "hidden_states"]
    assert chosen == fits.hidden_states[fits.sbic_log_evidence.idxmax()]


def test_example_config_dry_run_lists_every_job(tmp_path):
    result = snakemake("-n", "--directory", str(tmp_path), "--configfile", str(EXAMPLE))
    assert result.returncode == 0, result.stderr[-3000:]
    example = yaml.safe_load(EXAMPLE.read_text())["studies"]
    jobs = sum(len(s["generators"]) * len(s["sample_sizes"]) for s in example.values())
    assert re.search(rf"^studies_run\s+{jobs}$", result.stdout, re.MULTILINE), result.stdout
    for name in example:
        assert f"studies_summary_{name}" in result.stdout
    assert "chickering_heckerman1996" not in result.stdout  # a studies-only config runs no paper


def test_a_bad_study_stops_the_workflow_before_any_job(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("seed: 1\nstudies:\n  s:\n    generators: {g: {spec: '2:2,2,2'}}\n"
                      "    sample_sizes: [10]\n    replicates: 1\n"
                      "    family: {type: latent_class, hidden_states: {min: 1, max: 2}}\n"
                      "    scores: [bic_log_evidence, aic]\n")
    result = snakemake("-n", "--directory", str(tmp_path), "--configfile", str(config))
    assert result.returncode != 0
    assert "config studies.s.scores: unknown score 'aic'" in result.stdout + result.stderr


def test_a_study_fits_by_squarem_when_its_em_says_so(tmp_path):
    """em.acceleration: squarem (the command line's default; a study's is plain EM, paper
    002's) fits every candidate by SQUAREM cycles, and the summary names it. With paper 002's
    loose tolerance plain EM stops short on the flat fit of 3 classes from halving's random
    start; SQUAREM ends higher."""
    def study(em):
        return checked(edited(lambda s: s.update(sample_sizes=[300], replicates=1,
                                                  scores=["bic_log_evidence"], em=em)))
    halving = {**EM, "schedule": "halving"}
    accelerated = study({**halving, "acceleration": "squarem"})
    fits, selections = studies.run_job(accelerated, "g", 300, [(17, 23)])
    plain, _ = studies.run_job(study(halving), "g", 300, [(17, 23)])
    assert (fits.loglik >= plain.loglik - 1e-9).all()
    assert fits.loglik.iloc[-1] > plain.loglik.iloc[-1] + 0.01
    studies.write_summary("s", accelerated, fits, selections, tmp_path)
    assert "at most 200 iterations, squarem." in (tmp_path / "summary.md").read_text()


def test_a_study_with_missing_cells_blanks_them_at_random_and_sums_them_out(tmp_path):
    """missing_rate blanks cells completely at random in every data set; the replicate is the
    command line's `sample --missing-rate` data, fitted with the missing cells summed out."""
    study = checked(edited(lambda s: s.update(sample_sizes=[300], replicates=1,
                                              scores=["bic_log_evidence"], missing_rate=0.2)))
    fits, _ = studies.run_job(study, "g", 300, [(17, 23)])
    truth, data = tmp_path / "truth.json", tmp_path / "data.csv"
    assert cli.main(["params", "2:2,2,2,2", "--seed", "17", "-o", str(truth)]) == 0
    assert cli.main(["sample", "2:2,2,2,2", "--params", str(truth), "--n", "300", "--seed",
                     "23", "--counts", "--missing-rate", "0.2", "-o", str(data)]) == 0
    dataset = read_csv(data)
    missing = ((dataset.patterns == -1) * dataset.counts[:, None]).sum() / (300 * 4)
    assert 0.15 < missing < 0.25
    refit = fit_and_score(parse_spec("2:2,2,2,2"), dataset, 23, 1.01, EM["restarts"], False,
                          False, **search(study))
    row = fits[fits.model == "2:2,2,2,2"].iloc[0]
    assert math.isclose(row.loglik, refit["fit"].log_likelihood, rel_tol=1e-12)


def test_hill_climb_runs_on_a_tree_no_enumeration_could_fit():
    """Paper 002's climb over 18 hidden nodes (2^18 joint states, past enumeration): every
    candidate fitted by message passing and scored with Laplace (Louis' identity)."""
    branch = "2(2(2,2,2),2(2,2,2),2(2,2,2),2(2,2,2),2,2,2)"
    spec = f"3({branch},{branch},{branch},2(2(2,2,2),2,2),2,2,2)"
    network = parse_spec(spec)
    assert hidden_configuration_count(network) > MAX_HIDDEN_CONFIGURATIONS
    study = checked({"generators": {"big": {"spec": spec, "generating_alpha": 0.3}},
                     "sample_sizes": [500], "replicates": 1, "family": {"type": "hill_climb"},
                     "scores": ["bic_log_evidence", "laplace"], "metrics": ["selected"],
                     "em": {"restarts": 2, "max_iterations": 25, "tolerance": 1e-5}})
    fits, selections = run(study, "big")
    start = ",".join(f"H{h}=2" for h in range(1, 19))
    assert len(fits) >= 1 + len(network.hidden_indices)  # the start and all its moves
    assert np.isfinite(fits.bic_log_evidence).all()
    assert (np.isfinite(fits.laplace)
            | fits.note.fillna("").str.contains("positive definite")).all()
    assert not fits.note.fillna("").str.contains("enumerat").any()
    for path in selections.path:
        steps = path.split(" > ")
        assert steps[0] == start
        totals = [sum(int(part.split("=")[1]) for part in step.split(",")) for step in steps]
        assert totals == list(range(36, 36 + len(steps)))


def test_the_figure_section_names_the_scores_whose_lines_coincide():
    rows = [{"generator": "g", "cases": n, "replicate": r, "score": score,
             "model": "2:2,2" if score != "laplace" or r == 1 else "3:2,2"}
            for n in (100, 1000) for r in (1, 2) for score in ("bic_log_evidence", "cs", "laplace")]
    selections = pd.DataFrame(rows)
    assert studies.coinciding_scores(selections, "g") == [["bic_log_evidence", "cs"]]
    selections.loc[3, "model"] = "3:2,2"  # bic_log_evidence differs from cs once
    assert studies.coinciding_scores(selections, "g") == []


def test_the_figure_trends_are_read_from_the_means_and_change_with_them():
    summary = pd.DataFrame({
        "generator": "g", "cases": [500, 500, 4000, 4000], "score": ["cs", "laplace"] * 2,
        "kl_bits_mean": [0.03, 0.02, 0.01, 0.004], "hidden_states_mean": [2.0, 2.5, 2.75, 3.0]})
    with_errors = summary.assign(hidden_states_se=[0.0, 0.5, 0.0, 0.629])
    panels = [studies.PANELS["kl"], studies.PANELS["selected"]]
    assert studies.figure_trends(summary, "g", panels) == (
        "the mean KL(true ‖ selected) [bits] falls for every score from N = 500 to 4,000 (over "
        "the scores 0.02–0.03 at 500, 0.004–0.01 at 4,000; lowest at N = 4,000: Laplace); the "
        "mean selected hidden states rises for every score from N = 500 to 4,000 (over the "
        "scores 2–2.5 at 500, 2.75–3 at 4,000; highest at N = 4,000: Laplace)")
    # Laplace's mean is higher than CS's by less than its standard error: both are named
    assert studies.figure_trends(with_errors, "g", panels[1:]).endswith(
        "; highest at N = 4,000: Laplace, level within one combined standard error with CS)")
    # ... from three replicates: from two there is no standard error, only exact ties
    replicates = with_errors.assign(replicates=[3, 3, 3, 3])
    assert studies.figure_trends(replicates, "g", panels[1:]).endswith(
        "; highest at N = 4,000: Laplace, level within one combined standard error with CS)")
    assert studies.figure_trends(replicates.assign(replicates=2), "g", panels[1:]).endswith(
        "; highest at N = 4,000: Laplace)")
    tied = replicates.assign(replicates=2, hidden_states_mean=[2.0, 2.5, 3.0, 3.0])
    assert studies.figure_trends(tied, "g", panels[1:]).endswith(
        "; highest at N = 4,000: CS and Laplace, equal at 3)")
    summary.loc[2, "kl_bits_mean"] = 0.05  # CS's KL grows
    assert "falls for 1 and rises for 1 of the 2 scores" in studies.figure_trends(
        summary, "g", panels[:1])
    summary.loc[summary.score == "cs", "hidden_states_mean"] = np.nan  # CS drew no points
    assert "rises for every score" in studies.figure_trends(summary, "g", panels[1:])
    summary.loc[3, "hidden_states_mean"] = np.nan
    assert studies.figure_trends(summary, "g", panels[1:]) == (
        "no mean selected hidden states at N = 4,000")
    one_size = summary[summary.cases == 4000].assign(hidden_states_mean=[2.75, 3.0])
    assert studies.figure_trends(one_size, "g", panels[1:]) == (
        "the mean selected hidden states 2.75–3 over the scores (highest at N = 4,000: Laplace)")


def test_the_lowest_mean_kl_names_every_score_level_with_it():
    summary = pd.DataFrame({"cases": [500, 500, 500, 4000, 4000],
                            "score": ["cs", "bic_log_evidence", "laplace", "cs",
                                      "bic_log_evidence"],
                            "kl_bits_mean": [0.02, 0.02, 0.03, 0.01, 0.005]})
    lowest = {n: scores for n, scores, _ in studies.lowest_kl(summary)}
    assert lowest == {500: ["bic_log_evidence", "cs"], 4000: ["bic_log_evidence"]}
    # a difference smaller than the replicates' spread singles out no score ...
    spread = summary.assign(kl_bits_se=[0.001, 0.001, 0.001, 0.005, 0.002])
    lowest = {n: (scores, value) for n, scores, value in studies.lowest_kl(spread)}
    assert lowest[4000] == (["bic_log_evidence", "cs"], 0.005)
    # ... and one larger than it does
    assert lowest[500] == (["bic_log_evidence", "cs"], 0.02)
    spread.loc[3, "kl_bits_se"] = 0.002
    assert {n: s for n, s, _ in studies.lowest_kl(spread)}[4000] == ["bic_log_evidence"]
    # two replicates give no standard error: only a tie is level
    spread.loc[3, "kl_bits_se"] = 0.005
    assert {n: s for n, s, _ in studies.lowest_kl(spread.assign(replicates=3))}[4000] == [
        "bic_log_evidence", "cs"]
    assert {n: s for n, s, _ in studies.lowest_kl(spread.assign(replicates=2))}[4000] == [
        "bic_log_evidence"]


def test_level_with_best_uses_the_combined_standard_error():
    means = pd.Series({"a": 3.25, "b": 3.0, "c": 2.0})
    assert studies.level_with_best(means, None, lowest=False) == ["a"]
    errors = pd.Series({"a": 0.629, "b": 0.0, "c": 0.0})
    assert studies.level_with_best(means, errors, lowest=False) == ["a", "b"]
    assert studies.level_with_best(means, errors, lowest=True) == ["c"]


def test_wbic_close_calls_count_the_choices_within_monte_carlo_error():
    fits = pd.DataFrame({
        "generator": "g", "cases": 100, "replicate": [1, 1, 1, 2, 2, 2],
        "model": ["1:2,2", "2:2,2", "3:2,2"] * 2,
        "wbic_log_evidence": [-60.0, -50.0, -50.02, -60.0, -50.0, -60.0],
        "wbic_se": [0.1, 0.3, 0.3, 0.1, 0.3, 0.3]})
    selections = pd.DataFrame({"generator": "g", "cases": 100, "replicate": [1, 2],
                               "score": "wbic_log_evidence", "model": "2:2,2"})
    close = studies.wbic_close_calls(fits, selections)
    assert close.to_dict("records") == [{"generator": "g", "cases": 100, "close": 1,
                                         "data_sets": 2}]
    # a margin of more than two combined standard errors is decided
    fits.loc[2, "wbic_log_evidence"] = -51.0
    assert studies.wbic_close_calls(fits, selections).close.tolist() == [0]
    assert studies.wbic_close_calls(fits.drop(columns="wbic_se"), selections).empty


def test_the_most_frequent_model_names_every_model_tied_for_it():
    frequency = pd.DataFrame({"model": ["1:2,2", "2:2,2"], "count": [1, 1], "share": [0.5, 0.5]})
    assert studies.most_often(frequency) == "1:2,2 / 2:2,2 (50% each)"
    frequency.loc[1, ["count", "share"]] = [3, 0.75]
    frequency.loc[0, "share"] = 0.25
    assert studies.most_often(frequency.sort_values("count", ascending=False)) == "2:2,2 (75%)"


def test_a_mean_of_fewer_than_three_replicates_has_no_standard_error():
    assert studies._mean_se(1.5, 0.5, 2) == "1.5"
    assert studies._mean_se(2.25, 0.25, 3) == "2.25 ± 0.25"
    assert studies._mean_se(np.nan, 0.0, 4) == ""


def test_the_notes_name_the_candidates_a_score_chose_without():
    fits = pd.DataFrame({
        "generator": "g", "cases": [500] * 4 + [4000] * 6,
        "replicate": [1, 1, 2, 2, 1, 1, 1, 2, 2, 2],
        "model": ["1:2,2", "2:2,2"] * 2 + ["1:2,2", "2:2,2", "3:2,2"] * 2,
        "ds": [2, 5] * 2 + [2, 5, 8] * 2,
        "laplace": [-9.0, -8.0, -9.0, -8.0, -9.0, -8.0, np.nan, -9.0, np.nan, np.nan],
        "bic_log_evidence": -9.0})
    unscored = studies.unscored_candidates(fits, ["loglik", "bic_log_evidence", "laplace"])
    assert unscored.to_dict("records") == [
        {"score": "laplace", "generator": "g", "cases": 4000, "model": "2:2,2", "missing": 1,
         "data_sets": 2},
        {"score": "laplace", "generator": "g", "cases": 4000, "model": "3:2,2", "missing": 2,
         "data_sets": 2}]
    assert studies._unscored_text(unscored) == [
        "- Laplace has no value for these candidates, so it chose among the others on "
        "those data sets: g, N = 4000: 2:2,2 (1 of 2 data sets), 3:2,2 (2 of 2 data sets)."]
    assert studies.unscored_candidates(fits.fillna(-9.0), ["laplace"]).empty


def test_a_study_with_covariates_says_which_scores_it_lacks_and_which_kl_it_reports():
    from hiddenbn.learning.selection import SELECTION_SCORE_NAMES

    absent = set(SELECTION_SCORE_NAMES) - set(studies.COVARIATE_SCORES)
    assert set(studies.COVARIATE_MISSING) == absent
    study = checked(edited(lambda s: (
        s.update(scores=["bic_log_evidence", "laplace"]),
        s["generators"]["g"].update(covariates={"age": {"type": "normal"}}))))
    text = "\n".join(studies._covariate_text(study))
    for score in absent:
        assert f"{studies._display(score)}: {studies.COVARIATE_MISSING[score]}" in text
    # BIC+ (a Jacobian rank over the covariate patterns) and WBIC (a posterior mean of the
    # log-likelihood) are defined, only not implemented; CS and the scores built on it or on
    # latent-class-only theory are not defined
    undefined, unimplemented = text.split("Not defined for it: ")[1].split(
        "Defined but not implemented: ")
    assert all(f"{label}:" in unimplemented and f"{label}:" not in undefined
               for label in ("BIC+", "WBIC"))
    assert all(f"{label}:" in undefined and f"{label}:" not in unimplemented
               for label in ("CS", "CS+", "MLED", "sBIC"))
    assert "do not apply" not in text
    assert "the KL is the conditional one, E_x KL(p(O | x) ‖ p̂(O | x))" in text
    without_kl = {**study, "metrics": ["selected"]}
    assert "conditional" not in "\n".join(studies._covariate_text(without_kl))
    assert studies._covariate_text(checked(LC_STUDY)) == []


def test_each_job_warms_its_kernels_on_an_untimed_replicate_first(monkeypatch):
    calls = []

    def replicate(study, generator, cases, parameter_seed, data_seed):
        calls.append((cases, study["em"]["restarts"], parameter_seed))
        return [{"model": "1:2,2", "fit_seconds": 0.1}], [{"score": "laplace"}]

    monkeypatch.setattr(studies, "run_replicate", replicate)
    study = checked(LC_STUDY)
    fits, selections = studies.run_job(study, "g", 300, [(7, 70), (8, 80)])
    assert calls == [(studies.WARM_UP_CASES, 1, 7), (300, 2, 7), (300, 2, 8)]
    assert fits.replicate.tolist() == [1, 2] and selections.replicate.tolist() == [1, 2]
    calls.clear()
    studies.run_job(study, "g", 40, [(7, 70)])
    assert calls[0] == (40, 1, 7)  # never more cases than the timed replicates
