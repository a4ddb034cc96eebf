"""The shell commands of README.md and of docs/*.md run as written.

Convention: a fenced block tagged ``sh`` or ``bash`` (its fence may be indented, as in a list
item) holds shell commands, one to a line; a line ending in ``\\`` continues on the next, and a
here-document (``cat > model.yaml <<'EOF'`` ... ``EOF``) belongs to the command that opens it.
The commands of one document run in order, each in its own ``bash``, in one fresh temporary
folder, with ``hiddenbn`` and ``python`` of the interpreter running this test first on PATH (so
the test needs no installed script and runs the code under test, under ``make test`` and under
``PYTHONPATH=src python -m pytest`` alike). Each must exit with status 0, with no traceback,
and print no fit that is "NOT converged" (a first example should show a fit that works). An
example of an error says so in its comment, ``# exit status 2``: it must exit with that status
and print one line, ``hiddenbn: error: ...``.

A command that must not run in a test is listed in ``NOT_RUN`` below, by its first words, with
the reason; every entry must match a command of some document, so the list cannot go stale.

README.md is for users: at most ``README_MAX_LINES`` lines, the rest in the documentation
(``docs/``, built by ``make docs``). No tracked file refers to an issue by its number, which no
reader of the repository can look up: it states the fact instead. Every dotted name
``hiddenbn.x.y`` a document gives exists, so a module that moves takes its mentions along.
"""

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hiddenbn

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHELL_TAGS = ("sh", "bash")

NOT_RUN = {
    "make reproduce": "runs the whole pipeline, hours (tests/test_quick_run.py runs the "
                      "quick config)",
    "make test": "runs this suite, this test included",
    "hiddenbn select data.csv --classes 1..5 --blrt 100": "refits up to 400 bootstrap "
                                                          "replicates, minutes (the document "
                                                          "runs a small BLRT; "
                                                          "tests/test_blrt.py tests it)",
    "make test-cluster": "sets up a SLURM cluster as root with apt-get",
    "hiddenbn check-config blrt.yaml": "checks the config the reader saves from the block above "
                                       "it, beside their own survey (tests/test_blrt_workflow.py "
                                       "checks the section)",
    "snakemake": "runs workflow jobs (tests/test_quick_run.py runs the workflow)",
    "pip install": "changes the installed packages",
    "source .venv/bin/activate": "the test puts its own interpreter's hiddenbn first on PATH",
    "export NUMBA_CACHE_DIR=/cluster/scratch/hiddenbn-numba": "points numba's cache at a "
                                                              "cluster's shared folder",
    ".venv/bin/python -m hiddenbn.jit_cache": "compiles every kernel, about a minute "
                                              "(tests/test_jit_cache.py checks the cache)",
}

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<tag>[\w-]*)")
HERE_DOCUMENT = re.compile(r"<<-?\s*(['\"]?)(?P<delimiter>\w+)\1")
EXIT_STATUS = re.compile(r"#.*\bexit status (?P<status>\d+)")
COMMAND_TIMEOUT_SECONDS = 300  # a hang fails the test instead of stalling the suite
README_MAX_LINES = 250
DOTTED_NAME = re.compile(r"\bhiddenbn(?:\.\w+)+")
ISSUE_NUMBER = re.compile(r"\bissues? ?#?\d", re.IGNORECASE)


def shell_blocks(text):
    """The shell blocks of a Markdown text.

    Parameters
    ----------
    text : str
        The Markdown document.

    Returns
    -------
    list of list of (int, str)
        Per block tagged ``sh`` or ``bash``, its lines with their line numbers in the document,
        the fence's indentation removed.
    """
    blocks, block, fence, indent = [], None, None, 0
    for number, line in enumerate(text.splitlines(), start=1):
        opening = FENCE.match(line)
        if fence is None:
            if opening:
                fence, indent = opening["fence"], len(opening["indent"])
                block = [] if opening["tag"] in SHELL_TAGS else None
            continue
        if line.strip() == fence:
            if block is not None:
                blocks.append(block)
            fence = None
            continue
        if block is not None:
            margin = min(indent, len(line) - len(line.lstrip()))
            block.append((number, line[margin:]))
    return blocks


