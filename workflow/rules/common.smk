# What every paper's rules need (the checked config, job seeds, the report helper) and the
# lists of final outputs and REPRODUCTION.md sections each paper's rule file adds its own to.
# Everything about one paper is in its own rule file (hiddenbn.experiments.papers lists them);
# the rule files hold rules and values only (snakemake --lint wants functions here).
from pathlib import Path

from hiddenbn.experiments import workflow_config
from hiddenbn.experiments.papers import BY_NAME, PAPERS
from hiddenbn.util import seeding

# Relative file names in a study (spec and parameter files) are read from the folder of the
# config file (the last one given), so a study and its files can live anywhere.
STUDIES_BASE = (
    Path(workflow.configfiles[-1]).resolve().parent if workflow.configfiles else Path.cwd()
)
# The schema is package data of hiddenbn, so `hiddenbn check-config` reads the same file.
CONFIG_SCHEMA = workflow_config.read_schema()
# Every problem of the config on one line, before any job (schema defaults filled in); the user
# studies come back normalised, as their rules read them.
with workflow_config.exit_on_config_error():
    STUDIES = workflow_config.check_config(config, CONFIG_SCHEMA, STUDIES_BASE)
RESULTS = config["results_dir"]
LOGS = f"{RESULTS}/logs"

# What `rule all` makes, and the comparison documents and verdicts.csv files REPRODUCTION.md
# collects per paper key; each rule file adds its own.
FINAL_OUTPUTS = []
REPRODUCTION_SECTIONS = {key: {"paper": key, "documents": [], "verdicts": []} for key in PAPERS}
# Experiments of a paper that a later stage scores again (paper name -> experiment names), filled
# by that stage's rule file; the paper's report points to them (read at job time, once every
# rule file is included).
RESCORED_EXPERIMENTS = {}


def job_seed(*key):
    """The seed of the job identified by ``key`` (paper, stage, wildcards): see
    hiddenbn.util.seeding."""
    return seeding.job_seed(config["seed"], *key)


def results_folder(paper):
    """Where the outputs of ``paper`` (its name) go."""
    return BY_NAME[paper].results_folder(RESULTS)


def printed_numbers(paper, name):
    """The file of numbers ``paper`` prints, in its resources folder."""
    return workflow.source_path(f"../{BY_NAME[paper].resources}/{name}")


def reproduce(paper, document, verdicts=None):
    """Collect ``paper``'s comparison ``document`` (and its ``verdicts`` file) in
    REPRODUCTION.md."""
    section = REPRODUCTION_SECTIONS[BY_NAME[paper].key]
    section["documents"].append(document)
    if verdicts is not None:
        section["verdicts"].append(verdicts)


def in_report(paths, paper, name, item):
    """``paths`` (one path or a list) with the PNG figures and CSV tables among them flagged for
    the report: captioned by workflow/report/<paper>/<name>.rst, under ``paper``'s category,
    labelled ``item``. PDF and Markdown copies stay unflagged, so the report shows each figure
    and table once."""
    kinds = {".png": "Figures", ".csv": "Tables"}

    def flagged(path):
        kind = kinds.get(Path(path).suffix)
        if kind is None:
            return path
        return report(
            path,
            caption=f"../report/{paper}/{name}.rst",
            category=BY_NAME[paper].label,
            subcategory=kind,
            labels={"item": item},
        )

    return flagged(paths) if isinstance(paths, str) else [flagged(p) for p in paths]


def report_files(paper, folder, names, extensions):
    """Each of ``names`` (name -> item label) under ``folder`` with ``extensions``, flagged for
    the report as :func:`in_report` does."""
    return [
        path
        for name, item in names.items()
        for path in in_report(multiext(f"{folder}/{name}", *extensions), paper, name, item)
    ]
