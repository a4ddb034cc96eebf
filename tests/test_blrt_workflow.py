"""The bootstrap test's replicates as workflow jobs (workflow/rules/blrt.smk,
:mod:`hiddenbn.experiments.blrt`): the config's ``blrt:`` section.

* The jobs' report is ``select --blrt B --json``'s ``blrt`` to the bit, in any number of chunks
  (a plan, the chunks' files, their combination), and from Snakemake on two cores; a note
  naming an option names the config's key (``restarts=``) where the command names its flag.
* A chunk stops by itself at the rule's ``h``-th exceedance of its own; replicates past a gap
  are never read. In waves, a wave runs only the tests the waves before left undecided, and
  none runs once every test is decided.
* ``hiddenbn check-config`` refuses a bad section in one line naming the key.

The data (120 cases of four binary items from two weakly separated classes) give the test of 1
against 2 classes a p-value near 0.25: with B = 39 (h = 2) the sequential rule stops after 8
replicates, and a chunk past them stops at its own second exceedance.
"""

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from test_bad_input import assert_refused, run, write
from test_workflow import REPO, SNAKEFILE

from hiddenbn.cli import main
from hiddenbn.data import write_csv
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import HiddenbnError, ParameterError
from hiddenbn.experiments import blrt as bootstrap_tests
from hiddenbn.learning import blrt
from hiddenbn.models.network import latent_class

#: B of every test here: h = 2 exceedances stop the rule.
REPLICATES = 39
#: The options of the test, as the config's keys and as the command line's.
TEST = {"classes": "1..2", "replicates": REPLICATES, "em": {"schedule": "halving", "restarts": 4}}
OPTIONS = ["--classes", "1..2", "--schedule", "halving", "--restarts", "4", "--skip-de", "--blrt",
           str(REPLICATES)]


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    network = latent_class(2, [2, 2, 2, 2])
    cpts = [np.array([[0.5, 0.5]])] + [np.array([[0.65, 0.35], [0.35, 0.65]])] * 4
    data = sample_dataset(network, cpts, 120, np.random.default_rng(0), missing_rate=0.05)
    path = tmp_path_factory.mktemp("blrt") / "data.csv"
    write_csv(path, data)
    return path


@pytest.fixture(scope="module")
def command_report(data_file):
    """``hiddenbn select DATA ... --blrt 39 --cores 1 --json``'s ``blrt``."""
    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(io.StringIO()):
        assert main(["select", str(data_file), *OPTIONS, "--cores", "1", "--json"]) == 0
    return json.loads(output.getvalue())["blrt"]


@pytest.fixture(scope="module")
def test_entry(data_file):
    return bootstrap_tests.check_config({"small": dict(TEST, data=data_file.name)},
                                        data_file.parent)["small"]


def test_the_command_s_report_is_one_the_rule_stops_early(command_report):
    test, = command_report["tests"]
    assert (test["replicates"], test["exceedances"], test["stopped_early"]) == (8, 2, True)
    assert test["p_value"] == 2 / 8


def test_jobs_give_the_command_s_report_in_chunks_that_stop_by_themselves(
        test_entry, command_report, tmp_path):
    """Plan, five chunks and their combination through their files: equal JSON values are
    equal floats, so the p-values and statistics are the command's to the bit. The rule stops
    in chunk 1 (replicate 7); chunk 3 stops at its own second exceedance (replicate 26),
    leaving a gap the combination does not read; a gap before the stopping point is
    refused."""
    chunks = 5
    bootstrap_tests.write_plan(test_entry, tmp_path / "plan.json")
    paths = [tmp_path / f"{chunk}.json" for chunk in range(chunks)]
    for chunk, path in enumerate(paths):
        bootstrap_tests.write_chunk(tmp_path / "plan.json", chunks, chunk, path)
    bootstrap_tests.write_report(tmp_path / "plan.json", paths, tmp_path / "blrt.json",
                                 tmp_path / "blrt.txt")
    assert json.loads((tmp_path / "blrt.json").read_text()) == command_report
    assert f"{command_report['tests'][0]['p_value']:.4f}" in (tmp_path / "blrt.txt").read_text()

    ranges = [bootstrap_tests.chunk_range(REPLICATES, chunks, chunk) for chunk in range(chunks)]
    assert ranges == [(0, 7), (7, 15), (15, 23), (23, 31), (31, 39)]
    observed = command_report["tests"][0]["statistic"]
    results = [json.loads(path.read_text()) for path in paths]
    for (start, stop), chunk in zip(ranges, results):
        exceeds = [result["statistic"] >= observed for result in chunk]
        assert [result["replicate"] for result in chunk] == list(range(start,
                                                                       start + len(chunk)))
        if len(chunk) < stop - start:  # stopped by itself: right after its second exceedance
            assert sum(exceeds) == 2 and exceeds[-1], exceeds
        else:
            assert sum(exceeds[:-1]) < 2, exceeds
    assert [len(chunk) for chunk in results] == [7, 8, 8, 4, 8]
    plan = blrt.read_plan(tmp_path / "plan.json")
    with pytest.raises(ParameterError, match="lack replicate 7"):
        blrt.combine_all(plan, results[0] + results[2])


