"""The Snakefile and rule files are formatted with snakefmt (its settings in pyproject.toml)."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_rule_files_are_formatted_with_snakefmt():
    files = [REPO / "workflow" / "Snakefile", *sorted((REPO / "workflow" / "rules").glob("*.smk"))]
    result = subprocess.run([sys.executable, "-m", "snakefmt", "--check", "--diff",
                             *map(str, files)], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, (
        "run `.venv/bin/snakefmt workflow/Snakefile workflow/rules` to format:\n"
        + result.stdout[-3000:] + result.stderr[-3000:])
