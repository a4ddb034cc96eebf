"""Data as pattern counts: the distinct observed rows and how often each occurs.

Every learning routine of hiddenbn takes a :class:`Dataset`, so the cost of EM, the scores and
the likelihoods grows with the number of distinct patterns, not with the number of cases N.
Files are CSV with a header of observed variable names and integer states ``0..r-1``; an
optional ``count`` column holds pattern counts.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hiddenbn import limits
from hiddenbn.errors import DataError, excerpt
from hiddenbn.files import atomic_output
from hiddenbn.textfiles import open_text

COUNT_COLUMN = "count"
#: A missing cell in :attr:`Dataset.patterns` (summed out under missing at random).
MISSING = -1
#: Rows read before they are packed into arrays (see :func:`read_csv`).
READ_BLOCK_ROWS = 1 << 16
#: A cell of a data file: ASCII digits with an optional sign, blanks around them.
_INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*")


def pattern_counts(rows, cardinalities=None, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``rows`` in lexicographic order, and how often each occurs.

    ``weights`` (one non-negative integer per row, default 1) are added up per distinct row, so
    pattern counts with repeated patterns can be merged. Rows are encoded as mixed-radix
    integers when the joint state space fits in int64 (one sort of a 1-D key array), and sorted
    row-wise otherwise. A cell :data:`MISSING` stays missing (patterns keep their missingness).
    """
    rows = np.asarray(rows)
    if rows.ndim != 2:
        raise DataError(f"data must be a 2-D array of cases x variables, got shape {rows.shape}")
    if rows.shape[0] == 0:
        return rows.astype(np.int32), np.zeros(0, dtype=np.int64)
    # checked before the cast to int32 below, which would wrap larger states around
    if rows.size and not (rows.dtype.kind in "biu" and rows.min() >= MISSING
                          and rows.max() < limits.MAX_STATES):
        raise DataError(f"data states must be whole numbers 0..{limits.MAX_STATES - 1} (or "
                        f"{MISSING} for a missing cell); states are 0..r-1")
    if cardinalities is None:
        cardinalities = rows.max(axis=0) + 1
    # a missing cell is one more value of its column: keys count from MISSING
    radix = np.asarray(cardinalities, dtype=np.int64) + 1
    if rows.shape[1] and np.sum(np.log2(np.maximum(radix, 1))) < 62:
        strides = np.ones(rows.shape[1], dtype=np.int64)
        strides[:-1] = np.cumprod(radix[::-1])[::-1][1:]
        keys, inverse = np.unique((rows.astype(np.int64) - MISSING) @ strides,
                                  return_inverse=True)
        patterns = (keys[:, None] // strides) % radix + MISSING
    else:
        patterns, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    if weights is None:
        counts = np.bincount(inverse, minlength=len(patterns))
    else:  # integer accumulation: float bincount would round counts above 2**53
        counts = np.zeros(len(patterns), dtype=np.int64)
        np.add.at(counts, inverse, np.asarray(weights, dtype=np.int64))
    return patterns.astype(np.int32), counts.astype(np.int64)


@dataclass(frozen=True)
class Dataset:
    """Pattern counts over named observed variables.

    Attributes
    ----------
    names : tuple of str
        Variable names, one per column of ``patterns``.
    patterns : ndarray of int32, shape (m, n)
        Distinct observed rows.
    counts : ndarray of int64, shape (m,)
        How many cases show each pattern.
    """

    names: tuple[str, ...]
    patterns: np.ndarray
    counts: np.ndarray

    @classmethod
    def from_rows(cls, names, rows, cardinalities=None, weights=None) -> "Dataset":
        """Pattern counts of ``rows`` (cases x variables), optionally weighted by counts."""
        patterns, counts = pattern_counts(rows, cardinalities, weights)
        return cls(tuple(names), patterns, counts)

    @property
    def n_cases(self) -> int:
        return int(self.counts.sum())

    @property
    def n_patterns(self) -> int:
        return int(self.counts.size)

    @property
    def has_missing(self) -> bool:
        """True when some cell is :data:`MISSING`."""
        return bool(self.patterns.size) and bool((self.patterns == MISSING).any())

    def rows(self) -> np.ndarray:
        """The cases as one row each (patterns repeated by their counts)."""
        return np.repeat(self.patterns, self.counts, axis=0)

    def for_network(self, network) -> "Dataset":
        """Columns reordered to ``network``'s observed nodes, states checked against its ranges."""
        missing = [name for name in network.observed_names if name not in self.names]
        if missing:
            raise DataError(f"the data has no column {missing[0]!r}, an observed variable of the "
                            f"model; columns are {', '.join(self.names)}")
        order = [self.names.index(name) for name in network.observed_names]
        patterns = self.patterns[:, order]
        for column, (name, r) in enumerate(zip(network.observed_names,
                                               network.observed_cardinalities)):
            bad = np.flatnonzero(patterns[:, column] >= r)
            if bad.size:
                raise DataError(f"column {name!r} has state {patterns[bad[0], column]}, outside "
                                f"the model's range 0..{r - 1}")
        if len(order) == len(self.names):
            return Dataset(network.observed_names, patterns, self.counts)
        # dropping columns the model does not use can merge patterns
        return Dataset.from_rows(network.observed_names, patterns, network.observed_cardinalities,
                                 self.counts)


def write_csv(path, dataset: Dataset) -> None:
    """Write ``dataset`` as CSV pattern counts: one line per pattern and a ``count`` column."""
    write_rows_csv(path, dataset.names + (COUNT_COLUMN,),
                   np.column_stack([dataset.patterns, dataset.counts]))


def write_rows_csv(path, names, rows) -> None:
    """Write cases as CSV, one line per case in the given order (``path`` may be a stream)."""
    def save(target):
        np.savetxt(target, np.asarray(rows), fmt="%d", delimiter=",", header=",".join(names),
                   comments="")

    if hasattr(path, "write"):
        save(path)
    else:
        with atomic_output(path) as temporary:
            save(temporary)


def read_csv(path) -> Dataset:
    """Read a data file; every malformed input is a one-line :class:`DataError`.

    Cells are checked as Python integers (states ``0..MAX_STATES - 1``, counts up to
    :data:`~hiddenbn.limits.MAX_CASES` in all) before they are stored in arrays, so no value
    is ever wrapped around; a UTF-8 byte-order mark is skipped.
    """
    path = Path(path)
    with open_text(path, DataError, "data file", limits.DATA_BYTES_PER_TEXT_BYTE) as handle:
        reader = csv.reader(handle)
        try:
            header = _read_header(path, reader)
            states, counts = _read_rows(path, reader, header)
        except csv.Error as err:
            raise DataError(f"data file {path}, line {reader.line_num}: {err}; write one case "
                            "per line, cells separated by commas") from None
    if COUNT_COLUMN in header:
        header.remove(COUNT_COLUMN)
    if not header:
        raise DataError(f"data file {path} has a count column but no variables")
    keep = counts > 0
    if not keep.any():
        raise DataError(f"data file {path}: every count is zero")
    return Dataset.from_rows(header, states[keep], weights=counts[keep])


def _read_header(path: Path, reader) -> list[str]:
    header = next(reader, None)
    if not header or not any(cell.strip() for cell in header):
        raise DataError(f"data file {path} is empty; it needs a header of variable names")
    header = [cell.strip() for cell in header]
    if len(set(header)) != len(header):
        raise DataError(f"data file {path}: a column name appears twice in the header")
    return header


def _read_rows(path: Path, reader, header: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The states (int32, the count column removed) and counts (int64) of the data rows.

    Rows are packed into arrays every :data:`READ_BLOCK_ROWS` rows: a list of Python rows costs
    several times the array.
    """
    count_column = header.index(COUNT_COLUMN) if COUNT_COLUMN in header else None
    names = [name for name in header if name != COUNT_COLUMN]
    blocks, rows, row_counts, total = [], [], [], 0
    for record in reader:
        if not record or all(not cell.strip() for cell in record):
            continue
        if len(record) != len(header):
            raise DataError(f"{_where(path, reader)}: {len(record)} cells, but the header has "
                            f"{len(header)}")
        values = _integers(path, reader, record)
        count = 1 if count_column is None else values.pop(count_column)
        if values and not (min(values) >= 0 and max(values) < limits.MAX_STATES):
            raise _bad_state(path, reader, names, values)
        total += count
        if count < 0 or total > limits.MAX_CASES:
            raise _bad_count(path, reader, count, total)
        rows.append(values)
        row_counts.append(count)
        if len(rows) == READ_BLOCK_ROWS:
            blocks.append(_pack(rows, row_counts, len(names)))
            rows, row_counts = [], []
    if not rows and not blocks:
        raise DataError(f"data file {path} has a header but no rows")
    blocks.append(_pack(rows, row_counts, len(names)))
    return (np.concatenate([states for states, _ in blocks]),
            np.concatenate([counts for _, counts in blocks]))


def _where(path: Path, reader) -> str:
    return f"data file {path}, line {reader.line_num}"


def _pack(rows: list, row_counts: list, n_columns: int) -> tuple[np.ndarray, np.ndarray]:
    """Checked rows and counts as arrays (their ranges make the casts exact)."""
    return (np.array(rows, dtype=np.int32).reshape(len(rows), n_columns),
            np.array(row_counts, dtype=np.int64))


def _integers(path: Path, reader, record: list[str]) -> list[int]:
    """The cells of ``record`` as integers: ASCII digits with an optional sign and blanks
    around them (``int`` alone would also take ``1_000`` and non-ASCII digits)."""
    joined = "".join(record)
    if joined.isascii() and "_" not in joined:  # int() takes exactly the cells _INTEGER does
        try:
            return [int(cell) for cell in record]
        except ValueError:
            pass
    for cell in record:
        if not _INTEGER.fullmatch(cell):
            raise DataError(f"{_where(path, reader)}: {excerpt(cell.strip())} is not an integer "
                            "state")
    try:
        return [int(cell) for cell in record]
    except ValueError:  # more digits than int() converts (4300), far above any state or count
        cell = max(record, key=len).strip()
        raise DataError(f"{_where(path, reader)}: {excerpt(cell)} has {len(cell)} digits, more "
                        "than any state or count; states are 0..r-1") from None


def _bad_state(path: Path, reader, names: list[str], values: list[int]) -> DataError:
    """The error for the first state outside ``0..MAX_STATES - 1`` in ``values``."""
    column = next(j for j, v in enumerate(values) if not 0 <= v < limits.MAX_STATES)
    value = values[column]
    if value < 0:
        return DataError(f"{_where(path, reader)}: column {names[column]!r} has the negative "
                         f"state {value}; states are 0..r-1")
    return DataError(f"{_where(path, reader)}, column {names[column]!r}: {limits.shown(value)} "
                     f"is not a state of a variable with at most {limits.MAX_STATES} states; "
                     "states are 0..r-1")


def _bad_count(path: Path, reader, count: int, total: int) -> DataError:
    if count < 0:
        return DataError(f"{_where(path, reader)}: the count column has a negative count "
                         f"{count}; counts are 0 or more")
    return DataError(f"{_where(path, reader)}: the counts add up to {limits.shown(total)} cases "
                     f"so far, more than the {limits.MAX_CASES} hiddenbn counts exactly; split "
                     "the data set")
