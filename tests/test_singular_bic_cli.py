"""sBIC and ICL in ``hiddenbn select`` and ``hiddenbn fit``: text, JSON and the notes that say
why a model has none."""

import json

import pytest

import hiddenbn
from hiddenbn.cli import main
from hiddenbn.scores import singular_bic

OPTIONS = ["--restarts", "2", "--seed", "3", "--skip-de"]


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sbic") / "data.csv"
    assert main(["sample", "2:2,2,3", "--n", "300", "--seed", "4", "--counts", "-o",
                 str(path)]) == 0
    return path


def test_select_reports_sbic_over_1_to_k_classes_and_icl_for_each(data_file, capsys):
    assert main(["select", str(data_file), "--classes", "1..3", "--json", *OPTIONS]) == 0
    result = json.loads(capsys.readouterr().out)
    models = result["models"]
    assert result["sbic_phi"] == 2.5  # (d_1 + 1) / 2 with d_1 = 1 + 1 + 2
    expected = singular_bic.latent_class_sbic([m["loglik"] for m in models], [2, 2, 3], 300)
    assert [m["sbic_log_evidence"] for m in models] == pytest.approx(expected, abs=1e-9)
    for m in models:
        assert m["icl_log_evidence"] == pytest.approx(
            m["bic_log_evidence"] - m["classification"]["entropy"], abs=1e-8)
    for name in ("sbic_log_evidence", "icl_log_evidence"):
        assert result["selected"][name] == max(models, key=lambda m: m[name])["states"]
    assert any("phi = 2.5 (the sBIC package's default" in note for note in result["notes"])
    assert main(["select", str(data_file), "--classes", "1..3", "--sbic-phi", "4",
                 *OPTIONS]) == 0
    text = capsys.readouterr().out
    columns = next(line for line in text.splitlines() if "draper" in line).split()
    first = columns.index("bic_log_evidence")
    assert columns[first:first + 3] == ["bic_log_evidence", "sbic_log_evidence",
                                        "icl_log_evidence"]
    choices = next(line for line in text.splitlines() if line.startswith("selected k:"))
    assert "sbic_log_evidence " in choices and "icl_log_evidence " in choices
    assert "at prior parameter phi = 4\n" in text


def test_select_without_every_smaller_model_gives_no_sbic_and_says_why(data_file, capsys):
    assert main(["select", str(data_file), "--classes", "2,3", "--json", *OPTIONS]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [m["sbic_log_evidence"] for m in result["models"]] == [None, None]
    assert "sbic_log_evidence" not in result["selected"] and result["sbic_phi"] is None
    assert any(note.startswith("no sBIC: it weighs each model against all its submodels")
               and note.endswith("give --classes 1..K") for note in result["notes"])
    # the Python call's note names the keyword it was called with
    notes = hiddenbn.select(data_file, classes="2,3", restarts=2, seed=3, skip_de=True).notes
    assert any(note.startswith("no sBIC: it weighs each model against all its submodels")
               and note.endswith("give classes='1..K'") for note in notes)


@pytest.mark.parametrize("phi", ["0", "-1", "nan", "inf", "four"])
def test_a_bad_sbic_phi_is_one_line(data_file, capsys, phi):
    with pytest.raises(SystemExit) as exited:  # argparse's refusal
        main(["select", str(data_file), "--classes", "1..2", "--sbic-phi", phi])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("hiddenbn: error: ") and "--sbic-phi" in error
    assert error.count("\n") == 1


ONE_MODEL = ("no sBIC for one model: it weighs a model against all its submodels (Drton & "
             "Plummer 2017); select, given {}, gives it for the models of 1..K classes")


@pytest.mark.parametrize("model, note, in_python", [
    ("2:2,2,3", ONE_MODEL.format("--classes 1..K"), ONE_MODEL.format("classes='1..K'")),
    ("2(2(2,2),3)", singular_bic.NO_BOUND_NOTE, singular_bic.NO_BOUND_NOTE)])
def test_fit_gives_icl_and_a_null_sbic_with_the_reason(data_file, capsys, model, note,
                                                        in_python):
    assert main(["fit", str(data_file), "--model", model, "--json", *OPTIONS]) == 0
    report = json.loads(capsys.readouterr().out)
    scores = report["scores"]
    assert scores["sbic_log_evidence"] is None and note in report["notes"]
    assert scores["icl_log_evidence"] < scores["bic_log_evidence"]
    assert main(["fit", str(data_file), "--model", model, *OPTIONS]) == 0
    text = capsys.readouterr().out
    assert "  sbic_log_evidence -\n" in text and f"note: {note}" in text
    assert in_python in hiddenbn.fit(data_file, model, restarts=2, seed=3, skip_de=True).notes
    (icl_line,) = [line for line in text.splitlines() if line.startswith("  icl_log_evidence")]
    assert float(icl_line.split()[1]) == pytest.approx(scores["icl_log_evidence"], abs=1e-6)
