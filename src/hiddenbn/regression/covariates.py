"""The covariate design matrix of a latent class regression.

A covariate is a column of the data file (or DataFrame) read as the items are read
(:func:`hiddenbn.data.dataset.read_table`: the same missing values, the same labels). It is

* **numeric** when every present cell is a decimal number: one column of the matrix, named as
  the covariate (``age``);
* **categorical** when it is named in ``categorical``, has levels (from a data dictionary, a
  pandas categorical column or ``levels``: the first level is the reference), or no cell is a
  number (levels sorted as R's ``factor`` sorts them, numbers by value then text: the first is
  the reference). It is dummy-coded, one column per level but the reference, named
  ``covariate=level`` (``sex=M``).

The matrix starts with a column of ones, ``(intercept)``. A row with a missing covariate is
dropped (:attr:`CovariateDesign.kept`, :attr:`CovariateDesign.dropped`). A column mixing
numbers and text (the odd cell named as text among numbers or a number among labels, by what
most cells are), a covariate that is constant or has only missing cells, a categorical one
with a different level in (nearly) every row (an identifier), covariates that are collinear,
too few rows, or a covariate that is also an item are each refused in one line naming the
column and the fix (:class:`~hiddenbn.errors.DataError`); a message names at most five
columns or levels.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from hiddenbn.data.dataset import (DataTable, decimal_number, label_order, read_table,
                                   state_label)
from hiddenbn.errors import DataError, excerpt, first_named, option
from hiddenbn.util.defaults import DEFAULT_MISSING_VALUES

#: The name of the matrix's column of ones.
INTERCEPT = "(intercept)"
#: The smallest singular value of the matrix (columns scaled to unit length), relative to the
#: largest, below which its columns are read as collinear: past it, standard errors are more
#: than 10^8 times those of unrelated covariates, and the coefficients a matter of rounding.
COLLINEARITY_TOLERANCE = 1e-8
#: A categorical covariate with at least this share of the rows used as levels has a
#: different level in (nearly) every row: an identifier, whose dummies would fit each row alone.
IDENTIFIER_SHARE = 0.9
#: The fewest rows in which a numeric covariate holding distinct consecutive whole numbers is
#: noted as a row number or identifier: by chance a measurement (an age, a count) takes a new
#: value one apart in every row only in a handful of rows.
ROW_NUMBER_MIN_ROWS = 10
#: The variance inflation factor above which covariate columns are noted as nearly collinear:
#: a covariate's standard error is sqrt(VIF) times what it would be were it uncorrelated with
#: the others, so past 10^4 it is 100 times larger and its odds ratio an extrapolation along a
#: direction the data barely span (the rule of thumb of 10 flags ordinary designs too often).
VARIANCE_INFLATION_LIMIT = 1e4
#: How far a numeric covariate's value may lie from the column's median, in robust standard
#: deviations (1.4826 median absolute deviations). The standard deviation then grows with the
#: outlier, and the other rows' standardised values shrink to about 1 / (its distance): past
#: 10^6 they near the 1e-7 tolerance of the separation check's linear program, which takes the
#: outlier's row for separated (a value 10^9 from ages of 20-70 did), and the one value would
#: decide the fit on its own.
OUTLIER_LIMIT = 1e6


@dataclass(frozen=True)
class CovariateDesign:
    """The covariates of a latent class regression as a design matrix.

    Attributes
    ----------
    names : tuple of str
        The matrix's columns: ``(intercept)``, then each covariate in the order given, a
        numeric one as its name (``age``), a categorical one as one column per level but the
        reference, ``covariate=level`` (``sex=M``).
    covariates : tuple of str
        The data columns, in the order given.
    levels : dict
        Each categorical covariate's levels that rows have, the reference first.
    references : dict
        Each categorical covariate's reference level (whose log odds the intercept carries).
    matrix : ndarray of float64, shape (n_kept, p)
        One row per kept data row, first column ones.
    kept : ndarray of bool, shape (rows,)
        Which data rows have every covariate (the rows of :attr:`matrix`, in order).
    dropped : int
        How many data rows were dropped for a missing covariate.
    notes : tuple of str
        What a user should know: the rows dropped, levels no kept row has.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"age": [30, 41, None, 52, 23], "sex": list("FMMFM")})
    >>> design = covariate_design(frame, ["age", "sex"])
    >>> design.names, design.references, design.dropped
    (('(intercept)', 'age', 'sex=M'), {'sex': 'F'}, 1)
    >>> design.rows([{"age": 30, "sex": "M"}]).tolist()
    [[1.0, 30.0, 1.0]]
    """

    names: tuple[str, ...]
    covariates: tuple[str, ...]
    levels: dict
    references: dict
    matrix: np.ndarray
    kept: np.ndarray
    dropped: int
    notes: tuple[str, ...] = ()

    def rows(self, values) -> np.ndarray:
        """Design rows at chosen covariate values (for predicted class probabilities).

        Parameters
        ----------
        values : mapping or sequence of mappings
            ``{covariate: value}`` giving every covariate: a number for a numeric one, a level
            for a categorical one (``{"age": 30, "sex": "M"}``).

        Returns
        -------
        ndarray of float64, shape (len(values), p)
            One row of the matrix per mapping, columns as :attr:`names`.
        """
        values = [values] if isinstance(values, Mapping) else list(values)
        rows = np.zeros((len(values), len(self.names)))
        rows[:, 0] = 1.0
        for i, given in enumerate(values):
            unknown = [name for name in given if name not in self.covariates]
            if unknown:
                raise DataError(f"{unknown[0]!r} is not a covariate of the model; the "
                                f"covariates are {first_named(self.covariates)}")
            absent = [name for name in self.covariates if name not in given]
            if absent:
                raise DataError(f"no value of covariate {absent[0]!r}; give a value of every "
                                f"covariate ({first_named(self.covariates)})")
            for name, value in given.items():
                if name in self.levels:
                    level = state_label(str(value).strip())
                    if level not in self.levels[name]:
                        raise DataError(f"covariate {name!r} has no level {excerpt(level)}; "
                                        f"its levels are {first_named(self.levels[name])}")
                    if level != self.references[name]:
                        rows[i, self.names.index(f"{name}={level}")] = 1.0
                else:
                    number = decimal_number(str(value).strip())
                    if number is None:
                        raise DataError(f"covariate {name!r} is numeric, and "
                                        f"{excerpt(str(value))} is not a number; give a number")
                    rows[i, self.names.index(name)] = number
        return rows


def covariate_design(frame, covariates, *, categorical=(), levels=None, items=(),
                     missing_values=DEFAULT_MISSING_VALUES) -> CovariateDesign:
    """The design matrix of ``covariates``, read from the cells of a data file or DataFrame.

    Parameters
    ----------
    frame : pandas.DataFrame or hiddenbn.data.DataTable
        The data: a DataFrame (read as :func:`hiddenbn.data.read_data` reads one: a null cell
        is missing, a categorical column's categories are its levels), or a data file as
        :func:`hiddenbn.data.read_table` parsed it (its missing values and data dictionary).
    covariates : sequence of str or str
        The covariate columns (a string: names separated by commas, as ``--covariates``).
    categorical : sequence of str
        Covariates read as categorical even where every cell is a number (a group coded 1..4).
    levels : dict, optional
        ``{covariate: [level, ...]}``: the levels of categorical covariates in order, the first
        the reference (a data dictionary; names that are no covariate are ignored). It takes
        the place of the data dictionary's and a categorical column's.
    items : sequence of str
        The items of the measurement model: a covariate may not be one.
    missing_values : sequence of str
        The cells read as missing, for a DataFrame (a DataTable has its own).

    Returns
    -------
    CovariateDesign
        The matrix over the rows that have every covariate.
    """
    table = frame if isinstance(frame, DataTable) else read_table(
        frame, missing_values=missing_values)
    covariates = _names(covariates)
    _check_names(table, covariates, categorical, items)
    declared = {**table.dictionary, **(levels or {})}
    columns = [_read_column(table, name, declared.get(name), name in categorical)
               for name in covariates]
    kept = np.ones(len(table.cells[0]), dtype=bool)
    for values, _ in columns:
        kept &= ~_missing(values)
    dropped = int((~kept).sum())
    if not kept.any():
        raise DataError(f"{table.source}: no row has every covariate "
                        f"({first_named(covariates)}); fill in the missing cells or leave a "
                        "covariate out")
    names, blocks, chosen, references, notes = [INTERCEPT], [np.ones(int(kept.sum()))], {}, {}, []
    for name, (values, given_levels) in zip(covariates, columns):
        values = values[kept]
        if given_levels is None:
            if np.ptp(values) == 0:
                raise DataError(f"{table.source}: covariate {name!r} is {values[0]:g} in every "
                                "row used, a constant, which the intercept already is; leave "
                                "it out of the covariates")
            _check_outlier(table.source, name, values, np.flatnonzero(kept))
            if _row_numbers(values):
                notes.append(f"covariate {name!r} holds the whole numbers {values.min():g}.."
                             f"{values.max():g}, a different one in every row used, as a row "
                             "number or an identifier does; if it is one, leave it out of the "
                             "covariates (its coefficient would fit the rows' order)")
            names.append(name)
            blocks.append(values.astype(float))
            continue
        present = [level for level in given_levels if (values == level).any()]
        if len(present) < 2:
            raise DataError(f"{table.source}: covariate {name!r} is {excerpt(present[0])} in "
                            "every row used, a constant, which the intercept already is; leave "
                            "it out of the covariates")
        if len(present) > 2 and len(present) >= IDENTIFIER_SHARE * values.size:
            raise DataError(f"{table.source}: covariate {name!r} has {len(present)} levels in "
                            f"{values.size} rows used, a different one in (nearly) every row: "
                            "an identifier, not a covariate; leave it out of the covariates")
        unused = [level for level in given_levels if level not in present]
        if unused:
            notes.append(f"covariate {name!r} has no row at level"
                         f"{'s' if len(unused) > 1 else ''} {first_named(map(repr, unused))}, "
                         f"which get no coefficient; its reference level is {present[0]!r}")
        chosen[name], references[name] = tuple(present), present[0]
        for level in present[1:]:
            names.append(f"{name}={level}")
            blocks.append((values == level).astype(float))
    matrix = np.column_stack(blocks)
    if matrix.shape[0] <= matrix.shape[1]:
        raise DataError(f"{table.source}: {matrix.shape[0]} row"
                        f"{'s have' if matrix.shape[0] > 1 else ' has'} every covariate, not "
                        f"more than the {matrix.shape[1]} coefficients per class of the model "
                        f"({first_named(names)}); give more rows or fewer covariates")
    _check_rank(table.source, matrix, names)
    notes += _near_collinearity(matrix, names)
    if dropped:
        notes.insert(0, f"{dropped} of {kept.size} rows have a missing covariate and were "
                        "dropped")
    return CovariateDesign(tuple(names), tuple(covariates), chosen, references, matrix, kept,
                           dropped, tuple(notes))


def _names(covariates) -> list[str]:
    """The covariates as a list of names (a string: names separated by commas)."""
    if isinstance(covariates, str):
        covariates = covariates.split(",")
    return [str(name).strip() for name in covariates]


def _check_names(table: DataTable, covariates, categorical, items) -> None:
    """Refuse no covariate, a covariate named twice, one that is no column or is an item,
    and a categorical one that is no covariate."""
    if not covariates or not all(covariates):
        raise DataError("no covariate is named; name each covariate column, e.g. 'age,sex'")
    twice = [name for name in covariates if covariates.count(name) > 1]
    if twice:
        raise DataError(f"covariate {twice[0]!r} is named twice; name each covariate once")
    for name in covariates:
        if name not in table.names:
            raise DataError(f"{table.source} has no column {name!r}, named as a covariate; its "
                            f"columns are {first_named(table.names)}")
        if name in items:
            raise DataError(f"column {name!r} is both an item and a covariate; a covariate "
                            "predicts class membership and is not measured by the classes: "
                            "name it as one or the other")
    stray = [name for name in categorical if name not in covariates]
    if stray:
        raise DataError(f"{stray[0]!r} is named categorical but is not a covariate; add it to "
                        "the covariates or take it out of the categorical ones")


def _missing(values: np.ndarray) -> np.ndarray:
    """Which cells of a coded column (:func:`_read_column`) are missing."""
    return np.isnan(values) if values.dtype.kind == "f" else values == None  # noqa: E711


def _read_column(table: DataTable, name: str, declared, categorical: bool):
    """A covariate's cells: ``(numbers, None)`` for a numeric one (NaN where missing), or
    ``(labels, levels)`` for a categorical one (None where missing; levels in order, the
    first the reference)."""
    cells = np.array([text.strip() for text in table.cells[table.names.index(name)]],
                     dtype=object)
    present = np.array([text not in table.missing_values for text in cells])
    if not present.any():
        raise DataError(f"{table.source}: covariate {name!r} has only missing cells; fill it "
                        "in or leave it out of the covariates")
    numbers = {text: decimal_number(text) for text in set(cells[present])}
    if declared is None and not categorical:
        is_number = np.array([ok and numbers[text] is not None
                              for text, ok in zip(cells, present)])
        is_text = present & ~is_number
        if not is_text.any():
            return np.array([numbers[text] if ok else np.nan
                             for text, ok in zip(cells, present)], dtype=float), None
        if is_number.any():
            # a mixed column is read as what most of its cells are, and the odd cell named
            row = int(np.flatnonzero(is_text if is_number.sum() > is_text.sum()
                                     else is_number)[0])
            where = f"{table.source}, row {row + 1}, column {name!r}: {excerpt(cells[row])}"
            if is_number.sum() > is_text.sum():
                raise DataError(f"{where} is text where a number is expected (most of the "
                                "column's cells are numbers); write a number or an empty cell "
                                "for a missing one, or name the covariate categorical "
                                f"({option('--categorical')}) to keep its labels as levels")
            raise DataError(f"{where} is a number among text labels; correct the cell, or "
                            f"name the covariate categorical ({option('--categorical')}) to keep "
                            f"{excerpt(cells[row])} as a level")
    labels = np.array([state_label(text) if ok else None for text, ok in zip(cells, present)],
                      dtype=object)
    if declared is None:
        return labels, tuple(sorted(set(labels[present]), key=label_order))
    declared = tuple(state_label(str(level).strip()) for level in declared)
    outside = [label for label in labels[present] if label not in declared]
    if outside:
        raise DataError(f"{table.source}: covariate {name!r} has {excerpt(outside[0])}, which "
                        f"is not one of its levels ({first_named(declared)}); add it to the "
                        "levels or write it as missing")
    return labels, declared


def _row_numbers(values: np.ndarray) -> bool:
    """Whether a numeric covariate's values are distinct consecutive whole numbers in at least
    :data:`ROW_NUMBER_MIN_ROWS` rows, as a row number or a numeric identifier is: read as a
    measurement, it would pass every other check."""
    if values.size < ROW_NUMBER_MIN_ROWS or np.any(values != np.round(values)):
        return False
    return bool(np.all(np.diff(np.sort(values)) == 1))


def _check_rank(source: str, matrix: np.ndarray, names) -> None:
    """Refuse collinear columns, naming them: the columns with weight in a right singular
    vector of a singular value below :data:`COLLINEARITY_TOLERANCE` (columns scaled to unit
    length, so their units do not matter) are a linear combination that is (nearly) zero."""
    scaled = matrix / np.abs(matrix).max(axis=0)  # first: a far outlier's square overflows
    scaled /= np.linalg.norm(scaled, axis=0)
    _, singular, right = np.linalg.svd(scaled, full_matrices=False)
    if singular[-1] >= COLLINEARITY_TOLERANCE * singular[0]:
        return
    null = right[-1]
    involved = [name for name, weight in zip(names, null) if abs(weight) > 1e-6]
    raise DataError(f"{source}: the covariate columns {first_named(involved)} are collinear (one "
                    "is a linear combination of the others in the rows used), so their "
                    "coefficients are not identified; leave one of them out")


def _near_collinearity(matrix: np.ndarray, names) -> list[str]:
    """A note naming the columns whose variance inflation factor (the diagonal of the inverse
    correlation matrix of the columns but the intercept) is above
    :data:`VARIANCE_INFLATION_LIMIT`, if any."""
    if matrix.shape[1] < 3:
        return []
    centred = matrix[:, 1:] - np.median(matrix[:, 1:], axis=0)
    centred /= np.abs(centred).max(axis=0)  # no overflow from a far outlier
    centred -= centred.mean(axis=0)
    unit = centred / np.linalg.norm(centred, axis=0)
    inflation = np.diag(np.linalg.inv(unit.T @ unit))
    high = [(name, value) for name, value in zip(names[1:], inflation)
            if value > VARIANCE_INFLATION_LIMIT]
    if not high:
        return []
    return [f"the covariate columns {first_named([name for name, _ in high])} are nearly "
            f"collinear (variance inflation factors "
            f"{first_named(f'{value:.3g}' for _, value in high)}, above "
            f"{VARIANCE_INFLATION_LIMIT:g}: their standard errors are over "
            f"{VARIANCE_INFLATION_LIMIT ** 0.5:g} times those of uncorrelated covariates, and "
            "their odds ratios extrapolate); leave one of them out or combine them"]


def _check_outlier(source: str, name: str, values: np.ndarray, rows: np.ndarray) -> None:
    """Refuse a value more than :data:`OUTLIER_LIMIT` robust standard deviations from the
    median of a numeric covariate (``values`` of the data rows ``rows``), naming its row."""
    distance = np.abs(values - np.median(values))
    spread = np.median(distance)
    spread = 1.4826 * spread if spread > 0 else distance.mean()  # most rows at the median
    far = int(np.argmax(distance))
    if distance[far] > OUTLIER_LIMIT * spread:
        raise DataError(f"{source}, row {rows[far] + 1}, column {name!r}: {values[far]:g} is "
                        f"{distance[far] / spread:.3g} robust standard deviations from the "
                        f"column's median, past the {OUTLIER_LIMIT:g} beyond which the fit "
                        "cannot tell the other rows apart beside it; correct the value, "
                        "write it as missing, or transform the covariate (its logarithm)")
