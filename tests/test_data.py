"""Pattern counts and data files."""

import collections
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import hiddenbn
from hiddenbn.cli import main
from hiddenbn.data.dataset import (MISSING, USUAL_MAX_STATES, Dataset, NumberedStates,
                                   pattern_counts, read_csv, read_data, write_csv, write_rows_csv)
from hiddenbn.errors import DataError
from hiddenbn.models.spec import parse_spec
from hiddenbn.util.defaults import DEFAULT_MISSING_VALUES


def reference_pattern_counts(rows):
    """The slow pure-Python reference: a Counter over row tuples, sorted."""
    counter = collections.Counter(tuple(int(v) for v in row) for row in rows)
    keys = sorted(counter)
    return keys, [counter[k] for k in keys]


@pytest.mark.parametrize("cardinalities", [[2, 3, 2, 5], [2**40, 2**30, 7]])
def test_pattern_counts_equal_the_reference(cardinalities, rng):
    # the second case does not fit a mixed-radix int64 key and takes the row-sort path
    high = np.minimum(cardinalities, 4)
    rows = np.column_stack([rng.integers(0, h, size=3000) for h in high])
    patterns, counts = pattern_counts(rows, cardinalities)
    keys, expected = reference_pattern_counts(rows)
    assert [tuple(p) for p in patterns.tolist()] == keys
    assert counts.tolist() == expected


def test_weights_merge_repeated_patterns():
    rows = np.array([[1, 0], [0, 1], [1, 0]])
    patterns, counts = pattern_counts(rows, weights=[5, 2, 10**15])
    assert patterns.tolist() == [[0, 1], [1, 0]]
    assert counts.tolist() == [2, 10**15 + 5]


def test_csv_round_trip_counts_and_rows(tmp_path, rng):
    rows = rng.integers(0, 3, size=(500, 4))
    dataset = Dataset.from_rows(["A", "B", "C", "D"], rows)
    write_csv(tmp_path / "counts.csv", dataset)
    write_rows_csv(tmp_path / "rows.csv", dataset.names, rows)
    for name in ("counts.csv", "rows.csv"):
        back = read_csv(tmp_path / name)
        assert back.names == dataset.names
        assert np.array_equal(back.patterns, dataset.patterns)
        assert np.array_equal(back.counts, dataset.counts)
    assert np.array_equal(np.sort(dataset.rows(), axis=0), np.sort(rows, axis=0))


def test_for_network_reorders_drops_and_checks_columns(tmp_path):
    network = parse_spec("2:2,3")
    dataset = Dataset.from_rows(["X2", "extra", "X1"], [[2, 0, 1], [2, 1, 1], [0, 0, 0]])
    fitted = dataset.for_network(network)
    assert fitted.names == ("X1", "X2")
    assert fitted.patterns.tolist() == [[0, 0], [1, 2]] and fitted.counts.tolist() == [1, 2]
    with pytest.raises(DataError, match="column 'X2' has state 3, outside the model's range 0..2"):
        Dataset.from_rows(["X1", "X2"], [[0, 3]]).for_network(network)
    with pytest.raises(DataError, match="the data has no column 'X1'"):
        Dataset.from_rows(["X2"], [[0]]).for_network(network)


def test_select_reorders_in_place_and_merges_what_it_drops():
    dataset = Dataset.from_rows(["a", "b", "c"], [[1, 0, 0], [0, 1, 1], [1, 0, 1]])
    reordered = dataset.select(["c", "a", "b"])
    # a permutation keeps each pattern's place, and its count
    assert reordered.patterns.tolist() == dataset.patterns[:, [2, 0, 1]].tolist()
    assert reordered.counts.tolist() == dataset.counts.tolist()
    dropped = dataset.select(["b", "a"])
    assert dropped.names == ("b", "a")
    assert dropped.patterns.tolist() == [[0, 1], [1, 0]] and dropped.counts.tolist() == [2, 1]
    assert dropped.n_cases == dataset.n_cases
    with pytest.raises(DataError, match="column 'a' is named twice"):
        dataset.select(["a", "b", "a"])
    with pytest.raises(DataError, match="the data has no column 'd'; columns of the data are"):
        dataset.select(["d"])
    with pytest.raises(DataError, match="no column of the data is named"):
        dataset.select([])
    # a code beyond its column's categories (a Dataset built by hand) stays itself when a
    # column is dropped, so that binding it to a model refuses it
    labelled = Dataset(("a", "b"), np.array([[3, 0], [0, 1]]), np.array([1, 1]),
                       categories=(("x", "y"), ("p", "q")))
    assert labelled.select(["a"]).patterns.tolist() == [[0], [3]]
    with pytest.raises(DataError, match="column 'a' has state 3, outside the model's range"):
        labelled.for_network(parse_spec({"nodes": {"a": {"states": 2}}}))


