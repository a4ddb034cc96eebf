"""The Snakemake workflow: lint, dry run, config validation (tests/test_quick_run.py runs it)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

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
    # and the 2 further generating draws of fig2_c16's and fig2_c32's models 20 fits more
    assert set(shared) == {"10"} and set(fitted) == {"70"}, result.stdout


def test_further_generating_draws_leave_draw_1_s_jobs_as_they_were(tmp_path):
    """Without the config's generating_draws, the dry run's jobs are exactly those with it
    minus the further draws': the same outputs, and the same model seeds on the command line."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    assert config["chickering_heckerman1996"]["generating_draws"]["draws"] > 1
    del config["chickering_heckerman1996"]["generating_draws"]
    without = tmp_path / "without.yaml"
    without.write_text(yaml.safe_dump(config))
    runs = {}
    for name, path in (("with", REPO / "config" / "config.yaml"), ("without", without)):
        result = snakemake("-n", "-p", "--directory", str(tmp_path / name), "--configfile",
                           str(path))
        assert result.returncode == 0, result.stdout + result.stderr
        runs[name] = result.stdout
    outputs = {name: set(re.findall(r"output: (\S+chickering_heckerman1996/\S+)", text))
               for name, text in runs.items()}
    seeds = {name: set(re.findall(r"hiddenbn params .* --seed \d+ .*-o \S+", text))
             for name, text in runs.items()}
    assert outputs["without"] < outputs["with"] and seeds["without"] < seeds["with"]
    assert all("_draw" in path for path in outputs["with"] - outputs["without"])
    assert {s for s in seeds["with"] if "_draw" not in s} == seeds["without"]


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
