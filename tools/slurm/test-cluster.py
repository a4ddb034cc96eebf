"""``make test-cluster``: the quick config run locally and on a one-node SLURM cluster, compared.

As root on Debian this

1. installs the SLURM executor plugin (the ``cluster`` extra of pyproject.toml) into the
   environment of the Python running it, when it is missing;
2. starts a single-node SLURM cluster (tools/slurm/start-cluster.sh; already running is fine);
3. runs config/quick.yaml with the local executor and through
   ``--workflow-profile workflow/profiles/slurm``, each in its own scratch directory and under
   ``timeout -k`` (the plugin can wait forever on a job state it cannot read);
4. checks that every job of the SLURM run ran inside a SLURM job that completed: the rule jobs
   in the plugin's per-job logs, counted by rule, must be the jobs Snakemake planned, apart from
   the ``all`` target, which runs nothing;
5. checks that both runs made the same files with the same contents, measured run times aside
   (tests/run_outputs.py).

It prints a summary and exits 1 on any failure, keeping the scratch directory for a look.
Where no cluster can be started (not root, no apt-get, the Debian mirror out of reach) it says
why and exits 0. The cluster stays up for the next run; tools/slurm/stop-cluster.sh stops it.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import yaml
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from run_outputs import differences, result_files  # noqa: E402  (the tests' own comparison)

QUICK = REPO / "config" / "quick.yaml"
PROFILE = REPO / "workflow" / "profiles" / "slurm"
START = REPO / "tools" / "slurm" / "start-cluster.sh"
SKIPPED = 75  # start-cluster.sh's exit status when no cluster can be set up here
# A run takes 1-5 minutes on the 2-core development machine; past this limit it is stuck (the
# plugin polls forever when it cannot see a job's state, and ignores SIGTERM).
RUN_LIMIT_SECONDS = 20 * 60
# The default target collects the results and runs nothing, so Snakemake runs it in the main
# process; every other job must run on the cluster.
LOCAL_RULES = {"all"}


def say(message):
    print(f"test-cluster: {message}", flush=True)


def skip(reason):
    say(f"skipped: {reason}")
    sys.exit(0)


class Failure(Exception):
    """A check failed: the message says which and where to look."""


def install_plugin():
    """Install the ``cluster`` extra's requirements that this environment lacks."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    missing = []
    for text in project["optional-dependencies"]["cluster"]:
        requirement = Requirement(text)
        try:
            if requirement.specifier.contains(version(requirement.name), prereleases=True):
                continue
        except PackageNotFoundError:
            pass
        missing.append(text)
    if missing:
        say(f"installing {' '.join(missing)}")
        pip = [sys.executable, "-m", "pip", "install", "--quiet", *missing]
        if subprocess.run(pip).returncode != 0:
            raise Failure(f"could not install {' '.join(missing)} (`{' '.join(pip)}` failed)")


def run_snakemake(name, workdir, *options):
    """Run the quick config in ``workdir``; returns the wall time in seconds."""
    workdir.mkdir(parents=True)
    log = workdir / "snakemake.out"
    # the rules call the `hiddenbn` command, which lives beside this Python
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    arguments = ["--snakefile", str(REPO / "workflow" / "Snakefile"), "--directory", str(workdir),
                 *options, "--configfile", str(QUICK)]
    command = ["timeout", "-k", "30", str(RUN_LIMIT_SECONDS), sys.executable, "-m", "snakemake",
               *arguments]
    say(f"{name} run: snakemake {' '.join(arguments)}")
    start = time.monotonic()
    with open(log, "w") as out:
        status = subprocess.run(command, cwd=REPO, env=env, stdout=out,
                                stderr=subprocess.STDOUT).returncode
    seconds = time.monotonic() - start
    if status in (124, 137):  # timeout's TERM, then KILL
        raise Failure(f"the {name} run did not finish within {RUN_LIMIT_SECONDS} s ({log})")
    if status != 0:
        raise Failure(f"the {name} run failed with exit status {status} ({log})")
    say(f"{name} run finished in {seconds:.0f} s")
    return seconds


def snakemake_log(workdir):
    """Text of the newest Snakemake log in ``workdir`` (empty when there is none)."""
    logs = sorted((workdir / ".snakemake" / "log").glob("*.snakemake.log"))
    return logs[-1].read_text() if logs else ""


