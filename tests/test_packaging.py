"""What is shipped: environment.yml (conda users) and pyproject.toml (pip users) ask for the
same packages, the repository cites only what it holds, and the wheel works where the checkout
is not: built from the sources and installed into a fresh environment, every command of
``hiddenbn`` runs from another folder (the installed package, not the checkout's)."""

import importlib.metadata
import importlib.util
import os
import re
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
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
        assert have[name] == spec, (f"{name}: pyproject says {spec!r}, "
                                    f"environment.yml {have[name]!r}")
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


# --- the wheel -------------------------------------------------------------------------------
#: What the build reads besides src/: the metadata and the long description.
BUILD_FILES = ("pyproject.toml", "README.md")
#: A fully observed network for the commands on embedded classifiers (README's example).
EMBEDDED_NETWORK = """\
nodes:
  Y:  {states: 2}
  X1: {states: 2, parents: [Y]}
  X2: {states: 3, parents: [Y, X1]}
  X3: {states: 2}
"""
#: A command line of every command of `hiddenbn`, on small real inputs; they run in this order
#: in one folder (later ones read what earlier ones wrote, and the copies of config/ there).
COMMAND_LINES = [
    ["params", "3:2,2,2,2", "--seed", "3", "-o", "params.json"],
    ["sample", "2:2,2,2,2,2", "--n", "300", "--seed", "1", "-o", "data.csv"],
    ["sample", "2:2,2,2", "--n", "12", "--seed", "2", "-o", "small.csv"],
    ["sample", "embedded.yaml", "--n", "400", "--seed", "4", "-o", "complete.csv"],
    ["dim", "3:2,2,2,2", "--json"],
    ["dim", "embedded.yaml", "--ebnc", "Y"],
    ["fit", "data.csv", "--classes", "2", "--seed", "1", "--posteriors", "posteriors.csv",
     "--plot", "profile.png"],
    ["select", "data.csv", "--family", "lc", "--classes", "1..2", "--json"],
    ["evidence", "small.csv", "--model", "2:2,2,2", "--method", "exact"],
    ["check-config", "config/config.yaml"],
    ["ebnc", "fit", "complete.csv", "--target", "Y", "--embedded", "embedded.yaml"],
    ["ebnc", "select", "complete.csv", "--target", "Y", "--score", "laplace"],
]
#: What the commands above write (beside what they print).
COMMAND_OUTPUTS = ["params.json", "data.csv", "small.csv", "complete.csv",
                   "posteriors.csv", "profile.png"]


def leaf_commands(parser, path=()) -> list:
    """Every command of ``parser`` that takes no further command, as its words:
    ``("fit",)``, ``("ebnc", "select")``."""
    if not parser.subcommands:
        return [path]
    return [leaf for choices in parser.subcommands for name, command in choices.items()
            for leaf in leaf_commands(command, (*path, name))]


def test_the_command_lines_cover_every_command():
    from hiddenbn.cli import build_parser

    covered = {tuple(line[:len(leaf)]) for line in COMMAND_LINES
               for leaf in leaf_commands(build_parser())}
    missing = [" ".join(leaf) for leaf in leaf_commands(build_parser()) if leaf not in covered]
    assert not missing, f"COMMAND_LINES runs no `hiddenbn {missing[0]}`: add a command line"


def isolated_environment() -> dict:
    """This environment without what would bring the checkout's package or its numba cache
    into the installed one (the installed package then caches its kernels in its own folder)."""
    return {name: value for name, value in os.environ.items()
            if name not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "NUMBA_CACHE_DIR")}


def run(command, folder, **keywords):
    """Run ``command`` in ``folder``; fail with its output unless it exits with status 0."""
    result = subprocess.run([str(part) for part in command], cwd=folder, capture_output=True,
                            text=True, env=isolated_environment(), **keywords)
    assert result.returncode == 0, \
        f"{' '.join(map(str, command))}\nexit {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A virtual environment outside the checkout with the wheel of the checkout's sources
    installed in it (built and installed without the network) and the dependencies of this
    interpreter's environment visible to it; its ``bin`` folder."""
    if importlib.util.find_spec("venv") is None or importlib.util.find_spec("pip") is None:
        pytest.skip("this interpreter has no venv or pip module to build and install a wheel")
    pip_version = importlib.metadata.version("pip")
    if tuple(int(part) for part in re.findall(r"\d+", pip_version)[:2]) < (22, 3):
        pytest.skip(f"pip {pip_version} cannot install into another environment (--python "
                    "needs pip 22.3; `make test` upgrades pip)")
    root = tmp_path_factory.mktemp("wheel")
    # Build from a copy of the sources: an in-tree build would leave build/ and *.egg-info in
    # the checkout, and a stale build/ would put removed modules into the wheel.
    sources = root / "sources"
    shutil.copytree(REPO / "src", sources / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in BUILD_FILES:
        shutil.copy(REPO / name, sources / name)
    # setuptools of this environment (the test extra), not a download: works offline
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--quiet", "--wheel-dir", root / "dist", sources], root)
    wheel, = (root / "dist").glob("hiddenbn-*.whl")
    environment = root / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", environment], root)
    python = environment / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
         "--quiet", wheel], root)
    # The dependencies: this environment's site-packages, as plain paths. Python reads .pth
    # files only in a site folder, so an editable install of hiddenbn there (a .pth naming the
    # checkout's src/, or an import hook) stays out.
    site_packages = run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                        root).strip()
    dependencies = [path for path in site.getsitepackages() if Path(path).is_dir()]
    Path(site_packages, "dependencies.pth").write_text("".join(f"{p}\n" for p in dependencies))
    return environment / "bin"


def test_the_installed_wheel_runs_every_command_outside_the_checkout(installed, tmp_path):
    folder = tmp_path / "elsewhere"
    shutil.copytree(REPO / "config", folder / "config")
    (folder / "embedded.yaml").write_text(EMBEDDED_NETWORK)
    imported = run([installed / "python", "-c", "import hiddenbn, hiddenbn.cli; "
                    "print(hiddenbn.__file__); print(hiddenbn.cli.__file__)"], folder).split()
    for path in imported:
        assert Path(path).is_relative_to(installed.parent), f"imported {path}, not the wheel's"
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert run([installed / "hiddenbn", "--version"], folder).split() == ["hiddenbn", version]
    assert "check-config" in run([installed / "hiddenbn", "--help"], folder)
    for line in COMMAND_LINES:
        printed = run([installed / "hiddenbn", *line], folder, timeout=120)
        assert printed.strip() or "-o" in line, f"hiddenbn {' '.join(line)} printed nothing"
    for name in COMMAND_OUTPUTS:
        assert (folder / name).stat().st_size > 0, name
