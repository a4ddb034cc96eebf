"""``hiddenbn fit`` and ``hiddenbn dim`` with causal interaction models in the YAML form."""

import json

import numpy as np
import pandas as pd
import pytest

from hiddenbn.cli import main
from hiddenbn.dimension import effective_dimension
from hiddenbn.interaction import load_interaction
from hiddenbn.noisy_additive import poisson_log_likelihood, sample_additive, summarise

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
    assert report["em"]["converged"]
    rates = np.array(report["parameters"]["X1"]["rate"] + report["parameters"]["L"]["rate"])
    cause_part = sum(np.log(report["parameters"]["causes"][c])[causes[:, t]].sum()
                     for t, c in enumerate(("C1", "C2")))
    direct = poisson_log_likelihood(model, rates, summarise(causes, effect)) + cause_part
    assert report["scores"]["loglik"] == pytest.approx(direct, rel=1e-10)
    code, out, _ = run(capsys, "fit", str(data), "--model", path, "--restarts", "2")
    assert code == 0 and "cs_plus" in out


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
