"""environment.yml (conda users) and pyproject.toml (pip users) ask for the same packages."""

import re
import subprocess
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def requirement(text):
    name, spec = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", text).groups()
    return name.lower().replace("_", "-"), spec.replace(" ", "")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = dict(requirement(r) for r in project["dependencies"])
    for extra in project["optional-dependencies"].values():  # test, bench, cluster
        wanted.update(requirement(r) for r in extra)
    environment = yaml.safe_load((REPO / "environment.yml").read_text())["dependencies"]
    conda = dict(requirement(d) for d in environment if isinstance(d, str))
    pip = dict(requirement(d) for entry in environment if isinstance(entry, dict)
               for d in entry["pip"])
    have = {**conda, **pip}
    for name, spec in wanted.items():
        assert name in have, f"environment.yml lacks {name}"
        assert have[name] == spec, f"{name}: pyproject says {spec!r}, environment.yml {have[name]!r}"
    assert conda["python"] == project["requires-python"]


def test_the_repository_cites_only_what_it_ships():
    """Notes a user needs (reconstructions, printed numbers) live in the repository: no tracked
    file points outside it to the developers' own paper copies or notes."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout.split()
    outside = re.compile(r"\.\./shared|FIGURES\.md|INDEX\.md|ARCHITECTURE\.md|ENGINEERING\.md"
                         r"|papers/00\d_")
    offenders = [name for name in tracked if (REPO / name).is_file()
                 and name != "tests/test_packaging.py"
                 and outside.search((REPO / name).read_text(errors="ignore"))]
    assert not offenders, f"these files cite material outside the repository: {offenders}"
    assert (REPO / "docs" / "RECONSTRUCTIONS.md").is_file()