def planned_jobs(log):
    """Jobs per rule from the "Job stats" table at the top of a Snakemake log."""
    table = log.split("Job stats:", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^(\w+)\s+(\d+)$", table, re.MULTILINE)
    return Counter({rule: int(count) for rule, count in rows if rule != "total"})


def slurm_state(jobid):
    """The state slurmctld reports for ``jobid`` (it keeps finished jobs for MinJobAge)."""
    shown = subprocess.run(["scontrol", "show", "job", "-o", jobid], capture_output=True,
                           text=True).stdout
    match = re.search(r"\bJobState=(\S+)", shown)
    return match.group(1) if match else "unknown to slurmctld"


def check_slurm_jobs(workdir):
    """Every planned job ran inside a completed SLURM job; returns a one-line account."""
    log = snakemake_log(workdir)
    planned = planned_jobs(log)
    in_main = Counter(re.findall(r"^localrule (\w+):", log, re.MULTILINE))
    submitted = re.findall(r"has been submitted with SLURM jobid (\d+) \(log: (.+?)\)\.$", log,
                           re.MULTILINE)
    problems = [f"{rule} ran in the main process, not in a SLURM job"
                for rule in in_main if rule not in LOCAL_RULES]
    in_slurm = Counter()
    for jobid, job_log in submitted:
        state = slurm_state(jobid)
        if state != "COMPLETED":
            problems.append(f"SLURM job {jobid} is {state} ({job_log})")
        if not Path(job_log).is_file():
            problems.append(f"SLURM job {jobid} left no log ({job_log})")
            continue
        # the job step runs each rule job with its own Snakemake, which prints it as a localrule
        in_slurm.update(re.findall(r"^localrule (\w+):", Path(job_log).read_text(),
                                   re.MULTILINE))
    expected = planned - Counter({rule: planned[rule] for rule in LOCAL_RULES})
    for rule in sorted(set(expected) | set(in_slurm)):
        if in_slurm[rule] != expected[rule]:
            problems.append(f"rule {rule}: {expected[rule]} jobs planned, "
                            f"{in_slurm[rule]} ran in SLURM jobs")
    if problems:
        raise Failure("not every job ran as a SLURM job:\n  " + "\n  ".join(problems))
    return (f"{sum(planned.values())} jobs planned; {sum(in_slurm.values())} ran inside "
            f"{len(submitted)} SLURM jobs, all COMPLETED; {sum(in_main.values())} "
            f"({', '.join(sorted(in_main))}) in the main process")


def cancel_leftovers(workdir):
    """Cancel the SLURM jobs of an interrupted run (they are named by its run ID)."""
    run_id = re.search(r"^SLURM run ID: (\S+)$", snakemake_log(workdir), re.MULTILINE)
    if run_id:
        subprocess.run(["scancel", "--name", run_id.group(1)], check=False)


def main():
    if os.geteuid() != 0:
        skip("not root: installing and starting the SLURM daemons needs root")
    if shutil.which("apt-get") is None:
        skip("no apt-get: the cluster is installed from Debian packages")
    try:
        install_plugin()
    except Failure as failure:
        say(f"FAILED: {failure}")
        return 1
    status = subprocess.run([str(START)]).returncode
    if status == SKIPPED:
        skip("no SLURM cluster could be started (start-cluster.sh says why above)")
    if status != 0:
        say(f"FAILED: tools/slurm/start-cluster.sh exited with status {status}")
        return 1

    scratch = Path(tempfile.mkdtemp(prefix="hiddenbn-test-cluster-"))
    local, slurm = scratch / "local", scratch / "slurm"
    results = yaml.safe_load(QUICK.read_text())["results_dir"]
    try:
        local_seconds = run_snakemake("local", local, "--cores", "all")
        try:
            slurm_seconds = run_snakemake("SLURM", slurm, "--workflow-profile", str(PROFILE),
                                          "--slurm-keep-successful-logs")
        except Failure:
            cancel_leftovers(slurm)
            raise
        account = check_slurm_jobs(slurm)
        first, second = result_files(local / results), result_files(slurm / results)
        mismatches = differences(first, second)
        if mismatches:
            raise Failure("the SLURM run's results differ from the local run's:\n  "
                          + "\n  ".join(mismatches))
    except Failure as failure:
        say(f"FAILED: {failure}")
        say(f"both runs are kept in {scratch}")
        return 1
    say(f"local run {local_seconds:.0f} s, SLURM run {slurm_seconds:.0f} s")
    say(account)
    say(f"all {len(first)} result files agree (CSV and Markdown tables without their *_seconds "
        "columns, PDF without its creation date, everything else byte for byte)")
    shutil.rmtree(scratch)
    say("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
