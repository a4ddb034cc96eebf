"""One paper, one place: the registry (hiddenbn.experiments.papers) and the tree agree.

A newcomer answers "where is paper N?" with one name: its experiment module, rule file, config
section, results folder, printed numbers, scripts and report captions are all called by it.
"""

import importlib
import re

import pytest
import yaml
from test_workflow import REPO

from hiddenbn.experiments.papers import PAPERS, paper

WORKFLOW = REPO / "workflow"
CONFIG = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
RULE_FILES = sorted((WORKFLOW / "rules").glob("*.smk"))
# top-level settings every rule file may read: they belong to no paper or stage
RUN_WIDE_SETTINGS = {"seed", "results_dir", "quick_sizes"}


@pytest.mark.parametrize("entry", PAPERS.values(), ids=lambda entry: entry.name)
def test_every_place_of_a_paper_is_named_after_it(entry):
    module = importlib.import_module(entry.module)
    assert module.__doc__, entry.module
    assert (WORKFLOW / entry.rule_file).is_file()
    assert entry.name in CONFIG, "config/config.yaml has no section for it"
    scripts = re.findall(r'"\.\./scripts/(.+)"', (WORKFLOW / entry.rule_file).read_text())
    # a paper's own scripts, or the one shared by the three papers' dimension results
    assert scripts and all(s.startswith(f"{entry.name}/") or s == "dimension.py" for s in scripts)
    assert any((WORKFLOW / "report" / entry.name).glob("*.rst"))
    assert entry.results_folder("results") == f"results/{entry.name}"


@pytest.mark.parametrize("name", [p.name for p in PAPERS.values() if p.key != p.name])
def test_every_paper_has_its_printed_numbers_in_its_resources_folder(name):
    assert any((WORKFLOW / paper(name).resources).iterdir())


def test_the_rule_files_are_the_papers_and_the_stages():
    papers = {p.name for p in PAPERS.values()}
    assert {f.stem for f in RULE_FILES} == papers | {"common", "studies", "blrt", "reproduction"}


@pytest.mark.parametrize("rule_file", RULE_FILES, ids=lambda path: path.stem)
def test_a_rule_file_reads_only_its_own_config_section(rule_file):
    read = set(re.findall(r"config(?:\[|\.get\()\s*\"(\w+)\"", rule_file.read_text()))
    own = {rule_file.stem} if rule_file.stem in CONFIG or rule_file.stem in \
        {p.name for p in PAPERS.values()} else set()
    assert read <= own | RUN_WIDE_SETTINGS, f"{rule_file.name} reads {sorted(read - own)}"


def test_common_smk_is_only_what_every_rule_file_needs():
    text = (WORKFLOW / "rules" / "common.smk").read_text()
    assert len(text.splitlines()) < 120
    for entry in PAPERS.values():
        assert entry.name not in text, f"common.smk mentions {entry.name}"


def test_readme_lists_every_paper_where_it_lives():
    readme = (REPO / "README.md").read_text()
    for entry in PAPERS.values():
        assert f"| `{entry.name}` |" in readme, entry.name


def test_every_rule_is_named_after_its_paper_or_stage():
    for rule_file in RULE_FILES:
        for name in re.findall(r"^rule (\w+):", rule_file.read_text(), re.MULTILINE):
            assert name.startswith(rule_file.stem) or name == "all", (rule_file.name, name)


# --- how rules call the library (the Snakefile's header) -------------------------------------
SCRIPTS = sorted((WORKFLOW / "scripts").rglob("*.py"))
#: The longest script: it hands the library its files and settings, and does nothing else.
SCRIPT_LINES = 30


def rules():
    """Every rule of the workflow as (name, its text up to the next unindented line)."""
    for path in [WORKFLOW / "Snakefile", *RULE_FILES]:
        parts = re.split(r"^rule (\w+):\n", path.read_text(), flags=re.MULTILINE)
        for name, text in zip(parts[1::2], parts[2::2]):
            yield name, re.match(r"(?:(?:[ \t].*)?\n)*", text)[0]


def test_every_rule_runs_a_hiddenbn_command_or_a_script():
    """A step a command does runs the command (`shell:`), a paper's own step a script."""
    for name, text in rules():
        actions = re.findall(r"^    (shell|script|run):", text, re.MULTILINE)
        if name == "all":
            assert actions == [], "rule all only names the final outputs"
        elif actions == ["shell"]:
            assert re.search(r'shell:\n\s+"hiddenbn ', text), f"{name}: shell runs no hiddenbn"
        else:
            assert actions == ["script"], f"{name} has {actions}: a command or a script"
            script, = re.findall(r'script:\n\s+"\.\./scripts/(.+)"', text)
            assert (WORKFLOW / "scripts" / script).is_file(), f"{name}: no script {script}"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_a_script_only_hands_the_library_its_files_and_settings(script):
    text = script.read_text()
    assert len(text.splitlines()) <= SCRIPT_LINES, f"{script.name}: move the work into hiddenbn"
    assert not re.search(r"^(def|class) ", text, re.MULTILINE), f"{script.name} defines code"
    assert re.search(r"^from hiddenbn\.", text, re.MULTILINE), f"{script.name} calls no hiddenbn"
