"""The outputs of two workflow runs, compared file by file: identical but for measured run times.

Shared by tests/test_quick_run.py (one core against two) and tools/slurm/test-cluster.py (a local
run against a SLURM run). Measured run times are the only thing allowed to differ; they live in
columns whose name ends in ``_seconds``, in CSV files and in Markdown tables alike, or, in a
Markdown table written for a reader, in ``(s)`` (``EM (s)``; the paper's printed times beside
them, which cannot differ, are left out with them). PDF files
also carry the moment they were written (``/CreationDate``); PNG files carry no date and are
compared byte for byte.
"""

import io
import re
from pathlib import Path

import pandas as pd

TIMING_SUFFIX = "_seconds"
#: How a Markdown table written for a reader names a column of run times.
READER_TIMING_SUFFIX = " (s)"
PDF_CREATION_DATE = re.compile(rb"/CreationDate \(D:[0-9Z+\-']*\)")


def result_files(results):
    """Every file under ``results`` but the job logs (``results/logs/``).

    Parameters
    ----------
    results : path-like
        A run's results directory (``results_dir`` of its config).

    Returns
    -------
    dict of pathlib.Path to bytes
        Contents keyed by the path relative to ``results``.
    """
    results = Path(results)
    return {path.relative_to(results): path.read_bytes()
            for path in sorted(results.rglob("*"))
            if path.is_file() and path.relative_to(results).parts[0] != "logs"}


def without_timings(csv_bytes):
    """A CSV table without its ``*_seconds`` columns, as CSV text."""
    table = pd.read_csv(io.BytesIO(csv_bytes))
    return table.drop(columns=[c for c in table.columns if c.endswith(TIMING_SUFFIX)]).to_csv()


def markdown_without_timings(markdown_bytes):
    """Markdown text whose tables lack their ``*_seconds`` and ``* (s)`` columns.

    A table is a run of lines starting with ``|``; its first line names the columns (cells
    hold no bare ``|``, which the reports escape).
    """
    lines, timing_cells = [], None
    for line in markdown_bytes.decode().splitlines():
        if not line.startswith("|"):
            timing_cells = None
            lines.append(line)
            continue
        cells = line.strip().strip("|").split("|")
        if timing_cells is None:  # the header of a new table
            timing_cells = {i for i, cell in enumerate(cells)
                            if cell.strip().endswith((TIMING_SUFFIX, READER_TIMING_SUFFIX))}
        lines.append("|".join(c for i, c in enumerate(cells) if i not in timing_cells))
    return "\n".join(lines)


def comparable(path, content):
    """What must agree between two runs for the file ``path`` holding ``content``."""
    suffix = Path(path).suffix
    if suffix == ".csv":
        return without_timings(content)
    if suffix == ".md":
        return markdown_without_timings(content)
    if suffix == ".pdf":
        return PDF_CREATION_DATE.sub(b"", content)
    return content


def differences(first, second):
    """Every way two runs' outputs disagree beyond measured run times.

    Parameters
    ----------
    first, second : dict of pathlib.Path to bytes
        :func:`result_files` of each run.

    Returns
    -------
    list of str
        One line per file missing from either run or differing; empty when the runs agree.
    """
    problems = [f"only in the first run: {p}" for p in sorted(set(first) - set(second))]
    problems += [f"only in the second run: {p}" for p in sorted(set(second) - set(first))]
    problems += [f"differs: {p}" for p in sorted(set(first) & set(second))
                 if comparable(p, first[p]) != comparable(p, second[p])]
    return problems