def commands(block):
    """The commands of a shell block: continued lines joined, here-documents kept whole.

    Parameters
    ----------
    block : list of (int, str)
        Lines of one block with their line numbers, as `shell_blocks` gives them.

    Returns
    -------
    list of (int, str)
        Each command with the line number of its first line; blank and comment lines dropped.
    """
    found, lines = [], iter(block)
    for number, line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        text = line
        while text.endswith("\\"):
            text += "\n" + next(lines)[1]
        here = HERE_DOCUMENT.search(text)
        if here:
            for _, body in lines:
                text += "\n" + body
                if body.strip() == here["delimiter"]:
                    break
        found.append((number, text))
    return found


def not_run_reason(command):
    """Why `command` is not run, or None when it is run.

    Parameters
    ----------
    command : str
        One command as `commands` gives it.

    Returns
    -------
    str or None
        The reason of the ``NOT_RUN`` entry whose first words the command starts with.
    """
    return next((reason for start, reason in NOT_RUN.items() if starts_with(command, start)),
                None)


def starts_with(command, start):
    """Whether `command`'s first words are those of `start`."""
    return command.split()[:len(start.split())] == start.split()


def document_commands(document):
    """Every command of a document in order, as (line number, command)."""
    return [found for block in shell_blocks(document.read_text(encoding="utf-8"))
            for found in commands(block)]


@pytest.fixture
def shell_environment(tmp_path):
    """The environment of the commands: this interpreter's `hiddenbn` and `python` on PATH."""
    tools = tmp_path / "tools"
    tools.mkdir()
    for name, arguments in (("hiddenbn", '-m hiddenbn "$@"'), ("python", '"$@"')):
        script = tools / name
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" {arguments}\n')
        script.chmod(0o755)
    source = str(Path(hiddenbn.__file__).resolve().parents[1])
    python_path = os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": python_path}


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_the_commands_of_a_document_run_in_order_in_a_fresh_folder(document, tmp_path,
                                                                   shell_environment):
    folder = tmp_path / "work"
    folder.mkdir()
    for number, command in document_commands(document):
        if not_run_reason(command):
            continue
        result = subprocess.run(["bash", "-c", command], cwd=folder, env=shell_environment,
                                capture_output=True, text=True,
                                timeout=COMMAND_TIMEOUT_SECONDS)
        where = f"{document.name} line {number}: {command}"
        error = EXIT_STATUS.search(command)
        expected = int(error["status"]) if error else 0
        assert result.returncode == expected, f"{where}\nexit {result.returncode}\n{result.stderr}"
        assert "Traceback" not in result.stderr, f"{where}\n{result.stderr}"
        if error:
            assert result.stderr.startswith("hiddenbn: error: ") \
                and result.stderr.count("\n") == 1, f"{where}\n{result.stderr}"
        assert "NOT converged" not in result.stdout, f"{where}\n{result.stdout}"


def test_every_command_that_is_not_run_is_in_a_document():
    found = [command for document in DOCUMENTS for _, command in document_commands(document)]
    for start in NOT_RUN:
        assert any(starts_with(command, start) for command in found), \
            f"NOT_RUN lists {start!r}, which no document has"


def test_the_parser_keeps_continued_lines_and_here_documents_whole():
    text = ("text\n\n  ```sh\n  cat > m.yaml <<'EOF'\n  a: 1\n  EOF\n  hiddenbn dim m.yaml"
            "  # note\n  python -c 'x' \\\n      -y\n  ```\n```yaml\nb: 2\n```\n")
    block, = shell_blocks(text)
    assert commands(block) == [(4, "cat > m.yaml <<'EOF'\na: 1\nEOF"),
                               (7, "hiddenbn dim m.yaml  # note"),
                               (8, "python -c 'x' \\\n    -y")]


def test_readme_is_short():
    lines = len((REPO / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move the detail to docs/"


def test_no_file_refers_to_an_issue_number():
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout.splitlines()
    found = [f"{name}:{number}: {line.strip()}" for name in tracked if (REPO / name).is_file()
             for number, line in enumerate((REPO / name).read_text(errors="ignore")
                                           .splitlines(), start=1)
             if ISSUE_NUMBER.search(line)]
    assert not found, "state the fact instead of the issue number:\n" + "\n".join(found)


def python_object(name):
    """The object a dotted name gives (its longest importable module, then attributes), or
    None when there is none."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return None
            found = getattr(found, attribute)
        return found
    return None


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_module_and_name_a_document_gives_exists(document):
    names = set(DOTTED_NAME.findall(document.read_text(encoding="utf-8")))
    missing = sorted(name for name in names if python_object(name) is None)
    assert not missing, f"{document.name} names what hiddenbn does not have: {missing}"
