"""The quick config run whole: on one core and on two, reported, and killed and resumed.

Its tests share one run of each (the module's fixture ``quick_runs``) and stay in this one file,
so that ``make test`` (pytest-xdist, ``--dist loadfile``) runs the quick config on one worker
only; tests/conftest.py starts this file first, the longest chain of work in the suite.

The resumed run is killed with SIGKILL (a lost node or a power cut: nothing gets to clean up)
while paper 003's quick fits are running; the resumed run must plan only the unfinished jobs,
leave the finished outputs untouched, and end with the same results as an uninterrupted run.
"""

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pytest
import yaml

from hiddenbn.experiments.papers import PAPERS
from run_outputs import differences, result_files
from test_workflow import QUICK, REPO, SNAKEFILE, snakemake

# given before --configfile, which would take every word after it for another config file
TARGET = "results/quick/chickering_heckerman1996/comparison.md"


class QuickRun(NamedTuple):
    """A finished run of config/quick.yaml: its working directory and its outputs by path."""

    workdir: Path
    outputs: dict


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory):
    """The quick config run on one core and on two, both at once: {cores: QuickRun}.

    Shared by the determinism, report and resume tests below. The two runs overlap (a one-core
    run alone leaves a core idle); their results do not depend on the load, which is what the
    comparison of the two holds to.
    """
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    runs = {}
    for cores in (1, 2):
        workdir = tmp_path_factory.mktemp(f"quick_cores{cores}")
        log = (workdir.parent / f"{workdir.name}.log").open("w")
        process = subprocess.Popen(
            [sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE), "--cores",
             str(cores), "--directory", str(workdir), "--configfile", str(QUICK)],
            cwd=SNAKEFILE.parents[1], env=env, stdout=log, stderr=subprocess.STDOUT)
        runs[cores] = (workdir, process, log)
    finished = {}
    for cores, (workdir, process, log) in runs.items():
        returncode = process.wait()
        log.close()
        assert returncode == 0, Path(log.name).read_text()[-3000:]
        finished[cores] = QuickRun(workdir, result_files(workdir / "results" / "quick"))
    return finished


def outputs(workdir):
    """Every non-hidden file under results/ but the logs, with its modification time."""
    results = workdir / "results"
    return {p.relative_to(workdir): p.stat().st_mtime_ns for p in results.rglob("*")
            if p.is_file() and "logs" not in p.parts and not p.name.startswith(".")}


def assert_complete(path):
    """A CSV or JSON output parses in full (an interrupted write would not)."""
    text = path.read_text()
    if path.suffix == ".json":
        json.loads(text)
    elif path.suffix == ".csv":
        rows = list(csv.reader(io.StringIO(text)))
        assert rows and all(len(row) == len(rows[0]) for row in rows), path


def planned_outputs(workdir):
    """Outputs of the jobs a dry run of the resumed run plans (incomplete ones included)."""
    result = snakemake(TARGET, "--dry-run", "--directory", str(workdir), "--configfile",
                       str(QUICK))
    assert result.returncode == 0, result.stderr[-3000:]
    return {Path(path) for line in result.stdout.splitlines()
            if line.strip().startswith("output:")
            for path in line.split(":", 1)[1].strip().split(", ")}


def interrupted_run(workdir, finished_fits):
    """Start the run and SIGKILL its whole process group once ``finished_fits`` fits exist."""
    log = (workdir.parent / "interrupted.log").open("w")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    process = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE), TARGET,
         "--cores", "2", "--directory", str(workdir), "--configfile", str(QUICK)],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    fits = workdir / "results/quick/chickering_heckerman1996/fits"
    deadline = time.monotonic() + 600
    while len(list(fits.glob("*/rep*.csv"))) < finished_fits:
        assert process.poll() is None, (
            f"the run ended before it could be interrupted: {log.name}")
        assert time.monotonic() < deadline, "no fit finished within 10 minutes"
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    log.close()


