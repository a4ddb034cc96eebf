"""Markdown pipe tables, the form of every table in the comparison and findings documents."""

from __future__ import annotations

import pandas as pd


def pipe_table(frame: pd.DataFrame, cell=str) -> str:
    """``frame`` as a Markdown pipe table (no index), each value written by ``cell``."""
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * frame.shape[1]]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)
