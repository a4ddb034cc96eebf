"""``hiddenbn fit`` and ``hiddenbn select``: outputs, reproducibility and one-line data errors."""

import dataclasses
import json

import numpy as np
import pytest

import hiddenbn
from hiddenbn.cli import main
from hiddenbn.errors import command_line
from hiddenbn.data import read_csv
from hiddenbn.learning.em import OPTIMUM, run_em
from hiddenbn.models.network import load_parameters
from hiddenbn.models.spec import parse_spec


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "data.csv"
    assert main(["sample", "2:2,2,3", "--n", "300", "--seed", "4", "--counts", "-o",
                 str(path)]) == 0
    return path


def test_fit_json_reports_parameters_convergence_and_every_score(data_file, capsys):
    assert main(["fit", str(data_file), "--model", "2:2,2,3", "--restarts", "8", "--seed", "1",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n_cases"] == 300 and report["ds"] == 9 and report["em"]["converged"]
    assert set(report["scores"]) >= {"loglik", "bic_log_evidence", "draper", "mled", "cs",
                                     "laplace"}
    # the printed parameters are a fixed point: one more EM pass barely changes g
    network = parse_spec("2:2,2,3")
    cpts = [np.array(report["parameters"][name]) for name in network.names]
    again = run_em(network, read_csv(data_file), cpts, alpha=1.0, max_iterations=1)
    assert again.log_likelihood == pytest.approx(report["em"]["log_likelihood"], rel=1e-4)


def test_fit_is_reproducible_and_prints_text(data_file, capsys):
    arguments = ["fit", str(data_file), "--model", "2:2,2,3", "--restarts", "4", "--skip-de"]
    assert main(arguments) == 0
    first = capsys.readouterr().out
    assert main(arguments) == 0
    assert capsys.readouterr().out == first
    assert "log-likelihood" in first and "cs" in first
    assert "item-response probabilities" in first and "\nX3\n" in first and "class 2" in first
    assert main(arguments + ["--max-iterations", "1", "--tolerance", "1e-300"]) == 0
    assert "NOT converged after 1 final iterations" in capsys.readouterr().out


def test_notes_name_options_as_the_caller_wrote_them(data_file, capsys):
    """The note of a fit stopped by the iteration cap and that of halving name the options as
    the command line's flags in its text and JSON, and as keywords in Python; none keeps the
    invisible mark that tells an option apart."""
    arguments = ["fit", str(data_file), "--model", "2:2,2,3", "--skip-de", "--schedule",
                 "halving", "--max-iterations", "1", "--tolerance", "1e-300"]
    capped = ("EM stopped at the cap of 1 final iterations before its stopping rule was met: "
              "the estimates may be short of the optimum; raise the cap ({})")
    halving = ("the halving schedule runs one start to convergence, so it cannot tell whether "
               "other starts reach the same fit; the other schedules ({}) run every start to "
               "convergence and count those that reach the best")
    assert main(arguments + ["--json"]) == 0
    printed = capsys.readouterr()
    notes = json.loads(printed.out)["notes"]
    assert capped.format("--max-iterations") in notes and halving.format("--schedule") in notes
    assert main(arguments) == 0
    text = capsys.readouterr()
    assert f"note: {capped.format('--max-iterations')}\n" in text.out
    result = hiddenbn.fit(data_file, "2:2,2,3", skip_de=True, schedule="halving",
                          max_iterations=1, tolerance=1e-300)
    assert capped.format("max_iterations=") in result.notes
    assert halving.format("schedule=") in result.notes
    assert f"note: {capped.format('max_iterations=')}\n" in str(result)
    assert capped.format("max_iterations=") in json.loads(result.to_json())["notes"]
    assert main(["select", str(data_file), "--classes", "1..2", *arguments[4:]]) == 0
    selected = capsys.readouterr()
    assert f"k = 2: {capped.format('--max-iterations')}" in selected.out
    for output in (printed.out, printed.err, text.out, text.err, selected.out, selected.err,
                   result.to_json(), str(result)):
        assert "\u2063" not in output


def test_select_reports_a_table_and_the_choices(data_file, capsys):
    assert main(["select", str(data_file), "--family", "lc", "--classes", "1..3", "--restarts",
                 "4", "--json", "--skip-de"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [m["states"] for m in result["models"]] == [1, 2, 3]
    assert set(result["selected"]) >= {"bic_log_evidence", "cs", "mled", "draper", "loglik"}
    assert result["selected"]["loglik"] == max(result["models"], key=lambda m: m["loglik"])[
        "states"]
    assert main(["select", str(data_file), "--classes", "1,2", "--restarts", "2",
                 "--skip-de"]) == 0
    assert "selected k:" in capsys.readouterr().out


def test_select_reports_for_each_k_the_statistics_fit_reports(data_file, capsys):
    """One BIC, -2 log L + d log N (smaller is better), in fit and select alike, beside AIC,
    SABIC, CAIC, entropy and G^2 from the same functions; the log-evidence scores have names
    of their own."""
    options = ["--restarts", "4", "--seed", "3", "--json", "--skip-de"]
    assert main(["select", str(data_file), "--classes", "1..3", *options]) == 0
    result = json.loads(capsys.readouterr().out)
    assert "larger is better" in result["scores_orientation"]
    for k in (2, 3):
        assert main(["fit", str(data_file), "--classes", str(k), *options]) == 0
        lca = json.loads(capsys.readouterr().out)["lca"]
        row = result["models"][k - 1]
        assert row["fit_statistics"] == pytest.approx(lca["fit_statistics"])
        assert row["classification"] == pytest.approx(
            {name: lca["classification"][name] for name in ("entropy", "entropy_r2")})
        statistics = row["fit_statistics"]
        assert "smaller is better" in statistics["orientation"]
        assert statistics["bic"] == pytest.approx(-2 * row["bic_log_evidence"])
        assert statistics["bic"] == pytest.approx(-2 * statistics["log_likelihood"]
                                                  + row["ds"] * np.log(300))
    for name in ("aic", "bic", "sabic", "caic"):
        best = min(result["models"], key=lambda m: m["fit_statistics"][name])
        assert result["selected"][name] == best["states"]
    assert main(["select", str(data_file), "--classes", "1..2", *options[:-2]]) == 0
    text = capsys.readouterr().out
    assert "fit statistics: AIC, BIC, SABIC and CAIC are -2 log L + penalty: smaller is" in text
    assert "scores: approximations of the log marginal likelihood" in text
    for column in ("AIC", "BIC", "SABIC", "CAIC", "entropy R^2", "G^2", "bic_log_evidence"):
        assert column in text


@pytest.mark.parametrize("content, message", [
    ("X1,X2\n0,1\n", "the model 2:2,2,3 has 3 observed variables but there are 2 columns"),
    # a shorthand over fewer columns than the data has, even where its X1..X3 are columns
    ("X1,X2,X3,X4\n0,1,2,1\n1,0,1,0\n", "the model 2:2,2,3 has 3 observed variables but "
     "there are 4 columns (X1, X2, X3, X4); give --columns with 3 of them, or a model with 4 "
     "observed leaves"),
    ("X1,X2,X3\n0,1,4\n", "column 'X3' has 4 states ('1', '2', '3', '4') but the model gives it 3"),
    ("X1,X2,X3\n0,a,1\n1,b,0\n2,c,1\n", "column 'X1' has 3 states"),
    ("X1,X2,X3\n0,1\n", "line 2: 2 cells, but the header has 3"),
    ("X1,X2,X3\n0,1,2\n,,NA\n", "row 2: every cell is missing"),
    ("", "empty"),
])
def test_fit_data_errors_are_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert main(["fit", str(path), "--model", "2:2,2,3", "--restarts", "2"]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_select_bad_states_is_one_line(data_file, capsys):
    assert main(["select", str(data_file), "--classes", "0..3"]) == 2
    assert "--classes" in capsys.readouterr().err


def test_fit_from_given_parameters_is_em_from_them(data_file, tmp_path, capsys):
    """--init starts EM once from a parameter file (the oracle check from the truth)."""
    truth = tmp_path / "truth.json"
    assert main(["params", "2:2,2,3", "--seed", "4", "-o", str(truth)]) == 0
    assert main(["fit", str(data_file), "--model", "2:2,2,3", "--init", str(truth), "--skip-de",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["em"]["restarts"] == 1 and report["em"]["schedule"] == "single"
    network = parse_spec("2:2,2,3")
    expected = run_em(network, read_csv(data_file), load_parameters(truth, network),
                      **{"alpha": 1.0, **dataclasses.asdict(OPTIMUM)})
    assert report["em"]["log_posterior"] == expected.log_posterior
    assert main(["fit", str(data_file), "--model", "3:2,2,3", "--init", str(truth)]) == 2
    error = capsys.readouterr().err
    assert "expected (1, 3)" in error and error.count("\n") == 1


def test_fit_with_the_annealed_search(data_file, capsys):
    assert main(["fit", str(data_file), "--model", "2:2,2,3", "--schedule", "annealing",
                 "--restarts", "2", "--sweeps", "10", "--skip-de", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["em"]["schedule"] == "annealing" and report["em"]["restarts"] == 2
    with pytest.raises(SystemExit) as exit_info:  # argparse: usage and one line, exit 2
        main(["fit", str(data_file), "--model", "2:2,2,3", "--schedule", "anneal"])
    assert exit_info.value.code == 2


def test_parameter_files_round_trip_between_params_sample_and_fit(tmp_path, capsys):
    """Found by an input audit: the hidden node of '--classes 2' was 'H' and that of
    '2:2,2,2,2' 'H1', so a file of 'hiddenbn params' failed '--init' under '--classes'."""
    truth, data, fitted = tmp_path / "truth.json", tmp_path / "data.csv", tmp_path / "fit.json"
    assert main(["params", "2:2,2,2,2", "--seed", "3", "-o", str(truth)]) == 0
    assert main(["sample", "2:2,2,2,2", "--params", str(truth), "--n", "300", "-o",
                 str(data)]) == 0
    assert main(["fit", str(data), "--classes", "2", "--init", str(truth), "--skip-de",
                 "--save-params", str(fitted)]) == 0
    resampled = tmp_path / "again.csv"
    assert main(["sample", "2:2,2,2,2", "--params", str(fitted), "--n", "5", "-o",
                 str(resampled)]) == 0
    assert read_csv(resampled).names == ("X1", "X2", "X3", "X4")
    # a parameter file is also the spec of its network, whatever the columns are named
    assert main(["sample", str(fitted), "--params", str(fitted), "--n", "5", "-o",
                 str(resampled)]) == 0


def test_a_score_without_a_value_is_shown_as_a_dash_not_nan(tmp_path, capsys):
    data = tmp_path / "data.csv"
    # the ML fit (alpha 1) of these 60 cases has no positive definite Hessian: no Laplace score
    assert main(["sample", "2:2,2,2", "--n", "60", "--seed", "1", "-o", str(data)]) == 0
    assert main(["fit", str(data), "--model", "2:2,2,2", "--restarts", "2", "--skip-de",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"]["laplace"] is None
    assert main(["fit", str(data), "--model", "2:2,2,2", "--restarts", "2", "--skip-de"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out.lower().split() and " -\n" in out.replace("laplace", "")
    assert "no Laplace score" in out


def test_fit_is_accelerated_by_default_and_plain_on_request(data_file, capsys):
    """SQUAREM by default, plain EM steps with --acceleration none: the same mode, and each
    report names its final phase."""
    arguments = ["fit", str(data_file), "--model", "2:2,2,3", "--schedule", "halving",
                 "--restarts", "4", "--skip-de"]
    reports = {}
    for acceleration in ("squarem", "none"):
        chosen = [] if acceleration == "squarem" else ["--acceleration", "none"]
        assert main(arguments + ["--json"] + chosen) == 0
        reports[acceleration] = json.loads(capsys.readouterr().out)["em"]
        assert reports[acceleration]["acceleration"] == acceleration
    assert reports["squarem"]["log_posterior"] == pytest.approx(
        reports["none"]["log_posterior"], abs=1e-6)
    assert reports["squarem"]["iterations"] < reports["none"]["iterations"]
    assert main(arguments + ["--acceleration", "none"]) == 0
    assert "(halving, plain EM, exact inference by latent class)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:  # argparse: usage and one line, exit 2
        main(arguments + ["--acceleration", "fast"])
    assert exit_info.value.code == 2


def test_fit_and_select_say_how_many_starts_reached_the_best(data_file, capsys):
    """The default search's starts each run to the end: JSON counts those that reached the best
    g, the text says so, and select's table has a column of it; halving finishes one start, and
    a note says it cannot tell."""
    assert main(["fit", str(data_file), "--model", "2:2,2,3", "--skip-de", "--json"]) == 0
    em = json.loads(capsys.readouterr().out)["em"]
    assert em["schedule"] == "annealing" and em["restarts"] == em["searches"] == 8
    assert len(em["final_log_posteriors"]) == 8 and max(em["final_log_posteriors"]) == \
        em["log_posterior"]
    assert em["best_found"] == sum(g >= em["log_posterior"] - 0.01
                                   for g in em["final_log_posteriors"])
    assert em["replicated"] == (em["best_found"] > 1)
    assert main(["fit", str(data_file), "--model", "2:2,2,3", "--skip-de"]) == 0
    assert f"replication: the best g reached by {em['best_found']} of 8 starts (within 0.01 " \
           "nats)" in capsys.readouterr().out
    assert main(["fit", str(data_file), "--model", "2:2,2,3", "--skip-de", "--schedule",
                 "halving", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["em"]["restarts"] == 64 and report["em"]["searches"] == 1
    assert any(note.startswith("the halving schedule runs one start to convergence, so it "
                               "cannot tell") for note in report["notes"])
    assert main(["select", str(data_file), "--classes", "1..2", "--skip-de"]) == 0
    text = capsys.readouterr().out
    assert "  found " in text and "\n  1      4      ?   yes     8/8 " in text  # one mode


def test_a_best_fit_found_once_has_a_note_saying_what_to_do(data_file):
    """A fit whose best g no other start came within 0.01 nats of is not replicated: the
    report says so, and to rerun with more starts."""
    from hiddenbn.learning.selection import fit_and_score
    from hiddenbn.reports.fit import fit_report, format_fit_report

    data = read_csv(data_file)
    outcome = fit_and_score(parse_spec("2:2,2,3"), data, 0, 1.0, 4, False, False)
    best = outcome["fit"].log_posterior
    outcome["fit"] = dataclasses.replace(outcome["fit"], final_log_posteriors=[
        best - 0.5, best, best - 0.011, best - 3.0])
    report = fit_report(outcome, data)
    assert (report["em"]["replicated"], report["em"]["best_found"],
            report["em"]["searches"]) == (False, 1, 4)
    note = ("the best fit was found by 1 of 4 starts (no other ended within 0.01 nats of its log "
            "posterior), so a better one may exist; rerun with more starts (e.g. {}) and see "
            "whether the best recurs")
    assert note.format("restarts=16") in report["notes"]  # as Python's hiddenbn.fit names it
    with command_line():  # as the command line, which runs each command so, names it
        assert note.format("--restarts 16") in fit_report(outcome, data)["notes"]
    assert "reached by 1 of 4 starts (within 0.01 nats), NOT replicated" in \
        format_fit_report(report)
