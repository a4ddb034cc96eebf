"""Data as pattern counts: the distinct observed rows and how often each occurs.

Every learning routine of hiddenbn takes a :class:`Dataset`, so the cost of EM, the scores and
the likelihoods grows with the number of distinct patterns, not with the number of cases N.

Data files are CSV with a header of variable names, one case per line, and an optional
``count`` column of pattern counts. :func:`read_data` reads categorical data as people keep it:

* **Each column on its own.** A column's states are coded ``0..r-1`` from its own cells alone:
  a missing-value code or an identifier in one column never changes another column's states.
  Only the columns a model is bound to are coded (``columns``; :meth:`DataTable.data_file`),
  so a column the model does not use changes no state, case, note or error.
* **Whole numbers** keep their order: a column's codes are its numbers minus its *base*, its
  smallest number when that is below 1, else 1 (poLCA's convention: states 1..r). So an item
  coded 1..5 gets codes 0..4 and one coded 0/1 keeps them; a state between the base and the
  column's largest number counts even if no case has it (a note says so). A whole number may
  be written with a decimal point, zeros after it or an exponent: ``2.0`` (as pandas writes
  the integers of a column with a missing cell) is the state ``2``, also in a data dictionary
  and as a count. (A file that hiddenbn wrote, states ``0..r-1``, reads back unchanged where a
  column has its state 0; ``base=0`` reads every column from 0.)
* **Labels.** A column with any other cell (a label such as ``yes``, or a number that is not
  whole such as ``2.5``) has its distinct values as states, sorted as R's ``factor`` sorts
  levels: numbers by value, then text in code-point order. A column of numbers that are not
  all whole, or one with more than :data:`USUAL_MAX_STATES` states, gets a note: it is more
  likely a measurement or an identifier than a category, to be binned or left out.
* **A data dictionary** (YAML, ``column: [category, ...]``) fixes the states and their order for
  the columns it names; a category absent from the data still counts (a column it names may
  even have only missing cells), and a cell that is not in the list is an error. Its entries
  are read as text (``yes`` stays ``yes``).
* **Missing cells** are those equal to one of ``missing_values``, blanks around a cell ignored.
  The default (:data:`DEFAULT_MISSING_VALUES`) is pandas' default ``na_values`` (empty,
  ``NA``, ``NaN``, ``nan``, ``N/A``, ``n/a``, ``NULL``, ``null``, ``None``, ``#N/A``, ...,
  which cover R's ``NA`` and StepMix's NaN) and further SAS's and Stata's ``.`` and ``na``.
  They are kept as :data:`MISSING` and summed out by EM and every score (missing at random);
  ``missing="drop"`` deletes every case with a missing cell instead (listwise deletion). A
  row with no cell at all is refused as a slip; one with cells only in columns not read is a
  case with nothing observed (poLCA keeps such cases too).
* **Before the header**, a first line ``sep=;`` (as Excel writes it) names the separator of
  the cells (``,``, ``;``, tab or ``|``; default ``,``), and lines starting with ``#`` are
  comments (as R's ``read.table`` skips them); both are skipped.

* **A pandas DataFrame** is read as the CSV file ``DataFrame.to_csv`` writes of it, by the same
  coding: a null cell (NaN, None, ``pd.NA``) is missing, any other cell is its text (``2.0``
  is the state 2), and a categorical column's categories are its states in their order, as a
  data dictionary gives them. Messages name ``the DataFrame`` and its rows counted from 1.

The states of each column are returned with the data (:attr:`Dataset.categories`), and every
output that shows states uses them. The file is parsed by pandas' C parser and every column
encoded once per distinct value, so a file of 10^6 rows and 30 columns reads in seconds.
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path

import numpy as np

from hiddenbn.errors import DataError, excerpt, for_caller, option
from hiddenbn.util import limits
from hiddenbn.util.defaults import DEFAULT_MISSING_VALUES, MISSING_HANDLING
from hiddenbn.util.files import atomic_output
from hiddenbn.util.textfiles import (ALIAS_EXPANSION, not_utf8, read_bytes, read_text, text_lines,
                                     yaml_loader)

COUNT_COLUMN = "count"
#: A missing cell in :attr:`Dataset.patterns` (summed out under missing at random).
MISSING = -1
# Cells read as missing unless told otherwise (pandas' default na_values, ``.`` and ``na``),
# and what read_data does with them (keep them for the model, or drop the cases): imported from
# hiddenbn.util.defaults (DEFAULT_MISSING_VALUES, MISSING_HANDLING), where the command line reads
# them.
#: The largest data dictionary read, in bytes.
MAX_DICTIONARY_BYTES = 1 << 24
#: The most states a column has without a note that it looks like a measurement or an
#: identifier: categorical items have far fewer (a 0-10 rating scale has 11), and at the sample
#: sizes of a survey each state of a column past this many holds only a few dozen cases, so
#: its parameters (one per state and class) are barely estimated.
USUAL_MAX_STATES = 30
#: A decimal number in ASCII (``float`` alone would also take ``1_0``, ``inf`` and other digits).
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
#: More digits than any state or count has (int() also refuses numbers past 4300 digits).
_MAX_DIGITS = 20


def _named_columns(columns, names, source: str) -> tuple:
    """``columns`` as a tuple, refused unless each is one of ``names`` (the columns of
    ``source``) and named once, and at least one is."""
    columns = tuple(columns)
    absent = [name for name in columns if name not in names]
    if absent:
        raise DataError(f"the data has no column {absent[0]!r}; columns of {source} are "
                        f"{_listed(names)}")
    if len(set(columns)) != len(columns):
        raise DataError(f"column {next(c for c in columns if columns.count(c) > 1)!r} is "
                        "named twice; name each column once")
    if not columns:
        raise DataError(f"no column of {source} is named; name at least one")
    return columns


def pattern_counts(rows, cardinalities=None, weights=None, return_inverse: bool = False):
    """Distinct rows of ``rows`` in lexicographic order, and how often each occurs (and, with
    ``return_inverse``, the pattern of each row).

    ``weights`` (one non-negative integer per row, default 1) are added up per distinct row, so
    pattern counts with repeated patterns can be merged. Rows are encoded as mixed-radix
    integers when the joint state space fits in int64 (one sort of a 1-D key array); otherwise
    the key is built column by column and renumbered in order whenever it would overflow. A
    cell :data:`MISSING` stays missing (patterns keep their missingness).
    """
    rows = np.asarray(rows)
    if rows.ndim != 2:
        raise DataError(f"data must be a 2-D array of cases x variables, got shape {rows.shape}")
    if rows.shape[0] == 0:
        empty = (rows.astype(np.int32), np.zeros(0, dtype=np.int64))
        return empty + (np.zeros(0, dtype=np.int64),) if return_inverse else empty
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
    else:  # keys column by column, renumbered (order kept) whenever they would overflow
        key, bound = np.zeros(rows.shape[0], dtype=np.int64), 1
        for column, r in zip(rows.T, radix.tolist()):
            if bound * r >= 1 << 62:
                distinct, key = np.unique(key, return_inverse=True)
                bound = distinct.size
            key = key * r + (column.astype(np.int64) - MISSING)
            bound *= r
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        patterns = np.ascontiguousarray(rows.T[:, first].T)  # fast for column-major rows too
    inverse = inverse.ravel()
    if weights is None:
        counts = np.bincount(inverse, minlength=len(patterns))
    else:  # integer accumulation: float bincount would round counts above 2**53
        counts = np.zeros(len(patterns), dtype=np.int64)
        np.add.at(counts, inverse, np.asarray(weights, dtype=np.int64))
    result = patterns.astype(np.int32), counts.astype(np.int64)
    return result + (inverse.astype(np.int64),) if return_inverse else result


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
    categories : tuple of sequences of str, optional
        The states of each column as the data file writes them (code ``s`` is
        ``categories[j][s]``: a tuple of labels, or :class:`NumberedStates`); None for data
        made in code, whose states are the codes.

    Examples
    --------
    >>> data = Dataset.from_rows(["a", "b"], [[0, 1], [1, 1], [0, 1], [1, MISSING]])
    >>> data.patterns.tolist(), data.counts.tolist()
    ([[0, 1], [1, -1], [1, 1]], [2, 1, 1])
    >>> data.n_cases, data.cardinalities, data.has_missing
    (4, (2, 2), True)
    """

    names: tuple[str, ...]
    patterns: np.ndarray
    counts: np.ndarray
    categories: tuple[Sequence[str], ...] | None = field(default=None, compare=False)

    def __post_init__(self):
        """Refuse arrays that cannot be pattern counts over ``names`` (a data set built by
        hand: a negative count or a code below MISSING had given impossible likelihoods)."""
        patterns, counts = np.asarray(self.patterns), np.asarray(self.counts)
        if patterns.ndim != 2 or patterns.shape[1] != len(self.names):
            raise DataError(f"patterns must be a table of {len(self.names)} columns (one per "
                            f"name), got shape {patterns.shape}")
        if counts.shape != (patterns.shape[0],):
            raise DataError(f"need one count per pattern: {patterns.shape[0]} patterns, counts of "
                            f"shape {counts.shape}")
        if patterns.size and patterns.min() < MISSING:
            raise DataError(f"a pattern has the code {int(patterns.min())}; states are coded from "
                            f"0 ({MISSING} for a missing cell)")
        if counts.size and counts.min() < 0:
            raise DataError(f"a pattern count is {counts.min()}; counts are 0 or more")

    @classmethod
    def from_rows(cls, names, rows, cardinalities=None, weights=None,
                  categories=None) -> "Dataset":
        """Pattern counts of ``rows`` (cases x variables), optionally weighted by counts."""
        patterns, counts = pattern_counts(rows, cardinalities, weights)
        return cls(tuple(names), patterns, counts, categories)

    @classmethod
    def from_frame(cls, frame, **options) -> "Dataset":
        """The cases of a pandas DataFrame, read as a data file is read.

        Parameters
        ----------
        frame : pandas.DataFrame
            One column per variable, an optional ``count`` column of pattern counts. Null
            cells (NaN, None, ``pd.NA``) are missing; a categorical column's categories are
            its states in their order; other columns are coded as :func:`read_data` codes a
            file's (whole numbers from 1, or 0 if a column has it; labels sorted).
        **options
            :func:`read_data`'s keywords: ``dictionary``, ``missing_values``, ``missing``,
            ``columns``, ...

        Returns
        -------
        Dataset
            The cases as pattern counts with their states. :func:`read_data` also gives the
            notes on how the cells were read.

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"answer": pd.Categorical(["no", "yes", "no"],
        ...                                                categories=["yes", "no", "maybe"]),
        ...                       "grade": [1.0, 3.0, float("nan")]})
        >>> data = Dataset.from_frame(frame)
        >>> data.states()
        {'answer': ['yes', 'no', 'maybe'], 'grade': ['1', '2', '3']}
        >>> data.rows().tolist()
        [[0, 2], [1, -1], [1, 0]]
        """
        return read_data(frame, **options).dataset

    @property
    def cardinalities(self) -> tuple[int, ...]:
        """States per column: as many as its categories, else its largest code + 1 (at least 1)."""
        if self.categories is not None:
            return tuple(len(states) for states in self.categories)
        top = self.patterns.max(axis=0) if self.n_patterns else np.zeros(len(self.names), int)
        return tuple(max(1, int(value) + 1) for value in top)

    def states(self) -> dict:
        """Each column's states as text, in code order: ``{name: [label, ...]}`` (what every
        output writes beside results that use codes)."""
        return {name: list(self.labels(j)) for j, name in enumerate(self.names)}

    def labels(self, column: int) -> Sequence[str]:
        """The states of column ``column`` as text (the codes themselves without categories)."""
        if self.categories is not None:
            return self.categories[column]
        return NumberedStates(0, self.cardinalities[column])

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

    def select(self, columns) -> "Dataset":
        """The data over ``columns``, in that order. Reordering keeps the patterns' order;
        leaving a column out merges the patterns that then agree.

        Examples
        --------
        >>> data = Dataset.from_rows(["a", "b"], [[0, 1], [1, 1], [0, 0]])
        >>> selected = data.select(["b"])
        >>> selected.names, selected.patterns.tolist(), selected.counts.tolist()
        (('b',), [[0], [1]], [1, 2])
        """
        columns = _named_columns(columns, self.names, "the data")
        order = [self.names.index(name) for name in columns]
        categories = (None if self.categories is None
                      else tuple(self.categories[j] for j in order))
        if len(order) == len(self.names):
            return Dataset(columns, self.patterns[:, order], self.counts, categories)
        # the codes' own range, not the categories': a code beyond them must stay itself, for
        # for_network to refuse it, not wrap around in the pattern keys
        return Dataset.from_rows(columns, self.patterns[:, order], None, self.counts,
                                 categories)

    def for_network(self, network) -> "Dataset":
        """Columns reordered to ``network``'s observed nodes, states checked against its ranges."""
        missing = [name for name in network.observed_names if name not in self.names]
        if missing:
            raise DataError(f"the data has no column {missing[0]!r}, an observed variable of the "
                            f"model; columns are {', '.join(self.names)}")
        data = self.select(network.observed_names)
        patterns = data.patterns
        categories = None if data.categories is None else list(data.categories)
        for column, (name, r) in enumerate(zip(network.observed_names,
                                               network.observed_cardinalities)):
            states = None if categories is None else categories[column]
            if states is not None and len(states) > r:
                raise DataError(f"column {name!r} has {len(states)} states "
                                f"({_listed(states)}) but the model gives it {r}; "
                                "give the model that many states or merge categories")
            if isinstance(states, NumberedStates) and len(states) < r:
                # the model's further states are the next whole numbers, which no case has
                categories[column] = NumberedStates(states.base, r)
            elif states is not None and len(states) < r:
                raise DataError(f"column {name!r} has {len(states)} "
                                f"state{'s' if len(states) > 1 else ''} ({_listed(states)}) "
                                f"but the model gives it {r}; "
                                + (f"give the model {len(states)}, or name the others in a "
                                   "data dictionary" if len(states) > 1 else
                                   "an observed variable needs at least 2: name the others in a "
                                   f"data dictionary ({option('--dictionary')}), or leave the "
                                   f"column out of the model ({option('--columns')})"))
            bad = np.flatnonzero(patterns[:, column] >= r)
            if bad.size:
                raise DataError(f"column {name!r} has state {patterns[bad[0], column]}, outside "
                                f"the model's range 0..{r - 1}")
        categories = None if categories is None else tuple(categories)
        return Dataset(data.names, patterns, data.counts, categories)

    def complete_cases(self) -> "Dataset":
        """The patterns without a missing cell (listwise deletion)."""
        keep = ~(self.patterns == MISSING).any(axis=1)
        return replace(self, patterns=self.patterns[keep], counts=self.counts[keep])

    def require_complete(self, what: str, fix: str | None = None) -> None:
        """Refuse missing cells where ``what`` cannot sum them out (one line, whose ``fix`` is
        by default to drop the cases with missing cells)."""
        if self.has_missing:
            fix = fix or f"drop the cases with missing cells ({option('--missing', 'drop')})"
            raise DataError(f"the data has missing cells, which {what} does not handle; {fix}")


