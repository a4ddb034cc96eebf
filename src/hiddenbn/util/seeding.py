"""Seeds derived from the config and a job's wildcards.

Every random draw of the pipeline comes from ``numpy.random.SeedSequence(root, spawn_key=key)``
where ``key`` encodes the job's identity (experiment, model, replicate, ...). Strings are
mapped to integers with SHA-256, never with Python's salted ``hash()``, so a job gets the same
stream on any machine, core count or scheduling order.
"""

from __future__ import annotations

import hashlib

import numpy as np

from hiddenbn.errors import ParameterError
from hiddenbn.util import limits


def _key_word(part) -> int:
    if isinstance(part, (int, np.integer)) and not isinstance(part, bool) and part >= 0:
        return int(part)
    digest = hashlib.sha256(str(part).encode("utf-8")).digest()
    # strings get the top bit so they never collide with non-negative integer parts
    return int.from_bytes(digest[:8], "little") | (1 << 63)


def seed_sequence(root: int, *key) -> np.random.SeedSequence:
    """The ``SeedSequence`` of the job identified by ``key`` (ints and strings); ``root`` must
    be a whole number of at least 0 (1.5 had been cut to 1, -1 refused by numpy's own error)."""
    limits.require_whole_number(root, 0, "a seed", ParameterError)
    return np.random.SeedSequence(int(root), spawn_key=tuple(_key_word(part) for part in key))


def rng(root: int, *key) -> np.random.Generator:
    """A ``numpy.random.Generator`` for the job identified by ``key``."""
    return np.random.default_rng(seed_sequence(root, *key))


def job_seed(root: int, *key) -> int:
    """A 64-bit integer seed for the job identified by ``key``, to pass on a command line."""
    return int(seed_sequence(root, *key).generate_state(1, dtype=np.uint64)[0])