def test_a_model_with_more_states_than_a_column_extends_numbers_and_refuses_labels(tmp_path):
    """Found by an input audit: the states printed were the data's, the model's were more."""
    numbers = read_data(write(tmp_path, "X1,X2\n0,1\n1,0\n", "n.csv")).dataset
    bound = numbers.for_network(parse_spec("2:2,4"))
    assert bound.categories[1] == ("0", "1", "2", "3") and bound.cardinalities == (2, 4)
    labels = read_data(write(tmp_path, "X1,X2\n0,yes\n1,no\n", "l.csv")).dataset
    with pytest.raises(DataError, match="column 'X2' has 2 states \\('no', 'yes'\\) but the "
                                        "model gives it 3; give the model 2, or name the others "
                                        "in a data dictionary"):
        labels.for_network(parse_spec("2:2,3"))
    # one label: the model cannot be given 1 state, so the fix is the data's
    one = read_data(write(tmp_path, "X1,X2\n0,yes\n1,yes\n", "o.csv")).dataset
    with pytest.raises(DataError, match="column 'X2' has 1 state \\('yes'\\) but the model "
                                        "gives it 2; an observed variable needs at least 2: name "
                                        "the others in a data dictionary \\(dictionary=\\), "
                                        "or leave the column out of the model \\(columns=\\)"
                                        ) as caught:
        one.for_network(parse_spec("2:2,2"))
    assert caught.value.command_line_message().endswith(
        "data dictionary (--dictionary), or leave the column out of the model (--columns)")


