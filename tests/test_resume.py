"""An interrupted run resumes: finished jobs are not redone and no output is left truncated.

The run is killed with SIGKILL (a lost node or a power cut: nothing gets to clean up) while
paper 003's quick fits are running; the resumed run must plan only the unfinished jobs, leave
the finished outputs untouched, and end with the same results as an uninterrupted run (the
quick config's, shared with tests/test_workflow.py).
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

from run_outputs import differences, result_files
from test_workflow import QUICK, REPO, SNAKEFILE, snakemake

# given before --configfile, which would take every word after it for another config file
TARGET = "results/quick/chickering_heckerman1996/comparison.md"


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