def write_csv(path, dataset: Dataset) -> None:
    """Write ``dataset`` as CSV pattern counts: one line per pattern and a ``count`` column;
    each state as its category (:attr:`Dataset.categories`), so the file reads back as the
    same data."""
    write_rows_csv(path, dataset.names + (COUNT_COLUMN,),
                   np.column_stack([dataset.patterns, dataset.counts]),
                   None if dataset.categories is None else (*dataset.categories, None))


def write_rows_csv(path, names, rows, categories=None) -> None:
    """Write cases as CSV, one line per case in the given order (``path`` may be a stream); a
    :data:`MISSING` cell is written empty. With ``categories`` (per column, the labels of its
    codes, or None to write a column's numbers) each code is written as its label."""
    rows = np.asarray(rows)

    def save(target):
        labelled = categories is not None and any(
            labels is not None and labels != NumberedStates(0, len(labels))
            for labels in categories)
        if labelled or (rows == MISSING).any():
            rows_frame(names, rows, categories).to_csv(target, index=False, lineterminator="\n")
        else:  # the fast path of most samples
            np.savetxt(target, rows, fmt="%d", delimiter=",", header=_csv_line(names),
                       comments="")

    if hasattr(path, "write"):
        save(path)
    else:
        with atomic_output(path) as temporary:
            save(temporary)


