"""Pattern counts and data files."""

import collections

import numpy as np
import pytest

from hiddenbn.data import Dataset, pattern_counts, read_csv, write_csv, write_rows_csv
from hiddenbn.errors import DataError
from hiddenbn.spec import parse_spec


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


@pytest.mark.parametrize("text, message", [
    ("", "is empty; it needs a header"),
    ("A,B\n", "has a header but no rows"),
    ("A,B\n0,1\n1,x\n", "line 3: 'x' is not an integer state"),
    ("A,B\n0,1\n1\n", "line 3: 1 cells, but the header has 2"),
    ("A,B\n0,-1\n", "column 'B' has the negative state -1"),
    ("A,B,count\n0,1,-2\n", "the count column has a negative count"),
    ("A,B,count\n0,1,0\n", "every count is zero"),
    ("A,A\n0,1\n", "a column name appears twice"),
    ("A,B\n0,1.5\n", "'1.5' is not an integer state"),
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
