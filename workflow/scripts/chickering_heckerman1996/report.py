"""Tables, figures and comparison.md of paper 003 (thin wrapper)."""

import pandas as pd

from hiddenbn.experiments.chickering_heckerman1996 import write_report
from hiddenbn.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_report(
        pd.concat([pd.read_csv(f) for f in snakemake.input.fits], ignore_index=True),  # noqa: F821
        pd.read_csv(snakemake.input.reality),  # noqa: F821
        [pd.read_csv(f) for f in snakemake.input.dimensions],  # noqa: F821
        pd.read_csv(snakemake.input.printed_table1, dtype=str),  # noqa: F821
        pd.read_csv(snakemake.input.printed_table2),  # noqa: F821
        pd.read_csv(snakemake.input.printed_reality).iloc[0],  # noqa: F821
        snakemake.params.section,  # noqa: F821
        snakemake.output.comparison,  # noqa: F821
    )
