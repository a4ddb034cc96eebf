"""Fuzzing the input readers: generated malformed specs, data files and parameter files.

The promise under test: the spec parser (:func:`~hiddenbn.spec.parse_spec`), the data reader
(:func:`~hiddenbn.data.read_csv`) and the parameter-file reader
(:func:`~hiddenbn.models.load_parameters`) answer any input with a valid result or a
:class:`~hiddenbn.errors.HiddenbnError` (one line); any other exception would be a traceback at
the command line and fails the test. Valid results are checked too: data states read back
exactly, whatever their size.

Every test is derandomized (the same cases on every run, so CI is reproducible), has no
deadline (the machine may be busy) and keeps no example database. The budget is the sum of
the ``max_examples`` below, 1800 cases, which run in about 15 s on two busy cores.
"""

import csv
import io
import json
import re
import string

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hiddenbn import limits
from hiddenbn.data import DEFAULT_MISSING_VALUES, MISSING, read_csv
from hiddenbn.errors import HiddenbnError
from hiddenbn.models import load_parameters
from hiddenbn.spec import NODE_KEYS, parse_spec


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
    """Every case of ``dataset`` as the cells it was read from: a whole number for a state of a
    whole-number column, the label otherwise, None for a missing cell."""
    def cell(column, code):
        if code == MISSING:
            return None
        label = dataset.categories[column][code]
        return int(label) if ASCII_INTEGER.fullmatch(label) else label
    return sorted((tuple(cell(j, code) for j, code in enumerate(row)) for row in
                   dataset.rows().tolist()), key=repr)


#: A whole number as data.py reads one (``int`` alone takes more: ``1_0``, other digits).
ASCII_INTEGER = re.compile(r"[+-]?[0-9]+")


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
            return int(cell) if ASCII_INTEGER.fullmatch(cell) else cell
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
