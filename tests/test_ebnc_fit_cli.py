"""`hiddenbn ebnc fit|select`: JSON output that matches the library, one-line errors."""

import json

import numpy as np
import pytest

from hiddenbn import cli
from hiddenbn.data import write_csv
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.ebnc import fitting as ebnc_fit
from hiddenbn.models.spec import parse_spec

EMBEDDED = {"nodes": {"Y": {"states": 2}, "X1": {"states": 2, "parents": ["Y"]},
                      "X2": {"states": 2, "parents": ["Y"]}, "X3": {"states": 2}}}


@pytest.fixture
def files(tmp_path):
    network = parse_spec(EMBEDDED)
    cpts = [np.array([[0.5, 0.5]]), np.array([[0.85, 0.15], [0.2, 0.8]]),
            np.array([[0.7, 0.3], [0.2, 0.8]]), np.array([[0.5, 0.5]])]
    data = sample_dataset(network, cpts, 1500, np.random.default_rng(1))
    write_csv(tmp_path / "data.csv", data)
    (tmp_path / "embedded.json").write_text(json.dumps(EMBEDDED))
    return tmp_path, network, data


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_fit_prints_the_library_scores(files, capsys):
    path, network, data = files
    code, out, _ = run(capsys, "ebnc", "fit", path / "data.csv", "--target", "Y", "--embedded",
                       path / "embedded.json")
    assert code == 0
    report = json.loads(out)
    score = ebnc_fit.score_ebnc(network, "Y", data)
    assert report["laplace"] == pytest.approx(score.laplace)
    assert report["bic_log_evidence"] == pytest.approx(score.bic_log_evidence)
    assert report["inputs"] == ["X1", "X2"] and report["d"] == 3
    assert list(report["phi_map"]) == ["1", "X1=1", "X2=1"]


def test_select_finds_the_relevant_inputs(files, capsys):
    path, _, _ = files
    code, out, _ = run(capsys, "ebnc", "select", path / "data.csv", "--target", "Y",
                       "--score", "bic_log_evidence")
    assert code == 0
    assert sorted(json.loads(out)["selected_inputs"]) == ["X1", "X2"]


def test_errors_are_one_line(files, capsys):
    path, _, _ = files
    code, _, err = run(capsys, "ebnc", "select", path / "data.csv", "--target", "Z")
    assert code == 2 and err.count("\n") == 1 and "not a column" in err
    code, _, err = run(capsys, "ebnc", "fit", path / "data.csv", "--target", "Q",
                       "--embedded", path / "embedded.json")
    assert code == 2 and err.count("\n") == 1 and "not a node" in err
