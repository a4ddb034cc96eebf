"""Seeds derived from the config seed and a job's wildcards."""

import os
import subprocess
import sys

from hiddenbn.util import seeding


def test_job_seeds_are_stable_and_distinct():
    a = seeding.job_seed(1, "paper", "data", "fig1_n8", 3)
    assert a == seeding.job_seed(1, "paper", "data", "fig1_n8", 3)
    others = {seeding.job_seed(1, "paper", "data", "fig1_n8", r) for r in range(1, 50)}
    others |= {seeding.job_seed(2, "paper", "data", "fig1_n8", 3),
               seeding.job_seed(1, "paper", "data", "fig1_n16", 3),
               seeding.job_seed(1, "paper", "data", "fig1_n8", "3")}
    assert len(others) == 49 + 3


def test_seeds_do_not_depend_on_the_interpreter_hash_salt():
    code = "from hiddenbn.util import seeding; print(seeding.job_seed(7, 'exp', 'model', 4))"
    values = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "PYTHONHASHSEED": salt},
                             check=True).stdout
              for salt in ("0", "1", "12345")}
    assert len(values) == 1
