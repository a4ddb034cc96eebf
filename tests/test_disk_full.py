"""A full disk on the data path: the job fails saying so, leaves no partial output, and the
rerun, once there is space again, completes.

The data directory of paper 003's quick run is a 1 MiB tmpfs filled to the last block before
the run. Mounting needs root (CI runs as root); elsewhere the test is skipped with the reason.
"""

import csv
import errno
import io
import subprocess
from pathlib import Path

import pytest

from test_workflow import QUICK, snakemake

# given before --configfile, which would take every word after it for another config file
TARGET = "results/quick/chickering_heckerman1996/data/fig1_n8/rep1.csv"


@pytest.fixture
def full_data_directory(tmp_path):
    """The run's data directory on a tmpfs with no free block, and a filler file to remove."""
    data = tmp_path / "results/quick/chickering_heckerman1996/data"
    data.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(data)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {mounted.stderr.strip()}")
    filler = data / "filler"
    try:
        with filler.open("wb") as handle:
            while True:
                handle.write(b"\0" * 4096)
                handle.flush()
    except OSError as error:
        assert error.errno == errno.ENOSPC
    try:
        yield data, filler
    finally:
        subprocess.run(["umount", "-l", str(data)], check=False)


def test_a_full_disk_fails_the_job_cleanly_and_the_rerun_completes(tmp_path,
                                                                     full_data_directory):
    data, filler = full_data_directory
    run = snakemake(TARGET, "--cores", "1", "--directory", str(tmp_path), "--configfile",
                    str(QUICK))
    assert run.returncode != 0
    log = tmp_path / "results/quick/logs/chickering_heckerman1996/sample_data/fig1_n8.log"
    assert "No space left on device" in log.read_text(), (
        "the job's log does not say why; console:\n" + run.stderr[-2000:])
    assert "No space left on device" in run.stderr, "the console does not say why"
    left = sorted(p.relative_to(data) for p in data.rglob("*") if p.is_file())
    assert left == [Path("filler")], f"partial output left behind: {left}"

    filler.unlink()
    rerun = snakemake(TARGET, "--cores", "1", "--directory", str(tmp_path), "--configfile",
                      str(QUICK))
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    rows = list(csv.reader(io.StringIO((tmp_path / TARGET).read_text())))
    assert len(rows) > 1 and all(len(row) == len(rows[0]) for row in rows)