def run_waves(test: dict, folder) -> list:
    """Plan, chunks and waves of ``test`` through their files, as the rules run them; the
    chunk files the combination reads."""
    plan_path = folder / "plan.json"
    bootstrap_tests.write_plan(test, plan_path)
    (folder / "chunks").mkdir()
    (folder / "waves").mkdir()

    def wave_file(wave):  # the checkpoint: every chunk of the waves up to this one
        path = folder / "waves" / f"{wave}.json"
        chunks = sorted((folder / "chunks").iterdir(), key=lambda chunk: int(chunk.stem))
        bootstrap_tests.write_wave(plan_path, chunks, path)
        return path

    for chunk in range(test["chunks"]):
        wave = bootstrap_tests.wave_of(test, chunk)
        bootstrap_tests.write_chunk(plan_path, test["chunks"], chunk,
                                    folder / "chunks" / f"{chunk}.json",
                                    folder / "waves" / f"{wave - 1}.json" if wave else None)
        if chunk + 1 < test["chunks"] and bootstrap_tests.wave_of(test, chunk + 1) > wave:
            wave_file(wave)
    return bootstrap_tests.chunks_to_combine(test, str(folder),
                                             lambda wave: folder / "waves" / f"{wave}.json")


def test_a_wave_that_decides_every_test_is_the_last(test_entry, command_report, tmp_path):
    """Three chunks in waves of one: the rule stops in chunk 0, whose wave leaves no test
    undecided, so the combination reads chunk 0 alone and gives the command's report."""
    test = dict(test_entry, chunks=3, chunks_per_wave=1)
    paths = run_waves(test, tmp_path)
    assert paths == [f"{tmp_path}/chunks/0.json"]
    assert bootstrap_tests.undecided(tmp_path / "waves" / "0.json") == []
    assert bootstrap_tests.combine(tmp_path / "plan.json", paths) == command_report


def test_later_waves_run_only_the_undecided_tests(tmp_path):
    """Strongly separated classes: the test of 2 classes takes all 39 replicates (p = 1/40),
    the test of 3 stops at its second replicate. In waves of one chunk, chunks 1 and 2 run the
    test of 2 classes alone, and the report is the command's."""
    network = latent_class(2, [2, 2, 2, 2])
    cpts = [np.array([[0.5, 0.5]])] + [np.array([[0.85, 0.15], [0.15, 0.85]])] * 4
    data = sample_dataset(network, cpts, 120, np.random.default_rng(0), missing_rate=0.05)
    write_csv(tmp_path / "strong.csv", data)
    test = bootstrap_tests.tests({"strong": dict(TEST, data="strong.csv", classes="1..3",
                                                 chunks=3, chunks_per_wave=1)},
                                 tmp_path)["strong"]
    (tmp_path / "jobs").mkdir()
    paths = run_waves(test, tmp_path / "jobs")
    assert len(paths) == 3
    assert [bootstrap_tests.undecided(tmp_path / "jobs" / "waves" / f"{wave}.json")
            for wave in (0, 1)] == [[2], [2]]
    chunks = [json.loads(Path(path).read_text()) for path in paths]
    assert [sorted({result["states"] for result in chunk}) for chunk in chunks] == \
        [[2, 3], [2], [2]]
    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(io.StringIO()):
        assert main(["select", str(tmp_path / "strong.csv"), *OPTIONS[2:], "--classes", "1..3",
                     "--cores", "1", "--json"]) == 0
    report = bootstrap_tests.combine(tmp_path / "jobs" / "plan.json", paths)
    # a job's notes name an option as the config's key, the command's as its flag
    assert {**report, "notes": [note.replace("(restarts=)", "(--restarts)")
                                for note in report["notes"]]} == \
        json.loads(output.getvalue())["blrt"]
    assert [(test["states"], test["replicates"]) for test in report["tests"]] == [(2, 39), (3, 2)]


