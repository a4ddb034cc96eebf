"""The 'hiddenbn dim SPEC' command (the --ebnc branch is tested with the EBNC module)."""

import json

from hiddenbn.cli import main
from hiddenbn.dimension.effective import dimension_report
from hiddenbn.models.spec import parse_spec


def test_dim_json_has_the_documented_keys_and_matches_the_library(capsys):
    assert main(["dim", "3:2,2,2,2", "--json", "--jacobian-points", "2", "--seed", "4"]) == 0
    printed = json.loads(capsys.readouterr().out)
    for key in ("ds", "de", "dc", "dp", "db", "method", "gap"):
        assert key in printed
    expected = dimension_report(parse_spec("3:2,2,2,2"), points=2, seed=4)
    assert {k: printed[k] for k in ("ds", "de", "dc", "dp", "db")} == \
        {k: expected[k] for k in ("ds", "de", "dc", "dp", "db")}


def test_dim_text_names_every_dimension_and_the_regular_equivalent(capsys):
    assert main(["dim", "7:2,3,2", "--jacobian-points", "1"]) == 0
    out = capsys.readouterr().out
    for label in ("ds", "de", "dc", "dp", "db", "gap", "equivalent regular model: 4(2,3,2)"):
        assert label in out


def test_dim_of_a_huge_model_exits_2_with_size_and_alternative(capsys):
    assert main(["dim", "3:" + ",".join(["100"] * 6)]) == 2
    err = capsys.readouterr().err
    assert "observed x" in err and "db = " in err and err.count("\n") == 1