@pytest.mark.parametrize("text, message", [
    ("", "is empty; it needs a header"),
    ("A,B\n", "has a header but no rows"),
    ("A,B\n0,1\n1\n", "line 3: 1 cells, but the header has 2"),
    ("A,B\n0,1\n1,0,1\n", "Expected 2 fields in line 3, saw 3"),
    ("A,B,count\n0,1,-2\n", "the count column has '-2'"),
    ("A,B,count\n0,1,\n", "the count column has an empty cell"),
    ("A,B,count\n0,1,0\n", "every count is zero"),
    ("A,A\n0,1\n", "the column name 'A' appears twice"),
    ("A,\n0,1\n", "column 2 of the header has no name"),
    ("A,B\n0,NA\n1,\n", "column 'B' has only missing cells"),
    ("A,B\n0,1\n.,NA\n", "row 2: every cell is missing"),
    ("A,B\n0,123456789012345678901\n", "has 21 digits"),
    ("A,B\n0,3000000000\n", "column 'B': 3000000000 is not a state of a variable"),
    ("A;B;C\n0;1;1\n", "its cells seem separated by ';'; separate them by commas"),
])
def test_malformed_data_files_get_one_line(tmp_path, text, message):
    path = tmp_path / "data.csv"
    path.write_text(text)
    with pytest.raises(DataError) as error:
        read_csv(path)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_missing_data_file(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        read_csv(tmp_path / "nope.csv")


def same(one: Dataset, other: Dataset) -> bool:
    """Whether two data sets hold the same cases over the same columns and states."""
    return (one.names == other.names and np.array_equal(one.patterns, other.patterns)
            and np.array_equal(one.counts, other.counts) and one.categories == other.categories)


def write(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_labels_are_states_in_factor_order_and_missing_cells_are_kept(tmp_path):
    path = write(tmp_path, "smoker,score,region\nyes,1,north\nno,3,NA\n,2,south\nno,3,north\n")
    data = read_data(path)
    dataset = data.dataset
    assert dataset.categories == (("no", "yes"), ("1", "2", "3"), ("north", "south"))
    rows = dataset.patterns[np.repeat(np.arange(dataset.n_patterns), dataset.counts)]
    # the rows in file order, from the row -> pattern map
    in_order = data.every_case.patterns[data.row_patterns]
    assert in_order.tolist() == [[1, 0, 0], [0, 2, MISSING], [MISSING, 1, 1], [0, 2, 0]]
    assert sorted(map(tuple, rows.tolist())) == sorted(map(tuple, in_order.tolist()))
    assert dataset.has_missing and dataset.cardinalities == (2, 3, 2)


def test_text_labels_of_an_ordered_column_need_a_dictionary_that_orders_them(tmp_path):
    path = write(tmp_path, "C,E\na,low\nb,high\na,medium\n")
    with pytest.raises(DataError, match=r"column 'E': the model takes a max or sum .*"
                                        r"data dictionary .*'E: \[first, second"):
        read_data(path, ordered=("E",))
    data = read_data(path, ordered=("E",), dictionary={"E": ["low", "medium", "high"]})
    assert data.dataset.categories[1] == ("low", "medium", "high")
    assert data.every_case.patterns[data.row_patterns][:, 1].tolist() == [0, 2, 1]
    # numbers (whole or not) order themselves, and a column that is not ordered sorts labels
    numbers = write(tmp_path, "C,E\na,2\nb,0.5\n", "numbers.csv")
    assert read_data(numbers, ordered=("E",)).dataset.categories[1] == ("0.5", "2")
    assert read_data(path).dataset.categories[1] == ("high", "low", "medium")


def test_each_column_keeps_zero_based_codes_or_reads_one_based_ones_on_its_own(tmp_path):
    zero = read_data(write(tmp_path, "A,B\n0,2\n1,2\n", "zero.csv"))
    assert zero.dataset.categories == (("0", "1"), ("1", "2"))  # A's 0 is not B's state
    assert zero.notes == ("whole-number states are read from 1 up, or from a column's smallest "
                          "number below 1; no cell of 'B' is 1: give their categories in a data "
                          "dictionary if they start elsewhere",)
    # a file of codes, as hiddenbn writes one, read from 0 in every column
    assert read_data(tmp_path / "zero.csv", base=0).dataset.categories == (
        ("0", "1"), ("0", "1", "2"))
    one = read_data(write(tmp_path, "A,B\n1,1\n2,4\n", "one.csv"))
    assert one.dataset.categories == (("1", "2"), ("1", "2", "3", "4"))
    assert one.every_case.patterns[one.row_patterns].tolist() == [[0, 0], [1, 3]]
    # 2 and 3 count as states of B although no cell has them: said, as a stray 99 would be
    assert one.notes == ("whole numbers that no cell has still count as states, in column 'B' "
                         "(2 of 1..4). If a number stands for a missing answer (such as -9 or 99), "
                         "add it to the missing values (missing_values=); a data dictionary "
                         "fixes a column's states",)
    assert not read_data(write(tmp_path, "A,B\n1,1\n2,2\n", "full.csv")).notes


def test_a_whole_number_written_with_a_decimal_point_is_that_number(tmp_path):
    """pandas writes the integers of a column with a missing cell as 2.0: they were other
    states than 2, a dictionary [1, 2] did not match them, and a count of 5.0 was refused."""
    plain = read_data(write(tmp_path, "a,b,count\n1,2,5\n2,4,1\n1,,3\n", "plain.csv"))
    floats = read_data(write(tmp_path, "a,b,count\n1.0,2.0,5.0\n2.,4e0,1.00\n1,,3\n"))
    assert same(floats.dataset, plain.dataset) and floats.notes == plain.notes
    assert floats.dataset.categories == (("1", "2"), ("1", "2", "3", "4"))
    dictionary = {"a": ("2", "1"), "b": ("1.0", "2.0", "3.0", "4.0")}
    declared = read_csv(tmp_path / "data.csv", dictionary=dictionary)
    assert same(declared, read_csv(tmp_path / "plain.csv", dictionary=dictionary))
    assert declared.categories[1] == ("1.0", "2.0", "3.0", "4.0")  # as the dictionary has them
    labels = read_data(write(tmp_path, "a,b\n1,0\n1.0,1\nx,0\n", "labels.csv"))
    assert labels.dataset.categories[0] == ("1", "x")
    with pytest.raises(DataError, match="row 2: the count column has '2.5'; counts are whole"):
        read_csv(write(tmp_path, "a,count\n1,1\n2,2.5\n", "half.csv"))
    with pytest.raises(DataError, match="column 'a' lists a category twice"):
        read_csv(tmp_path / "plain.csv", dictionary={"a": ("1", "1.0", "2")})


def test_one_number_written_two_ways_is_refused(tmp_path):
    with pytest.raises(DataError, match="column 'a' has both '1.5' and '1.50', one number "
                                        "written two ways"):
        read_data(write(tmp_path, "a,b\n1.5,0\n1.50,1\n2,0\n"))


def test_numbers_that_are_not_whole_are_states_with_a_note_naming_the_column_and_row(tmp_path):
    read = read_data(write(tmp_path, "a,b\n1,0\n2,1\n2.5,0\n"))
    assert read.dataset.categories[0] == ("1", "2", "2.5")
    assert read.notes == ("column 'a' holds numbers that are not whole ('2.5' in row 3), so "
                          "each of its 3 distinct values is a state; if it is a measurement, bin "
                          "it into a few categories or leave the column out",)
    assert not read_data(write(tmp_path, "a,b\n1,0\nx,1\n2.5,0\n", "labels.csv")).notes


def test_a_column_with_more_states_than_a_category_has_gets_a_note(tmp_path):
    def notes(values):
        return read_data(write(tmp_path, "a,b\n" + "".join(f"{v},{v % 2}\n" for v in values),
                               "many.csv")).notes
    assert not notes(range(1, USUAL_MAX_STATES + 1))
    assert notes(range(USUAL_MAX_STATES + 1)) == (
        f"column 'a' has {USUAL_MAX_STATES + 1} states (whole numbers 0..{USUAL_MAX_STATES}), "
        f"more than the {USUAL_MAX_STATES} a categorical variable usually has; if it is an "
        "identifier or a measurement, leave the column out or bin it into a few categories",)
    assert notes([1, 2, 1000]) == (  # 1000 states, as a stray code would give
        "whole numbers that no cell has still count as states, in column 'a' (997 of 1..1000). "
        "If a number stands for a missing answer (such as -9 or 99), add it to the missing values "
        "(missing_values=); a data dictionary fixes a column's states",
        f"column 'a' has 1000 states (whole numbers 1..1000), more than the {USUAL_MAX_STATES} a "
        "categorical variable usually has; if it is an identifier or a measurement, leave the "
        "column out or bin it into a few categories")
    labels = read_data(write(tmp_path, "a,b\n" + "".join(f"p{v},1\n" for v in range(40)),
                             "labels.csv")).notes
    assert labels == (f"column 'a' has 40 states (distinct labels), more than the "
                      f"{USUAL_MAX_STATES} a categorical variable usually has; if it is an "
                      "identifier or a measurement, leave the column out or bin it into a "
                      "few categories",)


def test_a_missing_code_in_one_column_changes_no_other_column(tmp_path):
    """A -9 in one column gave every other column the states -9..4; an identifier from 0 gave
    every item coded 1..k a state 0."""
    read = read_data(write(tmp_path, "id,a,b\n0,1,-9\n1,2,1\n2,1,2\n"))
    assert read.dataset.categories == (("0", "1", "2"), ("1", "2"), NumberedStates(-9, 12))
    assert read.every_case.patterns[read.row_patterns, 1].tolist() == [0, 1, 0]
    assert read.notes == ("whole numbers that no cell has still count as states, in column 'b' "
                          "(9 of -9..2). If a number stands for a missing answer (such as -9 or "
                          "99), add it to the missing values (missing_values=); a data "
                          "dictionary fixes a column's states",)
    named = read_csv(tmp_path / "data.csv", missing_values=("", "-9"))
    assert named.categories == (("0", "1", "2"), ("1", "2"), ("1", "2"))


def test_columns_not_named_are_not_read_at_all(tmp_path):
    """A column the model is not bound to changes no state, case, note or error."""
    alone = read_data(write(tmp_path, "a,b\n1,2\n2,1\n,2\n2,2\n", "alone.csv"))
    for other in (["0", "1", "2", "3"], ["x", "", "NA", "y"], ["", "", "", ""],
                  ["1.5", "99999999999999999999999", "3000000000", "-9"]):
        path = write(tmp_path, "a,id,b\n" + "".join(
            f"{a},{o},{b}\n" for (a, b), o in zip([(1, 2), (2, 1), ("", 2), (2, 2)], other)))
        read = read_data(path, columns=("a", "b"), missing="drop")
        assert same(read.dataset, read_data(tmp_path / "alone.csv", missing="drop").dataset)
        assert same(read.every_case, alone.every_case) and read.notes[1:] == ()
        assert np.array_equal(read.row_patterns, alone.row_patterns)
    with pytest.raises(DataError, match="the data has no column 'c'; columns of data file"):
        read_data(path, columns=("a", "c"))


def test_a_row_with_cells_only_in_columns_not_read_is_a_case_with_nothing_observed(tmp_path):
    """A respondent who skipped the items a model is bound to is kept (as poLCA keeps one); a
    row with no cell at all is refused, as a slip."""
    path = write(tmp_path, "id,a,b\n1,1,2\n2,,NA\n3,2,1\n,,\n")
    with pytest.raises(DataError, match="row 4: every cell is missing; delete the row"):
        read_data(path, columns=("a", "b"))
    path.write_text("id,a,b\n1,1,2\n2,,NA\n3,2,1\n")
    read = read_data(path, columns=("a", "b"))
    assert read.dataset.n_cases == 3
    assert read.every_case.patterns[read.row_patterns].tolist() == [[0, 1], [MISSING] * 2, [1, 0]]


@pytest.mark.parametrize("spelling", [value for value in DEFAULT_MISSING_VALUES if value])
def test_the_missing_value_spellings_of_pandas_and_r_are_missing_cells(tmp_path, spelling):
    path = write(tmp_path, f"a,b\n1,{spelling}\n2,1\n 1 , {spelling} \n2,2\n")
    assert same(read_csv(path), read_csv(write(tmp_path, "a,b\n1,\n2,1\n1,\n2,2\n", "empty.csv")))
    assert read_csv(path).categories[1] == ("1", "2")


def test_the_defaults_hold_pandas_na_values_and_the_ones_it_leaves_out():
    from pandas._libs.parsers import STR_NA_VALUES  # what pandas.read_csv reads as NaN

    assert set(DEFAULT_MISSING_VALUES) == STR_NA_VALUES | {".", "na"}


@pytest.mark.parametrize("preamble", ["# survey of 2020, wave 1\n", "#\n# two lines\n",
                                      "sep=,\n", '"sep=,"\n', "sep=,\n# and a comment\n"])
def test_comment_lines_and_an_excel_separator_line_before_the_header_are_skipped(tmp_path,
                                                                                 preamble):
    plain = read_csv(write(tmp_path, "A,B\n0,1\n1,0\n", "plain.csv"))
    assert same(read_csv(write(tmp_path, preamble + "A,B\n0,1\n1,0\n")), plain)
    path = write(tmp_path, "\ufeff" + preamble + "A,B\n0,1\n1\n", "short.csv")
    with pytest.raises(DataError, match=f"line {preamble.count(chr(10)) + 3}: 1 cells, but"):
        read_csv(path)


@pytest.mark.parametrize("separator", [";", "\t", "|"])
def test_the_separator_an_excel_first_line_names_is_used(tmp_path, separator):
    plain = read_csv(write(tmp_path, "A,B\n0,1\n1,0\n", "plain.csv"))
    text = f"sep={separator}\nA{separator}B\n0{separator}1\n1{separator}0\n"
    assert same(read_csv(write(tmp_path, text)), plain)
    with pytest.raises(DataError, match="line 4: 1 cells, but the header has 2"):
        read_csv(write(tmp_path, f"sep={separator}\nA{separator}B\n0{separator}1\n1\n",
                       "short.csv"))


@pytest.mark.parametrize("text, message", [
    ("sep=x\nA,B\n0,1\n", "line 1 names the separator 'x'; separate cells by commas, "
                            "semicolons, tabs or '|'"),
    ("# only a comment\n", "is empty; it needs a header of variable names on its line 2"),
    ("sep=;\n\nA;B\n0;1\n", "is empty; it needs a header of variable names on its line 2"),
    ("A;B\n0;1\n", "its cells seem separated by ';'; separate them by commas, or name the "
                   "separator on a first line 'sep=;' as Excel writes it"),
    # a header whose first name starts with '#' is a comment: the message says which line is read
    ("#,a,b\n1,1,2\n", "the column name '1' appears twice in the header (line 2: the lines "
                       "before it, starting with '#' or 'sep=', are skipped)"),
])
def test_a_preamble_that_cannot_be_read_is_one_line(tmp_path, text, message):
    with pytest.raises(DataError) as error:
        read_csv(write(tmp_path, text))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_data_dictionary_fixes_states_order_and_absent_categories(tmp_path):
    data = write(tmp_path, "smoker,score\nyes,agree\nno,disagree\n")
    dictionary = write(tmp_path, "smoker: [no, yes]\nscore: [disagree, neutral, agree]\n",
                       "dictionary.yaml")
    dataset = read_csv(data, dictionary=dictionary)
    assert dataset.categories == (("no", "yes"), ("disagree", "neutral", "agree"))
    assert sorted(dataset.patterns.tolist()) == [[0, 0], [1, 2]]
    bad = write(tmp_path, "smoker: [no]\n", "bad.yaml")
    with pytest.raises(DataError, match="'yes', which is not one of its categories"):
        read_csv(data, dictionary=bad)
    with pytest.raises(DataError, match="names column 'age', which data file"):
        read_csv(data, dictionary={"age": ("1",)})
    # a category that is also a missing value would turn missing cells into that category
    for category, message in (("", "lists an empty category, which is read as a missing cell"),
                              ("NA", "lists 'NA', which is read as a missing cell")):
        with pytest.raises(DataError, match=message):
            read_csv(data, dictionary={"smoker": ("no", "yes", category)})
    assert read_csv(data, dictionary={"smoker": ("no", "yes", "NA")},
                    missing_values=("",)).categories[0] == ("no", "yes", "NA")


def test_missing_values_are_configurable_and_drop_deletes_cases(tmp_path):
    path = write(tmp_path, "A,B,count\n0,1,3\n-9,0,2\n1,NA,4\n")
    kept = read_csv(path, missing_values=("-9", "NA"))
    assert kept.n_cases == 9 and kept.has_missing
    dropped = read_data(path, missing_values=("-9", "NA"), missing="drop")
    assert dropped.dataset.n_cases == 3 and not dropped.dataset.has_missing
    assert "6 of 9 cases have a missing cell" in dropped.notes[0]
    assert dropped.every_case.n_cases == 9  # per-row outputs still cover every row


#: The notes of reading a file whose column B has the numbers 1 and 4 (2 and 3 are states no
#: cell has) and a missing cell, dropped: each names its option as the caller wrote it.
GAP_AND_DROP = ("whole numbers that no cell has still count as states, in column 'B' (2 of "
                "1..4). If a number stands for a missing answer (such as -9 or 99), add it to "
                "the missing values ({}); a data dictionary fixes a column's states",
                "1 of 6 cases have a missing cell and were dropped (listwise deletion, {})")


def test_the_notes_of_reading_name_options_as_the_caller_wrote_them(tmp_path, capsys):
    """The command line's notes (its text and JSON) name the flags, the Python API's (its
    result, its JSON, the estimator's warnings) the keywords; none keeps the invisible mark
    that tells an option apart."""
    path = write(tmp_path, "A,B,C\n1,1,1\n2,4,2\n1,,1\n2,1,2\n1,4,2\n2,4,1\n")
    arguments = ["fit", str(path), "--classes", "1", "--missing", "drop", "--skip-de"]
    flags = (GAP_AND_DROP[0].format("--missing-values"), GAP_AND_DROP[1].format("--missing drop"))
    keywords = (GAP_AND_DROP[0].format("missing_values="),
                GAP_AND_DROP[1].format("missing='drop'"))
    assert main(arguments + ["--json"]) == 0
    printed = capsys.readouterr().out
    assert tuple(json.loads(printed)["notes"][:2]) == flags
    assert main(arguments) == 0
    text = capsys.readouterr().out
    assert all(f"note: {note}\n" in text for note in flags)
    result = hiddenbn.fit(path, classes=1, missing="drop", skip_de=True)
    assert tuple(result.notes[:2]) == keywords
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hiddenbn.LatentClassModel(n_classes=1, missing="drop").fit(pd.read_csv(path))
    assert tuple(str(warning.message) for warning in caught) == keywords
    for output in (printed, text, result.to_json(), str(result)):
        assert "\u2063" not in output


def test_large_files_read_as_arrays(tmp_path, rng):
    rows = rng.integers(0, 3, size=(20000, 6))
    write_rows_csv(tmp_path / "rows.csv", [f"Q{j}" for j in range(6)], rows)
    data = read_data(tmp_path / "rows.csv")
    assert np.array_equal(data.every_case.patterns[data.row_patterns], rows)


def test_cells_usually_missing_that_are_read_as_states_get_a_note(tmp_path):
    path = write(tmp_path, "a,b\nx,1\nNA,2\ny,?\nx,1\n")
    own = read_data(path, missing_values=("", "?"))
    assert own.dataset.categories[0] == ("NA", "x", "y")
    assert own.notes == ("cells usually read as missing are states here, as the missing values "
                         "given leave them out: 'a' ('NA'); list them with the others if they "
                         "mean a missing answer",)
    assert not read_data(path).notes  # by default NA is missing and '?' is a label


def test_a_count_column_named_otherwise_is_a_variable_with_a_note(tmp_path):
    read = read_data(write(tmp_path, "a,Count\nx,10\ny,3\n"))
    assert read.dataset.names == ("a", "Count") and read.dataset.n_cases == 2
    assert ("column 'Count' is read as a variable; name it 'count' if it counts the cases of "
            "each row") in read.notes


@pytest.mark.parametrize("dictionary, message", [
    ({"A": ["0", "0", "1"]}, "column 'A' lists a category twice"),
    ({"A": [0, 1]}, "column 'A' needs a list of categories as text"),
    ({}, "must map column names to lists of categories"),
])
def test_a_dictionary_given_as_a_mapping_is_checked_as_a_file_is(tmp_path, dictionary, message):
    """Found by an input audit: a repeated category made a phantom state, numbers a TypeError."""
    with pytest.raises(DataError, match=message):
        read_data(write(tmp_path, "A,B\n0,1\n1,0\n"), dictionary=dictionary)


def test_missing_values_given_as_one_text_are_refused(tmp_path):
    """Found by an input audit: 'NA' was taken as the set {'N', 'A'}."""
    with pytest.raises(DataError, match="missing_values must be a list of cell texts"):
        read_data(write(tmp_path, "A,B\n0,1\n1,\n"), missing_values="NA")


def test_a_numeric_column_is_read_as_its_numbers(tmp_path):
    """The effect of a noisy-additive model: each number one state (1 and 1.0 alike), labelled
    as float reads it back; a cell that is not a number is refused with its row."""
    path = write(tmp_path, "C,E\n0,1\n1,1.0\n0,2.5\n1,\n0,1e1\n", "numbers.csv")
    data = read_data(path, numeric=("E",))
    assert data.dataset.categories[1] == ("1.0", "2.5", "10.0")
    assert sorted(data.dataset.patterns[:, 1].tolist()) == [MISSING, 0, 0, 1, 2]
    with pytest.raises(DataError, match="row 2, column 'E': 'inf' is not a number"):
        read_data(write(tmp_path, "C,E\n0,1\n1,inf\n", "inf.csv"), numeric=("E",))
