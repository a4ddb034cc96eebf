"""Fuzzing the input readers: generated malformed specs, data files and parameter files.

The promise under test: the spec parser (:func:`~hiddenbn.models.spec.parse_spec`), the data reader
(:func:`~hiddenbn.data.read_csv`) and the parameter-file reader
(:func:`~hiddenbn.models.network.load_parameters`) answer any input with a valid result or a
:class:`~hiddenbn.errors.HiddenbnError` (one line); any other exception would be a traceback at
the command line and fails the test. Valid results are checked too: data states read back
exactly, whatever their size. And generated data files show the properties of the reader's
coding: each column is coded alone, a column the model is not bound to changes nothing (not
the fit either), a whole number reads the same in any spelling (``1``, ``1.0``), and every
missing-value spelling is an empty cell.

Every test is derandomized (the same cases on every run, so CI is reproducible), has no
deadline (the machine may be busy) and keeps no example database. The budget is the sum of
the ``max_examples`` below, 2050 cases, which run in about 30 s on two busy cores.
"""

import contextlib
import csv
import io
import json
import re
import string
from fractions import Fraction

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hiddenbn.cli import main
from hiddenbn.data import MISSING, read_csv, read_data
from hiddenbn.errors import HiddenbnError
from hiddenbn.models.network import load_parameters
from hiddenbn.models.spec import NODE_KEYS, parse_spec
from hiddenbn.util.defaults import DEFAULT_MISSING_VALUES
from hiddenbn.util import limits


def fuzz(max_examples: int):
    """The settings of every test here (see the module docstring)."""
    return settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """One folder for the module's files (hypothesis reruns a test, not its fixtures)."""
    return tmp_path_factory.mktemp("fuzz")


def valid_or_hiddenbn_error(function, *args):
    """``function(*args)``, or None when it raises a HiddenbnError (any other error fails)."""
    try:
        return function(*args)
    except HiddenbnError as err:
        assert "\n" not in str(err)
        return None


# --- building blocks --------------------------------------------------------------------------
#: Numbers around every boundary the readers check: signs, int32 and int64, 4300 digits.
edge_integers = st.one_of(
    st.integers(-3, 12),
    st.sampled_from([2**31 - 2, 2**31 - 1, 2**31, 2**32 + 1, 2**53, 2**53 + 1, 2**63, 2**64,
                     -2**31, -2**63 - 1, 10**30, 10**400]),
    st.integers(-10**40, 10**40))
#: Cells a spreadsheet or a typo could put in a data file.
odd_cells = st.sampled_from(["", " ", "1.5", "1e3", "1_0", "+1", " 2 ", "0x1", "nan", "\u0663",
                             "\uff11", "1\u00a0", "-0", "\x00", "9" * 5000, "\"1\"", "\ufeff1"])
cells = st.one_of(edge_integers.map(str), odd_cells, st.text(max_size=4))
names = st.text(alphabet=string.ascii_letters + "_ \ufeff,\"", min_size=0, max_size=4)
leaf_values = st.one_of(st.none(), st.booleans(), edge_integers, st.floats(),
                        st.text(max_size=6))
json_values = st.recursive(leaf_values, lambda children: st.one_of(
    st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=4)),
    max_leaves=20)


# --- the spec parser --------------------------------------------------------------------------
@fuzz(300)
@given(st.text(max_size=80))
def test_any_text_is_a_spec_or_a_spec_error(text):
    valid_or_hiddenbn_error(parse_spec, text)


shorthand_text = st.lists(st.one_of(edge_integers.map(str), st.sampled_from(
    ["(", ")", ",", ":", " ", "\u00b2", "\u0663", "_", "-", "9" * 5000])), max_size=40).map("".join)


@fuzz(300)
@given(shorthand_text)
def test_near_valid_shorthands_parse_or_fail_cleanly(text):
    network = valid_or_hiddenbn_error(parse_spec, text)
    if network is not None:
        assert max(network.cardinalities) <= limits.MAX_STATES


node_names = st.sampled_from(["A", "B", "C", "H"])
node_entries = st.dictionaries(
    st.one_of(st.sampled_from(NODE_KEYS), st.text(max_size=3), st.integers(0, 3)),
    st.one_of(edge_integers, st.booleans(), st.none(), st.sampled_from(["max", "sum", "min"]),
              st.lists(st.one_of(node_names, edge_integers), max_size=3), node_names),
    max_size=4)
spec_documents = st.fixed_dictionaries(
    {"nodes": st.one_of(st.dictionaries(node_names, st.one_of(node_entries, json_values),
                                        max_size=4), json_values)},
    optional={"type": st.one_of(st.sampled_from(["discrete", "gaussian", "sigmoid"]),
                                json_values)})


