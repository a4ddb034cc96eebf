"""Markdown pipe tables (hiddenbn.util.markdown): cells and layout, and the numbers as tabulate's
``DataFrame.to_markdown`` writes them."""

import math

import numpy as np
import pandas as pd
import pytest

from hiddenbn.util.markdown import general_cell, pipe_table

FRAME = pd.DataFrame({"model": ["F1", "F2", "F3"], "de": [7, 12, 1234567],
                      "gap": [14.56789123, 0.000012345, None], "holds": [True, None, False],
                      "share": [0.5, float("nan"), 1 / 3]})


def test_general_cell_blanks_missing_values_and_writes_floats_in_the_general_format():
    assert [general_cell(v) for v in (None, math.nan, np.nan, np.float64(np.nan))] == [""] * 4
    assert [general_cell(v) for v in (1 / 3, 12.0, 1.5e-7, np.float64(2.5), math.inf)] == \
        ["0.333333", "12", "1.5e-07", "2.5", "inf"]
    assert [general_cell(v) for v in (7, np.int64(1234567), True, "x")] == \
        ["7", "1234567", "True", "x"]


def test_pipe_table_writes_a_header_a_rule_and_one_row_per_record():
    text = pipe_table(FRAME.astype(object).where(FRAME.notna(), None), general_cell)
    assert text.split("\n") == [
        "| model | de | gap | holds | share |",
        "|---|---|---|---|---|",
        "| F1 | 7 | 14.5679 | True | 0.5 |",
        "| F2 | 12 | 1.2345e-05 |  |  |",
        "| F3 | 1234567 |  | False | 0.333333 |"]
    assert pipe_table(FRAME[["model"]]).split("\n")[2] == "| F1 |"  # default cell: str


def _cells(text):
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for i, line in enumerate(text.split("\n")) if i != 1]


def test_the_cells_are_tabulates_but_for_padding_and_alignment():
    pytest.importorskip("tabulate")
    shown = FRAME.astype(object).where(FRAME.notna(), None)
    assert _cells(pipe_table(shown, general_cell)) == \
        _cells(shown.to_markdown(index=False, missingval=""))
