"""Where the time of ``make reproduce`` goes: every job's time, summed per rule.

Run with ``python -m benchmarks workflow`` (or ``make bench``) after a run. Every rule of the
workflow has a ``benchmark:`` file per job (Snakemake's: wall seconds, CPU seconds and peak
memory) under ``<results_dir>/logs/benchmarks/<rule>/``. This reads them and
prints, per rule, the jobs, the job-minutes, the longest job and the peak memory, the largest
first; then the run's span from the first job's start to the last job's end (the files' times
minus their durations), beside the target of 8 minutes for the default config on two idle
cores. ``HIDDENBN_RESULTS`` names another results folder (default ``results``).

``HIDDENBN_BASELINE`` names the results folder of an earlier run (another checkout, say, before a
change) to compare with: per rule, the job-minutes of the jobs both runs have (the same
benchmark file), before and after, and their ratio.
"""

import os
from pathlib import Path

import pandas as pd

#: The target for ``make reproduce`` on an idle 2-core machine.
TARGET_MINUTES = 8.0


def job_table(results: Path) -> pd.DataFrame:
    """One row per job: its rule (the folder below ``logs/benchmarks``, named after the rule),
    wall seconds, CPU seconds, peak memory (MiB) and the job's end time (the file's mtime)."""
    root = results / "logs" / "benchmarks"
    rows = []
    for path in sorted(root.rglob("*.tsv")):
        table = pd.read_csv(path, sep="\t")
        rows.append({"rule": path.relative_to(root).parts[0],
                     "job": str(path.relative_to(root)),
                     "seconds": float(table["s"].iloc[-1]),
                     "cpu_seconds": float(table["cpu_time"].iloc[-1]),
                     "max_rss_mib": float(table["max_rss"].iloc[-1]),
                     "end": path.stat().st_mtime})
    return pd.DataFrame(rows)


def rule_summary(jobs: pd.DataFrame) -> pd.DataFrame:
    """Jobs, job-minutes, longest job (minutes) and peak memory per rule, largest first."""
    grouped = jobs.groupby("rule")
    return pd.DataFrame({"jobs": grouped.size(),
                         "job_minutes": grouped.seconds.sum() / 60,
                         "longest_minutes": grouped.seconds.max() / 60,
                         "max_rss_mib": grouped.max_rss_mib.max()}
                        ).sort_values("job_minutes", ascending=False)


def comparison(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """Per rule, over the jobs both runs have: their number, job-minutes before and after, and
    after / before; the rules with the most job-minutes before first."""
    both = before.merge(after, on=["rule", "job"], suffixes=("_before", "_after"))
    grouped = both.groupby("rule")
    table = pd.DataFrame({"jobs": grouped.size(),
                          "before": grouped.seconds_before.sum() / 60,
                          "after": grouped.seconds_after.sum() / 60})
    table["ratio"] = table.after / table.before
    return table.sort_values("before", ascending=False)


def run():
    results = Path(os.environ.get("HIDDENBN_RESULTS", "results"))
    jobs = job_table(results)
    if jobs.empty:
        return [f"no job benchmarks under {results}/logs/benchmarks: run make reproduce first"]
    summary = rule_summary(jobs)
    span = (jobs.end.max() - (jobs.end - jobs.seconds).min()) / 60
    lines = [f"{len(jobs)} jobs of the last run in {results}: {jobs.seconds.sum() / 60:.1f} "
             f"job-minutes; first start to last end {span:.1f} min (target {TARGET_MINUTES:g} "
             f"min on 2 idle cores); longest job {jobs.seconds.max() / 60:.1f} min"]
    lines += [f"  {rule:52s} {int(row.jobs):4d} jobs {row.job_minutes:7.2f} job-min, longest "
              f"{row.longest_minutes:5.2f} min, {row.max_rss_mib:6.0f} MiB"
              for rule, row in summary.iterrows()]
    baseline = os.environ.get("HIDDENBN_BASELINE")
    before = job_table(Path(baseline)) if baseline else None
    if before is not None and before.empty:
        lines.append(f"no job benchmarks under {baseline}/logs/benchmarks (HIDDENBN_BASELINE): "
                     "name the results folder of an earlier run")
    elif before is not None:
        table = comparison(before, jobs)
        lines.append(f"the same jobs in {baseline} (before) and here (after), job-minutes:")
        lines += [f"  {rule:52s} {int(row.jobs):4d} jobs {row.before:7.2f} -> {row.after:7.2f} "
                  f"({row.ratio:.2f}x)" for rule, row in table.iterrows()]
    return lines
