"""A researcher's own data through the command line: columns bound by name or order, labels,
a data dictionary, missing cells, per-row posteriors, the class profile, saved parameters, and
bad data refused with one line and nothing written."""

import csv
import json

import numpy as np
import pytest

from hiddenbn.cli import main
from hiddenbn.data import read_data
from hiddenbn.inference.exact import enumeration_family_posteriors
from hiddenbn.inference.latent_class import class_posteriors
from hiddenbn.learning.selection import latent_class_network
from hiddenbn.models.network import load_parameters
from hiddenbn.models.spec import parse_spec

SURVEY = """smoker,drinks,exercise,diet
yes,often,,poor
no,never,weekly,good
yes,often,never,poor
no,sometimes,weekly,NA
yes,often,never,poor
no,never,daily,good
no,never,weekly,good
yes,sometimes,never,poor
NA,often,never,poor
no,never,daily,good
yes,often,never,.
no,sometimes,weekly,good
"""


@pytest.fixture
def survey(tmp_path):
    path = tmp_path / "survey.csv"
    path.write_text(SURVEY)
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_model_binds_to_the_columns_in_order_or_as_named(survey, capsys):
    by_classes = json.loads(run(capsys, "fit", survey, "--classes", "2", "--restarts", "4",
                                "--json", "--skip-de")[1])
    shorthand = json.loads(run(capsys, "fit", survey, "--model", "2:2,3,3,2", "--restarts", "4",
                               "--json", "--skip-de")[1])
    bare = json.loads(run(capsys, "fit", survey, "--model", "2", "--restarts", "4", "--json",
                          "--skip-de")[1])
    assert list(by_classes["model"]["nodes"]) == ["H1", "smoker", "drinks", "exercise", "diet"]
    assert by_classes["em"]["log_likelihood"] == bare["em"]["log_likelihood"]
    assert shorthand["em"]["log_likelihood"] == pytest.approx(
        by_classes["em"]["log_likelihood"], rel=1e-9)
    assert by_classes["states"]["drinks"] == ["never", "often", "sometimes"]
    assert by_classes["missing_cells"] == 4
    assert set(by_classes["lca"]["items"]) == {"smoker", "drinks", "exercise", "diet"}
    some = json.loads(run(capsys, "fit", survey, "--model", "2:2,2", "--columns", "diet,smoker",
                          "--restarts", "4", "--json", "--skip-de")[1])
    assert list(some["model"]["nodes"]) == ["H1", "diet", "smoker"]


@pytest.mark.parametrize("argv, message", [
    (["--model", "2:2,3,3"], "the model 2:2,3,3 has 3 observed variables but there are 4 "
                             "columns (smoker, drinks, exercise, diet)"),
    (["--model", "2:2,2,3,2"], "column 'drinks' has 3 states ('never', 'often', 'sometimes') "
                               "but the model gives it 2"),
    (["--classes", "2", "--columns", "smoker,age"], "--columns names 'age', which is not a "
                                                    "column"),
    (["--classes", "2", "--model", "2"], "give --model or --classes, not both"),
])
def test_a_mismatch_of_model_and_data_names_both_sides(survey, capsys, argv, message):
    code, _, err = run(capsys, "fit", survey, *argv)
    assert code == 2 and message in err and err.count("\n") == 1


