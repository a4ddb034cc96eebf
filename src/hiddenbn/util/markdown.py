"""Markdown pipe tables, the form of every table in the comparison and findings documents."""

from __future__ import annotations

import math

import pandas as pd


def general_cell(value) -> str:
    """A cell for :func:`pipe_table`: blank when missing (None or NaN), a float in the general
    format (six significant digits: ``0.333333``, ``12``, ``1.5e-07``), anything else as
    ``str``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def pipe_table(frame: pd.DataFrame, cell=str) -> str:
    """``frame`` as a Markdown pipe table (no index), each value written by ``cell``
    (e.g. :func:`general_cell`)."""
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * frame.shape[1]]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)