def rows_frame(names, rows, categories=None):
    """Cases as a pandas DataFrame, one row per case and a column per name: each code as its
    label (``categories``: per column, the labels of its codes, or None for its numbers),
    a :data:`MISSING` cell as null (None for a label, ``pd.NA`` in a column of numbers,
    which is then of pandas' nullable ``Int64``). :func:`read_data` reads it, or the CSV it
    writes, back as the same cases.

    Examples
    --------
    >>> rows_frame(["smoker", "age"], [[0, 3], [1, MISSING]], [("no", "yes"), None])
      smoker   age
    0     no     3
    1    yes  <NA>
    """
    import pandas as pd

    rows = np.asarray(rows)
    categories = [None] * len(names) if categories is None else categories
    columns = {}
    for j, (name, labels) in enumerate(zip(names, categories)):
        codes = rows[:, j]
        missing = codes == MISSING
        if labels is None or isinstance(labels, NumberedStates):
            numbers = codes.astype(np.int64) + (0 if labels is None else labels.base)
            columns[name] = pd.array(np.where(missing, 0, numbers),
                                     dtype="Int64" if missing.any() else "int64")
            if missing.any():
                columns[name][missing] = pd.NA
        else:  # None last, where a MISSING code (-1) indexes
            columns[name] = np.array([*labels, None], dtype=object)[codes]
    return pd.DataFrame(columns)


def _csv_line(cells) -> str:
    """``cells`` as one CSV line (quoted where a cell holds a comma, quote or line break)."""
    line = io.StringIO()
    csv.writer(line, lineterminator="").writerow(cells)
    return line.getvalue()


@dataclass(frozen=True)
class NumberedStates(Sequence):
    """The states of a whole-number column, ``base`` to ``base + count - 1``, as text: a
    sequence like a tuple of labels, without one string per state (a column may have 2**31
    states)."""

    base: int
    count: int

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, code):
        if isinstance(code, slice):
            return tuple(self[i] for i in range(*code.indices(self.count)))
        if not -self.count <= code < self.count:
            raise IndexError(code)
        return str(self.base + code % self.count)

    def __eq__(self, other) -> bool:
        if isinstance(other, NumberedStates):
            return (self.base, self.count) == (other.base, other.count)
        return isinstance(other, (tuple, list)) and len(other) == self.count \
            and all(a == b for a, b in zip(self, other))

    __hash__ = None


def _listed(states, shown: int = 6) -> str:
    """The first ``shown`` states, comma-separated (an ellipsis for the rest)."""
    head = ", ".join(excerpt(state) if state else "''" for state in states[:shown])
    return head + (", ..." if len(states) > shown else "")


