"""``hiddenbn evidence``: exact and Monte-Carlo values as the library gives them; one-line
errors."""

import json

import numpy as np
import pytest

from hiddenbn.cli import main
from hiddenbn.data import read_csv, write_csv
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.scores.exact import exact_log_evidence


@pytest.fixture
def data_file(tmp_path):
    network = latent_class(2, [2, 3, 2])
    rng = np.random.default_rng(4)
    path = tmp_path / "data.csv"
    write_csv(path, sample_dataset(network, random_parameters(network, rng), 9, rng))
    return path


def test_exact_and_mc_agree_with_the_library(data_file, capsys):
    expected = exact_log_evidence(latent_class(2, [2, 3, 2]), read_csv(data_file), 1.0)
    assert main(["evidence", str(data_file), "--model", "2:2,3,2", "--method", "exact",
                 "--json"]) == 0
    exact = json.loads(capsys.readouterr().out)
    assert exact["log_evidence"] == pytest.approx(expected.log_evidence, abs=1e-12)
    assert exact["cases"] == 9
    assert main(["evidence", str(data_file), "--model", "2:2,3,2", "--runs", "4",
                 "--particles", "32", "--json"]) == 0
    mc = json.loads(capsys.readouterr().out)
    assert len(mc["run_estimates"]) == 4 and mc["standard_error"] > 0
    assert abs(mc["log_evidence"] - expected.log_evidence) < 5 * mc["standard_error"] + 1e-3
    assert main(["evidence", str(data_file), "--model", "2:2,3,2"]) == 0
    assert capsys.readouterr().out.startswith("log p(D | 2:2,3,2) = ")


@pytest.mark.parametrize("model, message", [
    ("2:2,3,2,2", "has 4 observed variables but there are 3 columns"),
    ("2:2,2,2", "column 'X2' has 3 states"),
])
def test_bad_data_or_model_exits_2_with_one_line(data_file, capsys, model, message):
    assert main(["evidence", str(data_file), "--model", model]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_one_run_is_refused(data_file, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["evidence", str(data_file), "--model", "2:2,3,2", "--runs", "1"])
    assert exit_info.value.code == 2
    assert "at least 2 runs" in capsys.readouterr().err


def test_an_estimate_carried_by_one_run_says_so(data_file, capsys, monkeypatch):
    import hiddenbn.scores.smc

    def one_run_dominates(network, data, rng, alpha, runs, particles):
        return hiddenbn.scores.smc.MonteCarloEvidence(
            -20.0, 15.0, np.array([-20.0, -60.0, -75.0, -90.0]), runs, particles, 1, 3)

    monkeypatch.setattr(hiddenbn.scores.smc, "smc_log_evidence", one_run_dominates)
    assert main(["evidence", str(data_file), "--model", "2:2,3,2", "--runs", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("note: the estimate rests on 1.0 of 4 runs")
    assert out[1].endswith("rerun with other seeds (--seed) and more particles (--particles) to "
                           "see how far it moves")
    text = str(hiddenbn.log_evidence(data_file, "2:2,3,2", runs=4))  # Python names keywords
    assert text.splitlines()[1].endswith("rerun with other seeds (seed=) and more particles "
                                         "(particles=) to see how far it moves")
    assert main(["evidence", str(data_file), "--model", "2:2,3,2", "--runs", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["effective_runs"] == pytest.approx(1.0)


@pytest.mark.parametrize("log_runs", [[-20.0, -20.0], [-20.0, -20.1]])
def test_runs_that_count_fully_are_not_called_different_modes(log_runs, data_file, capsys,
                                                              monkeypatch):
    import hiddenbn.scores.smc

    def runs_agree(network, data, rng, alpha, runs, particles):
        return hiddenbn.scores.smc.MonteCarloEvidence(-20.0, 0.05, np.array(log_runs), runs,
                                               particles, 1, 3)

    monkeypatch.setattr(hiddenbn.scores.smc, "smc_log_evidence", runs_agree)
    runs = str(len(log_runs))
    assert main(["evidence", str(data_file), "--model", "2:2,3,2", "--runs", runs]) == 0
    assert "different modes" not in capsys.readouterr().out
    assert main(["evidence", str(data_file), "--model", "2:2,3,2", "--runs", runs, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["different_modes"] is False


def test_runs_that_agree_print_no_note(data_file, capsys):
    assert main(["evidence", str(data_file), "--model", "2:2,3,2", "--runs", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["effective_runs"] > 2
    assert main(["evidence", str(data_file), "--model", "2:2,3,2", "--runs", "4"]) == 0
    assert "note:" not in capsys.readouterr().out
