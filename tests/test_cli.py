"""The hiddenbn command line: outputs, reproducibility and one-line errors with exit code 2."""

import json
import subprocess
import sys

import numpy as np
import pytest

import hiddenbn
from hiddenbn.cli import main
from hiddenbn.data import read_csv
from hiddenbn.models import load_parameters
from hiddenbn.spec import parse_spec


def run(*args):
    return subprocess.run([sys.executable, "-m", "hiddenbn", *args], capture_output=True,
                          text=True)


def test_version_and_help():
    assert run("--version").stdout.strip() == f"hiddenbn {hiddenbn.__version__}"
    help_text = run("sample", "--help").stdout
    assert "examples:" in help_text and "hiddenbn sample 3:2,2,2,2" in help_text


def test_same_seed_gives_byte_identical_files(tmp_path):
    for name in ("a", "b", "c"):
        seed = "5" if name != "c" else "6"
        assert main(["sample", "5(3(2,2),3(2,2),2)", "--n", "3000", "--seed", seed, "--counts",
                     "--save-params", str(tmp_path / f"{name}.json"),
                     "-o", str(tmp_path / f"{name}.csv")]) == 0
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert (tmp_path / "a.csv").read_bytes() != (tmp_path / "c.csv").read_bytes()
    assert read_csv(tmp_path / "a.csv").n_cases == 3000


def test_params_then_sample_with_params_reproduces_sample(tmp_path):
    main(["params", "3:2,2,2", "--seed", "8", "-o", str(tmp_path / "p.json")])
    main(["sample", "3:2,2,2", "--seed", "8", "--n", "50", "-o", str(tmp_path / "direct.csv"),
          "--save-params", str(tmp_path / "saved.json")])
    main(["sample", "3:2,2,2", "--seed", "8", "--n", "50", "--params", str(tmp_path / "p.json"),
          "-o", str(tmp_path / "via.csv")])
    assert (tmp_path / "direct.csv").read_bytes() == (tmp_path / "via.csv").read_bytes()
    network = parse_spec("3:2,2,2")
    for a, b in zip(load_parameters(tmp_path / "p.json", network),
                    load_parameters(tmp_path / "saved.json", network)):
        assert np.array_equal(a, b)


def test_rows_are_written_in_sampling_order(tmp_path):
    main(["sample", "2:2,2,2", "--n", "2000", "--seed", "1", "-o", str(tmp_path / "rows.csv")])
    rows = np.loadtxt(tmp_path / "rows.csv", delimiter=",", skiprows=1, dtype=int)
    assert rows.shape == (2000, 3)
    assert not np.array_equal(rows, rows[np.lexsort(rows.T[::-1])])  # not sorted patterns


def test_params_prints_json_to_stdout():
    document = json.loads(run("params", "2:3", "--seed", "1").stdout)
    assert set(document) == {"network", "cpts"} and len(document["cpts"]["X1"]) == 2


@pytest.mark.parametrize("args, message", [
    (["sample", "3:2,2,2(", "--n", "5"], "hiddenbn: error: '3:2,2,2(' is not a latent class spec"),
    (["sample", "3(2,2", "--n", "5"], "character 6: expected ',' or ')'"),
    (["sample", "3:2,2", "--n", "5", "--params", "missing.json"], "parameter file missing.json "
                                                                  "does not exist"),
    (["sample", "3:2,2", "--n", "0"], "argument --n: expected a positive whole number, got 0"),
    (["sample", "3:2,2", "--n", "5", "--seed", "-1"], "expected a non-negative whole number as seed"),
    (["sample", "3:2,2", "--n", "5", "--generating-alpha", "0"], "expected a positive number, got 0.0"),
    (["sample", "3:2,2", "--n", "5", "--generating-alpha", "nan"], "expected a positive number, got nan"),
    (["dim", "-1:2,2"], "'-1:2,2' starts with '-' and was read as an option (a state count is a "
                        "positive whole number)"),
    (["sample", "3:2,2", "--n", "5", "-o", "/etc/hostname/x.csv"], "hiddenbn: error: --output /etc/hostname/x.csv: /etc/hostname is a file, not a folder"),
])
def test_bad_arguments_exit_2_with_one_line(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