@dataclass(frozen=True)
class DataFile:
    """A data file as read by :func:`read_data`.

    Attributes
    ----------
    dataset : Dataset
        The cases to learn from, as pattern counts with their categories (without the cases
        dropped by ``missing="drop"`` or with a count of 0).
    every_case : Dataset
        Every data row of the file, missing cells included, as pattern counts.
    row_patterns : ndarray of int64, shape (rows,)
        The pattern of ``every_case`` of each data row, in file order (what a per-row output
        such as posterior class memberships is written from).
    notes : tuple of str
        What a user should know about how the file was read (dropped cases, unobserved codes).
    source : str
        Where the cells came from, as messages name it (:attr:`DataTable.source`).

    Examples
    --------
    >>> import pandas as pd
    >>> read = read_data(pd.DataFrame({"item": [1, 3, None, 3], "group": list("abba")}))
    >>> read.dataset.states(), read.dataset.n_cases
    ({'item': ['1', '2', '3'], 'group': ['a', 'b']}, 4)
    >>> read.row_patterns.tolist()  # each row's pattern of every_case
    [1, 3, 0, 2]
    >>> read.notes[0][:50]
    'whole numbers that no cell has still count as stat'
    """

    dataset: Dataset
    every_case: Dataset
    row_patterns: np.ndarray
    notes: tuple[str, ...] = ()
    source: str = "the data"

    def require_complete(self, names, what: str) -> None:
        """Refuse a missing cell in the columns ``names`` of the cases to learn from, which
        ``what`` cannot sum out: one line naming the source, the first such row and its
        column (a name that is no column is left to the binding to the model to refuse)."""
        names = [name for name in names if name in self.dataset.names]
        columns = [self.dataset.names.index(name) for name in names]
        if not (self.dataset.patterns[:, columns] == MISSING).any():
            return
        columns = [self.every_case.names.index(name) for name in names]
        cells = self.every_case.patterns[:, columns] == MISSING
        row = int(np.flatnonzero(cells.any(axis=1)[self.row_patterns])[0])
        name = names[int(np.argmax(cells[self.row_patterns[row]]))]
        raise DataError(f"{self.source}, row {row + 1}, column {name!r}: a missing cell, which "
                        f"{what} cannot sum out; fill it in, or drop the cases with missing cells "
                        f"({option('--missing', 'drop')})")



def read_csv(path, **options) -> Dataset:
    """The cases of a data file as a :class:`Dataset` (:func:`read_data` with ``options``)."""
    return read_data(path, **options).dataset


def read_data(source, dictionary=None, missing_values=DEFAULT_MISSING_VALUES,
              missing: str = "model", numeric=(), columns=None,
              base: int | None = None, ordered=()) -> DataFile:
    """Read a data file or a pandas DataFrame (see the module docstring); every malformed input
    is a one-line :class:`~hiddenbn.errors.DataError` naming the file, the row or column, and
    the fix.

    Parameters
    ----------
    source : path-like or pandas.DataFrame
        The CSV file (UTF-8; a byte-order mark is skipped), or a DataFrame with one column per
        variable (and an optional ``count`` column), read as the file it would write: a null
        cell (NaN, None, ``pd.NA``) is missing, any other cell is read as ``str`` writes it
        (``2.0`` is the state 2), and a categorical column's categories are its states in
        their order, as a data dictionary gives them (a category no row has still counts).
    dictionary : path-like or dict, optional
        A data dictionary, ``{column: [category, ...]}`` (:func:`read_dictionary`); for a
        column it names, it takes the place of a categorical column's categories.
    missing_values : sequence of str
        The cells read as missing (compared after blanks around a cell are removed).
    missing : {"model", "drop"}
        Keep missing cells (summed out by the model) or drop every case that has one.
    numeric : sequence of str
        Columns of measured numbers (the effect of a noisy-additive interaction model), not of
        states: each distinct number is a state, labelled as :func:`float` reads it back, and a
        cell that is not a decimal number is refused.
    columns : sequence of str, optional
        The columns to read, in this order (default: every column but ``count``); the others
        are not coded, so they change nothing (:meth:`DataTable.data_file`).
    base : int, optional
        The number of state 0 in every whole-number column, for files whose numbers are codes
        (``0`` for a file hiddenbn wrote); default: each column's own base.
    ordered : sequence of str
        Columns whose states are ordered (:attr:`hiddenbn.models.network.Network.ordered_names`):
        text labels there are refused unless the data dictionary orders them, as their sorted
        order would be a guess.

    Returns
    -------
    DataFile
        The cases (:attr:`DataFile.dataset`) and what a user should know about how they were
        read (:attr:`DataFile.notes`).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"smoker": ["no", "yes", None, "yes"], "cough": [0, 1, 1, 1]})
    >>> data = read_data(frame).dataset
    >>> data.states()
    {'smoker': ['no', 'yes'], 'cough': ['0', '1']}
    >>> data.n_cases, data.has_missing
    (4, True)
    """
    return read_table(source, dictionary, missing_values, missing, numeric,
                      base).data_file(columns, ordered)


def read_table(source, dictionary=None, missing_values=DEFAULT_MISSING_VALUES,
               missing: str = "model", numeric=(), base: int | None = None) -> "DataTable":
    """A data file or DataFrame parsed, its columns not yet coded: :meth:`DataTable.data_file`
    codes the columns a model is bound to, once the header has named them. The parameters are
    :func:`read_data`'s; the file and the dictionary are checked here, each column's cells
    when it is coded."""
    if missing not in MISSING_HANDLING:
        raise DataError(f"unknown handling of missing cells {missing!r}; use one of "
                        f"{', '.join(MISSING_HANDLING)}")
    if isinstance(missing_values, str):  # its characters would each be a missing value
        raise DataError(f"missing_values must be a list of cell texts, e.g. ('', 'NA'), got the "
                        f"text {missing_values!r}")
    if _is_frame(source):
        header, cells, categories = _frame_cells(source)
        source = "the DataFrame"
        missing_values = (*missing_values, "")  # a null cell (see _frame_cells)
    else:
        source = Path(source)
        header, cells = _read_table(source)
        source, categories = f"data file {source}", {}
    declared = {} if dictionary is None else (
        _checked_dictionary(dictionary, "the data dictionary") if isinstance(dictionary, dict)
        else read_dictionary(dictionary))
    categories = {name: states for name, states in categories.items() if name not in numeric}
    if categories:  # a categorical column's categories, unless the dictionary names it
        declared = {**_checked_dictionary(categories, "the DataFrame's categories"), **declared}
    unknown = [name for name in declared if name not in header]
    if unknown:
        raise DataError(f"the data dictionary names column {unknown[0]!r}, which {source} "
                        f"does not have; its columns are {_listed(header)}")
    measured = [name for name in declared if name in numeric]
    if measured:
        raise DataError(f"the data dictionary names column {measured[0]!r}, which holds "
                        "numbers, not states; take it out of the dictionary")
    counts = (_counts(source, cells.pop(header.index(COUNT_COLUMN)))
              if COUNT_COLUMN in header else None)
    names = tuple(name for name in header if name != COUNT_COLUMN)
    if not names:
        raise DataError(f"{source} has a count column but no variables; add the "
                        "columns of the variables")
    return DataTable(source, names, tuple(cells), counts, declared,
                     frozenset(value.strip() for value in missing_values), missing,
                     frozenset(numeric), base)


