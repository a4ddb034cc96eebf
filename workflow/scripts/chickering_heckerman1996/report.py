"""Tables, figures and comparison.md of paper 003 (thin wrapper)."""

import pandas as pd

from hiddenbn.experiments.chickering_heckerman1996 import write_report
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    inputs = snakemake.input  # noqa: F821
    write_report(
        pd.concat([pd.read_csv(f) for f in inputs.fits], ignore_index=True),
        pd.read_csv(inputs.reality),
        [pd.read_csv(f) for f in inputs.dimensions],
        {"table1": pd.read_csv(inputs.printed_table1, dtype=str),
         "table2": pd.read_csv(inputs.printed_table2),
         "reality": pd.read_csv(inputs.printed_reality).iloc[0],
         "section3": pd.read_csv(inputs.printed_section3).iloc[0],
         "figures": pd.read_csv(inputs.printed_figures)},
        snakemake.params.section,  # noqa: F821
        snakemake.output.comparison,  # noqa: F821
        pd.concat([pd.read_csv(f) for f in inputs.prior], ignore_index=True)
        if inputs.prior else None,
        snakemake.params.gold_experiments,  # noqa: F821
        pd.concat([pd.read_csv(f) for f in inputs.draws], ignore_index=True)
        if inputs.draws else None,
    )