def test_posteriors_follow_the_rows_of_the_file_missing_cells_included(survey, tmp_path, capsys):
    posteriors, profile = tmp_path / "posteriors.csv", tmp_path / "profile.pdf"
    code, out, _ = run(capsys, "fit", survey, "--classes", "2", "--restarts", "8", "--json",
                       "--skip-de", "--posteriors", posteriors, "--plot", profile,
                       "--save-params", tmp_path / "fit.json")
    assert code == 0 and profile.stat().st_size > 1000
    report = json.loads(out)
    rows = list(csv.DictReader(posteriors.open()))
    assert len(rows) == SURVEY.count("\n") - 1 and rows[0]["row"] == "1"
    # independently: each row of the file read alone, its posterior from the fitted parameters
    data = read_data(survey)
    cpts = [np.array(report["parameters"][name]) for name in ("H1", *data.dataset.names)]
    network = latent_class_network(data.dataset, 2)
    expected, _ = class_posteriors(network, cpts, data.every_case.patterns[data.row_patterns])
    got = np.array([[float(r["p_class1"]), float(r["p_class2"])] for r in rows])
    assert np.allclose(got, expected, atol=1e-5)
    assert [int(r["modal_class"]) for r in rows] == (expected.argmax(axis=1) + 1).tolist()
    saved = json.loads((tmp_path / "fit.json").read_text())
    assert saved["states"]["drinks"] == ["never", "often", "sometimes"]
    again = json.loads(run(capsys, "fit", survey, "--classes", "2", "--init",
                           tmp_path / "fit.json", "--json", "--skip-de")[1])
    assert again["em"]["log_likelihood"] == pytest.approx(report["em"]["log_likelihood"],
                                                          abs=1e-6)


def test_a_dictionary_orders_states_and_keeps_absent_ones(survey, tmp_path, capsys):
    dictionary = tmp_path / "dictionary.yaml"
    dictionary.write_text("drinks: [never, sometimes, often, daily]\nsmoker: [no, yes]\n")
    report = json.loads(run(capsys, "fit", survey, "--classes", "2", "--dictionary", dictionary,
                            "--restarts", "4", "--json", "--skip-de")[1])
    assert report["states"]["drinks"] == ["never", "sometimes", "often", "daily"]
    assert report["model"]["nodes"]["drinks"]["states"] == 4


def test_missing_drop_fits_the_complete_cases(survey, tmp_path, capsys):
    complete = tmp_path / "complete.csv"
    complete.write_text("\n".join(line for line in SURVEY.splitlines()
                                  if not any(c in ("", "NA", ".") for c in line.split(","))))
    dropped = json.loads(run(capsys, "fit", survey, "--classes", "2", "--missing", "drop",
                             "--restarts", "8", "--json", "--skip-de")[1])
    alone = json.loads(run(capsys, "fit", complete, "--classes", "2", "--restarts", "8",
                           "--json", "--skip-de")[1])
    assert dropped["n_cases"] == alone["n_cases"] == 8
    assert dropped["em"]["log_likelihood"] == pytest.approx(alone["em"]["log_likelihood"],
                                                            rel=1e-9)
    assert any("listwise deletion" in note for note in dropped["notes"])


@pytest.mark.parametrize("text, dictionary, message", [
    ("a,b\nyes,1\nmaybe,2\n", "a: [no, yes]\n", "column 'a' has 'maybe', which is not one of its "
                                                "categories in the data dictionary ('no', 'yes')"),
    ("a,b\nyes,\nno,NA\n", None, "column 'b' has only missing cells"),
    ("a,b\nyes,1\n,NA\nno,2\n", None, "row 2: every cell is missing; delete the row"),
    ("a,b\nyes,1\nno\n", None, "line 3: 1 cells, but the header has 2"),
])
def test_bad_data_is_one_line_and_nothing_is_written(tmp_path, capsys, text, dictionary,
                                                     message):
    data = tmp_path / "bad.csv"
    data.write_text(text)
    extra = []
    if dictionary:
        (tmp_path / "d.yaml").write_text(dictionary)
        extra = ["--dictionary", tmp_path / "d.yaml"]
    outputs = [tmp_path / "posteriors.csv", tmp_path / "profile.png", tmp_path / "fit.json"]
    code, out, err = run(capsys, "fit", data, "--classes", "2", *extra, "--posteriors",
                         outputs[0], "--plot", outputs[1], "--save-params", outputs[2])
    assert code == 2 and message in err and err.count("\n") == 1 and not out
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["bad.csv"] + (["d.yaml"] if dictionary else []))


