"""Shared fixtures: small networks with hidden and deterministic nodes."""

import os

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


def pytest_collection_modifyitems(items):
    """Run tests/test_quick_run.py first: the quick config's runs and the tests that read them.

    They are the longest chain of work in the suite. ``make test`` sends each file whole to one
    pytest-xdist worker, in the order collected (``--dist loadfile --no-loadscope-reorder``):
    started first, that chain runs while the other workers take the rest, instead of holding
    one worker alone at the end.
    """
    # a stable sort: every other test keeps its place
    items.sort(key=lambda item: item.path.name != "test_quick_run.py")
