"""A failed job says why; config errors are one line each.

A failing job leaves its traceback in its log file and one line on the console
(hiddenbn.util.joblog); a malformed config stops the workflow before any job with one line per
problem, naming the key path, and exit status 2 (hiddenbn.experiments.workflow_config).
"""

import copy
import math
import subprocess
import sys

import pytest
import yaml
from test_workflow import QUICK, REPO, snakemake

from hiddenbn.errors import ConfigError, DataError, HiddenbnError
from hiddenbn.experiments.workflow_config import check_config, read_config_file, read_schema
from hiddenbn.util.joblog import job_log

SCHEMA = read_schema()
EXAMPLE_STUDIES = yaml.safe_load((REPO / "config" / "studies_example.yaml").read_text())["studies"]
#: A user study small enough that its summary job starts within seconds.
TINY_STUDY = {"generators": {"g": {"spec": "2:2,2,2"}}, "sample_sizes": [50], "replicates": 1,
              "family": {"type": "latent_class", "hidden_states": {"min": 1, "max": 2}},
              "scores": ["bic_log_evidence"]}


# --- a failing job ---------------------------------------------------------------------------
def test_a_failing_job_block_logs_its_traceback_and_prints_one_line(tmp_path, capsys):
    log, console = tmp_path / "job.log", sys.stderr
    with pytest.raises(SystemExit) as stop:
        with job_log(log):
            print("replicate 1: data seed 7", file=sys.stderr)
            raise DataError("data.csv, row 3: value 5 of X2 is not a state (X2 has 2)")
    assert stop.value.code == 1
    assert capsys.readouterr().err == "data.csv, row 3: value 5 of X2 is not a state (X2 has 2)\n"
    text = log.read_text()
    assert text.startswith("replicate 1: data seed 7\nTraceback (most recent call last):\n")
    assert text.endswith("hiddenbn.errors.DataError: data.csv, row 3: value 5 of X2 is not a "
                         "state (X2 has 2)\n")
    assert sys.stderr is console


def test_an_unexpected_error_is_shown_with_its_type_on_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit):
        with job_log(tmp_path / "job.log"):
            raise ValueError("a message\nover two lines")
    assert capsys.readouterr().err == "ValueError: a message over two lines\n"
    assert (tmp_path / "job.log").read_text().endswith("ValueError: a message\nover two lines\n")


def test_a_job_that_succeeds_logs_its_progress_only(tmp_path, capsys):
    with job_log(tmp_path / "job.log"):
        print("fitted 3 models", file=sys.stderr)
    assert (tmp_path / "job.log").read_text() == "fitted 3 models\n"
    assert capsys.readouterr().err == ""


def test_a_job_failing_in_a_real_run_leaves_its_traceback_in_the_log(tmp_path):
    """A study whose run outputs were left empty (a crashed write): its summary job fails
    reading them, with the traceback in the log and the error on the console (~10 s)."""
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"seed": 1, "studies": {"tiny": TINY_STUDY}}))
    runs = tmp_path / "results" / "studies" / "tiny" / "runs" / "g"
    runs.mkdir(parents=True)
    for kind in ("fits", "selections"):
        (runs / f"n50_{kind}.csv").touch()
    result = snakemake("--cores", "1", "--directory", str(tmp_path), "--configfile", str(config))
    assert result.returncode != 0
    error = "EmptyDataError: No columns to parse from file"
    log = (tmp_path / "results" / "logs" / "studies" / "tiny" / "summary.log").read_text()
    assert "Traceback (most recent call last):" in log and log.endswith(f"errors.{error}\n")
    # the job's own line, printed before Snakemake's summary (which also shows the log)
    console = result.stderr.split("Error in rule studies_summary_tiny")[0]
    assert f"\n{error}\n" in console, result.stderr[-3000:]
    assert "lost sys.stderr" not in result.stderr


# --- a malformed config ----------------------------------------------------------------------
def quick_with_studies():
    """config/quick.yaml with the studies of config/studies_example.yaml: every section, every
    family of candidate models."""
    return {**yaml.safe_load(QUICK.read_text()), "studies": copy.deepcopy(EXAMPLE_STUDIES)}


def problems_of(edit):
    """The lines of the error raised for quick_with_studies() changed by ``edit``."""
    config = quick_with_studies()
    edit(config)
    with pytest.raises(HiddenbnError) as error:
        check_config(config, SCHEMA, REPO / "config")
    return str(error.value).splitlines()