def test_posteriors_of_every_hidden_node_for_a_tree(tmp_path, capsys):
    """--posteriors on a model that is not a latent class model: each hidden node's posterior
    per data row, against enumeration of the hidden states at the saved parameters."""
    spec = "3(2(2,2,2),2(2,2),2)"
    data_path, posteriors, saved = (tmp_path / "tree.csv", tmp_path / "posteriors.csv",
                                    tmp_path / "fit.json")
    assert run(capsys, "sample", spec, "--n", "200", "--seed", "4", "--missing-rate", "0.1",
               "-o", data_path)[0] == 0
    code, _, _ = run(capsys, "fit", data_path, "--model", spec, "--restarts", "2", "--skip-de",
                     "--max-iterations", "30", "--posteriors", posteriors, "--save-params", saved)
    assert code == 0
    rows = list(csv.DictReader(posteriors.open()))
    assert list(rows[0]) == ["row", "p_H1_1", "p_H1_2", "p_H1_3", "modal_H1", "p_H2_1",
                             "p_H2_2", "modal_H2", "p_H3_1", "p_H3_2", "modal_H3"]
    network = parse_spec(spec)
    cpts = load_parameters(saved, network)
    data = read_data(data_path)
    patterns = data.every_case.patterns[data.row_patterns]
    posteriors_by_family, _ = enumeration_family_posteriors(network, cpts, patterns)
    assert len(rows) == 200
    for i in network.hidden_indices:
        name = network.names[i]
        expected = posteriors_by_family[i].sum(axis=1)
        got = np.array([[float(r[f"p_{name}_{s + 1}"]) for s in range(expected.shape[1])]
                        for r in rows])
        assert np.allclose(got, expected, atol=1e-5)
        assert [int(r[f"modal_{name}"]) for r in rows] == (expected.argmax(axis=1) + 1).tolist()


def test_data_sampled_from_a_fit_of_labelled_data_has_its_labels(survey, tmp_path, capsys):
    """Found by an input audit: ``sample --params`` wrote codes 0..r-1 for a fit of labelled
    data, so 'never' came out as 1 and the fit read it back as other states."""
    saved, model = tmp_path / "fit.json", tmp_path / "model.json"
    assert run(capsys, "fit", survey, "--classes", "2", "--restarts", "4", "--skip-de",
               "--save-params", saved)[0] == 0
    document = json.loads(saved.read_text())
    model.write_text(json.dumps(document["network"]))
    labels = read_data(survey).dataset.states()
    for extra in ([], ["--counts"], ["--missing-rate", "0.2"]):
        sample = tmp_path / "sample.csv"
        assert run(capsys, "sample", model, "--n", "400", "--params", saved, "--seed", "2",
                   "-o", sample, *extra)[0] == 0
        back = read_data(sample).dataset
        assert all(set(back.states()[name]) <= set(labels[name]) for name in labels)
        assert back.states()["drinks"] == labels["drinks"]  # every state drawn at N = 400
        # the sample's codes are the fit's: the fit's parameters start EM on it
        assert run(capsys, "fit", sample, "--model", model, "--init", saved, "--skip-de")[0] == 0
    # each label stands for its own state: the sampled frequencies are the fitted model's
    large = tmp_path / "large.csv"
    assert run(capsys, "sample", model, "--n", "20000", "--params", saved, "--seed", "5",
               "-o", large)[0] == 0
    sample = read_data(large).dataset
    for name in ("drinks", "exercise"):
        column = sample.names.index(name)
        sampled = {label: sample.counts[sample.patterns[:, column] == code].sum() / 20000
                   for code, label in enumerate(sample.states()[name])}
        classes = np.array(document["cpts"]["H1"][0])
        fitted = classes @ np.array(document["cpts"][name])
        for label, probability in zip(document["states"][name], fitted):
            assert abs(sampled.get(label, 0.0) - probability) < 4 * np.sqrt(0.25 / 20000)


