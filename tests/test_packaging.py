"""environment.yml (conda users) and pyproject.toml (pip users) ask for the same packages."""

import re
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
