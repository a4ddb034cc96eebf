"""Shared fixtures: small networks with hidden and deterministic nodes."""

import numpy as np
import pytest

from hiddenbn.spec import parse_spec


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
