"""`hiddenbn dim SPEC --ebnc NODE`: JSON keys and values, text output, one-line errors."""

import json

import yaml

from hiddenbn import cli
from hiddenbn.ebnc import model as ebnc
from hiddenbn.models.spec import parse_spec

CHAIN = {"nodes": {"Y": {"states": 2}, "X1": {"states": 2, "parents": ["Y"]},
                   "X2": {"states": 3, "parents": ["X1", "Y"]},
                   "X3": {"states": 2, "parents": ["X2", "Y"]}}}


def write_spec(tmp_path, spec):
    path = tmp_path / "embedded.yaml"
    path.write_text(yaml.safe_dump(spec))
    return str(path)


def test_dim_ebnc_json_matches_the_library(tmp_path, capsys):
    assert cli.main(["dim", write_spec(tmp_path, CHAIN), "--ebnc", "Y", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"node", "d", "method", "basis_size"} <= set(report)
    basis = ebnc.ebnc_basis(parse_spec(CHAIN), "Y")
    assert report["node"] == "Y"
    assert report["basis_size"] == basis.dimension
    assert report["features"] == basis.feature_names()
    assert report["d"] == report["by_method"]["jacobian"]
    assert set(report["by_method"].values()) == {basis.dimension}
    assert report["warnings"] == []


def test_dim_ebnc_text_names_every_construction(tmp_path, capsys):
    assert cli.main(["dim", write_spec(tmp_path, CHAIN), "--ebnc", "X2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("EBNC of X2: d = ")
    assert "Sec. 6" in out and "Sec. 4" in out and "Jacobian" in out


def test_dim_ebnc_bad_input_exits_2_with_one_line(tmp_path, capsys):
    assert cli.main(["dim", "2:2,2", "--ebnc", "X1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "hidden" in err and "\n" not in err
    assert cli.main(["dim", write_spec(tmp_path, CHAIN), "--ebnc", "Z"]) == 2
    assert "no node called 'Z'" in capsys.readouterr().err


def test_dim_ebnc_uses_points_and_seed(tmp_path, capsys):
    spec = write_spec(tmp_path, CHAIN)
    runs = []
    for seed in (0, 0, 7):
        assert cli.main(["dim", spec, "--ebnc", "Y", "--json", "--jacobian-points", "1",
                         "--seed", str(seed)]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert runs[0] == runs[1]  # reproducible
    assert runs[2]["d"] == runs[0]["d"]  # the generic rank does not depend on the points
