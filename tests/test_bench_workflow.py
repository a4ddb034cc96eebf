"""The per-rule summary of a run's job benchmark files, and its comparison with an earlier run."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import bench_workflow  # noqa: E402

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def write_run(results: Path, jobs: dict) -> Path:
    """Benchmark files ``{(rule, job): seconds}`` as Snakemake writes them."""
    for (rule, job), seconds in jobs.items():
        path = results / "logs" / "benchmarks" / rule / f"{job}.tsv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER + f"{seconds}\t0:00:01\t100.5\t1\t1\t1\t0\t0\t50\t{seconds}\n")
    return results


def test_rules_are_summed_and_compared_on_the_jobs_both_runs_have(tmp_path):
    before = write_run(tmp_path / "before", {("fit", "a"): 120, ("fit", "b"): 240,
                                              ("slope", "x"): 600, ("gone", "y"): 60})
    after = write_run(tmp_path / "after", {("fit", "a"): 60, ("fit", "b"): 60,
                                            ("slope", "x"): 300, ("new", "z"): 30})
    jobs = bench_workflow.job_table(after)
    summary = bench_workflow.rule_summary(jobs)
    assert list(summary.index) == ["slope", "fit", "new"]
    assert summary.loc["fit", "job_minutes"] == pytest.approx(2.0)
    assert summary.loc["fit", "longest_minutes"] == pytest.approx(1.0)
    table = bench_workflow.comparison(bench_workflow.job_table(before), jobs)
    assert list(table.index) == ["slope", "fit"]
    assert table.loc["fit", "before"] == pytest.approx(6.0)
    assert table.loc["fit", "ratio"] == pytest.approx(1 / 3)
    assert table.loc["slope", "ratio"] == pytest.approx(0.5)


def test_the_report_names_the_target_and_the_baseline(tmp_path, monkeypatch):
    write_run(tmp_path / "before", {("fit", "a"): 120})
    write_run(tmp_path / "after", {("fit", "a"): 30})
    monkeypatch.setenv("HIDDENBN_RESULTS", str(tmp_path / "after"))
    monkeypatch.setenv("HIDDENBN_BASELINE", str(tmp_path / "before"))
    lines = bench_workflow.run()
    assert "target 8 min on 2 idle cores" in lines[0]
    assert any("2.00 ->    0.50 (0.25x)" in line for line in lines)


def test_a_baseline_without_benchmarks_is_named_in_one_line(tmp_path, monkeypatch):
    write_run(tmp_path / "after", {("fit", "a"): 30})
    monkeypatch.setenv("HIDDENBN_RESULTS", str(tmp_path / "after"))
    monkeypatch.setenv("HIDDENBN_BASELINE", str(tmp_path / "nowhere"))
    lines = bench_workflow.run()
    assert lines[-1].startswith(f"no job benchmarks under {tmp_path / 'nowhere'}")
