"""``hiddenbn fit`` and ``hiddenbn dim`` with causal interaction models in the YAML form."""

import json

import numpy as np
import pandas as pd
import pytest

from hiddenbn.cli import main
from hiddenbn.dimension.effective import effective_dimension
from hiddenbn.interaction.noisy_additive import poisson_log_likelihood, sample_additive, summarise
from hiddenbn.models.interaction import load_interaction

POISSON = "interaction: poisson\ncauses: {C1: 2, C2: 2}\nmechanisms: {X1: [C1, C2], L: []}\n"
GAUSSIAN = POISSON.replace("poisson", "gaussian")
NOISY_MAX = ("interaction: noisy-max\ncauses: {C1: 2, C2: 2, C3: 2}\n"
             "mechanisms: {X1: [C1, C2], X2: [C3]}\neffect: {name: E, states: 2}\n")


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def spec(tmp_path):
    def write(text, name="model.yaml"):
        path = tmp_path / name
        path.write_text(text)
        return str(path)
    return write


def test_dim_of_additive_models(spec, capsys):
    for text, moments in ((POISSON, 1), (GAUSSIAN, 2)):
        code, out, _ = run(capsys, "dim", spec(text), "--json")
        assert code == 0
        report = json.loads(out)
        # X1 has a rate per cause configuration and the leak adds a constant: rank 4 of 5 rows
        assert (report["ds"], report["de"]) == (5 * moments + 2, 4 * moments + 2)


def test_dim_of_noisy_max_uses_the_dimension_engine(spec, capsys):
    path = spec(NOISY_MAX)
    code, out, _ = run(capsys, "dim", path, "--json")
    assert code == 0
    assert json.loads(out)["de"] == effective_dimension(load_interaction(path).network())


