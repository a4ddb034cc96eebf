"""The code's formatting: the Snakefile and rule files with snakefmt (its settings in
pyproject.toml), and every Python and rule file in lines of at most 100 characters."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The longest line of code, in characters (snakefmt's ``line_length`` in pyproject.toml).
MAX_LINE_LENGTH = 100


def test_rule_files_are_formatted_with_snakefmt():
    files = [REPO / "workflow" / "Snakefile", *sorted((REPO / "workflow" / "rules").glob("*.smk"))]
    result = subprocess.run([sys.executable, "-m", "snakefmt", "--check", "--diff",
                             *map(str, files)], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, (
        "run `.venv/bin/snakefmt workflow/Snakefile workflow/rules` to format:\n"
        + result.stdout[-3000:] + result.stderr[-3000:])


def long_lines(paths, root: Path = REPO) -> list[str]:
    """``file:line (N characters)`` for every line of ``paths`` (relative to ``root``) longer
    than :data:`MAX_LINE_LENGTH` characters."""
    return [f"{name}:{number} ({len(line)} characters)" for name in paths
            for number, line in enumerate((root / name).read_text(encoding="utf-8")
                                          .splitlines(), start=1)
            if len(line) > MAX_LINE_LENGTH]


def test_python_and_rule_files_have_lines_of_at_most_100_characters():
    tracked = subprocess.run(["git", "ls-files", "*.py", "*.smk", "workflow/Snakefile"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout.splitlines()
    assert "src/hiddenbn/cli.py" in tracked and "workflow/Snakefile" in tracked
    too_long = long_lines(tracked)
    assert not too_long, (f"wrap these lines to at most {MAX_LINE_LENGTH} characters (long "
                          "strings by implicit concatenation):\n" + "\n".join(too_long))


def test_a_long_line_is_named_by_file_and_line(tmp_path):
    (tmp_path / "wide.py").write_text("fits = 1\n" + "x = 1  # " + "é" * 92 + "\n",
                                      encoding="utf-8")
    (tmp_path / "narrow.smk").write_text("x = 1  # " + "é" * 91 + "\n", encoding="utf-8")
    assert long_lines(["narrow.smk", "wide.py"], tmp_path) == ["wide.py:2 (101 characters)"]