@pytest.mark.parametrize("states, message", [
    ({"H1": ["a", "b"]}, "labels the states of 'H1', which is not an observed node"),
    ({"smoker": ["no"]}, "the states of 'smoker' must be 2 distinct labels"),
    ({"smoker": ["no", "no"]}, "the states of 'smoker' must be 2 distinct labels"),
    ({"smoker": [True, False]}, "the states of 'smoker' must be 2 distinct labels"),
    (["no", "yes"], "'states' must map node names to lists of labels"),
])
def test_bad_state_labels_in_a_parameter_file_are_one_line(survey, tmp_path, capsys, states,
                                                            message):
    saved = tmp_path / "fit.json"
    assert run(capsys, "fit", survey, "--classes", "2", "--restarts", "2", "--skip-de",
               "--save-params", saved)[0] == 0
    document = json.loads(saved.read_text())
    document["states"] = states
    saved.write_text(json.dumps(document))
    (tmp_path / "model.json").write_text(json.dumps(document["network"]))
    code, out, err = run(capsys, "sample", tmp_path / "model.json", "--n", "5", "--params", saved,
                         "-o", tmp_path / "s.csv")
    assert code == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "s.csv").exists()


def test_select_reports_its_data_as_fit_does(survey, capsys):
    code, out, _ = run(capsys, "select", survey, "--classes", "1..2", "--skip-de", "--restarts",
                       "2", "--json")
    report = json.loads(out)
    data = read_data(survey).dataset
    missing = int(((data.patterns == -1) * data.counts[:, None]).sum())
    assert code == 0 and (report["n_cases"], report["n_patterns"], report["missing_cells"]) == (
        12, data.n_patterns, missing) and missing == 4
    assert report["states"] == data.states()
    text = run(capsys, "select", survey, "--classes", "1..2", "--skip-de", "--restarts", "2")[1]
    assert text.startswith(f"data: 12 cases in {data.n_patterns} distinct patterns, 4 missing "
                           "cells (summed out)\n")


def test_labels_with_commas_are_quoted_in_the_states_line(tmp_path, capsys):
    path = tmp_path / "quoted.csv"
    path.write_text('a,b\n"x, 0",1\n"x, 1",0\n"x, 0",0\ny,1\n')
    out = run(capsys, "fit", path, "--classes", "1", "--skip-de")[1]
    assert "a ('x, 0', 'x, 1', y); b (0, 1)" in out


def test_an_identifier_column_changes_no_number_of_the_fit(tmp_path, capsys):
    """An identifier counted from 0 gave every item coded 1..2 a state 0, even out of
    --columns: BIC and the df of G^2 moved. Now a column is coded on its own, and one the model
    is not bound to is not read."""
    rng = np.random.default_rng(7)
    items = rng.integers(1, 3, size=(60, 4))
    plain = tmp_path / "items.csv"
    plain.write_text("a,b,c,d\n" + "".join(",".join(map(str, row)) + "\n" for row in items))
    with_id = tmp_path / "with_id.csv"
    remarks = ["", '"late, by mail"', "NA", "-9"]
    with_id.write_text("id,a,b,c,d,remark\n" + "".join(
        f"{i},{','.join(map(str, row))},{remarks[i % 4]}\n" for i, row in enumerate(items)))
    for model in (["--classes", "2"], ["--model", "2:2,2,2,2"]):
        argv = [*model, "--restarts", "4", "--json", "--skip-de"]
        alone = json.loads(run(capsys, "fit", plain, *argv)[1])
        bound = json.loads(run(capsys, "fit", with_id, *argv, "--columns", "a,b,c,d")[1])
        assert bound["states"] == alone["states"] == {name: ["1", "2"] for name in "abcd"}
        assert bound["lca"]["fit_statistics"] == alone["lca"]["fit_statistics"]
        assert bound["em"]["log_likelihood"] == alone["em"]["log_likelihood"]
        assert bound["notes"] == alone["notes"]