@fuzz(300)
@given(spec_documents)
def test_near_valid_spec_documents_parse_or_fail_cleanly(document):
    valid_or_hiddenbn_error(parse_spec, document)


@fuzz(150)
@given(spec_documents, st.sampled_from([".yaml", ".json"]), st.integers(0, 200),
       st.binary(max_size=3), st.booleans())
def test_spec_files_parse_or_fail_cleanly(folder, document, suffix, cut, noise, bom):
    text = json.dumps(document) if suffix == ".json" else yaml.safe_dump(document)
    raw = text.encode()[:cut] + noise + text.encode()[cut:]
    path = folder / f"spec{suffix}"
    path.write_bytes(b"\xef\xbb\xbf" * bom + raw)
    valid_or_hiddenbn_error(parse_spec, path)


# --- the data reader --------------------------------------------------------------------------
@fuzz(150)
@given(st.binary(max_size=200))
def test_any_bytes_are_data_or_a_data_error(folder, content):
    path = folder / "bytes.csv"
    path.write_bytes(content)
    valid_or_hiddenbn_error(read_csv, path)


def cases_as_read(dataset) -> list:
    """Every case of ``dataset`` as the cells it was read from: a whole number for a state
    that is one, the label otherwise, None for a missing cell."""
    def cell(column, code):
        if code == MISSING:
            return None
        return whole_number(dataset.categories[column][code])
    return sorted((tuple(cell(j, code) for j, code in enumerate(row)) for row in
                   dataset.rows().tolist()), key=repr)


#: A number as data.py reads one: ASCII digits, a sign, a point, an exponent (``float`` alone
#: takes more: ``1_0``, other digits, ``inf``).
ASCII_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def whole_number(text: str):
    """``text`` as an int if it is a whole number (``2``, ``2.0``, ``2e0``), else as it is."""
    if not ASCII_NUMBER.fullmatch(text):
        return text
    value = Fraction(text)
    return int(value) if value.denominator == 1 else text


def tables_of_cells(width: int):
    """A header of ``width`` names and rows of ``width`` small states, then up to two cells
    replaced by any cell and maybe a row of another width: near-valid data files."""
    rows = st.lists(st.lists(st.integers(0, 3).map(str), min_size=width, max_size=width),
                    min_size=1, max_size=6)
    defects = st.lists(st.tuples(st.integers(0, 5), st.integers(0, width - 1), cells),
                       max_size=2)
    ragged = st.lists(st.lists(cells, max_size=width + 1), max_size=1)
    return st.tuples(st.lists(names, min_size=width, max_size=width, unique=True), rows,
                     defects, ragged).map(_with_defects)


def _with_defects(table):
    header, rows, defects, ragged = table
    for row, column, cell in defects:
        rows[row % len(rows)][column] = cell
    return header, rows + ragged


@fuzz(300)
@given(st.integers(1, 4).flatmap(tables_of_cells), st.booleans(),
       st.sampled_from(["\n", "\r\n"]))
def test_malformed_csv_is_data_or_a_data_error(folder, table, bom, newline):
    header, rows = table
    text = newline.join(",".join(row) for row in [header, *rows]) + newline
    path = folder / "cells.csv"
    path.write_bytes(b"\xef\xbb\xbf" * bom + text.encode())
    dataset = valid_or_hiddenbn_error(read_csv, path)
    if dataset is not None:  # accepted: every case is a row of the file, read cell by cell
        # pandas skips a line of blanks alone (a line of commas is a row of missing cells)
        records = [r for r in list(csv.reader(io.StringIO(text, newline="")))[1:]
                   if len(r) > 1 or any(cell.strip() for cell in r)]

        def as_read(cell):
            cell = cell.strip()
            if cell in DEFAULT_MISSING_VALUES:
                return None
            return whole_number(cell)
        assert cases_as_read(dataset) == sorted((tuple(map(as_read, record))
                                                 for record in records), key=repr)
        assert dataset.patterns.dtype == np.int32 and dataset.counts.dtype == np.int64
        assert dataset.patterns.min() >= MISSING and dataset.counts.min() > 0


states = st.integers(0, limits.MAX_STATES - 2)


@fuzz(100)
@given(st.integers(1, 4).flatmap(lambda width: st.lists(
           st.lists(st.one_of(st.integers(0, 3), states), min_size=width, max_size=width),
           min_size=1, max_size=8)),
       st.booleans())