@dataclass(frozen=True, eq=False)
class DataTable:
    """A data file as :func:`read_table` parsed it: each column's cells as text, not yet coded.

    Attributes
    ----------
    source : str
        Where the cells come from, as messages name it: ``data file PATH`` or ``the
        DataFrame`` (whose rows are counted from 1, as a data file's).
    names : tuple of str
        The variables, in the order of the header (without the ``count`` column).
    cells : tuple of ndarray of str
        The cells of each variable, one per data row.
    counts : ndarray of int64, optional
        The ``count`` column (None: every row is one case).
    dictionary : dict
        The data dictionary, ``{column: (category, ...)}`` (empty without one).
    missing_values : frozenset of str
        The cells read as missing.
    missing : {"model", "drop"}
        What :meth:`data_file` does with missing cells.
    numeric : frozenset of str
        The columns of measured numbers, not states.
    base : int, optional
        The number of state 0 of every whole-number column (None: each column's own).
    """

    source: str
    names: tuple[str, ...]
    cells: tuple[np.ndarray, ...] = field(repr=False)
    counts: np.ndarray | None = field(repr=False)
    dictionary: dict
    missing_values: frozenset
    missing: str
    numeric: frozenset = frozenset()
    base: int | None = None

    def data_file(self, columns=None, ordered=()) -> DataFile:
        """The cases over ``columns`` (default: every variable), in that order, as a
        :class:`DataFile`. Each column is coded on its own, and a column not named is not
        coded at all: its cells change no state, no case, no note and raise no error. Text
        labels in an ``ordered`` column are refused unless the data dictionary orders them."""
        source = self.source
        columns = _named_columns(self.names if columns is None else columns, self.names, source)
        coded = [_code_numbers(source, name, self.cells[self.names.index(name)],
                               self.missing_values) if name in self.numeric else
                 _code_column(source, name, self.cells[self.names.index(name)],
                              self.dictionary.get(name), self.missing_values, self.base,
                              name in ordered)
                 for name in columns]
        categories = tuple(column.states for column in coded)
        notes = _notes(columns, coded, self.missing_values, self.base)
        # column-major: every column is written and read (pattern_counts' keys) contiguously
        rows = np.empty((coded[0].codes.size, len(coded)), dtype=np.int32, order="F")
        for j, column in enumerate(coded):
            rows[:, j] = column.codes
        self._refuse_empty_rows(rows, columns)
        counts = self.counts
        patterns, pattern_weights, row_patterns = pattern_counts(
            rows, [len(c) for c in categories], counts, return_inverse=True)
        counts = np.ones(rows.shape[0], dtype=np.int64) if counts is None else counts
        every_case = Dataset(columns, patterns, pattern_weights, categories)
        keep = counts > 0
        if self.missing == "drop":
            incomplete = (rows == MISSING).any(axis=1) & keep
            if incomplete.any():
                notes.append(for_caller(f"{int(counts[incomplete].sum())} of "
                                        f"{int(counts.sum())} cases have a missing cell and "
                                        "were dropped (listwise deletion, "
                                        f"{option('--missing', 'drop')})"))
                if incomplete.sum() == keep.sum():
                    raise DataError(f"{source}: every case has a missing cell, so "
                                    f"{option('--missing', 'drop')} leaves nothing; use "
                                    f"{option('--missing', 'model')}")
            keep &= ~incomplete
        if not keep.any():
            raise DataError(f"{source}: every count is zero; give at least one "
                            "case a count of 1 or more")
        dataset = (every_case if keep.all() else Dataset.from_rows(
            columns, rows[keep], [len(c) for c in categories], counts[keep], categories))
        return DataFile(dataset, every_case, row_patterns, tuple(notes), source)

    def _refuse_empty_rows(self, rows: np.ndarray, columns) -> None:
        """Refuse a row of the file whose every cell is missing (``rows``: the codes of the
        ``columns`` read): it says nothing and is likely a slip. A row with a cell in another
        column only is a case with nothing observed, kept as poLCA keeps one."""
        empty = np.flatnonzero((rows == MISSING).all(axis=1))
        others = [cells[empty] for name, cells in zip(self.names, self.cells)
                  if name not in columns]
        for k, row in enumerate(empty.tolist()):
            if all(cells[k].strip() in self.missing_values for cells in others):
                raise DataError(f"{self.source}, row {row + 1}: every cell is missing; "
                                "delete the row")


def read_dictionary(path) -> dict:
    """A data dictionary: a YAML mapping of column names to lists of distinct categories.

    Every entry is read as text (``yes`` stays ``yes``, ``01`` stays ``01``), and a category
    matches a cell that shows the same text or the same whole number (``1`` and ``1.0``).
    """
    import yaml  # only a dictionary needs it

    text = read_text(path, DataError, "data dictionary", MAX_DICTIONARY_BYTES)
    try:
        document = yaml.load(text, Loader=yaml_loader("BaseLoader"))  # every scalar as text
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        if getattr(err, "context", None) == ALIAS_EXPANSION:  # aliases repeating too much
            raise DataError(f"data dictionary {path}{where}: {err.problem}") from None
        if isinstance(err, yaml.constructor.ConstructorError):  # a column named twice
            raise DataError(f"data dictionary {path}{where}: {err.problem}; give each column "
                            "once") from None
        raise DataError(f"data dictionary {path}{where} is not valid YAML; write one line per "
                        "column, e.g. 'smoker: [no, yes]'") from None
    return _checked_dictionary(document, f"data dictionary {path}")