def test_fit_poisson_model_from_csv(spec, tmp_path, capsys, rng):
    path = spec(POISSON)
    model = load_interaction(path)
    causes, effect = sample_additive(model, [np.array([[0.5, 0.5]])] * 2,
                                     np.array([0.5, 1.0, 2.0, 4.0, 0.5]), None, 400, rng)
    data = tmp_path / "data.csv"
    pd.DataFrame({"C1": causes[:, 0], "C2": causes[:, 1], "E": effect}).to_csv(data, index=False)
    code, out, _ = run(capsys, "fit", str(data), "--model", path, "--restarts", "2", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["em"]["converged"] and report["em"]["acceleration"] == "squarem"
    rates = np.array(report["parameters"]["X1"]["rate"] + report["parameters"]["L"]["rate"])
    cause_part = sum(np.log(report["parameters"]["causes"][c])[causes[:, t]].sum()
                     for t, c in enumerate(("C1", "C2")))
    direct = poisson_log_likelihood(model, rates, summarise(causes, effect)) + cause_part
    assert report["scores"]["loglik"] == pytest.approx(direct, rel=1e-10)
    code, out, _ = run(capsys, "fit", str(data), "--model", path, "--restarts", "2",
                       "--acceleration", "none")
    assert code == 0 and "cs_plus" in out and "restarts (best-of-n, plain EM), converged" in out
    assert "replication: the best g reached by " in out


def test_fit_gaussian_model_reads_real_effects(spec, tmp_path, capsys):
    data = tmp_path / "data.csv"
    data.write_text("C1,C2,E\n0,0,0.5\n0,1,1.25\n1,0,-0.3\n1,1,2.0\n0,0,0.1\n1,1,2.6\n0,1,0.9\n"
                    "1,0,0.2\n")
    code, out, _ = run(capsys, "fit", str(data), "--model", spec(GAUSSIAN), "--restarts", "1",
                       "--json")
    assert code == 0
    assert json.loads(out)["family"] == "gaussian"


def test_fit_noisy_max_model(spec, tmp_path, capsys):
    data = tmp_path / "data.csv"
    rows = ["C1,C2,C3,E,count"] + [f"{a},{b},{c},{int(a and b or c)},{5 + a + 2 * c}"
                                   for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    rows += [f"{a},{b},{c},{1 - int(a and b or c)},2" for a in (0, 1) for b in (0, 1)
             for c in (0, 1)]
    data.write_text("\n".join(rows) + "\n")
    code, out, _ = run(capsys, "fit", str(data), "--model", spec(NOISY_MAX), "--restarts", "2",
                       "--json")
    assert code == 0
    report = json.loads(out)
    assert report["ds"] == 9 and report["de"] == 8 and "cs_plus" in report["scores"]


def test_a_noisy_max_effect_in_text_labels_needs_their_order(spec, tmp_path, capsys):
    data, dictionary = tmp_path / "data.csv", tmp_path / "order.yaml"
    levels = ("low", "medium", "high")  # sorted as text: high, low, medium
    data.write_text("C1,C2,C3,E\n" + "".join(f"{a},{b},{c},{levels[(a + b + c) % 3]}\n"
                                             for a in (0, 1) for b in (0, 1) for c in (0, 1)))
    three = spec(NOISY_MAX.replace("states: 2}", "states: 3}"))
    code, out, err = run(capsys, "fit", str(data), "--model", three, "--restarts", "1")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "column 'E'" in err and "--dictionary" in err
    dictionary.write_text("E: [low, medium, high]\n")
    code, out, _ = run(capsys, "fit", str(data), "--model", three, "--restarts", "1",
                       "--dictionary", str(dictionary), "--skip-de", "--json")
    assert code == 0 and json.loads(out)["states"]["E"] == list(levels)


def test_fit_with_a_missing_column_is_a_one_line_error(spec, tmp_path, capsys):
    data = tmp_path / "data.csv"
    data.write_text("C1,E\n0,1\n")
    code, _, err = run(capsys, "fit", str(data), "--model", spec(POISSON))
    assert code == 2
    assert "no column 'C2'" in err and err.count("\n") == 1


def test_bad_interaction_spec_is_a_one_line_error(spec, capsys):
    code, _, err = run(capsys, "dim", spec(POISSON.replace("poisson", "noisy-or")))
    assert code == 2
    assert "'noisy-or' is not a family" in err and err.count("\n") == 1


POISSON_DATA = "C1,C2,E\n0,1,2\n1,0,1\n0,0,0\n1,1,3\n0,1,1\n1,1,4\n"


@pytest.mark.parametrize("data, message", [
    (POISSON_DATA.replace("1,0,1", "1,0,2.5"), "bad.csv, row 2, column 'E': 2.5 is not a count; "
     "the effect of a Poisson model is a whole number of 0 or more"),
    (POISSON_DATA.replace("0,0,0", "0,0,-1"), "bad.csv, row 3, column 'E': -1 is not a count"),
    ("C1,C2,E,count\n0,1,2,3\n1,0,1,1.5\n", "bad.csv, row 2: the count column has '1.5'; "
     "counts are whole numbers"),
    (POISSON_DATA.replace("C1,C2,E", "C1,C1,E"), "the column name 'C1' appears twice"),
    (POISSON_DATA.replace("1,1,3", "1,,3"), "bad.csv, row 4, column 'C2': a missing cell, which "
     "a Poisson noisy-additive model cannot sum out; fill it in, or drop the cases with "
     "missing cells (--missing drop)"),
    (POISSON_DATA.replace("1,1,3", "1,2,3"), "column 'C2' has 3 states ('0', '1', '2') but the "
     "model gives it 2"),
    (POISSON_DATA.replace("0,1,1", "0,1,x"), "bad.csv, row 5, column 'E': 'x' is not a number"),
])
def test_interaction_data_is_checked_as_any_data_naming_the_row_and_column(spec, tmp_path,
                                                                           capsys, data, message):
    """Found by an input audit: a Poisson effect of 2.5, a count of 1.5 and a header naming a
    column twice were taken by a reader of the interaction models' own, which named no row."""
    (tmp_path / "bad.csv").write_text(data)
    code, _, err = run(capsys, "fit", str(tmp_path / "bad.csv"), "--model", spec(POISSON),
                       "--restarts", "1")
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_interaction_data_takes_the_data_options(spec, tmp_path, capsys):
    data = tmp_path / "data.csv"
    data.write_text(POISSON_DATA.replace("1,1,3", "1,-9,3").replace("0,0,0", "0,,0"))
    code, out, _ = run(capsys, "fit", str(data), "--model", spec(POISSON), "--restarts", "1",
                       "--missing", "drop", "--missing-values", "-9", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["n_cases"] == 4 and "2 of 6 cases have a missing cell" in report["notes"][0]
    dictionary = tmp_path / "dictionary.yaml"
    dictionary.write_text("E: ['0', '1']\n")
    code, _, err = run(capsys, "fit", str(data), "--model", spec(POISSON), "--dictionary",
                       str(dictionary))
    assert code == 2 and "names column 'E', which holds numbers, not states" in err


@pytest.mark.parametrize("command", [["sample", "SPEC", "--n", "5"], ["params", "SPEC"],
                                     ["evidence", "DATA", "--model", "SPEC"],
                                     ["fit", "DATA", "--model", "SPEC"]])
def test_models_a_command_does_not_take_are_refused_naming_the_commands_that_do(
        spec, tmp_path, capsys, command):
    """Found by an input audit: fit told a Gaussian network its columns had 'the model gives it
    0' states, and sample named an internal function."""
    data = tmp_path / "data.csv"
    data.write_text("X1,X2\n0.5,1.5\n0.25,2\n")
    gaussian = spec("type: gaussian\nnodes: {H: {hidden: true}, X1: {parents: [H]}, "
                    "X2: {parents: [H]}}")
    code, _, err = run(capsys, *[{"SPEC": gaussian, "DATA": str(data)}.get(a, a)
                                 for a in command])
    assert code == 2 and err.count("\n") == 1
    assert f"{gaussian} is a Gaussian network, which 'hiddenbn {command[0]}' does not take; " \
           "give it to 'hiddenbn dim'" in err
    if command[0] != "fit":
        code, _, err = run(capsys, *[{"SPEC": spec(POISSON), "DATA": str(data)}.get(a, a)
                                     for a in command])
        assert code == 2 and "give it to 'hiddenbn dim' or 'hiddenbn fit'" in err


def test_a_noisy_max_model_is_a_network_for_every_command(spec, tmp_path, capsys):
    model, data, fitted = spec(NOISY_MAX), tmp_path / "data.csv", tmp_path / "fit.json"
    assert run(capsys, "sample", model, "--n", "200", "--seed", "2", "-o", str(data))[0] == 0
    assert run(capsys, "fit", str(data), "--model", model, "--restarts", "2", "--save-params",
               str(fitted), "--posteriors", str(tmp_path / "posteriors.csv"))[0] == 0
    assert (tmp_path / "posteriors.csv").read_text().startswith("row,p_X1_1,p_X1_2,modal_X1")
    code, out, _ = run(capsys, "fit", str(data), "--model", model, "--init", str(fitted),
                       "--json")
    assert code == 0 and json.loads(out)["em"]["schedule"] == "single"
    assert run(capsys, "evidence", str(data), "--model", model, "--runs", "2",
               "--particles", "8")[0] == 0


def test_gaussian_fit_without_a_maximum_is_one_line_not_nan(spec, tmp_path, capsys):
    data = tmp_path / "few.csv"
    data.write_text("C1,C2,E\n0,0,1.0\n1,0,2.0\n0,1,3.5\n")
    code, out, err = run(capsys, "fit", str(data), "--model", spec(GAUSSIAN), "--restarts", "1")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "no maximum" in err and "nan" not in err