def test_valid_states_of_any_size_are_read_back_exactly(folder, rows, bom):
    header = [f"X{j}" for j in range(len(rows[0]))]
    text = "\n".join(",".join(map(str, row)) for row in [header, *rows]) + "\n"
    path = folder / "valid.csv"
    path.write_bytes(b"\xef\xbb\xbf" * bom + text.encode())
    dataset = read_csv(path)
    assert dataset.names == tuple(header)
    assert cases_as_read(dataset) == sorted(map(tuple, rows), key=repr)


# --- the data reader: properties of the coding ------------------------------------------------
#: Cells of categorical columns as people write them: codes from -9, labels, whole numbers
#: written as floats, numbers that are not whole, missing cells.
category_cells = st.one_of(st.integers(-9, 40).map(str), st.sampled_from(
    ["", "NA", "nan", "yes", "no", "2.0", "7.00", "2.5", "1e1", "x y"]))


def table_columns(cells, width=st.integers(1, 4), rows=st.integers(1, 8)):
    """Columns of cells (a list per column, all as long), ``width`` of them."""
    return st.tuples(width, rows).flatmap(lambda shape: st.lists(
        st.lists(cells, min_size=shape[1], max_size=shape[1]),
        min_size=shape[0], max_size=shape[0]))


def write_columns(path, names, columns):
    """A CSV file of ``columns`` (lists of cells) under the header ``names``; a row of empty
    cells is written with a quoted empty cell, as a blank line would be no row at all."""
    lines = [",".join(names)] + [",".join(row) if any(row) else '""' + "," * (len(row) - 1)
                                 for row in zip(*columns)]
    path.write_text("\n".join(lines) + "\n")
    return path


def read_or_error(path, **options):
    """``read_data(path, **options)``, or the message of its one-line HiddenbnError with the
    file's name taken out (two files refused alike give the same text)."""
    try:
        return read_data(path, **options)
    except HiddenbnError as err:
        assert "\n" not in str(err)
        return str(err).replace(str(path), "DATA")


def same_reading(one, other) -> bool:
    """Whether two readings are the same cases, states and notes in the same row order, or
    the same error."""
    if isinstance(one, str) or isinstance(other, str):
        return one == other
    first, second = one.every_case, other.every_case
    return (first.names == second.names and first.categories == second.categories
            and np.array_equal(first.patterns[one.row_patterns],
                               second.patterns[other.row_patterns])
            and np.array_equal(one.dataset.counts, other.dataset.counts)
            and one.notes == other.notes)


@fuzz(60)
@given(table_columns(category_cells), st.data())
def test_a_column_is_coded_alone_whatever_the_others_hold(folder, columns, data):
    """Changing one column changes no other column's codes or states."""
    names = [f"c{j}" for j in range(len(columns))]
    changed = data.draw(st.integers(0, len(columns) - 1))
    other = [list(column) for column in columns]
    other[changed] = data.draw(st.lists(category_cells, min_size=len(columns[0]),
                                        max_size=len(columns[0])))
    readings = [read_or_error(write_columns(folder / f"{which}.csv", names, table))
                for which, table in (("one", columns), ("other", other))]
    if any(isinstance(reading, str) for reading in readings):
        return  # a file refused (a row of missing cells, say): nothing coded to compare
    for j in set(range(len(columns))) - {changed}:
        first, second = (reading.every_case for reading in readings)
        assert first.categories[j] == second.categories[j]
        assert np.array_equal(first.patterns[readings[0].row_patterns, j],
                              second.patterns[readings[1].row_patterns, j])
    alone = [read_or_error(write_columns(folder / "alone.csv", [names[j]], [columns[j]]))
             for j in range(len(columns))]
    for j, column in enumerate(alone):  # as if the column were the file's only one
        if not isinstance(column, str):
            assert readings[0].every_case.categories[j] == column.every_case.categories[0]


@fuzz(60)
@given(table_columns(category_cells), st.lists(cells, min_size=8, max_size=8), st.data())
def test_a_column_the_model_is_not_bound_to_changes_nothing(folder, columns, extra, data):
    """An unbound column with any cells (huge numbers, text, only missing cells) changes no
    case, state, note or error of the bound ones; only a row that has no other cell is no
    longer empty (refused) but a case with nothing observed."""
    names = [f"c{j}" for j in range(len(columns))]
    where = data.draw(st.integers(0, len(columns)))
    # one cell per row, whatever it holds but a NUL byte: that makes the whole file binary,
    # which is refused as such (tests/test_bad_input.py)
    extra = [cell.replace(",", ";").replace("\n", " ").replace("\r", " ").replace('"', "'")
             .replace("\x00", " ") for cell in extra[:len(columns[0])]]
    wider = columns[:where] + [extra] + columns[where:]
    wider_names = names[:where] + ["extra"] + names[where:]
    missing = data.draw(st.sampled_from(["model", "drop"]))
    alone = read_or_error(write_columns(folder / "bound.csv", names, columns), missing=missing)
    with_extra = read_or_error(write_columns(folder / "wider.csv", wider_names, wider),
                               columns=names, missing=missing)
    if not (isinstance(alone, str) and "every cell is missing" in alone):
        assert same_reading(alone, with_extra)