def _checked_dictionary(document, source: str) -> dict:
    """A data dictionary (file or mapping) as ``{column: (category, ...)}``, each a list of
    distinct text."""
    if not isinstance(document, dict) or not document:
        raise DataError(f"{source} must map column names to lists of categories, e.g. "
                        "'smoker: [no, yes]'")
    dictionary = {}
    for name, categories in document.items():
        if not isinstance(categories, (list, tuple)) or not categories \
                or not all(isinstance(c, str) for c in categories):
            raise DataError(f"{source}: column {excerpt(str(name))} needs a list of categories "
                            "as text, e.g. '[no, yes]'")
        categories = [c.strip() for c in categories]
        if len({state_label(c) for c in categories}) != len(categories):
            raise DataError(f"{source}: column {excerpt(str(name))} lists a category twice")
        dictionary[name] = tuple(categories)
    return dictionary


def _read_table(path: Path) -> tuple[list[str], list[np.ndarray]]:
    """The header (names without blanks around them) and each column as an array of str."""
    import pandas as pd  # its C parser reads large files at speed; only files need it

    # read once, then parsed from memory: a FIFO or standard input cannot be read again
    content = read_bytes(path, DataError, "data file", limits.DATA_BYTES_PER_TEXT_BYTE)
    skipped, separator = _preamble(path, content)
    try:
        frame = pd.read_csv(io.BytesIO(content), header=None, dtype=str, na_filter=False,
                            encoding="utf-8-sig", skip_blank_lines=True, skipinitialspace=False,
                            sep=separator, skiprows=skipped)
    except pd.errors.EmptyDataError:
        raise DataError(f"data file {path} is empty; it needs a header of variable "
                        "names") from None
    except pd.errors.ParserError as err:
        reason = " ".join(str(err).split()).removeprefix("Error tokenizing data. C error: ")
        raise DataError(f"data file {path}: {reason}; write one case per line, cells "
                        f"separated by {_SEPARATOR_NAMES[separator]}, as many as the header "
                        "has") from None
    except UnicodeDecodeError as err:
        raise not_utf8(DataError, "data file", path, err) from None
    header = [cell.strip() for cell in frame.iloc[0]]
    # after skipped lines, the header a message names is not the first line
    where = (f" (line {skipped + 1}: the lines before it, starting with '#' or 'sep=', are "
             "skipped)") * bool(skipped)
    other = next((s for s in _SEPARATOR_NAMES
                  if s != separator and len(header) == 1 and s in header[0]), None)
    if other:  # one column whose name holds another separator: not the separator of the file
        raise DataError(f"data file {path} has one column, named {excerpt(header[0])}: its cells "
                        f"seem separated by {other!r}; separate them by commas, or name the "
                        f"separator on a first line 'sep={other}' as Excel writes it")
    if not any(header):
        raise DataError(f"data file {path} is empty; it needs a header of variable names")
    if not all(header):
        raise DataError(f"data file {path}: column {header.index('') + 1} of the header{where} "
                        "has no name; name every column")
    if len(set(header)) != len(header):
        twice = next(name for name in header if header.count(name) > 1)
        raise DataError(f"data file {path}: the column name {excerpt(twice)} appears twice in "
                        f"the header{where}; give each column its own name")
    if frame.shape[0] == 1:
        raise DataError(f"data file {path} has a header{where} but no rows; add one case "
                        "per line below it")
    columns = [frame[j].to_numpy()[1:] for j in frame.columns]
    if (columns[-1] == "").any():  # pandas fills a short row with empty cells: find it
        _check_row_lengths(path, content, len(header), skipped, separator)
    return header, columns


def _is_frame(source) -> bool:
    """Whether ``source`` is a pandas DataFrame (asked without importing pandas: without it
    loaded, nothing is a DataFrame)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(source, pandas.DataFrame)


def _frame_cells(frame) -> tuple[list[str], list[np.ndarray], dict]:
    """A DataFrame's header and each column's cells as text, as :func:`_read_table` gives a
    file's, and the categories of its categorical columns as text, in their order.

    A null cell (NaN, None, ``pd.NA``, NaT) is the empty text, which :func:`read_table` reads
    as missing. Any other cell is written as ``str`` writes it, as ``DataFrame.to_csv`` would:
    a float column's whole numbers as ``2.0``, which is the state 2 (the integers of a column
    with a missing cell are floats in pandas)."""
    import pandas as pd

    header = [str(name) for name in frame.columns]
    if not header:
        raise DataError("the DataFrame has no columns; give one column per variable")
    if not all(name.strip() for name in header):
        raise DataError(f"the DataFrame's column {[n.strip() for n in header].index('') + 1} has "
                        "no name; name every column")
    if len(set(header)) != len(header):
        twice = next(name for name in header if header.count(name) > 1)
        raise DataError(f"the DataFrame has two columns named {excerpt(twice)}; give each "
                        "column its own name")
    if not len(frame):
        raise DataError("the DataFrame has no rows; give one case per row")
    cells, categories = [], {}
    for j, name in enumerate(header):
        column = frame.iloc[:, j]
        text = column.astype(str).to_numpy(dtype=object)
        text[column.isna().to_numpy()] = ""
        cells.append(text)
        if isinstance(column.dtype, pd.CategoricalDtype):
            categories[name] = [str(category) for category in column.cat.categories]
    return header, cells, categories


def _preamble(path: Path, content: bytes) -> tuple[int, str]:
    """How many lines of ``content`` precede the header, and the separator of the cells. A
    first line ``sep=;`` (as Excel writes it) names the separator; lines starting with ``#``
    before the header are comments (as R's ``read.table`` skips them); both are skipped."""
    lines = io.BytesIO(content)  # pandas would skip blank lines to a later header
    line = lines.readline().removeprefix(b"\xef\xbb\xbf")
    skipped, separator = 0, ","
    named = line.rstrip(b"\r\n").removeprefix(b'"').removesuffix(b'"')  # "sep=," too
    if named.startswith(b"sep=") and len(named) <= len(b"sep=") + 1:
        separator = named[len(b"sep="):].decode("ascii", "replace")
        if separator not in _SEPARATOR_NAMES:
            raise DataError(f"data file {path}: line 1 names the separator "
                            f"{excerpt(separator)}; separate cells by commas, semicolons, "
                            "tabs or '|'")
        skipped, line = 1, lines.readline()
    while line.startswith(b"#"):
        skipped, line = skipped + 1, lines.readline()
    if not line.strip():
        raise DataError(f"data file {path} is empty; it needs a header of variable names "
                        f"on its {'first line' if not skipped else f'line {skipped + 1}'}")
    return skipped, separator


#: The separators a data file may use (a first line ``sep=;`` names one), as messages name them.
_SEPARATOR_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "'|'"}


