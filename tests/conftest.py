"""Shared fixtures: small networks with hidden and deterministic nodes."""

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

# Before numpy loads BLAS: the suite's matrices are small, where threads only cost time (and
# on a shared machine a great deal of it); subprocesses inherit the setting.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from hiddenbn.models.spec import parse_spec  # noqa: E402


@pytest.fixture
def noisy_max_network():
    """Two causes, two hidden mechanisms, an observed max effect and an extra hidden root."""
    return parse_spec({"nodes": {
        "C1": {"states": 2},
        "C2": {"states": 3},
        "M1": {"states": 3, "parents": ["C1"], "hidden": True},
        "M2": {"states": 2, "parents": ["C1", "C2"], "hidden": True},
        "E": {"function": "max", "parents": ["M1", "M2"]},
        "Z": {"states": 2, "hidden": True},
        "Y": {"states": 3, "parents": ["Z", "C2"]},
    }})


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


class QuickRun(NamedTuple):
    """A finished run of config/quick.yaml: its working directory and its outputs by path."""

    workdir: Path
    outputs: dict


@pytest.fixture(scope="session")
def quick_runs(tmp_path_factory):
    """The quick config run on one core and on two, both at once: {cores: QuickRun}.

    Shared by the determinism, report and resume tests. The two runs overlap because the
    one-core run leaves a core idle; their results do not depend on the load, which is what
    the comparison of the two holds to.
    """
    from run_outputs import result_files
    from test_workflow import QUICK, SNAKEFILE

    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    runs = {}
    for cores in (1, 2):
        workdir = tmp_path_factory.mktemp(f"quick_cores{cores}")
        log = (workdir.parent / f"{workdir.name}.log").open("w")
        process = subprocess.Popen(
            [sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE), "--cores",
             str(cores), "--directory", str(workdir), "--configfile", str(QUICK)],
            cwd=SNAKEFILE.parents[1], env=env, stdout=log, stderr=subprocess.STDOUT)
        runs[cores] = (workdir, process, log)
    finished = {}
    for cores, (workdir, process, log) in runs.items():
        returncode = process.wait()
        log.close()
        assert returncode == 0, Path(log.name).read_text()[-3000:]
        finished[cores] = QuickRun(workdir, result_files(workdir / "results" / "quick"))
    return finished
