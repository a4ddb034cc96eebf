"""Figures 4-5, Table 2 and comparison.md of paper 002 (thin wrapper)."""

from pathlib import Path

import pandas as pd

from hiddenbn.experiments.comparison import read_printed
from hiddenbn.experiments.kocka_zhang2002 import write_report
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    inputs = snakemake.input  # noqa: F821
    write_report(
        pd.concat([pd.read_csv(f) for f in inputs.lc], ignore_index=True),
        pd.concat([pd.read_csv(f) for f in inputs.hlc], ignore_index=True),
        pd.read_csv(inputs.printed_table2, dtype={"cases": int}),
        read_printed(inputs.printed_sec6),
        pd.read_csv(inputs.sensitivity),
        pd.read_csv(inputs.table2_sensitivity),
        snakemake.params.section,  # noqa: F821
        Path(snakemake.output.comparison).parent,  # noqa: F821
    )
