"""Figures 4-5, Table 2 and comparison.md of paper 002 (thin wrapper)."""

from pathlib import Path

import pandas as pd

from hiddenbn.experiments.kocka_zhang2002 import write_report
from hiddenbn.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_report(
        pd.concat([pd.read_csv(f) for f in snakemake.input.lc], ignore_index=True),  # noqa: F821
        pd.concat([pd.read_csv(f) for f in snakemake.input.hlc], ignore_index=True),  # noqa: F821
        pd.read_csv(snakemake.input.printed_table2, dtype={"cases": int}),  # noqa: F821
        snakemake.params.section,  # noqa: F821
        Path(snakemake.output.comparison).parent,  # noqa: F821
    )