@fuzz(8)
@given(st.lists(st.lists(st.integers(1, 2).map(str), min_size=3, max_size=3), min_size=6,
                max_size=12),
       st.lists(st.one_of(st.integers(0, 10**6).map(str), cells), min_size=12, max_size=12))
def test_the_fit_is_the_same_with_an_identifier_column_not_bound(folder, rows, identifiers):
    """An identifier counted from 0 gave every item coded 1..k a state 0: BIC moved."""
    identifiers = [cell.replace(",", ";").replace("\n", " ").replace("\r", " ")
                   .replace('"', "'").replace("\x00", " ") for cell in identifiers[:len(rows)]]
    columns = [list(column) for column in zip(*rows)]
    reports = []
    for path, names, table in ((folder / "items.csv", ["a", "b", "c"], columns),
                               (folder / "ids.csv", ["id", "a", "b", "c"],
                                [identifiers] + columns)):
        write_columns(path, names, table)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["fit", str(path), "--classes", "2", "--columns", "a,b,c",
                         "--restarts", "2", "--skip-de", "--json"]) == 0
        reports.append(json.loads(out.getvalue()))
    first, second = reports
    assert first["em"]["log_likelihood"] == second["em"]["log_likelihood"]
    assert first["lca"] == second["lca"] and first["notes"] == second["notes"]
    assert first["states"] == second["states"]


def respelled(number: int):
    """The ways a file may write the whole number ``number``."""
    return st.sampled_from([str(number), f"{number}.0", f"{number}.", f"{number}.00",
                            f"{number}e0", f" {number} ", f"+{number}" if number >= 0
                            else str(number), f"{number}0e-1"])


@fuzz(60)
@given(table_columns(st.one_of(st.integers(-9, 40), st.none())), st.data())
def test_a_whole_number_reads_the_same_in_any_spelling(folder, columns, data):
    """``1`` is ``1.0``: pandas writes the integers of a column with a missing cell so."""
    names = [f"c{j}" for j in range(len(columns))]
    plain = [["" if n is None else str(n) for n in column] for column in columns]
    spelled = [["" if n is None else data.draw(respelled(n)) for n in column]
               for column in columns]
    assert same_reading(read_or_error(write_columns(folder / "plain.csv", names, plain)),
                        read_or_error(write_columns(folder / "spelled.csv", names, spelled)))


@fuzz(60)
@given(table_columns(st.one_of(category_cells.filter(
    lambda cell: cell not in DEFAULT_MISSING_VALUES), st.none())), st.data())
def test_every_missing_value_spelling_is_an_empty_cell(folder, columns, data):
    """``NaN``, ``N/A``, ``NULL``, ``na``, ... are missing cells, never states."""
    names = [f"c{j}" for j in range(len(columns))]
    empty = [["" if cell is None else cell for cell in column] for column in columns]
    spelled = [[data.draw(st.sampled_from(DEFAULT_MISSING_VALUES)) if cell is None else cell
                for cell in column] for column in columns]
    assert same_reading(read_or_error(write_columns(folder / "empty.csv", names, empty)),
                        read_or_error(write_columns(folder / "spelled.csv", names, spelled)))


# --- the parameter-file reader ----------------------------------------------------------------
NETWORK = parse_spec("2:2,3")
tables = st.one_of(
    st.lists(st.lists(st.one_of(st.floats(), edge_integers, st.booleans(), st.text(max_size=3),
                                st.none()), max_size=4), max_size=4),
    json_values)
parameter_documents = st.one_of(
    st.fixed_dictionaries({"cpts": st.dictionaries(st.sampled_from(["H1", "X1", "X2", "Y"]),
                                                   tables, max_size=4)}),
    json_values)


@fuzz(200)
@given(parameter_documents, st.integers(0, 100),
       st.one_of(st.binary(max_size=3), st.just(b"9" * 5000)))
def test_parameter_files_load_or_fail_cleanly(folder, document, cut, noise):
    text = json.dumps(document).encode()
    path = folder / "params.json"
    path.write_bytes(text[:cut] + noise + text[cut:])
    cpts = valid_or_hiddenbn_error(load_parameters, path, NETWORK)
    if cpts is not None:
        assert all(np.all(np.isfinite(table)) for table in cpts)