@pytest.mark.parametrize("edit, line", [
    (lambda c: c["studies"]["latent_class"]["generators"]["lc3"].update(
        generating_alpha=math.nan),
     "config studies.latent_class.generators.lc3.generating_alpha: must be a positive "
     "Dirichlet alpha of at most 1e6, got nan"),
    (lambda c: c["meek_heckerman1997"].update(prior_alpha=math.inf),
     "config meek_heckerman1997.prior_alpha: must be a Dirichlet alpha from 1 to 1e6, got inf"),
    # MAP EM needs alpha >= 1: 0.5 had passed the check and failed the fit jobs
    (lambda c: c["gold_standard"].update(prior_alpha=0.5),
     "config gold_standard.prior_alpha: must be a Dirichlet alpha from 1 to 1e6, got 0.5"),
    (lambda c: c["chickering_heckerman1996"].update(prior_alpha=1e16),
     "config chickering_heckerman1996.prior_alpha: must be a Dirichlet alpha from 1 to 1e6, got "
     "1e+16"),
    (lambda c: c["meek_heckerman1997"]["cause_probabilities"].__setitem__(1, -math.inf),
     "config meek_heckerman1997.cause_probabilities[1]: must be a number strictly between 0 and "
     "1, got -inf"),
    (lambda c: c["kocka_zhang2002"]["latent_class"].update(sample_sizes=[500, 10**9]),
     "config kocka_zhang2002.latent_class.sample_sizes[1]: must be an integer from 1 to "
     "10000000, got 1000000000"),
    (lambda c: c["gold_standard"]["smc"].update(particles=10**12),
     "config gold_standard.smc.particles: must be an integer from 1 to 100000, got 1000000000000"),
    (lambda c: c["chickering_heckerman1996"].update(replicates="five"),
     "config chickering_heckerman1996.replicates: must be an integer from 1 to 1000, got 'five'"),
    (lambda c: c["chickering_heckerman1996"].update(replicates=3.0),
     "config chickering_heckerman1996.replicates: must be an integer from 1 to 1000, got 3.0"),
    (lambda c: c["gold_standard"].update(smc=5),
     "config gold_standard.smc: must be a mapping, got 5"),
    (lambda c: c["kocka_zhang2002"]["em"].update(schedule="fast"),
     "config kocka_zhang2002.em.schedule: must be one of annealing, halving, best-of-n, "
     "got 'fast'"),
    (lambda c: c["chickering_heckerman1996"].update(replicats=3),
     "config chickering_heckerman1996.replicats: unknown key; did you mean replicates?"),
    # the key an older config wrote for the same settings
    (lambda c: c["kocka_zhang2002"]["hierarchical"].update(floor_em={"tolerance": 1e-6}),
     "config kocka_zhang2002.hierarchical.floor_em: moved to kocka_zhang2002.ml_em; write it "
     "there"),
    (lambda c: c.update(colour="blue"),
     "config colour: unknown key; expected one of seed, results_dir, quick_sizes, "
     "chickering_heckerman1996, kocka_zhang2002, geiger_heckerman_meek1996, meek_heckerman1997, "
     "heckerman_meek1997, gold_standard, studies, blrt"),
    (lambda c: c["geiger_heckerman_meek1996"].pop("w_hidden_states"),
     "config geiger_heckerman_meek1996.w_hidden_states: missing; it is required"),
    (lambda c: c["meek_heckerman1997"]["em"].update(schedule="halving"),
     "config meek_heckerman1997.em: a key must be one of restarts, tolerance, max_iterations, got "
     "'schedule'"),
    (lambda c: c["heckerman_meek1997"].pop("training_sizes"),
     "config heckerman_meek1997.training_sizes: missing; it is required with "
     "heckerman_meek1997.study"),
    (lambda c: c["studies"].update({"my-study": c["studies"]["latent_class"]}),
     "config studies: a key must be a name of letters, digits and underscores, got 'my-study'"),
    (lambda c: c["kocka_zhang2002"]["latent_class"].update(sample_sizes=[]),
     "config kocka_zhang2002.latent_class.sample_sizes: must have at least 1 item, got []"),
    # a generator too large to build passed both checks and failed every job
    (lambda c: c["studies"]["latent_class"]["generators"]["lc3"].update(spec="1000000000:2,2,2"),
     "config studies.latent_class.generators.lc3.spec: the number of CPT entries of the "
     "generator is 7000000000, above the limit of 16777216; use fewer states or fewer parents "
     "per node"),
    # a section's own check, past the schema
    (lambda c: c["gold_standard"]["paper003"].update(experiments=["fig9"]),
     "config gold_standard.paper003.experiments: unknown experiment 'fig9'; use names under "
     "chickering_heckerman1996.experiments (fig1_n8, fig3_N100, fig3_N200)"),
])
def test_each_config_problem_is_one_line_naming_its_key(edit, line):
    assert problems_of(edit) == [line]