def test_a_killed_run_resumes_without_redoing_finished_jobs(tmp_path, quick_runs):
    interrupted = tmp_path / "interrupted"
    interrupted_run(interrupted, finished_fits=2)
    before = outputs(interrupted)
    for path in before:
        assert_complete(interrupted / path)
    planned = planned_outputs(interrupted)
    finished = set(before) - planned
    assert finished, "nothing counted as finished"
    assert planned, "the kill came after the last job"

    # a killed Snakemake cannot release its lock: the user unlocks (as its message says), reruns
    unlock = snakemake(TARGET, "--unlock", "--directory", str(interrupted), "--configfile",
                       str(QUICK))
    assert unlock.returncode == 0, unlock.stderr[-3000:]
    rerun = snakemake(TARGET, "--cores", "2", "--directory", str(interrupted), "--configfile",
                      str(QUICK))
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    after = outputs(interrupted)
    redone = sorted(str(path) for path in finished if after[path] != before[path])
    assert not redone, f"finished jobs were run again: {redone}"

    # the same results as an uninterrupted run of the whole quick config, and no temporary
    # file of the killed job left behind (it would be a file that run does not have)
    resumed = result_files(interrupted / "results/quick")
    uninterrupted = quick_runs[1].outputs
    assert set(resumed) <= set(uninterrupted), sorted(set(resumed) - set(uninterrupted))
    assert not differences(resumed, {path: uninterrupted[path] for path in resumed})


def test_quick_run_is_identical_with_one_and_two_cores(quick_runs):
    outputs = {cores: run.outputs for cores, run in quick_runs.items()}
    assert not differences(outputs[1], outputs[2])  # identical but for measured run times
    quick = yaml.safe_load(QUICK.read_text())["chickering_heckerman1996"]
    data = [p for p in outputs[1] if p.parts[:2] == ("chickering_heckerman1996", "data")]
    assert len(data) == len(quick["experiments"]) * quick["replicates"]
    fits = [p for p in outputs[1] if p.parts[:2] == ("chickering_heckerman1996", "fits")]
    assert len(fits) == len(data)
    comparison = outputs[1][Path("chickering_heckerman1996/comparison.md")].decode()
    assert "## Table 1" in comparison and "## The paper's claims" in comparison
    for figure in quick["figures"]:
        assert Path(f"chickering_heckerman1996/figures/{figure}.png") in outputs[1]
    check_paper_003_tables(outputs[1], quick)


def check_paper_003_tables(outputs, section):
    """Content, not just presence: every fit scored, values in range, Table 1 complete."""
    def table(name):
        return pd.read_csv(io.BytesIO(outputs[Path("chickering_heckerman1996/tables") / name]))

    fits = table("fits.csv")
    expected = sum(e["test_states"]["max"] - e["test_states"]["min"] + 1
                   for e in section["experiments"].values()) * section["replicates"]
    assert len(fits) == 2 * expected  # the paper's EM protocol and the annealed search
    assert set(fits.protocol) == {"paper", "search"}
    for column in ("log_likelihood", "cs", "mled", "draper", "bic_log_evidence", "cs_de",
                   "em_seconds"):
        assert fits[column].notna().all(), column
    assert (fits.laplace.isna() == ~fits.laplace_positive_definite).all()
    features = fits.experiment.map(
        lambda e: section["models"][section["experiments"][e]["model"]]["features"])
    assert (fits.d == fits.hidden_states - 1 + fits.hidden_states * features).all()
    assert (fits.cs >= fits.mled).all() and (fits.log_likelihood < 0).all()
    assert fits.iterations.between(1, section["em"]["max_iterations"]).all()
    table1 = table("table1.csv")
    assert list(table1.experiment) == list(section["experiments"])
    assert list(table("table1_search.csv").experiment) == list(section["experiments"])
    spread = max(e["test_states"]["max"] - e["test_states"]["min"]
                 for e in section["experiments"].values())
    for score in ("cs", "mled", "draper", "bic_log_evidence"):
        assert table1[f"{score}_mean"].abs().max() <= spread
    reality = table("reality_check.csv")
    sizes = 1 + len(section["reality_check"].get("larger_models", []))
    assert len(reality) == sizes * section["reality_check"]["repetitions"]
    assert reality.log_marginal_dag.notna().all() and reality.delta_m.notna().all()


def test_report_of_a_quick_run_shows_every_paper(quick_runs, tmp_path):
    workdir, outputs = quick_runs[1]
    html = tmp_path / "report.html"
    result = snakemake("--report", str(html), "--directory", str(workdir), "--configfile",
                       str(QUICK))
    assert result.returncode == 0, result.stderr[-3000:]
    text = html.read_text()
    # categories are JSON in the page (non-ASCII letters escaped as json.dumps does)
    for paper in PAPERS.values():
        assert json.dumps(paper.label) in text, paper.name
    assert json.dumps("All papers") in text and "system-message" not in text
    assert text.count('"caption": "<p>') == text.count('"mime_type"')  # every result captioned
    document = outputs[Path("REPRODUCTION.md")].decode()
    for paper in PAPERS.values():
        assert f"## {paper.label}" in document, paper.name