def _check_row_lengths(path: Path, content: bytes, width: int, skipped: int,
                       separator: str) -> None:
    """Refuse a row with fewer cells than the header. First the separators of the table are
    counted: pandas has refused every line with too many, so when no quote can hide one and
    the count is the header's times the lines, every line is whole. Else the csv module finds
    the row (quoted cells, blank lines) and its line number."""
    preamble = io.BytesIO(content)
    for _ in range(skipped):
        preamble.readline()
    raw = content[preamble.tell():]
    if b'"' not in raw:
        lines = raw.count(b"\n") + (not raw.endswith(b"\n"))
        if raw.count(separator.encode()) == (width - 1) * lines:
            return
    with text_lines(content) as handle:
        for _ in range(skipped):
            handle.readline()
        reader = csv.reader(handle, delimiter=separator)
        for record in reader:
            if record and len(record) != width and any(cell.strip() for cell in record):
                raise DataError(f"data file {path}, line {skipped + reader.line_num}: "
                                f"{len(record)} cells, but the header has {width}; write an "
                                "empty cell for a missing value")


def _whole(text: str) -> Decimal | None:
    """``text`` as a whole number (exact), or None if it is not one. A whole number is written
    in ASCII digits with an optional sign, and may have a decimal point, zeros after it and an
    exponent: ``2``, ``2.0`` (as pandas writes the integers of a column with a missing cell)
    and ``2e0`` are 2 (``int`` alone would also take ``1_000`` and other digits)."""
    if not _NUMBER.fullmatch(text):
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:  # an exponent beyond Decimal's range
        return None
    if not number:
        return Decimal(0)
    return number if number == number.to_integral_value() else None


def _integer(source: str, where: str, text: str) -> int | None:
    """``text`` as a whole number (:func:`_whole`), or None if it is not one."""
    number = _whole(text)
    if number is None:
        return None
    digits = number.adjusted() + 1 if number else 1
    if digits > _MAX_DIGITS:
        raise DataError(f"{source}, {where}: {excerpt(text)} has {digits} digits, more "
                        "than any state or count; code states 0..r-1 or 1..r")
    return int(number)


def state_label(text: str) -> str:
    """The state a cell or a dictionary category names: a whole number as its digits (``2.0``
    is ``2``), anything else as written."""
    number = _whole(text)
    if number is None or (number and number.adjusted() >= _MAX_DIGITS):
        return text
    return str(int(number))


def _counts(source: str, values: np.ndarray) -> np.ndarray:
    """The count column as int64: whole numbers from 0, adding up to at most MAX_CASES."""
    import pandas as pd

    codes, uniques = pd.factorize(values)
    numbers = []
    for text in uniques:
        number = _integer(source, "the count column", text.strip())
        if number is None or number < 0:
            row = int(np.flatnonzero(values == text)[0]) + 1
            raise DataError(f"{source}, row {row}: the count column has "
                            f"{excerpt(text.strip()) if text.strip() else 'an empty cell'}; "
                            "counts are whole numbers, 0 or more")
        numbers.append(number)
    counts = np.array(numbers, dtype=object)[codes]
    total = sum(number * int(n) for number, n in zip(numbers, np.bincount(codes)))
    if total > limits.MAX_CASES:
        raise DataError(f"{source}: the counts add up to {limits.shown(total)} cases, "
                        f"more than the {limits.MAX_CASES} hiddenbn counts exactly; split the "
                        "data set")
    return counts.astype(np.int64)


def decimal_number(text: str) -> float | None:
    """The finite number a cell writes in ASCII decimal (``30``, ``-1.5``, ``2e3``), or None
    for any other text (``float`` alone would also take ``1_0``, ``inf`` and other digits)."""
    number = float(text) if _NUMBER.fullmatch(text) else math.nan
    return number if math.isfinite(number) else None


def label_order(text: str):
    """Sort key of labels: numbers by value first, then text (R's factor level order)."""
    if _NUMBER.fullmatch(text):
        return (0, float(text), text)
    return (1, 0.0, text)


@dataclass(frozen=True)
class _Column:
    """One column as coded: codes (MISSING for a missing cell) and states, and what its notes
    say: ``numbers`` (its whole numbers, for a whole-number column, else None) and
    ``not_whole`` (the first number that is not whole and its row, when every cell is a
    number, else None); ``given`` says that its states were given (a data dictionary's, or
    the numbers of a measured column), so no note questions how many there are."""

    codes: np.ndarray
    states: Sequence[str]
    numbers: frozenset | None = None
    not_whole: tuple[str, int] | None = None
    given: bool = False


def _code_column(source: str, name: str, cells: np.ndarray, declared, missing_values,
                 base: int | None, ordered: bool = False) -> _Column:
    """Code one column, on its own: by ``declared`` (its categories in a data dictionary), as
    whole numbers from its base, or as labels (numbers by value, then text: a guess at the
    order of text, refused where the model reads the states as ``ordered``)."""
    import pandas as pd

    codes, uniques = pd.factorize(cells)
    texts = [text.strip() for text in uniques]
    present = [text for text in texts if text not in missing_values]
    if not present and declared is None:  # a dictionary's column has its states even so
        raise DataError(f"{source}: column {name!r} has only missing cells; leave the "
                        f"column out of the file (or out of {option('--columns')})")
    if declared is not None:
        read_as_missing = [label for label in declared if label in missing_values]
        if read_as_missing:
            label = read_as_missing[0]
            raise DataError(f"data dictionary: column {name!r} lists "
                            f"{excerpt(label) if label else 'an empty category'}, which is "
                            "read as a missing cell; take it out of the list, or leave it out "
                            f"of the missing values ({option('--missing-values')})")
        position = {state_label(label): s for s, label in enumerate(declared)}
        absent = [text for text in present if state_label(text) not in position]
        if absent:
            raise DataError(f"{source}: column {name!r} has {excerpt(absent[0])}, which "
                            f"is not one of its categories in the data dictionary "
                            f"({_listed(declared)}); add it there or write it as missing")
        return _Column(_lookup(codes, texts,
                               {text: position[state_label(text)] for text in present}),
                       tuple(declared), given=True)
    numbers = {text: _integer(source, f"column {name!r}", text) for text in present}
    if all(number is not None for number in numbers.values()):
        smallest, top = min(numbers.values()), max(numbers.values())
        first = min(smallest, 1) if base is None else base
        if smallest < first:
            raise DataError(f"{source}, column {name!r}: {smallest} is below {first}, "
                            "the number of the first state; code states from 0 or 1, or "
                            "write the others as missing")
        if top - first + 1 > limits.MAX_STATES:
            raise DataError(f"{source}, column {name!r}: {limits.shown(top)} is not a "
                            f"state of a variable with at most {limits.MAX_STATES} states; code "
                            "states 0..r-1 or 1..r")
        position = {text: number - first for text, number in numbers.items()}
        return _Column(_lookup(codes, texts, position),
                       NumberedStates(first, top - first + 1), frozenset(numbers.values()))
    states = sorted({state_label(text) for text in present}, key=label_order)
    _refuse_one_number_written_twice(source, name, states)
    if ordered and not all(_NUMBER.fullmatch(label) for label in states):
        raise DataError(f"{source}, column {name!r}: the model takes a max or sum of "
                        f"its states, so their order matters, and labels ({_listed(states)}) "
                        f"do not give it; give the order in a data dictionary "
                        f"({option('--dictionary')}, a "
                        f"line '{name}: [first, second, ...]'), or code the states as numbers")
    not_whole = None
    if all(_NUMBER.fullmatch(text) for text in present):
        text = next(text for text in texts if text in numbers and numbers[text] is None)
        not_whole = (text, int(np.flatnonzero(codes == texts.index(text))[0]) + 1)
    position = {label: s for s, label in enumerate(states)}
    return _Column(_lookup(codes, texts, {text: position[state_label(text)] for text in present}),
                   tuple(states), not_whole=not_whole)