def test_snakemake_runs_the_rules_to_the_command_s_report(data_file, command_report, tmp_path):
    """Three chunks in waves of two on two cores: plan, chunks, the wave's checkpoint and the
    combination as Snakemake jobs; the first wave decides the test, so chunk 2 never runs."""
    config = {"seed": 1, "results_dir": "out",
              "blrt": {"small": dict(TEST, data=str(data_file), chunks=3, chunks_per_wave=2)}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    result = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE),
                             "--cores", "2", "--directory", str(tmp_path), "--configfile",
                             str(tmp_path / "config.yaml"), "--quiet"],
                            capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr[-3000:]
    folder = tmp_path / "out" / "blrt" / "small"
    assert sorted(path.name for path in (folder / "chunks").iterdir()) == ["0.json", "1.json"]
    assert json.loads((folder / "waves" / "0.json").read_text()) == {"undecided": []}
    report = json.loads((folder / "blrt.json").read_text())
    assert report == command_report
    text = (folder / "blrt.txt").read_text()
    assert f"{report['tests'][0]['p_value']:.4f}" in text


# --- the config ---------------------------------------------------------------------------------
@pytest.mark.parametrize("edit, message", [
    ({"chunks": 40}, "config blrt.small.chunks: 40 chunks of 39 replicates would leave some "
                     "empty; give at most as many chunks as replicates"),
    ({"chunks": 3, "chunks_per_wave": 4}, "config blrt.small.chunks_per_wave: 4 is more than "
                                          "the 3 chunks; give at most chunks"),
    ({"classes": "1"}, "config blrt.small.classes: the bootstrap likelihood-ratio test compares "
                       "k - 1 with k classes"),
    ({"classes": "one"}, "config blrt.small.classes: 'one': write a range such as 1..8"),
    ({"data": "absent.csv"}, "config blrt.small: data file"),
    ({"columns": ["X1", "Y"]}, "config blrt.small: "),
    ({"replicates": 0}, "config blrt.small.replicates: must be an integer from 1 to 65536"),
    ({"em": {"restart": 2}}, "config blrt.small.em"),
    ({"seeds": 1}, "config blrt.small.seeds: unknown key; did you mean seed?"),
])
def test_check_config_refuses_a_bad_blrt_section_in_one_line(data_file, tmp_path, capsys,
                                                             edit, message):
    test = {**TEST, "data": str(data_file), **edit}
    path = write(tmp_path, "config.yaml", yaml.safe_dump({"seed": 1, "blrt": {"small": test}}))
    assert_refused(run(capsys, "check-config", path), message)


def test_check_config_passes_a_good_section_with_every_key(data_file, tmp_path, capsys):
    test = dict(TEST, data=data_file.name, columns=["X1", "X2", "X3"], missing_values=["NA"],
                missing="drop", seed=4, chunks=3, chunks_per_wave=2,
                em={"prior_alpha": 1.0, "schedule": "annealing", "sweeps": 3, "restarts": 2,
                    "tolerance": 1e-6, "convergence": "absolute", "max_iterations": 100,
                    "run_all_iterations": False, "acceleration": "none"})
    path = data_file.parent / "good.yaml"
    path.write_text(yaml.safe_dump({"seed": 1, "blrt": {"small": test}}))
    code, out, _ = run(capsys, "check-config", path)
    assert code == 0 and "no problems" in out
    checked = bootstrap_tests.tests({"small": test}, data_file.parent)["small"]
    assert checked["classes"] == [1, 2] and checked["data"] == str(data_file)
    with pytest.raises(HiddenbnError, match="classes"):
        bootstrap_tests.tests({"small": dict(test, classes=[1])}, ".")
    assert bootstrap_tests.tests({"small": dict(test, classes=[1, 3])}, ".")["small"][
        "classes"] == [1, 3]