def test_every_problem_gets_its_line():
    def edit(config):
        config["gold_standard"]["smc"].update(runs=1, particles=math.nan)
        config.pop("seed")

    assert problems_of(edit) == [
        "config gold_standard.smc.runs: must be an integer from 2 to 1000, got 1",
        "config gold_standard.smc.particles: must be an integer from 1 to 100000, got nan",
        "config seed: missing; it is required",
    ]


@pytest.mark.parametrize("path", ["config.yaml", "quick.yaml", "studies_example.yaml"])
def test_the_shipped_configs_pass_and_get_their_defaults(path):
    config = yaml.safe_load((REPO / "config" / path).read_text())
    studies = check_config(config, SCHEMA, REPO / "config")
    assert config["results_dir"] and set(studies) == set(config.get("studies", {}))
    if "gold_standard" in config:
        assert config["gold_standard"]["smc"]["moves"] == 1


def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("seed: 1\nstudies:\n  demo:\n    scores: [bic_log_evidence, cs\n"
                    "    replicates: 2\n")
    with pytest.raises(ConfigError) as error:
        read_config_file(path)
    assert str(error.value) == (f"config file {path}, line 5, column 15: expected ',' or ']', but "
                                "got ':' (while parsing a flow sequence from line 4)")


def check_config_command(*arguments, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "hiddenbn", "check-config", *map(str, arguments)],
                          capture_output=True, text=True, cwd=cwd)


def test_check_config_names_the_line_of_a_yaml_error_that_snakemake_does_not(tmp_path):
    path = tmp_path / "my.yaml"
    path.write_text("seed: 1\nstudies:\n  demo:\n    scores: [bic_log_evidence, cs\n"
                    "    replicates: 2\n")
    result = check_config_command(path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"hiddenbn: error: config file {path}, line 5, column 15: expected "
                             "',' or ']', but got ':' (while parsing a flow sequence from "
                             "line 4)\n")
    # what the command stands in for: Snakemake's own message names neither file nor line
    ran = snakemake("-n", "--configfile", str(path))
    snakemake_message = ran.stdout + ran.stderr
    assert "not valid JSON or YAML" in snakemake_message and "line 5" not in snakemake_message


def test_check_config_prints_every_problem_on_its_own_line(tmp_path):
    path = tmp_path / "my.yaml"
    path.write_text("seed: 1.5\nresults_dir: 3\nstudy: {}\n")
    result = check_config_command(path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "hiddenbn: error: config study: unknown key; did you mean studies?",
        "hiddenbn: error: config seed: must be an integer of at least 0, got 1.5",
        "hiddenbn: error: config results_dir: must be a non-empty string, got 3"]


@pytest.mark.parametrize("text, problem", [
    ("", "must be a mapping of sections (results_dir, seed, a paper's or studies' section), "
         "got null (no value)"),
    ("[1, 2]\n", "must be a mapping of sections (results_dir, seed, a paper's or studies' "
                 "section), got [1, 2]")])
def test_check_config_refuses_a_file_that_is_not_a_mapping(tmp_path, text, problem):
    path = tmp_path / "my.yaml"
    path.write_text(text)
    result = check_config_command(path)
    assert (result.returncode, result.stderr) == (2, f"hiddenbn: error: config file {path}: "
                                                     f"{problem}; start from config/config.yaml\n")


def test_check_config_passes_the_shipped_configs_and_reads_study_files_beside_the_config():
    # run from elsewhere: studies_example.yaml's parameter file is found beside the config
    result = check_config_command(REPO / "config" / "studies_example.yaml", cwd="/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("no problems; results go to results\n")
    result = check_config_command("--results-dir", "config/quick.yaml")
    assert (result.returncode, result.stdout) == (0, "results/quick\n")


def test_make_reproduce_checks_a_config_of_ones_own_before_snakemake_reads_it():
    commands = subprocess.run(["make", "-n", "reproduce", "CONFIG=my.yaml"], cwd=REPO,
                              capture_output=True, text=True).stdout.splitlines()
    steps = [line for line in commands if "hiddenbn check-config" in line or "snakemake" in line]
    assert steps[0].endswith("hiddenbn check-config my.yaml")
    assert steps[1].endswith("snakemake --cores all --configfile my.yaml")


def test_a_bad_config_stops_a_dry_run_with_its_line_and_status_2(tmp_path):
    config = {"seed": 1, "studies": {"lc": {**TINY_STUDY, "generators": {"lc3": {
        "spec": "3:2,2,2,2", "generating_alpha": math.nan}}}}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config))
    result = snakemake("-n", "--directory", str(tmp_path), "--configfile", str(path))
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if not line.startswith("Using ")]
    assert lines == ["config studies.lc.generators.lc3.generating_alpha: must be a positive "
                     "Dirichlet alpha of at most 1e6, got nan"]
    assert result.stdout == ""
