"""Paper 002's verdicts under every generating distribution and CS alpha (thin wrapper)."""

from pathlib import Path

import pandas as pd

from hiddenbn.experiments.comparison import read_printed
from hiddenbn.experiments.kocka_zhang2002 import write_sensitivity
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_sensitivity(
        pd.concat([pd.read_csv(f) for f in snakemake.input.lc], ignore_index=True),  # noqa: F821
        pd.concat([pd.read_csv(f) for f in snakemake.input.hlc], ignore_index=True),  # noqa: F821
        pd.read_csv(snakemake.input.printed_table2, dtype={"cases": int}),  # noqa: F821
        read_printed(snakemake.input.printed_sec6),  # noqa: F821
        snakemake.params.section,  # noqa: F821
        Path(snakemake.output.tables[0]).parent,  # noqa: F821
    )