def _code_numbers(source: str, name: str, values: np.ndarray, missing_values) -> _Column:
    """Code a column of measured numbers: each distinct number one state (``1`` and ``1.0``
    the same), in increasing order, labelled as :func:`float` writes it; a cell that is not a
    finite decimal number is refused, naming its row."""
    import pandas as pd

    codes, uniques = pd.factorize(values)
    texts = [text.strip() for text in uniques]
    numbers = {}
    for k, text in enumerate(texts):
        if text in missing_values:
            continue
        number = decimal_number(text)
        if number is None:
            row = int(np.flatnonzero(codes == k)[0]) + 1
            raise DataError(f"{source}, row {row}, column {name!r}: {excerpt(text)} is "
                            "not a number; write a decimal number, or an empty cell for a "
                            "missing one")
        numbers[text] = number
    if not numbers:
        raise DataError(f"{source}: column {name!r} has only missing cells; give its "
                        "numbers")
    states = sorted(set(numbers.values()))
    position = {number: s for s, number in enumerate(states)}
    lookup = np.array([position[numbers[text]] if text in numbers else MISSING
                       for text in texts], dtype=np.int64)
    return _Column(lookup[codes], tuple(repr(number) for number in states), given=True)


def _lookup(codes: np.ndarray, texts, position: dict) -> np.ndarray:
    """The code of every cell: ``codes`` index ``texts``, whose codes ``position`` gives (a
    text it lacks is missing)."""
    return np.array([position.get(text, MISSING) for text in texts], dtype=np.int64)[codes]


def _notes(names, coded, missing_values, base: int | None) -> list[str]:
    """What a user should know about how the columns ``names`` (coded as ``coded``) were read:
    states no cell has, cells usually missing read as states, and columns that look like
    measurements or identifiers rather than categories; each names an option as the caller
    wrote it (:func:`~hiddenbn.errors.for_caller`)."""
    notes = []
    gaps = [f"{name!r} ({unused} of {min(column.numbers)}..{max(column.numbers)})"
            for name, column in zip(names, coded) if column.numbers is not None
            for unused in [max(column.numbers) - min(column.numbers) + 1 - len(column.numbers)]
            if unused]
    if gaps:
        notes.append(for_caller(f"whole numbers that no cell has still count as states, in "
                                f"column{'s' if len(gaps) > 1 else ''} {', '.join(gaps[:3])}"
                                f"{', ...' if len(gaps) > 3 else ''}. If a number stands for "
                                "a missing answer (such as -9 or 99), add it to the missing "
                                f"values ({option('--missing-values')}); a data dictionary "
                                "fixes a column's states"))
    unseen = [name for name, column in zip(names, coded)
              if column.numbers is not None and min(column.numbers) > column.states.base]
    if unseen:
        first = ("from 1 up, or from a column's smallest number below 1" if base is None
                 else f"from {base} up")
        notes.append(f"whole-number states are read {first}; no cell of {_listed(unseen)} is "
                     f"{'1' if base is None else base}: give their categories in a data "
                     "dictionary if they start elsewhere")
    notes += [f"column {name!r} is read as a variable; name it {COUNT_COLUMN!r} if it counts "
              "the cases of each row" for name in names if name.lower() == COUNT_COLUMN]
    usually_missing = set(DEFAULT_MISSING_VALUES) - missing_values
    as_states = [f"{name!r} ({', '.join(repr(t) for t in sorted(usually_missing & set(states)))})"
                 for name, states in zip(names, (column.states for column in coded))
                 if not isinstance(states, NumberedStates) and usually_missing & set(states)]
    if as_states:
        notes.append(f"cells usually read as missing are states here, as the missing values "
                     f"given leave them out: {', '.join(as_states[:3])}"
                     f"{', ...' if len(as_states) > 3 else ''}; list them with the others if "
                     "they mean a missing answer")
    # "leave the column out" names no option: LatentClassModel, which warns with these notes,
    # reads the columns it is given and has no ``columns``
    for name, column in zip(names, coded):
        if column.not_whole is not None:
            text, row = column.not_whole
            notes.append(f"column {name!r} holds numbers that are not whole ({excerpt(text)} in "
                         f"row {row}), so each of its {len(column.states)} distinct values is a "
                         "state; if it is a measurement, bin it into a few categories or leave "
                         "the column out")
        elif len(column.states) > USUAL_MAX_STATES and not column.given:
            kind = (f"whole numbers {column.states[0]}..{column.states[-1]}"
                    if column.numbers is not None else "distinct labels")
            notes.append(f"column {name!r} has {len(column.states)} states ({kind}), more than "
                         f"the {USUAL_MAX_STATES} a categorical variable usually has; if it is "
                         "an identifier or a measurement, leave the column out or bin it into "
                         "a few categories")
    return notes


def _refuse_one_number_written_twice(source: str, name: str, labels) -> None:
    """Refuse labels that are one number written two ways (``1.5`` and ``1.50``): as two
    states they would split the cases of one answer. (Whole numbers have one label each.)"""
    numbers = {}
    for label in labels:
        if _NUMBER.fullmatch(label):
            other = numbers.setdefault(float(label), label)
            if other != label:
                raise DataError(f"{source}: column {name!r} has both {excerpt(other)} "
                                f"and {excerpt(label)}, one number written two ways; write "
                                "each state one way")

