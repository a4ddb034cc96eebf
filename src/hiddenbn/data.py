"""Data as pattern counts: the distinct observed rows and how often each occurs.

Every learning routine of hiddenbn takes a :class:`Dataset`, so the cost of EM, the scores and
the likelihoods grows with the number of distinct patterns, not with the number of cases N.
Files are CSV with a header of observed variable names and integer states ``0..r-1``; an
optional ``count`` column holds pattern counts.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hiddenbn.errors import DataError
from hiddenbn.files import atomic_output

COUNT_COLUMN = "count"


def pattern_counts(rows, cardinalities=None, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``rows`` in lexicographic order, and how often each occurs.

    ``weights`` (one non-negative integer per row, default 1) are added up per distinct row, so
    pattern counts with repeated patterns can be merged. Rows are encoded as mixed-radix
    integers when the joint state space fits in int64 (one sort of a 1-D key array), and sorted
    row-wise otherwise.
    """
    rows = np.asarray(rows)
    if rows.ndim != 2:
        raise DataError(f"data must be a 2-D array of cases x variables, got shape {rows.shape}")
    if rows.shape[0] == 0:
        return rows.astype(np.int32), np.zeros(0, dtype=np.int64)
    if cardinalities is None:
        cardinalities = rows.max(axis=0) + 1
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    if rows.shape[1] and np.sum(np.log2(np.maximum(cardinalities, 1))) < 62:
        strides = np.ones(rows.shape[1], dtype=np.int64)
        strides[:-1] = np.cumprod(cardinalities[::-1])[::-1][1:]
        keys, inverse = np.unique(rows.astype(np.int64) @ strides, return_inverse=True)
        patterns = (keys[:, None] // strides) % cardinalities
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
    """Read a data file; every malformed input is a one-line :class:`DataError`."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"data file {path} does not exist")
    with path.open(newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if not header or not any(cell.strip() for cell in header):
            raise DataError(f"data file {path} is empty; it needs a header of variable names")
        header = [cell.strip() for cell in header]
        if len(set(header)) != len(header):
            raise DataError(f"data file {path}: a column name appears twice in the header")
        values = []
        for line_number, record in enumerate(reader, start=2):
            if not record or all(not cell.strip() for cell in record):
                continue
            if len(record) != len(header):
                raise DataError(f"data file {path}, line {line_number}: {len(record)} cells, "
                                f"but the header has {len(header)}")
            try:
                values.append([int(cell) for cell in record])
            except ValueError:
                cell = next(c for c in record if not _is_integer(c))
                raise DataError(f"data file {path}, line {line_number}: {cell.strip()!r} is not "
                                "an integer state") from None
    if not values:
        raise DataError(f"data file {path} has a header but no rows")
    table = np.asarray(values, dtype=np.int64)
    if COUNT_COLUMN in header:
        k = header.index(COUNT_COLUMN)
        counts = table[:, k]
        table = np.delete(table, k, axis=1)
        header.pop(k)
        if np.any(counts < 0):
            raise DataError(f"data file {path}: the count column has a negative count")
    else:
        counts = np.ones(len(table), dtype=np.int64)
    if not header:
        raise DataError(f"data file {path} has a count column but no variables")
    negative = np.argwhere(table < 0)
    if negative.size:
        row, column = negative[0]
        raise DataError(f"data file {path}, data row {row + 1}: column {header[column]!r} has the "
                        f"negative state {table[row, column]}; states are 0..r-1")
    keep = counts > 0
    if not keep.any():
        raise DataError(f"data file {path}: every count is zero")
    return Dataset.from_rows(header, table[keep], weights=counts[keep])


def _is_integer(cell: str) -> bool:
    try:
        int(cell)
    except ValueError:
        return False
    return True
