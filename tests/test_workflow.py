"""The Snakemake workflow: lint, dry run, config validation, determinism across core counts."""

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from hiddenbn.experiments.papers import PAPERS
from run_outputs import differences, result_files

REPO = Path(__file__).resolve().parents[1]
QUICK = REPO / "config" / "quick.yaml"
SNAKEFILE = REPO / "workflow" / "Snakefile"


def snakemake(*args, cwd=REPO):
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE),
                           *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_lint_is_clean():
    result = snakemake("--lint")
    assert result.returncode == 0, result.stdout + result.stderr


def test_dry_run_lists_the_rules(tmp_path):
    result = snakemake("-n", "--directory", str(tmp_path), "--configfile", str(REPO / "config" /
                                                                                "config.yaml"))
    assert result.returncode == 0, result.stderr
    for rule in ("chickering_heckerman1996_generate_model", "chickering_heckerman1996_sample_data",
                 "all"):
        assert rule in result.stdout
    # the experiments on another's data sets take its fits (Figure 2's c = 4 panel is Figure
    # 1's n = 64 experiment, Figure 3's N = 400 panel Figure 1's n = 32 one)
    shared = re.findall(r"chickering_heckerman1996_shared_fits\s+(\d+)", result.stdout)
    fitted = re.findall(r"chickering_heckerman1996_fit\s+(\d+)", result.stdout)
    assert set(shared) == {"10"} and set(fitted) == {"50"}, result.stdout


def test_the_default_config_is_found_from_another_working_directory(tmp_path):
    result = snakemake("-n", "--directory", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "chickering_heckerman1996_fit" in result.stdout
    assert "gold_standard_slope" in result.stdout


def test_a_config_with_one_paper_section_runs_only_its_rules(tmp_path):
    config = yaml.safe_load(QUICK.read_text())
    only = {"seed": config["seed"], "results_dir": config["results_dir"],
            "heckerman_meek1997": {key: config["heckerman_meek1997"][key]
                                   for key in ("figure2", "theorem2")}}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(only))
    result = snakemake("-n", "--directory", str(tmp_path), "--configfile", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "heckerman_meek1997_dimensions" in result.stdout
    assert "chickering_heckerman1996_fit" not in result.stdout
    assert "heckerman_meek1997_study_case" not in result.stdout


def write_config(tmp_path, edit):
    config = yaml.safe_load(QUICK.read_text())
    edit(config)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["chickering_heckerman1996"].update(replicats=3),
     "config chickering_heckerman1996.replicats: unknown key; did you mean replicates?"),
    (lambda c: c["chickering_heckerman1996"].update(replicates="five"),
     "config chickering_heckerman1996.replicates: must be an integer from 1 to 1000, got 'five'"),
    (lambda c: c["chickering_heckerman1996"]["experiments"]["fig1_n8"].update(model="nope"),
     "chickering_heckerman1996.experiments.fig1_n8.model: unknown model 'nope'"),
    (lambda c: c["chickering_heckerman1996"]["experiments"]["fig1_n8"].update(
        test_states={"min": 5, "max": 2}), "test_states: min 5 exceeds max 2"),
    (lambda c: c["heckerman_meek1997"].pop("training_sizes"),
     "config heckerman_meek1997.training_sizes: missing; it is required with "
     "heckerman_meek1997.study"),
])
def test_bad_config_stops_before_any_job(tmp_path, edit, message):
    result = snakemake("-n", "--directory", str(tmp_path), "--configfile",
                       str(write_config(tmp_path, edit)))
    assert result.returncode == 2
    assert message in result.stderr
    assert "Job stats" not in result.stdout


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
